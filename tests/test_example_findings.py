"""Differences from torch found by running pytorch/examples' training scripts (mnist, dcgan,
word_language_model, time_sequence_prediction, ...) with autograd_cy in torch's place; one
test per finding, against torch."""
import numpy as np
import pytest

from oracle import check_op, randn

# Library ops written as Functions that return a reshape of a tensor made in their forward
# (NOTE [Views a library op makes inside its forward]); an in-place op after them, as
# nn.LeakyReLU(inplace=True) after a Conv2d, raised "is a view and is being modified".
INPLACE_AFTER = {
    "conv2d": (lambda lib, x, w: lib.nn.functional.conv2d(x, w, padding=1), (2, 3, 5, 5),
               (4, 3, 3, 3)),
    "conv1d": (lambda lib, x, w: lib.nn.functional.conv1d(x, w), (2, 3, 5), (4, 3, 3)),
    "conv_transpose3d": (lambda lib, x, w: lib.nn.functional.conv_transpose3d(x, w),
                         (1, 3, 2, 2, 2), (3, 2, 2, 2, 2)),
    "max_pool2d": (lambda lib, x, w: lib.nn.functional.max_pool2d(x, 2) * w, (2, 3, 4, 4), (1,)),
    "layer_norm": (lambda lib, x, w: lib.nn.functional.layer_norm(x, (3,), w), (2, 3), (3,)),
    "group_norm": (lambda lib, x, w: lib.nn.functional.group_norm(x, 1, w), (2, 3, 4), (3,)),
    "embedding": (lambda lib, x, w: lib.nn.functional.embedding(lib.tensor([[0, 2], [1, 1]]), x),
                  (3, 2), (1,)),
    "fold": (lambda lib, x, w: lib.nn.functional.fold(x, (3, 3), 2), (1, 4, 4), (1,)),
    "bicubic": (lambda lib, x, w: lib.nn.functional.interpolate(x, size=(3, 3), mode="bicubic"),
                (1, 1, 2, 2), (1,)),
}


@pytest.mark.parametrize("name", INPLACE_AFTER)
def test_an_op_output_is_no_view_and_takes_an_inplace_op(name):
    op, x_shape, w_shape = INPLACE_AFTER[name]

    def fn(lib, x, w):
        y = op(lib, x, w)
        assert y._is_view() is False
        return lib.nn.functional.leaky_relu_(y, 0.2)

    check_op(fn, randn(*x_shape), randn(*w_shape, seed=1) + 0.5)


def test_an_op_output_is_still_a_plain_tensor_under_no_grad():
    import autograd_cy as ag
    with ag.no_grad():
        y = ag.nn.functional.conv2d(ag.ones(1, 1, 3, 3), ag.ones(1, 1, 2, 2))
    assert not y._is_view()
    assert y._version == 0
    y.add_(1)
    np.testing.assert_array_equal(y.cpu().numpy(), np.full((1, 1, 2, 2), 5.0))


RANGE_INDEXING = {
    "get_range": lambda lib, x: x[range(1, 3)],
    "get_range_and_tensor": lambda lib, x: x[range(3), lib.tensor([0, 3, 1])],
    "get_range_step": lambda lib, x: x[:, range(0, 4, 2)],
    "get_empty_range": lambda lib, x: x[range(0)],
    # mnist_forward_forward's overlay of the label: x_[range(n), y] = x.max()
    "set_range_and_tensor": lambda lib, x: _set(x, (range(3), lib.tensor([0, 2, 1])), x.max()),
    "set_range": lambda lib, x: _set(x, range(2), x[2] * 3),
}


def _set(x, index, value):
    y = x.clone()
    y[index] = value
    return y


@pytest.mark.parametrize("name", RANGE_INDEXING)
def test_a_range_indexes_as_a_list(name):
    check_op(RANGE_INDEXING[name], randn(3, 4))


def test_a_list_holding_a_range_is_a_tuple_index_with_the_warning():
    from oracle import assert_close, same_warning
    ours, theirs = same_warning(lambda lib: lib.arange(12.).view(3, 4)[[range(2)]],
                                UserWarning, "non-tuple sequence")
    assert_close(ours, theirs)


