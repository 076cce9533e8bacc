"""The terminal while the benchmark runs: a progress bar per workload, and nothing else.

Libraries print on their own while a workload runs: torch's profiler (kineto) writes
``USDT:`` lines to file descriptor 2 from C++, which no logging setting silences, and a
workload may warn. ``captured_output`` points descriptors 1 and 2 at a log file for the
whole measurement, and Python's ``sys.stdout`` and ``sys.stderr`` (prints, warnings) at the
same file, so none of it reaches the table; the progress bars are drawn on a copy of the
terminal's stderr taken before, and the table is printed after everything is back.
"""
import contextlib
import os
import sys

from tqdm import tqdm


@contextlib.contextmanager
def captured_output(log_path):
    """Descriptors 1 and 2, and Python's sys.stdout and sys.stderr, write to ``log_path``
    inside the block; yields a text stream on the original stderr, for progress bars.

    Python's streams are redirected too, not only the descriptors under them: where they
    are not the process's own (pytest's capture, a notebook) they never reach fd 1 or 2."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved_out, saved_err = os.dup(1), os.dup(2)
    terminal = os.fdopen(os.dup(saved_err), "w", buffering=1)
    try:
        with open(log_path, "a", buffering=1, encoding="utf-8", errors="replace") as log:
            os.dup2(log.fileno(), 1)
            os.dup2(log.fileno(), 2)
            try:
                with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
                    yield terminal
            finally:
                sys.stdout.flush()      # what a stream kept from before went to the log
                sys.stderr.flush()
                os.dup2(saved_out, 1)
                os.dup2(saved_err, 2)
    finally:
        terminal.close()
        os.close(saved_out)
        os.close(saved_err)


def format_time(seconds):
    """``1.23 s``, ``4.56 ms`` or ``7.8 us``."""
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def has_width(stream):
    """Whether ``stream`` is a terminal some columns wide (True when it cannot tell)."""
    if not stream.isatty():
        return False
    try:
        return os.get_terminal_size(stream.fileno()).columns > 0
    except (OSError, ValueError):        # no descriptor (a stand-in stream in a test)
        return True


class RoundProgress:
    """One bar per workload: rounds done out of ``total``, and autograd_cy's median so far
    against the NumPy floor's.

    On a terminal it is a tqdm bar redrawn every round. Elsewhere (CI, ``2> file``) a bar
    redrawn with carriage returns makes one long line of every state, so the stream gets
    one plain line per workload instead, when the workload is done; so does a terminal of
    no width (``script`` without one), where tqdm would draw empty bars."""

    def __init__(self, stream, label, total):
        self.stream, self.label, self.total = stream, label, total
        self.rounds, self.postfix = 0, ""
        self.interactive = has_width(stream)
        self.bar = tqdm(total=total, desc=label, file=stream, unit="round", leave=True,
                        dynamic_ncols=True, mininterval=0.2, disable=not self.interactive,
                        bar_format="{desc} {bar} {n_fmt}/{total_fmt} rounds{postfix}")

    def update(self, median_ours, median_floor):
        """After a round: the medians of autograd_cy and the floor so far, in seconds."""
        self.rounds += 1
        self.postfix = f"median {format_time(median_ours)}"
        if median_floor:
            self.postfix += f", {median_ours / median_floor:.2f}x the NumPy floor"
        self.bar.set_postfix_str(self.postfix, refresh=False)
        self.bar.update(1)

    def close(self):
        self.bar.close()
        if not self.interactive:
            line = f"{self.label} {self.rounds}/{self.total} rounds"
            self.stream.write(", ".join(filter(None, (line, self.postfix))) + "\n")
