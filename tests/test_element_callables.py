"""Tensor.apply_, map_ and map2_ (autograd_cy/element_callables.py) against torch's: the
values for every dtype, the order the function sees the elements in, broadcasting, how a
result is stored (truncation, wrapping, overflow), the version, and the errors."""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error

DTYPES = ["float32", "float64", "float16", "int64", "int8", "uint8", "bool", "complex64"]


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype", DTYPES)
def test_apply_map_map2_values(dtype):
    def run(lib):
        kind = getattr(lib, dtype)
        t = lib.tensor([[1, 0, 3], [4, 5, 2]]).to(kind)
        seen = []
        t.t().apply_(lambda v: seen.append(v) or v * 3)
        u = lib.tensor([[2, 1, 1]]).to(kind)
        t.map_(u, lambda a, b: a + b)
        t.map2_(u, lib.tensor([1]).to(kind), lambda a, b, c: a * c + b)
        return [t, seen, [type(v).__name__ for v in seen], t._version]
    assert_same(run)


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype, result", [
    ("int64", 1.7), ("int8", -3.9), ("uint8", -1), ("uint8", 255), ("bool", 2.5),
    ("bool", 0), ("float32", 1e300), ("float16", 1e6), ("int64", True),
    ("float32", np.float32(3.5)), ("complex128", 2), ("float64", "0-d"),
])
def test_how_a_result_is_stored(dtype, result):
    def run(lib):
        value = lib.tensor(2.5) if isinstance(result, str) else result
        return lib.tensor([1, 2]).to(getattr(lib, dtype)).apply_(lambda v: value)
    assert_same(run)


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype, result, kind", [
    ("float32", "a", TypeError), ("float32", 1 + 2j, TypeError), ("float32", None, TypeError),
    ("int64", "a", TypeError), ("bool", "a", TypeError), ("complex64", "a", TypeError),
    ("int8", 300, RuntimeError), ("int8", 300.0, RuntimeError),
    ("int64", float("nan"), RuntimeError), ("uint8", -1.5, RuntimeError),
    ("uint8", -300, RuntimeError), ("int64", 2 ** 70, ValueError),
])
def test_results_a_dtype_refuses(dtype, result, kind):
    assert_same_error(lambda lib: lib.tensor([1, 2]).to(getattr(lib, dtype)).apply_(
        lambda v: result), kind, exact=True)


@pytest.mark.cpu_only
@pytest.mark.parametrize("fn, kind", [
    (lambda lib: lib.ones(2, requires_grad=True).apply_(lambda v: v), RuntimeError),
    (lambda lib: lib.ones(2).map_(lib.ones(2, requires_grad=True), lambda a, b: a),
     RuntimeError),
    (lambda lib: lib.ones(2, requires_grad=True).map2_(lib.ones(2), lib.ones(2),
                                                       lambda a, b, c: a), RuntimeError),
    (lambda lib: lib.ones(2).map_(3, lambda a, b: a), TypeError),
    (lambda lib: lib.ones(2).map2_(lib.ones(2), 3, lambda a, b, c: a), TypeError),
    (lambda lib: lib.ones(2).map_(lib.ones(2, dtype=lib.int64), lambda a, b: a), TypeError),
    (lambda lib: lib.ones(2).map2_(lib.ones(2), lib.ones(2, dtype=lib.float64),
                                   lambda a, b, c: a), TypeError),
    (lambda lib: lib.ones(2).map_(lib.ones(3), lambda a, b: a), RuntimeError),
    (lambda lib: lib.ones(1).map2_(lib.ones(2), lib.ones(1), lambda a, b, c: a), RuntimeError),
    (lambda lib: lib.ones(2).apply_(5), TypeError),
    (lambda lib: lib.ones(2).apply_(lambda v: 1 / 0), ZeroDivisionError),
])
def test_errors(fn, kind):
    assert_same_error(fn, kind, exact=True)
