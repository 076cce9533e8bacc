"""The op table (NOTE [The op table] in pyx/ops/op_table.pyx): every entry against torch.

An entry makes its op's function, in-place form and Tensor methods, registers its tangent,
names its CUDA functor and writes its rows of docs/derivatives.md. These tests take every
entry from the table itself, so a new entry is checked here without a line of this file:
its forms exist as torch's do, its grad_fn is torch's, its gradient, second derivative and
tangent agree with torch's (on the input domain test_ops_pointwise.UNARY gives it, which a
new op must add), its in-place form saves what its Node needs, its functor is compiled, and
the doc rows are current.
"""
import os
import sys

import numpy as np
import pytest
import torch

import autograd_cy as ag
from autograd_cy._C.ops.op_table import unary_ops
from oracle import DEVICE, assert_same, assert_same_error, check_jvp, check_op, to_numpy
from test_ops_pointwise import UNARY, ZERO_SECOND_ORDER

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENTRIES = {op.name: op for op in unary_ops()}


def test_the_table_holds_the_pointwise_ops():
    assert {"exp", "log", "log2", "tanh", "sigmoid", "relu", "abs", "sign"} <= set(ENTRIES)
    assert ENTRIES["reciprocal"].module == "autograd_cy._C.ops.arithmetic"
    assert ENTRIES["sqrt"].module == "autograd_cy._C.ops.power"


@pytest.mark.parametrize("name", ENTRIES)
def test_every_entry_has_a_test_domain(name):
    """A new entry needs its input domain in test_ops_pointwise.UNARY: the op tests there and
    the checks below run on it."""
    assert name in UNARY, f"add {name!r} to test_ops_pointwise.UNARY"


@pytest.mark.parametrize("name", ENTRIES)
def test_an_entry_makes_the_forms_torch_has(name):
    op = ENTRIES[name]
    assert getattr(ag, name) is op.function
    assert getattr(ag.Tensor, name) is op.function
    assert op.function.__name__ == name and op.function.__doc__
    if not hasattr(torch.Tensor, name + "_"):     # angle
        assert op.inplace is None and not hasattr(ag.Tensor, name + "_")
        return
    assert op.inplace == name + "_"
    assert getattr(ag.Tensor, op.inplace).__name__ == op.inplace
    assert getattr(ag, op.inplace) is getattr(ag.Tensor, op.inplace)


@pytest.mark.parametrize("name", ENTRIES)
def test_grad_fn_and_saved_values_are_torchs(name):
    x = UNARY[name](3, 2)
    ours = getattr(ag, name)(ag.tensor(x, requires_grad=True, device=DEVICE))
    theirs = getattr(torch, name)(torch.tensor(x, requires_grad=True))
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    saved = ENTRIES[name].saved
    for value in saved.split(", ") if saved != "-" else ():
        np.testing.assert_allclose(to_numpy(getattr(ours.grad_fn, f"_saved_{value}")),
                                   getattr(theirs.grad_fn, f"_saved_{value}").detach().numpy())


@pytest.mark.parametrize("name", ENTRIES)
def test_value_gradient_and_second_derivative(name):
    check_op(lambda lib, x: getattr(lib, name)(x), UNARY[name](4, 3),
             double=name not in ZERO_SECOND_ORDER)


@pytest.mark.parametrize("name", ENTRIES)
def test_tangent(name):
    check_jvp(lambda lib, x: getattr(lib, name)(x), UNARY[name](4, 3))


@pytest.mark.parametrize("name", [name for name in ENTRIES if ENTRIES[name].inplace])
def test_inplace_form_keeps_backward_right(name):
    """The in-place form records the same Node; a Node that reads ``self`` gets a copy of
    the old value (so the gradient is right though ``self`` changed). (torch has no angle_:
    its entry has no in-place form.)"""
    inplace = ENTRIES[name].inplace
    if ENTRIES[name].inplace_node_type is not None:
        return      # test_inplace_form_without_derivative
    check_op(lambda lib, x: getattr(x * 1, inplace)(), UNARY[name](4, 3),
             double=name not in ZERO_SECOND_ORDER)


@pytest.mark.parametrize("name", [name for name, op in ENTRIES.items()
                                  if op.inplace_node_type is not None])
def test_inplace_form_without_derivative(name):
    """asinh_, acosh_, atanh_: torch records a Node of their own whose backward raises, and
    refuses a dual tensor (NOTE [In-place forms without a derivative])."""
    inplace, data = ENTRIES[name].inplace, UNARY[name](4, 3)

    def recorded(lib):
        x = lib.tensor(data, requires_grad=True) * 1
        getattr(x, inplace)()
        return type(x.grad_fn).__name__, x.detach().tolist()

    def backward(lib):
        x = lib.tensor(data, requires_grad=True) * 1
        getattr(x, inplace)().sum().backward()

    def dual(lib):
        with lib.autograd.forward_ad.dual_level():
            x = lib.autograd.forward_ad.make_dual(lib.tensor(data), lib.tensor(data))
            getattr(x, inplace)()

    assert_same(recorded)
    assert_same_error(backward, NotImplementedError)
    assert_same_error(dual, NotImplementedError)


@pytest.mark.parametrize("name", ENTRIES)
def test_integer_inputs(name):
    """Floating ops compute integers in float32; the others keep the dtype, as torch's."""
    x = np.array([[1, 2], [3, 4]], np.int64)
    ours, theirs = getattr(ag, name)(ag.tensor(x, device=DEVICE)), getattr(torch, name)(
        torch.tensor(x))
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(to_numpy(ours), theirs.numpy(), rtol=1e-6)


def test_cuda_functors_are_in_the_manifest():
    from autograd_cy.cuda import manifest
    kernels = {kernel.name for kernel in manifest.KERNELS}
    for op in ENTRIES.values():
        if op.cuda_functor is not None:
            assert op.cuda_functor in manifest.UNARY_FUNCTORS.values()
            assert f"unary<float, {op.cuda_functor}>" in kernels


def test_derivatives_md_is_written_from_the_table():
    sys.path.insert(0, os.path.join(ROOT, "docs"))
    try:
        import op_table as writer
    finally:
        sys.path.pop(0)
    with open(writer.PATH) as handle:
        text = handle.read()
    assert "<!-- op table: backward -->" in text
    assert writer.render(text) == text, "docs/derivatives.md is stale: run docs/op_table.py"
    for op in ENTRIES.values():
        assert f"| `{op.name}`" in text and f"| {op.node_type.__name__} |" in text
