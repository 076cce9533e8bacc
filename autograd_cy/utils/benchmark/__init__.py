"""``autograd_cy.utils.benchmark``: as ``torch.utils.benchmark``, ``Timer`` and the
``Measurement`` it returns (``Compare``, ``Fuzzer`` and the C++ / Callgrind timers are not
here)."""
from autograd_cy.utils.benchmark.measurement import Measurement, TaskSpec, select_unit
from autograd_cy.utils.benchmark.timer import Language, Timer

__all__ = ["Language", "Measurement", "TaskSpec", "Timer", "select_unit"]
