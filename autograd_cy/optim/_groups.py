"""Which path an optimizer's step takes, and the lists its multi-tensor path runs over.

On the CPU every optimizer updates the NumPy arrays in place (NOTE [Optimizer steps on the
arrays]), whatever ``foreach`` says: torch's multi-tensor path computes the same values
there, and the point of it, fewer kernel launches, does not arise. Tensors on a CUDA
device take the multi-tensor path (torch's default there), whose ``_foreach_*`` ops run one
launch per op for the list of each device and dtype (NOTE [Foreach on CUDA]).
"""
from autograd_cy.optim._arrays import on_numpy, real_array

__all__ = ["wants_foreach", "by_device_and_dtype", "real_views"]


def wants_foreach(lists):
    """Whether the tensors of ``lists`` need the multi-tensor path: some are not plain
    NumPy-backed CPU tensors, or a complex one NumPy cannot view as real."""
    tensors = [t for tensors in lists for t in tensors]
    return not on_numpy(tensors) or any(real_array(t) is None for t in tensors)


def by_device_and_dtype(tensors):
    """The indices of ``tensors`` grouped by (device, dtype), in order of first sight."""
    groups = {}
    for i, t in enumerate(tensors):
        groups.setdefault((str(t.device), t.dtype), []).append(i)
    return list(groups.values())


def real_views(lists):
    """``lists`` with every complex tensor replaced by its ``view_as_real`` (torch's
    optimizers update complex parameters as pairs of reals)."""
    from autograd_cy import view_as_real
    return [[view_as_real(t) if t.is_complex() else t for t in tensors] for tensors in lists]
