"""The benchmark harness (benchmarks/): what ``make bench`` runs, what it writes, and that no
library's own output reaches its table.

The workloads here are tiny stand-ins (each iteration a few microseconds), so the run takes
a second; the real ones are timed by ``make bench``, never by a test.
"""
import argparse
import io
import json
import os
import sys

import numpy as np
import pytest

from benchmarks import harness
from benchmarks.console import RoundProgress
from benchmarks.workloads import HEADLINE, Workload, all_workloads, headline_workloads


class Noisy(Workload):
    """A workload whose every iteration writes to file descriptors 1 and 2, as torch's
    profiler does from C++ (its ``USDT:`` lines), and whose build prints through Python's
    sys.stdout and sys.stderr, as a library's print or warning does."""

    def __init__(self, name, nodes=3):
        self.name, self.nodes = name, nodes
        self.description = "writes to fd 1 and fd 2"

    def build(self, impl):
        x = np.ones(4)
        print(f"PRINT-NOISE {impl}")
        print(f"WARNING-NOISE {impl}", file=sys.stderr)

        def iteration():
            os.write(1, f"STDOUT-NOISE {impl}\n".encode())
            os.write(2, f"USDT: STDERR-NOISE {impl}\n".encode())
            return x * 2
        return iteration


def arguments(tmp_path, **overrides):
    values = dict(only=None, full=False, repeat=3, threads=1, out=str(tmp_path))
    values.update(overrides)
    return argparse.Namespace(**values)


@pytest.fixture
def tiny_suite(monkeypatch, tmp_path):
    """The harness with two noisy stand-ins for the headline workloads, rounds of 1 ms, and
    its picture's published copy in tmp_path (not the tracked benchmarks/results/latest.png)."""
    workloads = [Noisy("first"), Noisy("depth_10", nodes=30)]
    monkeypatch.setattr(harness, "headline_workloads", lambda: workloads)
    monkeypatch.setattr(harness, "all_workloads", lambda: workloads)
    monkeypatch.setattr(harness, "TARGET_ROUND_SECONDS", 0.001)
    monkeypatch.setattr(harness, "LATEST_PICTURE", str(tmp_path / "published" / "latest.png"))
    return workloads


def test_a_run_writes_json_markdown_picture_and_log(tiny_suite, tmp_path, capfd):
    assert harness.run_suite(arguments(tmp_path, repeat=harness.MIN_PUBLISHED_ROUNDS)) == 0
    files = sorted(os.listdir(tmp_path))
    stems = {os.path.splitext(name)[0] for name in files if name != "published"}
    assert len(stems) == 1
    stem = tmp_path / stems.pop()
    for suffix in (".json", ".md", ".png", ".log"):
        assert os.path.getsize(str(stem) + suffix) > 0, suffix
    with open(str(stem) + ".png", "rb") as handle:
        assert handle.read(8) == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "published" / "latest.png").read_bytes() == \
        open(str(stem) + ".png", "rb").read()
    data = json.loads(open(str(stem) + ".json").read())
    assert [r["name"] for r in data["results"]] == ["first", "depth_10"]
    for result in data["results"]:
        assert set(result["timings"]) == {"autograd_cy", "torch", "numpy"}
    assert data["environment"]["commit"] == harness.checkout_commit()
    out, _ = capfd.readouterr()
    assert f"commit {harness.checkout_commit()}" in out


@pytest.mark.parametrize("overrides", [dict(only=["first"]), dict(full=True), dict(repeat=3)])
def test_only_a_make_bench_run_replaces_the_readme_picture(tiny_suite, tmp_path, overrides):
    """--only, --full and short runs write their own picture but leave latest.png alone."""
    harness.run_suite(arguments(tmp_path, **{"repeat": 20, **overrides}))
    assert any(name.endswith(".png") for name in os.listdir(tmp_path))
    assert not (tmp_path / "published").exists()


def test_library_output_goes_to_the_log_not_the_table(tiny_suite, tmp_path, capfd):
    harness.run_suite(arguments(tmp_path))
    out, err = capfd.readouterr()
    assert "| first" in out and "| depth_10" in out          # the table
    assert "NOISE" not in out and "USDT" not in out
    assert "NOISE" not in err and "USDT" not in err
    log = next(name for name in os.listdir(tmp_path) if name.endswith(".log"))
    text = (tmp_path / log).read_text()
    for impl in ("autograd_cy", "torch", "numpy"):
        assert f"STDOUT-NOISE {impl}" in text and f"USDT: STDERR-NOISE {impl}" in text
        assert f"PRINT-NOISE {impl}" in text and f"WARNING-NOISE {impl}" in text


def test_progress_off_a_terminal_is_one_line_per_workload(tiny_suite, tmp_path, capfd):
    """capfd's stderr is a file, as in CI: no bar redrawn with carriage returns."""
    harness.run_suite(arguments(tmp_path, repeat=4))
    _, err = capfd.readouterr()
    lines = err.splitlines()
    assert len(lines) == 2 and "\r" not in err
    assert lines[0].startswith("first ") and lines[1].startswith("depth_10 ")
    for line in lines:
        assert "4/4 rounds, median " in line and "x the NumPy floor" in line


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_on_a_terminal_is_a_redrawn_bar():
    terminal = Terminal()
    progress = RoundProgress(terminal, "chain", 3)
    for median in (2e-3, 3e-3, 4e-3):
        progress.update(median, 1e-3)
    progress.close()
    text = terminal.getvalue()
    assert "\r" in text and "chain" in text
    assert "3/3 rounds, median 4.00 ms, 4.00x the NumPy floor" in text


def test_headline_and_full_selections():
    names = [w.name for w in all_workloads()]
    assert set(HEADLINE) <= set(names)
    assert [w.name for w in headline_workloads()] == [n for n in names if n in HEADLINE]
    full = harness.select(arguments(".", full=True))
    assert [w.name for w in full] == names
    assert "depth_100000" in names and "depth_100000" not in HEADLINE
    only = harness.select(arguments(".", only=["depth", "hvp"]))
    assert [w.name for w in only] == [n for n in names
                                      if n.startswith("depth_") or n == "hvp"]
    with pytest.raises(SystemExit, match="unknown workloads"):
        harness.select(arguments(".", only=["no_such_workload"]))


def test_issue_targets_table_reports_each_target_once_measured():
    from benchmarks.harness import TARGETS, issue_targets_table

    def result(name, ours, torch_time, floor=None):
        timings = {"autograd_cy": {"median": ours}, "torch": {"median": torch_time}}
        if floor is not None:
            timings["numpy"] = {"median": floor}
        return {"name": name, "timings": timings}
    assert TARGETS["train_transformer"] == ("torch", 0.8)
    report = issue_targets_table([result("train_transformer", 1.9, 2.5),
                                  result("mlp_small", 3.0, 9.0, 2.0),
                                  result("train_cnn", 1.3, 1.0),
                                  result("not_a_target", 1.0, 1.0)])
    lines = [line for line in report.splitlines() if line.startswith("| ") and "ratio" not in line]
    assert lines == ["| train_transformer | torch | 0.76x | <= 0.8x | yes |",
                     "| mlp_small | NumPy floor | 1.50x | <= 1.5x | yes |",
                     "| train_cnn | torch | 1.30x | <= 1.2x | **no** |"]
