"""autograd_cy.testing.assert_close and make_tensor against torch.testing's: which inputs
pass, and every failure's exception type and message (default tolerances per dtype,
"Tensor-likes are not close!", the mismatch count, the greatest differences and their
indices, scalars, sequences and mappings with the failing item, attribute checks, msg)."""
import math

import numpy as np
import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, same_warning

NAN, INF = float("nan"), float("inf")

FAILING = {
    "one_of_three": lambda lib: lib.testing.assert_close(lib.tensor([1.0, 2.0, 3.0]),
                                                         lib.tensor([1.0, 2.5, 3.0])),
    "two_dims": lambda lib: lib.testing.assert_close(lib.tensor([[1.0, 2.0], [3.0, 4.0]]),
                                                     lib.tensor([[1.0, 2.5], [3.0, 0.0]])),
    "scalar_tensor": lambda lib: lib.testing.assert_close(lib.tensor(1.0), lib.tensor(2.0)),
    "integers_equal": lambda lib: lib.testing.assert_close(lib.tensor([1, 2]),
                                                           lib.tensor([1, 3])),
    "float64_tolerance": lambda lib: lib.testing.assert_close(
        lib.tensor([1.0], dtype=lib.float64), lib.tensor([1.0 + 1e-6], dtype=lib.float64)),
    "float32_tolerance": lambda lib: lib.testing.assert_close(lib.tensor([0.0, 1.0]),
                                                              lib.tensor([0.0, 1.001])),
    "near_zero": lambda lib: lib.testing.assert_close(lib.tensor([0.0, 1.0]),
                                                      lib.tensor([1e-3, 1.0])),
    "float16": lambda lib: lib.testing.assert_close(lib.tensor([1.0], dtype=lib.float16),
                                                    lib.tensor([1.01], dtype=lib.float16)),
    "nan": lambda lib: lib.testing.assert_close(lib.tensor([NAN]), lib.tensor([NAN])),
    "inf": lambda lib: lib.testing.assert_close(lib.tensor([1.0]), lib.tensor([INF])),
    "bool": lambda lib: lib.testing.assert_close(lib.tensor([True]), lib.tensor([False])),
    "complex": lambda lib: lib.testing.assert_close(lib.tensor([1 + 1j]),
                                                    lib.tensor([1 + 2j])),
    "requires_grad": lambda lib: lib.testing.assert_close(
        lib.tensor([1.0, 2.0], requires_grad=True), lib.tensor([1.0, 2.1])),
    "given_tolerances": lambda lib: lib.testing.assert_close(
        lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.1]), rtol=0.01, atol=0.0),
    "exact": lambda lib: lib.testing.assert_close(lib.tensor(1.0), lib.tensor(1.5), atol=0,
                                                  rtol=0),
    "mixed_dtypes": lambda lib: lib.testing.assert_close(
        lib.tensor([1.0], dtype=lib.float16), lib.tensor([1.2]), check_dtype=False),
    "int_float_unchecked": lambda lib: lib.testing.assert_close(
        lib.tensor([1]), lib.tensor([2.0]), check_dtype=False),
    "floats": lambda lib: lib.testing.assert_close(1.0, 1.5),
    "ints": lambda lib: lib.testing.assert_close(1, 2),
    "complex_numbers": lambda lib: lib.testing.assert_close(1 + 1j, 1 + 2j),
    "float_nan": lambda lib: lib.testing.assert_close(1.0, NAN),
    "int_and_float": lambda lib: lib.testing.assert_close(1, 1.0),
    "booleans": lambda lib: lib.testing.assert_close(True, False),
    "none": lambda lib: lib.testing.assert_close(None, 1),
    "sequence_item": lambda lib: lib.testing.assert_close([1.0, lib.tensor(2.0)],
                                                          [1.0, lib.tensor(3.0)]),
    "nested_item": lambda lib: lib.testing.assert_close(
        [lib.tensor([1.0]), [lib.tensor([2.0])]], [lib.tensor([1.0]), [lib.tensor([3.0])]]),
    "mapping_item": lambda lib: lib.testing.assert_close({"a": lib.tensor(2.0)},
                                                         {"a": lib.tensor(3.0)}),
    "mapping_keys": lambda lib: lib.testing.assert_close({"a": 1, "b": 2}, {"a": 1, "c": 2}),
    "sequence_length": lambda lib: lib.testing.assert_close([1.0, 2.0], [1.0]),
    "shape": lambda lib: lib.testing.assert_close(lib.tensor([1.0]), lib.tensor([1.0, 2.0])),
    "stride": lambda lib: lib.testing.assert_close(
        lib.zeros(2, 3), lib.zeros(3, 2).t(), check_stride=True),
    "message": lambda lib: lib.testing.assert_close(lib.tensor([1.0]), lib.tensor([2.0]),
                                                    msg="custom"),
    "message_in_a_sequence": lambda lib: lib.testing.assert_close(
        [lib.tensor([1.0])], [lib.tensor([2.0])], msg="custom"),
    "message_callable": lambda lib: lib.testing.assert_close(
        [lib.tensor([1.0])], [lib.tensor([2.0])], msg=lambda m: m + " extra"),
    "no_atol": lambda lib: lib.testing.assert_close(lib.tensor([1.0]), lib.tensor([1.0]),
                                                    rtol=1e-3),
    "no_rtol": lambda lib: lib.testing.assert_close(lib.tensor([1.0]), lib.tensor([1.0]),
                                                    atol=1e-3),
    "numpy_arrays": lambda lib: lib.testing.assert_close(np.array([1.0]), np.array([1.5])),
    "many": lambda lib: lib.testing.assert_close(lib.arange(12.0).reshape(3, 4),
                                                 lib.arange(12.0).reshape(3, 4) * 1.1),
}


@pytest.mark.parametrize("name", FAILING)
def test_failure_messages(name):
    assert_same_error(FAILING[name])


@pytest.mark.parametrize("fn, pattern", [
    (lambda lib: lib.testing.assert_close(lib.tensor([1.0]),
                                          lib.tensor([1.0], dtype=lib.float64)),
     r"^The values for attribute 'dtype' do not match: \w+\.float32 != \w+\.float64\.$"),
    (lambda lib: lib.testing.assert_close(lib.tensor([1]), lib.tensor([1.0])),
     r"^The values for attribute 'dtype' do not match: \w+\.int64 != \w+\.float32\.$"),
    (lambda lib: lib.testing.assert_close(lib.tensor([1.0]), 1.0),
     r"^No comparison pair was able to handle inputs of type <class '[\w.]+Tensor'> and "
     r"<class 'float'>\.$"),
    (lambda lib: lib.testing.assert_close("a", "b"),
     r"^No comparison pair was able to handle inputs of type <class 'str'> and "
     r"<class 'str'>\.$"),
    (lambda lib: lib.testing.assert_close(lib.tensor([1.0]), np.array([1.0])),
     r"^No comparison pair was able to handle inputs of type"),
])
def test_messages_that_name_the_library(fn, pattern):
    assert_same_error(fn, pattern)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.testing.assert_close(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.0 + 1e-6])),
    lambda lib: lib.testing.assert_close(lib.tensor([NAN]), lib.tensor([NAN]), equal_nan=True),
    lambda lib: lib.testing.assert_close(lib.tensor([1, 2]), lib.tensor([1.0, 2.0]),
                                         check_dtype=False),
    lambda lib: lib.testing.assert_close((1, 2), [1, 2]),
    lambda lib: lib.testing.assert_close(NAN, NAN, equal_nan=True),
    lambda lib: lib.testing.assert_close(None, None),
    lambda lib: lib.testing.assert_close(lib.tensor([], dtype=lib.float32),
                                         lib.tensor([], dtype=lib.float32)),
    lambda lib: lib.testing.assert_close(lib.tensor([1.0]), lib.tensor([1.0]).requires_grad_()),
    lambda lib: lib.testing.assert_close(lib.tensor([INF, -INF]), lib.tensor([INF, -INF])),
    lambda lib: lib.testing.assert_close({"b": [lib.tensor(1.0)], "a": 2},
                                         {"a": 2, "b": [lib.tensor(1.0 + 1e-7)]}),
    lambda lib: lib.testing.assert_close(lib.zeros(3, 2).t(), lib.zeros(2, 3)),
    lambda lib: lib.testing.assert_close(lib.tensor([1.0], dtype=lib.float16),
                                         lib.tensor([1.0005], dtype=lib.float16)),
    lambda lib: lib.testing.assert_close(lib.tensor([1.0], dtype=lib.bfloat16),
                                         lib.tensor([1.0078125], dtype=lib.bfloat16)),
])
def test_close_inputs_pass(fn):
    assert_same(lambda lib: fn(lib))


def test_make_tensor():
    def run(lib):
        T = lib.testing
        made = [T.make_tensor(2, 3, dtype=lib.float32, device="cpu"),
                T.make_tensor((4,), dtype=lib.int64, device="cpu"),
                T.make_tensor(5, dtype=lib.bool, device="cpu"),
                T.make_tensor(5, dtype=lib.uint8, device="cpu"),
                T.make_tensor(3, dtype=lib.complex64, device="cpu"),
                T.make_tensor(2, 2, dtype=lib.float64, device="cpu", low=1.0, high=2.0),
                T.make_tensor(6, dtype=lib.float32, device="cpu", exclude_zero=True)]
        shapes = [(tuple(t.shape), str(t.dtype).split(".")[-1]) for t in made]
        ranged = made[5]
        grad = T.make_tensor(2, dtype=lib.float32, device="cpu", requires_grad=True)
        noncontiguous = T.make_tensor(2, 3, dtype=lib.float32, device="cpu",
                                      noncontiguous=True)
        return shapes + [bool(((ranged >= 1) & (ranged <= 2)).all()),
                         bool((made[0].abs() <= 9).all()), bool((made[6] != 0).all()),
                         grad.requires_grad, grad.is_leaf, noncontiguous.is_contiguous(),
                         tuple(noncontiguous.shape)]
    assert_same(run)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.testing.make_tensor(2, 3, dtype=lib.int64, device="cpu", low=5, high=2),
    lambda lib: lib.testing.make_tensor(2, dtype=lib.float32, device="cpu", low=NAN),
    lambda lib: lib.testing.make_tensor(2, dtype=lib.int64, device="cpu", requires_grad=True),
])
def test_make_tensor_errors(fn):
    assert_same_error(fn, r"^`(low|requires_grad)")


def test_make_tensor_low_equal_high_warns():
    same_warning(lambda lib: lib.testing.make_tensor(3, dtype=lib.float32, device="cpu",
                                                     low=2, high=2).tolist(),
                 FutureWarning, "low==high")
    assert ag.testing.make_tensor(3, dtype=ag.float32, device="cpu").dtype == ag.float32
    assert not math.isnan(ag.testing.make_tensor(1, dtype=ag.float64, device="cpu").item())


@pytest.mark.parametrize("fn", [
    lambda lib: lib.testing.assert_allclose(lib.tensor([1.0, NAN]), [1.00001, NAN]),
    lambda lib: lib.testing.assert_allclose(lib.tensor([1.0, 2.0]), [1.0, 2.1]),
    lambda lib: lib.testing.assert_allclose(lib.tensor([1, 2]), lib.tensor([1.0, 2.5])),
    lambda lib: lib.testing.assert_allclose(lib.tensor([1.0]), [1.2], msg="custom"),
    lambda lib: lib.testing.assert_allclose(2.0, 2.5),
])
def test_deprecated_assert_allclose(fn):
    def run(lib):
        try:
            fn(lib)
        except AssertionError as error:
            return str(error)
        return None
    ours, theirs = same_warning(run, FutureWarning, r"assert_allclose\(\)` is deprecated")
    assert ours == theirs
