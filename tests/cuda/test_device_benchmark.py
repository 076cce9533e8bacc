"""``python -m benchmarks --device cuda`` on the emulated device: launches counted at the
seam, the same count every iteration, and no host copies inside an iteration."""
import types

from benchmarks import workloads
from benchmarks.device import _count, run_device_report


def test_an_iteration_launches_the_same_kernels_every_time(monkeypatch):
    monkeypatch.setattr(workloads, "DEVICE", "cuda")
    workload = next(w for w in workloads.all_workloads() if w.name == "mlp_small")
    first = _count(workload)
    again = _count(workload)
    launches, by_kernel, copied = first
    assert first == again
    assert launches == sum(by_kernel.values()) and by_kernel["cublas matmul"] == 8
    assert copied == 0


def test_the_report_prints_one_row_per_workload(capsys, monkeypatch):
    monkeypatch.setattr(workloads, "DEVICE", "cpu")     # the report sets it to cuda itself
    assert run_device_report(types.SimpleNamespace(only=["mlp_small"])) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| mlp")]
    assert len(rows) == 1 and "cublas matmul x8" in rows[0]
