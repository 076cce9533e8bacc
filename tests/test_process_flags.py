"""set_warn_always / is_warn_always_enabled, set_flush_denormal and the deprecated
set_default_tensor_type (autograd_cy/process_flags.py) against torch's."""
import warnings

import pytest

import autograd_cy as ag
from autograd_cy import warn_always
from oracle import LIBS, assert_same, assert_same_error


@pytest.fixture
def restore():
    saved = [(lib, lib.is_warn_always_enabled(), lib.get_default_dtype()) for lib in LIBS]
    yield
    for lib, always, dtype in saved:
        lib.set_warn_always(always)
        lib.set_default_dtype(dtype)
        lib.set_flush_denormal(False)


def test_warn_always_round_trip(restore):
    def run(lib):
        before = lib.is_warn_always_enabled()
        lib.set_warn_always(True)
        during = lib.is_warn_always_enabled()
        lib.set_warn_always(False)
        return [before, during, lib.is_warn_always_enabled()]
    assert_same(run)
    assert_same_error(lambda lib: lib.set_warn_always(1), RuntimeError, exact=True)


def _count_warnings(lib, call, times):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(times):
            call(lib)
    return len([w for w in caught if "deprecated" in str(w.message)])


def test_default_tensor_type_warns_once_unless_warn_always(restore):
    def run(lib):
        lib.set_default_tensor_type(lib.FloatTensor)       # the first warning, if any left
        once = _count_warnings(lib, lambda lib: lib.set_default_tensor_type(lib.FloatTensor), 2)
        lib.set_warn_always(True)
        always = _count_warnings(lib, lambda lib: lib.set_default_tensor_type(lib.FloatTensor),
                                 2)
        return [once, always]
    ours, _ = assert_same(run)
    assert ours == [0, 2]


def test_the_first_call_warns():
    warn_always._warned.clear()
    assert _count_warnings(ag, lambda lib: lib.set_default_tensor_type(lib.FloatTensor), 2) == 1


def test_default_tensor_type_sets_the_default_dtype(restore):
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.set_default_tensor_type(lib.DoubleTensor)
            first = [lib.get_default_dtype(), lib.tensor([1.5]).dtype]
            lib.set_default_tensor_type("torch.FloatTensor")
        return [str(d).split(".")[-1] for d in first + [lib.get_default_dtype()]]
    assert_same(run)


@pytest.mark.parametrize("case", [
    lambda lib: lib.set_default_tensor_type(lib.LongTensor),
    lambda lib: lib.set_default_tensor_type(lib.float64),
    lambda lib: lib.set_default_tensor_type("torch.IntTensor"),
])
def test_default_tensor_type_refuses_integer_types(case, restore):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(case, TypeError, exact=True)


def test_default_tensor_type_names_that_do_not_import(restore):
    assert_same_error(lambda lib: lib.set_default_tensor_type("foo.Bar"), ModuleNotFoundError,
                      exact=True)
    assert_same_error(lambda lib: lib.set_default_tensor_type("torch.Nope"), AttributeError,
                      "has no attribute 'Nope'")


@pytest.mark.cpu_only
def test_flush_denormal(restore):
    def run(lib):
        x = lib.tensor([1e-323, 1.0], dtype=lib.float64)
        try:
            supported = lib.set_flush_denormal(True)
            flushed = (x * 1).tolist()
        finally:
            lib.set_flush_denormal(False)
        return [supported, flushed, (x * 1).tolist()]
    ours, theirs = assert_same(run, rtol=0, atol=0)
    assert ours[1] == [0.0, 1.0] and ours[2][0] > 0
    assert_same_error(lambda lib: lib.set_flush_denormal(1), RuntimeError, exact=True)
