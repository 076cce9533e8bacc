"""``python -m benchmarks --device cuda``: what each workload costs a CUDA device.

On a GPU it then times the workloads against torch CUDA (benchmarks/gpu.py). What every
CUDA device shows, the emulated one included
(``AUTOGRAD_CY_CUDA=emulate``), is counted at the seam: kernel launches per iteration (by
kernel, cuBLAS calls included) and bytes copied between host and device. Budgets, reported
in the tables: the SGD step of the 784-256-256-10 MLP at batch 64 in at most 20 launches
(its layers are addmm: one cuda/gemm.cu launch each way, NOTE [GEMM epilogues]); the same
step over two micro-batches with ``.grad`` kept (``mlp_accumulate``), whose additions into
``.grad`` are one launch per backward for all six parameters (NOTE [Deferred gradient
accumulation]); the nn.Sequential training step with Adam (``train_mlp``, benchmarks/
training_workloads.py) in at most 21: 17 for the forward and backward, 1 for Adam's
whole step (NOTE [Adam in one launch] in cuda/foreach.cu), 3 casts; no host copies inside
an iteration; and each elementwise op's forward and
backward moving at most 1.1x the bytes of reading its inputs and writing its outputs once
(``kernel_bytes``, counted at the seam from the arrays each launch is given).
"""
import sys

import numpy as np

from benchmarks import workloads

LAUNCH_BUDGETS = {"mlp": 20, "mlp_accumulate": 38, "train_mlp": 21}
BYTES_BUDGET = 1.1

# Each elementwise op: how it is called on (x, y), how many of them it takes, and the arrays
# of n elements that reading its inputs and writing its outputs once takes, forward and
# backward (the backward reads the incoming gradient and what its formula needs, and writes
# one gradient per input; add hands the incoming gradient on untouched).
ELEMENTWISE = [
    ("add", lambda x, y: x + y, 2, 3, 0),
    ("sub", lambda x, y: x - y, 2, 3, 2),
    ("mul", lambda x, y: x * y, 2, 3, 5),
    ("div", lambda x, y: x / y, 2, 3, 5),
    ("exp", lambda x, y: x.exp(), 1, 2, 3),
    ("tanh", lambda x, y: x.tanh(), 1, 2, 3),
    ("sigmoid", lambda x, y: x.sigmoid(), 1, 2, 3),
    ("relu", lambda x, y: x.relu(), 1, 2, 3),
    ("gelu", lambda x, y: _functional().gelu(x), 1, 2, 3),
    ("silu", lambda x, y: _functional().silu(x), 1, 2, 3),
]
ELEMENTS = 4096


def _functional():
    import autograd_cy.nn.functional as F
    return F


def _elementwise_bytes(op):
    """Bytes moved by one elementwise op's forward and by its backward, with the ideal."""
    import autograd_cy as ag
    _, function, arity, forward_arrays, backward_arrays = op
    seam = ag.cuda.devices.get(0).seam
    rng = np.random.default_rng(0)
    x, y = (ag.tensor(rng.random(ELEMENTS, dtype=np.float32) + 0.5, device="cuda",
                      requires_grad=True) for _ in range(2))
    gradient = ag.ones(ELEMENTS, device="cuda")

    def gradients(out):
        # grad(), not backward(): the formula's bytes, without AccumulateGrad's copies of a
        # gradient the caller still holds (which torch makes too)
        ag.autograd.grad(out, (x, y)[:arity], gradient)
    gradients(function(x, y))             # warm-up: every kernel built
    seam.counters.reset()
    out = function(x, y)
    forward = seam.counters.kernel_bytes
    seam.counters.reset()
    gradients(out)
    backward = seam.counters.kernel_bytes
    unit = ELEMENTS * 4
    return forward, forward_arrays * unit, backward, backward_arrays * unit


def _ratio(moved, ideal):
    if ideal == 0:
        return "0 bytes" if moved == 0 else f"{moved} bytes (over)"
    ratio = moved / ideal
    return f"{ratio:.2f}x" + (" (over)" if ratio > BYTES_BUDGET else "")


def run_bytes_report():
    """The elementwise table: bytes moved per op against reading and writing once."""
    print(f"\nBytes moved per elementwise op ({ELEMENTS} float32 elements), against reading "
          f"the inputs and writing the outputs once (budget {BYTES_BUDGET}x)\n")
    print("| op | forward | backward |")
    print("|---|---:|---:|")
    over = False
    for op in ELEMENTWISE:
        forward, forward_ideal, backward, backward_ideal = _elementwise_bytes(op)
        row = (_ratio(forward, forward_ideal), _ratio(backward, backward_ideal))
        over |= any("over" in cell for cell in row)
        print(f"| {op[0]} | {row[0]} | {row[1]} |")
    return over


class AccumulatingMLP(workloads.MLP):
    """The ``mlp`` step as two micro-batches of 32 whose gradients add up in ``.grad``: the
    gradients are kept and zeroed in place (``zero_grad(set_to_none=False)``), so both
    backward passes accumulate into every parameter's ``.grad``. Its budget: two micro-batch
    steps of the ``mlp`` kind (17 launches each without the update), one launch per backward
    for all six additions, the update and the zeroing."""

    def __init__(self):
        super().__init__("mlp_accumulate", (784, 256, 256, 10), 64, "relu", "cross_entropy",
                         addmm=True)

    def build(self, impl):
        lib = workloads.library(impl)
        functional = workloads._functional(impl)
        weights = [workloads.constant(impl, w, requires_grad=True) for w in self.weights]
        biases = [workloads.constant(impl, b, requires_grad=True) for b in self.biases]
        params = weights + biases
        half = self.batch // 2
        batches = [(workloads.constant(impl, self.inputs[i:i + half]),
                    lib.tensor(self.targets[i:i + half], device=workloads.DEVICE))
                   for i in (0, half)]
        for p in params:
            p.grad = lib.zeros_like(p)
        last, lr = len(weights) - 1, self.lr

        def step():
            for inputs, targets in batches:
                h = inputs
                for i, (w, b) in enumerate(zip(weights, biases)):
                    h = lib.addmm(b, h, w)
                    if i < last:
                        h = h.relu()
                functional.cross_entropy(h, targets).backward()
            with lib.no_grad():
                grads = [p.grad for p in params]
                lib._foreach_add_(params, grads, alpha=-lr)
                lib._foreach_zero_(grads)
        return step


def _count(workload):
    """Launches and host copies of one iteration, after one warm-up iteration."""
    import autograd_cy as ag
    seam = ag.cuda.devices.get(0).seam
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
    names = args.only or ["chain", "mlp_small", "mlp", "mlp_accumulate", "train_mlp"]
    chosen = [w for w in workloads.all_workloads() + [AccumulatingMLP()] if w.name in names]
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
    if args.only is None:
        run_bytes_report()
        if type(ag.cuda.devices.get(0).seam).__name__ != "EmulatedSeam":
            from benchmarks.gpu import run_gpu_timings
            run_gpu_timings()
        else:
            print("\nTimes, bandwidth and ratios to torch need a GPU (make bench-gpu there).")
    return 0
