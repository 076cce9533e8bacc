"""``utils._pytree`` against ``torch.utils._pytree``: leaves, specs and their reprs, the
tree functions, registered nodes (in ``func.vmap`` and ``func.grad`` too)."""
import collections

import pytest
import torch.utils._pytree as torch_pytree

import autograd_cy as ag
from autograd_cy.utils import _pytree as pytree

Point = collections.namedtuple("Point", "x y")
TREES = [
    1, None, (), [], {}, (1,), [1, (2, 3)], {"b": 1, "a": [2, {"c": 3}]},
    Point(1, (2, 3)), collections.OrderedDict(z=1, a=2),
    collections.defaultdict(list, {"k": 1}), collections.deque([1, 2], maxlen=3),
]


@pytest.mark.filterwarnings("ignore::FutureWarning")    # torch's LeafSpec / children_specs
@pytest.mark.parametrize("tree", TREES, ids=repr)
def test_flatten_and_spec_as_torchs(tree):
    leaves, spec = pytree.tree_flatten(tree)
    expected_leaves, expected_spec = torch_pytree.tree_flatten(tree)
    assert leaves == expected_leaves
    assert repr(spec) == repr(expected_spec)
    assert (spec.num_leaves, spec.num_nodes, spec.is_leaf()) == \
        (expected_spec.num_leaves, expected_spec.num_nodes, expected_spec.is_leaf())
    assert pytree.tree_unflatten(leaves, spec) == tree
    assert type(pytree.tree_unflatten(leaves, spec)) is type(tree)
    assert pytree.tree_structure(tree) == spec and pytree.tree_leaves(tree) == leaves


def test_spec_repr_layout_and_leaf_spec():
    tree = {"a": (1, [2, 3]), "b": None, "c": Point(4, 5)}
    assert repr(pytree.tree_structure(tree)) == repr(torch_pytree.tree_structure(tree))
    assert "\n    TreeSpec(list" in repr(pytree.tree_structure(tree))
    assert repr(pytree.LeafSpec()) == "*" and pytree.LeafSpec() == pytree.tree_structure(1)
    assert isinstance(pytree.LeafSpec(), pytree.TreeSpec)
    assert pytree.tree_flatten(ag.Size([2, 3]))[0] == [2, 3]     # a node, as torch.Size


def test_map_functions_as_torchs():
    tree = (1, 2.0, [3, {"k": 4.5}])
    for lib in (pytree, torch_pytree):
        assert lib.tree_map(lambda x: x * 2, tree) == (2, 4.0, [6, {"k": 9.0}])
        assert lib.tree_map(lambda a, b: (a, b), (1, 2), ((1, 5), 2)) == ((1, (1, 5)), (2, 2))
        assert lib.tree_map_only(int, lambda x: -x, tree) == (-1, 2.0, [-3, {"k": 4.5}])
        assert lib.tree_map_only((float,), str, tree) == (1, "2.0", [3, {"k": "4.5"}])
        assert lib.tree_map_only(lambda x: x > 2, lambda x: 0, tree) == (1, 2.0, [0, {"k": 0}])
        assert lib.tree_all(lambda x: x > 0, tree) and not lib.tree_any(lambda x: x > 5, tree)
        assert lib.tree_leaves([1, (2, 3)], is_leaf=lambda x: isinstance(x, tuple)) == \
            [1, (2, 3)]


@pytest.mark.parametrize("args,message", [
    (((1, 2), [1, 2]), "Node type mismatch; expected <class 'tuple'>, but got <class 'list'>"),
    (((1, 2), (1, 2, 3)), "Node arity mismatch; expected 2, but got 3"),
    (({"a": 1}, {"b": 1}), r"Node keys mismatch; missing key\(s\): \{'a'\}; extra key\(s\): "
                           r"\{'b'\}"),
])
def test_map_mismatches_raise_as_torchs(args, message):
    for lib in (pytree, torch_pytree):
        with pytest.raises(ValueError, match=message):
            lib.tree_map(lambda a, b: a, *args)


def test_unflatten_errors_as_torchs():
    for lib in (pytree, torch_pytree):
        with pytest.raises(ValueError, match=r"treespec.unflatten\(leaves\): `leaves` has "
                                             r"length 2 but the spec refers to a pytree that "
                                             r"holds 1 items \(TreeSpec\(tuple, None, \[\*\]\)\)"):
            lib.tree_unflatten([1, 2], lib.tree_structure((1,)))
        with pytest.raises(TypeError, match="Expected `treespec` to be an instance of "
                                            "PyTreeSpec but got item of type <class 'int'>"):
            lib.tree_unflatten([1], 3)


class Pair:
    def __init__(self, first, second):
        self.first, self.second = first, second


class TorchPair(Pair):
    pass


pytree.register_pytree_node(
    Pair, lambda p: ([p.first, p.second], "pair"), lambda children, ctx: Pair(*children),
    flatten_with_keys_fn=lambda p: ([("first", p.first), ("second", p.second)], "pair"))
torch_pytree.register_pytree_node(
    TorchPair, lambda p: ([p.first, p.second], "pair"),
    lambda children, ctx: TorchPair(*children))


def test_registered_nodes_flatten_as_torchs():
    leaves, spec = pytree.tree_flatten([Pair(1, (2, 3))])
    expected_leaves, expected_spec = torch_pytree.tree_flatten([TorchPair(1, (2, 3))])
    assert leaves == expected_leaves == [1, 2, 3]
    assert repr(spec) == repr(expected_spec).replace("TorchPair", "Pair")
    rebuilt = pytree.tree_unflatten([4, 5, 6], spec)[0]
    assert type(rebuilt) is Pair and rebuilt.first == 4 and rebuilt.second == (5, 6)
    for lib, cls in ((pytree, Pair), (torch_pytree, TorchPair)):
        with pytest.raises(ValueError, match="is already registered as pytree node"):
            lib.register_pytree_node(cls, lambda p: ([], None), lambda c, x: cls(1, 2))


def test_registered_nodes_in_vmap_and_grad():
    x, y = ag.tensor([1.0, 2.0, 3.0]), ag.tensor([4.0, 5.0, 6.0])
    out = ag.func.vmap(lambda p: Pair(p.first * p.second, p.first))(Pair(x, y))
    assert isinstance(out, Pair) and out.first.tolist() == [4.0, 10.0, 18.0]
    g = ag.func.grad(lambda p: (p.first * p.second).sum())(Pair(x, y))
    assert isinstance(g, Pair) and g.first.tolist() == y.tolist() and \
        g.second.tolist() == x.tolist()
