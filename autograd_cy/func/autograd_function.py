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
- neither: torch's error (and torch's errors for both, for a rule that does not return
  ``(outputs, out_dims)`` of matching structure, and for kwarg-only tensors);
- without a batched argument it runs as ``<Class>Generated``, a subclass, so its outputs'
  nodes are named ``<Class>GeneratedBackward`` as torch's under a transform.

Outside the transforms ``Function.apply`` is the C function itself again. The library's own
ops written as Functions (CUDA dropout: ``builtin_op = True``) are ops to the transforms, as
torch's aten ops are: vmap reaches them through their op's rule, with physical tensors.

NOTE [Ops written as Functions under vmap]
Most of the ops of the Python modules (sorting.py, scans.py, blends.py ...) are
``builtin_op`` Functions that vmap's op swap does not list, so a batched tensor reaches
their ``apply`` as it is. Their forwards read arrays, which a BatchedTensor refuses; so a
``builtin_op`` Function given a batched argument runs once per example and the results are
stacked (the fallback's way, without its warning: torch has rules for these ops). Values
and gradients are per example; the graph has one node per example.
"""
from autograd_cy._C.tensor import Tensor
from autograd_cy.autograd.function import Function, _function_apply
from autograd_cy.func.fallback import fallback
from autograd_cy.func.pytree import broadcast_prefix, tree_flatten, tree_unflatten
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


def _peeled_tree(arg, level):
    """``_peeled`` of each tensor of ``arg`` (a pytree): the peeled value and its in_dims,
    which mirror ``arg`` (``[0, 0]`` for a list of two batched tensors), as torch's."""
    if not isinstance(arg, (tuple, list, dict)):
        return _peeled(arg, level)
    leaves, spec = tree_flatten(arg)
    pairs = [_peeled(leaf, level) for leaf in leaves]
    return (tree_unflatten([v for v, _ in pairs], spec),
            tree_unflatten([d for _, d in pairs], spec))


def _vmap_rule_result(cls, result, level):
    """The outputs of a ``vmap`` staticmethod's ``(output, out_dims)``, batched over
    ``level``; torch's errors for any other return."""
    if not isinstance(result, tuple) or len(result) != 2:
        got = f"{len(result)} returns" if isinstance(result, tuple) else f"a {type(result)}"
        raise RuntimeError("Expected the vmap staticmethod to have two returns, an output and "
                           "out_dims with pytree structure compatible with the output. Got "
                           f"{got} instead")
    outputs, out_dims = result
    try:
        if not _same_containers(out_dims, outputs):
            raise ValueError
        dims = broadcast_prefix(out_dims, outputs, "vmap", "out_dims", "output")
    except ValueError:
        raise RuntimeError(
            "The autograd.Function's vmap staticmethod returned an incompatible (output, "
            f"out_dims) tuple. Expected out_dims={out_dims} to be compatible with the "
            "structure of `output`. out_dims has structure "
            f"{tree_flatten(out_dims)[1]} but output has structure "
            f"{tree_flatten(outputs)[1]}. For more details, please see "
            "https://pytorch.org/docs/main/notes/extending.func.html") from None
    leaves, spec = tree_flatten(outputs)
    return tree_unflatten([_rewrapped(o, d, level) for o, d in zip(leaves, dims)], spec)


def _same_containers(prefix, tree):
    """Do the containers of ``prefix`` have the types of ``tree``'s at their places (a tuple
    of out_dims does not fit a list of outputs)?"""
    if prefix is None or isinstance(prefix, int):
        return True
    if type(prefix) is not type(tree):
        return False
    if isinstance(prefix, dict):
        return prefix.keys() == tree.keys() and all(
            _same_containers(prefix[k], tree[k]) for k in prefix)
    return len(prefix) == len(tree) and all(map(_same_containers, prefix, tree))


def _generated(cls):
    """The Function torch.func runs in place of ``cls``: ``<Class>Generated``, so outputs'
    nodes are ``<Class>GeneratedBackward`` as torch's."""
    made = cls.__dict__.get("_func_generated")
    if made is None:
        made = type(cls)(cls.__name__ + "Generated", (cls,),
                         {"__module__": cls.__module__, "_func_generated": None})
        made._func_generated = made
        cls._func_generated = made
    return made


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
        if union_levels(list(args) + list(kwargs.values())):
            # an op of a Python module (sort, cumsum, lerp ...) that vmap's op swap does not
            # reach: batched tensors got here, so it runs once per example (NOTE [Ops
            # written as Functions under vmap])
            return fallback(cls.__name__, lambda *a, **k: _function_apply(cls, *a, **k),
                            args, kwargs, warn=False)
        return _function_apply(cls, *args, **kwargs)
    if getattr(cls.setup_context, "_is_default_implementation", False):
        raise RuntimeError(SETUP_CONTEXT_ERROR)
    values = list(args) + list(kwargs.values())
    levels = union_levels(tree_flatten(values)[0])
    if not levels:
        return _function_apply(_generated(cls), *args, **kwargs)
    level = levels[-1]
    has_rule = not getattr(cls.vmap, "_is_default_implementation", False)
    if has_rule and cls.generate_vmap_rule:
        raise RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True "
            "and an overridden vmap staticmethod. Please set generate_vmap_rule=False or "
            "delete the overridden vmap staticmethod to avoid ambiguity. For more details, "
            "please see https://pytorch.org/docs/main/notes/extending.func.html")
    if any(isinstance(v, Tensor) for v in kwargs.values()):
        raise NotImplementedError(
            "Run vmap on autograd.Function with kwarg-only Tensor args. Please do not pass "
            f"kwarg-only Tensors to autograd.Function. Got: {kwargs}")
    if has_rule:
        peeled = [_peeled_tree(a, level) for a in args]
        info = VmapInfo(level_size(level), active_levels()[level - 1].randomness)
        result = cls.vmap(info, tuple(d for _, d in peeled), *[p for p, _ in peeled],
                          **kwargs)
        return _vmap_rule_result(cls, result, level)
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

