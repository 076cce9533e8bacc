"""Questions about what a value is, as functions of the ``torch`` namespace
(``is_tensor``, ``is_storage``, ``numel``, ``is_floating_point``, ``is_complex``,
``is_signed``, ``is_nonzero``, ``typename``: a tensor's type string, else the object's
module and qualified name), and the legacy ``Tensor.type()``: the tensor's type string,
or a conversion to another type.

NOTE [The type string says torch]
``x.type()`` returns ``'torch.FloatTensor'`` (``'torch.cuda.FloatTensor'`` on a CUDA
device), the string torch returns, not ``'autograd_cy.FloatTensor'``. The string is a name
in torch's vocabulary for a (dtype, device) pair, not a Python path, and the scripts that
call ``type()`` compare it with literals such as ``x.type() == 'torch.cuda.FloatTensor'``;
printing our package's name would make every such check false. As an argument, both
spellings are accepted, and so are the legacy classes (``autograd_cy.DoubleTensor``) and
dtypes.
"""
from autograd_cy import dtypes as _dtypes
from autograd_cy._C.tensor import Tensor, _register_methods

__all__ = ["typename", "is_tensor", "is_storage", "numel", "is_floating_point", "is_complex",
           "is_signed", "is_nonzero"]

_DTYPES = (_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64,
           _dtypes.complex64, _dtypes.complex128, _dtypes.int8, _dtypes.int16, _dtypes.int32,
           _dtypes.int64, _dtypes.uint8, _dtypes.bool)
# "FloatTensor" -> float32 ...: the legacy type names, as dtype objects name them
_DTYPE_OF_TYPE_NAME = {dtype._tensor_type: dtype for dtype in _DTYPES}


def _check_tensor(function, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{function}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def is_tensor(obj):
    """Whether ``obj`` is a Tensor (a Parameter is one)."""
    return isinstance(obj, Tensor)


def is_storage(obj):
    """Always False: autograd_cy has no storage objects (a tensor owns an array)."""
    return False


def numel(input):
    """The number of elements of ``input``."""
    _check_tensor("numel", input)
    return input.numel()


def is_floating_point(input):
    """Whether ``input``'s dtype is a floating-point one (float16, bfloat16, float32, float64)."""
    _check_tensor("is_floating_point", input)
    return input.is_floating_point()


def is_complex(input):
    """Whether ``input``'s dtype is complex64 or complex128."""
    _check_tensor("is_complex", input)
    return input.is_complex()


def is_signed(input):
    """Whether ``input``'s dtype holds negative numbers (every floating and complex dtype;
    not uint8 or bool)."""
    _check_tensor("is_signed", input)
    return input.is_signed()


def is_nonzero(input):
    """The truth of a one-element tensor, with torch's errors for other sizes."""
    _check_tensor("is_nonzero", input)
    return input.is_nonzero()


def _type_string(tensor):
    """The legacy type string (NOTE [The type string says torch])."""
    prefix = "torch.cuda." if tensor.is_cuda else "torch."
    return prefix + tensor.dtype._tensor_type


def _parse_type(name):
    """``'torch.cuda.DoubleTensor'`` -> (float64, is_cuda); a ValueError as torch's for a
    string that names no tensor type."""
    for package in ("torch.", "autograd_cy."):
        if name.startswith(package):
            rest = name[len(package):]
            is_cuda = rest.startswith("cuda.")
            dtype = _DTYPE_OF_TYPE_NAME.get(rest[5:] if is_cuda else rest)
            if dtype is not None:
                return dtype, is_cuda
    raise ValueError(f"invalid type: '{name}'")


def type_(self, dtype=None, non_blocking=False, **kwargs):
    """With no argument, the type string (``'torch.FloatTensor'``); given a dtype, a legacy
    class (``autograd_cy.DoubleTensor``) or a type string, ``self`` converted to that type
    (``self`` itself when it already has it), differentiably, as ``to`` converts."""
    if dtype is None:
        return _type_string(self)
    if isinstance(dtype, _dtypes.dtype):
        return self.to(dtype, non_blocking=non_blocking)
    if isinstance(dtype, type) and isinstance(getattr(dtype, "dtype", None),
                                                      _dtypes.dtype):
        return self.to("cpu", dtype.dtype, non_blocking=non_blocking)   # a legacy class
    if isinstance(dtype, str):
        target, is_cuda = _parse_type(dtype)
        if is_cuda:
            device = self.device if self.is_cuda else "cuda"
        else:
            device = "cpu"
        return self.to(device, target, non_blocking=non_blocking)
    raise TypeError("dtype must be a type, str, or dtype object")


type_.__name__ = type_.__qualname__ = "type"
_register_methods({"type": type_})


def typename(obj):
    """The type string of a tensor (``obj.type()``: NOTE [The type string says torch]);
    for any other object its module and qualified name (the name alone for builtins)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"
