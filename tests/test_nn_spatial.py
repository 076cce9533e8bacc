"""The spatial layers against torch: interpolate (every mode, size or scale factor,
align_corners, recompute_scale_factor) and the Upsample layers; conv_transpose1d/2d and
ConvTranspose1d/2d (seeded initialisation, output_size); pixel_shuffle / pixel_unshuffle /
channel_shuffle and their layers; adaptive_avg_pool1d, adaptive_max_pool1d/2d and their
layers. Values, gradients and double backward (check_op), forward AD, gradcheck and
gradgradcheck, node names, reprs and torch's errors."""
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import (DEVICE, assert_same_error, check_gradcheck, check_jvp, check_op,
                    node_name, randn, to_numpy)


def F(lib):
    return lib.nn.functional


# name: (fn(lib, *tensors), shapes of the tensors)
CASES = {
    # interpolate
    "nearest_1d_scale": (lambda lib, x: F(lib).interpolate(x, scale_factor=2), (2, 3, 4)),
    "nearest_2d_size": (lambda lib, x: F(lib).interpolate(x, size=(7, 3)), (1, 2, 5, 4)),
    "nearest_2d_down": (lambda lib, x: F(lib).interpolate(x, scale_factor=0.6), (1, 2, 5, 6)),
    "nearest_3d": (lambda lib, x: F(lib).interpolate(x, scale_factor=(1.5, 2, 0.5)),
                   (1, 1, 2, 3, 4)),
    "nearest_exact_2d": (lambda lib, x: F(lib).interpolate(x, scale_factor=1.7,
                                                           mode="nearest-exact"), (1, 2, 3, 4)),
    "nearest_exact_1d": (lambda lib, x: F(lib).interpolate(x, size=5, mode="nearest-exact"),
                         (1, 2, 7)),
    "linear": (lambda lib, x: F(lib).interpolate(x, scale_factor=2.5, mode="linear"),
               (2, 2, 4)),
    "linear_corners": (lambda lib, x: F(lib).interpolate(x, size=7, mode="linear",
                                                         align_corners=True), (1, 2, 4)),
    "bilinear": (lambda lib, x: F(lib).interpolate(x, size=(3, 9), mode="bilinear"),
                 (1, 2, 5, 4)),
    "bilinear_corners": (lambda lib, x: F(lib).interpolate(x, scale_factor=(1.5, 0.5),
                                                           mode="bilinear",
                                                           align_corners=True), (2, 1, 4, 6)),
    "bilinear_recompute": (lambda lib, x: F(lib).interpolate(
        x, scale_factor=1.3, mode="bilinear", recompute_scale_factor=True), (1, 2, 5, 4)),
    "trilinear": (lambda lib, x: F(lib).interpolate(x, size=(3, 2, 5), mode="trilinear"),
                  (1, 1, 2, 3, 3)),
    "bicubic": (lambda lib, x: F(lib).interpolate(x, scale_factor=(1.3, 2.6), mode="bicubic"),
                (1, 2, 4, 3)),
    "bicubic_corners": (lambda lib, x: F(lib).interpolate(x, size=(5, 2), mode="bicubic",
                                                          align_corners=True), (1, 1, 4, 4)),
    "area_2d": (lambda lib, x: F(lib).interpolate(x, size=(3, 2), mode="area"), (1, 2, 5, 4)),
    "area_1d_scale": (lambda lib, x: F(lib).interpolate(x, scale_factor=0.6, mode="area"),
                      (1, 2, 7)),
    "area_3d": (lambda lib, x: F(lib).interpolate(x, size=(2, 3, 2), mode="area"),
                (1, 2, 3, 4, 5)),
    "area_3d_mean": (lambda lib, x: F(lib).interpolate(x, size=1, mode="area"), (1, 1, 2, 3, 2)),
    "upsample_bilinear": (lambda lib, x: F(lib).upsample_bilinear(x, scale_factor=2),
                          (1, 2, 3, 3)),
    "upsample_nearest": (lambda lib, x: F(lib).upsample_nearest(x, size=5), (1, 2, 3, 2)),
    "upsample": (lambda lib, x: F(lib).upsample(x, size=4, mode="linear"), (1, 2, 3)),
    # conv_transpose
    "convT_2d_bias": (lambda lib, x, w, b: F(lib).conv_transpose2d(x, w, b), (2, 3, 4, 3),
                      (3, 2, 3, 2), (2,)),
    "convT_2d_stride_padding": (lambda lib, x, w: F(lib).conv_transpose2d(
        x, w, stride=(2, 3), padding=(1, 2), output_padding=(1, 2)), (1, 2, 3, 4),
        (2, 3, 3, 3)),
    "convT_2d_groups_dilation": (lambda lib, x, w, b: F(lib).conv_transpose2d(
        x, w, b, stride=2, groups=2, dilation=(2, 1), output_padding=1), (1, 4, 3, 3),
        (4, 3, 2, 2), (6,)),
    "convT_2d_unbatched": (lambda lib, x, w: F(lib).conv_transpose2d(x, w, padding=1),
                           (2, 3, 3), (2, 1, 3, 3)),
    "convT_1d": (lambda lib, x, w, b: F(lib).conv_transpose1d(x, w, b, stride=3, padding=1,
                                                              output_padding=2),
                 (2, 3, 5), (3, 2, 4), (2,)),
    "convT_1d_groups_unbatched": (lambda lib, x, w: F(lib).conv_transpose1d(
        x, w, groups=3, dilation=2), (3, 4), (3, 2, 3)),
    # shuffles
    "pixel_shuffle": (lambda lib, x: F(lib).pixel_shuffle(x, 2), (2, 8, 3, 2)),
    "pixel_shuffle_batch_dims": (lambda lib, x: F(lib).pixel_shuffle(x, 3), (2, 1, 9, 2, 1)),
    "pixel_unshuffle": (lambda lib, x: F(lib).pixel_unshuffle(x, 2), (1, 3, 4, 6)),
    "pixel_unshuffle_unbatched": (lambda lib, x: F(lib).pixel_unshuffle(x, 3), (2, 3, 6)),
    "channel_shuffle": (lambda lib, x: F(lib).channel_shuffle(x, 3), (2, 6, 2, 3)),
    "channel_shuffle_3d": (lambda lib, x: F(lib).channel_shuffle(x, 2), (2, 4, 3)),
    # unfold / fold / Tensor.unfold
    "unfold": (lambda lib, x: F(lib).unfold(x, 2), (2, 3, 4, 3)),
    "unfold_options": (lambda lib, x: F(lib).unfold(x, (3, 2), dilation=(1, 2), padding=1,
                                                    stride=(2, 1)), (1, 2, 6, 5)),
    "unfold_unbatched": (lambda lib, x: F(lib).unfold(x, 2, stride=2), (2, 4, 4)),
    "fold": (lambda lib, x: F(lib).fold(x, (4, 3), 2), (2, 12, 6)),
    "fold_options": (lambda lib, x: F(lib).fold(x, (6, 5), (3, 2), dilation=(1, 2), padding=1,
                                                stride=(2, 1)), (1, 12, 15)),
    "fold_unbatched": (lambda lib, x: F(lib).fold(x, 5, 3, stride=2), (9, 4)),
    "tensor_unfold": (lambda lib, x: x.unfold(2, 2, 1), (2, 3, 4)),
    "tensor_unfold_gaps": (lambda lib, x: x.unfold(-2, 2, 3), (2, 7, 2)),
    "tensor_unfold_1d": (lambda lib, x: x.unfold(0, 3, 2), (8,)),
    "tensor_unfold_scalar": (lambda lib, x: x.unfold(0, 1, 1), ()),
    # lp pooling (a composite) and max unpooling
    "lp_pool2d": (lambda lib, x: F(lib).lp_pool2d(x.abs() + 0.5, 3, 2), (2, 2, 5, 4)),
    "lp_pool2d_stride_ceil": (lambda lib, x: F(lib).lp_pool2d(
        x.abs() + 0.5, 2.5, (2, 3), stride=(2, 1), ceil_mode=True), (1, 2, 5, 5)),
    "lp_pool2d_inf": (lambda lib, x: F(lib).lp_pool2d(x, float("inf"), 2), (1, 2, 4, 4)),
    "lp_pool1d": (lambda lib, x: F(lib).lp_pool1d(x.abs() + 0.5, 2, 3, stride=2), (2, 3, 7)),
    "lp_pool1d_minus_inf": (lambda lib, x: F(lib).lp_pool1d(x, -float("inf"), 2), (2, 3, 6)),
    "max_unpool2d": (lambda lib, x: F(lib).max_unpool2d(
        *F(lib).max_pool2d(x, 2, return_indices=True), 2), (2, 3, 4, 6)),
    "max_unpool2d_options": (lambda lib, x: F(lib).max_unpool2d(
        *F(lib).max_pool2d(x, 3, 2, 1, return_indices=True), 3, 2, 1, output_size=(5, 6)),
        (1, 2, 5, 6)),
    "max_unpool2d_unbatched": (lambda lib, x: F(lib).max_unpool2d(
        *F(lib).max_pool2d(x, 2, return_indices=True), 2, output_size=[5, 5]), (2, 5, 5)),
    "max_unpool1d": (lambda lib, x: F(lib).max_unpool1d(
        *F(lib).max_pool1d(x, 2, return_indices=True), 2, output_size=[7]), (2, 3, 7)),
    # adaptive pooling
    "adaptive_avg_1d": (lambda lib, x: F(lib).adaptive_avg_pool1d(x, 3), (2, 3, 7)),
    "adaptive_avg_1d_unbatched": (lambda lib, x: F(lib).adaptive_avg_pool1d(x, [4]), (3, 5)),
    "adaptive_max_2d": (lambda lib, x: F(lib).adaptive_max_pool2d(x, (3, 2)), (2, 3, 7, 5)),
    "adaptive_max_2d_indices": (lambda lib, x: F(lib).adaptive_max_pool2d(
        x, (4, None), return_indices=True), (1, 2, 7, 3)),
    "adaptive_max_2d_unbatched": (lambda lib, x: F(lib).adaptive_max_pool2d(x, 2),
                                  (3, 5, 4)),
    "adaptive_max_1d_indices": (lambda lib, x: F(lib).adaptive_max_pool1d(
        x, 3, return_indices=True), (2, 3, 8)),
    "adaptive_max_1d_unbatched": (lambda lib, x: F(lib).adaptive_max_pool1d(x, 4), (3, 6)),
}


