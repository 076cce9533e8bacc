"""``python -m tests.fuzz --seed S --count N``: differential fuzzing against torch.

Runs the programs of seeds S .. S+N-1 on torch and autograd_cy in lock step, prints the
agreement rate and a table of difference classes with counts, then, for each class, the
program of its first seed shrunk to a minimal reproducer, as Python for both libraries.
"""
import argparse
import collections
import os
import sys
import time

from tests.fuzz import Difference, check_seed, minimal_reproducer
from tests.fuzz.generator import FAMILIES
from tests.fuzz.pool import Crash, run_all


def _check(seed):
    return check_seed(seed)


def _family(seed):
    """Which dtypes the program of ``seed`` draws: "real" (float32/float64), "complex",
    "bfloat16" or "float16"."""
    from tests.fuzz.generator import family_of
    return family_of(seed)


def _shrink(args):
    seed, budget = args
    try:
        return seed, minimal_reproducer(seed, budget)
    except Exception as exc:    # noqa: BLE001 - report it, keep the table
        return seed, (f"# shrinking failed: {exc!r}", None)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--count", type=int, default=1000, help="programs to run")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="worker processes (default: one per core)")
    parser.add_argument("--shrink-budget", type=float, default=20.0,
                        help="seconds to shrink each class's example (0: no shrinking)")
    parser.add_argument("--show", type=int, metavar="SEED",
                        help="print the program of SEED (unshrunk) and its outcome")
    parser.add_argument("--complex-share", type=float, default=0.0, metavar="P",
                        help="the share of seeds whose program uses complex tensors (default "
                             "0: the programs of every seed stay as they were)")
    parser.add_argument("--bfloat16-share", type=float, default=0.0, metavar="P",
                        help="the share of seeds whose program uses bfloat16 tensors "
                             "(default 0)")
    parser.add_argument("--half-share", type=float, default=0.0, metavar="P",
                        help="the share of seeds whose program uses float16 tensors "
                             "(default 0)")
    parser.add_argument("--known-differences", action="store_true",
                        help="print the KNOWN_DIFFERENCES dict of tests/test_fuzz.py for "
                             "these seeds instead of the report")
    args = parser.parse_args(argv)
    from tests.fuzz import generator
    if min(args.complex_share, args.bfloat16_share, args.half_share) < 0 or \
            args.complex_share + args.bfloat16_share + args.half_share > 1:
        parser.error("the shares must be at least 0 and add up to at most 1")
    generator.COMPLEX_SHARE = args.complex_share     # read by the forked workers too
    generator.BFLOAT16_SHARE = args.bfloat16_share
    generator.HALF_SHARE = args.half_share

    if args.show is not None:
        from tests.fuzz.generator import generate
        from tests.fuzz.program import render_program
        from tests.fuzz.runner import run_program
        program = generate(args.show)
        print(render_program(program), flush=True)
        print("#", run_program(program) or "agree")
        return 0

    seeds = range(args.seed, args.seed + args.count)
    start = time.monotonic()
    classes = collections.Counter()
    first_seed, details, per_seed = {}, {}, {}
    families = collections.Counter()            # programs by dtype family: (total, failing)
    family_classes = collections.Counter()      # (family, difference class) -> programs
    for done, (seed, result) in enumerate(run_all(_check, seeds, args.jobs), 1):
        # A worker that died on a seed leaves a Crash instead of its (program, difference).
        if isinstance(result, Crash):
            difference = Difference(-1, f"crash ({result!r}): run --show {seed}", "")
        else:
            difference = result[1]
        per_seed[seed] = difference
        family = _family(seed)
        families[family, "total"] += 1
        families[family, "failing"] += difference is not None
        if difference is not None:
            classes[difference.cls] += 1
            family_classes[family, difference.cls] += 1
            if seed < first_seed.get(difference.cls, seed + 1):
                first_seed[difference.cls] = seed
                details[difference.cls] = difference.detail
        if done % 1000 == 0:
            print(f"... {done} programs, {time.monotonic() - start:.0f} s", file=sys.stderr)
    run_time = time.monotonic() - start
    if args.known_differences:
        found = sorted((seed, d.cls) for seed, d in per_seed.items() if d is not None)
        print("KNOWN_DIFFERENCES = {")
        for seed, cls in found:
            print(f"    {seed}: {cls!r},")
        print("}")
        return 0
    shrunk = {}
    if args.shrink_budget > 0 and classes:
        jobs = [(first_seed[c], args.shrink_budget) for c in classes if "crash" not in c]
        for _, result in run_all(_shrink, jobs, args.jobs):
            if not isinstance(result, Crash):
                shrunk[result[0]] = result[1]
    total_time = time.monotonic() - start
    failing = sum(classes.values())
    agree = args.count - failing
    print(f"seeds {args.seed}..{args.seed + args.count - 1}: {agree}/{args.count} programs "
          f"agree with torch ({100.0 * agree / max(args.count, 1):.1f}%); "
          f"{run_time:.1f} s to run, {total_time:.1f} s with shrinking, {args.jobs} jobs")
    mixed = families["real", "total"] < args.count
    names = {"real": "float32/float64"}
    for family in FAMILIES:
        total = families[family, "total"]
        if total and mixed:
            good = total - families[family, "failing"]
            print(f"  {names.get(family, family):>15} programs: {good}/{total} agree "
                  f"({100.0 * good / total:.1f}%)")
    if not classes:
        return 0
    print(f"\n{len(classes)} difference classes:\n")
    print(f"{'count':>6}  {'first seed':>10}  class" + ("  (programs per family)" if mixed
                                                          else ""))
    for cls, count in classes.most_common():
        per_family = ", ".join(f"{f} {family_classes[f, cls]}" for f in FAMILIES
                               if family_classes[f, cls]) if mixed else ""
        print(f"{count:>6}  {first_seed[cls]:>10}  {cls}" +
              (f"  ({per_family})" if per_family else ""))
    for number, (cls, count) in enumerate(classes.most_common(), 1):
        seed = first_seed[cls]
        print(f"\n{'=' * 78}\n[{number}] {cls}  ({count} programs; seed {seed})")
        if seed in shrunk:
            code, difference = shrunk[seed]
            if difference is not None:
                print(f"# {difference.detail}".replace("\n", "\n# "))
            print(code)
        else:
            print(f"# {details[cls]}".replace("\n", "\n# "))
    return 1


if __name__ == "__main__":
    sys.exit(main())
