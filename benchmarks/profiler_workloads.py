"""The profiler's workloads: the chain, forward and backward, under the autograd profiler.

``profiled_chain`` runs ``chain``'s iteration inside ``autograd.profiler.profile()`` (torch:
inside ``torch.autograd.profiler.profile()``); its NumPy floor is the plain chain by hand,
so the ratio to ``chain``'s autograd_cy time, its ``baseline``, is the cost of profiling
(target: at most 3x).
Each iteration opens and closes one profile; the events are not post-processed (both
libraries build their tables lazily, when asked).
"""
from benchmarks.workloads import Chain, library


class ProfiledChain(Chain):
    """``chain`` with every iteration inside the autograd profiler."""

    def __init__(self):
        super().__init__(name="profiled_chain")
        self.baseline, self.target = Chain(), 3.0
        self.description = f"{self.layers} x tanh(y*c+d) on {self.size} floats under profile()"

    def build(self, impl):
        iteration = super().build(impl)
        if impl == "numpy":
            return iteration
        profile = library(impl).autograd.profiler.profile

        def profiled():
            with profile():
                iteration()
        return profiled


def profiler_workloads():
    return [ProfiledChain()]
