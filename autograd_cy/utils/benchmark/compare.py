"""``Compare``: many measurements as tables, as ``torch.utils.benchmark.Compare`` prints them.

One table per label. Its rows are (threads, env, sub-label or statement) in the order first
seen, grouped by thread count, a "N threads: ----" line opening each group; its columns are
the descriptions. Each cell is a median in the table's unit (the one that shows the
smallest median as 1 to 999); ``trim_significant_figures`` keeps the digits each
measurement can vouch for, ``colorize`` marks each cell against the best of its column (or
row), ``highlight_warnings`` appends the spread of noisy measurements. The digit counts use
float32 arithmetic, as torch's (it computes them with ``torch.tensor``).
"""
import enum

import numpy as np

from autograd_cy.utils.benchmark.measurement import Measurement, select_unit

__all__ = ["Colorize", "Compare"]

_BEST, _GOOD, _BAD, _VERY_BAD = "\033[92m", "\033[34m", "\033[2m\033[91m", "\033[31m"
_BOLD, _END = "\033[1m", "\033[0m"
_ENGLISH = {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _digits_before_point(x):
    """ceil(log10(x)) in float32."""
    return int(np.ceil(np.log10(np.float32(x))))


def trim_sigfig(x, n):
    """``x`` rounded to ``n`` significant figures (in float32, as torch's)."""
    scale = 10.0 ** (_digits_before_point(abs(x)) - n)
    return float(np.round(np.float32(x / scale)) * np.float32(scale))


def _first_seen(items):
    return list(dict.fromkeys(items))


def _painted(text, value, best):
    """``text`` coloured by how ``value`` compares with ``best``."""
    if value <= best * 1.01 or value <= best + 100e-9:
        return _BEST + _BOLD + text + _END * 2
    if value <= best * 1.1:
        return _GOOD + _BOLD + text + _END * 2
    if value >= best * 5:
        return _VERY_BAD + _BOLD + text + _END * 2
    if value >= best * 2:
        return _BAD + text + _END * 2
    return text


class _Cells:
    """How one column writes its numbers: one width and one number of decimals."""

    def __init__(self, measurements, scale, trim, highlight):
        present = [m for m in measurements if m is not None]
        self.trim = trim
        self.highlight = highlight and any(m.has_warnings for m in present)
        leading = [_digits_before_point(m.median / scale) for m in present]
        decimals = (min(max(m.significant_figures - d, 0) for m, d in zip(present, leading))
                    if trim else 1)
        width = max(leading) + decimals + (1 if decimals else 0)
        self.number = f"{{:>{width}.{decimals}f}}"
        self.suffix = f"{{:>{7 if self.highlight else 0}}}"

    def text(self, value, sigfigs, spread):
        if value is None:
            return " " * len(self.text(1, sigfigs, None))
        if self.trim:
            value = trim_sigfig(value, sigfigs)
        note = f" (! {spread * 100:.0f}%)" if self.highlight and spread is not None else ""
        return self.number.format(value) + self.suffix.format(note)


def _table(measurements, colorize, trim, highlight):
    """One label's table, as text."""
    unit, scale = select_unit(min(m.median for m in measurements))
    row_keys = _first_seen((m.num_threads, m.env, m.as_row_name) for m in measurements)
    row_keys.sort(key=lambda key: key[:2])
    columns = _first_seen(m.description for m in measurements)
    grid = {(m.num_threads, m.env, m.as_row_name, m.description): m for m in measurements}
    rows = [[grid.get((*key, column)) for column in columns] for key in row_keys]

    groups, group_of_row = [], []           # rows by thread count
    for key in row_keys:
        if not groups or groups[-1] != key[0]:
            groups.append(key[0])
        group_of_row.append(len(groups) - 1)
    cells = [_Cells([row[j] for row in rows], scale, trim, highlight)
             for j in range(len(columns))]

    envs = {m.env for m in measurements}
    show_env = len(envs) > 1
    env_width = max(len(env) for env in envs) if show_env else 0
    texts, previous_env, previous_threads = [], "", None
    for key, row in zip(row_keys, rows):
        if key[0] != previous_threads:
            previous_threads, previous_env = key[0], ""
        env = f"({key[1]})" if show_env and key[1] != previous_env else ""
        previous_env = key[1]
        line = ["  " + env.ljust(env_width + 4) + key[2]]
        line += [cell.text(None, 1, None) if m is None else
                 cell.text(m.median / scale, m.significant_figures,
                           m.iqr / m.median if m.has_warnings else None)
                 for cell, m in zip(cells, row)]
        texts.append(line)

    header = [""] + columns          # a None description fails in len(), as torch's
    widths = [max(len(line[j]) for line in [header] + texts) for j in range(len(header))]
    head = "  |  ".join(text.center(width) for text, width in zip(header, widths))
    lines = [head]
    for i, (key, row, line) in enumerate(zip(row_keys, rows, texts)):
        if i == 0 or group_of_row[i] != group_of_row[i - 1]:
            lines.append(f"{key[0]} threads: ".ljust(len(head), "-"))
        if colorize is Colorize.ROWWISE:
            best = [min(m.median for m in row if m is not None)] * len(columns)
        elif colorize is Colorize.COLUMNWISE:
            best = []
            for j in range(len(columns)):
                same_group = [rows[k][j] for k in range(len(rows))
                              if group_of_row[k] == group_of_row[i] and rows[k][j] is not None]
                best.append(min(m.median for m in same_group) if same_group else None)
        else:
            best = [None] * len(columns)
        parts = [line[0].ljust(widths[0])]
        for text, width, m, top in zip(line[1:], widths[1:], row, best):
            text = text.center(width)
            if colorize is not Colorize.NONE and m is not None and top is not None:
                text = _painted(text, m.median, top)
            parts.append(text)
        lines.append("  |  ".join(parts))

    label = measurements[0].label
    warned = highlight and any(m.has_warnings for m in measurements)
    return (f"[{(' ' + (label or '') + ' ').center(len(head) - 2, '-')}]\n"
            + "\n".join(lines)
            + f"\n\nTimes are in {_ENGLISH[unit]}s ({unit}).\n"
            + ("(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
               if warned else ""))


class Compare:
    """``Compare(results)``: the measurements as tables, one per label; ``print()`` or
    ``str()`` shows them."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def extend_results(self, results):
        """Add more measurements."""
        for result in results:
            if not isinstance(result, Measurement):
                raise ValueError("Expected an instance of `Measurement`, "
                                 f"got {type(result)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        """Show only the digits each measurement's spread allows."""
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        """Colour each cell against the best of its column (or of its row)."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        """Append the spread (IQR / median) to noisy measurements."""
        self._highlight_warnings = True

    def print(self):
        print(str(self))

    def __str__(self):
        by_label = {}
        for m in Measurement.merge(self._results):
            by_label.setdefault(m.label, []).append(m)
        return "\n".join(_table(group, self._colorize, self._trim_significant_figures,
                                self._highlight_warnings) for group in by_label.values())
