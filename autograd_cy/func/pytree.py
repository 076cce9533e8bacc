"""Pytrees, as ``torch.utils._pytree``: nested containers (tuples, lists, dicts, named
tuples, OrderedDicts, defaultdicts, deques, ``Size``, and the types given to
``register_pytree_node``) flattened to their leaves and a ``TreeSpec``, and built again."""
import collections

from autograd_cy._C.tensor import Size

__all__ = ["tree_flatten", "tree_unflatten", "tree_map", "tree_map_only", "tree_leaves",
           "tree_structure", "tree_all", "tree_any", "TreeSpec", "LeafSpec",
           "register_pytree_node", "broadcast_prefix"]


# NOTE [Pytree walks without closures]
# The walks below are module functions that take what they fill as an argument. A nested
# function that calls itself is a reference cycle (the function, its closure cell, the
# function): everything it closes over, the list of leaves included, then lives until the
# garbage collector runs, not until the call returns. Under vmap those leaves are the
# per-example gradients (25 MB for a 784-128 layer at batch 64): held over into the next
# call, they made the heap grow a fresh block, and the kernel fault in its pages, every
# iteration.


class TreeSpec:
    """What ``tree_unflatten`` needs to build a tree again from its leaves: the node's
    ``type``, its ``context`` (a dict's keys, a named tuple's class ...) and one spec per
    child."""

    def __init__(self, type, context, children_specs):
        self.type, self.context, self._children = type, context, list(children_specs)
        self.num_children = len(self._children)
        self.num_nodes = 1 + sum(child.num_nodes for child in self._children)
        self.num_leaves = sum(child.num_leaves for child in self._children)

    @property
    def children_specs(self):
        return self._children

    def is_leaf(self):
        return False

    def children(self):
        return list(self._children)

    def child(self, index):
        return self._children[index]

    def unflatten(self, leaves):
        """The tree of this structure with ``leaves`` in order."""
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
                             f"but the spec refers to a pytree that holds {self.num_leaves} "
                             f"items ({self}).")
        return _build(self, iter(leaves))

    def flatten_up_to(self, tree):
        """The subtrees of ``tree`` at this spec's leaves (``tree`` may be deeper)."""
        subtrees = []
        _up_to(self, tree, subtrees)
        return subtrees

    def __eq__(self, other):
        return isinstance(other, TreeSpec) and self.type == other.type \
            and self.context == other.context and self._children == other._children

    __hash__ = None

    def __repr__(self, indent=0):
        name = self.type.__name__
        if not self._children:
            return f"TreeSpec({name}, {self.context}, [])"
        indent += 2
        inner = (",\n" + " " * indent).join(child.__repr__(indent) for child in self._children)
        return f"TreeSpec({name}, {self.context}, [{inner}])"


class LeafSpec(TreeSpec):
    """The spec of a leaf, written ``*``."""

    def __init__(self):
        super().__init__(None, None, [])
        self.num_nodes = self.num_leaves = 1

    def is_leaf(self):
        return True

    def __repr__(self, indent=0):
        return "*"


_LEAF = LeafSpec()
_NODES = {}     # type -> (flatten_fn, unflatten_fn, flatten_with_keys_fn)


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None):
    """Make ``cls`` a node: ``flatten_fn(obj)`` gives ``(children, context)``,
    ``unflatten_fn(children, context)`` builds it again. Every walk here (``vmap``'s and
    ``grad``'s included) then goes into it. The serialization arguments are accepted and
    unused (there is no ``treespec_dumps``)."""
    if cls in _NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    _NODES[cls] = (flatten_fn, unflatten_fn, flatten_with_keys_fn)


def _sequence(cls):
    return (lambda node: (list(node), None)), (lambda children, context: cls(children))


def _mapping_flatten(node):
    return list(node.values()), list(node)


def _keys_flatten(node):
    """(key, child) pairs and the context, for ``flatten_with_keys_fn`` of the built-ins."""
    children, context = _NODES[_kind(type(node))][0](node)
    keys = context if isinstance(node, dict) else range(len(children))
    return list(zip(keys, children)), context


register_pytree_node(tuple, *_sequence(tuple), flatten_with_keys_fn=_keys_flatten)
register_pytree_node(list, *_sequence(list), flatten_with_keys_fn=_keys_flatten)
register_pytree_node(Size, *_sequence(Size), flatten_with_keys_fn=_keys_flatten)
register_pytree_node(dict, _mapping_flatten,
                     lambda children, keys: dict(zip(keys, children)),
                     flatten_with_keys_fn=_keys_flatten)
