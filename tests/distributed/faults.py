"""A rank that fails, under ``mpiexec -n 2``: ``python faults.py MODE``. Rank 0 goes into
an all_reduce; rank 1, at the same step, does what MODE says. tests/test_distributed.py
checks that every rank fails (no hang) and what each one says."""
import os
import signal
import sys
import time

from ranks import ag, dist, start

mode = sys.argv[1]
rank, size = start(timeout_s=float(sys.argv[2]) if len(sys.argv) > 2 else 60)
t = ag.ones(3)
dist.all_reduce(t)  # a first step that works
if rank == 1:
    if mode == "raise":
        raise ValueError("rank 1's data loader broke")
    if mode == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == "stall":
        time.sleep(3)  # then it joins, late: rank 0 has given up by then
    if mode == "mismatch":
        t = ag.ones(5)
dist.all_reduce(t)
print(f"rank {rank} finished the step", flush=True)
