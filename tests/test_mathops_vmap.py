"""The math ops of the Python modules (tensor_attributes, nan_reductions, min_max, ...,
gamma_functions, bessel) under vmap against torch.vmap: composites batch through their
ops' rules, the Functions run per element (NOTE [Ops written as Functions under vmap]); and their
batched gradients (is_grads_batched), once and differentiated again."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import check_batched_grad, randn

X = np.random.default_rng(0).standard_normal((3, 4, 5))
CASES = {
    "positive": lambda lib, t: t.positive(),
    "ravel": lambda lib, t: t.ravel(),
    "mH": lambda lib, t: t.mH,
    "adjoint": lambda lib, t: lib.adjoint(t),
    "nansum": lambda lib, t: lib.nansum(t, 1),
    "nanmean": lambda lib, t: lib.nanmean(t),
    "nanmedian": lambda lib, t: lib.nanmedian(t),
    "nanmedian_dim": lambda lib, t: lib.nanmedian(t, 1).values,
    "aminmax": lambda lib, t: lib.aminmax(t, dim=0).max,
    "fmax": lambda lib, t: lib.fmax(t, t.flip(0)),
    "fmin": lambda lib, t: lib.fmin(t, t.flip(1)),
    "deg2rad": lambda lib, t: lib.deg2rad(t),
    "frexp": lambda lib, t: lib.frexp(t).mantissa,
    "ldexp": lambda lib, t: lib.ldexp(t, lib.ones(5)),
    "dist": lambda lib, t: lib.dist(t, t * 2),
    "renorm": lambda lib, t: lib.renorm(t, 2, 0, 1.0),
    "logcumsumexp": lambda lib, t: lib.logcumsumexp(t, 1),
    "cov": lambda lib, t: lib.cov(t),
    "corrcoef": lambda lib, t: lib.corrcoef(t),
    "addmv": lambda lib, t: lib.addmv(t[:, 0], t, t[0]),
    "addr": lambda lib, t: lib.addr(t, t[:, 0], t[0]),
    "baddbmm": lambda lib, t: lib.baddbmm(t[None, :, :3], t[None], t[None].mT[:, :, :3]),
    "addbmm": lambda lib, t: lib.addbmm(t[:, :3], t[None], t[None].mT[:, :, :3]),
    "quantile": lambda lib, t: lib.quantile(t, 0.3, dim=1),
    "nanquantile": lambda lib, t: lib.nanquantile(t, 0.3),
    "diagonal_scatter": lambda lib, t: lib.diagonal_scatter(t, t[0, :4]),
    "select_scatter": lambda lib, t: lib.select_scatter(t, t[1], 0, 0),
    "slice_scatter": lambda lib, t: lib.slice_scatter(t, t[:1], 0, 1, 2),
    "masked_scatter": lambda lib, t: t.masked_scatter(t > 0, t * 2),
    "scatter_reduce": lambda lib, t: t.scatter_reduce(
        0, lib.tensor([[0, 1, 0, 2, 1], [2, 2, 1, 0, 0]]), t[:2], "amax"),
    "lgamma": lambda lib, t: lib.lgamma(t),
    "digamma": lambda lib, t: lib.digamma(t),
    "polygamma": lambda lib, t: lib.polygamma(2, t),
    "mvlgamma": lambda lib, t: lib.mvlgamma(t.abs() + 2, 2),
    "i0": lambda lib, t: lib.i0(t),
}


@pytest.mark.parametrize("name", CASES)
def test_vmap(name):
    fn = CASES[name]
    ours = ag.vmap(lambda t: fn(ag, t))(ag.tensor(X)).cpu().numpy()
    theirs = torch.vmap(lambda t: fn(torch, t))(torch.tensor(X)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-9)


BATCHED_GRAD = {
    "nansum": lambda lib, x: lib.nansum(x, 1),
    "aminmax": lambda lib, x: lib.aminmax(x, dim=0).max,
    "fmax": lambda lib, x: lib.fmax(x, x.flip(0)),
    "deg2rad": lambda lib, x: lib.deg2rad(x),
    "frexp": lambda lib, x: lib.frexp(x).mantissa,
    "ldexp": lambda lib, x: lib.ldexp(x, x),
    # an operand computed from the other: the recomputed composition's grad stops at each
    "dist_dependent": lambda lib, x: lib.dist(x, x * 2 + 1),
    "renorm": lambda lib, x: lib.renorm(x, 2, 0, 1.0),
    "logcumsumexp": lambda lib, x: lib.logcumsumexp(x, 1),
    "cov": lambda lib, x: lib.cov(x),
    "addmv": lambda lib, x: lib.addmv(x[:, 0], x, x[0]),
    "addbmm": lambda lib, x: lib.addbmm(x[:, :3], x[None], x[None].mT[:, :, :3]),
    "quantile": lambda lib, x: lib.quantile(x, 0.3, dim=1),
    "nanmedian": lambda lib, x: lib.nanmedian(x),
    "nanmedian_dim": lambda lib, x: lib.nanmedian(x, 1).values,
    "diagonal_scatter": lambda lib, x: lib.diagonal_scatter(x, x[0, :3]),
    "masked_scatter": lambda lib, x: x.masked_scatter(x > 0, x * 2),
    "scatter_reduce": lambda lib, x: x.scatter_reduce(
        0, lib.tensor([[0, 1, 0, 2], [2, 2, 1, 0]]), x[:2], "amax"),
    "lgamma": lambda lib, x: lib.lgamma(x),
    "mvlgamma": lambda lib, x: lib.mvlgamma(x.abs() + 2, 2),
    "i0": lambda lib, x: lib.i0(x),
}


@pytest.mark.parametrize("name", BATCHED_GRAD)
def test_batched_gradients(name):
    check_batched_grad(BATCHED_GRAD[name], randn(3, 4))
    check_batched_grad(BATCHED_GRAD[name], randn(3, 4), create_graph=True)
