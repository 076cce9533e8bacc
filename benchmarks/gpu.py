"""Timings on a real GPU, for ``python -m benchmarks --device cuda`` (``make bench-gpu``).

Two tables. The workloads of the CPU suite (chain, mlp_small, mlp) on the device, against
torch on CUDA when a CUDA build of torch sees a GPU. And workloads that measure kernels,
not overhead: an elementwise forward+backward on 64 MB, a softmax + cross-entropy step,
and the mlp SGD step at batch 1024; each with its time, the bandwidth it achieves (the
bytes its kernels must move, counted at the seam, over its time) against a device copy of
the same bytes, and the ratio to torch. Times are medians of synchronised iterations.

On the emulated device nothing here means anything (a launch runs on the CPU), so the
report skips it; ``tests/cuda/test_device_benchmark.py`` runs it at a tiny ``scale`` to
check that the code runs.
"""
import statistics
import time

import numpy as np

from benchmarks import workloads

ROUNDS = 15


def _median_seconds(step, synchronize, rounds):
    """The median time of ``step`` over ``rounds`` iterations, each ended by a sync."""
    step()
    synchronize()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        step()
        synchronize()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _torch_cuda():
    """torch, when it is a CUDA build that sees a GPU; else None (times without a ratio)."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


class LargeWorkload:
    """A kernel-bound workload: ``build(impl)`` ("autograd_cy" or "torch") returns one
    iteration on the device."""

    def __init__(self, name, description, build):
        self.name, self.description, self.build = name, description, build


def _elementwise(scale):
    """tanh forward and backward over 64 MB of float32 (16 Mi elements at scale 1)."""
    n = int(16 * 2 ** 20 * scale)
    data = np.random.default_rng(0).standard_normal(n).astype(np.float32)

    def build(impl):
        lib = workloads.library(impl)
        x = lib.tensor(data, device="cuda", requires_grad=True)
        gradient = lib.ones(n, device="cuda")

        def step():
            x.grad = None
            x.tanh().backward(gradient)
        return step
    return LargeWorkload("elementwise_64mb", f"tanh forward+backward, {n} float32", build)


def _softmax_cross_entropy(scale):
    """cross_entropy (log_softmax + nll_loss) forward and backward on logits of 4096 x 1000."""
    rows = max(2, int(4096 * scale))
    rng = np.random.default_rng(1)
    logits = rng.standard_normal((rows, 1000)).astype(np.float32)
    targets = rng.integers(0, 1000, rows)

    def build(impl):
        lib, functional = workloads.library(impl), workloads._functional(impl)
        x = lib.tensor(logits, device="cuda", requires_grad=True)
        t = lib.tensor(targets, device="cuda")

        def step():
            x.grad = None
            functional.cross_entropy(x, t).backward()
        return step
    return LargeWorkload("softmax_cross_entropy", f"cross_entropy step, {rows} x 1000", build)


def _mlp_1024(scale):
    batch = max(2, int(1024 * scale))
    mlp = workloads.MLP("mlp_1024", (784, 256, 256, 10), batch, "relu", "cross_entropy")

    return LargeWorkload("mlp_1024", mlp.description, mlp.build)


def large_workloads(scale=1.0):
    return [_elementwise(scale), _softmax_cross_entropy(scale), _mlp_1024(scale)]


def _copy_seconds(nbytes, synchronize, rounds):
    """The time of one device-to-device copy of ``nbytes`` (reading and writing them)."""
    import autograd_cy as ag
    source = ag.zeros(max(1, nbytes // 4), device="cuda")
    return _median_seconds(source.clone, synchronize, rounds)


def run_gpu_timings(scale=1.0, rounds=ROUNDS):
    """Print both tables; return the rows of the large workloads (for the tests)."""
    import autograd_cy as ag
    seam = ag.cuda.devices.get(0).seam
    synchronize = ag.cuda.synchronize
    torch = _torch_cuda()
    workloads.DEVICE = "cuda"
    print(f"\nTimes on {ag.cuda.get_device_name()} (median of {rounds} synchronised "
          f"iterations){'' if torch else '; torch has no CUDA here: no ratios'}\n")
    print("| workload | autograd_cy | torch | ratio |")
    print("|---|---:|---:|---:|")
    for workload in workloads.all_workloads():
        if workload.name not in ("chain", "mlp_small", "mlp"):
            continue
        ours = _median_seconds(workload.build("autograd_cy"), synchronize, rounds)
        theirs = (_median_seconds(workload.build("torch"), torch.cuda.synchronize, rounds)
                  if torch else None)
        print(_row(workload.name, ours, theirs))

    print("\n| workload | autograd_cy | bandwidth | of a device copy | torch | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = []
    for workload in large_workloads(scale):
        step = workload.build("autograd_cy")
        step()
        synchronize()
        seam.counters.reset()
        step()
        synchronize()
        moved = seam.counters.kernel_bytes
        ours = _median_seconds(step, synchronize, rounds)
        # a copy of `moved` bytes reads half of them and writes the other half
        copy = _copy_seconds(moved // 2, synchronize, rounds)
        theirs = (_median_seconds(workload.build("torch"), torch.cuda.synchronize, rounds)
                  if torch else None)
        bandwidth = moved / ours / 1e9
        of_copy = copy / ours
        rows.append((workload.name, ours, moved, of_copy, theirs))
        ratio = f"{ours / theirs:.2f}x" if theirs else "-"
        torch_time = f"{theirs * 1e3:.3f} ms" if theirs else "-"
        print(f"| {workload.name} | {ours * 1e3:.3f} ms | {bandwidth:.1f} GB/s | "
              f"{of_copy:.0%} | {torch_time} | {ratio} |")
    return rows


def _row(name, ours, theirs):
    ratio = f"{ours / theirs:.2f}x" if theirs else "-"
    torch_time = f"{theirs * 1e6:.1f} us" if theirs else "-"
    return f"| {name} | {ours * 1e6:.1f} us | {torch_time} | {ratio} |"
