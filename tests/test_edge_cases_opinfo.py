"""Edge cases torch's OpInfo samples (tests/opinfo) found where autograd_cy raised or
differed: 0-dim tensors in the index ops, empty inputs, negative indices, the argument
forms torch accepts. Each against torch (values, gradients, double backward, errors)."""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error, check_op, node_name, randn

S = np.array(-4.8)          # a 0-dim input
T = np.array(-7.5)


def index(lib, values):
    return lib.tensor(values, dtype=lib.int64)


# ------------------------------------------------------------------ a shape of ()

@pytest.mark.parametrize("fn", [
    lambda lib, x: lib.broadcast_to(x, ()),
    lambda lib, x: lib.tile(x, ()),
    lambda lib, x: lib.masked_select(x, lib.tensor(True)),
    lambda lib, x: lib.masked_select(x, lib.tensor(False)),
], ids=["broadcast_to", "tile", "masked_select", "masked_select_none"])
def test_empty_shape_of_a_0_dim_tensor(fn):
    check_op(fn, S)


def test_masked_select_double_backward_node():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.masked_select(x, lib.tensor([True, False]))
        (g,) = lib.autograd.grad(y.sum() * 1.0, x, create_graph=True)
        gy = lib.ones(1, requires_grad=True)
        (h,) = lib.autograd.grad(y, x, gy, create_graph=True)
        return node_name(y.grad_fn), node_name(h.grad_fn)
    assert_same(run)


# ------------------------------------------------------------------ index ops, 0-dim

@pytest.mark.parametrize("fn", [
    lambda lib, x, s: lib.gather(x, 0, index(lib, 0)),
    lambda lib, x, s: lib.gather(x, -1, index(lib, [0, 0])),
    lambda lib, x, s: lib.scatter(x, 0, index(lib, 0), s),
    lambda lib, x, s: lib.scatter(x, 0, index(lib, [0]), s),
    lambda lib, x, s: lib.scatter(x, 0, index(lib, 0), 2.5),
    lambda lib, x, s: lib.scatter_add(x, 0, index(lib, 0), s),
    lambda lib, x, s: lib.index_add(x, 0, index(lib, [0]), s, alpha=2),
    lambda lib, x, s: lib.index_add(x, 0, index(lib, 0), s),
    lambda lib, x, s: lib.index_copy(x, 0, index(lib, [0]), s),
    lambda lib, x, s: lib.index_select(x, 0, index(lib, [0])),
    lambda lib, x, s: lib.index_select(x, 0, index(lib, 0)),
] + [
    (lambda reduce, include_self: lambda lib, x, s: lib.scatter_reduce(
        x, 0, index(lib, 0), s, reduce, include_self=include_self))(reduce, include_self)
    for reduce in ("sum", "prod", "mean", "amin", "amax") for include_self in (True, False)
])
def test_index_ops_of_0_dim_tensors(fn):
    check_op(fn, S, T)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.gather(lib.tensor(1.0), 0, index(lib, [[0]])),
    lambda lib: lib.gather(lib.tensor(1.0), 0, index(lib, [1])),
    lambda lib: lib.index_add(lib.tensor(1.0), 0, index(lib, [0]), lib.tensor([5.0])),
    lambda lib: lib.index_add(lib.zeros(2), 0, index(lib, 0), lib.tensor(5.0)),
    lambda lib: lib.index_select(lib.tensor(1.0), 0, index(lib, [0, 0])),
])
def test_index_ops_of_0_dim_tensors_errors(fn):
    assert_same_error(fn, RuntimeError)


@pytest.mark.parametrize("fn", [
    lambda lib, x, s: lib.index_copy(x, 0, index(lib, [0]), s.reshape(1)),
    lambda lib, x, s: lib.index_copy(lib.stack([x, s]), 0, index(lib, [1]), x * 2),
], ids=["vector_into_0_dim", "0_dim_into_vector"])
def test_index_copy_between_0_dim_and_one_element(fn):
    # index_copy compares the slices without dim: both empty
    check_op(fn, S, T)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.index_copy(lib.zeros(2, 3), 0, index(lib, [0]), lib.zeros(1, 4)),
    lambda lib: lib.index_copy(lib.zeros(2, 3), 0, index(lib, [0]), lib.zeros(1, 3, 1)),
    lambda lib: lib.index_copy(lib.zeros(2), 0, index(lib, [0, 1]), lib.tensor(1.0)),
    lambda lib: lib.index_copy(lib.zeros(2), 0, index(lib, [[0]]), lib.zeros(1)),
])
def test_index_copy_errors(fn):
    assert_same_error(fn)


# ------------------------------------------------------------------ take_along_dim, tensordot

def test_take_along_dim_reads_indices_modulo_the_size():
    check_op(lambda lib, x: lib.take_along_dim(x, index(lib, [[5, -6, 12], [7, -1, -9]]), 1),
             np.arange(10.0).reshape(2, 5))


def test_take_along_dim_flattened_keeps_the_bounds_check():
    assert_same_error(lambda lib: lib.take_along_dim(lib.arange(5.0), index(lib, [-1])),
                      RuntimeError)


