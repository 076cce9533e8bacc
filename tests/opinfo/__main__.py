"""``python -m tests.opinfo [--dtypes float64,complex128] [--ops add,mul] [--all]``: how
many of torch's OpInfo samples autograd_cy agrees on, and the differences."""
import argparse
import collections

from tests.opinfo import DTYPES, run


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dtypes", default=",".join(DTYPES))
    parser.add_argument("--ops", default="", help="OpInfo names, comma-separated")
    parser.add_argument("--samples", type=int, default=None, help="samples per op and dtype")
    parser.add_argument("--all", action="store_true",
                        help="every differing sample (default: the first per op, dtype, kind)")
    options = parser.parse_args()
    names = set(filter(None, options.ops.split(",")))
    results, missing = run(options.dtypes.split(","), names or None, options.samples)
    counts = collections.Counter((r.dtype, r.outcome) for r in results)
    for dtype in options.dtypes.split(","):
        row = {outcome: n for (d, outcome), n in counts.items() if d == dtype}
        compared = sum(n for outcome, n in row.items() if outcome != "torch error")
        print(f"{dtype:>10}: {row.get('ok', 0)} of {compared} samples agree  {row}")
    print(f"no op in autograd_cy for {len(missing)} OpInfos: {' '.join(sorted(missing))}")
    shown = set()
    for r in results:
        if r.outcome in ("ok", "torch error"):
            continue
        key = (r.op, r.dtype, r.outcome)
        if options.all or key not in shown:
            shown.add(key)
            print(f"{r.op} | {r.dtype} | sample {r.sample} | {r.outcome} | {r.message[:300]}")


if __name__ == "__main__":
    main()
