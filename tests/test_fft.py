"""autograd_cy.fft against torch.fft: values, dtypes, gradients and double backward of every
transform on real and complex inputs (each norm, n / s, dim), the nodes (FftR2CBackward0,
FftC2RBackward0, FftC2CBackward0, ConjBackward0 where torch conjugates), gradcheck and
forward AD, out=, fftfreq / rfftfreq, fftshift / ifftshift, and torch's errors."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import (
    assert_same_error, check_batched_grad, check_jvp, check_op, node_name, randn, same_warning,
)

ONE_DIM = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
TWO_DIM = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"]
N_DIM = ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
# the transforms that take a complex input (the others refuse one)
TAKES_COMPLEX = {"fft", "ifft", "irfft", "hfft", "fft2", "ifft2", "irfft2", "hfft2", "fftn",
                 "ifftn", "irfftn", "hfftn"}


def complex_randn(*shape, seed=0):
    return randn(*shape, seed=seed) + 1j * randn(*shape, seed=seed + 1)


def inputs_of(name, shape):
    real = [randn(*shape)]
    return real + ([complex_randn(*shape, seed=3)] if name in TAKES_COMPLEX else [])


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["64", "32"])
@pytest.mark.parametrize("kwargs", [{}, {"norm": "ortho"}, {"norm": "forward"},
                                    {"n": 7, "dim": 0}, {"n": 3, "norm": "backward"}],
                         ids=["default", "ortho", "forward", "n7 dim0", "n3"])
@pytest.mark.parametrize("name", ONE_DIM)
def test_one_dim_transforms(name, kwargs, dtype):
    for x in inputs_of(name, (4, 5)):
        check_op(lambda lib, t: getattr(lib.fft, name)(t, **kwargs), x, dtype=dtype)


@pytest.mark.parametrize("kwargs", [{}, {"norm": "ortho"}, {"norm": "forward"},
                                    {"s": (3, 6)}, {"dim": (0, 2)}, {"s": (5, -1), "dim": (2, 0)}],
                         ids=["default", "ortho", "forward", "s", "dim", "s dim"])
@pytest.mark.parametrize("name", TWO_DIM + N_DIM)
def test_multi_dim_transforms(name, kwargs):
    for x in inputs_of(name, (3, 4, 5)):
        check_op(lambda lib, t: getattr(lib.fft, name)(t, **kwargs), x)
    if name.endswith("n"):      # every dim by default; the last len(s) dims with s alone
        check_op(lambda lib, t: getattr(lib.fft, name)(t, s=(4,)), randn(2, 3))


@pytest.mark.parametrize("name", ["rfft", "ihfft", "rfft2", "rfftn"])
@pytest.mark.parametrize("n", [4, 5])
def test_one_sided_gradient_pads_with_zeros(name, n):
    """NOTE [The gradient of a one-sided transform]: the r2c backward is the inverse c2c of
    the zero-padded gradient (irfft of it would mirror conjugates into the dropped half), so
    an imaginary part at the DC entry reaches the gradient. Even and odd lengths."""
    for lib in (ag, torch):
        x = lib.tensor(randn(3, n), requires_grad=True)
        y = getattr(lib.fft, name)(x)
        grad = lib.zeros(y.shape, dtype=y.dtype)
        grad[..., 0] = 1j
        (g,) = lib.autograd.grad(y, x, grad)
        if lib is ag:
            ours = g.cpu().numpy()
        else:
            np.testing.assert_allclose(ours, g.numpy(), atol=1e-12)
    check_op(lambda lib, t: getattr(lib.fft, name)(t), randn(3, n))


@pytest.mark.parametrize("name", ["irfft", "hfft", "irfft2", "hfftn"])
@pytest.mark.parametrize("n", [6, 7])
def test_c2r_gradient_doubles_the_mirrored_entries(name, n):
    """NOTE [The gradient of a one-sided transform]: entries 1 .. n - n // 2 - 1 stand for
    two of the full spectrum; even and odd output lengths (the last entry is doubled only
    for an odd one)."""
    key = "n" if name in ONE_DIM else "s"
    size = n if key == "n" else (3, n)
    check_op(lambda lib, t: getattr(lib.fft, name)(t, **{key: size}), complex_randn(3, 4))


def test_nodes():
    x, z = randn(3, 4), complex_randn(3, 4)
    expected = {("fft", "real"): "FftR2CBackward0", ("fft", "complex"): "FftC2CBackward0",
                ("ifft", "real"): "ConjBackward0", ("ifft", "complex"): "FftC2CBackward0",
                ("rfft", "real"): "FftR2CBackward0", ("irfft", "complex"): "FftC2RBackward0",
                ("hfft", "complex"): "FftC2RBackward0", ("ihfft", "real"): "ConjBackward0",
                ("fft2", "real"): "FftC2CBackward0", ("rfftn", "real"): "FftR2CBackward0",
                ("irfft2", "real"): "FftC2RBackward0", ("hfftn", "complex"): "FftC2RBackward0",
                ("ihfft2", "real"): "FftC2CBackward0", ("ihfftn", "real"): "FftC2CBackward0",
                ("ifftn", "complex"): "FftC2CBackward0"}
    for (name, kind), node in expected.items():
        for lib in (ag, torch):
            t = lib.tensor(x if kind == "real" else z, requires_grad=True)
            assert node_name(getattr(lib.fft, name)(t).grad_fn) == node, (name, kind, lib)
    for lib in (ag, torch):
        assert node_name(lib.fft.fftshift(lib.tensor(x, requires_grad=True)).grad_fn) == \
            "RollBackward0"


@pytest.mark.parametrize("name", ONE_DIM + ["fft2", "rfft2", "irfftn", "hfft2", "ihfftn"])
def test_gradcheck_and_forward_ad(name):
    fn = getattr(ag.fft, name)
    for x in inputs_of(name, (3, 4)):
        t = ag.tensor(x, requires_grad=True)
        assert ag.autograd.gradcheck(fn, (t,), check_forward_ad=True)
        assert ag.autograd.gradgradcheck(fn, (t,))
    check_jvp(lambda lib, t: getattr(lib.fft, name)(t), randn(3, 4))
    if name in TAKES_COMPLEX:
        check_jvp(lambda lib, t: getattr(lib.fft, name)(t), complex_randn(3, 4),
                  dtype=np.complex128, tangents=[complex_randn(3, 4, seed=7)], rtol=1e-7,
                  atol=1e-9)


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "ihfft2"])
def test_batched_gradients(name):
    check_batched_grad(lambda lib, t: getattr(lib.fft, name)(t).real, randn(3, 4),
                       create_graph=True)


def test_vmap():
    x = randn(3, 4)
    for fn in (lambda lib, t: lib.fft.fft(t), lambda lib, t: lib.fft.irfft(t, n=5)):
        ours = ag.vmap(lambda t: fn(ag, t))(ag.tensor(x))
        theirs = torch.vmap(lambda t: fn(torch, t))(torch.tensor(x))
        np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), atol=1e-12)


@pytest.mark.parametrize("name", ["rfft", "hfft2", "ihfftn"])
def test_function_transforms(name):
    """jacrev, jacfwd and hessian (forward over reverse) through the primitives, against
    torch.func; gradcheck's batched checks."""
    x = randn(3, 4)
    for transform in ("jacrev", "jacfwd", "hessian"):
        results = []
        for lib in (ag, torch):
            fn = getattr(lib.fft, name)
            loss = (lambda t: fn(t).abs().sum()) if transform == "hessian" else (
                lambda t: fn(t).real)
            results.append(getattr(lib.func, transform)(loss)(lib.tensor(x)).cpu().numpy())
        np.testing.assert_allclose(results[0], results[1], atol=1e-10)
    assert ag.autograd.gradcheck(getattr(ag.fft, name), (ag.tensor(x, requires_grad=True),),
                                 check_batched_grad=True, check_forward_ad=True,
                                 check_batched_forward_grad=True)


