"""Custom autograd.Functions under the transforms.

While a transform runs (vmap, grad, vjp, jvp and those built on them), ``Function.apply`` is
``transformed_apply``, as torch requires of a Function there:

- it must have the ``setup_context`` form (``forward`` without ctx), or torch's error;
- under vmap, given a batched argument, it runs its own batching rule, the ``vmap``
  staticmethod: ``vmap(info, in_dims, *args)`` gets the arguments with the innermost level's
  batch dim as a real dim (in_dims says where: 0 here, as vmap keeps batch dims in front;
  None for an argument without one) and returns ``(outputs, out_dims)``; it usually calls
  the Function's ``apply`` again on those tensors, so the Function's own backward records;
- ``generate_vmap_rule = True`` asks for a rule made from ``forward``: here the Function runs
  once per batch element (the fallback's way, correct for any forward, B nodes in the
  graph) where torch runs forward and backward under vmap;
- neither: torch's error.

Outside the transforms ``Function.apply`` is the C function itself again. The library's own
ops written as Functions (CUDA dropout: ``builtin_op = True``) are ops to the transforms, as
torch's aten ops are: vmap reaches them through their op's rule, with physical tensors.

NOTE [Python ops under vmap]
The ops of the Python modules (autograd_cy/scans.py, sorting.py, scatter_reduce.py ...) are
``builtin_op`` Functions that vmap's swap does not reach (it swaps pyx/ops and
nn.functional), and most of their forwards read their arrays, which a BatchedTensor
refuses. Given a batched argument such a Function runs once per batch element (the
fallback, with its warning when those are on), as torch would run an op without a rule.
"""
from autograd_cy.autograd.function import Function, _function_apply
from autograd_cy.func.fallback import fallback
from autograd_cy.func.batched_tensor import (
    batched, levels_of, physical_of, union_levels, level_size, active_levels,
)

__all__ = ["enter_transform", "exit_transform", "VmapInfo"]

SETUP_CONTEXT_ERROR = (
    "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, "
    "...), it must override the setup_context staticmethod. For more details, please see "
    "https://pytorch.org/docs/main/notes/extending.func.html")


class VmapInfo:
    """What a Function's ``vmap`` staticmethod is told about the vmap it runs under."""
    __slots__ = ("batch_size", "randomness")

    def __init__(self, batch_size, randomness):
        self.batch_size = batch_size
        self.randomness = randomness

    def __repr__(self):
        return f"VmapInfo(batch_size={self.batch_size}, randomness={self.randomness!r})"


def _peeled(value, level):
    """``value`` with ``level``'s batch dim as its logical dim 0 (its other levels kept)."""
    levels = levels_of(value)
    if level not in levels:
        return value, None
    physical = physical_of(value)
    rest = tuple(lv for lv in levels if lv != level)
    physical = physical.movedim(levels.index(level), len(rest))
    return batched(physical, rest), 0


def _rewrapped(value, out_dim, level):
    """An output of the ``vmap`` staticmethod, batched over ``level`` along ``out_dim``."""
    if out_dim is None:
        return value
    levels = levels_of(value)
    physical = physical_of(value)
    nb = len(levels)
    physical = physical.movedim(nb + out_dim % (physical.dim() - nb), nb)
    order = levels + (level,)
    layout = tuple(sorted(order))
    if layout != order:
        physical = physical.permute([order.index(lv) for lv in layout]
                                    + list(range(len(order), physical.dim())))
    return batched(physical, layout)


def transformed_apply(cls, *args, **kwargs):
    if getattr(cls, "builtin_op", False):      # the library's own ops written as Functions
        if not union_levels(list(args) + list(kwargs.values())):
            return _function_apply(cls, *args, **kwargs)
        # per element: NOTE [Python ops under vmap] above
        return fallback(cls.__name__, lambda *a, **k: _function_apply(cls, *a, **k), args,
                        kwargs)
    if getattr(cls.setup_context, "_is_default_implementation", False):
        raise RuntimeError(SETUP_CONTEXT_ERROR)
    values = list(args) + list(kwargs.values())
    levels = union_levels(values)
    if not levels:
        return _function_apply(cls, *args, **kwargs)
    level = levels[-1]
    if not getattr(cls.vmap, "_is_default_implementation", False):
        peeled = [_peeled(a, level) for a in args]
        info = VmapInfo(level_size(level), active_levels()[level - 1].randomness)
        outputs, out_dims = cls.vmap(info, tuple(d for _, d in peeled),
                                     *[p for p, _ in peeled], **kwargs)
        if isinstance(outputs, tuple):
            dims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(outputs)
            return tuple(_rewrapped(o, d, level) for o, d in zip(outputs, dims))
        return _rewrapped(outputs, out_dims, level)
    if cls.generate_vmap_rule:
        return fallback(cls.__name__, lambda *a, **k: _function_apply(cls, *a, **k),
                                 args, kwargs, warn=False)
    raise RuntimeError(
        f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please "
        "override and implement the vmap staticmethod or set generate_vmap_rule=True. For more "
        "details, please see https://pytorch.org/docs/main/notes/extending.func.html")


_depth = 0
_APPLY = classmethod(transformed_apply)
_ORIGINAL = Function.__dict__["apply"]


def enter_transform():
    global _depth
    if _depth == 0:
        Function.apply = _APPLY
    _depth += 1


def exit_transform():
    global _depth
    _depth -= 1
    if _depth == 0:
        Function.apply = _ORIGINAL

