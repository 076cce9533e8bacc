"""Pointwise, comparison and logical ops against PyTorch.

Every differentiable op goes through ``check_op`` (values, gradients and double
backward vs torch) in float32 and float64, from op tables below: inputs are
drawn inside each op's domain and away from its kinks. Then come the cases a
table cannot hold: ties and bounds, integer and bool dtypes, in-place variants,
errors, and a finite-difference check that needs no torch at all. (The docstring
examples run in test_doctests.)
"""
import math
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import LIBS, assert_close, assert_same, assert_same_error, check_op, randn, to_numpy

DTYPES = [np.float32, np.float64]


# ------------------------------------------------------------------ inputs

def anywhere(*shape, seed=0):
    return randn(*shape, seed=seed)


def positive(*shape, seed=0):
    return randn(*shape, seed=seed, positive=True)


def inside_unit(*shape, seed=0):
    """Inside (-1, 1), away from its ends (asin, acos, atanh's domain)."""
    return np.random.default_rng(seed).uniform(-0.9, 0.9, shape)


def above_one(*shape, seed=0):
    """Above 1, away from it (acosh's domain)."""
    return 1.1 + positive(*shape, seed=seed)


def moderate(*shape, seed=0):
    """Inside (-1.2, 1.2): away from tan's poles at +-pi/2."""
    return np.random.default_rng(seed).uniform(-1.2, 1.2, shape)


def away_from_zero(*shape, seed=0, gap=0.1):
    """Normal samples pushed at least ``gap`` away from 0 (kinks of relu, abs, sign)."""
    x = randn(*shape, seed=seed)
    return np.where(x >= 0, x + gap, x - gap)


def away_from(x, points, gap=0.05):
    """``x`` with every element within ``gap`` of one of ``points`` moved ``2 * gap`` off."""
    x = x.copy()
    for p in points:
        near = np.abs(x - p) < gap
        x = np.where(near, p + 2 * gap, x)
    return x


def check_forward(fn, *arrays):
    """Forward-only comparison (ops with non-differentiable outputs), inputs requiring grad
    where floating: the results must not require grad."""
    arrays = [np.asarray(a) if isinstance(a, np.generic) else a for a in arrays]
    ours = [ag.tensor(a, requires_grad=a.dtype.kind == "f") if isinstance(a, np.ndarray)
            else a for a in arrays]
    theirs = [torch.tensor(a, requires_grad=a.dtype.kind == "f") if isinstance(a, np.ndarray)
              else a for a in arrays]
    result, expected = fn(ag, *ours), fn(torch, *theirs)
    if isinstance(expected, torch.Tensor):
        assert not result.requires_grad and result.grad_fn is None
    if isinstance(expected, bool):
        assert type(result) is bool and result == expected
    else:
        assert_close(result, expected)


# ------------------------------------------------------------------ unary ops

# name -> input generator (domain and kinks); every op has a function and a method form.
UNARY = {
    "exp": anywhere,
    "expm1": anywhere,
    "log": positive,
    "log2": positive,
    "log10": positive,
    "exp2": anywhere,
    "log1p": positive,
    "erf": anywhere,
    "erfc": anywhere,
    "erfinv": inside_unit,
    "sqrt": positive,
    "rsqrt": positive,
    "sin": anywhere,
    "cos": anywhere,
    "tanh": anywhere,
    "sigmoid": anywhere,
    "relu": away_from_zero,
    "abs": away_from_zero,
    "sign": away_from_zero,
    "sgn": away_from_zero,
    "angle": away_from_zero,
    "reciprocal": away_from_zero,
    "square": anywhere,
    "tan": moderate,
    "asin": inside_unit,
    "acos": inside_unit,
    "atan": anywhere,
    "sinh": anywhere,
    "cosh": anywhere,
    "asinh": anywhere,
    "acosh": above_one,
    "atanh": inside_unit,
}

# torch returns abs's second derivative as a ZeroTensor, which the oracle cannot read:
# these ops compare first order with torch and check their zero second order here.
ZERO_SECOND_ORDER = {"abs", "abs_"}

