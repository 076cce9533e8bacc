"""Gradient buckets: DDP reduces gradients not one by one but in flat buffers of about
``bucket_cap_mb`` each, so that each collective is large enough to be efficient and the
first ones can start while backward is still computing the rest (NOTE [DDP's buckets])."""
from autograd_cy.factories import zeros

__all__ = ["Bucket", "compute_bucket_assignment_by_size",
           "DEFAULT_FIRST_BUCKET_BYTES", "DEFAULT_BUCKET_CAP_MB"]

#: torch's cap of the first bucket: small, so that the first allreduce starts early
DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024
#: torch's default ``bucket_cap_mb``
DEFAULT_BUCKET_CAP_MB = 25

# NOTE [DDP's buckets]
# Backward produces gradients roughly in the reverse order of the forward, so DDP first
# fills buckets with the parameters in reverse order of ``module.parameters()``: the last
# layer's gradients, ready first, go into bucket 0. Bucket 0 is capped at 1 MiB (it is
# launched as soon as possible), the others at ``bucket_cap_mb``; a bucket holds one dtype on
# one device. After the first iteration the reducer knows the order in which gradients
# actually became ready and rebuilds the buckets once in that order (rank 0's order, sent to
# the others, so that every rank has the same layout). Buckets are reduced strictly in index
# order on every rank: their collectives must be issued in the same order everywhere.


def compute_bucket_assignment_by_size(params, size_limits, keep_order=False):
    """Lists of indices into ``params``, one per bucket: consecutive parameters of one dtype
    and device until the bucket reaches its size limit (``size_limits[0]`` for the first
    bucket of each dtype and device, then the next limit, the last one repeating). The
    buckets are sorted by their smallest index unless ``keep_order``."""
    buckets = []
    open_buckets = {}
    for index, p in enumerate(params):
        key = (p.dtype, str(p.device))
        current = open_buckets.get(key)
        if current is None:
            current = open_buckets[key] = {"indices": [], "bytes": 0, "limit": 0}
        current["indices"].append(index)
        current["bytes"] += p.numel() * p.element_size()
        if current["bytes"] >= size_limits[current["limit"]]:
            buckets.append(current["indices"])
            limit = min(current["limit"] + 1, len(size_limits) - 1)
            open_buckets[key] = {"indices": [], "bytes": 0, "limit": limit}
    buckets += [b["indices"] for b in open_buckets.values() if b["indices"]]
    if not keep_order:
        buckets.sort(key=min)
    return buckets


class Bucket:
    """A flat buffer holding the gradients of some parameters, each seen through a view of
    its shape (``views[i]``, for ``params[i]``)."""

    def __init__(self, index, params, param_indices):
        self.index = index
        self.params = params
        self.param_indices = param_indices
        first = params[0]
        total = sum(p.numel() for p in params)
        self.buffer = zeros(total, dtype=first.dtype, device=first.device)
        self.views = []
        offset = 0
        for p in params:
            n = p.numel()
            self.views.append(self.buffer[offset:offset + n].view(tuple(p.shape)))
            offset += n
        self.pending = len(params)
        self.future = None

    @property
    def nbytes(self):
        return self.buffer.numel() * self.buffer.element_size()
