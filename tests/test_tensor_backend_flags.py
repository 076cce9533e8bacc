"""The Tensor attributes torch gives every tensor (autograd_cy/tensor_attributes.py):
the backend questions (``is_mkldnn`` ...: all False here; ``is_meta`` is
test_meta_device.py's), ``const_data_ptr``,
``is_pinned`` / ``pin_memory`` on a machine without an accelerator, and ``dim_order``."""
import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error

FLAGS = ["is_mkldnn", "is_quantized", "is_nested", "is_sparse_csr", "is_xpu",
         "is_mps", "is_vulkan", "is_ipu", "is_xla", "is_mtia", "is_maia"]


def test_backend_flags():
    assert_same(lambda lib: [getattr(lib.zeros(2), name) for name in FLAGS])


def test_const_data_ptr_and_is_pinned():
    def run(lib):
        x = lib.zeros(3)[1:]
        return [x.const_data_ptr() == x.data_ptr(), x.is_pinned()]
    assert_same(run)
    x = ag.zeros(4)
    assert x[1:].const_data_ptr() == x.data_ptr() + 4


def test_pin_memory_without_an_accelerator(monkeypatch):
    """torch here has no accelerator; the tests' emulated CUDA device is hidden."""
    monkeypatch.setattr(ag.cuda, "is_available", lambda: False)
    assert_same_error(lambda lib: lib.zeros(2).pin_memory(), RuntimeError, exact=True)


def test_pin_memory_with_an_accelerator_is_a_copy(monkeypatch):
    monkeypatch.setattr(ag.cuda, "is_available", lambda: True)
    x = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, device="cpu")
    pinned = x.t().pin_memory()
    assert pinned.tolist() == x.t().tolist() and pinned.data_ptr() != x.data_ptr()
    assert pinned.grad_fn.name() == "PinMemoryBackward0" and not pinned.is_pinned()
    (pinned * ag.tensor([[1.0, 2.0], [3.0, 4.0]], device="cpu")).sum().backward()
    assert x.grad.tolist() == [[1.0, 3.0], [2.0, 4.0]]


VIEWS = {
    "contiguous": lambda lib: lib.empty(2, 3, 5, 7),
    "transposed": lambda lib: lib.empty(2, 3, 5, 7).transpose(1, 2),
    "channels_last": lambda lib: lib.empty(2, 3, 5, 7, memory_format=lib.channels_last),
    "singleton": lambda lib: lib.empty(1, 2, 3, 4),
    "permuted": lambda lib: lib.empty(4, 3, 2).permute(2, 0, 1),
    "broadcast": lambda lib: lib.empty(3, 1).expand(3, 4),
    "equal_strides": lambda lib: lib.empty(6).as_strided((2, 3), (1, 1)),
    "scalar": lambda lib: lib.empty(()),
    "vector": lambda lib: lib.empty(5)[::2],
    "sliced_and_flipped": lambda lib: lib.empty(4, 6)[:, ::2].t(),
}


@pytest.mark.parametrize("name", VIEWS)
@pytest.mark.parametrize("check", [False, True, "formats"])
def test_dim_order(name, check):
    def run(lib):
        t = VIEWS[name](lib)
        if check == "formats":
            return t.dim_order(ambiguity_check=[lib.contiguous_format, lib.channels_last])
        return t.dim_order(ambiguity_check=check)
    try:
        import torch
        VIEWS[name](torch).dim_order(ambiguity_check=check if check != "formats" else [
            torch.contiguous_format, torch.channels_last])
    except RuntimeError:
        assert_same_error(run, RuntimeError, exact=True)
        return
    assert_same(lambda lib: list(run(lib)))


@pytest.mark.parametrize("bad", ["ILLEGAL", [1], (False,)])
def test_dim_order_argument(bad):
    assert_same_error(lambda lib: lib.empty(2, 3).dim_order(ambiguity_check=bad), TypeError,
                      exact=True)
