"""``autograd_cy.autograd.forward_ad``: forward-mode AD, named as ``torch.autograd.forward_ad``.

Inside a ``dual_level``, ``make_dual(x, v)`` makes a *dual tensor*: ``x``'s value with the
tangent ``v`` attached. Every op then computes its output's tangent along with its value
(its Jacobian-vector product, NOTE [Forward AD] in pyx/forward.pyx), and
``unpack_dual(out)`` gives back ``(primal, tangent)``: ``tangent = J(x) @ v`` in one forward
pass, without a backward. Exiting the level forgets every tangent made in it.

>>> import autograd_cy as ag
>>> import autograd_cy.autograd.forward_ad as fwAD
>>> x = ag.tensor([0.0, 1.0])
>>> with fwAD.dual_level():
...     y = ag.exp(fwAD.make_dual(x, ag.ones(2)))
...     fwAD.unpack_dual(y).tangent
tensor([1.0000, 2.7183])
>>> fwAD.unpack_dual(y).tangent is None
True

As in PyTorch, only one level exists at a time (its number is 0): nested levels are refused.
"""
import contextlib
from typing import NamedTuple, Optional

from autograd_cy._C import grad_mode as _flags
from autograd_cy._C.batching import _set_tangent_batch, _tangent_batch
from autograd_cy._C.forward import _tangent, _set_tangent, _run_suspended
from autograd_cy._C.tensor import Tensor
from autograd_cy.grad_mode import _DecoratorContextManager

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

# The level number the API speaks of: -1 (none) or 0 (the one level). The C flag holds the
# level's process-wide id (NOTE [Forward AD levels] in pyx/grad_mode.pyx).
_current_level = -1


def enter_dual_level():
    """Enter a new forward grad level and return its number (0: only one level at a time).

    Dual tensors can be made and unpacked in it; the other functions of this module use it
    by default."""
    global _current_level
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _flags._enter_forward_level()
    _current_level = 0
    return _current_level


