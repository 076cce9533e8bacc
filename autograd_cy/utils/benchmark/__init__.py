"""``autograd_cy.utils.benchmark``: as ``torch.utils.benchmark``, ``Timer`` and the
``Measurement`` it returns, ``Compare`` of many (``Fuzzer`` and the C++ / Callgrind timers
are not here)."""
from autograd_cy.utils.benchmark.measurement import Measurement, TaskSpec, select_unit
from autograd_cy.utils.benchmark.timer import Language, Timer
from autograd_cy.utils.benchmark.compare import Colorize, Compare

__all__ = ["Colorize", "Compare", "Language", "Measurement", "TaskSpec", "Timer", "select_unit"]