def _arrays(shapes):
    return [randn(*shape, seed=i) for i, shape in enumerate(shapes)]


def _quiet(fn):
    """``fn`` with the deprecation warnings of the upsample names silenced."""
    def run(lib, *args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(lib, *args)
    return run


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    fn, *shapes = CASES[name]
    check_op(_quiet(fn), *_arrays(shapes))


@pytest.mark.parametrize("name", ["bilinear", "bicubic", "nearest_2d_size", "convT_2d_bias",
                                  "pixel_shuffle", "adaptive_max_2d"])
def test_float32(name):
    fn, *shapes = CASES[name]
    check_op(_quiet(fn), *_arrays(shapes), dtype=np.float32)


@pytest.mark.parametrize("name", ["nearest_2d_size", "bilinear", "bicubic", "linear",
                                  "convT_2d_groups_dilation", "convT_1d", "pixel_shuffle",
                                  "pixel_unshuffle", "channel_shuffle", "adaptive_max_2d",
                                  "unfold_options", "fold_options", "tensor_unfold_gaps",
                                  "max_unpool2d", "lp_pool2d"])
def test_forward_ad(name):
    fn, *shapes = CASES[name]
    check_jvp(fn, *_arrays(shapes))


@pytest.mark.cpu_only             # gradcheck's many small evaluations: once is enough
@pytest.mark.parametrize("name", ["nearest_3d", "bilinear_corners", "area_3d", "bicubic",
                                  "trilinear", "convT_2d_groups_dilation", "convT_1d",
                                  "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
                                  "adaptive_max_2d", "adaptive_avg_1d", "unfold_options",
                                  "fold_options", "tensor_unfold", "max_unpool2d",
                                  "lp_pool1d"])
def test_gradcheck_and_gradgradcheck(name):
    fn, *shapes = CASES[name]
    check_gradcheck(lambda lib, *xs: _outputs_first(fn(lib, *xs)), *_arrays(shapes))


def _outputs_first(result):
    return result[0] if isinstance(result, tuple) else result


NODES = {
    "nearest_1d_scale": "UpsampleNearest1DBackward0",
    "nearest_2d_size": "UpsampleNearest2DBackward0",
    "nearest_3d": "UpsampleNearest3DBackward0",
    "nearest_exact_2d": "UpsampleNearestExact2DBackward0",
    "nearest_exact_1d": "UpsampleNearestExact1DBackward0",
    "linear": "UpsampleLinear1DBackward0",
    "bilinear": "UpsampleBilinear2DBackward0",
    "trilinear": "UpsampleTrilinear3DBackward0",
    "bicubic": "UpsampleBicubic2DBackward0",
    "area_2d": "AdaptiveAvgPool2DBackward0",
    "area_1d_scale": "SqueezeBackward1",
    "area_3d": "AdaptiveAvgPool3DBackward0",
    "area_3d_mean": "MeanBackward1",
    "convT_2d_bias": "ConvolutionBackward0",
    "convT_1d": "ConvolutionBackward0",
    "pixel_shuffle": "PixelShuffleBackward0",
    "pixel_unshuffle": "PixelUnshuffleBackward0",
    "channel_shuffle": "ChannelShuffleBackward0",
    "adaptive_avg_1d": "SqueezeBackward1",
    "adaptive_max_2d": "AdaptiveMaxPool2DBackward0",
    "adaptive_max_1d_indices": "SqueezeBackward1",
    "unfold": "Im2ColBackward0",
    "fold": "Col2ImBackward0",
    "tensor_unfold": "UnfoldBackward0",
    "max_unpool2d": "MaxUnpool2DBackward0",
    "max_unpool1d": "SqueezeBackward1",
    "lp_pool2d": "PowBackward0",
    "lp_pool1d": "PowBackward0",
    "lp_pool2d_inf": "MaxPool2DWithIndicesBackward0",
}


@pytest.mark.parametrize("name", NODES)
def test_node_names(name):
    fn, *shapes = CASES[name]

    def run(lib):
        tensors = [lib.tensor(a, requires_grad=True) for a in _arrays(shapes)]
        out = _outputs_first(_quiet(fn)(lib, *tensors))
        return node_name(out.grad_fn), node_name(out.grad_fn.next_functions[0][0])
    assert run(ag) == run(torch)
    assert run(torch)[0] == NODES[name]


def test_indices_match_torch_on_ties():
    """Equal entries: the first in each window wins, as in torch."""
    x = np.array([[[[1.0, 1.0, 2.0], [2.0, 0.0, 2.0], [1.0, 1.0, 1.0], [0.0, 1.0, 2.0]]]])
    ours = F(ag).adaptive_max_pool2d(ag.tensor(x, device=DEVICE), (2, 2), True)
    theirs = F(torch).adaptive_max_pool2d(torch.tensor(x), (2, 2), True)
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(to_numpy(o.cpu()), to_numpy(t))


def test_tensor_unfold_is_a_view():
    def run(lib):
        x = lib.tensor(randn(3, 6))
        view = x[1:].unfold(1, 4, 2)
        x[2, 2] = 100.0                 # seen through the view
        return (tuple(view.shape), view.stride(), view._base is not None,
                to_numpy(view.cpu()).tolist())
    assert run(ag) == run(torch)


def test_unfold_then_fold_counts_each_pixel_s_blocks():
    """fold(unfold(x)) multiplies each pixel by the number of blocks covering it."""
    def run(lib):
        x = lib.ones(1, 2, 5, 4)
        return to_numpy(F(lib).fold(F(lib).unfold(x, 3, padding=1, stride=2), (5, 4), 3,
                                    padding=1, stride=2).cpu()).tolist()
    assert run(ag) == run(torch)


def test_the_upsample_names_warn_as_torch():
    for name in ("upsample", "upsample_nearest", "upsample_bilinear"):
        caught = []
        for lib in (ag, torch):
            with warnings.catch_warnings(record=True) as record:
                warnings.simplefilter("always")
                getattr(F(lib), name)(lib.ones(1, 1, 2, 2), scale_factor=2)
            caught.append([str(w.message) for w in record])
        assert caught[0] == caught[1] and caught[0]


# ------------------------------------------------------------------ layers

def test_layers_match_torch_and_their_reprs():
    def run(lib):
        x = lib.tensor(randn(1, 4, 3, 4), requires_grad=True)
        line = lib.tensor(randn(2, 4, 6))
        layers = [lib.nn.Upsample(scale_factor=2), lib.nn.Upsample(size=(5, 2), mode="bicubic"),
                  lib.nn.Upsample(scale_factor=(2, 1.5), mode="bilinear", align_corners=True),
                  lib.nn.UpsamplingNearest2d(size=5), lib.nn.UpsamplingBilinear2d(
                      scale_factor=3), lib.nn.PixelShuffle(2), lib.nn.PixelUnshuffle(1),
                  lib.nn.ChannelShuffle(2), lib.nn.AdaptiveMaxPool2d((2, None)),
                  lib.nn.AdaptiveMaxPool2d(2, return_indices=True),
                  lib.nn.LPPool2d(2, 2), lib.nn.LPPool2d(1.5, (2, 3), stride=1, ceil_mode=True),
                  lib.nn.Sequential(lib.nn.Unfold((2, 3), padding=1),
                                    lib.nn.Fold((3, 4), (2, 3), padding=1))]
        line_layers = [lib.nn.AdaptiveAvgPool1d(4), lib.nn.AdaptiveMaxPool1d(3),
                       lib.nn.AdaptiveMaxPool1d(5, True), lib.nn.LPPool1d(3, 2)]
        rows = []
        for layer, input in [(m, x) for m in layers] + [(m, line) for m in line_layers]:
            out = layer(input)
            out = out[0] if isinstance(out, tuple) else out
            rows.append((repr(layer), tuple(out.shape), to_numpy(out.detach().cpu())))
        return rows
    for ours, theirs in zip(run(ag), run(torch)):
        assert ours[:2] == theirs[:2]
        np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-12)


