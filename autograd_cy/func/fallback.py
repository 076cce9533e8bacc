"""The per-element fallback: an op without a batching rule runs once per example.

For the innermost level any argument varies over, the op runs on each example's slice of
the arguments (the other levels still batched, so a nested call may find its rule) and the
results are stacked along that level, as torch's vmap fallback does, with its "performance
drop" warning when ``_debug_only_display_vmap_fallback_warnings(True)`` asked for it.
Correct for any op that maps examples to results; B calls instead of one.
"""
import warnings

from autograd_cy._C import batching as _batching
from autograd_cy._C.ops.split_cat import stack
from autograd_cy._C.tensor import Tensor
from autograd_cy.func.batched_tensor import (
    INPLACE_ERROR, BatchedTensor, batched, levels_of, union_levels, materialized, level_size,
)
from autograd_cy.func.batching_rules import RULES, FALLBACK

__all__ = ["fallback", "dispatched_call", "has_batched"]


def has_batched(args, kwargs):
    for a in args:
        if type(a) is BatchedTensor:
            return True
        if type(a) in (list, tuple) and any(type(b) is BatchedTensor for b in a):
            return True
    for v in kwargs.values():
        if type(v) is BatchedTensor:
            return True
    return False


def _all_batched(args, kwargs):
    values = list(args) + list(kwargs.values())
    for a in list(values):
        if type(a) in (list, tuple):
            values.extend(a)
    return [v for v in values if type(v) is BatchedTensor]


def _element(value, level, index):
    """``value`` at ``index`` of ``level``'s batch dim (unchanged if it does not vary)."""
    if type(value) is BatchedTensor:
        levels = value._levels
        if level not in levels:
            return value
        k = levels.index(level)
        return batched(value._physical.select(k, index), levels[:k] + levels[k + 1:])
    if type(value) in (list, tuple):
        return type(value)(_element(v, level, index) for v in value)
    return value


def _stacked(rows, level):
    """Per-element results as one result batched over ``level`` too."""
    first = rows[0]
    if isinstance(first, Tensor):
        lower = union_levels(rows)
        physicals = [materialized(r, lower) for r in rows]
        levels = tuple(sorted(lower + (level,)))
        position = levels.index(level)
        return batched(stack(physicals, position), levels)
    if isinstance(first, tuple):
        parts = [_stacked([r[i] for r in rows], level) for i in range(len(first))]
        return type(first)(*parts) if hasattr(first, "_fields") else tuple(parts)
    if isinstance(first, list):
        return [_stacked([r[i] for r in rows], level) for i in range(len(first))]
    if first is None or all(r == first for r in rows[1:]):
        return first
    raise RuntimeError(
        "vmap: It looks like you're attempting to use a Tensor in some data-dependent "
        "control flow. We don't support that yet, please file an issue at "
        "https://github.com/pytorch/pytorch/issues .")


def fallback(name, function, args, kwargs, warn=True):
    """Run ``function`` once per element of the innermost level any argument varies over,
    and stack the results (torch's vmap fallback, with its warning when enabled)."""
    if warn and _batching._is_vmap_fallback_warning_enabled():
        warnings.warn(f"There is a performance drop because we have not yet implemented "
                      f"the batching rule for aten::{name}. Please file us an issue on "
                      f"GitHub so that we can prioritize its implementation.",
                      UserWarning, stacklevel=3)
    level = union_levels(_all_batched(args, kwargs))[-1]
    inplace = name.endswith("_") or name == "setitem" or name == "__setitem__"
    if inplace and args and level not in levels_of(args[0]):
        raise RuntimeError(INPLACE_ERROR)
    size = level_size(level)
    if size == 0:
        return _empty_batch(name, function, args, kwargs, level, inplace)
    rows = []
    for index in range(size):
        row_args = [_element(a, level, index) for a in args]
        row_kwargs = {k: _element(v, level, index) for k, v in kwargs.items()}
        rows.append(dispatched_call(name, function, row_args, row_kwargs))
    if inplace:
        return args[0] if name.endswith("_") else None
    return _stacked(rows, level)


def _zero_element(value, level):
    """One example of ``value`` along ``level``, of zeros: for a batch of size 0."""
    if type(value) is BatchedTensor:
        levels = value._levels
        if level not in levels:
            return value
        k = levels.index(level)
        shape = list(value._physical.shape)
        del shape[k]
        return batched(value._physical.new_zeros(shape), levels[:k] + levels[k + 1:])
    if type(value) in (list, tuple):
        return type(value)(_zero_element(v, level) for v in value)
    return value


def _empty_batch(name, function, args, kwargs, level, inplace):
    """A batch of size 0: the op runs once on an example of zeros, for the shapes and
    dtypes of its results, which keep none of its rows (torch's batching rules give these
    empty results)."""
    if inplace:
        return args[0] if name.endswith("_") else None
    try:
        row = dispatched_call(name, function, [_zero_element(a, level) for a in args],
                              {k: _zero_element(v, level) for k, v in kwargs.items()})
    except Exception as error:
        raise RuntimeError("vmap: The fallback path does not support vmap over dims of "
                           f"size 0 (aten::{name}: {error})") from error
    return _none_of(_stacked([row], level), level)


def _none_of(result, level):
    """``result`` (stacked from one example) with no examples along ``level``."""
    if type(result) is BatchedTensor:
        k = result._levels.index(level)
        return batched(result._physical.narrow(k, 0, 0), result._levels)
    if isinstance(result, tuple):
        parts = [_none_of(r, level) for r in result]
        return type(result)(*parts) if hasattr(result, "_fields") else tuple(parts)
    if isinstance(result, list):
        return [_none_of(r, level) for r in result]
    return result


def dispatched_call(name, function, args, kwargs):
    """``function(*args, **kwargs)`` through its batching rule if an argument is batched."""
    if not has_batched(args, kwargs):
        return function(*args, **kwargs)
    if kwargs.get("out") is not None:
        raise RuntimeError(f"Batching rule not implemented for aten::{name}.out; the "
                           "fallback path doesn't work on out= or view ops.")
    rule = RULES.get(name)
    if rule is not None:
        result = rule(function, args, kwargs)
        if result is not FALLBACK:
            return result
    return fallback(name, function, args, kwargs)