def test_dtypes():
    for lib in (ag, torch):
        assert str(lib.fft.fft(lib.ones(4)).dtype).endswith("complex64")
        assert str(lib.fft.rfft(lib.ones(4, dtype=lib.float64)).dtype).endswith("complex128")
        assert str(lib.fft.fft(lib.arange(4)).dtype).endswith("complex64")
        assert str(lib.fft.fft(lib.tensor([True, False])).dtype).endswith("complex64")
        assert str(lib.fft.irfft(lib.arange(4)).dtype).endswith("float32")
        assert str(lib.fft.hfft(lib.ones(3, dtype=lib.complex64)).dtype).endswith("float32")
        assert str(lib.fft.fftn(lib.tensor(2.0)).dtype).endswith("complex64")
    check_op(lambda lib, t: lib.fft.fftn(t, dim=()), randn(2, 3))      # no dim: a copy
    check_op(lambda lib, t: lib.fft.fftn(t), np.array(2.0))
    for name in ("fft", "rfft", "irfft", "fftn", "ihfft2"):      # torch's CPU build refuses
        for dtype, words in (("float16", "Half"), ("bfloat16", "BFloat16")):
            assert_same_error(lambda lib: getattr(lib.fft, name)(
                lib.ones(4, 4, dtype=getattr(lib, dtype))), RuntimeError,
                f"^Unsupported dtype {words}$")


