"""``Measurement``: the times a ``Timer`` took, their statistics and torch's summary of
them; ``TaskSpec``: what was timed."""
import dataclasses
import textwrap

import numpy as np

__all__ = ["Measurement", "TaskSpec", "select_unit"]

_IQR_WARN_THRESHOLD, _IQR_GROSS_WARN_THRESHOLD = 0.1, 0.25
_MIN_CONFIDENCE_INTERVAL, _MAX_SIGNIFICANT_FIGURES = 25e-9, 4


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """The statement, setup and labels of a measurement."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: str = None
    sub_label: str = None
    description: str = None
    env: str = None
    num_threads: int = 1

    @property
    def title(self):
        """The label (or the one-line statement), with the sub-label after a colon."""
        sub = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n" + \
            textwrap.indent(self.stmt, "  ")

    def setup_str(self):
        if self.setup in ("pass", ""):
            return ""
        if "\n" in self.setup:
            return "setup:\n" + textwrap.indent(self.setup, "  ")
        return f"setup: {self.setup}"

    def summarize(self):
        """The title, description and setup, one a line (a multi-line one followed by a
        blank line)."""
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(s + "\n" if "\n" in s else s for s in sections if s)


_TASKSPEC_FIELDS = tuple(field.name for field in dataclasses.fields(TaskSpec))


def select_unit(t):
    """``(unit, scale)``: ns, us, ms or s, whichever shows ``t`` seconds as 1 to 999."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(np.log10(t) // 3), "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """``raw_times``: seconds per block of ``number_per_run`` runs of ``task_spec``'s
    statement; the statistics are of the time per run. The task spec's fields read through
    (``m.label``, ``m.num_threads`` ...)."""
    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict = None

    def __getattr__(self, name):
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    def _quantile(self, q):
        return float(np.quantile(np.asarray(self.times, dtype=np.float64), q))

    @property
    def median(self):
        return self._quantile(0.5)

    @property
    def mean(self):
        return float(np.mean(self.times))

    @property
    def iqr(self):
        return self._quantile(0.75) - self._quantile(0.25)

    @property
    def significant_figures(self):
        """A rough count of the median's significant figures, from the spread of the
        interquartile times."""
        times = sorted(self.times)
        middle = times[len(times) // 4:int(np.ceil(3 * len(times) / 4))]
        interval = max(1.645 * float(np.std(middle)) / np.sqrt(len(middle)),
                       _MIN_CONFIDENCE_INTERVAL)
        figures = int(np.floor(np.log10(self.median / interval)))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        return self.iqr / self.median < threshold

    def _warnings(self):
        if not self.raw_times or self.meets_confidence(_IQR_WARN_THRESHOLD):
            return []
        cause = ("This suggests significant environmental influence."
                 if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD)
                 else "This could indicate system fluctuation.")
        return [f"  WARNING: Interquartile range is {self.iqr / self.median * 100:.1f}% of "
                f"the median measurement.\n           {cause}"]

    @property
    def has_warnings(self):
        return bool(self._warnings())

    @property
    def title(self):
        return self.task_spec.title

    @property
    def as_row_name(self):
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self):
        n = len(self.raw_times)
        unit, scale = select_unit(self.median)
        p25, p75 = self._quantile(0.25) / scale, self._quantile(0.75) / scale
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self.median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({p25:.2f} to {p75:.2f})")
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads}")
        return "\n".join(lines + self._warnings()).strip()

    @staticmethod
    def merge(measurements):
        """One measurement per task spec, of all their times per run
        (``number_per_run=1``)."""
        groups = {}
        for m in measurements:
            groups.setdefault(m.task_spec, []).extend(m.times)
        return [Measurement(1, times, spec) for spec, times in groups.items()]
