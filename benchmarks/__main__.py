"""``python -m benchmarks``: autograd overhead of autograd_cy vs PyTorch vs a NumPy floor.

Thread counts must be pinned before NumPy or PyTorch is imported (their pools read
the environment once), so this entry point sets them first and imports the
harness afterwards.
"""
import argparse
import os
import sys


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--only", nargs="*", default=None,
                        help="workload names to run (default: the headline workloads)")
    parser.add_argument("--full", action="store_true",
                        help="every workload: depth to 100,000, the functional, checkpoint, "
                             "profiler, forward-AD and anomaly variants (make bench-full)")
    parser.add_argument("--repeat", type=int, default=20,
                        help="timed rounds per workload (at least 20 for the table)")
    parser.add_argument("--script", default=None, metavar="MY_STEP.PY",
                        help="time your own step instead: the file defines setup(torch), "
                             "run with torch and with autograd_cy (benchmarks/README.md)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads for every library (OpenMP, OpenBLAS, MKL, torch)")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results"),
                        help="folder for the JSON, markdown, PNG and log of the run")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                     "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
        os.environ[variable] = str(args.threads)
    if args.device == "cuda":
        from benchmarks.device import run_device_report
        return run_device_report(args)
    from benchmarks.harness import run_suite
    return run_suite(args)


if __name__ == "__main__":
    sys.exit(main())
