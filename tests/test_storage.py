"""Storages (``Tensor.untyped_storage()``, ``Tensor.storage()``, ``UntypedStorage``,
``TypedStorage`` and the legacy ``FloatStorage`` ...) against torch: the memory a tensor
views, shared with it, its sizes and bytes, ``set_`` from a storage, the deprecation
warning, and torch's errors."""
import warnings

import pytest

from oracle import assert_same, assert_same_error


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


def test_untyped_storage_is_the_memory_a_view_shares():
    def run(lib):
        x = lib.arange(6.0).reshape(2, 3)
        s = x[1:].untyped_storage()
        return [s.nbytes(), s.size(), len(s), s.element_size(), s.device == x.device,
                s.data_ptr() == x.data_ptr(), s is x.untyped_storage(), s[0], s[8], s[-1],
                s.is_shared(), s.is_cuda == x.is_cuda, x.is_shared(), s[4:8].tolist(),
                lib.tensor([1, 2], dtype=lib.int16).untyped_storage().tolist(),
                x.untyped_storage().clone().data_ptr() == x.data_ptr()]
    assert_same(run)


def test_writes_through_a_storage_reach_the_tensor():
    def run(lib):
        x = lib.arange(6.0)
        x.untyped_storage()[0:4] = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            typed = x.storage()
        typed[1] = 10.0
        return [x, typed.tolist(), lib.UntypedStorage(3).fill_(7).tolist()]
    assert_same(run)


@pytest.mark.cpu_only
def test_typed_storage_and_its_warning():
    def run(lib):
        x = lib.arange(4.0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            typed = x.storage()
        return [typed.size(), len(typed), _dtype_name(typed.dtype), typed.element_size(),
                typed.nbytes(), typed.data_ptr() == x.data_ptr(), typed[2],
                type(typed.untyped()).__name__, typed.tolist(),
                [str(w.message)[:60] for w in caught][:1]]
    assert_same(run)


@pytest.mark.cpu_only
def test_reprs():
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [repr(lib.tensor([1.0, 2.5]).storage()),
                    repr(lib.tensor([1.0]).untyped_storage())]
    assert_same(lambda lib: [text.replace("torch", "autograd_cy") for text in run(lib)]
                if lib.__name__ == "torch" else run(lib))


def test_new_storages_and_the_legacy_classes():
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [lib.UntypedStorage(4).nbytes(), lib.UntypedStorage([1, 2, 3])[1:].tolist(),
                    _dtype_name(lib.TypedStorage(3).dtype), lib.FloatStorage(2).size(),
                    lib.FloatStorage([1, 2]).tolist(), _dtype_name(lib.DoubleStorage(3).dtype),
                    lib.LongStorage([5]).tolist(), lib.is_storage(lib.UntypedStorage(1)),
                    lib.is_storage(lib.ones(1))]
    assert_same(run)


def test_set_from_a_storage():
    def run(lib):
        x = lib.arange(6.0).reshape(2, 3)
        window = lib.empty(0).set_(x.untyped_storage(), 2, (2,), (1,))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            whole = lib.empty(0).set_(x.storage())
        return [window, whole]
    assert_same(run)


@pytest.mark.cpu_only      # a device array made from a pointer does not know its owner
def test_set_from_a_storage_keeps_the_offset():
    assert_same(lambda lib: lib.empty(0).set_(lib.arange(6.0).untyped_storage(), 2, (2,),
                                              (1,)).storage_offset())


@pytest.mark.parametrize("fn, error, words", [
    (lambda lib: lib.tensor([1.0, 2.0]).storage()[0:1], RuntimeError,
     "slices are only supported in UntypedStorage.__getitem__"),
    (lambda lib: lib.ones(6).untyped_storage()[100], IndexError,
     "index 100 out of range for storage of size 24"),
    (lambda lib: lib.ones(6).untyped_storage()[::2], RuntimeError,
     "Trying to slice with a step of 2, but only a step of 1 is supported"),
    (lambda lib: lib.empty(0, dtype=lib.float64).set_(lib.ones(2).storage()), RuntimeError,
     "Expected a Storage of type double or an UntypedStorage, but got type Float for "
     "argument 1 'storage'"),
])
def test_storage_errors(fn, error, words):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(fn, error, words)


def test_conjugate_and_meta_tensors():
    def run(lib):
        c = lib.ones(2, dtype=lib.complex64).conj()
        meta = lib.empty(3, device="meta").untyped_storage()
        return [c.untyped_storage().nbytes(), c.untyped_storage().data_ptr() ==
                c.conj().data_ptr(), str(meta.device), meta.nbytes()]
    assert_same(run)


def test_make_subclass():
    def run(lib):
        class Weight(lib.Tensor):
            pass
        data = lib.ones(2)
        w = lib.Tensor._make_subclass(Weight, data, True)
        with lib.no_grad():
            data.add_(1)
        return [type(w).__name__, w.requires_grad, w.is_leaf, w.detach()]
    assert_same(run)
    assert_same_error(lambda lib: lib.Tensor._make_subclass(int, lib.ones(2)), TypeError,
                      "Creating a Tensor subclass from a class that does not inherit from "
                      "Tensor is not possible")
