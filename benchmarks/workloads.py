"""The workloads: each builds one iteration for autograd_cy, PyTorch and the NumPy floor.

``build(impl)`` returns a zero-argument callable that runs one iteration with the
implementation ``impl`` ("autograd_cy", "torch" or "numpy"). The NumPy floor is the
same computation written by hand, forward and backward, with no autograd at all:
what an engine would cost if its bookkeeping were free.
"""
import numpy as np

IMPLEMENTATIONS = ("autograd_cy", "torch", "numpy")

#: where the tensors of autograd_cy and torch go ("cuda" for ``--device cuda``)
DEVICE = "cpu"


def library(impl):
    if impl == "torch":
        import torch
        return torch
    import autograd_cy
    return autograd_cy


def constant(impl, array, requires_grad=False, dtype=None):
    """``array`` as a tensor of ``impl`` (a plain copy for the NumPy floor), in ``dtype`` (a
    name, "bfloat16") if given."""
    if impl == "numpy":
        return array.astype(_numpy_dtype(dtype)) if dtype else array.copy()
    lib = library(impl)
    tensor = lib.tensor(array, device=DEVICE)
    if dtype:
        tensor = tensor.to(getattr(lib, dtype))
    return tensor.requires_grad_(requires_grad)


def _numpy_dtype(name):
    if name == "bfloat16":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def chain_constants(size, seed):
    """``x``, ``c`` and ``d`` of a ``tanh(y * c + d)`` chain: a standard normal input, scales
    in [0.5, 1.5) (the chain neither vanishes nor explodes) and small shifts."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(size).astype(np.float32)
    c = (rng.random(size) + 0.5).astype(np.float32)
    d = (rng.standard_normal(size) * 0.1).astype(np.float32)
    return x, c, d


class Workload:
    name = ""
    description = ""
    nodes = 0            # backward nodes per iteration (for the per-node column)
    # A target relative to another workload of ours (the checkpointed chain against the plain
    # one): ``baseline`` is that workload and ``target`` the largest ratio allowed. The harness
    # times the baseline's autograd_cy iteration beside this one's in every round (NOTE
    # [Ratios between our own workloads] in harness.py).
    baseline = None
    target = None

    def build(self, impl):
        raise NotImplementedError


# ---------------------------------------------------------------- chain and friends

def complex_chain_constants(size, seed):
    """``x``, ``c`` and ``d`` of the chain in complex64: scales of modulus in [0.5, 1.5), as
    the real chain's, with phases within 0.2 rad, so that ``y * c + d`` stays clear of
    tanh's poles (at i pi / 2 and its odd multiples: near them the chain is chaotic)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(size) + 1j * rng.standard_normal(size)
    c = (rng.random(size) + 0.5) * np.exp(0.2j * (2 * rng.random(size) - 1))
    d = (rng.standard_normal(size) + 1j * rng.standard_normal(size)) * 0.1
    return x.astype(np.complex64), c.astype(np.complex64), d.astype(np.complex64)


