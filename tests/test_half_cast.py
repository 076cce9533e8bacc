"""float32 to float16 and back in one C loop each (NOTE [Rounding to float16] in
pyx/half_cast.pyx): the same bits as torch's conversion on random bit patterns (every class
of float32: normal, subnormal, inf, NaN) and on the edges of float16's range; every float16
back to float32."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from autograd_cy._C.half_cast import float16_to_float32, float32_to_float16

pytestmark = pytest.mark.cpu_only

EDGES = [0.0, -0.0, np.inf, -np.inf, 65504.0, 65519.99, 65520.0, -65520.0, 1e-8, 2.0 ** -25,
         2.0 ** -24, 3 * 2.0 ** -25, 2.0 ** -14, 2.0 ** -14 * (1 - 2.0 ** -12), 1e-45,
         5.9604645e-08, 6.097555e-05, 0.1, 1 / 3]


def torch_bits(values):
    return torch.from_numpy(values).to(torch.float16).view(torch.int16).numpy()


def test_same_bits_as_torch():
    rng = np.random.default_rng(0)
    values = rng.integers(0, 2 ** 32, 2 ** 20, dtype=np.uint64).astype(np.uint32).view(
        np.float32)
    values = values[~np.isnan(values)]          # NaN payloads: checked below
    edges = np.array(EDGES + [-v for v in EDGES], np.float32)
    for x in (values, edges):
        assert np.array_equal(float32_to_float16(x).view(np.int16), torch_bits(x))
        assert np.array_equal(ag.from_numpy(x).to(ag.float16).numpy().view(np.int16),
                              torch_bits(x))


def test_nan_stays_nan_and_other_arrays_are_left_to_numpy():
    nan = float32_to_float16(np.array([np.nan, -np.nan], np.float32))
    assert np.isnan(nan).all()
    assert float32_to_float16(np.ones(3)) is None                       # float64
    assert float32_to_float16(np.ones((3, 2), np.float32).T) is None    # not C-contiguous
    out = np.empty(4, np.float16)
    assert float32_to_float16(np.arange(4, dtype=np.float32), out=out) is out
    assert out.tolist() == [0, 1, 2, 3]


def test_float16_to_float32_is_exact_on_every_value():
    halves = np.arange(2 ** 16, dtype=np.uint16).view(np.float16)
    ours = float16_to_float32(halves)
    expected = halves.astype(np.float32)
    assert np.array_equal(ours.view(np.uint32), expected.view(np.uint32))
    theirs = torch.from_numpy(halves.copy()).to(torch.float32).numpy()
    finite = ~np.isnan(expected)
    assert np.array_equal(ours[finite], theirs[finite])
    t = ag.from_numpy(halves.copy())
    assert np.array_equal(t.to(ag.float32).numpy().view(np.uint32), expected.view(np.uint32))
    into = ag.zeros(2 ** 16)
    into.copy_(t)
    assert np.array_equal(into.numpy().view(np.uint32), expected.view(np.uint32))
    assert float16_to_float32(halves, out=np.empty(3, np.float32)) is None   # another shape
