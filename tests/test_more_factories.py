"""logspace, randint_like, empty_strided, scalar_tensor, range (autograd_cy/factories.py)
and the torch-level is_signed, is_nonzero (tensor_type.py) against torch: values, dtypes,
shapes, strides, the seeded draws, the deprecation warning, errors."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import DEVICE, assert_same, assert_same_error, same_warning


def described(t):
    return t, str(t.dtype).split(".")[-1], tuple(t.shape), t.requires_grad


@pytest.mark.parametrize("args, kwargs", [
    ((0, 2, 3), {}), ((0, 2, 3), {"base": 2}), ((0, 3, 4), {"dtype": "int64"}),
    ((0, 1, 5), {"dtype": "int64"}), ((-1, 1, 5), {"dtype": "float64"}), ((0, 1, 0), {}),
    ((1, 1, 1), {}), ((2, 0, 3), {"base": 3, "dtype": "int64"}), ((0, 1, 3), {"base": 0.5}),
    ((0, 1, 3), {"requires_grad": True}),
])
def test_logspace(args, kwargs):
    def run(lib):
        options = {k: getattr(lib, v) if k == "dtype" else v for k, v in kwargs.items()}
        return described(lib.logspace(*args, **options))
    assert_same(run, rtol=1e-6)


def test_logspace_tensor_bounds_and_errors():
    assert_same(lambda lib: lib.logspace(lib.tensor(0.0), lib.tensor(2.0), 3))
    assert_same_error(lambda lib: lib.logspace(0, 1, -1), exact=True)


@pytest.mark.cpu_only       # torch's CPU stream after the same seed
def test_randint_like_draws_torchs_numbers():
    def run(lib, *args, **kwargs):
        lib.manual_seed(5)
        return described(lib.randint_like(*args, **kwargs))
    for args in [(lambda lib: lib.zeros(2, 3), 10), (lambda lib: lib.zeros(4, dtype=lib.int32),
                                                      3, 10)]:
        make, *rest = args
        assert_same(lambda lib: run(lib, make(lib), *rest))
    assert_same(lambda lib: run(lib, lib.zeros(3), low=2, high=5))
    assert_same(lambda lib: run(lib, lib.zeros(3), 4, dtype=lib.int64))
    assert_same(lambda lib: run(lib, lib.zeros(3), 4, requires_grad=True))


def test_randint_like_errors():
    assert_same_error(lambda lib: lib.randint_like(lib.zeros(2), 5, 3), exact=True)


def test_empty_strided():
    for lib in (ag, torch):
        t = lib.empty_strided((2, 3), (1, 2))
        assert tuple(t.shape) == (2, 3) and t.stride() == (1, 2)
        assert t._base is None and not t.is_contiguous()
        assert str(t.dtype).endswith("float32")
        t = lib.empty_strided((2, 0), (3, 1), dtype=lib.float64, requires_grad=True)
        assert tuple(t.shape) == (2, 0) and t.requires_grad and t.is_leaf
    assert str(ag.empty_strided((2,), (1,)).device).startswith(DEVICE)
    assert_same_error(lambda lib: lib.empty_strided((2, 3), (1,)), exact=True)
    assert_same_error(lambda lib: lib.empty_strided((2, -3), (1, 2)), exact=True)


@pytest.mark.parametrize("value, dtype", [(3, None), (3, "int64"), (True, None),
                                          (2.5, "float64"), (1 + 2j, "complex64")])
def test_scalar_tensor(value, dtype):
    assert_same(lambda lib: described(lib.scalar_tensor(
        value, **({"dtype": getattr(lib, dtype)} if dtype else {}))))
    assert_same(lambda lib: described(lib.scalar_tensor(2.5, requires_grad=True)))


@pytest.mark.parametrize("args, kwargs", [((0, 3), {}), ((1, 2, 0.5), {}), ((0, 3), {"dtype":
                                          "int64"}), ((3, 0, -1), {}), ((0, 1, 0.3), {}),
                                          ((2, 2), {}), ((0.5, 2.5), {"dtype": "float64"})])
def test_range_includes_its_end_and_warns(args, kwargs):
    def run(lib):
        options = {k: getattr(lib, v) for k, v in kwargs.items()}
        return described(lib.range(*args, **options))
    ours, theirs = same_warning(run, UserWarning, r"torch.range is deprecated")
    np.testing.assert_allclose(ours[0].cpu().numpy(), theirs[0].numpy(), rtol=1e-6)
    assert ours[1:] == theirs[1:]


@pytest.mark.filterwarnings("ignore:torch.range is deprecated")
def test_range_errors():
    assert_same_error(lambda lib: lib.range(3, 0), exact=True)
    assert_same_error(lambda lib: lib.range(0, 3, 0), exact=True)


def test_is_signed_and_is_nonzero():
    for make in [lambda lib: lib.tensor([1], dtype=lib.uint8), lambda lib: lib.tensor([True]),
                 lambda lib: lib.tensor([1.0]), lambda lib: lib.tensor([1], dtype=lib.int8),
                 lambda lib: lib.tensor([1j])]:
        assert_same(lambda lib: lib.is_signed(make(lib)))
    for value in ([[0.0]], 3, float("nan"), [False]):
        assert_same(lambda lib: lib.is_nonzero(lib.tensor(value)))
    assert_same_error(lambda lib: lib.is_signed(3), exact=True)
    assert_same_error(lambda lib: lib.is_nonzero(3), exact=True)
    assert_same_error(lambda lib: lib.is_nonzero(lib.ones(2)), exact=True)
    assert_same_error(lambda lib: lib.is_nonzero(lib.ones(0)), exact=True)


# ----------------------------------------------------------- linspace (found by tests/opinfo)

@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16", "complex128",
                                   "int64", "uint8"])
@pytest.mark.parametrize("ends", [(4.3, -3, 50), (0.1, 0.7, 7), (-3, 10, 7), (0, 1, 1),
                                  (0, 1, 0)])
def test_linspace_values_as_torch_computes_them(dtype, ends):
    # both halves from their own end, multiply-add fused; the ends first cast to dtype (-3
    # as uint8 is 253). Bit for bit, but complex: torch's complex kernel rounds otherwise
    start, end, steps = ends
    exact = {} if dtype == "complex128" else {"rtol": 0, "atol": 0}

    def run(lib):
        x = lib.linspace(start, end, steps, dtype=getattr(lib, dtype))
        if x.is_complex():
            return x.real.tolist(), x.imag.tolist()
        return x.to(lib.float64).tolist()
    assert_same(run, **exact)


def test_linspace_tensor_ends():
    # a float32 tensor's value, spaced in float64
    assert_same(lambda lib: lib.linspace(lib.tensor(4.3), -3, 50, dtype=lib.float64).tolist(),
                rtol=0, atol=0)
    assert_same_error(lambda lib: lib.linspace(lib.ones(2), 3, 4), RuntimeError)
