"""The ``_foreach_*`` ops against torch's: values (in place and out of place, lists, numbers,
number lists), gradients of the out-of-place forms, version bumps, errors; on the emulated
CUDA device the same values, and one multi-tensor launch per dtype (NOTE [Foreach on CUDA]).
"""
import numpy as np
import pytest
import torch

import autograd_cy as ag

SHAPES = [(3, 4), (5,), (), (2, 1, 3), (0,)]
DEVICES = ["cpu", "cuda"]


def arrays(seed, dtype=np.float32, shapes=SHAPES):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def ours(values, device, requires_grad=False):
    return [ag.tensor(v, device=device, requires_grad=requires_grad) for v in values]


def theirs(values, requires_grad=False):
    return [torch.tensor(v, requires_grad=requires_grad) for v in values]


def host(t):
    return t.detach().cpu().numpy()


def assert_lists_close(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape)
        assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1]
        np.testing.assert_allclose(host(g), w.detach().numpy(), rtol=1e-6, atol=1e-6)


@pytest.fixture
def seam():
    """The emulated device's counters, reset."""
    seam = ag.cuda.devices.get(0).seam
    seam.counters.reset()
    return seam


# ------------------------------------------------------------------ values

IN_PLACE_CASES = [
    ("_foreach_add_", lambda o: (o,), {}),
    ("_foreach_add_", lambda o: (o,), {"alpha": -0.25}),
    ("_foreach_sub_", lambda o: (o,), {"alpha": 2}),
    ("_foreach_mul_", lambda o: (o,), {}),
    ("_foreach_add_", lambda o: (1.5,), {}),
    ("_foreach_sub_", lambda o: (3,), {}),
    ("_foreach_mul_", lambda o: (-2.0,), {}),
    ("_foreach_copy_", lambda o: (o,), {}),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name, other, kwargs", IN_PLACE_CASES)
def test_in_place_ops_match_torch(device, name, other, kwargs):
    a, b = arrays(0), arrays(1)
    mine, yours = ours(a, device), theirs(a)
    versions = [t._version for t in mine]
    result = getattr(ag, name)(mine, *other(ours(b, device)), **kwargs)
    expected = getattr(torch, name)(yours, *other(theirs(b)), **kwargs)
    assert result is mine and expected is yours     # in-place forms return self
    assert_lists_close(mine, yours)
    assert [t._version - v for t, v in zip(mine, versions)] == [1] * len(mine)


@pytest.mark.parametrize("device", DEVICES)
def test_zero_matches_torch(device):
    a = arrays(2)
    a[0][0, 0] = np.nan                  # zero_ is a fill, not a multiply by 0
    mine, yours = ours(a, device), theirs(a)
    assert ag._foreach_zero_(mine) is mine
    torch._foreach_zero_(yours)
    assert_lists_close(mine, yours)


OUT_OF_PLACE_CASES = [
    ("_foreach_add", lambda o: (o,), {"alpha": 0.5}),
    ("_foreach_sub", lambda o: (o,), {}),
    ("_foreach_mul", lambda o: (o,), {}),
    ("_foreach_add", lambda o: (2,), {}),
    ("_foreach_sub", lambda o: (0.75,), {}),
    ("_foreach_mul", lambda o: (3.0,), {}),
    ("_foreach_mul", lambda o: ([1.0, 2, -1.5, 0.5, 4.0],), {}),
    ("_foreach_add", lambda o: ([0.5] * len(SHAPES),), {}),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name, other, kwargs", OUT_OF_PLACE_CASES)
def test_out_of_place_ops_match_torch(device, name, other, kwargs):
    a, b = arrays(3), arrays(4)
    mine = ours(a, device)
    result = getattr(ag, name)(mine, *other(ours(b, device)), **kwargs)
    expected = getattr(torch, name)(theirs(a), *other(theirs(b)), **kwargs)
    assert isinstance(result, tuple) and isinstance(expected, tuple)
    assert_lists_close(result, expected)
    assert all(r.device == t.device for r, t in zip(result, mine))
    assert_lists_close(mine, theirs(a))             # the inputs are untouched


@pytest.mark.parametrize("device", DEVICES)
def test_mixed_dtypes_and_promotion_match_torch(device):
    a = [np.ones(3, np.float32), np.arange(4, dtype=np.int64), np.ones(2, np.float64)]
    b = [np.full(3, 2, np.float32), np.arange(4, dtype=np.int64), np.full(2, 3, np.float64)]
    mine, yours = ours(a, device), theirs(a)
    ag._foreach_add_(mine, ours(b, device), alpha=3)
    torch._foreach_add_(yours, theirs(b), alpha=3)
    assert_lists_close(mine, yours)
    # an int tensor times a float: the out-of-place result promotes
    assert_lists_close(ag._foreach_mul(mine, 2.5), torch._foreach_mul(yours, 2.5))


@pytest.mark.parametrize("device", DEVICES)
def test_out_of_place_ops_are_differentiable_as_in_torch(device):
    a, b = arrays(5, np.float64), arrays(6, np.float64)
    mine_a, mine_b = ours(a, device, True), ours(b, device, True)
    yours_a, yours_b = theirs(a, True), theirs(b, True)
    for lib, x, y in ((ag, mine_a, mine_b), (torch, yours_a, yours_b)):
        added = lib._foreach_add(x, y, alpha=-2.0)
        scaled = lib._foreach_mul(added, y)
        squares = [(s * s).sum() for s in lib._foreach_sub(scaled, 0.5)]
        sum(squares[1:], squares[0]).backward()
    assert_lists_close([t.grad for t in mine_a], [t.grad for t in yours_a])
    assert_lists_close([t.grad for t in mine_b], [t.grad for t in yours_b])


@pytest.mark.parametrize("device", DEVICES)
def test_in_place_on_a_graph_tensor_records_as_in_torch(device):
    mine_x = ag.tensor([1.0, -2.0, 3.0], device=device, requires_grad=True)
    yours_x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    for lib, x in ((ag, mine_x), (torch, yours_x)):
        y = x * 2
        lib._foreach_mul_([y], 3.0)
        lib._foreach_add_([y], [x * x], alpha=0.5)
        y.sum().backward()
    np.testing.assert_allclose(host(mine_x.grad), yours_x.grad.numpy())


def test_sgd_update_under_no_grad_matches_torch():
    a, g = arrays(7, shapes=[(4, 3), (3,)]), arrays(8, shapes=[(4, 3), (3,)])
    mine, yours = ours(a, "cpu", True), theirs(a, True)
    with ag.no_grad():
        ag._foreach_add_(mine, ours(g, "cpu"), alpha=-0.1)
    with torch.no_grad():
        torch._foreach_add_(yours, theirs(g), alpha=-0.1)
    assert_lists_close(mine, yours)
    assert all(t.requires_grad and t.is_leaf and t.grad_fn is None for t in mine)


# ------------------------------------------------------------------ errors

def raised(call):
    try:
        call()
    except Exception as e:        # noqa: BLE001 - the oracle's exception is what we compare
        return e
    raise AssertionError("no error")


def same_error(mine, yours, *words):
    """Both calls raise the same exception type, and both messages contain ``words``."""
    got, want = raised(mine), raised(yours)
    assert type(got) is type(want), (got, want)
    for word in words:
        assert word in str(got) and word in str(want), (word, str(got), str(want))


ERROR_CASES = [
    # (name, call with the library and a factory of tensors, message words)
    ("lengths", lambda lib, T: lib._foreach_add_([T(3), T(2)], [T(3)]),
     ("Tensor lists must have the same number of tensors", "got 2 and 1")),
    ("empty", lambda lib, T: lib._foreach_add([], []),
     ("Tensor list must have at least one tensor",)),
    ("scalar list length", lambda lib, T: lib._foreach_mul_([T(3), T(2)], [2.0]),
     ("same number of elements as scalar list",)),
    ("not a tensor", lambda lib, T: lib._foreach_add_([T(3)], [None]),
     ("expected Tensor as element 0 in argument 1", "NoneType")),
    ("not a list", lambda lib, T: lib._foreach_add_(T(3), 1),
     ("_foreach_add_()",)),
    ("alpha with a number", lambda lib, T: lib._foreach_add_([T(3)], 1, alpha=2),
     ("_foreach_add_()", "invalid combination of arguments")),
    ("shapes", lambda lib, T: lib._foreach_add_([T(3)], [T(2)]),
     ("The size of tensor a (3) must match the size of tensor b (2)",)),
    ("broadcast into self", lambda lib, T: lib._foreach_add_([T(1)], [T(3)]),
     ("output with shape [1] doesn't match the broadcast shape [3]",)),
    ("integer alpha", lambda lib, T: lib._foreach_add([T(2).long()], [T(2).long()], alpha=2.5),
     ("For integral input tensors, argument alpha must not be a floating point number",)),
    ("cast in place", lambda lib, T: lib._foreach_add_([T(3).long()], [T(3)]),
     ("result type Float can't be cast to the desired output type Long",)),
    ("bool sub", lambda lib, T: lib._foreach_sub_([T(3).bool()], [T(3).bool()]),
     ("Subtraction, the `-` operator, with two bool tensors is not supported",)),
    ("0-dim other", lambda lib, T: lib._foreach_add_([T(3)], T(3)),
     ("scalar tensor expected to be 0 dim but it has 1 dimensions and 3 elements",)),
    ("leaf in place", lambda lib, T: lib._foreach_add_([T(3).requires_grad_()], [T(3)]),
     ("a leaf Variable that requires grad is being used in an in-place operation",)),
    ("leaf zero_", lambda lib, T: lib._foreach_zero_([T(3).requires_grad_()]),
     ("a leaf Variable that requires grad is being used in an in-place operation",)),
    ("leaf copy_", lambda lib, T: lib._foreach_copy_([T(3).requires_grad_()], [T(3)]),
     ("a leaf Variable that requires grad is being used in an in-place operation",)),
    ("leaf mul_ number", lambda lib, T: lib._foreach_mul_([T(3).requires_grad_()], 2.0),
     ("a leaf Variable that requires grad is being used in an in-place operation",)),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name, call, words", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_match_torch(device, name, call, words):
    same_error(lambda: call(ag, lambda n: ag.ones(n, device=device)),
               lambda: call(torch, lambda n: torch.ones(n)), *words)


def test_mixed_devices_are_refused():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        ag._foreach_add_([ag.ones(3, device="cuda")], [ag.ones(3, device="cpu")])
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        ag._foreach_mul([ag.ones(3, device="cpu")], [ag.ones(3, device="cuda")])


# ------------------------------------------------------------------ one launch on CUDA

def test_one_launch_for_a_list_of_one_dtype(seam):
    a, g = arrays(9), arrays(10)
    mine = ours(a, "cuda", requires_grad=True)
    grads = ours(g, "cuda")
    seam.counters.reset()
    with ag.no_grad():
        ag._foreach_add_(mine, grads, alpha=-0.5)
    assert seam.counters.launches == 1
    assert seam.counters.by_kernel == {"foreach_apply<float, AddScaled>": 1}
    with torch.no_grad():
        expected = torch._foreach_add_(theirs(a, True), theirs(g), alpha=-0.5)
    assert_lists_close(mine, expected)


@pytest.mark.parametrize("call, kernel", [
    (lambda x, y: ag._foreach_mul_(x, y), "MulList"),
    (lambda x, y: ag._foreach_sub(x, 2.0), "AddScalar"),
    (lambda x, y: ag._foreach_mul(x, 0.5), "MulScalar"),
    (lambda x, y: ag._foreach_zero_(x), "Fill"),
    (lambda x, y: ag._foreach_copy_(x, y), "CopyList"),
])
def test_every_op_is_one_launch(seam, call, kernel):
    x, y = ours(arrays(11), "cuda"), ours(arrays(12), "cuda")
    seam.counters.reset()
    call(x, y)
    assert seam.counters.by_kernel == {f"foreach_apply<float, {kernel}>": 1}


def test_one_launch_per_dtype(seam):
    a = (arrays(13, np.float32) + arrays(14, np.float64) + arrays(15, np.float16)
         + [np.arange(6, dtype=np.int64)])
    mine, yours = ours(a, "cuda"), theirs(a)
    seam.counters.reset()
    ag._foreach_mul_(mine, 3)
    torch._foreach_mul_(yours, 3)
    assert seam.counters.by_kernel == {"foreach_apply<float, MulScalar>": 1,
                                       "foreach_apply<double, MulScalar>": 1,
                                       "foreach_apply<__half, MulScalar>": 1,
                                       "foreach_apply<long long, MulScalar>": 1}
    assert_lists_close(mine, yours)


def test_a_long_list_is_chunked_into_launches_of_64(seam):
    values = [np.full(k % 3 + 1, k, np.float32) for k in range(130)]
    mine, yours = ours(values, "cuda"), theirs(values)
    seam.counters.reset()
    ag._foreach_add_(mine, 1.0)
    torch._foreach_add_(yours, 1.0)
    assert seam.counters.launches == 3           # 64 + 64 + 2
    assert_lists_close(mine, yours)


def test_a_recorded_op_takes_the_loop(seam):
    x = ag.ones(3, device="cuda", requires_grad=True)
    y = x * 2
    seam.counters.reset()
    out = ag._foreach_mul([y], 3.0)
    assert not any(k.startswith("foreach_apply") for k in seam.counters.by_kernel)
    assert out[0].grad_fn is not None


def test_a_non_contiguous_view_takes_the_loop(seam):
    base = ag.tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4), device="cuda")
    column = base[:, 1]                                  # not contiguous
    seam.counters.reset()
    ag._foreach_add_([column], 1.0)
    assert "foreach_apply<float, AddScalar>" not in seam.counters.by_kernel
    expected = torch.arange(12.0).reshape(3, 4)
    torch._foreach_add_([expected[:, 1]], 1.0)
    np.testing.assert_allclose(host(base), expected.numpy())


@pytest.mark.parametrize("device", DEVICES)
def test_inplace_foreach_refuses_inference_tensors_outside_inference_mode(device):
    """The multi-tensor kernel writes through the same checks as every in-place op."""
    messages = []
    for lib, where in ((torch, "cpu"), (ag, device)):
        with lib.inference_mode():
            tensors = [lib.ones(3, device=where), lib.ones(2, device=where)]
        with pytest.raises(RuntimeError) as raised:
            lib._foreach_add_(tensors, [lib.ones(3, device=where), lib.ones(2, device=where)])
        messages.append(str(raised.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("device", DEVICES)
def test_foreach_ops_carry_forward_ad_tangents(device):
    values, tangents = arrays(0), arrays(1)
    results = []
    for lib, where in ((torch, "cpu"), (ag, device)):
        fwad = lib.autograd.forward_ad
        with fwad.dual_level():
            duals = [fwad.make_dual(lib.tensor(v, device=where), lib.tensor(t, device=where))
                     for v, t in zip(values, tangents)]
            out = lib._foreach_mul(duals, 3.0)
            lib._foreach_add_(duals, out)
            results.append([fwad.unpack_dual(d).tangent for d in duals])
    assert_lists_close(results[1], results[0])


# ------------------------------------------------------------------ the optimizers' ops

# (name, call(lib, a, b, c) where a, b, c are lists of tensors); c is positive, so that
# sqrt and division by it are finite
OPTIMIZER_CASES = [
    ("neg", lambda lib, a, b, c: lib._foreach_neg(a)),
    ("neg_", lambda lib, a, b, c: lib._foreach_neg_(a)),
    ("div list", lambda lib, a, b, c: lib._foreach_div(a, c)),
    ("div_ list", lambda lib, a, b, c: lib._foreach_div_(a, c)),
    ("div_ number", lambda lib, a, b, c: lib._foreach_div_(a, 3.0)),
    ("div scalar list", lambda lib, a, b, c: lib._foreach_div(a, [0.5, 2.0, 3.0, -1.5, 7.0])),
    ("sqrt", lambda lib, a, b, c: lib._foreach_sqrt(c)),
    ("sqrt_", lambda lib, a, b, c: lib._foreach_sqrt_(c)),
    ("maximum list", lambda lib, a, b, c: lib._foreach_maximum(a, b)),
    ("maximum_ list", lambda lib, a, b, c: lib._foreach_maximum_(a, b)),
    ("maximum_ number", lambda lib, a, b, c: lib._foreach_maximum_(a, 0.25)),
    ("lerp_ small weight", lambda lib, a, b, c: lib._foreach_lerp_(a, b, 0.1)),
    ("lerp_ large weight", lambda lib, a, b, c: lib._foreach_lerp_(a, b, 0.9)),
    ("lerp tensor weights", lambda lib, a, b, c: lib._foreach_lerp(a, b, c)),
    ("lerp_ scalar list", lambda lib, a, b, c: lib._foreach_lerp_(a, b, [0.1, 0.7, 0.5, 0.2, 1.0])),
    ("addcmul_", lambda lib, a, b, c: lib._foreach_addcmul_(a, b, c, 0.001)),
    ("addcmul", lambda lib, a, b, c: lib._foreach_addcmul(a, b, b)),
    ("addcmul_ scalar list", lambda lib, a, b, c: lib._foreach_addcmul_(a, b, c, [1, 2, 3, 4, 5])),
    ("addcdiv_", lambda lib, a, b, c: lib._foreach_addcdiv_(a, b, c, -0.01)),
    ("addcdiv scalar tensor",
     lambda lib, a, b, c: lib._foreach_addcdiv(a, b, c, lib.tensor([0.5, 1.0, 2.0, 3.0, 4.0]))),
]


def positive(seed, dtype=np.float32, shapes=SHAPES):
    return [np.abs(a) + 0.5 for a in arrays(seed, dtype, shapes)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, call", OPTIMIZER_CASES, ids=[c[0] for c in OPTIMIZER_CASES])
def test_optimizer_ops_match_torch(device, dtype, name, call):
    values = arrays(20, dtype), arrays(21, dtype), positive(22, dtype)
    mine, yours = [ours(v, device) for v in values], [theirs(v) for v in values]
    versions = [[t._version for t in tensors] for tensors in mine]
    result = call(ag, *mine)
    expected = call(torch, *yours)
    if name.split()[0].endswith("_"):
        written = 2 if name.startswith("sqrt") else 0
        assert result is mine[written] and expected is yours[written]
        assert all(t._version > v for t, v in zip(mine[written], versions[written]))
    else:
        assert isinstance(result, tuple) and isinstance(expected, tuple)
        assert_lists_close(result, expected)
    for got, want in zip(mine, yours):
        assert_lists_close(got, want)


@pytest.mark.parametrize("device", DEVICES)
def test_optimizer_ops_out_of_place_are_differentiable_as_in_torch(device):
    shapes = [(3, 4), (5,), (2, 1, 3)]  # torch's Foreach backward fails on a 0-dim tensor
    values = (arrays(23, np.float64, shapes), arrays(24, np.float64, shapes),
              positive(25, np.float64, shapes))
    grads = []
    for lib, where in ((torch, "cpu"), (ag, device)):
        a, b, c = [[lib.tensor(v, device=where, requires_grad=True) for v in vs]
                   for vs in values]
        if lib is torch:    # torch 2.13's _foreach_addcdiv backward fails on these shapes
            divided = tuple(torch.addcdiv(x, y, z, value=-2.0) for x, y, z in zip(a, b, c))
        else:
            divided = lib._foreach_addcdiv(a, b, c, -2.0)
        outs = (lib._foreach_addcmul(a, b, c, 0.5) + divided + lib._foreach_lerp(a, b, 0.8)
                + lib._foreach_lerp(a, b, c) + lib._foreach_sqrt(c) + lib._foreach_neg(b)
                + lib._foreach_div(a, c)
                + lib._foreach_maximum(a, b))
        total = sum((o * o).sum() for o in outs)
        total.backward()
        grads.append([t.grad for t in a + b + c])
    assert_lists_close(grads[1], grads[0])


OPTIMIZER_ERROR_CASES = [
    ("addcmul lengths", lambda lib, T: lib._foreach_addcmul_([T(3), T(2)], [T(3)], [T(3)]),
     ("Tensor lists must have the same number of tensors", "got 2 and 1")),
    ("addcdiv scalar list", lambda lib, T: lib._foreach_addcdiv_([T(3)], [T(3)], [T(3)],
                                                                 [1.0, 2.0]),
     ("same number of elements as scalar list",)),
    ("lerp lengths", lambda lib, T: lib._foreach_lerp_([T(3)], [T(3), T(2)], 0.5),
     ("Tensor lists must have the same number of tensors", "got 1 and 2")),
    ("div lengths", lambda lib, T: lib._foreach_div_([T(3)], [T(3), T(2)]),
     ("Tensor lists must have the same number of tensors", "got 1 and 2")),
    ("sqrt empty", lambda lib, T: lib._foreach_sqrt([]),
     ("Tensor list must have at least one tensor",)),
    ("neg not a tensor", lambda lib, T: lib._foreach_neg([T(3), 2]),
     ("expected Tensor as element 1 in argument 0",)),
    ("neg_ leaf", lambda lib, T: lib._foreach_neg_([T(3).requires_grad_()]),
     ("a leaf Variable that requires grad is being used in an in-place operation",)),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name, call, words", OPTIMIZER_ERROR_CASES,
                         ids=[c[0] for c in OPTIMIZER_ERROR_CASES])
def test_optimizer_op_errors_match_torch(device, name, call, words):
    same_error(lambda: call(ag, lambda n: ag.ones(n, device=device)),
               lambda: call(torch, lambda n: torch.ones(n)), *words)


def test_neg_is_one_launch(seam):
    x = ours(arrays(26), "cuda")
    seam.counters.reset()
    result = ag._foreach_neg(x)
    assert seam.counters.by_kernel == {"foreach_apply<float, MulScalar>": 1}
    assert_lists_close(result, torch._foreach_neg(theirs(arrays(26))))
