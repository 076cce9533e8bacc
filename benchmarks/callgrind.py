"""``python -m benchmarks.callgrind``: instructions per iteration of autograd_cy, under callgrind.

Wall-clock timings on a shared 2-core VM move by several per cent from one run to the next, which
hides the small changes a refactor makes to the per-op overhead. The number of instructions
executed does not move: this counts them with ``valgrind --tool=callgrind`` instead of timing.

Each workload of ``benchmarks/workloads.py`` is built for autograd_cy exactly as the timing
harness builds it, then run in two separate valgrind processes: setup, one warm-up iteration and
``BASE`` iterations, then the same with ``BASE + N`` iterations. The difference of the two totals,
divided by N, is the cost of one iteration; interpreter start-up, imports and setup cancel out.
As in the harness, threads are pinned to 1 and the garbage collector is off during the counted
iterations; ``PYTHONHASHSEED`` is fixed so that both processes hash alike.

The script also runs as a file (``python path/to/benchmarks/callgrind.py``): it then measures the
``benchmarks`` package and autograd_cy found on ``PYTHONPATH``, so one copy of it can measure
another checkout.
"""
import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile

DEFAULT_WORKLOADS = ("chain", "mlp_small", "function", "hvp")
BASE = 5                 # iterations of the shorter run, after the warm-up
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.callgrind", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", default=None,
                        help=f"workload names (default: {' '.join(DEFAULT_WORKLOADS)})")
    parser.add_argument("--iterations", type=int, default=10,
                        help="N: the longer run has N more iterations than the shorter one")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--floor", action="store_true",
                        help="also count the NumPy floor of each workload (its Ir column)")
    parser.add_argument("--child", nargs=3, metavar=("NAME", "COUNT", "IMPL"),
                        help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def child(name, count, impl):
    """Inside valgrind: build ``name`` for ``impl``, warm up, run ``count`` iterations."""
    import autograd_cy
    from benchmarks.workloads import all_workloads
    workload = next(w for w in all_workloads() if w.name == name)
    run = workload.build(impl)
    run()
    gc.collect()
    gc.disable()
    for _ in range(count):
        run()
    gc.enable()
    print(json.dumps({"autograd_cy": os.path.dirname(autograd_cy.__file__),
                      "nodes": workload.nodes}))


def total_instructions(path):
    """The total Ir of a callgrind output file, from its ``summary:`` or ``totals:`` line."""
    with open(path) as handle:
        for line in handle:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError(f"no summary or totals line in {path}")


def count(name, iterations, env, folder, impl):
    """Instructions of one valgrind run of ``name`` with ``iterations`` counted iterations."""
    out = os.path.join(folder, f"{name}.{impl}.{iterations}.out")
    command = ["valgrind", "--tool=callgrind", "--quiet", f"--callgrind-out-file={out}",
               sys.executable, os.path.abspath(__file__), "--child", name, str(iterations),
               impl]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{name}: valgrind failed ({done.returncode}):\n{done.stderr}")
    return total_instructions(out), json.loads(done.stdout.strip().splitlines()[-1])


def per_iteration(name, extra, env, impl):
    """Instructions of one iteration of ``impl``: the difference of two runs, over ``extra``."""
    with tempfile.TemporaryDirectory(prefix="callgrind-") as folder:
        shorter, info = count(name, BASE, env, folder, impl)
        longer, _ = count(name, BASE + extra, env, folder, impl)
    return (longer - shorter) / extra, info, {BASE: shorter, BASE + extra: longer}


def measure(name, extra, env, floor):
    ours, info, totals = per_iteration(name, extra, env, "autograd_cy")
    result = {"name": name, "ir_per_iteration": round(ours), "nodes": info["nodes"],
              "ir_per_node": round(ours / info["nodes"]), "ir_total": totals,
              "autograd_cy": info["autograd_cy"]}
    if floor:
        result["floor_ir_per_iteration"] = round(per_iteration(name, extra, env, "numpy")[0])
    return result


def table(results):
    columns = ("workload", "Ir per iteration", "Ir per node")
    rows = [(r["name"], f"{r['ir_per_iteration']:,}", f"{r['ir_per_node']:,}") for r in results]
    if all("floor_ir_per_iteration" in r for r in results):
        columns += ("NumPy floor Ir", "vs floor")
        rows = [row + (f"{r['floor_ir_per_iteration']:,}",
                       f"{r['ir_per_iteration'] / r['floor_ir_per_iteration']:.2f}x")
                for row, r in zip(rows, results)]
    widths = [max(len(row[i]) for row in rows + [columns]) for i in range(len(columns))]

    def line(cells):
        return "| " + " | ".join(c.rjust(w) if i else c.ljust(w)
                                 for i, (c, w) in enumerate(zip(cells, widths))) + " |"
    rule = "|" + "|".join("-" * (w + 2) if i == 0 else "-" * (w + 1) + ":"
                          for i, w in enumerate(widths)) + "|"
    return "\n".join([line(columns), rule] + [line(row) for row in rows])


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    for variable in THREAD_VARIABLES:
        os.environ[variable] = "1"
    if args.child:
        return child(args.child[0], int(args.child[1]), args.child[2])
    import benchmarks
    from benchmarks.workloads import all_workloads
    names = args.only or list(DEFAULT_WORKLOADS)
    known = [w.name for w in all_workloads()]
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise SystemExit(f"unknown workloads: {unknown}; known: {known}")
    if args.iterations < 1:
        raise SystemExit("--iterations must be at least 1")
    # The child runs this file by path: put the folder holding the ``benchmarks`` package found
    # here first on its path, so that it imports the same workloads and autograd_cy.
    root = os.path.dirname(os.path.dirname(os.path.abspath(benchmarks.__file__)))
    path = [root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), PYTHONHASHSEED="0")
    results = []
    for name in names:
        print(f"  {name}: {BASE} and {BASE + args.iterations} iterations under callgrind ...",
              file=sys.stderr, flush=True)
        results.append(measure(name, args.iterations, env, args.floor))
    print(f"autograd_cy from {results[0]['autograd_cy']}, Python {sys.version.split()[0]}, "
          f"Ir = instructions executed, (Ir({BASE + args.iterations}) - Ir({BASE})) / "
          f"{args.iterations}\n")
    print(table(results))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"python": sys.version.split()[0], "base": BASE,
                       "iterations": args.iterations, "results": results}, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
