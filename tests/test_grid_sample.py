"""grid_sample, grid_sampler(_2d/_3d) and affine_grid (autograd_cy/nn/grid_sample.py,
affine_grid.py) against torch's: values, gradients and double backward (check_op) for every
mode x padding_mode x align_corners in 2-D and 3-D, points outside the image and on its
edges, ties of nearest, grids not finite, gradcheck, the nodes, torch's warning and errors,
and a spatial transformer (affine_grid then grid_sample) end to end."""
import warnings

import numpy as np
import pytest

import autograd_cy as ag
from oracle import (
    assert_same, assert_same_error, check_jvp, check_op, node_name, randn, same_warning)

MODES_2D = ("bilinear", "nearest", "bicubic")
MODES_3D = ("bilinear", "nearest")
PADDINGS = ("zeros", "border", "reflection")


def _grid(*shape, seed=0, spread=1.6):
    """Points in ``[-spread, spread]``: inside and outside the image."""
    return np.random.default_rng(seed).uniform(-spread, spread, shape)


def _sample(mode, padding, align_corners):
    return lambda lib, x, g: lib.nn.functional.grid_sample(
        x, g, mode=mode, padding_mode=padding, align_corners=align_corners)


@pytest.mark.parametrize("align_corners", (False, True))
@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("mode", MODES_2D)
def test_2d(mode, padding, align_corners):
    check_op(_sample(mode, padding, align_corners), randn(2, 2, 3, 4), _grid(2, 3, 2, 2))


@pytest.mark.parametrize("align_corners", (False, True))
@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("mode", MODES_3D)
def test_3d(mode, padding, align_corners):
    check_op(_sample(mode, padding, align_corners), randn(1, 2, 2, 3, 4),
             _grid(1, 2, 2, 2, 3, seed=1))


# On the edges (-1, 1: a clip's derivative is 0 there), far outside, and the coordinates
# ((g + 1) * 4 - 1) / 2 = 1.5 and 0.5, ties that nearest rounds to even.
EDGES = np.array([[[[-1.0, 1.0], [1.0, -1.0], [0.0, 0.0], [-0.5, 0.5]],
                   [[3.5, -2.25], [-7.0, 0.3], [0.25, 5.0], [1.0, 0.999]]]])


@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("mode", MODES_2D)
def test_edges_ties_and_far_points(mode, padding):
    for align_corners in (False, True):
        check_op(_sample(mode, padding, align_corners), randn(1, 2, 4, 4), EDGES)


@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("mode", MODES_2D)
def test_grid_not_finite(mode, padding):
    """NaN and infinite coordinates as torch's 2-D and 3-D kernels read them. (The 2-D
    values only: torch 2.13's 2-D backward crashes on a NaN point under border padding.)"""
    x = randn(1, 1, 3, 4)
    grid = np.array([[[[np.nan, 0.1], [0.2, np.inf], [-np.inf, 0.0], [1e20, 0.3]]]])
    assert_same(lambda lib: _sample(mode, padding, False)(lib, lib.tensor(x), lib.tensor(grid)))
    if mode != "bicubic":
        grid = np.array([[[[[np.nan, 0.1, 0.2], [0.2, np.inf, 0.1], [-np.inf, 0.0, 0.3],
                            [1e20, 0.3, -0.2]]]]])
        check_op(_sample(mode, padding, True), randn(1, 1, 2, 3, 4), grid,
                 requires_grad=(True, False), double=False)


def test_float32_and_empty():
    check_op(_sample("bicubic", "reflection", False), randn(2, 3, 4, 5), _grid(2, 3, 2, 2),
             dtype=np.float32)
    check_op(_sample("bilinear", "zeros", True), randn(2, 0, 3, 4), _grid(2, 3, 2, 2))
    check_op(_sample("bilinear", "border", True), randn(2, 1, 3, 4), _grid(2, 0, 2, 2))
    check_op(_sample("nearest", "zeros", False), randn(0, 1, 3, 4), _grid(0, 3, 2, 2))


@pytest.mark.parametrize("mode", (0, 1, 2))
def test_gradcheck(mode):
    x = ag.tensor(randn(1, 2, 3, 3), requires_grad=True)
    g = ag.tensor(_grid(1, 2, 3, 2, seed=3, spread=1.2), requires_grad=True)
    x3 = ag.tensor(randn(1, 1, 2, 3, 2), requires_grad=True)
    g3 = ag.tensor(_grid(1, 2, 1, 2, 3, seed=4, spread=1.2), requires_grad=True)
    for padding in (0, 2):
        assert ag.autograd.gradcheck(
            lambda a, b: ag.grid_sampler_2d(a, b, mode, padding, False), [x, g])
        assert ag.autograd.gradgradcheck(
            lambda a, b: ag.grid_sampler_2d(a, b, mode, padding, True), [x, g])
        if mode != 2:
            assert ag.autograd.gradcheck(
                lambda a, b: ag.grid_sampler_3d(a, b, mode, padding, True), [x3, g3])


