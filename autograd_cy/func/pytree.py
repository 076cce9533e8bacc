"""Pytrees: nested tuples, lists and dicts, flattened to their leaves and built again."""

__all__ = ["tree_flatten", "tree_unflatten", "broadcast_prefix"]


# NOTE [Pytree walks without closures]
# The walks below are module functions that take what they fill as an argument. A nested
# function that calls itself is a reference cycle (the function, its closure cell, the
# function): everything it closes over, the list of leaves included, then lives until the
# garbage collector runs, not until the call returns. Under vmap those leaves are the
# per-example gradients (25 MB for a 784-128 layer at batch 64): held over into the next
# call, they made the heap grow a fresh block, and the kernel fault in its pages, every
# iteration.


def tree_flatten(tree):
    """``(leaves, spec)``: the leaves in order, and what ``tree_unflatten`` needs."""
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(node, leaves):
    if isinstance(node, (tuple, list)):     # named tuples too (sort's (values, indices))
        return (type(node), [_flatten(child, leaves) for child in node])
    if isinstance(node, dict):
        return (dict, [(key, _flatten(node[key], leaves)) for key in node])
    leaves.append(node)
    return None


def tree_unflatten(leaves, spec):
    return _build(spec, iter(leaves))


def _build(node, leaves):
    if node is None:
        return next(leaves)
    kind, children = node
    if kind is dict:
        return {key: _build(child, leaves) for key, child in children}
    if hasattr(kind, "_fields"):
        return kind(*[_build(child, leaves) for child in children])
    return kind(_build(child, leaves) for child in children)


def broadcast_prefix(prefix, tree, where, what="in_dims", of="inputs"):
    """One entry of ``prefix`` per leaf of ``tree``: a leaf of ``prefix`` (an int or None)
    covers the whole subtree at its place (``in_dims=0`` covers every input). ``what`` and
    ``of`` name the two in the error (in_dims and inputs, or out_dims and outputs)."""
    flat = []
    _broadcast(prefix, tree, flat, (where, what, of))
    return flat


def _broadcast(p, node, flat, naming):
    if p is None or isinstance(p, int):
        flat.extend([p] * len(tree_flatten(node)[0]))
    elif isinstance(p, (tuple, list)) and isinstance(node, (tuple, list)) \
            and len(p) == len(node):
        for pc, nc in zip(p, node):
            _broadcast(pc, nc, flat, naming)
    elif isinstance(p, dict) and isinstance(node, dict) and set(p) == set(node):
        for key in node:
            _broadcast(p[key], node[key], flat, naming)
    else:
        where, what, of = naming
        raise ValueError(f"{where}: {what} is not compatible with the structure of "
                         f"`{of}`. {what} has structure {_structure(p)} but {of} has "
                         f"structure {_structure(node)}.")


def _structure(tree):
    if isinstance(tree, (tuple, list)):
        inner = ", ".join(_structure(child) for child in tree)
        return f"({inner},)" if isinstance(tree, tuple) and len(tree) == 1 else \
            (f"({inner})" if isinstance(tree, tuple) else f"[{inner}]")
    if isinstance(tree, dict):
        return "{" + ", ".join(f"{k!r}: {_structure(v)}" for k, v in tree.items()) + "}"
    return "*"
