"""Questions about what a value is, as functions of the ``torch`` namespace
(``is_tensor``, ``is_storage``, ``numel``, ``is_floating_point``, ``is_complex``,
``is_signed``, ``is_nonzero``, ``typename``: a tensor's type string, else the object's
module and qualified name), ``Tensor.as_subclass(cls)`` (the same memory as an instance of
a Tensor subclass, in the graph through ``AliasBackward0``), and the legacy
``Tensor.type()``: the tensor's type string, or a conversion to another type.

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
from autograd_cy import grad_mode as _grad_mode
from autograd_cy._C.tensor import (
    Tensor, _make_subclass as _make_leaf_subclass, _register_methods,
)
from autograd_cy.autograd.function import Function

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
    """Whether ``obj`` is a storage (``UntypedStorage`` or ``TypedStorage``)."""
    from autograd_cy.storage import TypedStorage, UntypedStorage
    return isinstance(obj, (TypedStorage, UntypedStorage))


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
class _Alias(Function):
    """``as_subclass``'s op: ``cls`` over the input's memory and version counter, its
    gradient passed through (torch's ``AliasBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, cls):
        return _make_leaf_subclass(cls, input)

    @staticmethod
    def backward(ctx, grad):
        return grad, None

    @staticmethod
    def jvp(ctx, input_t, cls_t):
        return input_t


_Alias._backward_cls.__name__ = "AliasBackward0"


def as_subclass(self, cls):
    """``self``'s memory (and version counter) as an instance of ``cls``, a subclass of
    Tensor, attached to ``self``'s graph: its gradient flows back to ``self``. Unlike
    torch's alias it is not a view in autograd's sense: an in-place write through it does
    not rewrite ``self``'s history."""
    if not isinstance(cls, type):
        raise TypeError(f"cls must be a type (got {type(cls).__name__})")
    if not issubclass(cls, Tensor):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")
    if not _grad_mode.is_grad_enabled():
        return _make_leaf_subclass(cls, self, self.requires_grad)
    return _Alias.apply(self, cls)


def _make_subclass(cls, data, require_grad=False, **backend_options):
    """``Tensor._make_subclass``: an instance of the Tensor subclass ``cls`` over ``data``'s
    memory and version counter, a leaf (how ``nn.Parameter``-like classes wrap a tensor)."""
    if not isinstance(cls, type) or not issubclass(cls, Tensor):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")
    if not isinstance(data, Tensor):
        raise TypeError(f"_make_subclass(): argument 'data' (position 2) must be Tensor, not "
                        f"{type(data).__name__}")
    return _make_leaf_subclass(cls, data, require_grad)


_register_methods({"type": type_, "as_subclass": as_subclass,
                   "_make_subclass": staticmethod(_make_subclass)})


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
