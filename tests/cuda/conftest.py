"""Fixtures shared by the kernel tests of tests/cuda."""
import types

import pytest

import autograd_cy as ag
from autograd_cy.cuda import indexing, launch

# (block, grid) caps of the emulated device: one thread, one block, several blocks
CAPS = [(1, 1), (4, 3), (32, 2)]


@pytest.fixture
def device():
    return ag.cuda.devices.get(0)


@pytest.fixture(params=CAPS, ids=lambda c: f"block{c[0]}-grid{c[1]}")
def capped(request, device, monkeypatch):
    """The device, its indexing launches under small caps: grid-stride loops must cover any
    configuration. (Only the indexing launches: the reductions of the bounds check have
    caps of their own.)"""
    caps = types.SimpleNamespace(max_block_size=request.param[0],
                                 max_grid_size=request.param[1])
    monkeypatch.setattr(indexing, "elementwise_config",
                        lambda n, seam: launch.elementwise_config(n, caps))
    return device
