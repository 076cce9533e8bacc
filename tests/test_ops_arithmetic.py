"""Division with a rounding mode and reversed subtraction against torch.

``div(a, b, rounding_mode=None | "trunc" | "floor")`` and ``rsub`` (``2 - x``,
``torch.rsub(x, y)``): values, dtypes, gradients and double backward through
``check_op``, node names, in-place forms, integer operands, special values and
errors. Where autograd_cy differs from torch today the test asserts torch's
behaviour and is a strict xfail naming the difference.
"""
import math
import warnings

import numpy as np
import pytest

from oracle import LIBS, assert_same, assert_same_error, check_op, node_name, randn

DTYPES = [np.float32, np.float64]
ROUNDING_MODES = [None, "trunc", "floor"]
SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (3,)), ((5,), ())]


def denominator(*shape, seed=1):
    """Normal samples at least 0.5 away from zero."""
    x = randn(*shape, seed=seed)
    return np.asarray(np.where(x >= 0, x + 0.5, x - 0.5))


def operands(shapes, seed=0):
    """``(a, b)`` of the given shapes: ``b`` at least 0.5 from zero, and every ``a / b`` at
    least 0.05 from an integer (floor and trunc jump there), the first seed that gives it."""
    for attempt in range(seed, seed + 1000):
        a, b = np.asarray(randn(*shapes[0], seed=attempt) * 3), denominator(*shapes[1],
                                                                           seed=attempt + 1)
        quotient = a / b
        if np.all(np.abs(quotient - np.round(quotient)) > 0.05):
            return a, b
    raise AssertionError(f"no operands for {shapes}")


