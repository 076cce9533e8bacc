"""sort, argsort, msort, topk and kthvalue (autograd_cy/sorting.py) against torch's: values,
int64 indices, gradients and double backward (check_op), gradcheck and gradgradcheck in
float64, forward AD, the nodes (SortBackward0, TopkBackward0, KthvalueBackward0), the stable
order of equal entries in both directions, NaN's place, half precision, and torch's errors.

Values are distinct wherever the order of equal entries is not promised (``stable=False``),
except in the tests of which of equal entries torch's CPU topk and kthvalue pick (NOTE [The
order of equal entries in kthvalue and topk])."""
import numpy as np
import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_jvp, check_op, node_name, randn

CASES = {
    "sort": lambda lib, x: lib.sort(x),
    "sort_dim0": lambda lib, x: x.sort(0),
    "sort_descending": lambda lib, x: lib.sort(x, -1, True),
    "sort_keywords": lambda lib, x: x.sort(dim=1, descending=True, stable=True),
    "msort": lambda lib, x: lib.msort(x),
    "msort_method": lambda lib, x: x.msort(),
    "topk": lambda lib, x: lib.topk(x, 2),
    "topk_smallest": lambda lib, x: x.topk(3, dim=0, largest=False),
    "topk_all": lambda lib, x: x.topk(4),
    "topk_none": lambda lib, x: x.topk(0),
    "kthvalue": lambda lib, x: lib.kthvalue(x, 2),
    "kthvalue_keepdim": lambda lib, x: x.kthvalue(3, 0, keepdim=True),
    "kthvalue_negative_dim": lambda lib, x: x.kthvalue(1, -2),
}


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    check_op(CASES[name], randn(3, 4))


@pytest.mark.parametrize("name", CASES)
def test_forward_ad(name):
    check_jvp(CASES[name], randn(3, 4))


@pytest.mark.parametrize("name", ["sort_descending", "topk_smallest", "kthvalue", "msort"])
def test_gradcheck(name):
    x = ag.tensor(randn(3, 4), requires_grad=True)
    fn = CASES[name]
    assert ag.autograd.gradcheck(lambda t: fn(ag, t)[0] if name != "msort" else fn(ag, t),
                                 [x], check_forward_ad=True)
    assert ag.autograd.gradgradcheck(lambda t: fn(ag, t)[0] if name != "msort" else fn(ag, t),
                                     [x])


def test_scalars_and_three_dims():
    check_op(lambda lib, x: x.sort(), randn())
    check_op(lambda lib, x: x.topk(1), randn())
    check_op(lambda lib, x: x.kthvalue(1), randn())
    check_op(lambda lib, x: x.sort(1, descending=True), randn(2, 3, 4))
    check_op(lambda lib, x: x.topk(2, 1), randn(2, 3, 4))


def _name(dtype):
    return str(dtype).split(".")[-1]


def _tuples(results):
    """The named (values, indices) results as plain tuples, for assert_same."""
    return [tuple(result) if isinstance(result, tuple) else result for result in results]


def test_nodes_and_index_dtype():
    def run(lib):
        x = lib.tensor(randn(3, 4), requires_grad=True)
        outs = [x.sort(), x.topk(2), x.kthvalue(2), x.msort()]
        values = [out if isinstance(out, lib.Tensor) else out.values for out in outs]
        grad, = lib.autograd.grad(values[0], x, lib.ones_like(values[0]), create_graph=True)
        return ([node_name(v.grad_fn) for v in values] + [_name(outs[0].indices.dtype),
                 outs[1].indices.requires_grad, _name(lib.argsort(x).dtype),
                 lib.argsort(x).requires_grad, type(outs[0]).__name__,
                 outs[0][0] is outs[0].values, grad.requires_grad])
    assert_same(run)


def test_stable_order_of_equal_entries():
    values = np.array([[2.0, 1.0, 2.0, 0.0, 1.0, 2.0], [0.0, -0.0, 0.0, 3.0, 3.0, -0.0]])
    assert_same(lambda lib: _tuples([lib.tensor(values).sort(stable=True),
                             lib.tensor(values).sort(descending=True, stable=True),
                             lib.tensor(values).sort(dim=0, stable=True),
                             lib.argsort(lib.tensor(values), stable=True),
                             lib.argsort(lib.tensor(values), descending=True, stable=True)]))


def test_nan_and_infinities():
    values = np.array([1.0, np.nan, -np.inf, 3.0, np.inf, -2.0])
    assert_same(lambda lib: _tuples([lib.tensor(values).sort(),
                                     lib.tensor(values).sort(descending=True),
                                     lib.tensor(values).topk(2),
                                     lib.tensor(values).topk(2, largest=False)]))


