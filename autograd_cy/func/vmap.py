"""``vmap``: a function of one example, run on a batch.

``vmap(f, in_dims, out_dims)(*args)`` opens a level (its batch size and randomness mode),
wraps each input with an ``in_dims`` entry as a BatchedTensor whose batch dim is moved in
front (NOTE [The batched tensor]), calls ``f`` with the ops swapped for their batching rules
(NOTE [How vmap reaches the ops]), and puts each output's batch dim at its ``out_dims``
place. Inputs and outputs are pytrees: tuples, lists and dicts of tensors.
"""
import functools

from autograd_cy._C.ops.split_cat import cat
from autograd_cy._C.tensor import Tensor
from autograd_cy.func import dispatch
from autograd_cy.func.batched_tensor import (
    batched, levels_of, physical_of, logical_ndim, push_level, pop_level,
)
from autograd_cy.func.batching_rules import wrap_logical_dim
from autograd_cy.func.pytree import tree_flatten, tree_unflatten, broadcast_prefix

__all__ = ["vmap"]


def _name(func):
    return getattr(func, "__name__", repr(func))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a dim of its inputs, as ``torch.vmap``.

    >>> x = ag.randn(5, 3)
    >>> ag.func.vmap(ag.dot)(x, x).shape
    autograd_cy.Size([5])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError("vmap: chunk_size should be None or greater than 0. "
                         f"(got {chunk_size})")

    @functools.wraps(func)
    def vmapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)
    return vmapped


def _flat_in_dims(func, in_dims, args):
    """One in_dim (int or None) per leaf of ``args``, with torch's errors."""
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` "
                         "to be int or a (potentially nested) tuple matching the structure "
                         f"of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. "
                         "The latter is unsupported.")
    if isinstance(in_dims, tuple) and len(in_dims) != len(args):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                         "compatible with the structure of `inputs`. in_dims has "
                         f"{len(in_dims)} entries but inputs has {len(args)}.")
    leaves, spec = tree_flatten(list(args))
    dims = broadcast_prefix(list(in_dims) if isinstance(in_dims, tuple) else in_dims,
                            list(args), f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)")
    return leaves, spec, dims


def _flat_out_dims(func, out_dims, outputs):
    """One out_dim (int or None) per leaf of ``outputs``, with torch's errors."""
    where = f"vmap({_name(func)}, ..., out_dims={out_dims})"
    if not (out_dims is None or isinstance(out_dims, (int, tuple, list, dict))):
        raise ValueError(f"{where}: `out_dims` must be an int, None or a python collection of "
                         "ints representing where in the outputs the vmapped dimension should "
                         "appear.")
    return broadcast_prefix(out_dims, outputs, where + "(<inputs>)", "out_dims", "outputs")


def _batch_size(func, in_dims, leaves, dims):
    name = _name(func)
    sizes = []
    for leaf, dim in zip(leaves, dims):
        if dim is None:
            continue
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim="
                             f"{dim} for an input but in_dim must be either an integer "
                             "dimension or None.")
        if not isinstance(leaf, Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim="
                             f"{dim} for an input but the input is of type {type(leaf)}. We "
                             "cannot vmap over non-Tensor arguments, please use None as the "
                             "respective in_dim")
        ndim = leaf.dim()
        if not -ndim <= dim < ndim:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim="
                             f"{dim} for some input, but that input is a Tensor of "
                             f"dimensionality {ndim} so expected in_dim to satisfy -{ndim} <= "
                             f"in_dim < {ndim}.")
        sizes.append(leaf.shape[dim])
    if not sizes:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): at least one input "
                         "must be batched, i.e. in_dims must not be None for all inputs "
                         "(got in_dims=" f"{in_dims}).")
    if any(size != sizes[0] for size in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]


def _wrap_input(value, dim, level):
    """``value`` batched over ``level`` along its logical dim ``dim``."""
    levels = levels_of(value)
    physical = physical_of(value)
    nb = len(levels)
    dim = wrap_logical_dim(dim, logical_ndim(value))
    if dim != 0:
        physical = physical.movedim(nb + dim, nb)
    return batched(physical, levels + (level,))


def _unwrap_output(func, value, out_dim, level, size):
    """``value`` with ``level``'s batch dim at its logical dim ``out_dim``."""
    name = _name(func)
    if out_dim is None:
        if level in levels_of(value):
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor "
                             "when out_dim is None")
        return value
    if not isinstance(value, Tensor):
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                         f"{type(value)}. Did you mean to set out_dims= to None for output?")
    levels = levels_of(value)
    physical = physical_of(value)
    rest = tuple(lv for lv in levels if lv != level)
    ndim = physical.dim() - len(levels) + (1 if level in levels else 0)
    position = len(rest) + wrap_logical_dim(out_dim, ndim + (0 if level in levels else 1))
    if level in levels:
        physical = physical.movedim(levels.index(level), position)
    else:
        physical = physical.unsqueeze(position)
        shape = list(physical.shape)
        shape[position] = size
        physical = physical.expand(shape)
    return batched(physical, rest)


def _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    leaves, spec, dims = _flat_in_dims(func, in_dims, args)
    size = _batch_size(func, in_dims, leaves, dims)
    if chunk_size is not None and chunk_size < size:
        return _chunked(func, in_dims, out_dims, randomness, chunk_size, leaves, spec, dims,
                        size, kwargs)
    func = dispatch.dispatching_version(func)
    level = push_level(size, randomness)
    dispatch.enter_vmap()
    try:
        wrapped = [leaf if dim is None else _wrap_input(leaf, dim, level.number)
                   for leaf, dim in zip(leaves, dims)]
        outputs = func(*tree_unflatten(wrapped, spec), **kwargs)
        flat_out, out_spec = tree_flatten(outputs)
        flat_dims = _flat_out_dims(func, out_dims, outputs)
        results = [_unwrap_output(func, value, dim, level.number, size)
                   for value, dim in zip(flat_out, flat_dims)]
    finally:
        dispatch.exit_vmap()
        pop_level()
    return tree_unflatten(results, out_spec)


def _chunked(func, in_dims, out_dims, randomness, chunk_size, leaves, spec, dims, size,
             kwargs):
    """``chunk_size`` examples at a time, the outputs concatenated along their out_dims."""
    pieces = []
    for start in range(0, size, chunk_size):
        length = min(chunk_size, size - start)
        chunk = [leaf if dim is None else leaf.narrow(dim, start, length)
                 for leaf, dim in zip(leaves, dims)]
        pieces.append(_vmap_call(func, in_dims, out_dims, randomness, None,
                                 tree_unflatten(chunk, spec), kwargs))
    flat_pieces = [tree_flatten(p)[0] for p in pieces]
    out_spec = tree_flatten(pieces[0])[1]
    flat_dims = _flat_out_dims(func, out_dims, pieces[0])
    join = dispatch.dispatching_version(cat)    # the pieces are batched in an outer vmap
    joined = [join([p[i] for p in flat_pieces], dim) if dim is not None else flat_pieces[0][i]
              for i, dim in enumerate(flat_dims)]
    return tree_unflatten(joined, out_spec)
