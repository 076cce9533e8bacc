"""Batched gradients: the Jacobian of a chain through ``autograd.grad(..., is_grads_batched=
True)`` (NOTE [Batched gradients] in pyx/batching.pyx), against the same call in torch and
a NumPy floor; and, for scale, the same Jacobian as one ``grad`` call per row."""
import numpy as np

from benchmarks.workloads import Workload, chain_constants, constant, library


class ChainJacobian(Workload):
    """``y = tanh(y * c + d)``, ``layers`` times on ``size`` floats; then the full Jacobian
    dy/dx: one batched grad with an identity batch, or (``per_row``) one grad per row."""

    def __init__(self, layers=20, size=16, per_row=False):
        self.layers, self.size, self.per_row = layers, size, per_row
        self.name = "chain_jacobian_rows" if per_row else "chain_jacobian"
        self.nodes = 3 * layers
        how = f"{size} grad calls, one per row" if per_row else \
            f"one grad(is_grads_batched=True), batch {size}"
        self.description = f"jacobian of {layers} x tanh(y*c+d), {size} -> {size}: {how}"
        self.x, self.c, self.d = chain_constants(size, seed=0)
        self.eye = np.eye(size, dtype=np.float32)

    def build(self, impl):
        if impl == "numpy":
            return self._numpy_iteration()
        lib = library(impl)
        layers, per_row = self.layers, self.per_row
        x = constant(impl, self.x, requires_grad=True)
        c, d, eye = constant(impl, self.c), constant(impl, self.d), constant(impl, self.eye)

        def iteration():
            y = x
            for _ in range(layers):
                y = (y * c + d).tanh()
            if per_row:
                rows = [lib.autograd.grad(y, x, eye[i], retain_graph=True)[0]
                        for i in range(len(eye))]
                return lib.stack(rows)
            return lib.autograd.grad(y, x, eye, is_grads_batched=True)[0]
        return iteration

    def _numpy_iteration(self):
        x, c, d, eye, layers = self.x, self.c, self.d, self.eye, self.layers

        def iteration():
            y = x
            outputs = []
            for _ in range(layers):
                y = np.tanh(y * c + d)
                outputs.append(y)
            jacobian = eye
            for y in reversed(outputs):
                jacobian = jacobian * ((1 - y * y) * c)
            return jacobian
        return iteration


def batched_workloads():
    return [ChainJacobian(), ChainJacobian(per_row=True)]
