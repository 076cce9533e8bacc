"""The default communication hooks of DDP, as torch's ``default_hooks``: a plain allreduce
(what DDP does without a hook), and allreduces of the bucket compressed to float16 or
bfloat16 (half the bytes on the wire, for an error of the half type's rounding)."""
from autograd_cy import distributed as dist

__all__ = ["allreduce_hook", "fp16_compress_hook", "bf16_compress_hook"]


def _group(process_group):
    return dist.process_group._group_or_default(process_group)


def _allreduce_sum(group, tensor):
    """A Future of ``tensor`` summed over the group."""
    work = dist.all_reduce(tensor, group=group, async_op=True)
    return work.get_future().then(lambda future: future.value()[0])


def allreduce_hook(process_group, bucket):
    """Average the bucket with one allreduce, as DDP does without a hook: divided by the
    world size, then summed."""
    group = _group(process_group)
    return _allreduce_sum(group, bucket.buffer().div_(group.size()))


def _compress_hook(dtype):
    def hook(process_group, bucket):
        # torch casts, then divides in the half type; dividing first gives the same values
        # for a world size that is a power of two (an exact scaling), and is several times
        # faster here (NumPy computes float16 one element at a time).
        group = _group(process_group)
        buffer = bucket.buffer()
        compressed = buffer.div_(group.size()).to(dtype)
        future = _allreduce_sum(group, compressed)

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
