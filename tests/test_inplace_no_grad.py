"""In-place arithmetic that records nothing runs straight into the tensor's memory.

(The path an optimizer step takes under no_grad.) Values, dtypes, versions,
memory identity and errors must be those of the recorded path and of torch.
"""
import numpy as np
import pytest

from oracle import LIBS, assert_same_error, to_numpy

CASES = [
    ("add", lambda t, o: t.add_(o)), ("add_alpha", lambda t, o: t.add_(o, alpha=-0.5)),
    ("sub", lambda t, o: t.sub_(o)), ("sub_alpha", lambda t, o: t.sub_(o, alpha=2)),
    ("mul", lambda t, o: t.mul_(o)), ("div", lambda t, o: t.div_(o)),
    ("iadd", lambda t, o: t.__iadd__(o)), ("isub", lambda t, o: t.__isub__(o)),
]
OTHERS = {
    "tensor": lambda lib: lib.tensor([[0.5], [2.0]]),
    "float64_tensor": lambda lib: lib.tensor([1.5, -2.0, 4.0], dtype=lib.float64),
    "number": lambda lib: 3.0,
    "int": lambda lib: 2,
}


@pytest.mark.parametrize("other", sorted(OTHERS))
@pytest.mark.parametrize("name, op", CASES, ids=[c[0] for c in CASES])
def test_no_grad_inplace_matches_torch(name, op, other):
    results = []
    for lib in LIBS:
        p = lib.tensor(np.arange(1.0, 7.0).reshape(2, 3), requires_grad=True)
        with lib.no_grad():
            address, version = p.data_ptr(), p._version
            out = op(p, OTHERS[other](lib))
        assert out is p and p.data_ptr() == address and p._version == version + 1
        results.append(to_numpy(p.detach()).copy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)
    assert results[0].dtype == results[1].dtype


@pytest.mark.parametrize("build, message", [
    (lambda lib: lib.tensor([1, 2]).add_(1.5), "result type Float can't be cast"),
    (lambda lib: lib.tensor([1, 2]).div_(2), "result type Float can't be cast"),
    (lambda lib: lib.ones(3).add_(lib.ones(2, 3)), "doesn't match the broadcast shape"),
    (lambda lib: lib.tensor([True]).sub_(lib.tensor([True])), "Subtraction, the `-` operator"),
])
def test_no_grad_inplace_errors_match_torch(build, message):
    assert_same_error(build, RuntimeError, message)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, op", CASES, ids=[c[0] for c in CASES])
def test_no_grad_inplace_same_shape_is_exact(name, op, dtype):
    # Same shape and dtype, small: the fused loop runs (NOTE [Fused kernels]); it must give
    # torch's bits, and leave the operand alone.
    rng = np.random.default_rng(5)
    values = rng.standard_normal((4, 8)).astype(dtype)
    other = rng.standard_normal((4, 8)).astype(dtype)
    results = []
    for lib in LIBS:
        p = lib.tensor(values.copy(), requires_grad=True)
        o = lib.tensor(other.copy())
        with lib.no_grad():
            op(p, o)
        np.testing.assert_array_equal(to_numpy(o), other)
        results.append(to_numpy(p.detach()).copy())
    np.testing.assert_array_equal(results[0], results[1])


OVERLAP = "some elements of the input tensor and the written-to tensor refer to a single memory"