def test_aten_names_and_nodes():
    def run(lib):
        x = lib.tensor(randn(1, 2, 3, 4), requires_grad=True)
        g = lib.tensor(_grid(1, 2, 2, 2))
        x3 = lib.tensor(randn(1, 2, 2, 3, 4), requires_grad=True)
        g3 = lib.tensor(_grid(1, 2, 1, 2, 3))
        theta = lib.tensor(randn(1, 2, 3), requires_grad=True)
        outs = [lib.grid_sampler(x, g, 2, 1, True), lib.grid_sampler_2d(x, g, 1, 2, False),
                lib.grid_sampler_3d(x3, g3, 0, 0, True), lib.grid_sampler(x3, g3, 1, 1, False),
                lib.affine_grid_generator(theta, (1, 1, 2, 3), False)]
        return [node_name(out.grad_fn) for out in outs] + [out.detach() for out in outs]
    assert_same(run)


def test_align_corners_warning():
    x, g = randn(1, 1, 3, 3), _grid(1, 2, 2, 2)
    theta = randn(1, 2, 3)
    same_warning(lambda lib: lib.nn.functional.grid_sample(lib.tensor(x), lib.tensor(g)),
                 UserWarning, "Default grid_sample and affine_grid behavior has changed")
    same_warning(lambda lib: lib.nn.functional.affine_grid(lib.tensor(theta), (1, 1, 2, 2)),
                 UserWarning, "align_corners=False since 1.3.0")
    same_warning(lambda lib: lib.nn.functional.affine_grid(lib.tensor(theta), (1, 1, 1, 2),
                                                           align_corners=True),
                 UserWarning, "behavior has changed for unit-size grids")
    for lib in (ag,):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            lib.nn.functional.grid_sample(lib.tensor(x), lib.tensor(g), align_corners=False)


def _f(lib):
    return lib.nn.functional


GRID_ERRORS = {
    "grid_last_dim": lambda lib: _f(lib).grid_sample(
        lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2, 3), align_corners=False),
    "grid_rank": lambda lib: _f(lib).grid_sample(
        lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2), align_corners=False),
    "batch": lambda lib: _f(lib).grid_sample(
        lib.zeros(2, 1, 3, 3), lib.zeros(1, 2, 2, 2), align_corners=False),
    "input_3d": lambda lib: _f(lib).grid_sample(
        lib.zeros(1, 3, 3), lib.zeros(1, 2, 2, 2), align_corners=False),
    "empty_spatial": lambda lib: _f(lib).grid_sample(
        lib.zeros(1, 1, 0, 3), lib.zeros(1, 2, 2, 2), align_corners=False),
    "bicubic_5d": lambda lib: _f(lib).grid_sample(
        lib.zeros(1, 1, 3, 3, 3), lib.zeros(1, 2, 2, 2, 3), mode="bicubic",
        align_corners=False),
    "bicubic_3d_op": lambda lib: lib.grid_sampler_3d(
        lib.zeros(1, 1, 3, 3, 3), lib.zeros(1, 2, 2, 2, 3), 2, 0, False),
    "2d_op_on_5d": lambda lib: lib.grid_sampler_2d(
        lib.zeros(1, 1, 3, 3, 3), lib.zeros(1, 2, 2, 2, 3), 0, 0, False),
    "3d_op_on_4d": lambda lib: lib.grid_sampler_3d(
        lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2, 2), 0, 0, False),
    "grid_dtype": lambda lib: _f(lib).grid_sample(
        lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2, 2, dtype=lib.float64), align_corners=False),
    "integer": lambda lib: _f(lib).grid_sample(
        lib.zeros(1, 1, 3, 3, dtype=lib.int64), lib.zeros(1, 2, 2, 2, dtype=lib.int64),
        align_corners=False),
    "complex": lambda lib: lib.grid_sampler_3d(
        lib.zeros(1, 1, 3, 3, 3, dtype=lib.complex64),
        lib.zeros(1, 2, 2, 2, 3, dtype=lib.complex64), 0, 0, False),
    "bad_mode": lambda lib: _f(lib).grid_sample(
        lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2, 2), mode="area"),
    "bad_padding": lambda lib: _f(lib).grid_sample(
        lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2, 2), padding_mode="circular"),
}


