"""``autograd.grad(..., is_grads_batched=True)`` against torch: one engine pass in which every
gradient carries a leading batch dim (NOTE [Batched gradients] in pyx/batching.pyx).

The op cases of tests/test_ops_*.py are reused; each is compared with torch's own batched
call, with ``create_graph`` too. Nodes whose formula does not batch run once per batch row:
``PER_ROW_NODES`` lists them, and a test keeps the list in step with the code."""
import importlib
import pkgutil
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
import autograd_cy._C
import autograd_cy._C.ops
from autograd_cy._C.batching import _debug_only_display_vmap_fallback_warnings
from autograd_cy._C.node import Node
from oracle import assert_close, assert_same_error, check_batched_grad, randn
from test_ops_matmul import PRODUCTS
from test_ops_pointwise import UNARY
from test_ops_shape import CASES as SHAPE_CASES

# The built-in nodes whose formula runs once per batch row (slower, still right): formulas
# that name the input's shape or a dim inside a kernel or a helper not yet taught the batch
# dim. A custom Function's backward (_FunctionBase) runs per row by design (it sees
# gradients of its forward's shape, as under torch's vmap); AccumulateGrad never runs in a
# grad() call; Node is the base class.
PER_ROW_NODES = {
    "Node", "_FunctionBase", "Error", "AccumulateGrad",
    # reductions and extrema
    "MaxBackward1", "TraceBackward0",
    # products with a 0-dim gradient
    "VdotBackward0",
    # activations and losses
    "SoftmaxBackward0", "LogSoftmaxBackward0", "SoftmaxBackwardDataBackward0",
    "LogSoftmaxBackwardDataBackward0", "GeluBackward0", "GeluBackwardBackward0",
    "SoftplusBackward0", "SoftplusBackwardBackward0", "LeakyReluBackward0",
    "LeakyReluBackward1", "LeakyReluBackwardBackward0", "MseLossBackward0",
    "NllLossBackward0", "NllLossBackwardBackward0", "BinaryCrossEntropyBackward0",
    "BinaryCrossEntropyWithLogitsBackward0",
    # indexing, views regenerated, in-place
    "IndexBackward0", "IndexPutBackward0", "IndexSelectBackward0", "IndexAddBackward0",
    "GatherBackward0", "ScatterAddBackward0", "ScatterBackward0", "ScatterBackward1",
    "MaskedFillBackward0", "DiagonalBackward0",
    "DiagonalBackwardBackward0", "AsStridedBackward0", "TransposeBackward1", "TBackward1",
    "UnsqueezeBackward1", "SqueezeBackward3",
    "CopySlices", "CopyBackwards", "FillBackward2", "FillBackward3", "ZeroBackward0",
}


# ------------------------------------------------------------------ op families

ARITHMETIC = [
    ("add", lambda lib, x, y: x + y, ((3, 4), (4,))),
    ("add_alpha", lambda lib, x, y: lib.add(x, y, alpha=2.5), ((2, 1, 4), (3, 1))),
    ("sub", lambda lib, x, y: x - y, ((), (3,))),
    ("rsub", lambda lib, x, y: lib.rsub(x, y), ((3, 4), (3, 4))),
    ("rsub_number", lambda lib, x: 2 - x, ((3,),)),
    ("mul", lambda lib, x, y: x * y, ((2, 1, 4), (3, 1))),
    ("div", lambda lib, x, y: x / (y * y + 1), ((5,), ())),
    ("div_floor", lambda lib, x, y: lib.div(x, y, rounding_mode="floor"), ((3,), (3,))),
    ("neg", lambda lib, x: -x, ((3, 2),)),
    ("pow_number", lambda lib, x: x ** 3, ((3, 2),)),
    ("pow_zero", lambda lib, x: x ** 0, ((3, 2),)),
    ("pow_tensor", lambda lib, x, y: (x * x + 1) ** y, ((3, 2), (2,))),
    ("rpow", lambda lib, x: 2 ** x, ((3,),)),
    ("atan2", lambda lib, x, y: lib.atan2(x, y), ((3, 2), (2,))),
    ("maximum", lambda lib, x, y: lib.maximum(x, y), ((3, 4), (4,))),
    ("clamp", lambda lib, x: x.clamp(-0.5, 0.5), ((3, 4),)),
    ("clamp_tensor", lambda lib, x, y: x.clamp(min=y), ((3, 4), (4,))),
    ("where", lambda lib, x, y: lib.where(x > 0, x, y), ((3, 4), (4,))),
    ("to_float32", lambda lib, x: x.to(lib.float32) * 2, ((3,),)),
    ("clone", lambda lib, x: x.clone(), ((3,),)),
]

