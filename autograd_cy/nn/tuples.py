"""``_single``/``_pair``: an int or a tuple as a tuple of n ints, as the layers and their ops take
sizes (``kernel_size=3`` is ``(3, 3)`` in a Conv2d). As torch's, any iterable (a list, a
``range``) is taken as the tuple itself, unchecked in length."""
from collections.abc import Iterable
from itertools import repeat

__all__ = ["_single", "_pair", "_ntuple"]


def _ntuple(n):
    def parse(x):
        if isinstance(x, Iterable):
            return tuple(x)
        return tuple(repeat(x, n))
    return parse


_single = _ntuple(1)
_pair = _ntuple(2)
