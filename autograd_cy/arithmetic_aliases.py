"""torch's other names of three arithmetic ops: ``multiply`` is ``mul``, ``divide`` is
``div``, ``subtract`` is ``sub`` (the very functions, as Tensor methods too: their nodes,
errors and ``out=`` are those of pyx/ops/arithmetic.pyx). Their in-place forms are in
inplace_forms.py.

>>> import autograd_cy as ag
>>> ag.subtract(ag.tensor([3.0]), ag.tensor([1.0]), alpha=2)
tensor([1.])
"""
from autograd_cy._C.ops.arithmetic import div, mul, sub
from autograd_cy._C.tensor import _register_methods

__all__ = ["multiply", "divide", "subtract"]

multiply = mul
divide = div
subtract = sub

_register_methods({"multiply": multiply, "divide": divide, "subtract": subtract})