REDUCTIONS = [
    ("sum", lambda lib, x: x.sum()),
    ("sum_dim", lambda lib, x: x.sum(1)),
    ("sum_dims_keepdim", lambda lib, x: x.sum((0, 2), keepdim=True)),
    ("mean_dim", lambda lib, x: x.mean(-1)),
    ("prod", lambda lib, x: x.prod(1)),
    ("var", lambda lib, x: x.var(0)),
    ("logsumexp", lambda lib, x: x.logsumexp(2)),
    ("amax", lambda lib, x: x.amax(1)),
    ("amin_dims", lambda lib, x: x.amin((0, 2), keepdim=True)),
    ("max_dim", lambda lib, x: x.max(1)[0]),
    ("min_dim_keepdim", lambda lib, x: x.min(-1, keepdim=True)[0]),
    ("max", lambda lib, x: x.max()),
    ("std", lambda lib, x: x.std((0, 1))),
    ("var_mean", lambda lib, x: lib.var_mean(x, 2)),
    ("prod_all", lambda lib, x: x.prod()),
    ("norm", lambda lib, x: x.norm(dim=2)),
    ("norm_1", lambda lib, x: x.norm(p=1, dim=(0, 2))),
    ("norm_inf", lambda lib, x: x.norm(p=float("inf"))),
]

ACTIVATIONS = [
    ("softmax", lambda lib, x: lib.softmax(x, 1)),
    ("log_softmax", lambda lib, x: lib.log_softmax(x, -1)),
    ("gelu", lambda lib, x: lib.nn.functional.gelu(x)),
    ("silu", lambda lib, x: lib.nn.functional.silu(x)),
    ("softplus", lambda lib, x: lib.nn.functional.softplus(x)),
    ("leaky_relu", lambda lib, x: lib.nn.functional.leaky_relu(x, 0.1)),
    ("bce_with_logits", lambda lib, x: lib.nn.functional.binary_cross_entropy_with_logits(
        x, lib.full((2, 3), 0.3, dtype=x.dtype), reduction="none")),
]


def arrays_of(shapes, seed=0):
    return [randn(*shape, seed=seed + i) for i, shape in enumerate(shapes)]


@pytest.mark.parametrize("name, fn, shapes", ARITHMETIC, ids=[c[0] for c in ARITHMETIC])
def test_arithmetic(name, fn, shapes):
    check_batched_grad(fn, *arrays_of(shapes), create_graph=True)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary(name):
    check_batched_grad(lambda lib, x: getattr(lib, name)(x), UNARY[name](3, 2),
                       create_graph=name not in ("abs",))


@pytest.mark.parametrize("name, fn", REDUCTIONS, ids=[c[0] for c in REDUCTIONS])
def test_reductions(name, fn):
    check_batched_grad(fn, randn(2, 3, 4), create_graph=True)


@pytest.mark.parametrize("name, fn", ACTIVATIONS, ids=[c[0] for c in ACTIVATIONS])
def test_activations(name, fn):
    check_batched_grad(fn, randn(2, 3), create_graph=True)


PRODUCT_CASES = [(name, shapes) for name in PRODUCTS for shapes in PRODUCTS[name][2]
                 if 0 not in shapes[0] + shapes[1]]


@pytest.mark.parametrize("name, shapes", PRODUCT_CASES, ids=[f"{n}{s}" for n, s in PRODUCT_CASES])
def test_products(name, shapes):
    check_batched_grad(PRODUCTS[name][0], *arrays_of(shapes), create_graph=True)


def test_addmm_and_linear():
    check_batched_grad(lambda lib, b, x, w: lib.addmm(b, x, w, beta=0.5, alpha=2.0),
                       *arrays_of([(3,), (2, 4), (4, 3)]), create_graph=True)
    # without create_graph a CUDA device's AddmmBackward0 multiplies by one gemm per
    # operand, for a single gradient only
    check_batched_grad(lambda lib, b, x, w: lib.addmm(b, x, w, beta=0.5, alpha=2.0),
                       *arrays_of([(2, 3), (2, 4), (4, 3)]))
    check_batched_grad(lambda lib, x, w, b: lib.nn.functional.linear(x, w, b),
                       *arrays_of([(2, 4), (3, 4), (3,)]), create_graph=True)


@pytest.mark.parametrize("name, fn, arrays", SHAPE_CASES, ids=[c[0] for c in SHAPE_CASES])
def test_shape_ops_views_and_indexing(name, fn, arrays):
    check_batched_grad(fn, *arrays, batch=2)


@pytest.mark.parametrize("name, fn, arrays", SHAPE_CASES[::4],
                         ids=[c[0] for c in SHAPE_CASES[::4]])
def test_shape_ops_with_create_graph(name, fn, arrays):
    check_batched_grad(fn, *arrays, batch=2, create_graph=True)


# ------------------------------------------------------------------ graphs

def test_views_and_in_place_ops():
    def fn(lib, x, y):
        z = x * 1
        z[1:].mul_(y)              # CopySlices over a view
        w = z.t()
        w.add_(1.0)                # in place through a view of a non-leaf
        return z.exp()
    check_batched_grad(fn, *arrays_of([(3, 2), (2,)]), create_graph=True)


