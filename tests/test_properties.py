"""Property tests (hypothesis) against torch: shapes drawn at random, not picked by hand.

* a binary op on any two shapes: broadcast values, gradients and double backward as
  torch, or torch's error when the shapes do not broadcast;
* a reduction over any set of dims (negative ones too), with or without keepdim;
* matmul on any pair of 1-D, 2-D and batched operands with broadcast batch dims, or
  torch's error when the inner sizes differ.

The runs are derandomized (the same examples on every run, no example database on
disk), small, and have no deadline: a CI failure is reproducible and not a timing.
Hypothesis prints the failing example.
"""
import re

import numpy as np
import pytest
from hypothesis import Phase, given, settings, strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

from oracle import assert_same_error, check_op

# No shrinking or explaining: the drawn shapes are small already, and an xfailed property
# (a known library bug) would spend seconds shrinking on every run.
PROPERTY = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    phases=(Phase.explicit, Phase.generate))


def values(shape, seed, positive=False):
    array = np.random.default_rng(seed).standard_normal(shape)
    return np.asarray(np.abs(array) + 0.5) if positive else array   # 0-d stays an array


def broadcastable(*shapes):
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        return False
    return True


# ------------------------------------------------------------------ binary ops

# name -> (fn, whether the operands must be positive: pow's base, div's denominator)
BINARY = {
    "add": (lambda lib, a, b: a + b, False),
    "sub": (lambda lib, a, b: lib.sub(a, b, alpha=2), False),
    "mul": (lambda lib, a, b: a * b, False),
    "div": (lambda lib, a, b: a / b, True),
    "pow": (lambda lib, a, b: a ** b, True),
    "maximum": (lambda lib, a, b: lib.maximum(a, b), False),
    "minimum": (lambda lib, a, b: lib.minimum(a, b), False),
    "lt": (lambda lib, a, b: a < b, False),
    "eq": (lambda lib, a, b: lib.eq(a > 0, b > 0), False),
}


@PROPERTY
@given(name=st.sampled_from(sorted(BINARY)),
       shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4,
                                            min_side=0, max_side=4),
       dtype=st.sampled_from([np.float32, np.float64]),
       seed=st.integers(0, 2 ** 16))
def test_binary_op_broadcasts_like_torch(name, shapes, dtype, seed):
    fn, positive = BINARY[name]
    a, b = shapes.input_shapes
    check_op(fn, values(a, seed, positive), values(b, seed + 1, positive), dtype=dtype)


@st.composite
def shapes_that_do_not_broadcast(draw):
    shape = array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4)
    return draw(st.tuples(shape, shape).filter(lambda pair: not broadcastable(*pair)))


@pytest.mark.parametrize("name", sorted(BINARY))
@PROPERTY
@given(shapes=shapes_that_do_not_broadcast())
def test_binary_op_on_shapes_that_do_not_broadcast_raises_like_torch(name, shapes):
    fn, positive = BINARY[name]
    x, y = values(shapes[0], 0, positive), values(shapes[1], 1, positive)
    assert_same_error(lambda lib: fn(lib, lib.tensor(x), lib.tensor(y)), RuntimeError,
                      "must match the size of tensor b", exact=True)


# ------------------------------------------------------------------ reductions

MULTI_DIM = ["sum", "mean", "amax", "amin", "var", "std", "logsumexp", "norm", "count_nonzero"]


@st.composite
def reduction_cases(draw):
    shape = draw(array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4))
    name = draw(st.sampled_from(MULTI_DIM + ["prod", "max", "argmax"]))
    if name in ("prod", "max", "argmax"):           # one dim at a time in torch
        dims = [draw(st.integers(-len(shape), len(shape) - 1))]
    else:
        dims = draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1,
                             max_size=len(shape), unique_by=lambda d: d % len(shape)))
    return shape, name, dims, draw(st.booleans()), draw(st.integers(0, 2 ** 16))


def reduce(lib, t, name, dims, keepdim, correction):
    dim = dims[0] if len(dims) == 1 and name in ("prod", "max", "argmax") else tuple(dims)
    if name in ("var", "std"):
        return getattr(t, name)(dim, correction=correction, keepdim=keepdim)
    if name == "logsumexp":
        return lib.logsumexp(t, dim, keepdim=keepdim)
    if name == "norm":
        return t.norm(dim=dim, keepdim=keepdim)
    if name == "count_nonzero":
        return lib.count_nonzero(t > 0.5, dim)
    return getattr(t, name)(dim, keepdim=keepdim)


@PROPERTY
@given(case=reduction_cases(), dtype=st.sampled_from([np.float32, np.float64]))
def test_reduction_over_any_dims_matches_torch(case, dtype):
    shape, name, dims, keepdim, seed = case
    reduced = int(np.prod([shape[d] for d in dims]))
    correction = 1 if reduced > 1 else 0            # no division by zero degrees of freedom
    check_op(lambda lib, t: reduce(lib, t, name, dims, keepdim, correction),
             values(shape, seed), dtype=dtype)


# ------------------------------------------------------------------ matmul

RANKS = {"vector": 1, "matrix": 2, "batched": 3}


@st.composite
def matmul_shapes(draw, kinds, matching=True):
    """Operands of the given kinds; batched ones get 1 or 2 broadcastable batch dims."""
    n, k, m = (draw(st.integers(1, 4)) for _ in range(3))
    batch = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=1, max_dims=2,
                                               min_side=1, max_side=3)).input_shapes
    other_k = k if matching else draw(st.integers(1, 4).filter(lambda j: j != k))
    a = {"vector": (k,), "matrix": (n, k), "batched": batch[0] + (n, k)}[kinds[0]]
    b = {"vector": (other_k,), "matrix": (other_k, m),
         "batched": batch[1] + (other_k, m)}[kinds[1]]
    return a, b


KINDS = [(a, b) for a in RANKS for b in RANKS]


@pytest.mark.parametrize("kinds", KINDS, ids=["@".join(k) for k in KINDS])
@PROPERTY
@given(data=st.data(), seed=st.integers(0, 2 ** 16))
def test_matmul_of_any_operands_matches_torch(kinds, data, seed):
    a, b = data.draw(matmul_shapes(kinds))
    check_op(lambda lib, x, y: lib.matmul(x, y), values(a, seed), values(b, seed + 1))
    check_op(lambda lib, x, y: x @ y, values(a, seed), values(b, seed + 1), double=False)


# torch's error names the kernel matmul hands the (folded) operands to: dot, mv, mm or bmm.
KERNEL_WORDS = (r"^(inconsistent tensor size|size mismatch, got input|mat1 and mat2 shapes "
                r"cannot be multiplied|Expected size for first two dimensions of batch2 tensor)")

@pytest.mark.parametrize("kinds", KINDS, ids=["@".join(k) for k in KINDS])
@PROPERTY
@given(data=st.data())
def test_matmul_with_mismatched_inner_sizes_raises_like_torch(kinds, data):
    a, b = data.draw(matmul_shapes(kinds, matching=False))
    ours, theirs = assert_same_error(
        lambda lib: lib.matmul(lib.tensor(values(a, 0)), lib.tensor(values(b, 1))),
        RuntimeError, KERNEL_WORDS)
    assert re.match(KERNEL_WORDS, ours)[1] == re.match(KERNEL_WORDS, theirs)[1], (ours, theirs)
