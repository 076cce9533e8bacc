"""F.scaled_dot_product_attention against torch.nn.functional: values and gradients on the
fused path and on the math path, the node torch records on each (NOTE [Which attention
torch runs on the CPU]), masks, is_causal, scale, grouped-query attention, dropout, double
backward and forward AD by finite differences, and torch's errors."""
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same_error, check_jvp, check_op, node_name, randn, same_warning

DTYPES = [np.float32, np.float64]
FUSED = "ScaledDotProductFlashAttentionForCpuBackward0"


def sdpa(lib, *args, **kwargs):
    return lib.nn.functional.scaled_dot_product_attention(*args, **kwargs)


def qkv(heads=2, kv_heads=None, length=3, source=4, dim=5, value_dim=None, batch=(2,)):
    kv_heads = heads if kv_heads is None else kv_heads
    return (randn(*batch, heads, length, dim, seed=1),
            randn(*batch, kv_heads, source, dim, seed=2),
            randn(*batch, kv_heads, source, value_dim or dim, seed=3))


def boolean_mask(length=3, source=4, seed=0):
    mask = np.random.default_rng(seed).random((length, source)) > 0.4
    mask[:, 0] = True
    return mask


def node_of(lib, *arrays, **kwargs):
    tensors = [lib.tensor(a, requires_grad=True) for a in arrays]
    return node_name(sdpa(lib, *tensors, **kwargs).grad_fn)


# ------------------------------------------------------------------ the fused path

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", [
    {}, {"is_causal": True}, {"scale": 0.3}, {"scale": -0.7},
])
def test_fused_path(dtype, kwargs):
    """torch's fused CPU backward has no derivative (its double backward raises), so the
    second order is left to gradgradcheck below."""
    def fn(lib, q, k, v):
        out = sdpa(lib, q, k, v, **kwargs)
        assert node_name(out.grad_fn) == FUSED
        return out
    check_op(fn, *qkv(), dtype=dtype, double=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fused_path_with_masks(dtype):
    mask = boolean_mask()
    additive = randn(2, 1, 3, 4, seed=7)
    for m in (mask, additive):
        def fn(lib, q, k, v, m):
            out = sdpa(lib, q, k, v, attn_mask=m)
            assert node_name(out.grad_fn) == FUSED
            return out
        check_op(fn, *qkv(), m, dtype=dtype, double=False,
                 requires_grad=[True, True, True, False])


def test_fused_path_applies_a_mask_and_is_causal_together():
    """Only the math path refuses the pair (test_errors)."""
    check_op(lambda lib, q, k, v, m: sdpa(lib, q, k, v, attn_mask=m, is_causal=True),
             *qkv(length=4), randn(4, 4, seed=5), double=False,
             requires_grad=[True, True, True, False])


def test_fully_masked_rows_attend_to_nothing():
    mask = boolean_mask()
    mask[1] = False
    check_op(lambda lib, q, k, v, m: sdpa(lib, q, k, v, attn_mask=m), *qkv(), mask,
             double=False)


@pytest.mark.parametrize("heads, kv_heads", [(4, 2), (3, 1)])
def test_grouped_query_attention(heads, kv_heads):
    def fn(lib, q, k, v):
        out = sdpa(lib, q, k, v, enable_gqa=True, is_causal=True)
        assert node_name(out.grad_fn) == FUSED
        return out
    check_op(fn, *qkv(heads, kv_heads), double=False)


def test_fused_node_has_edges_to_query_key_value_only():
    def edges(lib):
        q, k, v = (lib.tensor(a, requires_grad=True) for a in qkv())
        out = sdpa(lib, q, k, v, attn_mask=lib.tensor(boolean_mask()))
        return [(node_name(n), nr) for n, nr in out.grad_fn.next_functions]
    assert edges(ag) == edges(torch)


@pytest.mark.parametrize("kwargs", [{"is_causal": True}, {"enable_gqa": True}])
def test_fused_gradcheck_gradgradcheck(kwargs):
    inputs = [ag.tensor(a, requires_grad=True)
              for a in qkv(heads=2, kv_heads=1, length=3, source=3, dim=2, batch=(1,))]
    if not kwargs.get("enable_gqa"):
        inputs = [ag.tensor(randn(1, 2, 3, 2, seed=s), requires_grad=True) for s in (1, 2, 3)]

    def fn(q, k, v):
        return sdpa(ag, q, k, v, **kwargs)
    assert node_name(fn(*inputs).grad_fn) == FUSED
    assert ag.autograd.gradcheck(fn, inputs, check_forward_ad=True)
    assert ag.autograd.gradgradcheck(fn, inputs)


def test_fused_forward_ad():
    """torch's fused op has no forward AD; ours is compared with torch's jvp of the same
    attention composed of matmul and softmax."""
    def fn(lib, q, k, v):
        if lib is ag:
            return sdpa(ag, q, k, v, is_causal=True)
        scores = (q @ k.transpose(-2, -1) / 5 ** 0.5).masked_fill(
            torch.ones(3, 3, dtype=torch.bool).tril().logical_not(), float("-inf"))
        return scores.softmax(-1) @ v
    check_jvp(fn, *qkv(length=3, source=3))


# ------------------------------------------------------------------ the math path

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes, kwargs", [
    (qkv(batch=()), {}),                                  # 3-D
    ((randn(3, 5), randn(4, 5, seed=2), randn(4, 2, seed=3)), {}),   # 2-D
    (qkv(value_dim=2), {"is_causal": True}),              # value's head dim differs
    (qkv(heads=2, kv_heads=1), {}),                       # heads broadcast (no gqa)
])
def test_math_path(dtype, shapes, kwargs):
    def fn(lib, q, k, v):
        out = sdpa(lib, q, k, v, **kwargs)
        name = node_name(out.grad_fn)
        assert name != FUSED
        return out
    check_op(fn, *shapes, dtype=dtype)
    assert node_of(ag, *shapes, **kwargs) == node_of(torch, *shapes, **kwargs)