@pytest.mark.parametrize("name", GRID_ERRORS)
def test_grid_sample_errors(name):
    assert_same_error(GRID_ERRORS[name], exact=True)


AFFINE_ERRORS = {
    "theta_2d": (lambda lib: _f(lib).affine_grid(lib.zeros(1, 3, 3), (1, 1, 3, 3),
                                                 align_corners=False), "Nx2x3"),
    "theta_3d": (lambda lib: _f(lib).affine_grid(lib.zeros(1, 2, 3), (1, 1, 3, 3, 3),
                                                 align_corners=False), "Nx3x4"),
    "size": (lambda lib: _f(lib).affine_grid(lib.zeros(1, 2, 3), (1, 1, 3),
                                             align_corners=False), None),
    "zero_size": (lambda lib: _f(lib).affine_grid(lib.zeros(1, 2, 3), (1, 1, 0, 3),
                                                  align_corners=False), None),
    "integer_theta": (lambda lib: _f(lib).affine_grid(lib.zeros(1, 2, 3, dtype=lib.int64),
                                                      (1, 1, 3, 3), align_corners=False),
                      "Expected theta to have floating point type"),
    "generator_size": (lambda lib: lib.affine_grid_generator(lib.zeros(1, 2, 3), (1, 1, 3),
                                                             False), None),
    "generator_batch": (lambda lib: lib.affine_grid_generator(lib.zeros(2, 2, 3), (1, 1, 3, 3),
                                                              False), None),
    "generator_theta": (lambda lib: lib.affine_grid_generator(lib.zeros(1, 3, 3), (1, 1, 3, 3),
                                                              False), None),
}


@pytest.mark.parametrize("name", AFFINE_ERRORS)
def test_affine_grid_errors(name):
    fn, pattern = AFFINE_ERRORS[name]
    if pattern is None:
        assert_same_error(fn, exact=True)
    else:
        assert_same_error(fn, pattern)


@pytest.mark.parametrize("align_corners", (False, True))
@pytest.mark.parametrize("size", ((2, 3, 4, 5), (2, 1, 1, 3), (1, 2, 3, 4, 2), (1, 1, 1, 2, 1)))
def test_affine_grid(size, align_corners):
    theta = randn(size[0], len(size) - 2, len(size) - 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # the unit-size warning
        check_op(lambda lib, t: lib.nn.functional.affine_grid(t, size, align_corners), theta)


def test_spatial_transformer():
    """The tutorial's transformer: a linear layer's output reshaped to theta, affine_grid,
    grid_sample, a loss; values and every gradient against torch."""
    def run(lib):
        lib.manual_seed(0)
        images = lib.tensor(randn(2, 1, 6, 6))
        weight = lib.tensor(randn(6, 36, seed=1) * 0.05, requires_grad=True)
        bias = lib.tensor(np.array([1.0, 0.1, 0.05, -0.1, 0.9, 0.0]), requires_grad=True)
        theta = lib.nn.functional.linear(images.reshape(2, -1), weight, bias).view(-1, 2, 3)
        grid = lib.nn.functional.affine_grid(theta, tuple(images.shape), align_corners=False)
        warped = lib.nn.functional.grid_sample(images, grid, align_corners=False)
        loss = (warped - images).pow(2).mean()
        loss.backward()
        return loss.detach(), warped.detach(), weight.grad, bias.grad, node_name(
            grid.grad_fn), node_name(warped.grad_fn)
    assert_same(run)


def test_forward_ad():
    """affine_grid has a tangent (linear in theta); torch's grid_sampler has none."""
    check_jvp(lambda lib, t: lib.nn.functional.affine_grid(t, (2, 1, 2, 3), False),
              randn(2, 2, 3))
    check_jvp(lambda lib, t: lib.nn.functional.affine_grid(t, (1, 1, 2, 2, 3), True),
              randn(1, 3, 4))

    def dual(lib):
        forward_ad = lib.autograd.forward_ad
        x = lib.tensor(randn(1, 1, 3, 3))
        with forward_ad.dual_level():
            lib.nn.functional.grid_sample(forward_ad.make_dual(x, lib.ones_like(x)),
                                          lib.tensor(_grid(1, 2, 2, 2)), align_corners=False)
    assert_same_error(dual, NotImplementedError,
                      "Trying to use forward AD with grid_sampler_2d that does not support it")
