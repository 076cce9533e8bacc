"""Sharing a real GPU's memory with CuPy and torch, without copies: DLPack both ways and
``__cuda_array_interface__``. These need a GPU (AUTOGRAD_CY_CUDA=auto and CuPy): ``make
test-gpu`` runs them; ``make test`` leaves this folder out (an emulated device keeps its
arrays in host memory and refuses to share them, which tests/test_dlpack.py checks).
"""
import numpy as np
import pytest

import autograd_cy as ag

cupy = pytest.importorskip("cupy")
if not ag.cuda.is_available() or type(ag.cuda.devices.get(0).seam).__name__ != "CupySeam":
    pytest.skip("needs a real GPU (make test-gpu)", allow_module_level=True)


def test_cupy_reads_a_tensor_without_a_copy():
    t = ag.arange(6, dtype=ag.float32, device="cuda").reshape(2, 3)
    c = cupy.from_dlpack(t)
    assert c.shape == (2, 3) and c.dtype == np.float32
    c[0, 0] = 42.0                                  # the same memory
    assert t.cpu().tolist()[0][0] == 42.0
    assert t.__dlpack_device__() == (2, 0)


def test_from_dlpack_shares_cupys_memory_and_round_trips():
    c = cupy.arange(8, dtype=cupy.float64)
    t = ag.from_dlpack(c)
    assert t.is_cuda and t.dtype == ag.float64
    t.add_(1)
    assert cupy.asnumpy(c).tolist() == list(np.arange(8) + 1.0)
    back = cupy.from_dlpack(t)
    assert back.data.ptr == c.data.ptr


def test_cuda_array_interface_is_cupys():
    t = ag.ones(4, 5, device="cuda").t()
    c = cupy.asarray(t)                             # through __cuda_array_interface__
    assert c.data.ptr == t.__cuda_array_interface__["data"][0]
    assert c.strides == (4, 20)


def test_torch_cuda_round_trip():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    t = ag.ones(3, device="cuda")
    x = torch.from_dlpack(t)
    x.mul_(2)
    assert t.cpu().tolist() == [2.0, 2.0, 2.0]
    assert ag.from_dlpack(x).cpu().tolist() == [2.0, 2.0, 2.0]


def test_a_gradient_flows_on_the_gpu():
    x = ag.tensor([0.5, -1.0], device="cuda", requires_grad=True)
    (x.tanh() * x).sum().backward()
    expected = np.tanh([0.5, -1.0]) + np.array([0.5, -1.0]) / np.cosh([0.5, -1.0]) ** 2
    np.testing.assert_allclose(x.grad.cpu().numpy(), expected, rtol=1e-6)