class Chain(Workload):
    """``y = tanh(y * c + d)``, ``layers`` times on 16 floats; then sum and backward. With
    ``complex_numbers``, on 16 complex64 numbers, backward from the real part's sum."""

    def __init__(self, layers=200, size=16, name="chain", hooks=False, no_grad=False,
                 function_form=False, complex_numbers=False):
        self.layers, self.size, self.hooks, self.no_grad = layers, size, hooks, no_grad
        self.name = name
        self.complex_numbers = complex_numbers
        # function_form: ``lib.tanh(y * c + d)`` instead of ``(y * c + d).tanh()``; the two
        # spellings must cost the same (a user writes either)
        self.function_form = function_form
        self.nodes = 3 * layers + 2
        what = "forward under no_grad" if no_grad else "forward + backward"
        extra = ", a tensor hook on every layer" if hooks else ""
        spelling = "tanh(y*c+d)" if function_form else "(y*c+d).tanh()"
        numbers = "complex64 numbers, y.real.sum()" if complex_numbers else "floats"
        self.description = f"{layers} x {spelling} on {size} {numbers}, {what}{extra}"
        self.x, self.c, self.d = (complex_chain_constants if complex_numbers
                                  else chain_constants)(size, seed=0)

    def build(self, impl):
        layers = self.layers
        if impl == "numpy":
            return self._numpy_iteration()
        lib = library(impl)
        x = constant(impl, self.x, requires_grad=True)
        c, d = constant(impl, self.c), constant(impl, self.d)
        if self.function_form:
            tanh = lib.tanh
            complex_numbers = self.complex_numbers

            def iteration():
                y = x
                for _ in range(layers):
                    y = tanh(y * c + d)
                (y.real if complex_numbers else y).sum().backward()
                x.grad = None
            return iteration
        if self.no_grad:
            def forward_only():
                with lib.no_grad():
                    y = x
                    for _ in range(layers):
                        y = (y * c + d).tanh()
                return y
            return forward_only
        hooks = self.hooks

        def iteration():
            y = x
            for _ in range(layers):
                y = (y * c + d).tanh()
                if hooks:
                    y.register_hook(_identity_hook)
            y.sum().backward()
            x.grad = None
        return iteration

    def _numpy_iteration(self):
        x, c, d, layers, no_grad = self.x, self.c, self.d, self.layers, self.no_grad

        def iteration():
            y = x
            outputs = []
            for _ in range(layers):
                y = np.tanh(y * c + d)
                outputs.append(y)
            if no_grad:
                return y
            grad = np.ones_like(y)      # of y.real.sum() too: 1 + 0i
            for y in reversed(outputs):
                # the conjugates of torch's convention; np.conjugate of a real array is a copy
                grad = (grad * (1 - y * y) * c if not self.complex_numbers
                        else grad * np.conjugate((1 - y * y) * c))
            return grad
        return iteration


def _identity_hook(grad):
    return None


class Wide(Workload):
    """One input fanned out to ``branches`` products that are summed: InputBuffer work."""

    def __init__(self, branches=256, size=16):
        self.branches, self.size = branches, size
        self.name = "wide"
        self.nodes = 2 * branches + 2
        self.description = f"1 input -> {branches} branches (x*c_i) summed, {size} floats"
        rng = np.random.default_rng(1)
        self.x = rng.standard_normal(size).astype(np.float32)
        self.cs = [rng.standard_normal(size).astype(np.float32) for _ in range(branches)]

    def build(self, impl):
        if impl == "numpy":
            x, cs = self.x, self.cs

            def iteration():
                total = x * cs[0]
                for c in cs[1:]:
                    total = total + x * c
                total.sum()
                grad = np.ones_like(x)
                x_grad = grad * cs[0]
                for c in cs[1:]:
                    x_grad = x_grad + grad * c
                return x_grad
            return iteration
        x = constant(impl, self.x, requires_grad=True)
        cs = [constant(impl, c) for c in self.cs]

        def iteration():
            total = x * cs[0]
            for c in cs[1:]:
                total = total + x * c
            total.sum().backward()
            x.grad = None
        return iteration


# ---------------------------------------------------------------- MLPs

