"""tensordot, inner, kron (autograd_cy/contractions.py) and cross (cross_product.py) against
torch's: values, gradients and double backward (check_op), gradcheck and gradgradcheck in
float64, forward AD, the nodes (ViewBackward0 of tensordot and inner, LinalgCrossBackward0,
as torch's; kron's UnsafeViewBackward0, a tensor that is no view), and errors."""
import pytest

from oracle import (
    assert_same, assert_same_error, check_gradcheck, check_jvp, check_op, node_name, randn,
)

CASES = {
    "tensordot_two": (lambda lib, a, b: lib.tensordot(a, b.permute(1, 0, 2), 2),
                      [(2, 3, 4), (4, 3, 5)]),
    "tensordot_lists": (lambda lib, a, b: lib.tensordot(a, b, ([1, 2], [1, 0])),
                        [(2, 3, 4), (4, 3, 5)]),
    "tensordot_zero": (lambda lib, a, b: lib.tensordot(a, b, 0), [(2, 3), (4,)]),
    # a 0-d operand: permute(()) (fuzz seed 953000077)
    "tensordot_zero_scalar": (lambda lib, a, b: lib.tensordot(a, b, dims=0), [(), (3,)]),
    "tensordot_zero_scalars": (lambda lib, a, b: lib.tensordot(b, a, dims=0), [(), ()]),
    "tensordot_one": (lambda lib, a, b: lib.tensordot(a, b, dims=1), [(2, 3), (3, 4)]),
    "tensordot_one_each": (lambda lib, a, b: lib.tensordot(a, b, dims=([0], [1])),
                           [(3, 2), (4, 3)]),
    "inner": (lambda lib, a, b: lib.inner(a, b), [(2, 3, 4), (5, 4)]),
    "inner_vectors": (lambda lib, a, b: a.inner(b), [(4,), (4,)]),
    "inner_scalar": (lambda lib, a, b: lib.inner(a[0, 0], b), [(2, 3), (3,)]),
    "kron": (lambda lib, a, b: lib.kron(a, b), [(2, 3), (4,)]),
    "kron_matrices": (lambda lib, a, b: a.kron(b), [(2, 3), (3, 2)]),
}
SAME_NODES = list(CASES)


def _inputs(shapes):
    return [randn(*shape, seed=k) for k, shape in enumerate(shapes)]


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    fn, shapes = CASES[name]
    check_op(fn, *_inputs(shapes))


@pytest.mark.parametrize("name", CASES)
def test_forward_ad(name):
    fn, shapes = CASES[name]
    check_jvp(fn, *_inputs(shapes))


@pytest.mark.parametrize("name", CASES)
def test_gradcheck(name):
    fn, shapes = CASES[name]
    check_gradcheck(fn, *_inputs(shapes))


@pytest.mark.parametrize("name", SAME_NODES)
def test_nodes(name):
    fn, shapes = CASES[name]
    assert_same(lambda lib: node_name(fn(lib, *[lib.tensor(a, requires_grad=True)
                                                for a in _inputs(shapes)]).grad_fn))


def test_integers():
    assert_same(lambda lib: [lib.tensordot(lib.arange(6).view(2, 3), lib.arange(3), 1),
                             lib.kron(lib.arange(2), lib.arange(3)),
                             lib.inner(lib.arange(3), lib.arange(3))])


@pytest.mark.parametrize("fn", [
    lambda lib: lib.tensordot(lib.zeros(2, 3), lib.zeros(4, 3), 1),
    lambda lib: lib.tensordot(lib.zeros(2, 3), lib.zeros(3), -1),
    lambda lib: lib.tensordot(lib.zeros(2, 3), lib.zeros(3, 2), ([0, 1], [1])),
    lambda lib: lib.inner(lib.zeros(2, 3), lib.zeros(2)),
])
def test_errors(fn):
    assert_same_error(fn, RuntimeError)


