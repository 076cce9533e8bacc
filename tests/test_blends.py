"""lerp, addcmul and addcdiv (autograd_cy/blends.py) against torch's: values, gradients
(summed back over broadcast dims) and double backward (check_op), gradcheck and
gradgradcheck in float64, forward AD, the nodes (LerpBackward0/1, AddcmulBackward0,
AddcdivBackward0), lerp's exact end at weight 1, type promotion, and torch's errors."""
import numpy as np
import pytest

from oracle import (
    assert_same, assert_same_error, both, check_gradcheck, check_jvp, check_op, node_name, randn,
    to_numpy,
)

CASES = {
    "lerp_number": lambda lib, x, y, w: lib.lerp(x, y, 0.3),
    "lerp_number_far": lambda lib, x, y, w: x.lerp(y, 0.8),
    "lerp_tensor": lambda lib, x, y, w: lib.lerp(x, y, w),
    "lerp_broadcast": lambda lib, x, y, w: x[:1].lerp(y, w[:, :1]),
    "addcmul": lambda lib, x, y, w: lib.addcmul(x, y, w),
    "addcmul_value": lambda lib, x, y, w: x.addcmul(y[0], w, value=-0.5),
    "addcdiv": lambda lib, x, y, w: lib.addcdiv(x, y, w.exp()),
    "addcdiv_value": lambda lib, x, y, w: x[:, :1].addcdiv(y, w.exp()[0], value=2.0),
}

INPUTS = (randn(3, 4), randn(3, 4, seed=1), randn(3, 4, seed=2))


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    check_op(CASES[name], *INPUTS)


@pytest.mark.parametrize("name", CASES)
def test_forward_ad(name):
    check_jvp(CASES[name], *INPUTS)


@pytest.mark.parametrize("name", CASES)
def test_gradcheck(name):
    check_gradcheck(CASES[name], *INPUTS, check_forward_ad=True)


def test_float32_values():
    for name in CASES:
        check_op(CASES[name], *INPUTS, dtype=np.float32)


def test_nodes():
    def run(lib):
        x, y, w = (lib.tensor(a, requires_grad=True) for a in INPUTS)
        outs = [x.lerp(y, 0.5), x.lerp(y, w), x.addcmul(y, w), x.addcdiv(y, w)]
        return [node_name(out.grad_fn) for out in outs]
    assert_same(run)


def test_lerp_ends_and_large_weights():
    x, y = randn(5) * 1e3, randn(5, seed=3) * 1e-3
    assert_same(lambda lib: [lib.tensor(x).lerp(lib.tensor(y), w).tolist()
                             for w in (0.0, 0.49, 0.5, 1.0, -2.0, 3.0)]
                + [lib.tensor(x).lerp(lib.tensor(y), lib.tensor([0.0, 0.5, 1.0, -1.0, 2.0],
                                                                  dtype=lib.float64))],
                rtol=0, atol=0)


def test_promotion():
    def run(lib):
        ints, floats = lib.arange(3), lib.tensor([1.0, 2.0, 4.0])
        outs = [lib.addcmul(ints, floats, ints), lib.addcmul(ints, ints, ints, value=2),
                lib.addcdiv(ints, floats, floats), lib.addcmul(floats.double(), floats, floats),
                floats.lerp(floats * 2, lib.tensor(0.25, dtype=lib.float64))]
        return [(out, str(out.dtype).split(".")[-1]) for out in outs]
    assert_same(run)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.lerp(lib.zeros(3), lib.zeros(3, dtype=lib.float64), 0.5),
    lambda lib: lib.lerp(lib.arange(3), lib.arange(3), 0.5),
    lambda lib: lib.lerp(lib.zeros(3), lib.zeros(3), lib.zeros(3, dtype=lib.float64)),
    lambda lib: lib.addcdiv(lib.arange(3), lib.arange(3), lib.arange(3)),
    lambda lib: lib.addcmul(lib.zeros(3), lib.zeros(2), lib.zeros(3)),
])
def test_errors(fn):
    assert_same_error(fn, exact=False)


@pytest.mark.parametrize("dtypes", [("float32", "float64", None), ("float64", "float16", None),
                                    ("complex64", "complex64", "float32"),
                                    ("bfloat16", "bfloat16", "float32")])
