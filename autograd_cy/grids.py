"""``meshgrid``: coordinate grids from 1-D coordinate vectors.

With ``indexing='ij'`` the grid of N tensors of sizes ``s0, ..., sN-1`` has shape
``(s0, ..., sN-1)`` and output ``i`` repeats tensor ``i`` along every dim but dim ``i``;
with ``'xy'`` (NumPy's and MATLAB's cartesian indexing) the first two dims are swapped, the
grid ``(s1, s0, s2, ...)``. Each output is a view of its input, ``view`` then ``expand``
(node ``ExpandBackward0``, as torch's); a 0-d tensor counts as size 1. Without
``indexing`` the grid is 'ij' with torch's warning that the argument will be required.

>>> import autograd_cy as ag
>>> xs, ys = ag.meshgrid(ag.tensor([1, 2, 3]), ag.tensor([4, 5]), indexing="xy")
>>> xs
tensor([[1, 2, 3],
        [1, 2, 3]])
"""
import warnings

from autograd_cy._C.tensor import Tensor

__all__ = ["meshgrid"]


def meshgrid(*tensors, indexing=None):
    """The coordinate grids of ``tensors`` (0-d or 1-D, one dtype and device)."""
    if len(tensors) == 1 and not isinstance(tensors[0], Tensor):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass "
                      "the indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f'received: {indexing}')
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t}")
    dims = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        dims[0], dims[1] = 1, 0
    sizes = [t.numel() for t in tensors]
    grid = [0] * len(tensors)
    for size, dim in zip(sizes, dims):
        grid[dim] = size
    outputs = []
    for t, dim in zip(tensors, dims):
        shape = [1] * len(tensors)
        shape[dim] = t.numel()
        outputs.append(t.view(shape).expand(grid))
    return tuple(outputs)
