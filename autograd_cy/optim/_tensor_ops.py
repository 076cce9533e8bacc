"""The in-place ops of torch's single-tensor optimizer step that ``Tensor`` has no method
for (``lerp_``, ``addcmul_``, ``addcdiv_``), on one tensor of any device, as the
``_foreach_*`` op of one-tensor lists; and ``real``, a complex tensor's real view.

They serve the steps whose tensors are not plain NumPy arrays (a CUDA device's): there an
optimizer runs torch's single-tensor step op for op in Tensor ops, where on the CPU it
runs the same ops on the arrays (NOTE [Optimizer steps on the arrays]).
"""
from autograd_cy import foreach

__all__ = ["lerp_", "addcmul_", "addcdiv_", "real"]


def lerp_(t, end, weight):
    """``t.lerp_(end, weight)`` for a number weight."""
    foreach._foreach_lerp_([t], [end], weight)
    return t


def addcmul_(t, tensor1, tensor2, value=1):
    """``t.addcmul_(tensor1, tensor2, value=value)``: ``t + value * tensor1 * tensor2``."""
    foreach._foreach_addcmul_([t], [tensor1], [tensor2], value)
    return t


def addcdiv_(t, tensor1, tensor2, value=1):
    """``t.addcdiv_(tensor1, tensor2, value=value)``: ``t + value * tensor1 / tensor2``."""
    foreach._foreach_addcdiv_([t], [tensor1], [tensor2], value)
    return t


def real(t):
    """``t`` as torch's optimizers update it: a complex tensor as its ``view_as_real``."""
    if t.is_complex():
        from autograd_cy import view_as_real
        return view_as_real(t)
    return t
