"""The trace of one DDP backward on 2 ranks, for docs/internals.md's section on data
parallelism: ``mpiexec -n 2 python docs/ddp_trace.py`` (rank 0 prints). The engine's steps
(trace_backward) with, after the hook that completed each bucket, the bucket's allreduce
starting; then the final callback."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import autograd_cy as ag  # noqa: E402
import autograd_cy.distributed as dist  # noqa: E402
from autograd_cy.nn.parallel import DistributedDataParallel as DDP  # noqa: E402


def main():
    dist.init_process_group("mpi")
    ag.manual_seed(0)
    model = ag.nn.Sequential(ag.nn.Linear(4, 8), ag.nn.Tanh(), ag.nn.Linear(8, 8),
                             ag.nn.Tanh(), ag.nn.Linear(8, 2))
    # a bucket a layer: the cap is the last Linear(8, 2)'s weight and bias, 72 bytes
    ddp = DDP(model, bucket_cap_mb=72 / 2**20)
    x = ag.ones(3, 4) * (dist.get_rank() + 1)
    ddp(x).sum().backward()  # the first step, after which the buckets are rebuilt
    model.zero_grad()
    names = {f"{name}": p for name, p in model.named_parameters()}
    trace = ag.autograd.trace_backward(ddp(x).sum(), names=names)
    launches = {ready: (index, size) for index, size, ready, _ in
                ddp.reducer.last_step.launches}
    lines = trace.table(kinds=("pop", "accumulate", "hook")).splitlines()
    out, hooks = [lines[0]], 0
    for line in lines[1:-1]:
        out.append(line)
        if "post accumulate grad hook" in line:
            hooks += 1
            if hooks in launches:
                index, size = launches[hooks]
                out.append(f"{'':>4}  -> bucket {index} ({size} bytes) full: its allreduce "
                           "starts, backward goes on")
    out.append(f"{'':>4}  final callback: waits for the {len(launches)} allreduces, writes "
               "the averages into .grad")
    if dist.get_rank() == 0:
        print("\n".join(out))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