class MLP(Workload):
    """One SGD step of an MLP: forward, loss, backward, parameter update.

    The update is written as torch.optim.SGD runs it by default: a loop of ``p -= lr * p.grad``
    over the parameters on the CPU, one multi-tensor ``_foreach_add_`` on a CUDA device (one
    launch for all parameters)."""

    def __init__(self, name, sizes, batch, activation, loss, addmm=False, dtype=None):
        self.name, self.sizes, self.batch = name, sizes, batch
        self.activation, self.loss = activation, loss
        # addmm: each layer is ``addmm(b, h, w)`` (one AddmmBackward0, as nn.Linear records)
        # instead of ``h @ w + b`` (MmBackward0 and AddBackward0)
        self.addmm = addmm
        # dtype: the parameters and inputs in that dtype ("bfloat16"), float32 when None
        self.dtype = dtype
        self.nodes = (3 if addmm else 4) * (len(sizes) - 1) + 4
        layers = "-".join(str(s) for s in sizes)
        self.description = (f"SGD step, {layers} {activation} MLP, batch {batch}, {loss} loss"
                            + (f", {dtype}" if dtype else ""))
        rng = np.random.default_rng(2)
        self.weights = [(rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(np.float32)
                        for n_in, n_out in zip(sizes[:-1], sizes[1:])]
        self.biases = [np.zeros(n, np.float32) for n in sizes[1:]]
        self.inputs = rng.standard_normal((batch, sizes[0])).astype(np.float32)
        if loss == "cross_entropy":
            self.targets = rng.integers(0, sizes[-1], batch)
        else:
            self.targets = rng.standard_normal((batch, sizes[-1])).astype(np.float32)
        self.lr = 1e-3

    def build(self, impl):
        if impl == "numpy":
            return self._numpy_step()
        lib = library(impl)
        functional = _functional(impl)
        dtype = self.dtype
        weights = [constant(impl, w, True, dtype) for w in self.weights]
        biases = [constant(impl, b, True, dtype) for b in self.biases]
        params = weights + biases
        inputs = constant(impl, self.inputs, dtype=dtype)
        targets = (lib.tensor(self.targets, device=DEVICE) if self.loss == "cross_entropy"
                   else constant(impl, self.targets, dtype=dtype))
        activation = self.activation
        last = len(weights) - 1
        lr = self.lr
        cross_entropy = self.loss == "cross_entropy"
        addmm = self.addmm
        foreach = DEVICE != "cpu"

        def step():
            h = inputs
            for i, (w, b) in enumerate(zip(weights, biases)):
                h = lib.addmm(b, h, w) if addmm else h @ w + b
                if i < last:
                    h = h.relu() if activation == "relu" else h.tanh()
            if cross_entropy:
                loss = functional.cross_entropy(h, targets)
            else:
                loss = ((h - targets) ** 2).mean()
            loss.backward()
            with lib.no_grad():
                if foreach:
                    lib._foreach_add_(params, [p.grad for p in params], alpha=-lr)
                else:
                    for p in params:
                        p -= lr * p.grad
                for p in params:
                    p.grad = None
        return step

    def _numpy_step(self):
        if self.dtype:
            return self._numpy_half_precision_step()
        weights = [w.copy() for w in self.weights]
        biases = [b.copy() for b in self.biases]
        inputs, targets, lr = self.inputs, self.targets, self.lr
        relu = self.activation == "relu"
        cross_entropy = self.loss == "cross_entropy"
        last = len(weights) - 1

        def step():
            activations = [inputs]
            pre = []
            h = inputs
            for i, (w, b) in enumerate(zip(weights, biases)):
                z = h @ w + b
                pre.append(z)
                if i < last:
                    h = np.maximum(z, 0) if relu else np.tanh(z)
                    activations.append(h)
                else:
                    h = z
            batch = h.shape[0]
            if cross_entropy:
                shifted = h - h.max(axis=1, keepdims=True)
                probabilities = np.exp(shifted)
                probabilities /= probabilities.sum(axis=1, keepdims=True)
                grad = probabilities
                grad[np.arange(batch), targets] -= 1
                grad /= batch
            else:
                grad = 2 * (h - targets) / h.size
            for i in range(last, -1, -1):
                w_grad = activations[i].T @ grad
                b_grad = grad.sum(axis=0)
                if i > 0:
                    grad = grad @ weights[i].T
                    grad = grad * (pre[i - 1] > 0) if relu else grad * (1 - activations[i] ** 2)
                weights[i] -= lr * w_grad
                biases[i] -= lr * b_grad
        return step

    def _numpy_half_precision_step(self):
        """The step in ``self.dtype`` as PyTorch's CPU kernels compute it, by hand: each op in
        float32 and its result rounded once to the dtype (NumPy's own float16 and ml_dtypes'
        bfloat16 loops give the same elementwise values, slower, and a bfloat16 product has
        no BLAS). The relu, cross-entropy MLP only (mlp_bfloat16)."""
        assert self.activation == "relu" and self.loss == "cross_entropy"
        dtype = _numpy_dtype(self.dtype)
        weights = [constant("numpy", w, dtype=self.dtype) for w in self.weights]
        biases = [constant("numpy", b, dtype=self.dtype) for b in self.biases]
        inputs = constant("numpy", self.inputs, dtype=self.dtype)
        targets, lr = self.targets, self.lr
        last = len(weights) - 1

        def wide(x):
            return x.astype(np.float32)

        def step():
            activations = [inputs]
            h = inputs
            for i, (w, b) in enumerate(zip(weights, biases)):
                z = wide(h) @ wide(w) + wide(b)                     # addmm: one rounding
                h = np.maximum(z, 0, out=z).astype(dtype) if i < last else z.astype(dtype)
                activations.append(h)
            logits = wide(h)
            batch = logits.shape[0]
            shifted = logits - logits.max(axis=1, keepdims=True)
            log_probabilities = (shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
                                 ).astype(dtype)                      # log_softmax
            grad = np.exp(wide(log_probabilities))                    # its backward
            grad[np.arange(batch), targets] -= 1
            grad /= batch
            for i in range(last, -1, -1):
                grad = grad.astype(dtype)
                w_grad = (wide(activations[i]).T @ wide(grad)).astype(dtype)
                b_grad = wide(grad).sum(axis=0).astype(dtype)
                if i > 0:
                    grad = wide(grad) @ wide(weights[i]).T
                    grad *= wide(activations[i]) > 0                  # relu's backward
                np.copyto(weights[i], wide(weights[i]) - lr * wide(w_grad), casting="unsafe")
                np.copyto(biases[i], wide(biases[i]) - lr * wide(b_grad), casting="unsafe")
        return step


def _functional(impl):
    if impl == "torch":
        import torch.nn.functional as functional
    else:
        import autograd_cy.nn.functional as functional
    return functional


# ---------------------------------------------------------------- custom Functions

class FunctionChain(Workload):
    """A chain of ``length`` custom autograd.Function applications (y = y * c)."""

    def __init__(self, length=200, size=16):
        self.length, self.size = length, size
        self.name = "function"
        self.nodes = length + 2
        self.description = f"{length} custom Function applications, forward + backward"
        rng = np.random.default_rng(3)
        self.x = rng.standard_normal(size).astype(np.float32)
        self.c = (rng.random(size) + 0.5).astype(np.float32)

    def build(self, impl):
        length = self.length
        if impl == "numpy":
            x, c = self.x, self.c

            def iteration():
                y = x
                for _ in range(length):
                    y = y * c
                grad = np.ones_like(y)
                for _ in range(length):
                    grad = grad * c
                return grad
            return iteration
        lib = library(impl)
        Scale = _scale_function(lib.autograd.Function)
        x = constant(impl, self.x, requires_grad=True)
        c = constant(impl, self.c)

        def iteration():
            y = x
            for _ in range(length):
                y = Scale.apply(y, c)
            y.sum().backward()
            x.grad = None
        return iteration


def _scale_function(function_base):
    class Scale(function_base):
        @staticmethod
        def forward(ctx, x, c):
            ctx.save_for_backward(c)
            return x * c

        @staticmethod
        def backward(ctx, grad):
            c, = ctx.saved_tensors
            return grad * c, None
    return Scale


# ---------------------------------------------------------------- Hessian-vector product

class HVP(Workload):
    """H v for the small tanh MLP by double backward; ``pruned`` asks only for w1 (inputs=)."""

    def __init__(self, pruned):
        self.pruned = pruned
        self.mlp = MLP("mlp_small", (32, 32, 32, 1), 8, "tanh", "mse")
        self.name = "hvp_pruned" if pruned else "hvp"
        self.nodes = 3 * self.mlp.nodes
        what = "w.r.t. the first weight only (inputs= pruning)" if pruned else "w.r.t. all params"
        self.description = f"Hessian-vector product of mlp_small, {what}"
        rng = np.random.default_rng(4)
        self.vectors = [rng.standard_normal(w.shape).astype(np.float32) for w in self.mlp.weights]

    def build(self, impl):
        if impl == "numpy":
            return self._numpy_hvp()
        lib = library(impl)
        mlp = self.mlp
        weights = [constant(impl, w, requires_grad=True) for w in mlp.weights]
        inputs, targets = constant(impl, mlp.inputs), constant(impl, mlp.targets)
        vectors = [constant(impl, v) for v in self.vectors]
        wanted = weights[:1] if self.pruned else weights

        def iteration():
            h = inputs
            for i, w in enumerate(weights):
                h = h @ w
                if i < len(weights) - 1:
                    h = h.tanh()
            loss = ((h - targets) ** 2).mean()
            grads = lib.autograd.grad(loss, weights, create_graph=True)
            dot = sum((g * v).sum() for g, v in zip(grads, vectors))
            return lib.autograd.grad(dot, wanted)
        return iteration

    def _numpy_hvp(self):
        """The floor: the gradient by hand at w + eps v and w - eps v (central difference)."""
        mlp = self.mlp
        inputs, targets = mlp.inputs.astype(np.float64), mlp.targets.astype(np.float64)
        weights = [w.astype(np.float64) for w in mlp.weights]
        vectors = [v.astype(np.float64) for v in self.vectors]
        eps = 1e-4

        def gradient(ws):
            activations, h = [inputs], inputs
            for i, w in enumerate(ws):
                h = h @ w
                if i < len(ws) - 1:
                    h = np.tanh(h)
                    activations.append(h)
            grad = 2 * (h - targets) / h.size
            grads = [None] * len(ws)
            for i in range(len(ws) - 1, -1, -1):
                grads[i] = activations[i].T @ grad
                if i > 0:
                    grad = (grad @ ws[i].T) * (1 - activations[i] ** 2)
            return grads

        def iteration():
            plus = gradient([w + eps * v for w, v in zip(weights, vectors)])
            minus = gradient([w - eps * v for w, v in zip(weights, vectors)])
            return [(p - m) / (2 * eps) for p, m in zip(plus, minus)]
        return iteration


# ---------------------------------------------------------------- the suite

def depth_workloads():
    return [Chain(layers=n, name=f"depth_{n}") for n in (100, 1_000, 10_000, 100_000)]


def all_workloads():
    # imported here: these modules build on the workloads above (Chain, MLP)
    from benchmarks.checkpoint_workloads import checkpoint_workloads
    from benchmarks.functional_workloads import functional_workloads
    from benchmarks.batched_workloads import batched_workloads
    from benchmarks.profiler_workloads import profiler_workloads
    from benchmarks.forward_ad_workloads import forward_ad_workloads
    from benchmarks.anomaly_workloads import anomaly_workloads
    from benchmarks.func_workloads import func_workloads
    from benchmarks.optim_workloads import optim_workloads
    from benchmarks.training_workloads import training_workloads
    return [
        Chain(function_form=True),
        Chain(name="complex_chain", function_form=True, complex_numbers=True),
        *depth_workloads(),
        Wide(),
        MLP("mlp_small", (32, 32, 32, 1), 8, "tanh", "mse"),
        MLP("mlp", (784, 256, 256, 10), 64, "relu", "cross_entropy", addmm=True),
        MLP("mlp_bfloat16", (784, 256, 256, 10), 64, "relu", "cross_entropy", addmm=True,
            dtype="bfloat16"),
        FunctionChain(),
        Chain(name="hooks", hooks=True),
        HVP(pruned=False),
        HVP(pruned=True),
        Chain(name="no_grad", no_grad=True),
        *checkpoint_workloads(),
        *functional_workloads(),
        *batched_workloads(),
        *profiler_workloads(),
        *forward_ad_workloads(),
        *anomaly_workloads(),
        *func_workloads(),
        *optim_workloads(),
        *training_workloads(),
    ]


# What ``make bench`` runs (a few minutes on 2 cores): the per-op overhead on small tensors,
# the cost per node as the graph deepens, a BLAS-bound step. ``make bench-full`` runs them all.
HEADLINE = ("chain", "complex_chain", "depth_100", "depth_1000", "depth_10000", "wide",
            "mlp_small", "mlp", "mlp_bfloat16", "function", "hooks", "hvp", "no_grad",
            "per_sample_grads", "func_jacrev", "func_jacfwd", "func_hessian", "optim_adam_step",
            "train_mlp", "train_cnn", "train_transformer")


def headline_workloads():
    return [w for w in all_workloads() if w.name in HEADLINE]