FORMS = {
    "function": lambda name: lambda lib, x: getattr(lib, name)(x),
    "method": lambda name: lambda lib, x: getattr(x, name)(),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", UNARY)
def test_unary(name, form, dtype):
    check_op(FORMS[form](name), UNARY[name](3, 4), dtype=dtype,
             double=name not in ZERO_SECOND_ORDER)


def test_abs_second_derivative_is_zero():
    x = ag.tensor(away_from_zero(3, 4), requires_grad=True)
    (grad,) = ag.autograd.grad(x.abs(), x, ag.ones(3, 4), create_graph=True)
    (second,) = ag.autograd.grad(grad.sum(), x, allow_unused=True)
    assert second is None or not to_numpy(second).any()


@pytest.mark.parametrize("name", UNARY)
def test_unary_0d_and_empty(name):
    double = name not in ZERO_SECOND_ORDER
    check_op(FORMS["function"](name), np.asarray(UNARY[name]()), double=double)
    check_op(FORMS["function"](name), np.zeros((0, 3)), double=double)


@pytest.mark.parametrize("name", UNARY)
def test_unary_composed_twice(name):
    # The op applied to its own output: its node's saved tensor has a grad_fn.
    x = UNARY[name](5)
    if name in ("log", "log2", "log1p", "sqrt", "rsqrt"):
        fn = lambda lib, x: getattr(lib, name)(getattr(lib, name)(x + 2))  # noqa: E731
    else:
        fn = lambda lib, x: getattr(lib, name)(getattr(lib, name)(x))  # noqa: E731
    check_op(fn, x, double=name not in ZERO_SECOND_ORDER)


# ------------------------------------------------------------------ clamp

# (min, max) as numbers
CLAMP_NUMBER_BOUNDS = [(-0.5, 0.5), (-0.5, None), (None, 0.5), (0.8, -0.8), (0, 1)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bounds", CLAMP_NUMBER_BOUNDS)
@pytest.mark.parametrize("name", ["clamp", "clip"])
def test_clamp_number_bounds(name, bounds, dtype):
    low, high = bounds
    x = away_from(anywhere(4, 5), [b for b in bounds if b is not None])
    check_op(lambda lib, x: getattr(lib, name)(x, low, high), x, dtype=dtype)
    check_op(lambda lib, x: getattr(x, name)(min=low, max=high), x, dtype=dtype)


# (x shape, min shape or None, max shape or None)
CLAMP_TENSOR_SHAPES = [
    ((3, 4), (3, 4), (3, 4)),
    ((3, 4), (4,), None),
    ((3, 4), None, (3, 1)),
    ((2, 3, 4), (3, 1), (4,)),
    ((3, 4), (), (4,)),
]
# A self smaller than the broadcast shape breaks torch's own ClampBackward0 ("output with
# shape [4] doesn't match the broadcast shape [3, 4]"); finite differences check ours below.


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", CLAMP_TENSOR_SHAPES)
def test_clamp_tensor_bounds(shapes, dtype):
    x_shape, low_shape, high_shape = shapes
    for seed in range(0, 300, 3):  # the first draw with x away from both bounds
        arrays = [randn(*x_shape, seed=seed)]
        if low_shape is not None:
            arrays.append(np.asarray(randn(*low_shape, seed=seed + 1) - 0.5))
        if high_shape is not None:
            arrays.append(np.asarray(randn(*high_shape, seed=seed + 2) + 0.5))
        if all(np.abs(arrays[0] - bound).min() > 0.02 for bound in arrays[1:]):
            break

    def fn(lib, x, *bounds):
        bounds = list(bounds)
        low = bounds.pop(0) if low_shape is not None else None
        high = bounds.pop(0) if high_shape is not None else None
        return lib.clamp(x, min=low, max=high)
    check_op(fn, *arrays, dtype=dtype)


def test_clamp_at_the_bounds():
    # x equal to a bound passes the gradient to x (PyTorch's subgradient choice).
    x = np.array([-1.0, 0.0, 0.25, 1.0, 2.0])
    check_op(lambda lib, x: lib.clamp(x, 0.0, 1.0), x)
    check_op(lambda lib, x: lib.clamp(x, min=0.0), x)
    check_op(lambda lib, x: lib.clamp(x, max=1.0), x)
    check_op(lambda lib, x, lo, hi: lib.clamp(x, lo, hi), x, np.zeros(5), np.ones(5))
    check_op(lambda lib, x, lo: lib.clamp(x, min=lo), x, np.zeros(5))
    check_op(lambda lib, x, hi: lib.clamp(x, max=hi), x, np.ones(5))


@pytest.mark.parametrize("call", [
    # a complex tensor bound of a real tensor: the promoted dtype's kernel refuses it
    lambda lib, x, c: x.clamp(min=c), lambda lib, x, c: x.clamp(max=c),
    lambda lib, x, c: x.clamp(x, c),
    # a complex number: it cannot become a double (unless it is real)
    lambda lib, x, c: x.clamp(max=1j), lambda lib, x, c: x.clone().clamp_(0.5, 1j),
    # clamp_: a complex self is refused before an expand's overlap (fuzz seed 985002857),
    # a real self's cast to complex after it and before the kernel
    lambda lib, x, c: c[:1].expand(2, 2).clamp_(min=0.5),
    lambda lib, x, c: x.clone().clamp_(max=c), lambda lib, x, c: x[:1].expand(2, 2).clamp_(c),
])
def test_clamp_of_complex_operands(call):
    assert_same_error(lambda lib: call(lib, lib.ones(2), lib.ones(2, dtype=lib.complex64)),
                      exact=True)


def test_clamp_by_a_real_complex_number():
    assert_same(lambda lib: lib.tensor([0.25, 2.0]).clamp(min=0.5 + 0j))


def test_clamp_min_above_max():
    # The output is max everywhere: max gets the whole gradient, min and x none.
    x = np.array([-1.0, 0.5, 3.0])
    check_op(lambda lib, x, lo, hi: lib.clamp(x, lo, hi), x, np.full(3, 2.0), np.full(3, 1.0))
    check_op(lambda lib, x, lo, hi: lib.clamp(x, lo, hi), x, np.ones(3), np.ones(3))


def test_clamp_only_some_inputs_require_grad():
    x, lo, hi = anywhere(3, 4), np.full(4, -0.4), np.full((3, 1), 0.6)
    x = away_from(x, [-0.4, 0.6])
    fn = lambda lib, x, lo, hi: lib.clamp(x, lo, hi)  # noqa: E731
    check_op(fn, x, lo, hi, requires_grad=[False, True, True])
    check_op(fn, x, lo, hi, requires_grad=[True, False, True])
    check_op(fn, x, lo, hi, requires_grad=[False, False, True])


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.clamp(x),
    lambda lib, x: lib.clamp(x, None, None),
    lambda lib, x: x.clamp(),
])
def test_clamp_without_bounds_is_an_error(call):
    x = np.zeros(3)
    assert_same_error(lambda lib: call(lib, lib.tensor(x)))


def test_clamp_mixed_bounds_is_a_type_error():
    assert_same_error(lambda lib: lib.clamp(lib.zeros(3), lib.zeros(3), 1.0),
                      "received an invalid combination of arguments")


# ------------------------------------------------------------------ maximum, minimum