@pytest.mark.parametrize("dims", [([0, 1], [2, 0]), "tensor", "tensor0", [[2], [0]]])
def test_tensordot_dims_forms(dims):
    def fn(lib, a, b):
        given = dims
        if dims == "tensor":
            given = lib.tensor([[0, 1], [2, 0]])
        elif dims == "tensor0":
            given = lib.tensor(1)
        return lib.tensordot(a, b, dims=given)
    # a dim of one pairs with any size (the other operand summed over it)
    check_op(fn, np.array([[[0.3]]]), np.array([[[-0.7, 0.4]], [[0.2, 0.1]]]))


def test_tensordot_dims_of_another_type():
    assert_same_error(lambda lib: lib.tensordot(lib.ones(2), lib.ones(2), dims=1.5),
                      RuntimeError)


# ------------------------------------------------------------------ 0-dim inputs

@pytest.mark.parametrize("fn", [
    lambda lib, x: lib.lgamma(x),
    lambda lib, x: lib.nansum(x, dim=-1),
    lambda lib, x: lib.nanmean(x, dim=-1, keepdim=False),
    lambda lib, x: lib.nanmean(x, dim=0, keepdim=True),
], ids=["lgamma", "nansum", "nanmean", "nanmean_keepdim"])
def test_0_dim_input(fn):
    check_op(fn, S)


# ------------------------------------------------------------------ empty inputs

@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_of_an_empty_input(training):
    check_op(lambda lib, x, w, b: lib.nn.functional.batch_norm(
        x, None, None, w, b, training=training), np.zeros((0, 3)), randn(3), randn(3, seed=1))
    check_op(lambda lib, x: lib.nn.functional.batch_norm(
        x, lib.zeros(5), lib.ones(5), training=training), np.zeros(0))


def test_group_norm_of_an_empty_batch():
    check_op(lambda lib, x, w, b: lib.nn.functional.group_norm(x, 1, w, b),
             np.zeros((0, 2)), randn(2), randn(2, seed=1))


@pytest.mark.parametrize("shapes", [((0, 0), (0, 0)), ((0, 0, 0), (0, 0, 0)),
                                    ((2, 0), (2, 3)), ((0, 3), (0, 2))])
@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_of_empty_inputs(shapes, right):
    def run(lib):
        return lib.searchsorted(lib.zeros(shapes[0]), lib.zeros(shapes[1]), right=right)
    assert_same(lambda lib: (list(run(lib).shape), run(lib).tolist()))


# ------------------------------------------------------------------ diff

@pytest.mark.parametrize("n,dim", [(0, 0), (0, 1), (2, 1)])
def test_diff_with_prepend_and_append(n, dim):
    check_op(lambda lib, x, p, a: lib.diff(x, n, dim, p, a), randn(3, 4),
             randn(1, 4, seed=1) if dim == 0 else randn(3, 1, seed=1),
             randn(2, 4, seed=2) if dim == 0 else randn(3, 2, seed=2))
    assert_same(lambda lib: node_name(lib.diff(lib.ones(2, 3, requires_grad=True), 0).grad_fn))


@pytest.mark.parametrize("other", [(1, 2), (2,)])
def test_diff_prepend_of_another_shape(other):
    assert_same_error(lambda lib: lib.diff(lib.ones(2, 3), 0, 0, lib.ones(other)), RuntimeError)


# ------------------------------------------------------------------ Tensor.to's forms

def _to_form(lib, form):
    x = lib.ones(1, 2, 1, 1, dtype=lib.float64, requires_grad=True)
    y = form(lib, x)
    (grad,) = lib.autograd.grad(y.sum(), x)
    return y is x, str(y.dtype).split(".")[-1], node_name(y.grad_fn), grad.tolist()


@pytest.mark.parametrize("form", [
    lambda lib, x: x.to(lib.float64, False, True),
    lambda lib, x: x.to(lib.float32, False, False),
    lambda lib, x: x.to(x, False, True),
    lambda lib, x: x.to(x, False, False),
    lambda lib, x: x.to(None, lib.float32),
])
def test_to_with_positional_non_blocking_and_copy(form):
    assert_same(lambda lib: _to_form(lib, form))
    check_op(lambda lib, x: form(lib, x), randn(1, 2, 1, 1))


@pytest.mark.cpu_only       # names the CPU
@pytest.mark.parametrize("form", [
    lambda lib, x: x.to("cpu", lib.float64, True, True),
    lambda lib, x: x.to("cpu", None, False, True),
    lambda lib, x: x.to("cpu", lib.float64, False, True, memory_format=lib.channels_last),
])
def test_to_device_with_positional_non_blocking_and_copy(form):
    assert_same(lambda lib: _to_form(lib, form))


@pytest.mark.parametrize("args,got", [(("float64", "cpu"), r"dtype, str"),
                                      (("float64", False, True, 1), r"dtype, bool, bool, int")])
def test_to_invalid_combinations(args, got):
    def run(lib):
        given = [getattr(lib, a) if a == "float64" else a for a in args]
        lib.ones(2).to(*given)
    assert_same_error(run, TypeError, r"^to\(\) received an invalid combination of arguments "
                      r"- got \((torch|autograd_cy)\." + got + r"\), but expected one of")