def test_errors():
    x = lambda lib: lib.ones(4, 6)      # noqa: E731
    z = lambda lib: lib.ones(4, 6, dtype=lib.complex128)        # noqa: E731
    cases = [
        (lambda lib: lib.fft.fft(x(lib), n=0), RuntimeError,
         r"Invalid number of data points \(0\) specified"),
        (lambda lib: lib.fft.fft(x(lib), n=-1), RuntimeError, r"data points \(-1\)"),
        (lambda lib: lib.fft.fft(lib.ones(0)), RuntimeError, r"data points \(0\)"),
        (lambda lib: lib.fft.irfft(lib.ones(1, dtype=lib.complex64)), RuntimeError,
         r"data points \(0\)"),
        (lambda lib: lib.fft.fft(x(lib), dim=2), IndexError, r"Dimension out of range"),
        (lambda lib: lib.fft.fft(lib.tensor(1.0)), IndexError, r"tensor has no dimensions"),
        (lambda lib: lib.fft.fft2(lib.ones(3)), IndexError, r"Dimension out of range"),
        (lambda lib: lib.fft.fft(x(lib), norm="foo"), RuntimeError,
         r'Invalid normalization mode: "foo"'),
        (lambda lib: lib.fft.fftn(x(lib), dim=(0, 0)), RuntimeError, "FFT dims must be unique"),
        (lambda lib: lib.fft.fftn(x(lib), dim=(0, -2)), RuntimeError, "must be unique"),
        (lambda lib: lib.fft.fftn(x(lib), s=(2, 3), dim=(0,)), RuntimeError,
         "dim and shape arguments must have the same length"),
        (lambda lib: lib.fft.fftn(x(lib), s=(2, 3, 4)), RuntimeError,
         "Got shape with 3 values but input tensor only has 2 dimensions"),
        (lambda lib: lib.fft.fftn(x(lib), s=(3, 0)), RuntimeError, r"data points \(0\)"),
        (lambda lib: lib.fft.rfft(z(lib)), RuntimeError,
         "rfft expects a real input tensor, but got ComplexDouble"),
        (lambda lib: lib.fft.ihfft(z(lib)), RuntimeError, "ihfft expects a real input tensor"),
        (lambda lib: lib.fft.rfft2(z(lib)), RuntimeError,
         "rfftn expects a real-valued input tensor, but got ComplexDouble"),
        (lambda lib: lib.fft.ihfftn(z(lib)), RuntimeError,
         "Only supports floating-point dtypes, but found: ComplexDouble"),
        (lambda lib: lib.fft.rfftn(x(lib), dim=()), RuntimeError,
         "rfftn must transform at least one axis"),
        (lambda lib: lib.fft.irfftn(z(lib), dim=()), RuntimeError, "irfftn must transform"),
        (lambda lib: lib.fft.hfftn(z(lib), dim=()), RuntimeError, "hfftn must transform"),
        (lambda lib: lib.fft.ihfftn(x(lib), dim=()), RuntimeError, "ihfftn must transform"),
        (lambda lib: lib.fft.fft(x(lib), dim=(0,)), TypeError, "'dim' must be int, not tuple"),
        (lambda lib: lib.fft.fft(x(lib), n=3.0), TypeError, "'n' must be int, not float"),
        (lambda lib: lib.fft.fft(x(lib), norm=3), TypeError, "'norm' must be str, not int"),
        (lambda lib: lib.fft.fftn(x(lib), dim=0.5), TypeError, "'dim' must be tuple of ints"),
    ]
    for fn, kind, pattern in cases:
        assert_same_error(fn, kind, pattern)