CROSS = {
    "cross_dim0": lambda lib, a, b: lib.cross(a, b, dim=0),
    "cross_last": lambda lib, a, b: a.transpose(0, 1).cross(b.transpose(0, 1), dim=-1),
    "cross_broadcast": lambda lib, a, b: lib.cross(a[:, :1], b, 0),
}


@pytest.mark.parametrize("name", CROSS)
def test_cross(name):
    inputs = _inputs([(3, 4), (3, 4)])
    check_op(CROSS[name], *inputs)
    check_jvp(CROSS[name], *inputs)
    check_gradcheck(CROSS[name], *inputs)
    assert_same(lambda lib: node_name(CROSS[name](lib, *[
        lib.tensor(a, requires_grad=True) for a in inputs]).grad_fn))


def test_cross_default_dim_and_errors():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(lambda lib: lib.cross(lib.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]),
                                          lib.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])))
    assert_same_error(lambda lib: lib.cross(lib.zeros(2, 2), lib.zeros(2, 2), dim=0))
    assert_same_error(lambda lib: lib.cross(lib.zeros(3), lib.zeros(3).double(), dim=0))


@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "complex64"),
                                    ("int64", "float32")])
def test_linalg_cross_refuses_mixed_dtypes(dtypes):
    """linalg.cross does not promote, as torch's kernel (fuzz seed 954004530)."""
    assert_same_error(lambda lib: lib.linalg.cross(
        lib.ones(3, dtype=getattr(lib, dtypes[0])), lib.ones(3, dtype=getattr(lib, dtypes[1]))),
        exact=True)


def test_kron_is_no_view():
    """kron's result is torch's _unsafe_view of the product: detach_ and in-place ops take
    it as a tensor of its own (fuzz seed 954004106)."""
    def fn(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
        out = lib.kron(x, y)
        out.mul_(2)
        (out * out).sum().backward()
        with lib.no_grad():
            lib.kron(x, y).detach_()
        return out._is_view(), x.grad, y.grad
    assert_same(fn)


@pytest.mark.cpu_only     # torch's CPU kernel's choice; ours on the CPU
def test_kron_of_a_column_major_input_raises_views_error():
    """kron views the product with torch's _unsafe_view: a product that keeps a column-major
    input's layout (linalg.qr's R, a transposed copy or view) cannot be viewed, and torch
    raises view's RuntimeError; a row-major input works (fuzz seed 986003644)."""
    def fn(lib, kind):
        x = lib.tensor([[0.0, 1.625], [2.0, 0.75]], dtype=lib.float64)
        x = {"qr": lambda: lib.linalg.qr(x)[1], "copy": lambda: x.mT.contiguous().mT,
             "view": lambda: x.mT, "plain": lambda: x}[kind]()
        return lib.kron(x, lib.tensor([[-2.75, -1.125]], dtype=lib.float64))
    for kind in ("qr", "copy", "view"):
        assert_same_error(lambda lib: fn(lib, kind), RuntimeError,
                          "view size is not compatible with input tensor's size and stride")
    assert_same(lambda lib: fn(lib, "plain"))


def test_kron_reads_its_operands_through_unsafe_views():
    """torch's kron multiplies _unsafe_views of its operands (nodes UnsafeViewBackward0, no
    shared version counter): writing an operand in place after kron does not stop the
    backward, which reads the written values (fuzz seed 993008913)."""
    def run(lib):
        scale = lib.tensor([[2.0, -1.0]])
        block = lib.tensor([[-1.625, -0.25]], requires_grad=True)
        out = lib.kron(scale, block)
        scale.tanh_()
        out.backward(lib.tensor([[1.0, 2.0, -3.0, 0.5]]))
        node = lib.kron(scale, block).grad_fn
        names = [node_name(n) for n, _ in node.next_functions[0][0].next_functions]
        return block.grad, node_name(node), names
    assert_same(run)
