"""A differential fuzzer: random autograd programs run on torch and autograd_cy in lock step.

- ``generator``: seeded random programs (leaves, 5-40 ops, then backward / autograd.grad /
  double backward), as data (``program``: a list of op records);
- ``runner``: executes one program on both libraries and returns the first difference;
- ``shrinker``: reduces a failing program to a minimal one with the same difference class;
- ``python -m tests.fuzz --seed S --count N`` (``make fuzz N=...``): the report;
- ``vocabulary``: the wider op families (activations, losses, normalisations, scans,
  sorts, scatters, linalg, pad/einsum, blends, in-place ops on views, norms).

Seed ranges already used (pick fresh ones, so that a run finds what the earlier ones could
not): 0-300 (tests/test_fuzz.py's SEEDS), 410M-416M, 520680000, 607453000, 731M, 733M,
29384000-29388999, 845000000-845004999, 846000000-846004999, 847000000-847004999,
909845000-909849999; with the op vocabulary before ``vocabulary``: 951000000-951004999
(plain) and 962000000-962004999 (``--complex-share .25 --bfloat16-share .2 --half-share
.2``); with it: 953000000-953001999 (plain, rerun after each fix), 954000000-954004999
and 955000000-955002999 (plain), 963000000-963004999 and 964000000-964002999 (the same
dtype shares); tests/test_fuzz.py's seeds 0-299 run with it too. Later, with the dtype
shares: 981003000-981005999, 985000000-985004999, 987500000-987504999,
988000000-988014999, 989100000-989104999, 990500000-990504999, 991000000-991009999 and
993000000-993009999; plain:
986000000-986004999, 987000000-987004999, 989000000-989004999, 990000000-990004999,
991500000-991504999 and 993500000-993504999; on the emulated CUDA device (the dtype shares):
992000000-992000299, 992100000-992102999, 992200000-992202999 and 994000000-994002999.
"""
from tests.fuzz.generator import generate
from tests.fuzz.program import render_program
from tests.fuzz.runner import Difference, run_program
from tests.fuzz.shrinker import shown_slots, shrink

__all__ = ["generate", "run_program", "shrink", "render_program", "check_seed",
           "minimal_reproducer", "Difference"]


def check_seed(seed):
    """(seed, the first Difference of the program of ``seed`` or None)."""
    try:
        return seed, run_program(generate(seed))
    except Exception as exc:    # noqa: BLE001 - a crash of the comparison itself
        return seed, Difference(-1, f"fuzzer crashed: {type(exc).__name__}", repr(exc))


def minimal_reproducer(seed, budget_s=20.0):
    """(Python code of the shrunk program of ``seed``, its Difference)."""
    program = generate(seed)
    difference = run_program(program)
    if difference is None:
        return "# agrees", None
    small, found = shrink(program, difference, budget_s=budget_s)
    return render_program(small, show=shown_slots(small, found)), found
