"""Debugging aids on the ``chain`` workload (issue 13): anomaly mode and provenance.

``chain_anomaly`` runs ``chain``'s forward and backward inside
``set_detect_anomaly(True, check_nan=True)`` (``detect_anomaly(check_nan=True)`` without its
warning) in both libraries: every forward output and every backward gradient is checked for
NaN, and every node keeps its forward stack. Target: autograd_cy at most 2x its plain
``chain`` (NOTE [NaN origins] in pyx/provenance.pyx); PyTorch's anomaly mode, which formats
a Python traceback per node, costs far more than its plain chain.

``chain_no_provenance`` runs ``chain`` with ``set_provenance(False)``: ``chain`` itself
records every node's forward line (on by default), so the two differ by its cost (target:
at most 5%). PyTorch has no such switch and runs its plain chain. The NumPy floor of both
is the plain chain by hand.
"""
from benchmarks.workloads import Chain, library


class AnomalyChain(Chain):
    """``chain`` with every iteration inside anomaly mode with the NaN check."""

    def __init__(self):
        super().__init__(name="chain_anomaly")
        self.description = (f"{self.layers} x tanh(y*c+d) on {self.size} floats in "
                            "detect_anomaly(check_nan=True), forward + backward")

    def build(self, impl):
        iteration = super().build(impl)
        if impl == "numpy":
            return iteration
        set_detect_anomaly = library(impl).autograd.set_detect_anomaly

        def in_anomaly_mode():
            with set_detect_anomaly(True, check_nan=True):
                iteration()
        return in_anomaly_mode


class ChainWithoutProvenance(Chain):
    """``chain`` with provenance recording off (autograd_cy only; torch runs ``chain``)."""

    def __init__(self):
        super().__init__(name="chain_no_provenance")
        self.description = (f"{self.layers} x tanh(y*c+d) on {self.size} floats, "
                            "set_provenance(False), forward + backward")

    def build(self, impl):
        iteration = super().build(impl)
        if impl != "autograd_cy":
            return iteration
        set_provenance = library(impl).autograd.set_provenance

        def without_provenance():
            with set_provenance(False):
                iteration()
        return without_provenance


def anomaly_workloads():
    return [AnomalyChain(), ChainWithoutProvenance()]
