"""Shared plumbing of the op modules: PyTorch type promotion and operand handling.

PyTorch promotes by category (bool < integer < floating) and priority
(tensors with dimensions > 0-dim tensors > Python numbers): a lower-priority
operand only changes the result when it is of a higher category, and a Python
float then brings the default dtype (float32), not float64 as NumPy would.
"""
import numpy as np

from autograd_cy._C.grad_mode cimport is_grad_enabled, is_inference_mode_enabled
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, VIEW_DEFAULT, VIEW_NO_GRAD_MODE,
    VIEW_MULTI_OUTPUT_NODE, VIEW_IN_CUSTOM_FUNCTION, VIEW_INFERENCE_MODE,
)

cdef object FLOAT32 = np.dtype(np.float32)
cdef object INT64 = np.dtype(np.int64)
cdef object BOOL = np.dtype(np.bool_)


cdef inline int category(object dtype):
    kind = dtype.kind
    if kind == "b":
        return 0
    if kind == "f":
        return 2
    return 1


cdef inline int scalar_category(object value):
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return 1
    return 2


cdef object default_dtype_of_category(int cat):
    return (BOOL, INT64, FLOAT32)[cat]


cdef object result_type(object a, object b):
    """torch.result_type for two operands (Tensor or Python number); a NumPy dtype."""
    cdef Tensor ta, tb
    cdef int ca, cb
    if isinstance(a, Tensor):
        ta = a
        if isinstance(b, Tensor):
            tb = b
            da, db = ta._data.dtype, tb._data.dtype
            if da == db:
                return da
            ca, cb = category(da), category(db)
            a_dims, b_dims = ta._data.ndim > 0, tb._data.ndim > 0
            if a_dims == b_dims:
                if ca == cb:
                    return np.promote_types(da, db)
                return da if ca > cb else db
            # Different priority: the 0-dim one wins only with a higher category.
            if a_dims:
                return db if cb > ca else da
            return da if ca > cb else db
        return _tensor_scalar_type(ta._data.dtype, b)
    if isinstance(b, Tensor):
        return _tensor_scalar_type((<Tensor>b)._data.dtype, a)
    return np.result_type(a, b)


cdef object _tensor_scalar_type(object dtype, object scalar):
    cdef int cs = scalar_category(scalar)
    if cs > category(dtype):
        return default_dtype_of_category(cs)
    return dtype


cdef object floating_result_type(object a, object b):
    """Like result_type, but integer results become float32 (true division)."""
    dtype = result_type(a, b)
    return dtype if dtype.kind == "f" else FLOAT32


def _result_type(a, b):
    return result_type(a, b)


cdef object operand_array(object value, object dtype):
    """The array of an operand in ``dtype``; a Python number stays a scalar, which
    NumPy 2 treats as "weak" (it never widens the array's dtype), as PyTorch does."""
    if isinstance(value, Tensor):
        array = (<Tensor>value)._data
        if array.dtype != dtype:
            return array.astype(dtype)
        return array
    return value


cdef Tensor wrap(object array):
    return make_tensor(array)


# --------------------------------------------------------------- in-place checks

_NO_GRAD_VIEW = (
    "A view was created in no_grad mode and {what} with grad mode enabled. Given that this "
    "use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
    "moving both the view and the inplace either both inside the no_grad block (if you don't "
    "want the inplace to be tracked) or both outside (if you want the inplace to be tracked).")
_INFERENCE_VIEW = (
    "A view was created in inference mode and {what} in normal mode. Given that this use "
    "case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving "
    "both the view and the inplace either both inside the inference_mode block (if you don't "
    "want the inplace to be tracked) or both outside (if you want the inplace to be tracked).")
_MULTI_OUTPUT_VIEW = (
    "Output {nr} of {op} {what}. This view is the output of a function that returns multiple "
    "views. Such functions do not allow the output views to be modified inplace. You should "
    "replace the inplace operation by an out-of-place one.")
_CUSTOM_FUNCTION_VIEW = (
    "Output {nr} of {op} {what}. This view was created inside a custom Function (or because "
    "an input was returned as-is) and the autograd logic to handle view+inplace would "
    "override the custom backward associated with the custom Function, leading to incorrect "
    "gradients. This behavior is forbidden. You can fix this by cloning the output of the "
    "custom Function.")


def view_error_message(Tensor view, bint indirect):
    """PyTorch's message for a forbidden in-place on a view (engine_semantics 7.5)."""
    meta = view._creation_meta
    if meta == VIEW_NO_GRAD_MODE:
        what = ("its base or another view of its base has been modified inplace" if indirect
                else "is being modified inplace")
        return _NO_GRAD_VIEW.format(what=what)
    if meta == VIEW_INFERENCE_MODE:
        what = ("its base or another view of its base has been modified inplace" if indirect
                else "is being modified inplace")
        return _INFERENCE_VIEW.format(what=what)
    what = ("is a view and its base or another view of its base has been modified inplace"
            if indirect else "is a view and is being modified inplace")
    template = _MULTI_OUTPUT_VIEW if meta == VIEW_MULTI_OUTPUT_NODE else _CUSTOM_FUNCTION_VIEW
    message = template.format(nr=view._output_nr, op=view._view_op_name, what=what)
    if view._grad_fn is None:
        # PyTorch names the op through the view's grad_fn; without one it says no_grad mode.
        what = ("its base or another view of its base has been modified inplace" if indirect
                else "is being modified inplace")
        prefix = f"A view was created in no_grad mode and {what} with grad mode enabled."
        message = prefix + message[message.index(".") + 1:]
    return message


cdef void check_inplace(Tensor self, bint records) except *:
    """Refuse in-place ops PyTorch refuses (rules 7.2, 7.5, 9.4); ``records``: grad mode on."""
    if self._is_inference and not is_inference_mode_enabled():
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
            "make a clone to get a normal tensor before doing inplace update.See "
            "https://github.com/pytorch/rfcs/pull/17 for more details.")
    if not is_grad_enabled():
        return
    if self._grad_fn is None and self._requires_grad:
        if self._base is not None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    if self._base is not None:
        base = self._base
        # The view's own creation rules come first, as in PyTorch's check_inplace.
        meta = self._creation_meta
        if meta != VIEW_DEFAULT and (requires_grad(<Tensor>base) or records):
            if meta == VIEW_INFERENCE_MODE and is_inference_mode_enabled():
                return
            raise RuntimeError(view_error_message(self, False))
        if (<Tensor>base)._grad_fn is None and (<Tensor>base)._requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")
