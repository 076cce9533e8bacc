"""Memory formats against torch: the strides of channels_last / channels_last_3d copies,
is_contiguous(memory_format=), clone/contiguous/to/the like-factories/empty with
memory_format=, their nodes and gradients, reprs and errors."""
import numpy as np
import pytest

import autograd_cy as ag
import torch
from oracle import (LIBS, assert_close, assert_same_error, check_op, node_name, on_test_device,
                    to_numpy)

FORMATS = ["contiguous_format", "preserve_format", "channels_last"]


def test_reprs_and_identity():
    for name in FORMATS + ["channels_last_3d"]:
        ours, theirs = getattr(ag, name), getattr(torch, name)
        assert repr(ours) == repr(theirs).replace("torch.", "autograd_cy.")
        assert isinstance(ours, ag.memory_format)
    assert ag.channels_last is not ag.contiguous_format


def _both(fn, *shape):
    """``fn(lib, x)`` for the same values on both libraries."""
    values = np.arange(float(np.prod(shape))).reshape(shape)
    with on_test_device():
        ours = fn(ag, ag.tensor(values))
    return ours, fn(torch, torch.tensor(values))


def _same_layout(ours, theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.stride() == theirs.stride()
    assert_close(ours, theirs)


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 3, 1, 2), (2, 1, 3, 3), (3, 2, 1, 1)])
@pytest.mark.parametrize("method", ["clone", "contiguous", "to"])
@pytest.mark.parametrize("name", FORMATS)
def test_layout_of_4d_copies(shape, method, name):
    def fn(lib, x):
        return getattr(x, method)(memory_format=getattr(lib, name))
    _same_layout(*_both(fn, *shape))


@pytest.mark.parametrize("method", ["clone", "contiguous"])
def test_channels_last_3d(method):
    def fn(lib, x):
        return getattr(x, method)(memory_format=lib.channels_last_3d)
    _same_layout(*_both(fn, 2, 3, 2, 4, 5))


@pytest.mark.parametrize("name", FORMATS)
def test_from_channels_last_back(name):
    def fn(lib, x):
        y = x.contiguous(memory_format=lib.channels_last)
        return y.clone(memory_format=getattr(lib, name))
    _same_layout(*_both(fn, 2, 3, 4, 5))
    _same_layout(*_both(lambda lib, x: x.contiguous(memory_format=lib.channels_last)
                        .contiguous(), 2, 3, 4, 5))


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 3, 1, 1), (1, 1, 1, 1), (2, 3), (2, 3, 4)])
def test_is_contiguous(shape):
    results = []
    for lib in LIBS:
        x = lib.zeros(shape)
        answers = [x.is_contiguous(), x.is_contiguous(memory_format=lib.contiguous_format),
                   x.is_contiguous(memory_format=lib.channels_last)]
        if x.dim() == 4:
            y = x.contiguous(memory_format=lib.channels_last)
            answers += [y.is_contiguous(), y.is_contiguous(memory_format=lib.channels_last),
                        y.contiguous(memory_format=lib.channels_last) is y,
                        y.is_contiguous(memory_format=lib.channels_last_3d)]
        results.append(answers)
    assert results[0] == results[1]


def test_nodes_and_gradients():
    results = []
    for lib in LIBS:
        x = lib.tensor(np.arange(120.0).reshape(2, 3, 4, 5) / 7, requires_grad=True)
        weights = lib.tensor(np.linspace(-1, 1, 120).reshape(2, 3, 4, 5))
        outputs = [x.clone(memory_format=lib.channels_last),
                   x.contiguous(memory_format=lib.channels_last),
                   x.to(memory_format=lib.channels_last),
                   x.to(lib.float32, memory_format=lib.channels_last)]
        names = [node_name(y.grad_fn) for y in outputs]
        total = sum((y.double() * weights).sum() for y in outputs)
        (grad,) = lib.autograd.grad(total, x)
        results.append((names, to_numpy(grad), outputs[3].dtype is lib.float32))
    assert results[0][0] == results[1][0] == ["CloneBackward0", "CloneBackward0",
                                              "ToCopyBackward0", "ToCopyBackward0"]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)
    assert results[0][2] and results[1][2]


