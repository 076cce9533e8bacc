"""``unravel_index``: flat indices into a shape turned into one index tensor per dim, as
``numpy.unravel_index`` does, except that an index out of range wraps around the number of
elements (as torch's arithmetic does: 6 in a 2 x 3 shape is (0, 0), -1 is (1, 2)).

>>> import autograd_cy as ag
>>> ag.unravel_index(ag.tensor([4, 1]), (2, 3))
(tensor([1, 0]), tensor([1, 1]))
"""
import math

import autograd_cy as _ag

__all__ = ["unravel_index"]


def unravel_index(indices, shape):
    """One tensor per dim of ``shape``: the coordinates of each flat index of ``indices``."""
    if indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype == _ag.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}"
                        .replace("autograd_cy.", "torch."))
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(size < 0 for size in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if not shape:
        return ()
    flat = indices.to(_ag.int64)
    count = math.prod(shape)
    if count:
        flat = flat % count
    coordinates = []
    for size in reversed(shape):
        coordinates.append(flat % size if size else flat * 0)
        flat = flat // size if size else flat
    return tuple(reversed(coordinates))
