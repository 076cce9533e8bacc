"""``nn.Parameter``: a tensor that a Module registers as one of its parameters.

A Parameter is an ordinary leaf tensor of a subclass: assigning one to a Module attribute
registers it (``Module.__setattr__``), and that is all the class is for. It shares memory and
version counter with the tensor it wraps, as ``detach()`` does; ops on it return plain Tensors.
"""
from autograd_cy._C.tensor import Tensor, _make_subclass


class Parameter(Tensor):
    """A tensor to be registered as a Module parameter; ``requires_grad=True`` by default.

    >>> p = ag.nn.Parameter(ag.ones(2))
    >>> p
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = Tensor(0)
        if not isinstance(data, Tensor):      # torch reaches for data.detach()
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        return _make_subclass(cls, data, requires_grad)

    def __init__(self, data=None, requires_grad=True):
        pass                                  # everything happened in __new__

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)   # torch leaves .grad
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.data, self.requires_grad))


def _rebuild_parameter(data, requires_grad):
    """Unpickle a Parameter (``Parameter.__reduce_ex__``)."""
    return Parameter(data, requires_grad)


class Buffer(Tensor):
    """A tensor that ``Module.__setattr__`` registers as a buffer (``nn.Buffer``);
    ``persistent=False`` keeps it out of the state dict."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = Tensor(0)
        buffer = _make_subclass(cls, data, data.requires_grad)
        buffer.persistent = persistent
        return buffer

    def __init__(self, data=None, *, persistent=True):
        pass


# NOTE [Uninitialized parameters]
# A lazy module (nn/modules/lazy.py) holds its parameters and buffers before it knows their
# shapes: an UninitializedParameter or UninitializedBuffer wraps an empty tensor of the right
# dtype and device; ``materialize(shape)`` gives it storage of that shape (uninitialised
# values, as ``empty``) and turns it into what it stands for, by ``__class__`` assignment as
# in torch. A Parameter is a Python class, so the object becomes a Parameter in place; a
# plain Tensor is an extension type, whose instances no Python object can become, so a
# buffer becomes a ``_MaterializedBuffer`` (a Tensor subclass with nothing of its own) and
# the lazy module, which owns it, swaps it for a plain Tensor on the same memory. Before that,
# ``shape`` raises torch's RuntimeError and the Python-level tensor methods (operators,
# ``dim``, ``view``...) its ValueError; torch catches every op through __torch_function__,
# which autograd_cy does not have, so an uninitialised tensor passed to a function such as
# ``ag.matmul`` reads as the empty tensor it wraps.

_UNINITIALIZED_USE = ("Attempted to use an uninitialized parameter in {}. This error happens "
                      "when you are using a `LazyModule` or explicitly manipulating "
                      "`torch.nn.parameter.{}` objects. When using LazyModules Call `forward` "
                      "with a dummy batch to initialize the parameters before calling torch "
                      "functions")

# torch lets these through on an uninitialised tensor (its _allowed_methods); every other
# Python-level method of these names raises.
_REFUSED_METHODS = (
    "__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__",
    "__rmul__", "__imul__", "__truediv__", "__rtruediv__", "__itruediv__", "__matmul__",
    "__rmatmul__", "__pow__", "__rpow__", "__neg__", "__getitem__", "__setitem__", "__len__",
    "__iter__", "dim",
    "numel", "add", "sub", "mul", "div", "matmul", "view", "reshape", "t", "sum", "mean",
    "fill_", "zero_", "normal_", "uniform_", "add_", "mul_", "clone", "detach", "numpy",
    "tolist", "item", "abs", "exp", "contiguous", "expand", "permute", "transpose")


def _refuse(name):
    def method(self, *args, **kwargs):
        raise ValueError(_UNINITIALIZED_USE.format(
            f"<method '{name}' of 'torch._C.TensorBase' objects>", type(self).__name__))
    method.__name__ = name
    return method


class UninitializedTensorMixin:
    """What UninitializedParameter and UninitializedBuffer share: ``materialize`` and the
    errors for using them before (NOTE [Uninitialized parameters])."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        """Storage of ``shape`` (uninitialised values) on this tensor's device and dtype
        unless given; the tensor becomes ``cls_to_become``."""
        from autograd_cy import factories
        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        self.data = factories.empty(shape, device=device, dtype=dtype)
        self.__class__ = self._materialized_class

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error "
            "usually happens in `load_state_dict` when trying to load an uninitialized "
            "parameter into an initialized one. Call `forward` to initialize the parameters "
            "before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, protocol):
        return (type(self), (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]

    # a (hashable) identity, as a Tensor's
    __hash__ = Tensor.__hash__


for _name in _REFUSED_METHODS:
    setattr(UninitializedTensorMixin, _name, _refuse(_name))


def is_lazy(tensor):
    """Whether ``tensor`` is an uninitialised parameter or buffer."""
    return isinstance(tensor, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (a lazy module's); ``materialize(shape)``
    makes it a Parameter of that shape."""

    cls_to_become = Parameter
    _materialized_class = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from autograd_cy import factories
        return _make_subclass(cls, factories.empty(0, device=device, dtype=dtype),
                              requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


class _MaterializedBuffer(Tensor):
    """A materialised UninitializedBuffer (NOTE [Uninitialized parameters]); ``_is_buffer``
    registers it as a buffer, as torch's flag."""

    _is_buffer = True


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (a lazy module's); ``materialize(shape)`` gives
    it storage of that shape."""

    cls_to_become = Tensor
    _materialized_class = _MaterializedBuffer
    _is_buffer = True

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        from autograd_cy import factories
        buffer = _make_subclass(cls, factories.empty(0, device=device, dtype=dtype),
                                requires_grad)
        buffer.persistent = persistent
        return buffer

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass
