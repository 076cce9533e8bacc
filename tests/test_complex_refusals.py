"""Ops whose CPU kernels torch does not compile for complex dtypes refuse complex tensors
with torch's exception type and words (found by the fuzzer with --complex-share: seeds
963000064, 963000684, 963000264, 963000463, 963000360, 963000657, 963000717, 963001017)."""
import pytest

from oracle import assert_same_error

pytestmark = pytest.mark.cpu_only       # torch's words name its CPU kernels

CASES = {
    "sort": lambda lib, x: x.sort(),
    "argsort": lambda lib, x: x.argsort(stable=True),
    "msort": lambda lib, x: lib.msort(x),
    "topk": lambda lib, x: x.topk(1),
    "kthvalue": lambda lib, x: x.kthvalue(1),
    "cummax": lambda lib, x: x.cummax(0),
    "cummin": lambda lib, x: lib.cummin(x, 0),
    "xlogy": lambda lib, x: lib.xlogy(x, x),
    "xlogy_number": lambda lib, x: lib.xlogy(2.0, x),
    "xlogy_real_self": lambda lib, x: lib.xlogy(x.real, x),
    "remainder": lambda lib, x: lib.remainder(x, 3),
    "remainder_of_number": lambda lib, x: 3 % x,
    "fmod": lambda lib, x: lib.fmod(x, x),
    "smooth_l1_loss": lambda lib, x: lib.nn.functional.smooth_l1_loss(x, x),
    "huber_loss": lambda lib, x: lib.nn.functional.huber_loss(x, x),
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_refused(name, dtype):
    assert_same_error(lambda lib: CASES[name](lib, lib.ones(2, dtype=getattr(lib, dtype))),
                      exact=True)
