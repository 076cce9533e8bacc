"""``out=``: an op's result written into a given tensor, as PyTorch's out= variants do.

Such a call is never recorded: PyTorch refuses it when grad mode is on and an input or
``out`` requires grad. ``out`` keeps its dtype (a result may be cast to it within or up a
category, not down: a float result does not go into an integer tensor), takes the result's
shape (with PyTorch's deprecation warning when it had elements), and its version goes up like
any in-place write.
"""
import warnings

from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level
from autograd_cy._C.forward cimport no_forward_formula
from autograd_cy._C.dtype cimport scalar_name
from autograd_cy._C.promotion cimport category
from autograd_cy._C.device cimport array_namespace
from autograd_cy._C.tensor cimport Tensor, requires_grad, bump_version
from autograd_cy._C.views cimport check_inference_inplace

__all__ = []


cdef object write_out(str name, object out, tuple inputs, object compute):
    """Run ``compute()`` (the op without ``out``) and write its result into ``out``."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    cdef Tensor target = <Tensor>out
    if forward_level():
        no_forward_formula(f"{name}_out", inputs + (out,), " because it is an out= function")
    if is_grad_enabled():
        for value in inputs + (out,):
            if isinstance(value, Tensor) and requires_grad(<Tensor>value):
                raise RuntimeError(
                    f"{name}(): functions with out=... arguments don't support automatic "
                    "differentiation, but one of the arguments requires grad.")
    check_inference_inplace(target)
    result = (<Tensor>compute())._data
    if category(result.dtype) > category(target._data.dtype):
        raise RuntimeError(f"result type {scalar_name(result.dtype)} can't be cast to the "
                           f"desired output type {scalar_name(target._data.dtype)}")
    if target._data.shape != result.shape:
        if target._data.size:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(target._data.shape)}, which does not match the required output shape "
                f"{list(result.shape)}. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                "with t.resize_(0).", UserWarning, stacklevel=3)
        target._data = array_namespace(target._data).empty(result.shape, target._data.dtype)
    target._data[...] = result
    bump_version(target)
    return target