ACCELERATOR_CALLS = {
    "is_available": lambda lib: lib.accelerator.is_available(),
    "device_count": lambda lib: lib.accelerator.device_count(),
    "current_accelerator": lambda lib: str(lib.accelerator.current_accelerator()),
    "checked": lambda lib: str(lib.accelerator.current_accelerator(check_available=True)),
    "index_context_none": lambda lib: lib.accelerator.device_index(None).__enter__(),
}


@pytest.fixture
def no_cuda_device(monkeypatch):
    """autograd_cy as on a machine without a GPU, torch's (the tests run on an emulated
    device otherwise)."""
    from autograd_cy.cuda import devices
    monkeypatch.setattr(devices, "_devices", [])


@pytest.mark.cpu_only
@pytest.mark.parametrize("name", ACCELERATOR_CALLS)
def test_accelerator_without_a_device(name, no_cuda_device):
    from oracle import assert_same
    assert_same(ACCELERATOR_CALLS[name])


@pytest.mark.cpu_only
@pytest.mark.parametrize("call", ["current_device_index", "synchronize", "current_stream"])
def test_accelerator_calls_that_need_a_device_raise_without_one(call, no_cuda_device):
    from oracle import assert_same_error
    assert_same_error(lambda lib: getattr(lib.accelerator, call)(), RuntimeError,
                      "Cannot access accelerator device when none is available")


def test_accelerator_is_cuda_when_a_device_is_there():
    import autograd_cy as ag
    if not ag.cuda.is_available():
        pytest.skip("no CUDA device (real or emulated)")
    assert ag.accelerator.current_accelerator() == ag.device("cuda")
    assert ag.accelerator.device_count() == ag.cuda.device_count()
    with ag.accelerator.device_index(0):
        assert ag.accelerator.current_device_index() == 0
    ag.accelerator.synchronize()
    x = ag.ones(2, device=ag.accelerator.current_accelerator())
    assert x.device.type == "cuda"


def test_copy_slices_is_named_as_torchs_cpp_node():
    """differentiable_physics' mass-spring writes rows of a tensor that requires grad
    (``positions[0] = ...``); the base's grad_fn is torch's C++ CopySlices."""
    from oracle import assert_same

    def run(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        y[0] = 5.0
        return y.grad_fn.name(), type(y.grad_fn).__name__
    assert_same(run)


def test_copy_across_devices():
    """A checkpoint saved from a model on the GPU loads into a model on the CPU and the
    other way (``load_state_dict`` copies each tensor in; fast_neural_style), orthogonal_
    fills a CUDA weight (super_resolution); the gradient goes back to the source's device."""
    import autograd_cy as ag
    import torch
    from oracle import assert_close
    if not ag.cuda.is_available():
        pytest.skip("no CUDA device (real or emulated)")
    model = ag.nn.Linear(3, 2, device="cpu")      # the device run makes CUDA tensors by default
    state = {k: v.to("cuda") * 2 for k, v in model.state_dict().items()}
    model.load_state_dict(state)
    assert model.weight.device.type == "cpu"
    assert_close(model.weight, state["weight"].cpu())
    on_gpu = ag.nn.Linear(3, 2).to("cuda")
    on_gpu.load_state_dict(model.state_dict())
    assert on_gpu.weight.device.type == "cuda"
    assert_close(on_gpu.weight.cpu(), model.weight)
    weight = ag.nn.init.orthogonal_(ag.empty(4, 3, device="cuda"))
    assert_close((weight.T @ weight).cpu(), ag.eye(3, device="cpu"), atol=1e-6)
    scalar_into = ag.zeros(2, device="cuda").copy_(ag.tensor(2.0, device="cpu"))
    assert scalar_into.device.type == "cuda" and scalar_into.tolist() == [2.0, 2.0]

    def run(lib, device):
        src = lib.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
        dst = lib.zeros(3, requires_grad=True, device="cpu") * 1
        dst.copy_(src * 2)
        (dst * lib.tensor([1.0, 2.0, 3.0], device="cpu")).sum().backward()
        return dst, src.grad
    ours, theirs = run(ag, "cuda"), run(torch, "cpu")
    assert ours[1].device.type == "cuda"
    assert_close([ours[0], ours[1].cpu()], list(theirs))
