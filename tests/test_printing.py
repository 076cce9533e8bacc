"""set_printoptions against torch: repr with other precisions, thresholds, edge items,
line widths, profiles and sci_mode (torch's options are put back after every test)."""
import math
import re

import numpy as np
import pytest

import autograd_cy as ag
import torch
from autograd_cy import printing
from oracle import LIBS, _torch_spelling, assert_same


@pytest.fixture(autouse=True)
def default_options():
    yield
    for lib in LIBS:
        lib.set_printoptions(profile="default")


def _same_repr(options, values, dtype="float32"):
    texts = []
    for lib in LIBS:
        lib.set_printoptions(**options)
        tensor = lib.tensor(values, dtype=getattr(lib, dtype))
        texts.append(repr(tensor.cpu()))
    ours, theirs = (_one_line_dtype(text) for text in texts)
    assert ours == _torch_spelling(theirs).replace("torch.", "autograd_cy."), texts


def _one_line_dtype(text):
    """The dtype suffix joined to its line: "autograd_cy.float64" is 6 characters longer
    than "torch.float64", so where torch's suffix just fits, ours wraps."""
    return re.sub(r",\n *dtype=", ", dtype=", text)


VALUES = [
    [1.123456789, -2.5, 3.0],
    [[0.00001234, 1.5], [2.25, 1000.0]],
    [1.0, 2.0, 30000.0],
    list(np.linspace(-1, 1, 30)),
    np.arange(24.0).reshape(2, 3, 4).tolist(),
    [math.inf, -1.0, math.nan, 0.5],
]

OPTIONS = [
    {"precision": 2}, {"precision": 8}, {"precision": 0},
    {"threshold": 5}, {"threshold": 5, "edgeitems": 1}, {"threshold": 10, "edgeitems": 2},
    {"linewidth": 30}, {"linewidth": 200},
    {"profile": "short"}, {"profile": "full"}, {"profile": "default"},
    {"sci_mode": True}, {"sci_mode": False}, {"sci_mode": True, "precision": 2},
    {"profile": "short", "precision": 6},
]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("values", VALUES)
def test_repr_follows_the_options(options, values):
    _same_repr(options, values)
    _same_repr(options, values, "float64")


@pytest.mark.parametrize("options", [{"threshold": 5}, {"threshold": 5, "edgeitems": 1},
                                     {"linewidth": 20}, {"profile": "short"}])
def test_integer_tensors(options):
    _same_repr(options, list(range(12)), "int64")
    _same_repr(options, np.arange(30).reshape(5, 6).tolist(), "int32")


def test_full_profile_prints_everything():
    _same_repr({"profile": "full"}, list(np.linspace(0, 1, 1500)))
    assert "..." not in repr(ag.zeros(1200))


def test_sci_mode_is_reset_by_the_next_call():
    for lib in LIBS:
        lib.set_printoptions(sci_mode=True)
        lib.set_printoptions(precision=3)        # sci_mode=None again, as in torch
    _same_repr({}, [1.5, 2.25])


def test_get_printoptions_and_the_context_manager():
    from torch import _tensor_str
    ag.set_printoptions(precision=6, threshold=50)
    torch.set_printoptions(precision=6, threshold=50)
    assert printing.get_printoptions() == _tensor_str.get_printoptions()
    with printing.printoptions(precision=1), _tensor_str.printoptions(precision=1):
        assert repr(ag.tensor([1.25]).cpu()) == repr(torch.tensor([1.25])) == "tensor([1.2])"
    assert printing.get_printoptions() == _tensor_str.get_printoptions()


@pytest.mark.cpu_only     # a CUDA tensor's str names its device
def test_format_of_a_0_dim_tensor_is_its_number():
    """``f"{t}"`` of a 0-dim tensor formats ``t.item()`` (format specs included), as torch's
    Tensor.__format__; other tensors format as ``str``."""
    def run(lib):
        x = lib.tensor(0.3, requires_grad=True)
        return [f"{x}", f"{x:.2f}", f"{lib.tensor(3)}", f"{lib.tensor(True)}",
                "{:>8}".format(lib.tensor(2.5)), f"{lib.tensor([1.0, 2.0])}",
                f"{lib.tensor([[1]])}"]
    assert_same(run)