def graph_names(node):
    """The names of every node of the graph below ``node``, in a breadth-first walk."""
    names, seen, queue = [], [], [node]
    while queue:
        node = queue.pop(0)
        if node is None or node in seen:     # torch's node objects are made per access
            continue
        seen.append(node)
        names.append(node_name(node))
        queue.extend(child for child, _ in node.next_functions)
    return names


@pytest.mark.parametrize("kwargs", [{}, {"is_causal": True}, {"attn_mask": "float"}])
def test_math_path_weights_are_a_safe_softmax(kwargs):
    """torch's math path takes its weights from ``_safe_softmax`` (rows of -inf give
    zeros), with or without a mask: the same node in both graphs."""
    shapes = qkv(batch=())
    if kwargs.get("attn_mask") == "float":
        kwargs = {"attn_mask": randn(3, 4, seed=9)}
    graphs = []
    for lib in (ag, torch):
        tensors = [lib.tensor(a, requires_grad=True) for a in shapes]
        options = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v
                   for k, v in kwargs.items()}
        graphs.append(graph_names(sdpa(lib, *tensors, **options).grad_fn))
    assert "SafeSoftmaxBackward0" in graphs[1]
    assert "SafeSoftmaxBackward0" in graphs[0]
    assert "SoftmaxBackward0" not in graphs[0]

def test_math_path_with_a_mask_that_requires_grad():
    def fn(lib, q, k, v, m):
        out = sdpa(lib, q, k, v, attn_mask=m)
        assert node_name(out.grad_fn) != FUSED
        return out
    check_op(fn, *qkv(), randn(3, 4, seed=9))


def test_math_path_with_a_boolean_mask():
    check_op(lambda lib, q, k, v, m: sdpa(lib, q, k, v, attn_mask=m), *qkv(batch=()),
             boolean_mask())


def test_dropout_takes_the_math_path():
    """Dropout's mask is random: with p=1 every weight is dropped and the output is zeros
    in both libraries, through the math path's graph."""
    def fn(lib, q, k, v):
        out = sdpa(lib, q, k, v, dropout_p=1.0)
        assert node_name(out.grad_fn) == "UnsafeViewBackward0"
        return out
    check_op(fn, *qkv(), double=False)


