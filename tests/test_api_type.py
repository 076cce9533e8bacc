"""Tensor.type() and the torch-level questions is_tensor, is_storage, numel,
is_floating_point, is_complex, against torch."""
import pytest

import autograd_cy as ag
import torch
from oracle import LIBS, assert_same_error, node_name

DTYPE_NAMES = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int8",
               "int16", "int32", "int64", "uint8", "bool"]


def _prefix(tensor):
    """Where torch's type string names the device: a CUDA tensor is a 'torch.cuda.' type."""
    return "torch.cuda." if tensor.is_cuda else "torch."


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_type_string(name):
    ours = ag.zeros(2, dtype=getattr(ag, name))
    theirs = torch.zeros(2, dtype=getattr(torch, name))
    assert ours.type() == _prefix(ours) + theirs.type()[len("torch."):]


def test_type_string_names_the_cuda_device():
    assert ag.zeros(2, device="cuda").type() == "torch.cuda.FloatTensor"
    assert ag.zeros(2, device="cpu").type() == "torch.FloatTensor"


@pytest.mark.parametrize("target", ["float64", "torch.IntTensor", "LongTensor",
                                    "torch.DoubleTensor", "autograd_cy.HalfTensor"])
def test_type_converts(target):
    results = []
    for lib in LIBS:
        if target.startswith(("torch.", "autograd_cy.")):
            argument = "torch." + target.split(".", 1)[1]
        elif target.endswith("Tensor"):
            argument = getattr(lib, target)          # the legacy class
        else:
            argument = getattr(lib, target)          # a dtype
        x = lib.tensor([1.5, -2.0], device="cpu")
        results.append(x.type(argument))
    ours, theirs = results
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert ours.tolist() == theirs.tolist()
    assert ours.device.type == "cpu"


def test_type_to_the_same_type_is_self():
    for lib in LIBS:
        x = lib.ones(2)
        assert x.type(lib.float32) is x
        assert x.type("torch.FloatTensor" if lib is torch or not x.is_cuda
                      else "torch.cuda.FloatTensor") is x


def test_type_string_to_cuda_moves():
    y = ag.ones(2, device="cpu").type("torch.cuda.DoubleTensor")
    assert y.is_cuda and y.dtype is ag.float64
    assert y.type("torch.FloatTensor").device.type == "cpu"


def test_type_is_differentiable():
    results = []
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.type(lib.float64)
        (y * y).sum().backward()
        results.append((node_name(y.grad_fn), x.grad.tolist()))
    assert results[0] == results[1]


def test_type_errors():
    assert_same_error(lambda lib: lib.ones(2).type("foo"), ValueError)
    assert_same_error(lambda lib: lib.ones(2).type(3), TypeError)


def test_is_tensor_and_storage():
    for lib in LIBS:
        x = lib.ones(2)
        assert lib.is_tensor(x) and lib.is_tensor(lib.nn.Parameter(x))
        assert not lib.is_tensor(1.0) and not lib.is_tensor([x])
        assert lib.is_storage(x) is False


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_questions(name):
    ours = ag.zeros(3, 2, dtype=getattr(ag, name))
    theirs = torch.zeros(3, 2, dtype=getattr(torch, name))
    assert ag.numel(ours) == torch.numel(theirs) == 6
    assert ag.is_floating_point(ours) == torch.is_floating_point(theirs)
    assert ag.is_complex(ours) == torch.is_complex(theirs)


@pytest.mark.parametrize("function", ["numel", "is_floating_point", "is_complex"])
def test_questions_refuse_a_non_tensor(function):
    assert_same_error(lambda lib: getattr(lib, function)(3), TypeError)
