"""torch's other names of three arithmetic ops: ``multiply`` is ``mul``, ``divide`` is
``div``, ``subtract`` is ``sub`` (the very functions, as Tensor methods too: their nodes,
errors and ``out=`` are those of pyx/ops/arithmetic.pyx); their in-place forms, and
``true_divide_``, are ``mul_``, ``div_`` and ``sub_`` themselves (arithmetic_inplace.pyx:
under no_grad they write straight into the tensor, as an optimizer's step wants).

>>> import autograd_cy as ag
>>> ag.subtract(ag.tensor([3.0]), ag.tensor([1.0]), alpha=2)
tensor([1.])
"""
from autograd_cy._C.ops.arithmetic import div, mul, sub
from autograd_cy._C.ops.arithmetic_inplace import div_, mul_, sub_
from autograd_cy._C.tensor import _register_methods

__all__ = ["multiply", "divide", "subtract"]

multiply = mul
divide = div
subtract = sub

_register_methods({"multiply": multiply, "divide": divide, "subtract": subtract,
                   "multiply_": mul_, "divide_": div_, "subtract_": sub_, "true_divide_": div_})
