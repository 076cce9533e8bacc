"""The default communication hooks of DDP, as torch's ``default_hooks``: a plain allreduce
(what DDP does without a hook), and allreduces of the bucket compressed to float16 or
bfloat16 (half the bytes on the wire, for an error of the half type's rounding)."""
from autograd_cy import distributed as dist

__all__ = ["allreduce_hook", "fp16_compress_hook", "bf16_compress_hook"]


def _group(process_group):
    return dist.process_group._group_or_default(process_group)


def _allreduce_average(process_group, tensor):
    """A Future of ``tensor`` averaged over the group: divided first, then summed."""
    group = _group(process_group)
    tensor.div_(group.size())
    work = dist.all_reduce(tensor, group=group, async_op=True)
    return work.get_future().then(lambda future: future.value()[0])


def allreduce_hook(process_group, bucket):
    """Average the bucket with one allreduce, as DDP does without a hook."""
    return _allreduce_average(process_group, bucket.buffer())


def _compress_hook(dtype):
    def hook(process_group, bucket):
        buffer = bucket.buffer()
        compressed = buffer.to(dtype)
        future = _allreduce_average(process_group, compressed)

        def decompress(future):
            buffer.copy_(future.value())
            return buffer
        return future.then(decompress)
    return hook


def fp16_compress_hook(process_group, bucket):
    """Average the bucket in float16: cast, divide by the world size, allreduce, and cast
    back into the bucket."""
    from autograd_cy import float16
    return _compress_hook(float16)(process_group, bucket)


def bf16_compress_hook(process_group, bucket):
    """As ``fp16_compress_hook``, in bfloat16 (float32's range, fewer digits)."""
    from autograd_cy import bfloat16
    return _compress_hook(bfloat16)(process_group, bucket)
