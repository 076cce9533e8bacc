"""Sharing memory with torch and NumPy through DLPack, and the refusals torch makes."""
import numpy as np
import pytest
import torch

import autograd_cy as ag


# cpu_only: exchanges a CPU tensor's memory with torch's CPU build and NumPy, which read
# host memory only (the emulated device's refusal is test_an_emulated_cuda_tensor_...)
@pytest.mark.cpu_only
def test_torch_reads_a_tensor_without_a_copy():
    x = ag.tensor([1.0, 2.0, 3.0])
    shared = torch.from_dlpack(x)
    shared[0] = 10.0
    assert x.tolist() == [10.0, 2.0, 3.0]
    assert shared.dtype == torch.float32


def test_from_dlpack_shares_torchs_and_numpys_memory():
    source = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
    x = ag.from_dlpack(source)
    source[1, 1] = -1.0
    assert x.tolist() == [[1.0, 2.0], [3.0, -1.0]] and x.dtype == ag.float64
    assert x.requires_grad is False and x.grad_fn is None and x.is_leaf
    array = np.arange(6, dtype=np.int64).reshape(2, 3)[:, ::2]    # strided
    y = ag.from_dlpack(array)
    array[0, 0] = 7
    assert y.tolist() == [[7, 2], [3, 5]]


# cpu_only: exchanges a CPU tensor's memory with torch's CPU build and NumPy, which read
# host memory only (the emulated device's refusal is test_an_emulated_cuda_tensor_...)
@pytest.mark.cpu_only
def test_numpy_reads_a_tensor_and_round_trips():
    x = ag.tensor([1.5, -2.0])
    assert np.from_dlpack(x).tolist() == [1.5, -2.0]
    assert ag.from_dlpack(torch.from_dlpack(x)).tolist() == [1.5, -2.0]


# cpu_only: exchanges a CPU tensor's memory with torch's CPU build and NumPy, which read
# host memory only (the emulated device's refusal is test_an_emulated_cuda_tensor_...)
@pytest.mark.cpu_only
def test_dlpack_device_as_torch_reports_it():
    assert tuple(ag.ones(1).__dlpack_device__()) == tuple(int(v) for v in
                                                         torch.ones(1).__dlpack_device__())


# cpu_only: exchanges a CPU tensor's memory with torch's CPU build and NumPy, which read
# host memory only (the emulated device's refusal is test_an_emulated_cuda_tensor_...)
@pytest.mark.cpu_only
def test_a_tensor_that_requires_grad_is_refused_as_in_torch():
    for lib in (ag, torch):
        with pytest.raises(BufferError, match="Can't export tensors that require gradient, "
                                              "use tensor.detach()"):
            lib.ones(2, requires_grad=True).__dlpack__()
    assert torch.from_dlpack(ag.ones(2, requires_grad=True).detach()).tolist() == [1.0, 1.0]


# cpu_only: exchanges a CPU tensor's memory with torch's CPU build and NumPy, which read
# host memory only (the emulated device's refusal is test_an_emulated_cuda_tensor_...)
@pytest.mark.cpu_only
def test_cuda_array_interface_of_a_cpu_tensor_is_refused_as_in_torch():
    with pytest.raises(AttributeError, match="Can't get __cuda_array_interface__ on non-CUDA "
                                             "tensor type: autograd_cy.FloatTensor"):
        ag.ones(1).__cuda_array_interface__
    with pytest.raises(AttributeError, match="Can't get __cuda_array_interface__ on non-CUDA "
                                             "tensor type: torch.FloatTensor"):
        torch.ones(1).__cuda_array_interface__


def test_an_emulated_cuda_tensor_has_no_device_memory_to_share():
    t = ag.ones(2, device="cuda")
    assert t.__dlpack_device__() == (2, 0)
    with pytest.raises(RuntimeError, match="emulated cuda:0 tensor lives in host memory"):
        t.__dlpack__()
    with pytest.raises(RuntimeError, match="emulated cuda:0 tensor lives in host memory"):
        t.__cuda_array_interface__


def test_new_factories_follow_the_tensors_device():
    x = ag.ones(2, device="cuda")
    for made in (x.new_zeros(3), x.new_ones(3), x.new_empty(3), x.new_full((3,), 2.0),
                 x.new_tensor([1.0, 2.0, 3.0])):
        assert made.device == ag.device("cuda:0")
    assert x.new_zeros(3, device="cpu").device == ag.device("cpu")


@pytest.mark.cpu_only
def test_bfloat16_both_ways_without_a_copy():
    """NumPy's DLPack has no bfloat16; the capsule is relabelled (NOTE [bfloat16 through
    DLPack]), so torch reads ours and we read torch's, sharing memory."""
    x = ag.tensor([1.5, 2.5, -3.0], dtype=ag.bfloat16)
    t = torch.from_dlpack(x)
    assert t.dtype == torch.bfloat16
    t[0] = 7.0
    assert x.tolist() == [7.0, 2.5, -3.0]
    source = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.bfloat16).t()
    y = ag.from_dlpack(source)
    assert y.dtype == ag.bfloat16 and y.tolist() == source.tolist()
    source[0, 1] = 9.0
    assert y.tolist() == [[1.0, 9.0], [2.0, 4.0]]
    # a 16-bit integer capsule stays an integer one
    assert ag.from_dlpack(torch.tensor([3], dtype=torch.int16)).dtype == ag.int16
