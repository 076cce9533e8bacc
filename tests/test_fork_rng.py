"""torch.random.fork_rng: draws inside the block do not change the draws after it."""
import numpy as np
import pytest
import torch

import autograd_cy as ag

pytestmark = pytest.mark.cpu_only


def _draws(lib, enabled):
    lib.manual_seed(7)
    before = lib.rand(3)
    with lib.random.fork_rng(enabled=enabled):
        inside = lib.rand(3)
        lib.manual_seed(123)
        reseeded = lib.randn(2)
    after = lib.rand(3)
    return [t.numpy() for t in (before, inside, reseeded, after)]


@pytest.mark.parametrize("enabled", [True, False])
def test_fork_rng_restores_the_cpu_state(enabled):
    for ours, theirs in zip(_draws(ag, enabled), _draws(torch, enabled)):
        np.testing.assert_array_equal(ours, theirs)


def test_fork_rng_names():
    for name in ("manual_seed", "initial_seed", "get_rng_state", "set_rng_state", "fork_rng"):
        assert callable(getattr(ag.random, name)) and hasattr(torch.random, name)
    with ag.random.fork_rng(devices=[]):
        pass
    with ag.random.fork_rng(device_type="meta"):
        pass
