"""``python -m benchmarks --device cuda``: what each workload costs a CUDA device.

On a GPU the timed comparison with torch CUDA belongs here (it comes with the GPU
benchmark). What every CUDA device shows, the emulated one included
(``AUTOGRAD_CY_CUDA=emulate``), is counted at the seam: kernel launches per iteration (by
kernel, cuBLAS calls included) and bytes copied between host and device. Budgets, reported
in the table: the SGD step of the 784-256-256-10 MLP at batch 64 in at most 20 launches,
and no host copies inside an iteration.
"""
import sys

from benchmarks import workloads

LAUNCH_BUDGETS = {"mlp": 20}


def _count(workload):
    """Launches and host copies of one iteration, after one warm-up iteration."""
    import autograd_cy as ag
    seam = ag.cuda._device(0).seam
    step = workload.build("autograd_cy")
    step()
    seam.counters.reset()
    step()
    ag.cuda.synchronize()
    counters = seam.counters
    return (counters.launches, dict(counters.by_kernel),
            counters.host_to_device_bytes + counters.device_to_host_bytes)


def run_device_report(args):
    import autograd_cy as ag
    if not ag.cuda.is_available():
        print("--device cuda: no CUDA device (set AUTOGRAD_CY_CUDA=emulate for the emulated "
              "one, which counts launches but cannot time them)")
        return 1
    workloads.DEVICE = "cuda"
    names = args.only or ["chain", "mlp_small", "mlp"]
    chosen = [w for w in workloads.all_workloads() if w.name in names]
    device = ag.cuda.get_device_name()
    print(f"Launches per iteration on {device} (counted at the seam)\n")
    print("| workload | launches | budget | host copies (bytes) | kernels (most launched) |")
    print("|---|---:|---:|---:|---|")
    failed = False
    for workload in chosen:
        launches, by_kernel, copied = _count(workload)
        budget = LAUNCH_BUDGETS.get(workload.name)
        over = budget is not None and launches > budget
        failed |= over
        top = ", ".join(f"{name} x{count}" for name, count in
                        sorted(by_kernel.items(), key=lambda kv: -kv[1])[:4])
        budget_text = "" if budget is None else f"{budget}{' (over)' if over else ''}"
        print(f"| {workload.name} | {launches} | {budget_text} | {copied} | {top} |")
    sys.stdout.flush()
    return 0