@pytest.mark.parametrize("dims", [1, 2])
def test_max_unpool_layers(dims):
    def run(lib):
        x = lib.tensor(randn(2, 3, *(5, 6)[2 - dims:]))
        pool = getattr(lib.nn, f"MaxPool{dims}d")(2, return_indices=True)
        unpool = getattr(lib.nn, f"MaxUnpool{dims}d")(2)
        out = unpool(*pool(x), output_size=x.shape)
        return repr(unpool), to_numpy(out.cpu()).tolist()
    assert run(ag) == run(torch)


@pytest.mark.cpu_only          # the CPU generator's numbers
@pytest.mark.parametrize("layer", ["ConvTranspose1d", "ConvTranspose2d"])
def test_conv_transpose_layers_start_with_torchs_weights(layer):
    def run(lib):
        lib.manual_seed(3)
        settings = [((4, 6, 3), {}), ((4, 6, 2), dict(stride=2, padding=1, output_padding=1,
                                                      groups=2, bias=False, dilation=2))]
        rows = []
        for args, kwargs in settings:
            module = getattr(lib.nn, layer)(*args, **kwargs)
            shape = (2, 4, 5) if layer == "ConvTranspose1d" else (2, 4, 5, 3)
            out = module(lib.ones(*shape))
            rows.append((repr(module), tuple(module.weight.shape), module.weight, module.bias,
                         out))
        return rows
    for ours, theirs in zip(run(ag), run(torch)):
        assert ours[:2] == theirs[:2]
        assert (ours[3] is None) == (theirs[3] is None)
        for o, t in zip(ours[2:], theirs[2:]):
            if t is not None:       # the same draws: equal weights, outputs up to rounding
                np.testing.assert_allclose(to_numpy(o.detach().cpu()), to_numpy(t.detach()),
                                           rtol=1e-6, atol=1e-7)


