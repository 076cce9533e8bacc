"""torch.asarray and torch.frombuffer (autograd_cy/asarray.py) against torch's: what shares
memory and what is copied (tensors, NumPy arrays and scalars, buffers, DLPack, sequences),
dtype and device conversions, copy=True/False, requires_grad's effect on leaves and on
tensors with a history (nodes), the warnings, and the errors."""
import array
import warnings

import numpy as np
import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, node_name


def _facts(t, source=None):
    return [t.tolist(), str(t.dtype).split(".")[-1], t.requires_grad, t.is_leaf,
            node_name(t.grad_fn), None if source is None else t.data_ptr() == source]


@pytest.mark.cpu_only
def test_tensors():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        z = lib.ones(2)
        out = [lib.asarray(y) is y, lib.asarray(x) is x]
        for kwargs in [{}, {"requires_grad": True}, {"dtype": lib.float64},
                       {"dtype": lib.float64, "requires_grad": False}, {"copy": True},
                       {"copy": True, "requires_grad": True}, {"device": "cpu"},
                       {"dtype": lib.float32, "copy": False}]:
            out.append(_facts(lib.asarray(y, **kwargs), y.data_ptr()))
        detached = lib.asarray(y, requires_grad=False)
        out += [_facts(detached, y.data_ptr()), detached is y]
        same = lib.asarray(x, requires_grad=False)
        out += [same is x, x.requires_grad]
        grown = lib.asarray(z, requires_grad=True)
        out += [grown is z, z.requires_grad, _facts(lib.asarray(lib.ones(2), copy=True,
                                                                requires_grad=True))]
        out.append(_facts(lib.asarray(lib.arange(3), dtype=lib.float32)))
        return out
    assert_same(run)


@pytest.mark.cpu_only
def test_numpy():
    def run(lib):
        n = np.arange(3.0)
        out = [_facts(lib.asarray(n), n.ctypes.data), _facts(lib.asarray(n, copy=True),
                                                              n.ctypes.data),
               _facts(lib.asarray(n, dtype=lib.float32), n.ctypes.data),
               _facts(lib.asarray(n[::2])), _facts(lib.asarray(np.float64(2.5))),
               _facts(lib.asarray(n, requires_grad=True), n.ctypes.data),
               _facts(lib.asarray(np.arange(3, dtype=np.int16)))]
        shared = lib.asarray(n)
        shared[0] = 7
        return out + [n[0]]
    assert_same(run)


@pytest.mark.cpu_only
def test_buffers():
    def run(lib):
        data = bytearray(b"\x01\x00\x02\x00")
        t = lib.asarray(data)
        t[0] = 9.0
        return [_facts(t), list(data), _facts(lib.asarray(bytearray(b"\x01\x00\x02\x00"),
                                                          dtype=lib.int16)),
                _facts(lib.asarray(array.array("f", [1.5, 2.5]))),
                _facts(lib.asarray(array.array("d", [1.5]), dtype=lib.float64))]
    assert_same(run)


def test_sequences_and_scalars():
    assert_same(lambda lib: [_facts(lib.asarray([1, 2])), _facts(lib.asarray([1.0, 2.0])),
                             _facts(lib.asarray(3.0)), _facts(lib.asarray([[1, 2], [3, 4]],
                                                                           dtype=lib.float64)),
                             _facts(lib.asarray([lib.tensor(1.0), lib.tensor(2.0)])),
                             _facts(lib.asarray([1.0, 2.0], requires_grad=True))])


@pytest.mark.cpu_only
def test_dlpack():
    class Exporter:
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, **kwargs):
            return self.array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    n = np.arange(4.0)
    t = ag.asarray(Exporter(n))
    t[1] = 10.0
    assert n[1] == 10.0 and t.dtype == ag.float64


@pytest.mark.parametrize("fn, kind", [
    (lambda lib: lib.asarray(lib.ones(2), dtype=lib.float64, copy=False), ValueError),
    (lambda lib: lib.asarray(np.arange(3.0), dtype=lib.float32, copy=False), ValueError),
    (lambda lib: lib.asarray([1, 2], copy=False), ValueError),
    (lambda lib: lib.asarray(3, copy=False), ValueError),
    (lambda lib: lib.asarray(np.float64(2.5), copy=False), RuntimeError),
    (lambda lib: lib.asarray(np.arange(3.0)[::-1]), ValueError),
    (lambda lib: lib.asarray([1, 2], requires_grad=True), RuntimeError),
    (lambda lib: lib.asarray(b"abc"), ValueError),
    (lambda lib: lib.asarray([[1, 2], [3]]), ValueError),
    (lambda lib: lib.asarray(None), RuntimeError),
])
def test_asarray_errors(fn, kind):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(fn, kind, exact=True)


def test_frombuffer():
    def run(lib):
        data = array.array("i", [1, 2, 3])
        t = lib.frombuffer(data, dtype=lib.int32, offset=4)
        t[0] = 20
        return [_facts(t), list(data),
                _facts(lib.frombuffer(bytearray(9), dtype=lib.float32, count=2, offset=1)),
                _facts(lib.frombuffer(bytearray(8), dtype=lib.float32, requires_grad=True)),
                _facts(lib.frombuffer(bytearray(b"\x01\x00"), dtype=lib.bool)),
                _facts(lib.frombuffer(bytearray(b"\x00\x3c"), dtype=lib.float16)),
                _facts(lib.frombuffer(np.arange(3.0), dtype=lib.float64))]
    assert_same(run)


@pytest.mark.parametrize("fn, kind", [
    (lambda lib: lib.frombuffer([1, 2], dtype=lib.float32), ValueError),
    (lambda lib: lib.frombuffer(bytearray(b""), dtype=lib.float32), ValueError),
    (lambda lib: lib.frombuffer(bytearray(8), dtype=lib.float32, count=0), ValueError),
    (lambda lib: lib.frombuffer(bytearray(8), dtype=lib.float32, offset=8), ValueError),
    (lambda lib: lib.frombuffer(bytearray(8), dtype=lib.float32, offset=-1), ValueError),
    (lambda lib: lib.frombuffer(bytearray(9), dtype=lib.float32), ValueError),
    (lambda lib: lib.frombuffer(bytearray(9), dtype=lib.float32, count=3), ValueError),
    (lambda lib: lib.frombuffer(bytearray(8), dtype=lib.int32, requires_grad=True),
     RuntimeError),
])
def test_frombuffer_errors(fn, kind):
    assert_same_error(fn, kind, exact=True)


def test_read_only_sources_warn_once():
    from autograd_cy import warn_always
    warn_always._warned.clear()
    n = np.arange(3.0)
    n.flags.writeable = False
    for source, make in [(n, lambda: ag.asarray(n)),
                         (b"ab", lambda: ag.frombuffer(b"ab", dtype=ag.uint8))]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            make()
            make()
        assert len([w for w in caught if "not writable" in str(w.message)]) == 1