def test_out():
    x, z = randn(4, 6), complex_randn(4, 6)
    cases = [("fft", x, "complex128"), ("fft", z, "complex64"), ("ifft", x, "complex128"),
             ("rfft", x, "complex128"), ("irfft", z, "float32"), ("hfft", z, "float64"),
             ("ihfft", x, "complex128"), ("fft2", x, "complex128"), ("rfftn", x, "complex64"),
             ("irfft2", z, "float64"), ("hfftn", z, "float64"), ("ihfft2", x, "complex128")]
    # (torch's ihfftn over one dim with out= swaps conj_physical_out's arguments and leaves
    # out empty: not followed, ours writes the result)
    for name, array, dtype in cases:
        results = []
        for lib in (ag, torch):
            out = lib.empty(0, dtype=getattr(lib, dtype))
            result = getattr(lib.fft, name)(lib.tensor(array), out=out)
            assert result is out
            results.append(out.resolve_conj().cpu().numpy())
        assert results[0].dtype == results[1].dtype and results[0].shape == results[1].shape
        np.testing.assert_allclose(results[0], results[1], rtol=1e-5, atol=1e-6)
    same_warning(lambda lib: lib.fft.fft(lib.tensor(x), out=lib.empty(3, dtype=lib.complex128)),
                 UserWarning, "An output with one or more elements was resized")
    cases = [
        (lambda lib: lib.fft.fft(lib.tensor(x), out=lib.empty(0)), RuntimeError,
         "fft expects a complex output tensor, but got Float"),
        (lambda lib: lib.fft.fft2(lib.tensor(z), out=lib.empty(0, dtype=lib.int64)),
         RuntimeError, "fftn expects a complex output tensor, but got Long"),
        (lambda lib: lib.fft.irfft(lib.tensor(z), out=lib.empty(0, dtype=lib.complex64)),
         RuntimeError, "irfft expects a floating point output tensor, but got ComplexFloat"),
        (lambda lib: lib.fft.hfftn(lib.tensor(z), out=lib.empty(0, dtype=lib.int64)),
         RuntimeError, "hfftn expects a floating point output tensor, but got Long"),
        (lambda lib: lib.fft.irfft(lib.tensor(z), n=0, out=lib.empty(0, dtype=lib.complex64)),
         RuntimeError, "irfft expects a floating point output tensor"),      # checked first
        (lambda lib: lib.fft.rfft(lib.tensor(x), n=0, out=lib.empty(0)), RuntimeError,
         "rfft expects a complex output tensor"),
        (lambda lib: lib.fft.fft(lib.tensor(x), out=3), TypeError,
         "argument 'out' must be Tensor, not int"),
        (lambda lib: lib.fft.rfft(lib.tensor(x, requires_grad=True),
                                  out=lib.empty(0, dtype=lib.complex128)),
         RuntimeError, r"_fft_r2c\(\): functions with out=\.\.\. arguments don't support"),
        (lambda lib: lib.fft.fftn(lib.tensor(x, requires_grad=True),
                                  out=lib.empty(0, dtype=lib.complex128)),
         RuntimeError, r"_fft_c2c\(\): functions with out="),
        (lambda lib: lib.fft.irfft(lib.tensor(z, requires_grad=True), out=lib.empty(0)),
         RuntimeError, r"_fft_c2r\(\): functions with out="),
    ]
    for fn, kind, pattern in cases:
        assert_same_error(fn, kind, pattern)

    def dual_into_out(lib):
        with lib.autograd.forward_ad.dual_level():
            dual = lib.autograd.forward_ad.make_dual(lib.tensor(x), lib.tensor(x))
            return lib.fft.rfft(dual, out=lib.empty(0, dtype=lib.complex128))
    assert_same_error(dual_into_out, NotImplementedError,
                      "^Trying to use forward AD with _fft_r2c_out that does not support it "
                      "because it is an out= function$")


