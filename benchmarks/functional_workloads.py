"""Workloads of ``autograd.functional``: jacobian, hessian (each also vectorized), hvp, vhp.

Each runs the same call on ``autograd_cy.autograd.functional`` and on
``torch.autograd.functional``; the NumPy floor computes the same matrix or product by hand
(closed forms for the elementwise functions, central differences of the hand-written
gradient for the MLP's Hessian products, as the ``hvp`` workload does).
"""
import numpy as np

from benchmarks.workloads import HVP, MLP, Workload, chain_constants, constant, library


class ChainJacobian(Workload):
    """``jacobian`` of 20 layers of ``y = tanh(y * c + d)`` on 16 floats (16 -> 16)."""

    def __init__(self, vectorize, layers=20, size=16):
        self.vectorize, self.layers = vectorize, layers
        self.name = "jacobian_vec" if vectorize else "jacobian"
        # one backward of the whole chain per output element (batched when vectorized)
        self.nodes = size * (3 * layers + 2)
        how = "one batched backward" if vectorize else "a backward per row"
        self.description = f"jacobian of {layers} x tanh(y*c+d) ({size} -> {size}), {how}"
        self.x, self.c, self.d = chain_constants(size, seed=5)

    def build(self, impl):
        layers = self.layers
        if impl == "numpy":
            x, c, d = self.x, self.c, self.d

            def iteration():     # each layer is elementwise: the Jacobian is diagonal
                y, diagonal = x, np.ones_like(x)
                for _ in range(layers):
                    y = np.tanh(y * c + d)
                    diagonal = diagonal * (1 - y * y) * c
                return np.diag(diagonal)
            return iteration
        functional = library(impl).autograd.functional
        x, c, d = (constant(impl, a) for a in (self.x, self.c, self.d))
        vectorize = self.vectorize

        def chain(y):
            for _ in range(layers):
                y = (y * c + d).tanh()
            return y

        def iteration():
            return functional.jacobian(chain, x, vectorize=vectorize)
        return iteration


class ScalarHessian(Workload):
    """``hessian`` of ``sum(tanh(x * c + d))`` for 16 inputs."""

    def __init__(self, vectorize, size=16):
        self.vectorize = vectorize
        self.name = "hessian_vec" if vectorize else "hessian"
        self.nodes = size * 12
        how = "outer Jacobian vectorized" if vectorize else "a double backward per row"
        self.description = f"hessian of sum(tanh(x*c+d)), {size} inputs, {how}"
        self.x, self.c, self.d = chain_constants(size, seed=6)

    def build(self, impl):
        if impl == "numpy":
            x, c, d = self.x, self.c, self.d

            def iteration():     # d2/dx2 tanh(u) = -2 tanh(u) (1 - tanh(u)^2), times c^2
                t = np.tanh(x * c + d)
                return np.diag(-2 * t * (1 - t * t) * c * c)
            return iteration
        functional = library(impl).autograd.functional
        x, c, d = (constant(impl, a) for a in (self.x, self.c, self.d))
        vectorize = self.vectorize

        def scalar(y):
            return (y * c + d).tanh().sum()

        def iteration():
            return functional.hessian(scalar, x, vectorize=vectorize)
        return iteration


class MLPHessianProduct(Workload):
    """``hvp`` or ``vhp`` of the mlp_small loss with respect to its three weights."""

    def __init__(self, function):
        self.function = function
        self.name = f"{function}_mlp"
        self.mlp = MLP("mlp_small", (32, 32, 32, 1), 8, "tanh", "mse")
        self.nodes = 3 * self.mlp.nodes
        self.description = f"autograd.functional.{function} of the mlp_small loss (3 weights)"
        self.reference = HVP(pruned=False)       # the same vectors and the same floor

    def build(self, impl):
        if impl == "numpy":
            return self.reference._numpy_hvp()
        functional = library(impl).autograd.functional
        mlp = self.mlp
        weights = tuple(constant(impl, w) for w in mlp.weights)
        vectors = tuple(constant(impl, v) for v in self.reference.vectors)
        inputs, targets = constant(impl, mlp.inputs), constant(impl, mlp.targets)
        product = getattr(functional, self.function)

        def loss(*ws):
            h = inputs
            for i, w in enumerate(ws):
                h = h @ w
                if i < len(ws) - 1:
                    h = h.tanh()
            return ((h - targets) ** 2).mean()

        def iteration():
            return product(loss, weights, vectors)
        return iteration


def functional_workloads():
    return [ChainJacobian(vectorize=False), ChainJacobian(vectorize=True),
            ScalarHessian(vectorize=False), ScalarHessian(vectorize=True),
            MLPHessianProduct("hvp"), MLPHessianProduct("vhp")]