def test_double_backward_and_forward_ad():
    check_op(lambda lib, x: x.clone(memory_format=lib.channels_last) ** 2,
             np.linspace(-1, 1, 24).reshape(1, 2, 3, 4))
    check_op(lambda lib, x: x.contiguous(memory_format=lib.channels_last).sin(),
             np.linspace(-1, 1, 24).reshape(2, 2, 3, 2))


def test_to_returns_self_when_nothing_changes():
    for lib in LIBS:
        x = lib.zeros(2, 3, 4, 5)
        assert x.to(memory_format=lib.contiguous_format) is x
        assert x.to(memory_format=lib.preserve_format) is x
        y = x.contiguous(memory_format=lib.channels_last)
        assert y.to(memory_format=lib.channels_last) is y


@pytest.mark.parametrize("factory", ["empty_like", "zeros_like", "ones_like", "rand_like",
                                     "randn_like"])
@pytest.mark.parametrize("name", FORMATS)
def test_like_factories(factory, name):
    results = []
    for lib in LIBS:
        x = lib.zeros(2, 3, 4, 5).contiguous(memory_format=lib.channels_last)
        plain = lib.zeros(2, 3, 4, 5)
        for source in (x, plain):
            y = getattr(lib, factory)(source, memory_format=getattr(lib, name))
            results.append(y.stride())
    assert results[:2] == results[2:]


def test_full_like_and_empty():
    for lib in LIBS:
        y = lib.full_like(lib.zeros(2, 3, 4, 5), 2.5, memory_format=lib.channels_last)
        assert y.stride() == (60, 1, 15, 3) and float(y.sum()) == 300.0
        assert lib.empty(2, 3, 4, 5, memory_format=lib.channels_last).stride() == (60, 1, 15, 3)
        z = lib.zeros_like(lib.zeros(2, 3, 4, 5), memory_format=lib.channels_last,
                           requires_grad=True)
        assert z.is_leaf and z.requires_grad


@pytest.mark.cpu_only
def test_randn_like_draws_in_memory_order():
    ours, theirs = [], []
    for lib, out in ((ag, ours), (torch, theirs)):
        lib.manual_seed(5)
        out.append(lib.randn_like(lib.zeros(2, 3, 4, 5), memory_format=lib.channels_last))
    np.testing.assert_allclose(to_numpy(ours[0]), to_numpy(theirs[0]), rtol=1e-6, atol=1e-6)


def test_errors():
    assert_same_error(lambda lib: lib.zeros(2, 3).contiguous(memory_format=lib.channels_last),
                      RuntimeError, exact=True)
    assert_same_error(lambda lib: lib.zeros(2, 3, 4).clone(memory_format=lib.channels_last),
                      RuntimeError, exact=True)
    assert_same_error(lambda lib: lib.zeros(2, 3, 4, 5).clone(
        memory_format=lib.channels_last_3d), RuntimeError, exact=True)


@pytest.mark.parametrize("shape, name", [((2, 3), "contiguous_format"),
                                         ((2, 3, 2, 2), "channels_last")])
def test_a_layout_clone_is_no_view(shape, name):
    """``clone(memory_format=...)`` is a new tensor that can be written in place (it was a
    view of the Function's copy, refused as a custom Function's view); the input stays."""
    for lib in LIBS:
        x = lib.ones(*shape, requires_grad=True)
        y = x.clone(memory_format=getattr(lib, name))
        assert not y._is_view()
        y.mul_(2)
        y.sum().backward()
        assert x.grad.eq(2).all() and x.eq(1).all()
        assert node_name(y.grad_fn) == "MulBackward0"


@pytest.mark.parametrize("convert", [lambda lib, x: x.to(lib.float64), lambda lib, x: x.half(),
                                     lambda lib, x: x.type_as(lib.zeros(1, dtype=lib.float64))],
                         ids=["to", "half", "type_as"])
@pytest.mark.parametrize("expanded", [lambda x: x.expand(3, 2),
                                      lambda x: x.reshape(2, 1).expand(2, 3).t()],
                         ids=["expand", "expand_t"])
def test_a_dtype_conversion_of_an_expanded_tensor_is_contiguous(convert, expanded):
    """preserve_format of a tensor that is not dense: contiguous, as torch's _to_copy, so
    that a view of the result works (fuzz seed 981003423)."""
    results = [convert(lib, expanded(lib.tensor([1.0, 2.0]))) for lib in LIBS]
    assert results[0].stride() == results[1].stride()
    assert results[0].view(-1).tolist() == results[1].view(-1).tolist()
