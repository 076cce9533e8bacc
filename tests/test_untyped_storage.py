"""Tensor.untyped_storage(): the memory a tensor views, against torch."""
import numpy as np

import autograd_cy as ag
from tests.oracle import both


def test_storage_of_views_and_bytes():
    def run(lib):
        base = lib.arange(6.0, device="cpu")
        view = base[2:].view(2, 2)
        other = base.clone()
        small = lib.tensor([1, 2], dtype=lib.int16, device="cpu")
        return (view.untyped_storage().data_ptr() == base.untyped_storage().data_ptr(),
                view.data_ptr() - view.untyped_storage().data_ptr(),
                other.untyped_storage().data_ptr() == base.untyped_storage().data_ptr(),
                view.untyped_storage().nbytes(), len(small.untyped_storage()),
                small.untyped_storage().tolist(), small.untyped_storage()[1],
                small.untyped_storage().element_size(),
                str(small.untyped_storage().device),
                repr(small.untyped_storage()), repr(lib.empty(0, device="cpu").untyped_storage()))
    ours, theirs = both(run)
    assert ours == tuple(value.replace("torch.", "autograd_cy.") if isinstance(value, str)
                         else value for value in theirs)


def test_storage_of_a_device_tensor():
    x = ag.arange(4.0, device="cuda" if ag.cuda.is_available() else "cpu")
    assert x[1:].view(3).untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    storage = x[1:].untyped_storage()
    assert storage.nbytes() == 4 * x.element_size()
    assert storage.data_ptr() == x.data_ptr()
    assert storage.device == x.device
    assert np.frombuffer(bytes(storage.tolist()), dtype=np.float32).tolist() == [0, 1, 2, 3]
