"""gradcheck / gradgradcheck: pass on correct gradients, fail (raise or return False) on
wrong ones, with the same verdicts and key words as torch.autograd.gradcheck."""
import warnings

import numpy as np
import pytest
import torch
from torch.autograd.gradcheck import GradcheckError as TorchGradcheckError

import autograd_cy as ag
from autograd_cy.autograd.gradcheck import GradcheckError

from oracle import LIBS, assert_same_error, both, randn, to_numpy

ERRORS = {ag: GradcheckError, torch: TorchGradcheckError}


def inputs(lib, *arrays, requires_grad=True):
    return tuple(lib.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)
                 for a in arrays)


# Built-in ops. check_undefined_grad is off for them: it feeds an undefined (None)
# gradient into the op's backward node, which the built-in formulas do not accept yet.
OPS = {
    "mul_broadcast": (lambda a, b: a * b, (randn(2, 3), randn(3))),
    "div": (lambda a, b: a / (b * b + 1), (randn(2, 3), randn(2, 3))),
    "exp_tanh": (lambda a, b: (a * b).tanh().exp(), (randn(3), randn(3))),
    "pow": (lambda a, b: a ** 3 + b ** 2, (randn(4), randn(4))),
    "matmul": (lambda a, b: a @ b, (randn(2, 3), randn(3, 4))),
    "sum_mean": (lambda a, b: ((a * b).sum(1), (a - b).mean()), (randn(2, 3), randn(2, 3))),
    "log": (lambda a, b: (a * a + 1).log() * b, (randn(3), randn(3))),
}


@pytest.mark.parametrize("fast_mode", [False, True])
@pytest.mark.parametrize("name", sorted(OPS))
def test_gradcheck_passes_on_builtin_ops(name, fast_mode):
    fn, arrays = OPS[name]
    for lib in LIBS:
        assert lib.autograd.gradcheck(fn, inputs(lib, *arrays), fast_mode=fast_mode,
                                      check_undefined_grad=False) is True


@pytest.mark.parametrize("name", ["mul_broadcast", "div", "exp_tanh", "matmul", "log"])
def test_gradgradcheck_passes_on_builtin_ops(name):
    fn, arrays = OPS[name]
    for lib in LIBS:
        assert lib.autograd.gradgradcheck(fn, inputs(lib, *arrays),
                                          check_undefined_grad=False) is True


def test_only_inputs_requiring_grad_are_checked():
    # The second input is used but not checked; a non-tensor argument passes through.
    for lib in LIBS:
        x, = inputs(lib, randn(3))
        w, = inputs(lib, randn(3), requires_grad=False)
        assert lib.autograd.gradcheck(lambda a, b, k: a * b * k, (x, w, 3.0),
                                      check_undefined_grad=False)


# ------------------------------------------------------------------ custom Functions

def build_cube(lib, wrong=None):
    """x ** 3 with a correct backward, or one made wrong in a chosen way."""
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * x * x + y

        @staticmethod
        def backward(ctx, grad):
            x, y = ctx.saved_tensors
            x_grad = grad * 3 * x * x
            y_grad = grad
            if wrong == "x":
                x_grad = grad * 2 * x * x
            elif wrong == "y":
                y_grad = grad * 1.5
            elif wrong == "second_order":
                x_grad = grad * 3 * (x * x).detach()     # right value, no second derivative
            return x_grad, y_grad
    return Cube


def test_gradcheck_and_gradgradcheck_pass_on_a_correct_function():
    for lib in LIBS:
        cube = build_cube(lib)
        args = inputs(lib, randn(4), randn(4))
        assert lib.autograd.gradcheck(cube.apply, args)            # undefined-grad check on
        assert lib.autograd.gradcheck(cube.apply, args, fast_mode=True)
        # Second order runs built-in backward nodes, which do not take undefined grads yet.
        assert lib.autograd.gradgradcheck(cube.apply, args, check_undefined_grad=False)


@pytest.mark.parametrize("wrong, index", [("x", 0), ("y", 1)])
@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_fails_on_a_wrong_backward(wrong, index, fast_mode):
    words = f"Jacobian mismatch for output 0 with respect to input {index},\nnumerical:"
    for lib in LIBS:
        cube = build_cube(lib, wrong)
        args = inputs(lib, randn(4), randn(4))
        with pytest.raises(ERRORS[lib], match=words) as info:
            lib.autograd.gradcheck(cube.apply, args, fast_mode=fast_mode)
        assert isinstance(info.value, RuntimeError)
        assert "analytical:" in str(info.value)
        assert lib.autograd.gradcheck(cube.apply, args, fast_mode=fast_mode,
                                      raise_exception=False) is False


