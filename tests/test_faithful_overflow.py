"""inf, nan and overflow as PyTorch has them: quiet results, and checked scalar conversions.

PyTorch never warns about a floating-point overflow or an invalid value: ``inf + -inf`` sums
to nan, a product past float32's range is inf, a cast to float16 of 1e308 is inf. NumPy
warns (RuntimeWarning) in each case, so these tests turn every RuntimeWarning into an
error and compare values and gradients with torch's. Where PyTorch *refuses* a number
(``full``/``fill_`` of a float32 out of range, nan into an integer type), the same error.
"""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import DEVICE, assert_close, assert_same_error

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

INF, NAN = float("inf"), float("nan")
INPUTS = {
    "infinities": [1.0, INF, -INF, 2.0],
    "nan_and_zeros": [NAN, 1.0, 0.0, -0.0],
    "float32_overflow": [1e38, 1e38, -1e38, 3.0],
}


def square(t):
    return t.reshape(2, 2)


OPS = {
    "sum": lambda lib, t: t.sum(),
    "sum_dim": lambda lib, t: square(t).sum(0),
    "mean": lambda lib, t: t.mean(),
    "mean_dim": lambda lib, t: square(t).mean(1),
    "prod": lambda lib, t: t.prod(),
    "norm": lambda lib, t: t.norm(),
    "norm_p1": lambda lib, t: t.norm(p=1),
    "matmul": lambda lib, t: square(t) @ square(t),
    "mm": lambda lib, t: square(t).mm(square(t)),
    "dot": lambda lib, t: t.dot(t),
    "mv": lambda lib, t: square(t).mv(t[:2]),
    "addmm": lambda lib, t: lib.addmm(square(t), square(t), square(t)),
    "bmm": lambda lib, t: lib.bmm(square(t)[None], square(t)[None]),
    "mse_loss": lambda lib, t: lib.nn.functional.mse_loss(t, t * 0),
    "var": lambda lib, t: t.var(),
    "broadcast_add": lambda lib, t: square(t) + t[:2],     # backward sums the gradient
}
# Where 1e38 * 1e38 meets -1e38 * 1e38 in one dot product, the order of BLAS's sum decides
# between inf and nan: only the quiet is compared there.
SUMMATION_ORDER = {"matmul", "mm", "addmm", "bmm"}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("values", list(INPUTS.values()), ids=list(INPUTS))
@pytest.mark.parametrize("op", list(OPS), ids=list(OPS))
def test_quiet_values_and_gradients(op, values, dtype):
    """The forward and the gradient of a sum of the result, without a warning."""
    results = []
    for lib in (ag, torch):
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True,
                       device=DEVICE if lib is ag else "cpu")
        out = OPS[op](lib, x)
        out.sum().backward()
        results.append((out.detach(), x.grad))
    if op in SUMMATION_ORDER and values is INPUTS["float32_overflow"]:
        return
    assert_close(results[0], results[1], rtol=1e-5, atol=0, what=op)


@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor([1e308, -1e308, 1.0]),                       # float32 by default
    lambda lib: lib.tensor([1e308, 1.0], dtype=lib.float16),
    lambda lib: lib.tensor(1e308, dtype=lib.float32),
    lambda lib: lib.tensor([1e308], dtype=lib.float64).float(),
    lambda lib: lib.tensor([1e308], dtype=lib.float64).to(lib.float16),
    lambda lib: lib.tensor([70000.0]).half(),
    lambda lib: lib.full((1,), 1e308, dtype=lib.float16),               # one element:
    lambda lib: lib.zeros(1, dtype=lib.float16).fill_(1e10),            # cast unchecked
    lambda lib: lib.full((2,), -1, dtype=lib.uint8),                    # wraps, as in C++
    lambda lib: lib.zeros(2, dtype=lib.uint8).fill_(-255),
    lambda lib: lib.tensor([-1], dtype=lib.uint8),
], ids=["default_float32", "float16", "scalar", "float", "to_float16", "half", "full_float16",
        "fill_float16", "full_uint8_minus_one", "fill_uint8", "tensor_uint8"])
def test_casts_past_the_range_are_quiet(make):
    assert_close(make(ag), make(torch), what="cast")


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "int32", "int16", "int8",
                                   "uint8"])
@pytest.mark.parametrize("value", [1e308, NAN, INF, 1e10, 300, -256, -1, -1.0])
def test_full_and_fill_check_the_scalar(dtype, value):
    """``full`` and ``fill_`` convert their number as torch's checked conversion does:
    refused ("value cannot be converted to type int8_t without overflow") or converted."""
    def full(lib):
        return lib.full((2,), value, dtype=getattr(lib, dtype))

    def fill(lib):
        return lib.zeros(2, dtype=getattr(lib, dtype)).fill_(value)

    for fn in (full, fill):
        try:
            expected = fn(torch)
        except RuntimeError:
            assert_same_error(fn, RuntimeError, exact=True)
        else:
            assert_close(fn(ag), expected, what=fn.__name__)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "uint8"])
@pytest.mark.parametrize("values", [[NAN], [INF, 1.0], [1e10], [300], [2.5, -3.0], [2.5, 3.9],
                                    [-1, 2]])
def test_tensor_into_an_integer_type(dtype, values):
    """The constructor refuses a number its integer dtype cannot hold (named without the
    C++ ``_t``), and truncates one it can."""
    def make(lib):
        return lib.tensor(values, dtype=getattr(lib, dtype))

    try:
        expected = make(torch)
    except RuntimeError:
        assert_same_error(make, RuntimeError, exact=True)
    else:
        assert_close(make(ag), expected, what="tensor")


def test_a_backward_is_one_quiet_region_and_restores_numpys_error_state():
    """NOTE [Quiet regions]: the engine silences NumPy once for a whole backward (a hook
    sees "ignore"), and puts the caller's error state back after, also when backward
    raises."""
    before = np.geterr()
    seen = []
    x = ag.tensor([1e38, 3.0], requires_grad=True)

    def hook(grad):
        seen.append(np.geterr())
        return grad

    y = x * 10
    y.register_hook(hook)
    y.sum().backward()
    assert set(seen[0].values()) == {"ignore"} and np.geterr() == before

    def failing(grad):
        raise ValueError("a hook that fails")

    z = x * 2
    z.register_hook(failing)
    with pytest.raises(ValueError, match="a hook that fails"):
        z.sum().backward()
    assert np.geterr() == before
    with pytest.raises(RuntimeWarning):
        np.array([1.0]) / np.array([0.0])