def test_lerp_dtype_errors_name_the_cpp_types(dtypes):
    """torch names the dtypes as C++ does: ``long int``, ``double``, ``c10::Half``."""
    first, end, weight = dtypes

    def run(lib):
        w = 0.5 if weight is None else lib.ones(2, dtype=getattr(lib, weight))
        lib.lerp(lib.ones(2, dtype=getattr(lib, first)), lib.ones(2, dtype=getattr(lib, end)),
                 w)
    assert_same_error(run, exact=True)


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_saves_only_the_factors(op):
    """As torch's, only tensor1 and tensor2 are saved (packed in that order): input's memory
    is not held by the graph (found by the saved-tensors-hooks tutorial's pack hooks)."""
    def run(lib):
        packed = []

        def pack(t):
            packed.append(t.tolist())
            return t
        a = lib.tensor([1.5, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = getattr(lib, op)(a.reshape(2, 1), a * 2, a * 3)
        out.sum().backward()
        return packed, a.grad.tolist()
    ours, theirs = both(run)
    assert ours == theirs


def _written_after(lib, name, written, needs):
    """``name(input, tensor1, tensor2)``, then operand ``written`` modified in place (not
    recorded), then backward: True where it goes through, False where it is refused."""
    operands = [lib.tensor([0.25, 1.0], requires_grad=True) * 1,
                lib.tensor(-0.625, requires_grad=needs[0]) * 1,
                lib.tensor(2.25, requires_grad=needs[1]) * 1]
    out = getattr(lib, name)(*operands)
    with lib.no_grad():
        operands[written].add_(1)
    try:
        out.sum().backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
        return False
    return True


@pytest.mark.parametrize("name", ["addcmul", "addcdiv", "lerp"])
@pytest.mark.parametrize("written", [0, 1, 2])
@pytest.mark.parametrize("needs", [(True, False), (False, True), (True, True), (False, False)])
def test_saves_what_the_wanted_gradients_read(name, written, needs):
    """As torch's nodes: ``input`` is never saved, and each of ``tensor1``/``tensor2`` only
    where a wanted gradient reads it, so writing another operand leaves the backward
    working (fuzz seeds 953000060, 953001864; lerp with a tensor weight); but addcdiv's
    saves tensor2 even where only ``input`` needs a gradient (fuzz seed 986000586)."""
    assert_same(lambda lib: _written_after(lib, name, written, needs))


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_rounds_once(name, dtype):
    """torch's kernel computes ``input + value * t1 (* or /) t2`` of float16/bfloat16 in
    float32 and rounds once (fuzz seed 985002121: addcdiv(-3, -1.875, 0.6875) in bfloat16
    is -5.71875, not -5.75)."""
    def fn(lib):
        half = getattr(lib, dtype)
        x, a, b = (lib.tensor(v, dtype=half) for v in (
            [-3.0, 1.0, 2.5, -0.80859375, -1.1953125, 0.36328125],
            [-1.875, 2.3, -0.7, -1.7109375, 2.203125, -2.140625],
            [0.6875, 3.0, 0.3, 0.2451171875, -1.1328125, 0.74609375]))
        return [repr(v) for v in getattr(lib, name)(x, a, b, value=0.3).float().tolist()] + \
            [repr(v) for v in getattr(lib, name)(x, a, b).float().tolist()]
    assert_same(fn)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_lerp_of_the_half_types_rounds_once(dtype):
    """torch's kernel computes a float16/bfloat16 lerp in float32 and rounds once (the
    half-type steps were an ulp away: fuzz seed 991005723)."""
    def run(lib):
        start = lib.tensor([-0.1887, 1.5, -2.25, 0.703125], dtype=getattr(lib, dtype))
        end = lib.tensor([-2.625, 0.375, 1.875, -1.0], dtype=getattr(lib, dtype))
        weight = lib.tensor([-2.375, 0.3125, 0.75, 1.5], dtype=getattr(lib, dtype))
        return (start.lerp(end, weight).float(), start.lerp(end, -2.375).float(),
                start.clone().lerp_(end, weight).float())
    ours, theirs = both(run)
    for mine, expected in zip(ours, theirs):
        np.testing.assert_array_equal(to_numpy(mine), to_numpy(expected))


def test_lerp_of_0d_half_tensors_with_a_float_weight_promotes():
    """A 0-d float32 weight takes part in the promotion of 0-d operands: the result is
    float32, not the half type computed in float32 (fuzz seed 993004232)."""
    assert_same(lambda lib: lib.tensor(0.875, dtype=lib.float16).lerp(
        lib.tensor(-0.375, dtype=lib.float16), lib.tensor(1.375)))
    assert_same(lambda lib: str(lib.tensor(0.875, dtype=lib.float16).lerp(
        lib.tensor(-0.375, dtype=lib.float16), lib.tensor(1.375)).dtype).split(".")[-1])
