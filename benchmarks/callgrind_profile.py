"""``python -m benchmarks.callgrind_profile NAME``: where one iteration's instructions go.

``benchmarks/callgrind.py`` counts the instructions of one iteration of a workload; this
splits them by function. The workload runs twice under ``valgrind --tool=callgrind`` (with
``BASE`` and ``BASE + N`` iterations, exactly as callgrind.py runs it), every function's
cost is read from both output files, and the difference over N is its cost in one
iteration: start-up, imports and setup cancel out.

Two costs per function, as callgrind defines them:

- **self**: instructions executed in the function's own code;
- **inclusive**: self plus everything it called (a recursive function, such as a Node's
  deallocation freeing the next Node, counts its recursion more than once, so inclusive
  costs of those do not add up).

It prints the self cost by shared object (the interpreter, NumPy, each autograd_cy
module), the functions with the largest self cost, and the autograd_cy functions with the
largest inclusive cost: the entry points of the mechanisms (an op's forward, recording, the
engine, a formula, deallocation). benchmarks/NOTES.md reads its tables.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

from benchmarks.callgrind import BASE, THREAD_VARIABLES


def parse(path):
    """Self and inclusive instructions per function of one callgrind output file, and the
    shared object each function lives in.

    The format: ``ob=`` / ``fn=`` lines open a function, numeric lines are costs of its own
    code (position, then Ir), and a ``calls=`` line says that the next numeric line is the
    inclusive cost of a call to the function named by the last ``cfn=``. Names may be
    compressed as ``(id) name`` on first use and ``(id)`` afterwards."""
    names = {}
    self_cost = collections.Counter()
    call_cost = collections.Counter()
    object_of = {}
    current = callee = obj = None
    in_call = False

    def name(kind, text):
        match = re.match(r"\((\d+)\)(?: (.*))?$", text)
        if not match:
            return text
        if match.group(2) is not None:
            names[kind, match.group(1)] = match.group(2)
        return names.get((kind, match.group(1)), text)

    with open(path) as handle:
        for line in handle:
            first = line[:1]
            if first.isdigit() or first in "+-*":
                fields = line.split()
                if len(fields) < 2:
                    continue
                cost = int(fields[1])
                if in_call:
                    if callee != current:          # a recursive call is already counted
                        call_cost[current] += cost
                    in_call = False
                else:
                    self_cost[current] += cost
            elif line.startswith("fn="):
                current = name("fn", line[3:].rstrip("\n"))
                object_of.setdefault(current, obj)
            elif line.startswith("ob="):
                obj = name("ob", line[3:].rstrip("\n"))
            elif line.startswith("cfn="):
                callee = name("fn", line[4:].rstrip("\n"))
            elif line.startswith("calls="):
                in_call = True
    inclusive = {fn: self_cost[fn] + call_cost[fn] for fn in set(self_cost) | set(call_cost)}
    return self_cost, inclusive, object_of


def per_iteration(shorter, longer, extra):
    """Each function's self and inclusive cost in one iteration (the two runs' difference)."""
    self_a, inclusive_a, objects = parse(shorter)
    self_b, inclusive_b, objects_b = parse(longer)
    objects.update(objects_b)
    self_cost = {fn: (self_b.get(fn, 0) - self_a.get(fn, 0)) / extra
                 for fn in set(self_a) | set(self_b)}
    inclusive = {fn: (inclusive_b.get(fn, 0) - inclusive_a.get(fn, 0)) / extra
                 for fn in set(inclusive_a) | set(inclusive_b)}
    return self_cost, inclusive, objects


def readable(function):
    """``__pyx_f_11autograd_cy_2_C_6engine_call_function`` -> ``engine.call_function``.

    Cython names a C function after its module and class, each prefixed by its length."""
    match = re.match(r"__pyx_(?:fuse_\d+__pyx_)?(\w+?)_11autograd_cy_2_C_(?:3ops_)?(\d.*)$",
                     function)
    if not match:
        return function
    kind, rest = match.groups()
    parts = []
    while rest[:1].isdigit():
        digits = re.match(r"\d+", rest).group()
        end = len(digits) + int(digits)
        if end < len(rest) and rest[end] != "_":
            rest = rest[len(digits):]       # a Python wrapper's index, not a length
            break
        parts.append(rest[len(digits):end])
        rest = rest[end:].lstrip("_")
    if rest:
        parts.append(rest)
    suffix = "" if kind in ("f", "pw", "pf") else f" ({kind})"
    return ".".join(parts) + suffix


def run(name, extra, impl, folder, env):
    """Two valgrind runs of ``name``; the paths of their output files."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "callgrind.py")
    paths = []
    for iterations in (BASE, BASE + extra):
        out = os.path.join(folder, f"{name}.{iterations}.out")
        command = ["valgrind", "--tool=callgrind", "--quiet", "--compress-strings=no",
                   f"--callgrind-out-file={out}", sys.executable, script, "--child", name,
                   str(iterations), impl]
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{name}: valgrind failed ({done.returncode}):\n{done.stderr}")
        paths.append(out)
    return paths


def report(self_cost, inclusive, objects, top):
    total = sum(self_cost.values())
    lines = [f"Ir per iteration: {total:,.0f}", "", "Self cost by shared object:", "",
             "| object | Ir | share |", "|---|---:|---:|"]
    by_object = collections.Counter()
    for function, cost in self_cost.items():
        by_object[os.path.basename(objects.get(function) or "?")] += cost
    for obj, cost in by_object.most_common(top):
        lines.append(f"| {obj} | {cost:,.0f} | {cost / total:.1%} |")
    lines += ["", "Largest self cost:", "", "| function | Ir | share |", "|---|---:|---:|"]
    for function, cost in sorted(self_cost.items(), key=lambda item: -item[1])[:top]:
        lines.append(f"| {readable(function)[:90]} | {cost:,.0f} | {cost / total:.1%} |")
    lines += ["", "Largest inclusive cost among autograd_cy's functions:", "",
              "| function | Ir | share |", "|---|---:|---:|"]
    ours = [(fn, cost) for fn, cost in inclusive.items() if "autograd_cy" in fn
            and not fn.endswith("'2")]
    for function, cost in sorted(ours, key=lambda item: -item[1])[:top]:
        lines.append(f"| {readable(function)[:90]} | {cost:,.0f} | {cost / total:.1%} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.callgrind_profile",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", help="a workload of benchmarks/workloads.py")
    parser.add_argument("--iterations", type=int, default=10, help="N (see callgrind.py)")
    parser.add_argument("--impl", default="autograd_cy", choices=("autograd_cy", "numpy"))
    parser.add_argument("--top", type=int, default=25, help="rows per table")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    import benchmarks
    root = os.path.dirname(os.path.dirname(os.path.abspath(benchmarks.__file__)))
    path = [root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), PYTHONHASHSEED="0",
               **{variable: "1" for variable in THREAD_VARIABLES})
    with tempfile.TemporaryDirectory(prefix="callgrind-profile-") as folder:
        shorter, longer = run(args.name, args.iterations, args.impl, folder, env)
        print(report(*per_iteration(shorter, longer, args.iterations), args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