def test_conv_transpose_output_size():
    def run(lib):
        lib.manual_seed(0)
        module = lib.nn.ConvTranspose2d(2, 3, 3, stride=(2, 3), padding=1)
        x = lib.ones(1, 2, 4, 3)
        return [tuple(module(x, output_size=size).shape)
                for size in ((7, 7), (8, 9), [1, 3, 8, 8], (7, 8))]
    assert run(ag) == run(torch)


# ------------------------------------------------------------------ errors

def _ones(lib, *shape):
    return lib.ones(*shape)


ERRORS = [
    lambda lib: F(lib).interpolate(_ones(lib, 1, 1, 4), size=3, mode="nearest",
                                   align_corners=True),
    lambda lib: F(lib).interpolate(_ones(lib, 1, 1, 4), size=3, scale_factor=2),
    lambda lib: F(lib).interpolate(_ones(lib, 1, 1, 4)),
    lambda lib: F(lib).interpolate(_ones(lib, 1, 1, 4, 4), size=(3, 3, 3)),
    lambda lib: F(lib).interpolate(_ones(lib, 1, 1, 4, 4), scale_factor=(2, 2, 2)),
    lambda lib: F(lib).interpolate(_ones(lib, 1, 1, 4, 4), size=(3.0, 3)),
    lambda lib: F(lib).interpolate(_ones(lib, 1, 1, 4, 4), size=3,
                                   recompute_scale_factor=True),
    lambda lib: F(lib).interpolate(_ones(lib, 1, 1, 4, 4), size=3, mode="linear"),
    lambda lib: F(lib).interpolate(_ones(lib, 1, 1, 4), size=3, mode="bilinear"),
    lambda lib: F(lib).interpolate(_ones(lib, 1, 1, 4), size=3, mode="bicubic"),
    lambda lib: F(lib).interpolate(_ones(lib, 1, 4), size=3),
    lambda lib: F(lib).interpolate(_ones(lib, 1, 1, 4), size=0),
    lambda lib: F(lib).interpolate(_ones(lib, 1, 1, 4), size=2, antialias=True),
    lambda lib: F(lib).interpolate(_ones(lib, 1, 1, 4), size=2, mode="linear", antialias=True),
    lambda lib: F(lib).conv_transpose2d(_ones(lib, 1, 3, 2, 2), _ones(lib, 2, 2, 3, 3)),
    lambda lib: F(lib).conv_transpose2d(_ones(lib, 1, 4, 2, 2), _ones(lib, 4, 2, 3, 3),
                                        stride=2, output_padding=2),
    lambda lib: F(lib).conv_transpose1d(_ones(lib, 1, 4, 2), _ones(lib, 4, 2, 3),
                                        output_padding=1),
    lambda lib: F(lib).conv_transpose2d(_ones(lib, 4, 2), _ones(lib, 4, 2, 3, 3)),
    lambda lib: F(lib).conv_transpose1d(_ones(lib, 1, 4, 2), _ones(lib, 4, 2, 3), groups=3),
    lambda lib: F(lib).conv_transpose2d(_ones(lib, 1, 4, 2, 2), _ones(lib, 4, 2, 3, 3),
                                        padding=3),
    lambda lib: F(lib).conv_transpose2d(_ones(lib, 1, 4, 2, 2), _ones(lib, 4, 2, 3, 3),
                                        _ones(lib, 3)),
    lambda lib: F(lib).conv_transpose2d(_ones(lib, 1, 2, 3, 3), _ones(lib, 2, 3, 3, 3),
                                        padding="same"),
    lambda lib: lib.nn.ConvTranspose2d(2, 3, 3, padding_mode="reflect"),
    lambda lib: lib.nn.ConvTranspose2d(2, 3, 3, stride=2)(_ones(lib, 1, 2, 3, 3),
                                                          output_size=(9, 9)),
    lambda lib: lib.nn.ConvTranspose1d(2, 3, 3)(_ones(lib, 1, 2, 3), output_size=(1, 2, 3, 4)),
    lambda lib: F(lib).pixel_shuffle(_ones(lib, 1, 3, 2, 2), 2),
    lambda lib: F(lib).pixel_shuffle(_ones(lib, 3, 2), 2),
    lambda lib: F(lib).pixel_shuffle(_ones(lib, 1, 4, 2, 2), 0),
    lambda lib: F(lib).pixel_unshuffle(_ones(lib, 1, 3, 3, 2), 2),
    lambda lib: F(lib).pixel_unshuffle(_ones(lib, 1, 3, 2, 3), 2),
    lambda lib: F(lib).pixel_unshuffle(_ones(lib, 2, 2), 2),
    lambda lib: F(lib).channel_shuffle(_ones(lib, 1, 3, 2, 2), 2),
    lambda lib: F(lib).channel_shuffle(_ones(lib, 4, 3), 2),
    lambda lib: F(lib).channel_shuffle(_ones(lib, 1, 4, 2, 2), 0),
    lambda lib: F(lib).unfold(_ones(lib, 2, 3), 2),
    lambda lib: F(lib).unfold(_ones(lib, 4), 2),
    lambda lib: F(lib).unfold(_ones(lib, 1, 1, 2, 4, 4), 2),
    lambda lib: F(lib).unfold(_ones(lib, 1, 0, 4, 4), 2),
    lambda lib: F(lib).unfold(_ones(lib, 1, 1, 2, 2), 3),
    lambda lib: F(lib).unfold(_ones(lib, 1, 1, 4, 4), 0),
    lambda lib: F(lib).unfold(_ones(lib, 1, 1, 4, 4), 2, stride=0),
    lambda lib: F(lib).unfold(_ones(lib, 1, 1, 4, 4), 2, dilation=(1, 0)),
    lambda lib: F(lib).unfold(_ones(lib, 1, 1, 4, 4), 2, padding=-1),
    lambda lib: F(lib).fold(_ones(lib, 1, 7, 4), 3, 2),
    lambda lib: F(lib).fold(_ones(lib, 1, 8, 5), 3, 2),
    lambda lib: F(lib).fold(_ones(lib, 1, 8, 4), 1, 2),
    lambda lib: F(lib).fold(_ones(lib, 8, 4, 2, 3), 3, 2),
    lambda lib: _ones(lib, 3, 4).unfold(1, 5, 1),
    lambda lib: _ones(lib, 3, 4).unfold(1, 2, 0),
    lambda lib: _ones(lib, 3, 4).unfold(2, 2, 1),
    lambda lib: _ones(lib, 3, 4).unfold(1, -1, 1),
    lambda lib: F(lib).max_unpool2d(_ones(lib, 1, 2, 2, 2),
                                    lib.zeros(1, 2, 2, 2, dtype=lib.int64) + 20, 2),
    lambda lib: F(lib).max_unpool2d(_ones(lib, 1, 2, 2, 2), lib.zeros(1, 2, 2, 2), 2),
    lambda lib: F(lib).max_unpool2d(_ones(lib, 1, 2, 2, 2),
                                    lib.zeros(1, 2, 2, 3, dtype=lib.int64), 2),
    lambda lib: F(lib).max_unpool2d(_ones(lib, 2, 2), lib.zeros(2, 2, dtype=lib.int64), 2),
    lambda lib: F(lib).max_unpool2d(_ones(lib, 1, 2, 2, 2),
                                    lib.zeros(1, 2, 2, 2, dtype=lib.int64), 2,
                                    output_size=(9, 9)),
    lambda lib: F(lib).max_unpool2d(_ones(lib, 1, 2, 2, 2),
                                    lib.zeros(1, 2, 2, 2, dtype=lib.int64), 2,
                                    output_size=(1, 2, 3)),
    lambda lib: F(lib).adaptive_avg_pool1d(_ones(lib, 2), 3),
    lambda lib: F(lib).adaptive_avg_pool1d(_ones(lib, 1, 2, 5), (3, 2)),
    lambda lib: F(lib).adaptive_max_pool1d(_ones(lib, 1, 2, 5), (3, 2)),
    lambda lib: F(lib).adaptive_max_pool1d(_ones(lib, 3), 2),
    lambda lib: F(lib).adaptive_max_pool2d(_ones(lib, 5), 3),
    lambda lib: F(lib).adaptive_max_pool2d(_ones(lib, 1, 2, 0, 3), 3),
    lambda lib: F(lib).adaptive_max_pool2d(_ones(lib, 1, 2, 4, 3), (3, 2, 1)),
]


