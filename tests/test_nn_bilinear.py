"""nn.Bilinear against torch's (initial values, outputs, gradients, repr, errors) and the
deprecated names nn.NLLLoss2d and nn.Container (their FutureWarnings) and nn.CrossMapLRN2d
(the legacy forward and backward, NOTE [CrossMapLRN2d's legacy windows])."""
import numpy as np
import pytest
import torch

from oracle import assert_same, assert_same_error, check_op, node_name, randn, same_warning


@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_module(bias):
    torch.manual_seed(0)
    initial = torch.nn.Bilinear(3, 2, 4, bias=bias, dtype=torch.float64).state_dict()

    def run(lib):                 # torch's initial parameters copied into ours
        layer = lib.nn.Bilinear(3, 2, 4, bias=bias, dtype=lib.float64)
        layer.load_state_dict({k: lib.tensor(v.numpy()) for k, v in initial.items()})
        x1 = lib.tensor(randn(2, 5, 3), requires_grad=True)
        x2 = lib.tensor(randn(2, 5, 2, seed=1), requires_grad=True)
        y = layer(x1, x2)
        y.pow(2).sum().backward()
        return (repr(layer), [(n, p, p.grad) for n, p in layer.named_parameters()], y,
                x1.grad, x2.grad, y.grad_fn.name())
    assert_same(run, rtol=1e-10, atol=1e-12)


@pytest.mark.cpu_only       # seeded: torch's CPU generator draws the weights
def test_bilinear_float32_default_and_reset():
    def run(lib):
        lib.manual_seed(5)
        layer = lib.nn.Bilinear(2, 3, 1)
        first = [p.clone() for p in layer.parameters()]
        layer.reset_parameters()
        return first, list(layer.parameters()), str(layer.weight.dtype).split(".")[-1]
    assert_same(run)


def test_bilinear_errors():
    assert_same_error(lambda lib: lib.nn.Bilinear(0, 2, 3), ValueError,
                      r"^in1_features must be > 0, but got \(in1_features=0\)$")
    assert_same_error(lambda lib: lib.nn.Bilinear(2, 2, 3)(lib.ones(1, 3), lib.ones(1, 2)),
                      RuntimeError, "input1 size does not match weight size")


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_nllloss2d():
    def run(lib):
        loss = lib.nn.NLLLoss2d(ignore_index=1, reduction="sum")
        x = lib.tensor(randn(2, 3, 2, 2)).log_softmax(1)
        target = lib.tensor(np.array([[[0, 1], [2, 2]], [[1, 0], [0, 2]]]))
        return repr(loss), loss(x, target), isinstance(loss, lib.nn.NLLLoss)
    same_warning(run, FutureWarning, r"^`NLLLoss2d` has been deprecated\. Please use "
                 r"`NLLLoss` instead")
    assert_same(run)


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_container():
    def run(lib):
        box = lib.nn.Container(a=lib.nn.ReLU(), b=lib.nn.Linear(1, 1))
        return repr(box), [name for name, _ in box.named_children()]
    same_warning(run, FutureWarning, r"^`nn\.Container` is deprecated\. All of its "
                 r"functionality is now implemented in `nn\.Module`")
    assert_same(run)


@pytest.mark.parametrize("size, channels", [(2, 1), (2, 5), (3, 4), (4, 6), (5, 3)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cross_map_lrn2d(size, channels, dtype):
    check_op(lambda lib, x: lib.nn.CrossMapLRN2d(size, 0.1, 0.75, 1.5)(x),
             randn(2, channels, 2, 3), dtype=dtype, double=False)


def test_cross_map_lrn2d_module_and_errors():
    def run(lib):
        layer = lib.nn.CrossMapLRN2d(3)
        y = layer(lib.tensor(randn(1, 2, 2, 2), requires_grad=True))
        return repr(layer), node_name(y.grad_fn), repr(lib.nn.CrossMapLRN2d(4, 0.5, 1, 2.0))
    assert_same(run)
    assert_same_error(lambda lib: lib.nn.CrossMapLRN2d(3)(lib.ones(2, 3, 4)), ValueError,
                      r"^CrossMapLRN2d: Expected input to be 4D, got 3D instead\.$")
    assert_same_error(lambda lib: lib.nn.CrossMapLRN2d(1)(
        lib.ones(1, 2, 2, 2, requires_grad=True)).sum().backward(), RuntimeError,
        r"^start \(1\) \+ length \(2\) exceeds dimension size \(2\)\.$")