def test_no_grad_takes_the_fused_path_without_a_node():
    for lib in (ag, torch):
        q, k, v = (lib.tensor(a) for a in qkv())
        assert sdpa(lib, q, k, v, dropout_p=0.0).grad_fn is None


# ------------------------------------------------------------------ errors

@pytest.mark.parametrize("call, words", [
    (lambda lib, q, k, v: sdpa(lib, q[0], k[0], v[0], is_causal=True,
                               attn_mask=lib.ones(3, 4, dtype=lib.bool)),
     "^_scaled_dot_product_attention: Explicit attn_mask should not be set when "
     "is_causal=True$"),
    (lambda lib, q, k, v: sdpa(lib, q, k.double(), v),
     "^Expected query, key, and value to have the same dtype, but got query.dtype: float "
     "key.dtype: double and value.dtype: float instead.$"),
    (lambda lib, q, k, v: sdpa(lib, q.repeat(1, 2, 1, 1), k[:, :1].repeat(1, 3, 1, 1),
                               v[:, :1].repeat(1, 3, 1, 1), enable_gqa=True),
     "^Number of heads in key and value must divide the number of heads in"),
])
def test_errors(call, words):
    def run(lib):
        q, k, v = (lib.tensor(a).float() for a in qkv())
        return call(lib, q, k, v)
    assert_same_error(run, words)


# ------------------------------------------------------------------ multi_head_attention_forward

E, HEADS = 4, 2


def mha(lib, query, key, value, w_in, b_in, w_out, b_out, **kwargs):
    kwargs.setdefault("dropout_p", 0.0)
    return lib.nn.functional.multi_head_attention_forward(
        query, key, value, E, HEADS, w_in, b_in, None, None, False,
        out_proj_weight=w_out, out_proj_bias=b_out, **kwargs)


def projections():
    return randn(3 * E, E, seed=4), randn(3 * E, seed=5), randn(E, E, seed=6), randn(E, seed=7)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", [
    {}, {"need_weights": False}, {"average_attn_weights": False},
    {"need_weights": False, "is_causal": True, "attn_mask": "causal"},
    {"need_weights": True, "is_causal": True, "attn_mask": "causal"},
    {"attn_mask": "float"}, {"key_padding_mask": "bool"},
    {"need_weights": False, "key_padding_mask": "bool", "attn_mask": "causal"},
])
def test_self_attention(dtype, kwargs):
    def fn(lib, x, w_in, b_in, w_out, b_out):
        options = dict(kwargs)
        if options.get("attn_mask") == "causal":
            options["attn_mask"] = lib.ones(3, 3, dtype=lib.bool).triu(1)
        elif options.get("attn_mask") == "float":
            options["attn_mask"] = lib.tensor(randn(3, 3, seed=8)).to(x.dtype)
        if options.get("key_padding_mask") == "bool":
            options["key_padding_mask"] = lib.tensor([[False, False, True], [False] * 3])
        return mha(lib, x, x, x, w_in, b_in, w_out, b_out, **options)
    # without need_weights torch takes its fused attention, which has no double backward
    # (float32's second order cancels to ~1e-5 in the bias of the value projection)
    check_op(fn, randn(3, 2, E), *projections(), dtype=dtype,
             double=kwargs.get("need_weights", True),
             atol=1e-4 if dtype == np.float32 else None)


@pytest.mark.parametrize("kind", ["key is value", "all distinct", "separate weights",
                                  "unbatched"])
def test_cross_attention(kind):
    def fn(lib, q, kv, v, w_in, b_in, w_out, b_out):
        if kind == "unbatched":
            return mha(lib, q[:, 0], kv[:, 0], kv[:, 0], w_in, b_in, w_out, b_out)
        if kind == "key is value":
            return mha(lib, q, kv, kv, w_in, b_in, w_out, b_out)
        if kind == "all distinct":
            return mha(lib, q, kv, v, w_in, b_in, w_out, b_out, need_weights=False)
        wq, wk, wv = w_in[:E], w_in[E:2 * E], w_in[2 * E:]
        return mha(lib, q, kv, v, None, b_in, w_out, b_out, use_separate_proj_weight=True,
                   q_proj_weight=wq, k_proj_weight=wk, v_proj_weight=wv)
    check_op(fn, randn(3, 2, E), randn(5, 2, E, seed=2), randn(5, 2, E, seed=3),
             *projections(), double=kind != "all distinct")