BINARY_SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (3,)), ((5,), ())]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", BINARY_SHAPES)
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum(name, shapes, dtype):
    a, b = randn(*shapes[0], seed=4), randn(*shapes[1], seed=5)
    check_op(lambda lib, a, b: getattr(lib, name)(a, b), a, b, dtype=dtype)
    check_op(lambda lib, a, b: getattr(a, name)(b), a, b, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_ties_split_the_gradient(name, dtype):
    a = np.array([1.0, 2.0, 3.0, -4.0, 0.0])
    b = np.array([1.0, 0.0, 3.0, 5.0, 0.0])
    check_op(lambda lib, a, b: getattr(lib, name)(a, b), a, b, dtype=dtype)
    # A tie against a broadcast operand: the halves are summed back into it.
    check_op(lambda lib, a, b: getattr(lib, name)(a, b), a, np.array(1.0), dtype=dtype)
    # The same tensor on both sides: halves add up to the whole gradient.
    check_op(lambda lib, a: getattr(lib, name)(a, a), a, dtype=dtype)


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_one_side_requires_grad(name):
    a, b = randn(3, 4, seed=6), randn(4, seed=7)
    for flags in ([True, False], [False, True]):
        check_op(lambda lib, a, b: getattr(lib, name)(a, b), a, b, requires_grad=flags)


# ------------------------------------------------------------------ where

# (condition shape, input shape, other shape); None is a Python number
WHERE_SHAPES = [
    ((3, 4), (3, 4), (3, 4)),
    ((3, 4), (4,), (3, 1)),
    ((4,), (3, 4), ()),
    ((2, 1, 4), (3, 1), (4,)),
    ((3, 4), (3, 4), None),
    ((3, 4), None, (4,)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", WHERE_SHAPES)
def test_where(shapes, dtype):
    condition = randn(*shapes[0], seed=8) > 0
    arrays = [condition]
    operands = []
    for seed, shape in ((9, shapes[1]), (10, shapes[2])):
        if shape is None:
            operands.append(None)
        else:
            operands.append(len(arrays))
            arrays.append(randn(*shape, seed=seed))

    def fn(lib, condition, *tensors):
        input, other = [2.5 if i is None else tensors[i - 1] for i in operands]
        return lib.where(condition, input, other)
    check_op(fn, *arrays, dtype=dtype)


def test_where_node_has_one_edge_per_value_operand():
    x = ag.tensor([1.0, -1.0], requires_grad=True)
    out = ag.where(x > 0, x, 0.0)
    expected = torch.where(torch.tensor([1.0, -1.0]) > 0, torch.ones(2, requires_grad=True), 0.0)
    assert len(out.grad_fn.next_functions) == len(expected.grad_fn.next_functions) == 2
    assert out.grad_fn.next_functions[1] == (None, 0)


@pytest.mark.parametrize("input, other", [
    (1.0, 0.0), (1, 0), (True, False), (1, 0.5), ("int32", 2.5), ("int32", 3),
    ("float64", 1.0), ("0d_float64", "float32"), ("int64", "float32"),
])
def test_where_type_promotion(input, other):
    arrays = {"int32": np.array([1, 2, 3], dtype=np.int32),
              "int64": np.array([1, 2, 3]),
              "float32": np.array([0.5, 1.5, 2.5], dtype=np.float32),
              "float64": np.array([0.5, 1.5, 2.5]),
              "0d_float64": np.array(7.0)}
    condition = np.array([True, False, True])

    def fn(lib, condition):
        def operand(value):
            if isinstance(value, str):
                return lib.tensor(arrays[value])
            return value
        return lib.where(condition, operand(input), operand(other))
    check_forward(fn, condition)


def test_where_condition_only_is_nonzero():
    condition = np.array([[True, False], [False, True]])
    check_forward(lambda lib, c: lib.where(c), condition)


# ------------------------------------------------------------------ node names, saved tensors

NODE_CASES = {
    **{name: (lambda name: lambda lib, x, t: getattr(lib, name)(x))(name) for name in UNARY},
    "clamp_numbers": lambda lib, x, t: lib.clamp(x, -0.5, 0.5),
    "clamp_min_number": lambda lib, x, t: lib.clamp(x, min=-0.5),
    "clamp_tensors": lambda lib, x, t: lib.clamp(x, t, None),
    "clip": lambda lib, x, t: lib.clip(x, -0.5, 0.5),
    "maximum": lambda lib, x, t: lib.maximum(x, t),
    "minimum": lambda lib, x, t: lib.minimum(x, t),
    "where": lambda lib, x, t: lib.where(x > 0, x, t),
}


@pytest.mark.parametrize("case", NODE_CASES)
def test_node_name_and_saved_tensors(case):
    x_array, t_array = positive(3, seed=11), anywhere(3, seed=12)
    x, t = ag.tensor(x_array, requires_grad=True), ag.tensor(t_array, requires_grad=True)
    tx = torch.tensor(x_array, requires_grad=True)
    tt = torch.tensor(t_array, requires_grad=True)
    ours, theirs = NODE_CASES[case](ag, x, t).grad_fn, NODE_CASES[case](torch, tx, tt).grad_fn
    assert ours.name() == theirs.name()
    assert len(ours.next_functions) == len(theirs.next_functions)
    for attribute in dir(theirs):
        if attribute.startswith("_saved_"):
            expected = getattr(theirs, attribute)
            value = getattr(ours, attribute)
            if isinstance(expected, torch.Tensor) and expected.dtype == torch.bool:
                assert value.dtype == ag.bool
                assert np.array_equal(to_numpy(value), to_numpy(expected)), attribute
            elif isinstance(expected, torch.Tensor):
                assert_close(value, expected, what=attribute)
            else:
                assert value == expected, attribute


def test_saved_result_is_the_output():
    x = ag.tensor([0.5, 1.5], requires_grad=True)
    y = x.exp()
    saved = y.grad_fn._saved_result
    assert saved.grad_fn is y.grad_fn
    assert np.array_equal(to_numpy(saved), to_numpy(y))


# ------------------------------------------------------------------ integer and bool dtypes

INT_INPUTS = {
    "int64": np.array([-2, 0, 3]),
    "int32": np.array([-2, 0, 3], dtype=np.int32),
    "bool": np.array([True, False, True]),
}


@pytest.mark.parametrize("kind", INT_INPUTS)
@pytest.mark.parametrize("name", list(UNARY) + ["isnan", "isinf", "isfinite", "logical_not"])
def test_integer_and_bool_inputs(name, kind):
    """Floating functions compute in float32; abs, sign, relu, square keep integers."""
    fn = lambda lib, x: getattr(lib, name)(x)  # noqa: E731
    array = INT_INPUTS[kind]
    try:
        fn(torch, torch.tensor(array))
    except Exception:
        assert_same_error(lambda lib: fn(lib, lib.tensor(array)))
        return
    check_op(fn, array, dtype=np.float32)  # float32 tolerances: results are float32


@pytest.mark.parametrize("call", [
    lambda lib, i: lib.clamp(i, 0, 2),
    lambda lib, i: lib.clamp(i, 0.5),
    lambda lib, i: lib.clamp(i, max=lib.tensor(1.5)),
    lambda lib, i: lib.clamp(i, lib.tensor([0, 1, 0]), lib.tensor(2)),
    lambda lib, i: lib.clamp(i > 0, 0, 1),
    lambda lib, i: lib.maximum(i, lib.tensor(1.5)),
    lambda lib, i: lib.minimum(i, lib.tensor([1, 1, 1], dtype=lib.int32)),
    lambda lib, i: lib.maximum(i > 0, i < 3),
    lambda lib, i: lib.where(i > 0, i, 2.5),
    lambda lib, i: lib.where(i > 0, i, 7),
    lambda lib, i: lib.relu(i),
    lambda lib, i: -i,
    lambda lib, i: i.square(),
])
def test_integer_results(call):
    check_forward(call, np.array([-2, 0, 3]))


def test_float_promotion_with_mixed_operands():
    check_op(lambda lib, x, i: lib.maximum(x, i), randn(3), np.array([-1, 0, 1]))
    # float64 with float32 gives float64; a 0-dim float64 bound does not widen float32.
    check_op(lambda lib, x, y: lib.minimum(x, y.float()), randn(3), randn(3, seed=1),
             dtype=np.float64)
    check_op(lambda lib, x, lo: lib.clamp(x, min=lo.double()), randn(3), np.array(0.1),
             dtype=np.float32)
    check_op(lambda lib, c, x, y: lib.where(c, x, y.float()), np.array([True, False, True]),
             randn(3), randn(3, seed=1), dtype=np.float64)
    check_op(lambda lib, x, lo, hi: lib.clamp(x, lo.double(), hi),
             away_from(randn(4), [-0.2, 0.3]), np.full(4, -0.2), np.full(4, 0.3),
             dtype=np.float32)


# ------------------------------------------------------------------ special values

def test_nan_and_inf_follow_torch():
    x = np.array([math.nan, math.inf, -math.inf, 0.0, -0.0, 2.0])
    for name in UNARY:
        check_op(lambda lib, x: getattr(lib, name)(x), x, double=False)
    # Gradients at NaN: relu passes, clamp and abs block, maximum gives both sides all of it.
    check_op(lambda lib, x: lib.relu(x), np.array([math.nan, 1.0, -1.0]), double=False)
    check_op(lambda lib, x: lib.abs(x), np.array([math.nan, 1.0, -1.0]), double=False)
    check_op(lambda lib, x: lib.clamp(x, 0, 2), np.array([math.nan, 1.0, 3.0]), double=False)
    check_op(lambda lib, a, b: lib.maximum(a, b), np.array([math.nan, 1.0, 2.0]),
             np.array([0.0, math.nan, 2.0]), double=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_relu_backward_special_gradients(dtype):
    # ReluBackward0 is PyTorch's threshold_backward, ``where(result <= 0, 0, grad)``: an
    # infinite or NaN gradient is zeroed where the result is <= 0 (no inf * 0 = nan) and
    # passed where the result is positive or NaN. Checked on the typed loop (contiguous
    # grad) and on the NumPy path (a transposed, non-contiguous grad).
    x = np.array([[math.nan, 1.0, -1.0, 0.0], [-0.0, 2.0, 3.0, -3.0]])
    grad = np.array([[math.inf, math.inf, math.inf, math.nan],
                     [math.nan, math.nan, -math.inf, 1.0]])
    for layout in (lambda a: a, lambda a: np.ascontiguousarray(a.T).T):
        grads = {}
        for lib in LIBS:
            leaf = lib.tensor(x.astype(dtype), requires_grad=True)
            leaf.relu().backward(lib.tensor(layout(grad.astype(dtype))))
            grads[lib] = leaf.grad
        assert_close(grads[ag], grads[torch], what="relu gradient")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", [6, 5000], ids=["fused loop", "numpy"])
@pytest.mark.parametrize("op", [
    lambda x: x * 2.5, lambda x: 2.5 * x, lambda x: x + 0.1, lambda x: 0.1 + x,
    lambda x: x - 0.1, lambda x: x * 1e300, lambda x: x + 3.5e38, lambda x: x * -0.0,
    lambda x: x * math.nan, lambda x: x - math.inf,
], ids=["mul", "rmul", "add", "radd", "sub", "mul overflow", "add overflow", "mul -0.0",
        "mul nan", "sub inf"])
def test_tensor_and_python_float(op, size, dtype):
    # A float tensor and a Python float: the number takes the tensor's dtype (float32 may
    # round it, or overflow to inf, silently as in torch), on both the fused loop for small
    # arrays and NumPy's path; the gradient is torch's too.
    base = np.array([1.5, -2.0, 0.0, -0.0, 3e38, math.nan])
    x = np.resize(base, size)
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        check_op(lambda lib, x: op(x), x, dtype=dtype, double=False, requires_grad=[False])
    check_op(lambda lib, x: op(x), np.resize(base[:3], size), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", [6, 5000], ids=["fused loop", "numpy"])
@pytest.mark.parametrize("op", [
    lambda e, x: e * x, lambda e, x: x * e, lambda e, x: e + x, lambda e, x: x + e,
    lambda e, x: x - e, lambda e, x: e - x,
], ids=["expanded * x", "x * expanded", "expanded + x", "x + expanded", "x - expanded",
        "expanded - x"])
def test_expanded_scalar_operand(op, size, dtype):
    # One value expanded to a shape (every stride 0, what sum's and mean's gradients are)
    # meets a tensor: the fused loop takes it as a scalar (NOTE [Fused kernels]); the bits
    # are torch's, on both paths, with special values among the other operand's elements.
    x = np.resize(np.array([1.5, -2.0, 0.0, -0.0, 3e38, math.nan]), size).astype(dtype)
    results = {}
    for lib in LIBS:
        expanded = lib.tensor(np.array(-1.25, dtype=dtype)).expand(size)
        results[lib] = to_numpy(op(expanded, lib.tensor(x)))
    np.testing.assert_array_equal(results[ag], results[torch])
    assert results[ag].dtype == results[torch].dtype


BROADCASTS = [((8, 32), (32,)), ((8, 32), (1, 32)), ((8, 32), (8, 1)), ((2, 3, 4), (3, 4)),
              ((2, 3, 4), (2, 1, 1)), ((2, 3, 4), (2, 3, 1)), ((2, 3, 4), ()),
              ((4, 1, 3), (4, 1, 1)), ((2, 3, 4), (2, 1, 4)), ((3, 1), (1, 4))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
@pytest.mark.parametrize("small_first", [False, True], ids=["big op small", "small op big"])
@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_broadcast_operand(op, small_first, shapes, dtype):
    # A row (a bias) or a column (a keepdim reduction) broadcast against a tensor: the fused
    # loop takes the first eight pairs of shapes, NumPy the last two (NOTE [Fused kernels]);
    # the bits are torch's either way, with special values among the elements, and so is the
    # gradient (the row's or column's sum of it).
    rng = np.random.default_rng(7)
    big, small = (rng.standard_normal(shape).astype(dtype) * 100 for shape in shapes)
    big.flat[:4] = [-0.0, math.inf, math.nan, 0.0]
    operands = (small, big) if small_first else (big, small)
    results = {}
    for lib in LIBS:
        x, y = (lib.tensor(array) for array in operands)
        results[lib] = to_numpy(getattr(lib, op)(x, y))
    np.testing.assert_array_equal(results[ag], results[torch])
    assert results[ag].dtype == results[torch].dtype
    finite = [np.nan_to_num(operand, posinf=1.0) / 100 for operand in operands]
    check_op(lambda lib, x, y: getattr(lib, op)(x, y), *finite, dtype=dtype)


def test_sum_gradient_meets_a_product():
    # sum's gradient is expanded; the product in MulBackward0 takes the scalar loop.
    x = randn(16, seed=3).astype(np.float32)
    c = randn(16, seed=4).astype(np.float32)
    grads = {}
    for lib in LIBS:
        leaf = lib.tensor(x, requires_grad=True)
        (leaf * lib.tensor(c)).sum().backward()
        grads[lib] = to_numpy(leaf.grad)
    np.testing.assert_array_equal(grads[ag], grads[torch])


def test_no_numpy_floating_point_warnings():
    x = ag.tensor([-1.0, 0.0, 1e30, -1e30])
    with np.errstate(all="raise"):
        for name in UNARY:
            if name != "square":  # pow, from arithmetic
                getattr(ag, name)(x)


# ------------------------------------------------------------------ in-place variants

# name -> input generator; the out-of-place op is the name without "_".
INPLACE = {
    "exp_": anywhere, "expm1_": anywhere, "log_": positive, "log2_": positive,
    "log1p_": positive, "log10_": positive, "exp2_": anywhere, "erf_": anywhere,
    "erfc_": anywhere, "erfinv_": inside_unit,
    "sqrt_": positive, "rsqrt_": positive, "sin_": anywhere, "cos_": anywhere,
    "tanh_": anywhere, "sigmoid_": anywhere, "relu_": away_from_zero, "abs_": away_from_zero,
    "sign_": away_from_zero, "reciprocal_": away_from_zero, "square_": anywhere,
}
INPLACE_WITH_ARGS = {
    "clamp_": (lambda x: x.clamp_(-0.5, 0.5)),
    "clip_": (lambda x: x.clip_(min=-0.5)),
    **{name: (lambda name: lambda x: getattr(x, name)())(name) for name in INPLACE},
}


def inplace_input(name):
    return INPLACE.get(name, lambda *s: away_from(anywhere(*s), [-0.5, 0.5]))(3, 4)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", INPLACE_WITH_ARGS)
def test_inplace_on_non_leaf(name, dtype):
    def fn(lib, x):
        y = x * 1.0
        result = INPLACE_WITH_ARGS[name](y)
        assert result is y
        return y
    check_op(fn, inplace_input(name), dtype=dtype, double=name not in ZERO_SECOND_ORDER)


@pytest.mark.parametrize("name", INPLACE_WITH_ARGS)
def test_inplace_node_and_version(name):
    x = ag.tensor(inplace_input(name), requires_grad=True)
    tx = torch.tensor(inplace_input(name), requires_grad=True)
    y, ty = x * 1.0, tx * 1.0
    INPLACE_WITH_ARGS[name](y)
    INPLACE_WITH_ARGS[name](ty)
    assert y.grad_fn.name() == ty.grad_fn.name()
    assert y._version == ty._version == 1


@pytest.mark.parametrize("name", INPLACE_WITH_ARGS)
def test_inplace_on_a_view_of_a_non_leaf(name):
    def fn(lib, x):
        y = x * 1.0
        INPLACE_WITH_ARGS[name](y.transpose(0, 1))
        return y
    check_op(fn, inplace_input(name))


@pytest.mark.parametrize("name", INPLACE_WITH_ARGS)
def test_inplace_on_leaf_requiring_grad_is_an_error(name):
    array = inplace_input(name)
    assert_same_error(lambda lib: INPLACE_WITH_ARGS[name](lib.tensor(array, requires_grad=True)))


@pytest.mark.parametrize("name", INPLACE_WITH_ARGS)
def test_inplace_on_leaf_without_grad(name):
    def fn(lib, x):
        y = x.detach().clone()
        INPLACE_WITH_ARGS[name](y)
        return y
    check_forward(fn, inplace_input(name))


@pytest.mark.parametrize("name", ["exp_", "sigmoid_", "tanh_", "relu_", "sqrt_"])
def test_inplace_result_modified_again_is_caught(name):
    # The node saved self as its result: changing self again fails at backward, as in torch.
    def fn(lib):
        x = lib.tensor(positive(3), requires_grad=True)
        y = x * 1.0
        INPLACE_WITH_ARGS[name](y)
        y.mul_(2)
        y.sum().backward()
    assert_same_error(fn, "modified by an inplace operation")


def test_inplace_under_no_grad_leaves_history_alone():
    x = ag.tensor([0.5, 1.0], requires_grad=True)
    tx = torch.tensor([0.5, 1.0], requires_grad=True)
    y, ty = x.exp(), tx.exp()
    with ag.no_grad():
        y.tanh_()
    with torch.no_grad():
        ty.tanh_()
    assert y.grad_fn.name() == ty.grad_fn.name() == "ExpBackward0"
    assert_same_error(lambda lib: (y if lib is ag else ty).sum().backward(),
                      "modified by an inplace operation")


def test_inplace_clamp_with_tensor_bounds():
    def fn(lib, x, lo, hi):
        y = x * 1.0
        y.clamp_(lo, hi)
        return y
    x = away_from(anywhere(3, 4), [-0.3, 0.4])
    check_op(fn, x, np.full(4, -0.3), np.full((3, 1), 0.4))


def test_inplace_on_int_tensor_needing_float_is_an_error():
    assert_same_error(lambda lib: lib.tensor([1, 2]).exp_())
    assert_same_error(lambda lib: lib.tensor([1, 2]).clamp_(0.5),
                      "result type Float can't be cast to the desired output type")


def test_inplace_int_ops_keep_int():
    def fn(lib, i):
        i = i.clone()
        i.abs_()
        i.relu_()
        i.clamp_(0, 2)
        return i
    check_forward(fn, np.array([-3, 1, 5]))


# ------------------------------------------------------------------ comparison

COMPARISONS = ["eq", "ne", "lt", "le", "gt", "ge",
               "greater", "greater_equal", "less", "less_equal", "not_equal"]
OPERATORS = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}


def ties(*shape, seed=0):
    """Values on a coarse grid, so that comparisons meet equal elements."""
    return np.round(randn(*shape, seed=seed) * 2) / 2


@pytest.mark.parametrize("shapes", BINARY_SHAPES)
@pytest.mark.parametrize("name", COMPARISONS)
def test_comparison_tensors(name, shapes):
    a, b = ties(*shapes[0], seed=13), ties(*shapes[1], seed=14)
    check_forward(lambda lib, a, b: getattr(lib, name)(a, b), a, b)
    check_forward(lambda lib, a, b: getattr(a, name)(b), a, b)


@pytest.mark.parametrize("other", [0.5, 0, -1, True, 2.0, math.nan, math.inf])
@pytest.mark.parametrize("name", COMPARISONS)
def test_comparison_with_number(name, other):
    for array in (ties(3, 4), np.array([-2, 0, 1, 3]), np.array([True, False])):
        check_forward(lambda lib, a: getattr(lib, name)(a, other), array)


@pytest.mark.parametrize("symbol", OPERATORS)
def test_comparison_operators(symbol):
    a, b = ties(3, 4, seed=15), ties(4, seed=16)
    compare = eval(f"lambda a, b: a {symbol} b")
    check_forward(lambda lib, a, b: compare(a, b), a, b)
    check_forward(lambda lib, a: compare(a, 0.5), a)
    check_forward(lambda lib, a: compare(0.5, a), a)


def test_comparison_mixed_dtypes():
    i, f = np.array([1, 2, 3]), np.array([1.0, 2.5, 3.0], dtype=np.float32)
    check_forward(lambda lib, i, f: lib.eq(i, f), i, f)
    check_forward(lambda lib, i: lib.lt(i, 2.5), i)
    check_forward(lambda lib, i: lib.ge(i, True), i)
    check_forward(lambda lib, b, i: lib.eq(b, i), np.array([True, False, True]), i)


def test_comparison_errors():
    assert_same_error(lambda lib: lib.lt(lib.zeros(3), lib.zeros(2)))
    assert_same_error(lambda lib: lib.eq(lib.zeros(2, 3), lib.zeros(3, 4)))
    assert_same_error(lambda lib: lib.eq(lib.zeros(3), None),
                      "received an invalid combination of arguments")


# ------------------------------------------------------------------ logical

LOGICAL = ["logical_and", "logical_or", "logical_xor"]
LOGICAL_INPUTS = {
    "bool": lambda *s: randn(*s, seed=17) > 0,
    "float": lambda *s: np.where(randn(*s, seed=18) > 0, randn(*s, seed=19), 0.0),
    "int": lambda *s: (randn(*s, seed=20) > 0).astype(np.int64) * 3,
}


@pytest.mark.parametrize("kinds", [("bool", "bool"), ("float", "int"), ("int", "bool")])
@pytest.mark.parametrize("shapes", BINARY_SHAPES)
@pytest.mark.parametrize("name", LOGICAL)
def test_logical(name, shapes, kinds):
    a = LOGICAL_INPUTS[kinds[0]](*shapes[0])
    b = LOGICAL_INPUTS[kinds[1]](*shapes[1])
    check_forward(lambda lib, a, b: getattr(lib, name)(a, b), a, b)
    check_forward(lambda lib, a, b: getattr(a, name)(b), a, b)


@pytest.mark.parametrize("kind", LOGICAL_INPUTS)
def test_logical_not(kind):
    a = LOGICAL_INPUTS[kind](3, 4)
    check_forward(lambda lib, a: lib.logical_not(a), a)
    check_forward(lambda lib, a: a.logical_not(), a)


def test_logical_operators_on_bool_tensors():
    a, b = LOGICAL_INPUTS["bool"](3, 4), LOGICAL_INPUTS["bool"](4)
    check_forward(lambda lib, a, b: a & b, a, b)
    check_forward(lambda lib, a, b: a | b, a, b)
    check_forward(lambda lib, a: ~a, a)
    check_forward(lambda lib, a: a & True, a)


def test_logical_with_nan_counts_as_true():
    x = np.array([math.nan, 0.0, 1.0])
    check_forward(lambda lib, x: lib.logical_and(x, x), x)
    check_forward(lambda lib, x: lib.logical_not(x), x)


def test_logical_broadcast_error():
    assert_same_error(lambda lib: lib.logical_xor(lib.zeros(3), lib.zeros(2)))


# ------------------------------------------------------------------ special-value tests

SPECIAL = np.array([math.nan, math.inf, -math.inf, 0.0, -1.5, 1e30])


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite"])
def test_special_value_predicates(name):
    for array in (SPECIAL, SPECIAL.astype(np.float32), np.array([1, 2]),
                  np.array([True, False])):
        check_forward(lambda lib, x: getattr(lib, name)(x), array)
        check_forward(lambda lib, x: getattr(x, name)(), array)


# ------------------------------------------------------------------ equal, isclose, allclose

EQUAL_CASES = [
    (np.array([1.0, 2.0]), np.array([1.0, 2.0])),
    (np.array([1.0, 2.0]), np.array([1.0, 2.5])),
    (np.array([1.0, 2.0]), np.array([1, 2])),
    (np.array([1.0, 2.0], dtype=np.float32), np.array([1.0, 2.0])),
    (np.array([True]), np.array([1])),
    (np.array(1.0), np.array([1.0])),
    (np.zeros((2, 1)), np.zeros(2)),
    (np.array([math.nan]), np.array([math.nan])),
    (np.zeros((0, 2)), np.zeros((0, 2))),
]


@pytest.mark.parametrize("a, b", EQUAL_CASES)
def test_equal(a, b):
    check_forward(lambda lib, a, b: lib.equal(a, b), a, b)
    check_forward(lambda lib, a, b: a.equal(b), a, b)


CLOSE_CASES = [
    (np.array([1.0, 2.0]), np.array([1.0 + 1e-9, 2.0]), {}),
    (np.array([1.0, 2.0]), np.array([1.0 + 1e-3, 2.0]), {}),
    (np.array([1.0, 2.0]), np.array([1.0 + 1e-3, 2.0]), {"rtol": 1e-2}),
    (np.array([0.0]), np.array([1e-9]), {"rtol": 0.0}),
    (np.array([0.0]), np.array([1e-7]), {"rtol": 0.0}),
    (np.array([math.inf, -math.inf, math.inf]), np.array([math.inf, -math.inf, -math.inf]), {}),
    (np.array([math.nan, 1.0]), np.array([math.nan, 1.0]), {}),
    (np.array([math.nan, 1.0]), np.array([math.nan, 1.0]), {"equal_nan": True}),
    (np.array([1, 5]), np.array([2, 5]), {"atol": 1}),
    (np.array([1, 5]), np.array([2, 5]), {"rtol": 0.6}),
    (np.array([True, False]), np.array([True, True]), {}),
    (np.array([1.0, 2.0, 3.0]), np.array([1.0]), {}),
    (np.array([[1.0], [1.0]]), np.array([1.0, 1.0]), {}),
]


@pytest.mark.parametrize("a, b, options", CLOSE_CASES)
def test_isclose_and_allclose(a, b, options):
    check_forward(lambda lib, a, b: lib.isclose(a, b, **options), a, b)
    check_forward(lambda lib, a, b: lib.allclose(a, b, **options), a, b)
    check_forward(lambda lib, a, b: a.allclose(b, **options), a, b)
    check_forward(lambda lib, a, b: a.isclose(b, **options), a, b)


def test_close_errors():
    assert_same_error(lambda lib: lib.allclose(lib.zeros(2), lib.zeros(2, dtype=lib.float64)))
    assert_same_error(lambda lib: lib.isclose(lib.zeros(2), lib.zeros(2), rtol=-1))
    assert_same_error(lambda lib: lib.allclose(lib.zeros(2), lib.zeros(2), atol=-1))
    assert_same_error(lambda lib: lib.allclose(lib.zeros(3), lib.zeros(2)))
    assert_same_error(lambda lib: lib.equal(lib.zeros(2), 1.0))


# ------------------------------------------------------------------ errors

@pytest.mark.parametrize("call", [
    lambda lib: lib.maximum(lib.zeros(3), 1.0),
    lambda lib: lib.minimum(lib.zeros(3), lib.zeros(2)),
    lambda lib: lib.maximum(lib.zeros(2, 3), lib.zeros(3, 2)),
    lambda lib: lib.where(lib.zeros(3), lib.zeros(3), lib.zeros(3)),
    lambda lib: lib.where(lib.zeros(3, dtype=lib.int32), lib.zeros(3), lib.zeros(3)),
    lambda lib: lib.where(lib.zeros(3) > 0, lib.zeros(2), lib.zeros(3)),
    lambda lib: lib.where(lib.zeros(3) > 0, lib.zeros(3), lib.zeros(2, 1, 4)),
    lambda lib: lib.clamp(lib.zeros(3), lib.zeros(2), lib.zeros(3)),
    lambda lib: lib.clamp(lib.zeros(3), lib.zeros(3), lib.zeros(2)),
    lambda lib: lib.relu(lib.tensor([True])),
    lambda lib: lib.abs(lib.tensor([True])),
    lambda lib: lib.zeros(2, 3).clamp_(lib.zeros(4, 2, 3)),
])
def test_errors_match_torch(call):
    assert_same_error(call)


# ------------------------------------------------------------------ finite differences

def gradcheck(fn, *arrays):
    """First and second derivatives of ``fn(autograd_cy, *tensors)`` against finite
    differences, in float64, with the library's own gradcheck (no torch involved).

    First order: every column of the Jacobian (rtol 1e-5, atol 1e-7). Second order:
    gradgradcheck, the same of the gradient for a random output gradient, built with
    create_graph=True (rtol 1e-3, atol 1e-5).
    """
    inputs = tuple(ag.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)
                   for a in arrays)

    def func(*tensors):
        return fn(ag, *tensors)
    # The built-in nodes do not take an undefined (None) output gradient yet; the
    # finite-difference checks do not need one.
    assert ag.autograd.gradcheck(func, inputs, rtol=1e-5, atol=1e-7,
                                 check_undefined_grad=False) is True
    assert ag.autograd.gradgradcheck(func, inputs, rtol=1e-3, atol=1e-5,
                                     check_undefined_grad=False) is True


GRADCHECK_CASES = {
    "sigmoid": (lambda lib, x: lib.sigmoid(x), [anywhere(2, 3)]),
    "tanh": (lambda lib, x: lib.tanh(x), [anywhere(2, 3)]),
    "rsqrt": (lambda lib, x: lib.rsqrt(x), [positive(2, 3)]),
    "log1p": (lambda lib, x: lib.log1p(x), [positive(2, 3)]),
    "expm1": (lambda lib, x: lib.expm1(x), [anywhere(2, 3)]),
    "reciprocal": (lambda lib, x: lib.reciprocal(x), [away_from_zero(2, 3, gap=0.5)]),
    "cos": (lambda lib, x: lib.cos(x), [anywhere(2, 3)]),
    "maximum": (lambda lib, a, b: lib.maximum(a, b) * a, [anywhere(2, 3), anywhere(3, seed=1)]),
    "clamp": (lambda lib, x, lo, hi: lib.clamp(x, lo, hi) ** 2,
              [away_from(anywhere(2, 3), [-0.2, 0.6]), np.full(3, -0.2), np.full((2, 1), 0.6)]),
    "clamp_broadcast_self": (lambda lib, x, lo: lib.clamp(x, min=lo) * 1.5,
                             [away_from(anywhere(4), [0.1]), np.full((3, 4), 0.1)]),
    "where": (lambda lib, x, y: lib.where(x > 0, x.exp(), y * y), [anywhere(2, 3),
                                                                  anywhere(3, seed=2)]),
}


@pytest.mark.parametrize("case", GRADCHECK_CASES)
def test_gradcheck(case):
    fn, arrays = GRADCHECK_CASES[case]
    gradcheck(fn, *arrays)


# ------------------------------------------------------------------ bitwise operators

BITWISE = [
    ("and", lambda a, b: a & b), ("or", lambda a, b: a | b), ("xor", lambda a, b: a ^ b),
    ("and_scalar", lambda a, b: a & 6), ("rxor_scalar", lambda a, b: 3 ^ a),
    ("not", lambda a, b: ~a),
]


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("name, fn", BITWISE, ids=[b[0] for b in BITWISE])
def test_bitwise_operators_match_torch(name, fn, dtype):
    rng = np.random.default_rng(0)
    a = rng.integers(-8, 8, (3, 4)).astype(dtype)
    b = rng.integers(-8, 8, (4,)).astype(dtype)
    ours, theirs = [fn(lib.tensor(a), lib.tensor(b)) for lib in LIBS]
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(to_numpy(ours), to_numpy(theirs))


def test_bitwise_on_floats_raises_a_runtime_error_naming_the_kernel():
    for lib in LIBS:
        with pytest.raises(RuntimeError, match="bitwise_and_cpu.* not implemented for 'Float'"):
            lib.ones(2) & lib.ones(2)


def test_bitwise_on_floats_raises_torchs_exception_type():
    assert_same_error(lambda lib: lib.ones(2) & lib.ones(2), NotImplementedError,
                      "bitwise_and_cpu.* not implemented for 'Float'")


def test_comparing_with_none_is_false_like_torch():
    for lib in LIBS:
        x = lib.ones(2)
        assert (x == None) is False  # noqa: E711
        assert (x != None) is True  # noqa: E711


# ------------------------------------------------------------------ result layout

# Results allocated by empty_result_like (device.pyx), PyTorch's layout rule for a pointwise
# result, and results NumPy's ufuncs allocate in order "K". The two agree with PyTorch but for
# an input both expanded and permuted, where "K" sorts the stride-0 dim innermost and PyTorch
# keeps its place: those ops are checked on the other layouts until every pointwise result is
# allocated in one place (the op table of issue 25).
ALLOCATED_OPS = {
    "sigmoid": lambda lib, x: x.sigmoid(), "rsqrt": lambda lib, x: x.rsqrt(),
    "clone": lambda lib, x: x.clone(), "gelu": lambda lib, x: lib.nn.functional.gelu(x),
    "masked_fill": lambda lib, x: x.masked_fill(x > 0, 0.0),
}
UFUNC_OPS = {
    "exp": lambda lib, x: x.exp(), "tanh": lambda lib, x: x.tanh(), "neg": lambda lib, x: -x,
    "silu": lambda lib, x: lib.nn.functional.silu(x), "mul": lambda lib, x: x * x,
    "add_scalar": lambda lib, x: x + 2,
}
LAYOUTS = {
    "expanded": lambda x: x[0].expand(2, 3, 4),          # stride 0: the result is contiguous
    "transposed": lambda x: x.transpose(0, 2),           # dense: the result keeps its strides
    "expanded_transposed": lambda x: x[:, :1].expand(2, 3, 4).transpose(0, 2),
}
LAYOUT_CASES = [(op, fn, layout) for op, fn in ALLOCATED_OPS.items() for layout in LAYOUTS] + [
    (op, fn, layout) for op, fn in UFUNC_OPS.items()
    for layout in ("expanded", "transposed")]


@pytest.mark.cpu_only
@pytest.mark.parametrize("op, function, layout", LAYOUT_CASES,
                         ids=[f"{op}-{layout}" for op, _, layout in LAYOUT_CASES])
def test_result_strides_of_expanded_and_transposed_inputs_are_torchs(op, function, layout):
    """As PyTorch lays out a pointwise result: an input's strides when it is non-overlapping
    and dense, else dense in the input's dim order with stride-0 dims kept in place."""
    values = anywhere(2, 3, 4)
    strides = [function(lib, LAYOUTS[layout](lib.tensor(values))).stride() for lib in LIBS]
    assert strides[0] == strides[1]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_ties_keep_the_first_operand_as_torch(dtype):
    """NOTE [Ties keep the first operand]: -0.0 through relu, clamp, maximum and minimum keeps
    its sign as in torch (1 / result shows it: -inf, not inf)."""
    def run(T):
        x = T.tensor([-0.0, 0.0, -1.0, 2.0], dtype=getattr(T, dtype))
        z = T.tensor([0.0, -0.0, 0.0, -0.0], dtype=getattr(T, dtype))
        return [1 / r for r in (x.relu(), T.nn.functional.relu(x), x.clamp(min=0),
                                x.clamp(max=0), x.clamp(-0.0, 0.0), T.maximum(x, z),
                                T.minimum(x, z), T.maximum(z, x), x.clone().clamp_(min=0))]
    for ours, theirs in zip(run(ag), run(torch)):
        np.testing.assert_array_equal(ours.float().cpu().numpy(), theirs.float().numpy())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", [7, 5000])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_relu_special_values(layout, size, dtype):
    # One loop for contiguous float arrays of any size, NumPy (maximum, then -0.0 mended)
    # for the rest: -0.0 and nan pass through, -inf is 0, the bits are torch's
    x = np.resize(np.array([-1.0, -0.0, 0.0, math.nan, math.inf, -math.inf, 2.5]),
                  (size, 2)).astype(dtype)
    results = {}
    for lib in LIBS:
        tensor = lib.tensor(x)
        results[lib] = to_numpy((tensor.t() if layout == "transposed" else tensor).relu())
    np.testing.assert_array_equal(results[ag], results[torch])
    np.testing.assert_array_equal(np.signbit(results[ag]), np.signbit(results[torch]))


def test_relu_and_clamp_keep_the_input_s_memory_order():
    """The -0.0 fix-up writes into NumPy's result, which follows the input's layout as
    torch's does (a transposed input gives a transposed result)."""
    for lib in LIBS:
        x = lib.tensor([[-0.0, 1.0, -2.0], [2.0, -3.0, 0.0]]).t()
        assert x.relu().stride() == (1, 3) and x.clamp(min=0).stride() == (1, 3)


@pytest.mark.cpu_only      # torch's CPU tanh (a CUDA tanhf rounds as it rounds)
def test_float32_tanh_saturates_as_torch_s():
    """NOTE [float32 tanh near saturation]: +-1 from |x| = 9.01084 (NumPy's SIMD loop gives
    1 - 2^-24 up to 10), in tanh of a large array and in gelu's tanh approximation, where
    0.5 x (1 + t) must then be exactly zero."""
    x = np.repeat(np.array([9.01083, 9.01084, 9.5, 9.99, -9.71, 8.9], dtype=np.float32), 10)
    assert_same(lambda lib: lib.tanh(lib.tensor(x)).tolist(), rtol=0, atol=0)
    assert_same(lambda lib: lib.nn.functional.gelu(
        lib.tensor([-5.34375, -6.0], dtype=lib.float32), approximate="tanh").tolist(),
        rtol=0, atol=0)