register_pytree_node(collections.OrderedDict, _mapping_flatten,
                     lambda children, keys: collections.OrderedDict(zip(keys, children)),
                     flatten_with_keys_fn=_keys_flatten)
register_pytree_node(collections.defaultdict,
                     lambda node: (list(node.values()), [node.default_factory, list(node)]),
                     lambda children, context: collections.defaultdict(
                         context[0], zip(context[1], children)))
register_pytree_node(collections.deque, lambda node: (list(node), node.maxlen),
                     lambda children, maxlen: collections.deque(children, maxlen=maxlen),
                     flatten_with_keys_fn=_keys_flatten)
# a named tuple (sort's (values, indices) too) is a node of type namedtuple, its class the
# context, as torch's
register_pytree_node(collections.namedtuple, lambda node: (list(node), type(node)),
                     lambda children, cls: cls(*children), flatten_with_keys_fn=_keys_flatten)


def _kind(cls):
    """The registered type a node of class ``cls`` is, or None for a leaf."""
    if cls in _NODES:
        return cls
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return collections.namedtuple
    return None


def tree_flatten(tree, is_leaf=None):
    """``(leaves, spec)``: the leaves in order, and what ``tree_unflatten`` needs.
    ``is_leaf(subtree)`` True stops the walk there."""
    leaves = []
    return leaves, _flatten(tree, leaves, is_leaf)


def _flatten(node, leaves, is_leaf):
    kind = _kind(type(node))
    if kind is None or (is_leaf is not None and is_leaf(node)):
        leaves.append(node)
        return _LEAF
    children, context = _NODES[kind][0](node)
    return TreeSpec(kind, context, [_flatten(child, leaves, is_leaf) for child in children])


def tree_unflatten(leaves, treespec):
    """The tree of structure ``treespec`` with ``leaves`` in order."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError("Expected `treespec` to be an instance of PyTreeSpec but got item "
                        f"of type {type(treespec)}.")
    return treespec.unflatten(leaves)


def _build(spec, leaves):
    if spec.is_leaf():
        return next(leaves)
    return _NODES[spec.type][1]([_build(child, leaves) for child in spec._children],
                                spec.context)


def _up_to(spec, node, subtrees):
    if spec.is_leaf():
        subtrees.append(node)
        return
    kind = _kind(type(node))
    if kind is not spec.type:
        raise ValueError(f"Node type mismatch; expected {spec.type}, but got {type(node)}.")
    children, context = _NODES[kind][0](node)
    if len(children) != spec.num_children:
        raise ValueError(f"Node arity mismatch; expected {spec.num_children}, but got "
                         f"{len(children)}.")
    if isinstance(node, dict) and kind is not collections.defaultdict \
            and set(context) != set(spec.context):
        raise ValueError(f"Node keys mismatch; missing key(s): "
                         f"{set(spec.context) - set(context)}; extra key(s): "
                         f"{set(context) - set(spec.context)}.")
    if isinstance(node, dict):
        children = [node[key] for key in (spec.context if kind is not collections.defaultdict
                                          else spec.context[1])]
    elif context != spec.context:
        raise ValueError(f"Node context mismatch for custom node type {spec.type}.")
    for child_spec, child in zip(spec._children, children):
        _up_to(child_spec, child, subtrees)


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """The tree of ``func`` of each leaf (and of the subtrees of ``rests`` at that place)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(rest) for rest in rests]
    return spec.unflatten(map(func, leaves, *others))


def _predicate(type_or_types_or_pred):
    if isinstance(type_or_types_or_pred, (type, tuple)) or \
            type(type_or_types_or_pred).__name__ == "UnionType":
        return lambda leaf: isinstance(leaf, type_or_types_or_pred)
    return type_or_types_or_pred


def tree_map_only(type_or_types_or_pred, /, func, tree, is_leaf=None):
    """``tree_map`` of ``func`` over the leaves of those types (or that the predicate
    takes); the other leaves as they are."""
    take = _predicate(type_or_types_or_pred)
    return tree_map(lambda leaf: func(leaf) if take(leaf) else leaf, tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    return all(map(pred, tree_leaves(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    return any(map(pred, tree_leaves(tree, is_leaf)))


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
    elif isinstance(p, (tuple, list)) and type(p) is type(node) and len(p) == len(node):
        for pc, nc in zip(p, node):    # a tuple is not a list (nor a named tuple), as torch's
            _broadcast(pc, nc, flat, naming)
    elif isinstance(p, dict) and type(p) is type(node) and set(p) == set(node):
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
