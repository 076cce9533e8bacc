"""The ``torch.*`` forms of Tensor methods that have no other home: ``detach(input)``,
``detach_(input)``, ``get_device(input)`` and ``put(input, index, source, accumulate)``,
each ``input``'s method, with torch's TypeError for an ``input`` that is not a tensor.

>>> import autograd_cy as ag
>>> ag.get_device(ag.zeros(2))
-1
"""
from autograd_cy._C.tensor import Tensor

__all__ = ["detach", "detach_", "get_device", "put"]


def _checked(function, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{function}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input


def detach(input):
    """``input.detach()``: a new tensor on the same memory, outside the graph."""
    return _checked("detach", input).detach()


def detach_(input):
    """``input.detach_()``: ``input`` itself made a leaf that does not require grad."""
    return _checked("detach_", input).detach_()


def get_device(input):
    """``input.get_device()``: the CUDA device's index, -1 on the CPU."""
    return _checked("get_device", input).get_device()


def put(input, index, source, accumulate=False):
    """``input.put(index, source, accumulate)``: a copy of ``input`` with ``source``'s
    values at the flat positions ``index`` (added with ``accumulate``)."""
    return _checked("put", input).put(index, source, accumulate)
