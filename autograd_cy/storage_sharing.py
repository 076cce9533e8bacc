"""``Tensor.set_`` and ``Tensor.is_set_to``: a tensor made to use another's memory, and
the test of whether two tensors use the same memory with the same metadata.

``t.set_(source)`` makes ``t`` see ``source``'s elements (its shape, strides and offset
too, as torch's; a storage's elements as a flat tensor); ``t.set_(source, storage_offset,
size, stride)`` a strided window of the memory ``source`` (a tensor or a storage) views
(in elements; a tensor's offset counted from its first element); ``t.set_()`` makes ``t``
empty (shape ``(0,)``). The version of ``t`` goes up by one and ``t``, a leaf, gets a new
AccumulateGrad (torch resets it). As torch: a leaf that requires grad refuses it with grad
mode on, and a result that
requires grad (``source`` does, or ``t`` is not a leaf) has a node whose backward
raises "derivative for set_ is not implemented".

>>> import autograd_cy as ag
>>> a, b = ag.arange(4.0), ag.zeros(1)
>>> b.set_(a).is_set_to(a)
True
"""
from autograd_cy._C.dtype import _c10_name
from autograd_cy._C.ops.inplace import _check_write, _increment_version
from autograd_cy._C.tensor import (
    Tensor, _register_methods, _reset_grad_accumulator,
)
from autograd_cy.autograd.function import Function
from autograd_cy.grad_mode import is_grad_enabled, no_grad
from autograd_cy.storage import TypedStorage, UntypedStorage, memory_root

__all__ = []

_SIGNATURES = (
    " * ()\n"
    " * (torch.Storage source)\n"
    " * (torch.Storage source, int storage_offset, tuple of ints size, tuple of ints "
    "stride = None)\n"
    " * (Tensor source)\n"
    " * (Tensor source, int storage_offset, tuple of ints size, tuple of ints stride = "
    "None)\n")


def _window(source, storage_offset, size, stride):
    """The strided window of the memory ``source`` views (``storage_offset`` in elements
    from ``source``'s first element, as torch counts it for a tensor source; ``stride``
    in elements), as a tensor."""
    size = tuple(size)
    if stride is None:
        stride, step = [], 1
        for n in reversed(size):
            stride.insert(0, step)
            step *= max(n, 1)
    return source.detach().as_strided(size, tuple(stride),
                                      source.storage_offset() + storage_offset)


def _storage_elements(self, storage):
    """A storage's memory as a flat tensor of ``self``'s dtype (torch's errors for a
    TypedStorage of another dtype)."""
    if isinstance(storage, TypedStorage):
        if storage.dtype is not self.dtype:
            raise RuntimeError(f"Expected a Storage of type {_c10_name(self.dtype)} or an "
                               f"UntypedStorage, but got type {storage.dtype._scalar_name} "
                               f"for argument 1 'storage'")
        storage = storage.untyped()
    return storage._bytes.view(self.dtype)


class _Set(Function):
    """``set_`` recorded for a result that requires grad: torch has no derivative."""

    @staticmethod
    def forward(ctx, self, source):
        ctx.mark_dirty(self)
        self.data = source
        return self

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for set_ is not implemented")


_Set._backward_cls.__name__ = "NotImplemented"     # torch's node for set_ under autograd


def set_(self, source=None, storage_offset=None, size=None, stride=None):
    """Make ``self`` use ``source``'s memory, shape and strides (or a window of it with
    ``storage_offset``, ``size``, ``stride``); with no ``source``, make it empty."""
    if isinstance(source, (UntypedStorage, TypedStorage)):
        source = _storage_elements(self, source)
        if storage_offset is None:
            storage_offset, size, stride = 0, (source.numel(),), None
    if source is not None and not isinstance(source, Tensor) or \
            source is None and storage_offset is not None:
        got = ", ".join(type(a).__name__ for a in (source, storage_offset, size, stride)
                        if a is not None)
        raise TypeError(f"set_() received an invalid combination of arguments - got "
                        f"({got}), but expected one of:\n" + _SIGNATURES)
    if source is None:
        source = self.new_empty((0,))
    elif source.dtype is not self.dtype:
        raise RuntimeError(f"Could not set tensor of type {_c10_name(source.dtype)} to a "
                           f"tensor of type {_c10_name(self.dtype)}")
    elif storage_offset is not None:
        source = _window(source, storage_offset, size, stride)
    _check_write(self)
    if is_grad_enabled() and self.requires_grad and self.is_leaf:
        raise RuntimeError("a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    if is_grad_enabled() and (self.requires_grad or source.requires_grad):
        return _Set.apply(self, source)
    with no_grad():
        self.data = source
    _reset_grad_accumulator(self)
    _increment_version(self)
    return self


def is_set_to(self, tensor):
    """Whether ``self`` and ``tensor`` use the same memory from the same element, with
    the same shape and strides."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    return (self.device == tensor.device and memory_root(self) is memory_root(tensor)
            and self.data_ptr() == tensor.data_ptr()
            and self.shape == tensor.shape and self.stride() == tensor.stride())


_register_methods({"set_": set_, "is_set_to": is_set_to})