def test_several_outputs_and_inputs_with_broadcasting():
    def fn(lib, x, y, z):
        h = (x * y).tanh() + z
        return h.sum(0), (h * x).mean(), h[0]
    check_batched_grad(fn, *arrays_of([(3, 4), (4,), (1, 4)]), batch=4, create_graph=True)


def test_an_unused_input():
    def fn(lib, x, u):
        return x.sin() * 2
    check_batched_grad(fn, *arrays_of([(3,), (2,)]))


def test_the_chain_jacobian_is_torchs():
    def chain(lib, x, c, d):
        for _ in range(5):
            x = lib.tanh(x * c + d)
        return x
    check_batched_grad(chain, *arrays_of([(4,), (4,), (4,)]), batch=4, create_graph=True)


# ------------------------------------------------------------------ one engine pass

def test_each_node_runs_once_and_no_formula_falls_back():
    """A pre-hook runs once per node evaluation: once, not once per batch row; and no
    node of this graph takes the per-row fallback (it would warn)."""
    x = ag.tensor(randn(2, 3), requires_grad=True)
    w = ag.tensor(randn(3, 4), requires_grad=True)
    y = ((x @ w).tanh() * 2 + 1).sum(1).reshape(2, 1).expand(2, 3).t()
    calls = {}
    node, stack = y.grad_fn, [y.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in calls:
            continue
        calls[node] = 0
        node.register_prehook(lambda grads, node=node: calls.__setitem__(node, calls[node] + 1))
        stack.extend(child for child, _ in node.next_functions)
    _debug_only_display_vmap_fallback_warnings(True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ag.autograd.grad(y, (x, w), ag.tensor(randn(5, 3, 2)), is_grads_batched=True)
    finally:
        _debug_only_display_vmap_fallback_warnings(False)
    ran = {type(node).__name__: count for node, count in calls.items()
           if type(node).__name__ != "AccumulateGrad"}    # leaves are captured, not run
    assert set(ran.values()) == {1}, ran


class Twice(ag.autograd.Function):
    """A custom Function whose backward reads the gradient's shape."""
    calls = 0

    @staticmethod
    def forward(ctx, x):
        ctx.shape = x.shape
        return x.reshape(-1) * 2

    @staticmethod
    def backward(ctx, grad):
        Twice.calls += 1
        return grad.reshape(ctx.shape) * 2


class TorchTwice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.shape = x.shape
        return x.reshape(-1) * 2

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape) * 2


def test_a_custom_function_runs_once_per_row_and_sees_unbatched_gradients():
    """torch runs a custom backward under vmap, where it sees gradients of the forward's
    shape; here it runs once per batch row, as the fallback warning says."""
    array, grads = randn(2, 3), np.eye(6)
    x = ag.tensor(array, requires_grad=True)
    tx = torch.tensor(array, requires_grad=True)
    Twice.calls = 0
    _debug_only_display_vmap_fallback_warnings(True)
    try:
        with pytest.warns(UserWarning, match="batching rule for TwiceBackward"):
            ours = ag.autograd.grad(Twice.apply(x).exp(), x, ag.tensor(grads),
                                    is_grads_batched=True)
    finally:
        _debug_only_display_vmap_fallback_warnings(False)
    theirs = torch.autograd.grad(TorchTwice.apply(tx).exp(), tx, torch.tensor(grads),
                                 is_grads_batched=True)
    assert_close(ours, theirs)
    assert Twice.calls == 6


def builtin_nodes():
    """Every built-in Node class with a formula of its own, by name."""
    nodes = {}
    for package in (autograd_cy._C, autograd_cy._C.ops):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for value in vars(module).values():
                if (isinstance(value, type) and issubclass(value, Node)
                        and "apply" in vars(value) and value.__module__ == module.__name__):
                    nodes[value.__name__] = value
    return nodes


@pytest.mark.cpu_only  # a fact about the classes, the same on every device
def test_per_row_nodes_are_listed():
    nodes = builtin_nodes()
    per_row = {name for name, cls in nodes.items() if not getattr(cls, "batches_gradients",
                                                                   False)}
    assert per_row == PER_ROW_NODES


# ------------------------------------------------------------------ errors

def grad_call(lib, grads, outputs=None):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    outs = outputs(lib, x) if outputs else x * 2
    return lib.autograd.grad(outs, x, grads(lib), is_grads_batched=True)


@pytest.mark.parametrize("grads, outputs", [
    (lambda lib: lib.ones(2, 4), None),
    (lambda lib: lib.ones(3), None),
    (lambda lib: lib.tensor(1.0), lambda lib, x: x.sum()),
    (lambda lib: None, lambda lib, x: x.sum()),
    (lambda lib: [lib.ones(2, 3), lib.ones(4, 3)], lambda lib, x: [x * 2, x * 3]),
], ids=["shape", "no_batch_dim", "0d", "implicit", "batch_sizes"])
def test_errors_match_torch(grads, outputs):
    assert_same_error(lambda lib: grad_call(lib, grads, outputs))
