"""utils.swap_tensors and the __future__ flags of nn.Module conversion, against torch."""
import weakref

import numpy as np
import pytest

from tests.oracle import assert_same_error, both


def test_swap_two_tensors():
    def run(lib):
        t1 = lib.arange(2.0).requires_grad_()
        (t1 * 3).sum().backward()
        t2 = lib.tensor([[5, 6, 7]], dtype=lib.int32)
        t1.note = "first"
        lib.utils.swap_tensors(t1, t2)
        return (t1.tolist(), t1.dtype == lib.int32, t1.requires_grad, t1.grad,
                t2.tolist(), t2.requires_grad, t2.grad.tolist(), getattr(t2, "note", None),
                hasattr(t1, "note"))
    ours, theirs = both(run)
    assert ours == theirs
    assert ours[0] == [[5, 6, 7]]


def test_swap_refuses_a_weakly_referenced_tensor():
    def run(lib):
        t1, t2 = lib.zeros(1), lib.ones(1)
        run.keep = weakref.ref(t1)
        lib.utils.swap_tensors(t1, t2)
    assert_same_error(run, RuntimeError, "Cannot swap t1 because it has weakref associated")


@pytest.mark.parametrize("flag", ["swap", "overwrite"])
def test_module_conversion_flags(flag):
    def run(lib):
        setter = getattr(lib.__future__, f"set_{flag}_module_params_on_conversion")
        getter = getattr(lib.__future__, f"get_{flag}_module_params_on_conversion")
        before = getter()
        lib.manual_seed(0)
        m = lib.nn.Linear(2, 3, device="cpu")
        m(lib.ones(1, 2, device="cpu")).sum().backward()
        w, g = m.weight, m.weight.grad
        setter(True)
        try:
            m.to(lib.float64)
        finally:
            setter(False)
        return (before, getter(), m.weight is w, m.weight.grad is g, str(m.weight.dtype)[-7:],
                str(m.weight.grad.dtype)[-7:], str(w.dtype)[-7:], type(m.weight).__name__,
                m.weight.requires_grad, np.round(m.weight.detach().numpy(), 6).tolist())
    ours, theirs = both(run)
    assert ours == theirs
