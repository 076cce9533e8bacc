"""Pytrees: nested tuples, lists and dicts, flattened to their leaves and built again."""

__all__ = ["tree_flatten", "tree_unflatten", "broadcast_prefix"]


def tree_flatten(tree):
    """``(leaves, spec)``: the leaves in order, and what ``tree_unflatten`` needs."""
    leaves = []

    def walk(node):
        if isinstance(node, (tuple, list)) and not hasattr(node, "_fields"):
            return (type(node), [walk(child) for child in node])
        if isinstance(node, dict):
            return (dict, [(key, walk(node[key])) for key in node])
        leaves.append(node)
        return None
    return leaves, walk(tree)


def tree_unflatten(leaves, spec):
    iterator = iter(leaves)

    def build(node):
        if node is None:
            return next(iterator)
        kind, children = node
        if kind is dict:
            return {key: build(child) for key, child in children}
        return kind(build(child) for child in children)
    return build(spec)


def broadcast_prefix(prefix, tree, where, what="in_dims", of="inputs"):
    """One entry of ``prefix`` per leaf of ``tree``: a leaf of ``prefix`` (an int or None)
    covers the whole subtree at its place (``in_dims=0`` covers every input). ``what`` and
    ``of`` name the two in the error (in_dims and inputs, or out_dims and outputs)."""
    flat = []

    def walk(p, node):
        if p is None or isinstance(p, int):
            flat.extend([p] * len(tree_flatten(node)[0]))
        elif isinstance(p, (tuple, list)) and isinstance(node, (tuple, list)) \
                and len(p) == len(node):
            for pc, nc in zip(p, node):
                walk(pc, nc)
        elif isinstance(p, dict) and isinstance(node, dict) and set(p) == set(node):
            for key in node:
                walk(p[key], node[key])
        else:
            raise ValueError(f"{where}: {what} is not compatible with the structure of "
                             f"`{of}`. {what} has structure {_structure(p)} but {of} has "
                             f"structure {_structure(node)}.")
    walk(prefix, tree)
    return flat


def _structure(tree):
    if isinstance(tree, (tuple, list)):
        inner = ", ".join(_structure(child) for child in tree)
        return f"({inner},)" if isinstance(tree, tuple) and len(tree) == 1 else \
            (f"({inner})" if isinstance(tree, tuple) else f"[{inner}]")
    if isinstance(tree, dict):
        return "{" + ", ".join(f"{k!r}: {_structure(v)}" for k, v in tree.items()) + "}"
    return "*"
