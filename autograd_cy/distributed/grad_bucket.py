"""``GradBucket``, as ``torch.distributed.GradBucket``: what a DDP communication hook
receives, a view of one of the reducer's buckets (NOTE [DDP's buckets] in
autograd_cy/nn/parallel/buckets.py)."""

__all__ = ["GradBucket"]


class GradBucket:
    """What a communication hook receives (as ``torch.distributed.GradBucket``): the
    bucket's flat ``buffer()``, its ``index()``, its ``parameters()`` and their
    ``gradients()`` (views of the buffer), and whether it ``is_last()``."""

    def __init__(self, bucket, is_last):
        self._bucket = bucket
        self._is_last = is_last

    def index(self):
        return self._bucket.index

    def buffer(self):
        return self._bucket.buffer

    def gradients(self):
        return list(self._bucket.views)

    def parameters(self):
        return list(self._bucket.params)

    def is_last(self):
        return self._is_last

    def set_buffer(self, buffer):
        """Replace the bucket's flat buffer's values with ``buffer``'s."""
        self._bucket.buffer.copy_(buffer)
