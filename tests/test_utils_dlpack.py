"""``utils.dlpack`` against ``torch.utils.dlpack``: capsules both ways, consumed once."""
import numpy as np
import pytest
import torch
import torch.utils.dlpack

import autograd_cy as ag
from autograd_cy.utils import dlpack


def test_names_and_device_types_as_torchs():
    assert dlpack.__all__ == torch.utils.dlpack.__all__
    assert {k: int(v) for k, v in dlpack.DLDeviceType.__members__.items()} == \
        {k: int(v) for k, v in torch.utils.dlpack.DLDeviceType.__members__.items()}
    assert dlpack.from_dlpack is ag.from_dlpack


# cpu_only: the capsule shares a CPU tensor's host memory (an emulated CUDA tensor refuses)
@pytest.mark.cpu_only
def test_a_capsule_shares_memory_and_is_consumed_once():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)    # torch's to_dlpack takes it too
    for lib, mod, t in ((ag, dlpack, x), (torch, torch.utils.dlpack,
                                          torch.tensor([1.0, 2.0, 3.0], requires_grad=True))):
        capsule = mod.to_dlpack(t)
        assert type(capsule).__name__ == "PyCapsule" and "dltensor" in repr(capsule)
        y = mod.from_dlpack(capsule)
        assert y.tolist() == [1.0, 2.0, 3.0] and not y.requires_grad
        with torch.no_grad():
            y[0] = 7.0
        assert t[0].item() == 7.0
        assert "used_dltensor" in repr(capsule)
        with pytest.raises(RuntimeError, match="from_dlpack received an invalid capsule.*"
                                               "consumed only once"):
            mod.from_dlpack(capsule)


def test_torchs_capsule_and_a_non_capsule():
    y = dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(torch.arange(4, dtype=torch.int32)))
    assert y.tolist() == [0, 1, 2, 3] and y.dtype == ag.int32
    b = dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(torch.tensor([1.5], dtype=torch.bfloat16)))
    assert b.dtype == ag.bfloat16 and b.tolist() == [1.5]
    for mod in (dlpack, torch.utils.dlpack):
        with pytest.raises(RuntimeError, match="invalid capsule"):
            mod.from_dlpack(3)


def test_copy_and_device_keywords_as_torchs():
    for mod in (dlpack, torch.utils.dlpack):
        a = np.arange(3.0)
        copied, shared = mod.from_dlpack(a, copy=True), mod.from_dlpack(a, device="cpu")
        a[0] = 9.0
        assert copied.tolist() == [0.0, 1.0, 2.0] and shared.tolist() == [9.0, 1.0, 2.0]