def exit_dual_level(*, level=None):
    """Exit the forward grad level ``level`` (default: the current one), deleting every
    tangent made in it. Only the latest entered level can be exited."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    _flags._exit_forward_level()
    _current_level = level - 1


def _check_level(level, op_name):
    if level != _current_level:
        raise RuntimeError(f"Invalid level given to {op_name}")


def _floating_or_complex(t):
    return t.is_floating_point() or getattr(t.dtype, "is_complex", False)


def _shape_text(t):
    return "[" + ", ".join(str(n) for n in t.shape) + "]"


def make_dual(tensor, tangent, *, level=None):
    """A dual tensor: a view of ``tensor`` (sharing its memory) with ``tangent`` attached
    as-is, for forward AD. Differentiable in reverse mode, like a view.

    ``tangent`` must have ``tensor``'s shape; both must be floating point or complex (their
    dtypes may differ, as in PyTorch: the tangent is kept as it is)."""
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not _floating_or_complex(tensor):
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not _floating_or_complex(tangent):
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    _check_level(level, "_make_dual")
    if _tangent(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {level} is not supported.")
    if _tangent(tangent) is not None:
        raise RuntimeError("Setting a forward grad that itself has a forward gradient at the "
                           f"same level{level} is not supported.")
    if _tangent_batch():
        return _make_batched_dual(tensor, tangent)
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {_shape_text(tensor)} "
            f"while the given forward gradient is of size {_shape_text(tangent)}.")
    if tangent.device != tensor.device:
        raise RuntimeError(
            "Trying to set a forward gradient that is on a different device than that of the "
            f"original Tensor, this is not supported. Tensor is on {tensor.device} while the "
            f"given forward gradient is on {tangent.device}.")
    if tuple(tangent.stride()) != tuple(tensor.stride()):
        # As PyTorch: a tangent of another layout is copied into the primal's, so that a
        # view's tangent is the same view of it (NOTE [Tangents of views and in-place ops]).
        tangent = _run_suspended(_relaid, tangent, tensor)
    dual = _run_suspended(Tensor.view_as, tensor, tensor)
    _set_tangent(dual, tangent)
    return dual


def _relaid(tangent, tensor):
    from autograd_cy.factories import zeros_like
    return zeros_like(tensor, dtype=tangent.dtype).copy_(tangent)


# ------------------------------------------------------------------ batched tangents

@contextlib.contextmanager
def _batched_tangents(batch_size):
    """Inside, every tangent carries a leading batch dim of ``batch_size`` (NOTE [Batched
    tangents] in pyx/forward.pyx): ``make_dual(x, v)`` takes ``v`` of shape ``(batch_size,
    *x.shape)``, each row a direction, and every formula computes all rows' tangents. What
    PyTorch does with vmap over forward AD; reached through ``_jvp_of_tangent_batch``."""
    previous = _set_tangent_batch(batch_size)
    try:
        yield
    finally:
        _set_tangent_batch(previous)


def _jvp_of_tangent_batch(func, primals, tangent_batches):
    """``(outputs, tangents)``: ``func(*primals)`` (a tuple of tensors) and, per output, its
    tangents for a batch of input tangents (one ``(N, *shape)`` per primal), in one forward
    pass with batched tangents: what vmap over a jvp computes when only the tangents are
    batched (autograd_cy.func's jacfwd, gradcheck's check_batched_forward_grad,
    functional.jacobian's forward mode). An output without a tangent gets zeros."""
    from autograd_cy.factories import zeros
    batch = tangent_batches[0].shape[0]
    with dual_level(), _batched_tangents(batch):
        duals = [make_dual(p, t) for p, t in zip(primals, tangent_batches)]
        pairs = [unpack_dual(out) for out in func(*duals)]
    tangents = tuple(
        t if t is not None else zeros((batch,) + tuple(p.shape), dtype=p.dtype, device=p.device)
        for p, t in pairs)
    return tuple(p for p, _ in pairs), tangents


def _make_batched_dual(tensor, tangent):
    """``make_dual`` in a batched pass: ``tangent``'s rows have ``tensor``'s shape (and are
    relaid to its strides, so that views of the dual view each row alike)."""
    batch = _tangent_batch()
    if tuple(tangent.shape) != (batch,) + tuple(tensor.shape):
        raise RuntimeError(
            f"Trying to set a batch of {batch} forward gradients of size {_shape_text(tensor)}"
            f", but the given forward gradient is of size {_shape_text(tangent)}.")
    if tuple(tangent.stride()[1:]) != tuple(tensor.stride()):
        tangent = _run_suspended(_relaid_rows, tangent, tensor)
    dual = _run_suspended(Tensor.view_as, tensor, tensor)
    _set_tangent(dual, tangent)
    return dual


def _relaid_rows(tangent, tensor):
    """A copy of the batched ``tangent`` whose every row has ``tensor``'s strides, where
    ``tensor`` is dense in some dim order (a permutation of a contiguous layout)."""
    from autograd_cy.factories import empty
    order = sorted(range(tensor.dim()), key=lambda d: -tensor.stride(d))
    batch = tangent.shape[0]
    storage = empty((batch,) + tuple(tensor.shape[d] for d in order), dtype=tangent.dtype,
                    device=tangent.device)
    inverse = [order.index(d) + 1 for d in range(tensor.dim())]
    return storage.permute(0, *inverse).copy_(tangent)


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the ``primal`` and its ``tangent`` (None without one)."""

    primal: Tensor
    tangent: Optional[Tensor]


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)`` of a dual tensor: ``primal`` a view of ``tensor`` without the
    tangent, ``tangent`` the tangent as-is (None if ``tensor`` has none at this level).
    Outside a level: ``(tensor, None)``."""
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, Tensor):
        raise TypeError("_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    if _tangent(tensor) is not None:
        _check_level(level, "_fw_primal")
    primal = _run_suspended(Tensor.view_as, tensor, tensor)
    return UnpackedDualTensor(primal, _tangent(tensor))


class dual_level(_DecoratorContextManager):
    """Context manager for forward AD: every forward AD computation happens inside it.

    ``with dual_level():`` enters a level (its number is the value of the ``with``) and exits
    it at the end, deleting the tangents made in it. Levels do not nest."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback):
        exit_dual_level()