@pytest.mark.parametrize("n", [0, 1, 4, 7])
def test_frequencies(n):
    for d in (1.0, 0.3, 0):
        for dtype in ("float32", "float64", "float16", "bfloat16"):
            for name in ("fftfreq", "rfftfreq"):
                ours = getattr(ag.fft, name)(n, d, dtype=getattr(ag, dtype))
                theirs = getattr(torch.fft, name)(n, d, dtype=getattr(torch, dtype))
                assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
                np.testing.assert_array_equal(ours.float().cpu().numpy(), theirs.float().numpy())
    for lib in (ag, torch):
        assert str(lib.fft.fftfreq(n).dtype).endswith("float32")
        assert lib.fft.rfftfreq(n, requires_grad=True).requires_grad
        out = lib.empty(0, dtype=lib.float64)
        assert lib.fft.fftfreq(n, 2.0, out=out) is out and tuple(out.shape) == (n,)


def test_frequency_errors():
    assert_same_error(lambda lib: lib.fft.fftfreq(4, dtype=lib.int64), RuntimeError,
                      "fftfreq requires a floating point or complex dtype")
    assert_same_error(lambda lib: lib.fft.rfftfreq(4, out=lib.empty(0, dtype=lib.int32)),
                      RuntimeError, "rfftfreq requires a floating point or complex dtype")
    assert_same_error(lambda lib: lib.fft.fftfreq(4, dtype=lib.complex64), NotImplementedError,
                      "not implemented for 'ComplexFloat'")
    assert_same_error(lambda lib: lib.fft.fftfreq(-1), RuntimeError,
                      "Trying to create tensor with negative dimension -1")
    assert_same_error(lambda lib: lib.fft.fftfreq(4.0), TypeError, "'n'.*must be int, not float")
    assert_same_error(lambda lib: lib.fft.rfftfreq(4, out=[]), TypeError,
                      "argument 'out' must be Tensor, not list")


@pytest.mark.parametrize("dim", [None, 0, 1, -1, (0, 1), [1, 0], (0, 0)])
def test_shifts(dim):
    for x in (randn(4, 5), complex_randn(3, 6)):
        check_op(lambda lib, t: lib.fft.fftshift(t, dim=dim), x)
        check_op(lambda lib, t: lib.fft.ifftshift(t, dim=dim), x)
        check_op(lambda lib, t: lib.fft.ifftshift(lib.fft.fftshift(t, dim), dim), x)


def test_shift_errors():
    assert_same_error(lambda lib: lib.fft.fftshift(lib.ones(2, 3), dim=5), IndexError,
                      "Dimension out of range")
    assert_same_error(lambda lib: lib.fft.ifftshift(lib.tensor(1.0)), RuntimeError,
                      "`shifts` required")
    assert_same_error(lambda lib: lib.fft.fftshift(lib.ones(2), dim=0.5), TypeError,
                      "'dim' must be tuple of ints")


def test_round_trips():
    x = randn(3, 8)
    for lib in (ag, torch):
        t = lib.tensor(x)
        F = lib.fft
        for again in (F.ifft(F.fft(t)), F.irfft(F.rfft(t), n=8), F.hfft(F.ihfft(t), n=8),
                      F.irfftn(F.rfftn(t), s=(3, 8)), F.hfft2(F.ihfft2(t), s=(3, 8))):
            np.testing.assert_allclose(again.resolve_conj().cpu().numpy().real, x, atol=1e-12)