def test_gradcheck_message_names_the_output_and_shows_both_jacobians():
    for lib in LIBS:
        class Pair(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                return g1 * 2 + g2 * 4               # the second output's part is wrong

        x, = inputs(lib, [1.0, 2.0])
        with pytest.raises(ERRORS[lib]) as info:
            lib.autograd.gradcheck(Pair.apply, (x,))
        message = str(info.value)
        assert message.startswith("Jacobian mismatch for output 1 with respect to input 0,")
        # numerical 3 * I, analytical 4 * I
        assert "3." in message.split("analytical:")[0] and "4." in message.split("analytical:")[1]


def test_gradgradcheck_fails_on_a_wrong_second_derivative():
    for lib in LIBS:
        cube = build_cube(lib, "second_order")
        args = inputs(lib, randn(3), randn(3))
        assert lib.autograd.gradcheck(cube.apply, args)          # first order is right
        with pytest.raises(ERRORS[lib], match="Jacobian mismatch for output 0 with respect "
                                              "to input 0"):
            lib.autograd.gradgradcheck(cube.apply, args)
        assert lib.autograd.gradgradcheck(cube.apply, args, raise_exception=False) is False


def test_gradgradcheck_fails_on_a_once_differentiable_function():
    for lib in LIBS:
        once = __import__(lib.__name__ + ".autograd.function",
                          fromlist=["once_differentiable"]).once_differentiable

        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @once
            def backward(ctx, grad):
                x, = ctx.saved_tensors
                return 2 * x * grad

        args = inputs(lib, randn(3))
        assert lib.autograd.gradcheck(Square.apply, args)
        # The Error node hangs off fresh leaves, so grad() w.r.t. the inputs never reaches
        # it: the analytical second derivative comes out as zero and the check fails.
        assert lib.autograd.gradgradcheck(Square.apply, args, raise_exception=False) is False
        with pytest.raises(ERRORS[lib], match="Jacobian mismatch for output 0 with respect "
                                              "to input 0"):
            lib.autograd.gradgradcheck(Square.apply, args)


def test_backward_not_multiplied_by_grad_output():
    for lib in LIBS:
        class Sloppy(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                if not to_numpy(grad.detach()).any():
                    return grad + 1                    # wrong only for a zero grad_output
                return grad * 2

        with pytest.raises(ERRORS[lib], match="backward not multiplied by grad_output"):
            lib.autograd.gradcheck(Sloppy.apply, inputs(lib, randn(3)))


def test_backward_that_is_not_reentrant():
    for lib in LIBS:
        calls = []

        class Drifting(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                calls.append(1)
                return grad * (2 + 1e-3 * len(calls))

        with pytest.raises(ERRORS[lib], match="Backward is not reentrant"):
            lib.autograd.gradcheck(Drifting.apply, inputs(lib, randn(3)), atol=1e-1)


@pytest.mark.parametrize("behaviour, words", [
    ("raise", "Expected backward function to handle undefined output grads"),
    ("nonzero", "Expected all input grads to be undefined or zero when all output grads are "
                "undefined or zero"),
])
def test_undefined_output_gradients_check(behaviour, words):
    for lib in LIBS:
        class Careless(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                if grad is None:
                    if behaviour == "raise":
                        raise RuntimeError("no gradient")
                    return lib.ones(3, dtype=lib.float64)
                return grad * 2

        args = inputs(lib, randn(3))
        with pytest.warns(UserWarning, match="undefined gradient support checking"):
            with pytest.raises(ERRORS[lib], match=words):
                lib.autograd.gradcheck(Careless.apply, args)
        assert lib.autograd.gradcheck(Careless.apply, args, check_undefined_grad=False)


def test_input_checks():
    for lib in LIBS:
        x32 = lib.tensor(randn(3).astype(np.float32), requires_grad=True)
        with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double "
                                             "precision floating point or complex."):
            lib.autograd.gradcheck(lambda a: a * 2, (x32,), eps=1e-2, atol=1e-2,
                                   check_undefined_grad=False)
    assert_same_error(
        lambda lib: lib.autograd.gradcheck(lambda a: a * 2,
                                           inputs(lib, randn(3), requires_grad=False)),
        ValueError, "gradcheck expects at least one input tensor to require gradient")

    def expanded_input(lib):
        expanded = lib.tensor([1.0], dtype=lib.float64).expand(3).requires_grad_()
        lib.autograd.gradcheck(lambda a: a * 2, (expanded,))
    assert_same_error(expanded_input, RuntimeError, "The 0th input has a dimension with stride 0")


def test_function_without_differentiable_outputs():
    for lib in LIBS:
        x, = inputs(lib, randn(3))
        assert lib.autograd.gradcheck(lambda a: lib.zeros(3, dtype=lib.float64), (x,))
        with pytest.raises(ERRORS[lib], match="Numerical gradient for function expected to "
                                              "be zero"):
            lib.autograd.gradcheck(lambda a: a.detach() * 2, (x,))


def test_gradcheck_leaves_the_inputs_unchanged():
    x, y = inputs(ag, randn(2, 3), randn(3))
    before = (to_numpy(x.detach()).copy(), to_numpy(y.detach()).copy())
    ag.autograd.gradcheck(lambda a, b: a * b, (x, y), check_undefined_grad=False)
    np.testing.assert_array_equal(to_numpy(x.detach()), before[0])
    np.testing.assert_array_equal(to_numpy(y.detach()), before[1])
    assert x._version == 0 and x.grad is None


def test_namespace():
    # As in torch, autograd.gradcheck is the function (the module stays importable).
    import types
    assert isinstance(ag.autograd.gradcheck, types.FunctionType)
    assert isinstance(ag.autograd.gradgradcheck, types.FunctionType)
    assert issubclass(GradcheckError, RuntimeError)


def test_mismatch_message_shows_the_jacobians_in_the_tensors_dtype():
    """A float32 input's Jacobians print without a dtype, as torch's are float32 tensors
    (the double-backward tutorial's wrong gradient, checked in float32)."""
    def run(lib):
        x = lib.tensor([2.0], requires_grad=True, device="cpu")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                lib.autograd.gradcheck(lambda t: t.sin() * 1.0001, x)
            except Exception as error:      # each library's GradcheckError
                return str(error)
    ours, theirs = both(run)
    assert ours == theirs
