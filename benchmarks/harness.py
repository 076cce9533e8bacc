"""Timing and reporting: interleaved rounds, medians, ratios, one table.

The three implementations of a workload run in the same process, one after the
other inside every round, in an order that rotates each round: drift on a noisy
machine (frequency scaling, another process) then hits all three alike. The
garbage collector is off while timing; a warm-up round precedes the timed ones,
and every round starts with one untimed iteration: the first iteration after
another implementation ran refills the caches with its own code and data (on
``mlp``, +300 us for autograd_cy and +100 us for the floor), a cost of taking
turns, not of the implementation, and one a training loop never pays.
"""
import datetime
import gc
import json
import os
import platform
import socket
import statistics
import subprocess
import time

from benchmarks.console import RoundProgress, captured_output, format_time
from benchmarks.pictures import plt, publish, write_picture
from benchmarks.training_workloads import split_report
from benchmarks.workloads import IMPLEMENTATIONS, all_workloads, headline_workloads

TARGET_ROUND_SECONDS = 0.02     # short iterations are repeated inside one round
MIN_PUBLISHED_ROUNDS = 20       # the fewest rounds whose picture may become latest.png
CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# NOTE [Ratios between our own workloads]
# Some targets compare two workloads of ours (the checkpointed chain against the plain one,
# forward AD against the plain forward). This VM's speed swings in bursts of a few seconds,
# so two medians taken in separate measurements, a minute apart, compare two states of the
# machine as much as two workloads. A workload with a ``baseline`` therefore times the
# baseline's autograd_cy iteration right next to its own in every round (the two take turns
# going first) and reports the median of the rounds' ratios: a burst longer than a round
# slows both sides of a ratio alike.

def measure(workload, repeat, progress=None):
    """Median, min and max seconds per iteration for each implementation; with a baseline,
    also the median, min and max of the per-round ratio to it. ``progress`` (a
    RoundProgress) hears of every round."""
    runs = {impl: workload.build(impl) for impl in IMPLEMENTATIONS}
    runs = {impl: run for impl, run in runs.items() if run is not None}   # (no floor)
    slots = [(impl,) for impl in runs]
    if workload.baseline is not None:
        runs["baseline"] = workload.baseline.build("autograd_cy")
        slots[0] = ("autograd_cy", "baseline")
    for run in runs.values():            # warm-up, and one timing to size the rounds
        run()
    start = time.perf_counter()
    runs["autograd_cy"]()
    single = time.perf_counter() - start
    inner = max(1, int(TARGET_ROUND_SECONDS / max(single, 1e-9)))
    samples = {name: [] for name in runs}
    gc.collect()
    gc.freeze()                          # NOTE [A frozen heap between rounds]
    try:
        for round_index in range(repeat):
            slots = slots[1:] + slots[:1]
            for slot in slots:
                for name in (slot if round_index % 2 else reversed(slot)):
                    samples[name].append(_time_round(runs[name], inner))
            if progress is not None:
                progress.update(statistics.median(samples["autograd_cy"]),
                                statistics.median(samples["numpy"]) if "numpy" in samples
                                else None)
    finally:
        gc.unfreeze()
    result = {"timings": {name: _summary(values) for name, values in samples.items()}}
    if workload.baseline is not None:
        result["baseline_ratio"] = _summary(
            [ours / base for ours, base in zip(samples["autograd_cy"], samples["baseline"])])
    return result


# NOTE [A frozen heap between rounds]
# Every round starts with gc.collect(), so that no round inherits another's garbage. A full
# collection walks every object the collector tracks, and with torch imported that is about
# 200,000 of them: 85 ms on this VM, three or four times a round, which was two thirds of
# ``make bench``'s wall time. gc.freeze() moves everything alive before the rounds (the
# modules, the built workload) to a generation that collections skip; the garbage the
# rounds make is still collected. The timed iterations are the same: the collector is off
# while they run either way.

def _time_round(run, inner):
    """Seconds per iteration over ``inner`` iterations, after one untimed iteration."""
    gc.collect()
    gc.disable()
    try:
        run()                   # untimed: back to a warm cache after the others
        start = time.perf_counter()
        for _ in range(inner):
            run()
        return (time.perf_counter() - start) / inner
    finally:
        gc.enable()


def _summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def environment(threads):
    import numpy
    import torch
    import Cython
    import autograd_cy  # noqa: F401
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": checkout_commit(),
        "host": socket.gethostname(),
        "machine": ", ".join(part for part in (platform.machine(), f"{os.cpu_count()} cores",
                                                platform.processor()) if part),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "torch": torch.__version__,
        "cython": Cython.__version__,
        "threads": threads,
        "torch_threads": torch.get_num_threads(),
        "blas_core": openblas_core(),
    }


