"""``utils.benchmark`` against ``torch.utils.benchmark``: the same statement on the same
fake clock (the statement advances it) gives the same measurements and the same repr;
real timings are checked for shape only."""
import itertools
import re

import numpy as np
import pytest
import torch.utils.benchmark

import autograd_cy as ag
from autograd_cy.utils import benchmark


class Clock:
    """A clock that only the timed statement moves: 1, 2, 3, 1, 2 ... ten-thousandths of a
    second per run."""

    def __init__(self):
        self.now, self.steps = 0.0, itertools.cycle([1e-4, 2e-4, 3e-4])

    def tick(self):
        self.now += next(self.steps)

    def __call__(self):
        return self.now


def _timers(**kwargs):
    for lib in (benchmark, torch.utils.benchmark):
        clock = Clock()
        yield lib.Timer("clock.tick()", timer=clock, globals={"clock": clock}, **kwargs)


def _body(measurement):
    """The repr without its first line (the object's address)."""
    return repr(measurement).split("\n", 1)[1]


@pytest.mark.parametrize("kwargs", [
    {}, {"setup": "x = 1", "label": "L", "sub_label": "S", "description": "D"},
    {"setup": "x = 1\ny = 2", "sub_label": "S", "num_threads": 2},
])
def test_blocked_autorange_as_torchs(kwargs):
    ours, theirs = (t.blocked_autorange(min_run_time=1e-3) for t in _timers(**kwargs))
    assert _body(ours) == _body(theirs) and "IQR" in _body(ours)
    assert repr(ours).startswith("<autograd_cy.utils.benchmark")
    for name in ("times", "raw_times", "number_per_run", "title", "num_threads", "stmt",
                 "label", "sub_label", "description", "env", "as_row_name", "has_warnings"):
        assert getattr(ours, name) == getattr(theirs, name), name
    for name in ("mean", "median", "iqr"):
        assert getattr(ours, name) == pytest.approx(getattr(theirs, name), rel=1e-12), name
    assert ours.significant_figures == theirs.significant_figures
    assert ours.meets_confidence(0.5) == theirs.meets_confidence(0.5)


def test_timeit_and_warnings_as_torchs():
    ours, theirs = (t.timeit(number=7) for t in _timers(label="L"))
    assert _body(ours) == _body(theirs) and ours.times == theirs.times
    wide = [lib.Measurement(1, [1e-3, 1e-3, 2e-3, 3e-3], task_spec=lib.Timer("f()")._task_spec)
            for lib in (benchmark, torch.utils.benchmark)]
    assert _body(wide[0]) == _body(wide[1]) and "WARNING: Interquartile range" in _body(wide[0])
    merged = [lib.Measurement.merge([m, m])[0] for lib, m in
              zip((benchmark, torch.utils.benchmark), wide)]
    assert merged[0].times == merged[1].times and merged[0].number_per_run == 1


def test_repeat_and_autorange_refused_as_in_torch():
    for timer in _timers():
        for method in (timer.repeat, timer.autorange):
            with pytest.raises(NotImplementedError, match="See `Timer.blocked_autorange.`"):
                method()
    for lib in (benchmark, torch.utils.benchmark):
        with pytest.raises(ValueError, match="Currently only a `str` stmt is supported"):
            lib.Timer(lambda: None)


def test_real_timing_has_the_shape_of_torchs():
    seen = []
    timer = benchmark.Timer("seen.append(torch.get_num_threads()); x + 1",
                            setup="x = torch.ones(2)", globals={"seen": seen}, num_threads=1)
    m = timer.blocked_autorange(min_run_time=0.01)
    assert m.number_per_run >= 1 and len(m.times) >= 1 and m.median > 0 and set(seen) == {1}
    assert re.search(r"\n  (Median: )?[0-9.]+ (ns|us|ms|s)\n", repr(m))
    before = ag.get_num_threads()
    benchmark.Timer("pass", num_threads=3).timeit(5)
    assert ag.get_num_threads() == before


def _measurements(lib_benchmark, seed):
    """The same made-up measurements for both libraries: two labels, two thread counts,
    two envs, cells missing, some noisy."""
    common = torch.utils.benchmark.utils.common
    make, spec = ((benchmark.Measurement, benchmark.TaskSpec) if lib_benchmark is benchmark
                  else (common.Measurement, common.TaskSpec))
    rng = np.random.default_rng(seed)
    out = []
    for label, threads, env, row, description in itertools.product(
            ["ops", None], [1, 4], ["A", "B"], ["4x4", "64x64", None], ["mm", "add"]):
        if rng.random() < 0.2:
            continue
        base = 10 ** rng.uniform(-7, -2)
        times = list(base * (1 + rng.uniform(0, 0.5 if rng.random() < 0.3 else 0.02, 7)))
        out.append(make(1, times, spec(stmt="x @ y", setup="pass", label=label, sub_label=row,
                                       description=description, env=env if label else None,
                                       num_threads=threads)))
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_compare_prints_torchs_tables(seed):
    """The timer quick-start recipe prints ``Compare`` tables: plain, trimmed, colourized by
    column and by row with the noisy cells marked."""
    def tables(lib_benchmark):
        compare = lib_benchmark.Compare(_measurements(lib_benchmark, seed))
        out = [str(compare)]
        compare.trim_significant_figures()
        out.append(str(compare))
        compare.colorize()
        out.append(str(compare))
        compare.colorize(rowwise=True)
        compare.highlight_warnings()
        out.append(str(compare))
        return out
    assert tables(benchmark) == tables(torch.utils.benchmark)


def test_compare_takes_measurements_only():
    for lib_benchmark in (benchmark, torch.utils.benchmark):
        with pytest.raises(ValueError, match="Expected an instance of `Measurement`, got "
                           "<class 'int'> instead."):
            lib_benchmark.Compare([1])