def test_integers_booleans_and_half_precision():
    assert_same(lambda lib: _tuples([lib.tensor([3, -1, 2, 7]).sort(descending=True),
                             lib.tensor([True, False, True]).sort(stable=True),
                             lib.tensor([5, 1, 4]).topk(2), lib.tensor([5, 1, 4]).kthvalue(2),
                             lib.tensor([[5, 1], [0, 2]]).argsort(0)]))
    for dtype in ("float16", "bfloat16"):
        def run(lib):
            x = lib.tensor([0.5, -1.25, 3.0, 2.0], dtype=getattr(lib, dtype))
            ordered, top = x.sort(descending=True), x.topk(2)
            return [_name(ordered.values.dtype), ordered.values.float(), ordered.indices,
                    top.values.float(), top.indices]
        assert_same(run)


def test_empty():
    assert_same(lambda lib: _tuples([lib.zeros(0, 3).sort(0), lib.zeros(2, 0).topk(0),
                             lib.zeros(0).argsort()]))


def test_sorted_false_selects_the_same_entries():
    x = randn(3, 5)
    assert_same(lambda lib: lib.tensor(x).topk(3, sorted=False).values.sort().values)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.zeros(2, 3).sort(2),
    lambda lib: lib.zeros(2, 3).argsort(-3),
    lambda lib: lib.zeros(2, 3).topk(4),
    lambda lib: lib.zeros(2, 3).topk(-1),
    lambda lib: lib.zeros(2, 3).topk(1, 2),
    lambda lib: lib.zeros(2, 3).kthvalue(4),
    lambda lib: lib.zeros(2, 3).kthvalue(0, 0),
    lambda lib: lib.zeros(2, 3).kthvalue(1, 5),
    lambda lib: lib.zeros(2, 0).kthvalue(3, 1),       # the empty dim before k
    lambda lib: lib.zeros(0, 3).kthvalue(1, 0),
    lambda lib: lib.zeros(2, 0).kthvalue(0, 0),
])
def test_errors(fn):
    assert_same_error(fn)


@pytest.mark.parametrize("descending", [False, True])
def test_bfloat16_nan_sorts_as_the_largest(descending):
    """bfloat16 NaN sorts as the largest value, as torch's (and as float16/float32 do here):
    NumPy's sort of ml_dtypes' bfloat16 left it in place (fuzz seed 963000566)."""
    def fn(lib):
        x = lib.tensor([0.0, -0.98, float("nan"), 1.0, -float("inf")], dtype=lib.bfloat16)
        values, indices = x.sort(descending=descending, stable=True)
        return [values.float(), indices, x.argsort(descending=descending, stable=True),
                x.msort().float()]
    assert_same(fn)


# ------------------------------------------------------------------ equal entries

TIES = {
    # NaNs of a negative base to a fractional power (fuzz seed 986001793)
    "kthvalue_nan": (lambda lib, x: x.kthvalue(1, 2),
                     [[[0.16, np.inf, 1.0], [0.675, np.nan, np.nan], [1.21, 4.43, 0.203]],
                      [[0.529, 0.327, 16.0], [0.776, 0.648, 1.087], [np.nan, np.nan, np.nan]]]),
    # infinities of x / 0 (fuzz seed 986000161)
    "topk_inf": (lambda lib, x: x.topk(1, dim=-3),
                 [[[-0.4], [-np.inf], [-0.4], [10.0]], [[1.6], [np.inf], [-0.8], [1.0]],
                  [[-2.3], [np.inf], [1.2], [11.5]], [[0.1], [np.inf], [2.3], [-10.0]]]),
    # equal sums (fuzz seed 985000016)
    "topk_equal": (lambda lib, x: x.topk(2), [0.005859375, 0.001953125, 0.001953125,
                                              0.001953125]),
    "kthvalue_zeros": (lambda lib, x: x.kthvalue(3, 1),
                       [[0.0, -0.0, 0.0, 1.0, 2.0, 2.0], [0.0, np.inf, -0.0, np.inf, 0.0, -0.0]]),
    # the insertion sort of the k - 1 first (k > 17) and the heap (64 k <= n)
    "topk_long": (lambda lib, x: x.topk(20, largest=False), np.arange(40) % 3),
    "topk_heap": (lambda lib, x: x.topk(2), np.arange(130) % 4),
}


@pytest.mark.cpu_only     # torch's CPU kernel's choice; ours on the CPU
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("name", TIES)
def test_equal_entries_pick_torchs_index(name, dtype):
    """Of equal entries (NaNs, infinities, zeros of either sign), torch's quickselect
    (kthvalue) and its nth_element/sort/partial_sort (topk) pick one by their swaps, not the
    first: the index, the value's sign and where the gradient goes are torch's."""
    fn, data = TIES[name]

    def run(lib):
        x = lib.tensor(np.asarray(data, dtype=np.float32)).to(getattr(lib, dtype))
        x.requires_grad_()
        values, indices = fn(lib, x)
        values.backward(lib.ones_like(values))
        return [indices, values.float(), lib.signbit(values) & ~values.isnan(), x.grad.float()]
    assert_same(run)
