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


def test_each_elementwise_op_moves_its_bytes_once(capsys):
    """Forward and backward of every op in the table within the 1.1x bytes budget: fused
    formulas read each input and write each output once (a composition would not)."""
    from benchmarks.device import ELEMENTWISE, _elementwise_bytes, BYTES_BUDGET, run_bytes_report
    for op in ELEMENTWISE:
        forward, forward_ideal, backward, backward_ideal = _elementwise_bytes(op)
        assert forward <= BYTES_BUDGET * forward_ideal, op[0]
        assert backward <= BYTES_BUDGET * backward_ideal, op[0]
    assert run_bytes_report() is False
    assert "| sigmoid | 1.00x | 1.00x |" in capsys.readouterr().out


def test_the_gpu_timings_run(capsys, monkeypatch):
    """The timed tables need a GPU to mean anything; at a tiny scale on the emulated device
    they show that every workload runs and that its bytes are counted."""
    from benchmarks.gpu import run_gpu_timings
    monkeypatch.setattr(workloads, "DEVICE", "cuda")
    monkeypatch.setattr(workloads, "all_workloads", lambda: [])     # the CPU suite's: too slow
    rows = run_gpu_timings(scale=1 / 4096, rounds=1)
    assert [row[0] for row in rows] == ["elementwise_64mb", "softmax_cross_entropy", "mlp_1024"]
    elements = 16 * 2 ** 20 // 4096
    assert rows[0][2] == 5 * 4 * elements      # tanh: read x, write y; read g and y, write dx
    assert all(moved > 0 for _, _, moved, _, _ in rows)
    assert "| mlp_1024 |" in capsys.readouterr().out


def test_the_mlp_steps_keep_their_launch_budgets(monkeypatch):
    """The issue's budget: the mlp SGD step in at most 20 launches (addmm one gemm.cu launch
    each way, the bias's gradient inside mat2's); over two micro-batches with .grad kept,
    the additions into .grad are one launch per backward, not one per parameter."""
    from benchmarks.device import LAUNCH_BUDGETS, AccumulatingMLP
    monkeypatch.setattr(workloads, "DEVICE", "cuda")
    mlp = next(w for w in workloads.all_workloads() if w.name == "mlp")
    launches, by_kernel, copied = _count(mlp)
    assert launches <= LAUNCH_BUDGETS["mlp"] and copied == 0, by_kernel
    assert "cublas matmul" not in by_kernel and not any(k.startswith("reduce") for k in by_kernel)
    launches, by_kernel, copied = _count(AccumulatingMLP())
    assert launches <= LAUNCH_BUDGETS["mlp_accumulate"] and copied == 0, by_kernel
    # two backward flushes and the update; no per-parameter binary add
    assert by_kernel["foreach_apply<float, AddScaled>"] == 3, by_kernel
    assert not any(k.startswith("binary<float, Add>") for k in by_kernel), by_kernel