def openblas_core():
    """The kernels NumPy's OpenBLAS chose for this CPU ("Haswell", "SkylakeX", ...), or
    None for a NumPy without it: the NumPy floor's products run them. On AMD Zen 4 and 5
    OpenBLAS picks its AVX2 (Haswell) kernels, and autograd_cy's 2-D products call its
    AVX-512 ones by name (NOTE [OpenBLAS's AVX-512 kernels on AMD CPUs] in pyx/blas.pyx):
    there a product-bound workload runs faster than its floor."""
    import ctypes
    import glob
    import numpy
    folder = os.path.join(os.path.dirname(os.path.dirname(numpy.__file__)), "numpy.libs")
    for path in glob.glob(os.path.join(folder, "libscipy_openblas64_*.so")):
        corename = getattr(ctypes.CDLL(path), "scipy_openblas_get_corename64_", None)
        if corename is not None:
            corename.restype = ctypes.c_char_p
            return corename().decode()
    return None


def checkout_commit():
    """The short hash of the checkout's HEAD, ``-dirty`` when a tracked file (other than the
    published picture) differs from it; ``unknown`` outside a git checkout."""
    def git(*arguments):
        done = subprocess.run(["git", "-C", CHECKOUT, *arguments], capture_output=True,
                              text=True)
        return done.stdout.strip() if done.returncode == 0 else None
    try:
        commit = git("rev-parse", "--short", "HEAD")
        changes = git("status", "--porcelain", "--untracked-files=no", "--", ".",
                      ":!benchmarks/results/latest.png")
    except OSError:                 # no git program
        return "unknown"
    if commit is None:
        return "unknown"
    return commit + ("-dirty" if changes else "")


def table(results, env):
    header = (f"autograd_cy overhead benchmark | {env['date']} | commit {env['commit']} | "
              f"{env['machine']} | "
              f"Python {env['python']}, NumPy {env['numpy']}, torch {env['torch']}, "
              f"Cython {env['cython']} | threads: {env['threads']} "
              f"(torch {env['torch_threads']})"
              + (f" | OpenBLAS {env['blas_core']}" if env.get("blas_core") else ""))
    columns = ("workload", "autograd_cy (min-max)", "torch", "numpy floor", "vs torch",
               "vs floor", "per node")
    rows = []
    for result in results:
        timings = result["timings"]
        ours = timings["autograd_cy"]
        floor = timings.get("numpy")           # a workload without a NumPy floor has none
        rows.append((
            result["name"],
            f"{format_time(ours['median'])} ({format_time(ours['min'])}-"
            f"{format_time(ours['max'])})",
            format_time(timings["torch"]["median"]),
            format_time(floor["median"]) if floor else "-",
            f"{ours['median'] / timings['torch']['median']:.2f}x",
            f"{ours['median'] / floor['median']:.2f}x" if floor else "-",
            format_time(ours["median"] / result["nodes"]) if result["nodes"] else "-",
        ))
    widths = [max(len(str(row[i])) for row in rows + [columns]) for i in range(len(columns))]

    def line(cells):
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([header, "", line(columns), rule] + [line(row) for row in rows])


# The issues' speed targets, as ratios of the medians of one run: (against, at most).
# "numpy": the hand-written NumPy floor; "torch": torch in the same rounds (torch.func for
# the transforms, the foreach=False step for the optimizer).
TARGETS = {
    "chain": ("numpy", 1.0), "mlp_small": ("numpy", 1.5), "mlp": ("numpy", 1.0),
    "hvp": ("numpy", 1.5), "function": ("numpy", 2.0), "wide": ("numpy", 1.2),
    "hooks": ("numpy", 1.1), "complex_chain": ("torch", 0.5), "mlp_bfloat16": ("torch", 0.5),
    "per_sample_grads": ("torch", 0.5), "func_jacrev": ("torch", 0.5),
    "func_jacfwd": ("torch", 0.5), "func_hessian": ("torch", 0.5),
    "optim_adam_step": ("torch", 0.5), "train_mlp": ("torch", 1.0),
    "train_cnn": ("torch", 1.2), "train_transformer": ("torch", 0.8),
}


def issue_targets_table(results):
    """Each measured workload that has a target in ``TARGETS``: its ratio in this run and
    whether the target holds."""
    lines = []
    for r in results:
        if r["name"] not in TARGETS or r["timings"].get(TARGETS[r["name"]][0]) is None:
            continue
        against, target = TARGETS[r["name"]]
        ratio = r["timings"]["autograd_cy"]["median"] / r["timings"][against]["median"]
        holds = "yes" if ratio <= target else "**no**"
        lines.append(f"| {r['name']} | {'NumPy floor' if against == 'numpy' else 'torch'} | "
                     f"{ratio:.2f}x | <= {target}x | {holds} |")
    if not lines:
        return ""
    return "\n".join(["", "", "The speed targets (ratios of this run's medians):", "",
                      "| workload | against | ratio | target | holds |",
                      "|---|---|---|---|---|"] + lines) + "\n"


