"""Tensor.as_subclass (autograd_cy/tensor_type.py) against torch's: the class, shared
memory and version, requires_grad, the node (AliasBackward0) and the gradient reaching the
input, no_grad, and the errors."""
import pytest

from oracle import LIBS, assert_same, assert_same_error, node_name

SUBCLASSES = {lib: type("Marked", (lib.Tensor,), {}) for lib in LIBS}


def test_class_memory_graph_and_gradient():
    def run(lib):
        cls = SUBCLASSES[lib]
        leaf = lib.tensor([1.0, 2.0], requires_grad=True)
        y = leaf * 2
        m = y.as_subclass(cls)
        (m * lib.tensor([3.0, 4.0])).sum().backward()
        plain = lib.ones(2).as_subclass(cls)
        aliased = leaf.as_subclass(cls)
        with lib.no_grad():
            quiet = leaf.as_subclass(cls)
        same = leaf.as_subclass(lib.Tensor)
        return [type(m).__name__, m.data_ptr() == y.data_ptr(), node_name(m.grad_fn),
                m.requires_grad, m.is_leaf, leaf.grad, type(plain).__name__,
                plain.requires_grad, node_name(plain.grad_fn), aliased.is_leaf,
                node_name(aliased.grad_fn), quiet.requires_grad, quiet.grad_fn is None,
                type(same).__name__, same is leaf, m._version == y._version]
    assert_same(run)


def test_writes_are_shared():
    def run(lib):
        x = lib.zeros(3)
        m = x.as_subclass(SUBCLASSES[lib])
        m[1] = 5.0
        return [x, x._version, m._version]
    assert_same(run)


@pytest.mark.parametrize("cls", [3, int])
def test_errors(cls):
    assert_same_error(lambda lib: lib.ones(2).as_subclass(cls), TypeError, exact=True)