@pytest.mark.parametrize("call, expected", [
    (lambda lib, x, p: mha(lib, x, x, x, *p, is_causal=True),
     ("^Need attn_mask if specifying the is_causal hint",)),
    (lambda lib, x, p: mha(lib, x, x, x, *p, attn_mask=lib.zeros(2, 3)),
     ("^The shape of the 2D attn_mask is",)),
    (lambda lib, x, p: mha(lib, x[..., :3], x[..., :3], x[..., :3], *p),
     (AssertionError, "^was expecting embedding dimension of 4, but got 3$")),
])
def test_multi_head_attention_errors(call, expected):
    def run(lib):
        x = lib.tensor(randn(3, 2, E))
        return call(lib, x, [lib.tensor(a) for a in projections()])
    assert_same_error(run, *expected)


@pytest.mark.parametrize("need_weights", [True, False])
def test_multi_head_attention_under_vmap(need_weights):
    """A composite of nn.functional's ops, it batches through them."""
    params = projections()

    def run(lib):
        w_in, b_in, w_out, b_out = (lib.tensor(a) for a in params)

        def fn(x):
            return mha(lib, x, x, x, w_in, b_in, w_out, b_out, need_weights=need_weights)[0]
        return lib.vmap(fn)(lib.tensor(randn(3, 4, 2, E)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # torch: "performance drop" of its fallback
        np.testing.assert_allclose(run(ag).cpu().numpy(), run(torch).numpy(), rtol=1e-7,
                                   atol=1e-9)


@pytest.mark.cpu_only             # torch's CPU generator gives both modules their weights
@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("options", [{"add_bias_kv": True}, {"add_zero_attn": True},
                                     {"add_bias_kv": True, "add_zero_attn": True}])
def test_appended_keys_as_torch(options, need_weights):
    """add_bias_kv (a learned key and value appended to every sequence, initialised by
    xavier_normal_) and add_zero_attn (a key and value of zeros): outputs, weights and
    gradients as torch's, with both masks, which grow a column that masks nothing."""
    x = randn(3, 2, E)
    padding = [[False, False, True], [False] * 3]
    causal = np.triu(np.ones((3, 3), bool), 1)
    results = {}
    for lib in (ag, torch):
        lib.manual_seed(0)
        module = lib.nn.MultiheadAttention(E, HEADS, **options).double()
        inputs = lib.tensor(x)
        output, weights = module(inputs, inputs, inputs, key_padding_mask=lib.tensor(padding),
                                 attn_mask=lib.tensor(causal), need_weights=need_weights)
        output.sum().backward()
        results[lib] = ([output] + ([weights] if need_weights else [])
                        + [p for p in module.parameters()]
                        + [p.grad for p in module.parameters()], repr(module))
    ours, theirs = results[ag], results[torch]
    assert ours[1] == theirs[1]
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)


def test_multi_head_attention_mask_types():
    """Only boolean and float masks; a padding mask of another dtype than the attention
    mask draws torch's deprecation warning (the values as torch's)."""
    def run(lib, padding, attn_mask):
        x = lib.tensor(randn(3, 2, E))
        return mha(lib, x, x, x, *(lib.tensor(a) for a in projections()),
                   key_padding_mask=padding(lib), attn_mask=attn_mask(lib))[0]
    assert_same_error(lambda lib: run(lib, lambda lib: lib.zeros(2, 3).long(),
                                      lambda lib: None),
                      AssertionError, "^only bool and floating types of key_padding_mask are "
                                      "supported$")
    assert_same_error(lambda lib: run(lib, lambda lib: None,
                                      lambda lib: lib.zeros(3, 3).int()),
                      AssertionError, "^only bool and floating types of attn_mask are "
                                      "supported$")
    ours, theirs = same_warning(
        lambda lib: run(lib, lambda lib: lib.tensor([[False, False, True], [False] * 3]),
                        lambda lib: lib.tensor(randn(3, 3, seed=8))),
        UserWarning, "^Support for mismatched key_padding_mask and attn_mask is deprecated")
    np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-7, atol=1e-9)