# ------------------------------------------------------------------ div: values and grads

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rounding_mode", ROUNDING_MODES)
@pytest.mark.parametrize("shapes", SHAPES)
def test_div_of_two_tensors(shapes, rounding_mode, dtype):
    a, b = operands(shapes)
    check_op(lambda lib, a, b: lib.div(a, b, rounding_mode=rounding_mode), a, b, dtype=dtype)
    check_op(lambda lib, a, b: a.div(b, rounding_mode=rounding_mode), a, b, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rounding_mode", ROUNDING_MODES)
@pytest.mark.parametrize("number", [2.5, -1.5, 3, -4])
def test_div_by_a_number(number, rounding_mode, dtype):
    a = randn(3, 4, seed=2) * 5 + 0.05       # a / number is never an integer here
    check_op(lambda lib, a: lib.div(a, number, rounding_mode=rounding_mode), a, dtype=dtype)
    check_op(lambda lib, a: a.div(number, rounding_mode=rounding_mode), a, dtype=dtype)


@pytest.mark.parametrize("rounding_mode", ROUNDING_MODES)
def test_div_where_only_one_operand_requires_grad(rounding_mode):
    a, b = operands(((3, 4), (4,)))
    fn = lambda lib, a, b: lib.div(a, b, rounding_mode=rounding_mode)  # noqa: E731
    check_op(fn, a, b, requires_grad=[True, False])
    check_op(fn, a, b, requires_grad=[False, True])


@pytest.mark.parametrize("rounding_mode", ROUNDING_MODES)
def test_div_in_place_on_a_non_leaf(rounding_mode):
    def fn(lib, a, b):
        y = a * 1.0
        y.div_(b, rounding_mode=rounding_mode)
        return y
    check_op(fn, *operands(((3, 4), (4,))))


@pytest.mark.parametrize("rounding_mode", ROUNDING_MODES)
@pytest.mark.parametrize("other", [
    np.array([2, -2, 3, -3]), np.array([2, -2, 3, -3], dtype=np.int32), 2, -3, 2.5,
    np.array([2.0, -2.5, 3.0, -0.5], dtype=np.float32)], ids=[
    "int64", "int32", "2", "-3", "2.5", "float32"])
def test_div_of_integers(other, rounding_mode):
    # Exact integer division for trunc and floor (negative quotients differ), float32 for
    # true division and for a float operand.
    numerators = np.array([7, -7, 9, -9])
    check_op(lambda lib, i, o: lib.div(i, o, rounding_mode=rounding_mode), numerators, other,
             dtype=np.float32)


@pytest.mark.parametrize("rounding_mode", [None, "trunc"])
def test_div_special_values(rounding_mode):
    a = np.array([1.0, -1.0, 0.0, -0.0, math.inf, -math.inf, math.nan, 3.0, -3.0, 0.0])
    b = np.array([0.0, 0.0, 0.0, 2.0, 2.0, 0.5, 1.0, math.inf, math.inf, -0.0])
    check_op(lambda lib, a, b: lib.div(a, b, rounding_mode=rounding_mode), a, b, double=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_div_floor_rounds_like_python_floor_division(dtype):
    a = np.array([1.0, -1.0, 7.0, 0.0, -0.0, math.inf, -math.inf, 1.0, -3.0, 3.0, 5.0])
    b = np.array([0.1, 0.1, 0.7, 3.0, 3.0, 2.0, 2.0, math.inf, math.inf, -math.inf, -0.0])
    check_op(lambda lib, a, b: lib.div(a, b, rounding_mode="floor"), a, b, dtype=dtype,
             double=False)


def test_div_node_names():
    a, b = operands(((3,), (3,)))
    names = []
    for lib in LIBS:
        x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        names.append([node_name(out.grad_fn) for out in (x / y, lib.div(x, y), x / 2)])
    assert names[0] == names[1] == ["DivBackward0"] * 3


@pytest.mark.parametrize("rounding_mode", ["trunc", "floor"])
def test_div_with_rounding_mode_node_name(rounding_mode):
    a, b = operands(((3,), (3,)))
    names = []
    for lib in LIBS:
        x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        names.append([node_name(lib.div(x, y, rounding_mode=rounding_mode).grad_fn),
                      node_name(x.div(2.0, rounding_mode=rounding_mode).grad_fn)])
    assert names[0] == names[1]


# ------------------------------------------------------------------ div: errors

DIV_ERRORS = [
    pytest.param(lambda lib: lib.div(lib.ones(3), lib.ones(3), rounding_mode="round"),
                 id="unknown rounding mode"),
    pytest.param(lambda lib: lib.ones(3).div_(2, rounding_mode="ceil"),
                 id="unknown rounding mode in place"),
    pytest.param(lambda lib: lib.tensor([1, 2]).div_(2), id="int in place true division"),
    pytest.param(lambda lib: lib.ones(3).div(lib.ones(2), rounding_mode="trunc"),
                 id="shapes that do not broadcast"),
    *[pytest.param(lambda lib, mode=mode: lib.div(lib.tensor([7, -7, 3]), lib.tensor([2, 2, 0]),
                                                  rounding_mode=mode),
                   id=f"integer {mode} division by zero")
      for mode in ("trunc", "floor")],
    pytest.param(lambda lib: lib.div(lib.tensor([True]), lib.tensor([True]),
                                     rounding_mode="floor"),
                 id="bool floor division"),
]


@pytest.mark.parametrize("call", DIV_ERRORS)
def test_div_errors_match_torch(call):
    assert_same_error(call)


FLOOR_DIVISIONS = {
    "x // y": lambda lib, a, b: a // b,
    "x // 2": lambda lib, a, b: a // 2,
    "x // -1.5": lambda lib, a, b: a // -1.5,
    "7 // y": lambda lib, a, b: 7 // b,
    "floor_divide(x, y)": lambda lib, a, b: lib.floor_divide(a, b),
    "x.floor_divide(y)": lambda lib, a, b: a.floor_divide(b),
}


@pytest.mark.parametrize("form", FLOOR_DIVISIONS)
def test_floor_division_operator(form):
    # x // y is floor_divide: div(rounding_mode='floor')'s values, without a derivative.
    a, b = operands(((3, 4), (4,)))
    check_op(FLOOR_DIVISIONS[form], a, b, requires_grad=[False, False])
    check_op(FLOOR_DIVISIONS[form], np.array([7, -7, 9, -9]), np.array([2, -2, 4, 4]))
    check_op(FLOOR_DIVISIONS[form], np.array([1.0, -3.0, math.inf]),
             np.array([0.1, math.inf, 2.0]), requires_grad=[False, False])


@pytest.mark.parametrize("form", FLOOR_DIVISIONS)
def test_floor_division_records_a_node_whose_backward_raises(form):
    # torch records a NotImplemented node on the operands that require grad.
    a, b = operands(((3,), (3,)))
    structures = []
    for lib in LIBS:
        x = lib.tensor(a, requires_grad=True)
        y = lib.tensor(b, requires_grad=form.startswith("7"))
        out = FLOOR_DIVISIONS[form](lib, x, y)
        structures.append((node_name(out.grad_fn), len(out.grad_fn.next_functions),
                           out.requires_grad))
    assert structures[0] == structures[1]
    assert_same_error(lambda lib: FLOOR_DIVISIONS[form](
        lib, lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)).sum().backward(),
        RuntimeError)


def test_floor_division_in_place():
    def fn(lib, a, b):
        y = a * 1.0
        y //= b
        return y
    a, b = operands(((3, 4), (4,)))
    check_op(fn, a, b, requires_grad=[False, False])
    names = [node_name(fn(lib, lib.tensor(a, requires_grad=True), lib.tensor(b)).grad_fn)
             for lib in LIBS]
    assert names == ["NotImplemented", "NotImplemented"]


@pytest.mark.parametrize("call", [
    lambda lib: lib.tensor([True]) // lib.tensor([True]),
    lambda lib: True // lib.tensor([True]),
    lambda lib: lib.tensor([7, 3]) // 0,
    lambda lib: lib.div(lib.tensor([True]), True, rounding_mode="trunc"),
    lambda lib: lib.ones(3) // lib.ones(2),
], ids=["bool // bool", "True // bool", "int // 0", "bool trunc division", "shapes"])
def test_floor_division_errors_match_torch(call):
    assert_same_error(call)


def test_integer_trunc_division_is_exact():
    # Past 2 ** 53 a float quotient would round.
    big = np.array([2 ** 62 + 1, -(2 ** 62) - 3, 2 ** 60 + 7])
    check_op(lambda lib, a: lib.div(a, 3, rounding_mode="trunc"), big)
    check_op(lambda lib, a: lib.div(a, -3, rounding_mode="trunc"), big)


# ------------------------------------------------------------------ rsub

RSUB_FORMS = {
    "2 - x": lambda lib, x, y: 2 - x,
    "2.5 - x": lambda lib, x, y: 2.5 - x,
    "x.__rsub__(2)": lambda lib, x, y: x.__rsub__(2),
    "rsub(x, y)": lambda lib, x, y: lib.rsub(x, y),
    "rsub(y, x)": lambda lib, x, y: lib.rsub(y, x),
    "rsub(x, 2)": lambda lib, x, y: lib.rsub(x, 2),
    "rsub(x, -1.5)": lambda lib, x, y: lib.rsub(x, -1.5),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("form", RSUB_FORMS)
def test_rsub(form, dtype):
    check_op(RSUB_FORMS[form], randn(3, 4, seed=3), randn(4, seed=4), dtype=dtype)


@pytest.mark.parametrize("shapes", SHAPES)
def test_rsub_broadcasts(shapes):
    x, y = randn(*shapes[0], seed=5), randn(*shapes[1], seed=6)
    check_op(lambda lib, x, y: lib.rsub(x, y), x, y)
    check_op(lambda lib, x, y: lib.rsub(x, y), x, y, requires_grad=[False, True])
    check_op(lambda lib, x, y: lib.rsub(x, y), x, y, requires_grad=[True, False])


@pytest.mark.parametrize("call", [
    lambda lib, i: 2 - i, lambda lib, i: lib.rsub(i, 2.5), lambda lib, i: 2.5 - i,
    lambda lib, i: lib.rsub(i, lib.tensor([1, 2, 3], dtype=lib.int32)),
    lambda lib, i: lib.rsub(i, lib.tensor([0.5, 1.0, 1.5])),
], ids=["2 - int", "rsub(int, 2.5)", "2.5 - int", "rsub(int64, int32)", "rsub(int, float)"])
def test_rsub_of_integers(call):
    check_op(call, np.array([-2, 0, 3]), dtype=np.float32)


def test_rsub_of_two_tensors_node_name():
    names = [node_name(lib.rsub(lib.ones(2, requires_grad=True), lib.ones(2)).grad_fn)
             for lib in LIBS]
    assert names == ["RsubBackward0", "RsubBackward0"]


def test_number_minus_tensor_node_name():
    names = []
    for lib in LIBS:
        x = lib.ones(2, requires_grad=True)
        names.append([node_name(out.grad_fn) for out in (2 - x, lib.rsub(x, 2))])
    assert names[0] == names[1] == ["RsubBackward1", "RsubBackward1"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_rsub_with_alpha(dtype):
    x, y = randn(3, 4, seed=7), randn(4, seed=8)
    check_op(lambda lib, x, y: lib.rsub(x, y, alpha=2), x, y, dtype=dtype)
    check_op(lambda lib, x, y: lib.rsub(x, 3, alpha=-0.5), x, y, dtype=dtype)


RSUB_ERRORS = [
    pytest.param(lambda lib: 2.5 - lib.tensor([True]), id="number - bool tensor"),
    pytest.param(lambda lib: lib.rsub(lib.tensor([True]), 2), id="rsub(bool tensor, number)"),
    pytest.param(lambda lib: lib.rsub(lib.tensor([True]), lib.tensor([2])),
                 id="rsub(bool tensor, int tensor)"),
    pytest.param(lambda lib: True - lib.tensor([1.5]), id="True - float tensor"),
    pytest.param(lambda lib: lib.rsub(lib.tensor([True]), lib.tensor([True])),
                 id="two bool tensors"),
    pytest.param(lambda lib: True - lib.tensor([True]), id="True - bool tensor"),
]


@pytest.mark.parametrize("call", RSUB_ERRORS)
def test_rsub_errors_match_torch(call):
    assert_same_error(call)


@pytest.mark.parametrize("op", ["-", "+", "*", "/", "**"])
def test_numpy_scalar_on_the_left(op):
    fn = eval(f"lambda lib, x: np.float64(2.0) {op} x")
    check_op(fn, randn(3, positive=True))


@pytest.mark.parametrize("scalar", ["np.float64(2.0)", "np.float32(2.0)", "np.int64(2)"])
@pytest.mark.parametrize("op", ["-", "+", "*", "/", "**", "//"])
def test_numpy_scalar_is_a_number_in_type_promotion(op, scalar):
    # A NumPy scalar is as weak as a Python number: float32 stays float32 on either side.
    for fn in (eval(f"lambda lib, x: {scalar} {op} x"), eval(f"lambda lib, x: x {op} {scalar}")):
        check_op(fn, randn(3, positive=True), dtype=np.float32,
                 requires_grad=[op != "//"])


def test_number_minus_tensor_keeps_the_tensor_dtype():
    for lib in LIBS:
        x = lib.ones(3, dtype=lib.float32, requires_grad=True)
        assert (2.5 - x).dtype == lib.float32 and lib.rsub(x, 2).dtype == lib.float32


def test_number_minus_tensor_overflows_to_inf_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_op(lambda lib, x: 1e300 - x, np.ones(3), dtype=np.float32, double=False)


def test_binary_operators_with_a_parameter_on_the_right():
    """NOTE [Reflected operators of a subclass]: torch's nodes, not the reflected forms."""
    def run(lib):
        x = lib.tensor([2.0, 5.0], requires_grad=True)
        weight = lib.nn.Parameter(lib.tensor([3.0, 0.5]))
        results = [x + weight, x - weight, x * weight, x / weight, x ** weight, x // weight]
        sum(r.sum() for r in results[:5]).backward()
        return ([r.detach() for r in results], [node_name(r.grad_fn) for r in results],
                x.grad, weight.grad)
    assert_same(run)
