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