def targets_table(results):
    """The workloads measured against a baseline of ours (NOTE [Ratios between our own
    workloads]): the per-round ratio against its target."""
    rows = [r for r in results if "baseline_ratio" in r]
    if not rows:
        return ""
    lines = ["", "", "Targets against our own workloads (both timed in every round; the median "
             "of the rounds' ratios):", "",
             "| workload | against | ratio (min-max) | target | holds |",
             "|---|---|---|---|---|"]
    for r in rows:
        ratio = r["baseline_ratio"]
        holds = "yes" if ratio["median"] <= r["target"] else "**no**"
        lines.append(f"| {r['name']} | {r['baseline']} | {ratio['median']:.2f}x "
                     f"({ratio['min']:.2f}x-{ratio['max']:.2f}x) | <= {r['target']}x | "
                     f"{holds} |")
    return "\n".join(lines) + "\n"


def select(args):
    """The workloads to run: ``--only`` names, all of them with ``--full``, else the headline
    ones (``make bench``)."""
    if getattr(args, "script", None):
        from benchmarks.training_workloads import ScriptWorkload
        return [ScriptWorkload(args.script)]
    workloads = all_workloads() if args.full or args.only else headline_workloads()
    if args.only:
        unknown = set(args.only) - {w.name for w in workloads} - {"depth"}
        if unknown:
            raise SystemExit(f"unknown workloads: {sorted(unknown)}; known: "
                             f"{[w.name for w in workloads]}")
        workloads = [w for w in workloads if w.name in args.only or
                     ("depth" in args.only and w.name.startswith("depth_"))]
    return workloads


def run_suite(args):
    import torch
    torch.set_num_threads(args.threads)
    workloads = select(args)
    repeat = max(args.repeat, 1)
    env = environment(args.threads)
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, f"{env['date'][:10]}-{env['host']}")
    log_path = stem + ".log"
    count = f"{len(workloads)} workload" + ("s" if len(workloads) > 1 else "")
    print(f"{count}, {repeat} rounds each (autograd_cy, torch and the NumPy "
          f"floor take turns); the libraries' own output goes to {log_path}", flush=True)
    results = []
    started = time.perf_counter()
    with captured_output(log_path) as terminal:
        width = max(len(w.name) for w in workloads)
        for workload in workloads:
            progress = RoundProgress(terminal, workload.name.ljust(width), repeat)
            try:
                result = {"name": workload.name, "description": workload.description,
                          "nodes": workload.nodes, **measure(workload, repeat, progress)}
            finally:
                progress.close()
            if workload.baseline is not None:
                result["baseline"], result["target"] = workload.baseline.name, workload.target
            results.append(result)
        # A workload may add a section of its own after the table (e.g. saved bytes).
        sections = "".join(w.report() + "\n" for w in workloads if hasattr(w, "report"))
        sections += split_report(workloads, repeat)
    report = (table(results, env) + issue_targets_table(results) + targets_table(results)
              + sections)
    print(f"\nmeasured in {time.perf_counter() - started:.0f} s\n")
    print(report)
    publish_as = LATEST_PICTURE if publishes(args) else None
    write_results(stem, env, results, report, publish_as)
    return 0


def publishes(args):
    """Whether the run's picture becomes the README's (NOTE [The picture of the latest run]):
    only a ``make bench`` run, the headline workloads with enough rounds."""
    return (not args.only and not args.full and not getattr(args, "script", None)
            and args.repeat >= MIN_PUBLISHED_ROUNDS)


def write_results(stem, env, results, report, publish_as=None):
    """The run as JSON, as markdown, and as a picture, copied to ``publish_as`` if given."""
    with open(stem + ".json", "w") as handle:
        json.dump({"environment": env, "results": results}, handle, indent=2)
    with open(stem + ".md", "w") as handle:
        handle.write(report + "\n")
    written = [stem + ".json", stem + ".md"]
    title = (f"autograd_cy vs PyTorch {env['torch']} vs a NumPy floor | commit {env['commit']} "
             f"| {env['date']} | {env['machine']}")
    if write_picture(results, stem + ".png", title):
        written.append(stem + ".png")
        if publish_as is not None:
            publish(stem + ".png", publish_as)
            written.append(publish_as)
    else:
        print("(no picture: " + ("matplotlib is missing; `make bench` installs it)"
                                 if plt is None else "no workload with a NumPy floor)"))
    print("\nwrote " + ", ".join(written))


# NOTE [The picture of the latest run]
# Every run writes ``<date>-<host>.png`` beside its JSON (benchmarks/results/, ignored by git).
# A ``make bench`` run (the headline workloads, at least 20 rounds) also copies it to
# benchmarks/results/latest.png, the one file of that folder git tracks: the README shows it.
# Runs with --only or --full leave it alone, so that timing one workload while optimising
# never replaces the README's picture with a one-bar chart. The picture's title names the
# commit it measured; commit it with a line in the README's benchmark section.
LATEST_PICTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                              "latest.png")
