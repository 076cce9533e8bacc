"""Workloads of the function transforms (``autograd_cy.func`` against ``torch.func``).

- ``per_sample_grads``: the gradients of each example's loss separately, for a 784-128-128-10
  relu MLP (the torch.func tutorials' model size) on a batch of 64, by
  ``vmap(grad(loss), in_dims=(None, 0, 0))``. The NumPy floor computes the same 64 sets of
  gradients by hand (one batched forward and backward, the weight gradients as per-example
  outer products). Issue 28's second target compares it with ``mean_loss_backward``: one
  ordinary backward of the mean loss over the same batch (at most 3x).
- ``func_jacrev``, ``func_jacfwd``, ``func_hessian``: the Jacobian of the 20-layer tanh chain
  and the Hessian of sum(tanh(x*c+d)) (functional_workloads.py's functions and floors), by
  the transforms.
"""
import numpy as np

from benchmarks.functional_workloads import ChainJacobian, ScalarHessian
from benchmarks.workloads import Workload, constant, library, _functional


class PerSampleGrads(Workload):
    """Per-example gradients of an MLP's cross-entropy loss (or, with ``mean_loss``, one
    backward of the batch's mean loss, the baseline)."""

    sizes, batch = (784, 128, 128, 10), 64

    def __init__(self, mean_loss=False):
        self.mean_loss = mean_loss
        self.name = "mean_loss_backward" if mean_loss else "per_sample_grads"
        layers = "-".join(str(s) for s in self.sizes)
        self.description = (f"{layers} relu MLP, batch {self.batch}: "
                            + ("one backward of the mean cross-entropy" if mean_loss
                               else "vmap(grad(loss)): a gradient per example"))
        self.nodes = 4 * (len(self.sizes) - 1) + 3
        rng = np.random.default_rng(3)
        self.weights = [(rng.standard_normal((n_out, n_in)) / np.sqrt(n_in)).astype(np.float32)
                        for n_in, n_out in zip(self.sizes[:-1], self.sizes[1:])]
        self.biases = [np.zeros(n, np.float32) for n in self.sizes[1:]]
        self.inputs = rng.standard_normal((self.batch, self.sizes[0])).astype(np.float32)
        self.targets = rng.integers(0, self.sizes[-1], self.batch)
        if not mean_loss:
            self.baseline, self.target = PerSampleGrads(mean_loss=True), 3.0

    def build(self, impl):
        if impl == "numpy":
            return self._numpy_iteration()
        lib = library(impl)
        functional = _functional(impl)
        params = [constant(impl, a) for pair in zip(self.weights, self.biases) for a in pair]
        inputs = constant(impl, self.inputs)
        targets = lib.tensor(self.targets)

        def loss(ps, x, y):
            h = x
            for i in range(0, len(ps), 2):
                h = functional.linear(h, ps[i], ps[i + 1])
                if i < len(ps) - 2:
                    h = functional.relu(h)
            return functional.cross_entropy(h, y)

        if self.mean_loss:
            leaves = [p.detach().requires_grad_() for p in params]

            def iteration():
                return lib.autograd.grad(loss(leaves, inputs, targets), leaves)
            return iteration
        func = lib.func

        def one_example(ps, x, y):
            return loss(ps, x.unsqueeze(0), y.unsqueeze(0))
        per_example = func.vmap(func.grad(one_example), in_dims=(None, 0, 0))

        def iteration():
            return per_example(params, inputs, targets)
        return iteration

    def _numpy_iteration(self):
        weights, biases, x, y = self.weights, self.biases, self.inputs, self.targets
        rows = np.arange(len(y))

        def iteration():
            activations, h = [x], x
            for i, (w, b) in enumerate(zip(weights, biases)):
                h = h @ w.T + b
                if i < len(weights) - 1:
                    h = np.maximum(h, 0)
                activations.append(h)
            shifted = h - h.max(axis=1, keepdims=True)
            probabilities = np.exp(shifted)
            probabilities /= probabilities.sum(axis=1, keepdims=True)
            delta = probabilities
            delta[rows, y] -= 1            # each example's own loss: no 1/N
            grads = []
            for i in range(len(weights) - 1, -1, -1):
                grads.append(np.einsum("bo,bi->boi", delta, activations[i]))
                grads.append(delta.copy())
                if i > 0:
                    delta = (delta @ weights[i]) * (activations[i] > 0)
            return grads
        return iteration


class FuncTransform(Workload):
    """``torch.func``'s ``transform`` of one of functional_workloads.py's functions."""

    def __init__(self, transform):
        self.transform = transform
        self.name = f"func_{transform}"
        self.reference = (ScalarHessian(vectorize=True) if transform == "hessian"
                          else ChainJacobian(vectorize=True))
        self.nodes = self.reference.nodes
        what = ("hessian of sum(tanh(x*c+d)), 16 inputs" if transform == "hessian"
                else "jacobian of 20 x tanh(y*c+d) (16 -> 16)")
        self.description = f"func.{transform}: {what}"

    def build(self, impl):
        if impl == "numpy":
            return self.reference.build("numpy")
        func = library(impl).func
        reference = self.reference
        x, c, d = (constant(impl, a) for a in (reference.x, reference.c, reference.d))
        if self.transform == "hessian":
            def function(y):
                return (y * c + d).tanh().sum()
        else:
            layers = reference.layers

            def function(y):
                for _ in range(layers):
                    y = (y * c + d).tanh()
                return y
        transformed = getattr(func, self.transform)(function)

        def iteration():
            return transformed(x)
        return iteration


def func_workloads():
    return [PerSampleGrads(), FuncTransform("jacrev"), FuncTransform("jacfwd"),
            FuncTransform("hessian")]