@pytest.mark.parametrize("mode,rank", [("nearest", 4), ("linear", 3), ("bilinear", 4),
                                       ("bicubic", 4), ("trilinear", 5), ("area", 4)])
def test_interpolate_refuses_integer_inputs(mode, rank):
    assert_same_error(lambda lib: F(lib).interpolate(
        lib.ones(*(1,) * rank, dtype=lib.int64), size=2, mode=mode), NotImplementedError,
        "not implemented for 'Long'")


def test_nearest_copies_uint8_values():
    def run(lib):
        x = lib.arange(12).reshape(1, 1, 3, 4).to(lib.uint8)
        out = F(lib).interpolate(x, scale_factor=1.5)
        return str(out.dtype).split(".")[-1], to_numpy(out.cpu()).tolist()
    assert run(ag) == run(torch)


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    assert_same_error(ERRORS[index])


VMAPPED = {
    "interpolate": lambda lib, t: F(lib).interpolate(t.unsqueeze(0), size=(3, 5),
                                                     mode="bilinear"),
    "interpolate_1d": lambda lib, t: F(lib).interpolate(t, scale_factor=1.5),
    "conv_transpose2d": lambda lib, t: F(lib).conv_transpose2d(
        t, lib.ones(2, 3, 2, 2, dtype=lib.float64), stride=2),
    "unfold": lambda lib, t: F(lib).unfold(t, 2),
    "fold": lambda lib, t: F(lib).fold(t.reshape(2, 4, 4), 3, 2),
    "pixel_shuffle": lambda lib, t: F(lib).pixel_shuffle(t.reshape(1, 8, 2, 2), 2),
    "channel_shuffle": lambda lib, t: F(lib).channel_shuffle(t, 2),
    "adaptive_max_pool2d": lambda lib, t: F(lib).adaptive_max_pool2d(t, (3, 2), True),
    "tensor_unfold": lambda lib, t: t.unfold(1, 2, 1),
    "lp_pool2d": lambda lib, t: F(lib).lp_pool2d(t.abs() + 0.5, 2, 2),
    "max_unpool2d": lambda lib, t: F(lib).max_unpool2d(
        *F(lib).max_pool2d(t, 2, return_indices=True), 2),
    "max_unpool2d_shared_indices": lambda lib, t: F(lib).max_unpool2d(
        t[:, :2, :2], lib.tensor([[[0, 3], [8, 15]]]).expand(2, 2, 2), 2),
}


@pytest.mark.parametrize("name", VMAPPED)
def test_vmap(name):
    """The examples of a vmapped batch are independent, as in torch.func.vmap."""
    fn = VMAPPED[name]
    x = randn(3, 2, 4, 4)
    ours = ag.func.vmap(lambda t: fn(ag, t))(ag.tensor(x, device=DEVICE))
    theirs = torch.func.vmap(lambda t: fn(torch, t))(torch.tensor(x))
    ours, theirs = [r if isinstance(r, tuple) else (r,) for r in (ours, theirs)]
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(to_numpy(o.cpu()), to_numpy(t), rtol=1e-12, atol=1e-12)