@pytest.mark.parametrize("grad_mode", [False, True])
@pytest.mark.parametrize("build", [
    lambda lib, a: a[1:].sub_(a[:-1]),
    lambda lib, a: a[1:].__isub__(a[:-1]),
    lambda lib, a: a[:-1].__iadd__(a[1:]),
    lambda lib, a: a[1:].mul_(a[:-1]),
    lambda lib, a: a[1:].div_(a[:-1]),
    lambda lib, a: a.mul_(a[2]),
    lambda lib, a: a.view(2, 3).add_(a.view(2, 3)[0]),
    lambda lib, a: a.view(3, 2)[:2, :2].add_(a.view(3, 2)[:2, :2].t()),
    lambda lib, a: a[1:].copy_(a[:-1]),
    lambda lib, a: a[1:].clamp_(a[:-1], None),
    lambda lib, a: a.__setitem__(slice(0, 3), a[1:4]),
    lambda lib, a: a.__setitem__(lib.tensor([0, 1]), a[4:6]),
    lambda lib, a: a.index_put_((lib.tensor([1, 2]),), a[0]),
    lambda lib, a: a.index_put_((a > 2,), a[0], accumulate=True),
    lambda lib, a: a.__setitem__(a > 3, a[0:2]),
], ids=["sub_", "isub", "iadd", "mul_", "div_", "0-dim", "broadcast row", "transposed",
        "copy_", "clamp_", "slice setitem", "index setitem", "index_put_ 0-dim value",
        "index_put_ accumulate", "mask setitem, two values"])
def test_inplace_partial_overlap_is_an_error(build, grad_mode):
    # The result would depend on the loop order (the fused loop reads what it wrote, NumPy
    # buffers): PyTorch refuses, in grad mode or not, and writes nothing.
    targets = []

    def run(lib):
        targets.append(lib.arange(6.0))
        with lib.set_grad_enabled(grad_mode):
            build(lib, targets[-1])
    assert_same_error(run, RuntimeError, OVERLAP)
    for a in targets:
        np.testing.assert_array_equal(to_numpy(a), np.arange(6.0))


@pytest.mark.parametrize("build", [
    lambda lib, a: a.add_(a),
    lambda lib, a: a.view(2, 3)[0].mul_(a.view(2, 3)[0]),
    lambda lib, a: a[:3].sub_(a[3:]),
    lambda lib, a: a.fill_(a[2]),
    lambda lib, a: a.masked_fill_(a > 2, a[2]),
    lambda lib, a: a.copy_(a),
    # A one-element value with one bool mask runs as masked_fill_ (canDispatchToMaskedFill).
    lambda lib, a: a.__setitem__(a > 2, a[0]),
    lambda lib, a: a.__setitem__(a > 2, a[0:1]),
    lambda lib, a: a.index_put_((a > 2,), a[0]),
    lambda lib, a: a.view(2, 3).__setitem__((slice(None), lib.tensor([True, False, True])), a[4]),
], ids=["itself", "same view twice", "disjoint halves", "fill_ 0-dim", "masked_fill_ 0-dim",
        "copy_ itself", "mask setitem 0-dim", "mask setitem 1 element", "index_put_ mask",
        "mask after a slice"])
def test_inplace_full_or_no_overlap_is_allowed(build):
    results = []
    for lib in LIBS:
        a = lib.arange(6.0)
        with lib.no_grad():
            build(lib, a)
        results.append(to_numpy(a).copy())
    np.testing.assert_array_equal(results[0], results[1])


INTERNAL_OVERLAP = "more than one element of the written-to tensor refers to a single memory"


@pytest.mark.parametrize("grad_mode", [False, True])
@pytest.mark.parametrize("build", [
    lambda lib, e: e.add_(1), lambda lib, e: e.__iadd__(lib.ones(3)), lambda lib, e: e.exp_(),
    lambda lib, e: e.relu_(), lambda lib, e: e.clamp_(0, 1), lambda lib, e: e.copy_(lib.ones(3)),
], ids=["add_", "iadd", "exp_", "relu_", "clamp_", "copy_"])
def test_inplace_into_an_expanded_tensor_is_an_error(build, grad_mode):
    # An expand shares one element among several: an elementwise write is refused.
    targets = []

    def run(lib):
        targets.append(lib.arange(6.0))
        with lib.set_grad_enabled(grad_mode):
            build(lib, targets[-1][:1].expand(3))
    assert_same_error(run, RuntimeError, INTERNAL_OVERLAP)
    for a in targets:
        np.testing.assert_array_equal(to_numpy(a), np.arange(6.0))
