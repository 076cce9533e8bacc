"""``Timer``: a statement timed as ``torch.utils.benchmark.Timer`` times it (a warmup, then
blocks of runs sized so the clock's own cost is negligible), under ``num_threads``."""
import contextlib
import enum
import textwrap
import timeit as _timeit

import autograd_cy
from autograd_cy.threads import get_num_threads, set_num_threads
from autograd_cy.utils.benchmark.measurement import Measurement, TaskSpec

__all__ = ["Language", "Timer"]


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


@contextlib.contextmanager
def _threads(count):
    before = get_num_threads()
    set_num_threads(count)
    try:
        yield
    finally:
        set_num_threads(before)


def _snippet(code):
    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()


class Timer:
    """Times ``stmt`` after ``setup`` in a namespace of ``globals`` (a copy, with ``torch``
    and ``autograd_cy`` bound to autograd_cy unless given), as torch's Python timer."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=_timeit.default_timer,
                 globals=None, label=None, sub_label=None, description=None, env=None,
                 num_threads=1, language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`." if language not in (
                Language.CPP, "cpp", "c++") else "C++ statements are not timed here.")
        if global_setup:
            raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely "
                             "this code can simply be moved to `setup`.")
        self._globals = dict(globals or {})
        self._globals.setdefault("torch", autograd_cy)
        self._globals.setdefault("autograd_cy", autograd_cy)
        stmt, setup = _snippet(stmt), _snippet(setup)
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer,
                                    globals=self._globals)
        self._task_spec = TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup,
                                   label=label, sub_label=sub_label,
                                   description=description, env=env,
                                   num_threads=num_threads)

    def _timeit(self, number):
        return max(self._timer.timeit(number), 1e-9)    # no run takes under a nanosecond

    def timeit(self, number=1000000):
        """One measurement of ``number`` runs, after a warmup of a hundredth of them."""
        with _threads(self._task_spec.num_threads):
            self._timeit(max(number // 100, 2))
            return Measurement(number, [self._timeit(number)], self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _block_size(self, min_run_time):
        """Runs per block: grown tenfold until the clock's cost is 1e-4 of a block and a
        block takes a thousandth of ``min_run_time`` (the warmup too)."""
        overhead = sorted(self._timeit(0) for _ in range(5))[2]
        number = 1
        while True:
            taken = self._timeit(number)
            if (overhead / taken <= 1e-4 and taken >= min_run_time / 1000) \
                    or taken > min_run_time or number * 10 > 2147483647:
                return number
            number *= 10

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of runs until ``min_run_time`` seconds are spent; ``callback(number,
        seconds)`` after each."""
        with _threads(self._task_spec.num_threads):
            number = self._block_size(min_run_time)
            times, total = [], 0.0
            while total < min_run_time:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
        return Measurement(number, times, self._task_spec)
