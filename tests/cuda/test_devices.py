"""Devices as in torch: cuda tensors, moves between devices, mixing errors, the engine's
device checks. On a machine without a GPU these run on the emulated device (conftest)."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from autograd_cy.cuda.array import from_host
from tests.oracle import DEVICE  # noqa: F401  (the op suites' device knob)

MIXED = ("Expected all tensors to be on the same device, but found at least two devices, "
         "cuda:0 and cpu!")


def test_devices_are_parsed_as_torch_parses_them():
    for spec in ("cuda", "cuda:0", "cuda:1", "cpu"):
        assert repr(ag.device(spec)) == repr(torch.device(spec))
    assert ag.device("cuda", 0) == "cuda:0"


def test_the_cuda_module_mirrors_torch_cuda():
    assert ag.cuda.is_available()
    assert ag.cuda.device_count() >= 1
    assert ag.cuda.current_device() == 0
    ag.cuda.synchronize()
    ag.cuda.manual_seed(3)
    assert ag.cuda.initial_seed() == 3
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        ag.cuda.set_device(ag.cuda.device_count())


def test_factories_take_a_device():
    for make in (lambda: ag.zeros(2, 3, device="cuda"), lambda: ag.ones(2, device="cuda:0"),
                 lambda: ag.tensor([1.0, 2.0], device=ag.device("cuda")),
                 lambda: ag.full((2,), 7.0, device="cuda"), lambda: ag.randn(3, device="cuda"),
                 lambda: ag.arange(4, device="cuda"), lambda: ag.eye(2, device="cuda")):
        t = make()
        assert t.device == ag.device("cuda:0") and t.is_cuda
        assert str(t.device) == "cuda:0"
    like = ag.zeros_like(ag.ones(2, device="cuda"))
    assert like.is_cuda and like.cpu().tolist() == [0.0, 0.0]
    assert not ag.zeros_like(ag.ones(2, device="cuda"), device="cpu").is_cuda


def test_complex_tensors_live_on_the_device_and_missing_kernels_are_refused_as_torch():
    """Complex tensors are made on and moved to the device; an op whose kernel is not
    instantiated for complex dtypes raises torch's "not implemented for 'ComplexFloat'"
    (a NotImplementedError, which is a RuntimeError as torch's is), naming the kernel."""
    for make in (lambda: ag.tensor([1 + 2j], device="cuda"),
                 lambda: ag.zeros(2, dtype=ag.cdouble, device="cuda"),
                 lambda: ag.tensor([1j]).cuda(), lambda: ag.ones(2, device="cuda") * 1j):
        assert make().is_cuda and make().is_complex()
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat' on CUDA"
                                                  ".*unary<Complex<float>, Gelu>"):
        from_host(np.array([1 + 2j], np.complex64), ag.cuda.devices.get(0)).apply_functor("Gelu")


def test_a_device_that_does_not_exist_is_refused():
    with pytest.raises(RuntimeError, match="CUDA error: invalid device ordinal"):
        ag.ones(1, device=f"cuda:{ag.cuda.device_count()}")


def test_set_default_device():
    ag.set_default_device("cuda")
    try:
        assert ag.ones(2).is_cuda and ag.tensor([1.0]).is_cuda
        assert not ag.ones(2, device="cpu").is_cuda
    finally:
        ag.set_default_device(None)
    assert not ag.ones(2).is_cuda


def test_moves_copy_and_keep_values_and_dtype():
    host = ag.tensor([[1.5, -2.0], [3.0, 4.25]], dtype=ag.float64)
    device = host.cuda()
    assert device.is_cuda and device.dtype == ag.float64 and device.shape == host.shape
    assert device.cpu().tolist() == host.tolist()
    assert host.cpu() is host and device.cuda() is device and device.to("cuda") is device
    assert device.to("cpu").tolist() == host.tolist()
    both = host.to("cuda", ag.float32)
    assert both.is_cuda and both.dtype == ag.float32
    assert host.to(device).is_cuda          # to(other): other's dtype and device


def test_numpy_of_a_cuda_tensor_is_refused_as_in_torch():
    t = ag.ones(2, device="cuda")
    with pytest.raises(TypeError, match=r"can't convert cuda:0 device type tensor to numpy\. "
                                        r"Use Tensor\.cpu\(\) to copy the tensor to host"):
        t.numpy()
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor"):
        np.asarray(t)


def test_repr_names_the_device_as_torch_does():
    assert repr(ag.tensor([1.0, 2.0], device="cuda")) == "tensor([1., 2.], device='cuda:0')"
    assert (repr(ag.tensor([1.0], device="cuda", requires_grad=True))
            == "tensor([1.], device='cuda:0', requires_grad=True)")


def test_a_move_is_recorded_and_the_gradient_comes_back_to_the_leaf_device():
    leaf = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    moved = leaf.cuda()
    assert type(moved.grad_fn).__name__ == "ToCopyBackward0"
    moved.cpu().sum().backward()
    assert not leaf.grad.is_cuda and leaf.grad.tolist() == [1.0, 1.0, 1.0]


def test_mixing_devices_raises_torchs_error():
    a, b = ag.ones(2, device="cuda"), ag.ones(2)
    with pytest.raises(RuntimeError, match=MIXED):
        a + b
    with pytest.raises(RuntimeError, match=MIXED):
        b * a


def test_a_gradient_on_the_wrong_device_is_refused_by_the_engine():
    class ToHost(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return ag.ones(2)            # on the CPU, for an input on cuda:0

    x = ag.ones(2, device="cuda", requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Function ToHostBackward returned an invalid "
                                           r"gradient at index 0 - expected device cuda:0 "
                                           r"but got cpu"):
        ToHost.apply(x).sum().backward()


def test_the_gradient_given_to_backward_must_be_on_the_outputs_device():
    x = ag.ones(3, device="cuda", requires_grad=True)
    with pytest.raises(RuntimeError, match=r"invalid gradient at index 0 - expected device "
                                           r"cuda:0 but got cpu"):
        (x * 2).backward(ag.ones(3))
    (x * 2).sum().backward(ag.tensor(1.0))      # a 0-dim gradient is moved, as in torch
    assert x.grad.is_cuda and x.grad.cpu().tolist() == [2.0, 2.0, 2.0]


def test_a_cuda_leaf_gets_a_cuda_grad_that_accumulates_in_place():
    x = ag.tensor([1.0, 2.0], device="cuda", requires_grad=True)
    (x * x).sum().backward()
    first = x.grad
    (x * 3).sum().backward()
    assert x.grad is first and x.grad.is_cuda
    assert x.grad.cpu().tolist() == [5.0, 7.0]
