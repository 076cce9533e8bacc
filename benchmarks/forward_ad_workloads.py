"""Forward-mode AD workloads (issue 12): the chain's forward with a dual input.

Target: forward AD through ``tanh(y * c + d)`` at most 2x our own plain forward per op
(``forward_ad`` against its ``baseline`` ``no_grad``, the same 200 layers without a tangent).
"""
import numpy as np

from benchmarks.workloads import Chain, Workload, chain_constants, constant, library


class ForwardADChain(Workload):
    """``y = tanh(y * c + d)``, 200 times on 16 floats, forward only, with a dual input: every
    layer computes its value and its tangent. The NumPy floor computes both by hand."""

    def __init__(self, layers=200, size=16, name="forward_ad"):
        self.layers, self.size, self.name = layers, size, name
        self.nodes = 3 * layers
        self.description = (f"{layers} x tanh(y*c+d) on {size} floats, forward AD "
                            "(a dual input, no graph)")
        self.x, self.c, self.d = chain_constants(size, seed=0)
        self.v = np.random.default_rng(1).standard_normal(size).astype(np.float32)
        self.baseline = Chain(layers=layers, size=size, name="no_grad", no_grad=True)
        self.target = 2.0

    def build(self, impl):
        layers = self.layers
        if impl == "numpy":
            x, v, c, d = self.x, self.v, self.c, self.d

            def floor():
                y, t = x, v
                for _ in range(layers):
                    y = np.tanh(y * c + d)
                    t = (t * c) * (1 - y * y)
                return y, t
            return floor
        lib = library(impl)
        fwad = lib.autograd.forward_ad
        x, v = constant(impl, self.x), constant(impl, self.v)
        c, d = constant(impl, self.c), constant(impl, self.d)

        def iteration():
            with fwad.dual_level():
                y = fwad.make_dual(x, v)
                for _ in range(layers):
                    y = (y * c + d).tanh()
                return fwad.unpack_dual(y)
        return iteration


def forward_ad_workloads():
    return [ForwardADChain()]
