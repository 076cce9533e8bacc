"""The data-parallel benchmark: ``python -m benchmarks.distributed``.

The train_mlp step (a 784-256-256-10 ReLU MLP, cross-entropy, Adam, batch 64 per rank: weak
scaling) under DistributedDataParallel, at 1 and 2 ranks (``mpiexec -n``), with autograd_cy
on MPI and with torch's DDP on gloo, in the same run. It reports, per library and rank
count, the step's median time and the throughput (samples per second over all ranks), the
weak-scaling efficiency (throughput at N ranks against N times one rank's), and for
autograd_cy the bytes reduced per step against the gradients' size and the overlap: the share
of the communication hidden behind backward (time from the first bucket's launch to the end
of backward, against that plus the wait after it). ``--hook fp16`` reduces in float16;
``--device cuda`` puts each rank's model on its own GPU (rank r on this machine takes GPU
r modulo their number) and both libraries on NCCL.

Every rank runs one thread (OMP_NUM_THREADS=1, torch.set_num_threads(1)), so that two ranks
on two cores do not fight over them. On a 2-core machine two ranks share the cores with
everything else: the times say what they say of this machine; the bytes and the overlap are
what carries over to a cluster.

    python -m benchmarks.distributed [--steps 60] [--ranks 1 2] [--bucket-cap-mb 0.25]
                                     [--hook none|fp16|bf16] [--libs autograd_cy torch]
                                     [--device cpu|cuda]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

SIZES, BATCH, LR = (784, 256, 256, 10), 64, 1e-3
WARMUP = 5


# -- one rank (under mpiexec) ----------------------------------------------------------------

def _init(lib, device):
    if device == "cuda":  # a GPU a rank, by the rank on this machine
        local = int(os.environ.get("MPI_LOCALRANKID", os.environ.get("PMI_RANK", "0")))
        lib.cuda.set_device(local % lib.cuda.device_count())
    if lib.__name__ == "torch":
        os.environ.setdefault("RANK", os.environ.get("PMI_RANK", "0"))
        os.environ.setdefault("WORLD_SIZE", os.environ.get("PMI_SIZE", "1"))
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29531")
        lib.set_num_threads(1)
        import torch.distributed  # noqa: F401
        import torch.nn.parallel  # noqa: F401
    lib.distributed.init_process_group("nccl" if device == "cuda" else "gloo")


def _hook(lib, name):
    if name == "none":
        return None
    if lib.__name__ == "torch":
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    else:
        from autograd_cy.distributed.algorithms.ddp_comm_hooks import default_hooks
    return getattr(default_hooks, f"{name}_compress_hook")


def worker(lib_name, steps, bucket_cap_mb, hook_name, device):
    """Time ``steps`` DDP training steps on this rank; rank 0 prints a JSON line."""
    import importlib
    lib = importlib.import_module(lib_name)
    _init(lib, device)
    dist = lib.distributed
    rank = dist.get_rank()
    nn = lib.nn
    lib.manual_seed(0)
    layers = []
    for n_in, n_out in zip(SIZES[:-1], SIZES[1:]):
        layers += [nn.Linear(n_in, n_out), nn.ReLU()]
    model = nn.Sequential(*layers[:-1]).to(device)
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=bucket_cap_mb)
    hook = _hook(lib, hook_name)
    if hook is not None:
        ddp.register_comm_hook(None, hook)
    rng = np.random.default_rng(5 + rank)
    x = lib.tensor(rng.standard_normal((BATCH, SIZES[0])).astype(np.float32), device=device)
    y = lib.tensor(rng.integers(0, SIZES[-1], BATCH), device=device)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = lib.optim.Adam(ddp.parameters(), lr=LR)
    times, overlaps, sent, hidden, waits = [], [], [], [], []
    for step in range(WARMUP + steps):
        started = time.perf_counter()
        optimizer.zero_grad()
        loss_fn(ddp(x), y).backward()
        optimizer.step()
        if device == "cuda":
            lib.cuda.synchronize()
        if step >= WARMUP:
            times.append(time.perf_counter() - started)
            record = getattr(getattr(ddp, "reducer", None), "last_step", None)
            if record is not None and hasattr(record, "overlap"):
                overlaps.append(record.overlap)
                sent.append(record.bytes)
                hidden.append(record.backward_end - record.launches[0][3])
                waits.append(record.wait)
    gradient_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    buckets = len(ddp._get_ddp_logging_data().get("bucket_sizes", []) or []) if \
        hasattr(ddp, "_get_ddp_logging_data") else None
    if rank == 0:
        print(json.dumps({
            "lib": lib_name, "ranks": dist.get_world_size(), "median_s": statistics.median(times),
            "gradient_bytes": gradient_bytes, "buckets": buckets,
            "bytes_per_step": statistics.median(sent) if sent else None,
            "overlap": statistics.median(overlaps) if overlaps else None,
            "hidden_s": statistics.median(hidden) if hidden else None,
            "wait_s": statistics.median(waits) if waits else None}), flush=True)
    dist.barrier()
    if lib_name != "torch":  # torch's gloo group can abort in its destructor at exit
        dist.destroy_process_group()


# -- the driver --------------------------------------------------------------------------------

def run(lib, ranks, args):
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    command = [mpiexec, "-n", str(ranks), sys.executable, "-m", "benchmarks.distributed",
               "--worker", lib, "--steps", str(args.steps), "--bucket-cap-mb",
               str(args.bucket_cap_mb), "--hook", args.hook, "--device", args.device]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"{lib} on {ranks} ranks failed:\n{done.stdout}{done.stderr}")
    line = [s for s in done.stdout.splitlines() if s.startswith("{")][-1]
    return json.loads(line)


def report(results, args):
    by = {(r["lib"], r["ranks"]): r for r in results}
    lines = [f"DDP training step: MLP {'-'.join(map(str, SIZES))}, Adam, batch {BATCH} per "
             f"rank, bucket_cap_mb={args.bucket_cap_mb}, hook={args.hook}, {args.steps} "
             f"steps, one thread per rank, on {args.device} "
             f"({'nccl' if args.device == 'cuda' else 'autograd_cy: mpi, torch: gloo'})", "",
             "| library | ranks | step (median) | samples/s | weak scaling | bytes/step | "
             "overlap |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        one = by.get((r["lib"], 1))
        throughput = r["ranks"] * BATCH / r["median_s"]
        # N ranks' throughput against N times one rank's: one rank's step time over N's
        efficiency = (f"{one['median_s'] / r['median_s']:.2f}"
                      if one and r["ranks"] > 1 else "-")
        sent = (f"{r['bytes_per_step']:,.0f} ({r['bytes_per_step'] / r['gradient_bytes']:.2f}x"
                " of the gradients)" if r["bytes_per_step"] is not None and r["ranks"] > 1
                else "-")
        overlap = (f"{r['overlap']:.0%} ({r['hidden_s'] * 1e3:.2f} ms hidden, "
                   f"{r['wait_s'] * 1e3:.2f} ms waited)"
                   if r["overlap"] is not None and r["ranks"] > 1 else "-")
        lines.append(f"| {r['lib']} | {r['ranks']} | {r['median_s'] * 1e3:.2f} ms | "
                     f"{throughput:,.0f} | {efficiency} | {sent} | {overlap} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.distributed",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--libs", nargs="+", default=["autograd_cy", "torch"])
    parser.add_argument("--bucket-cap-mb", type=float, default=0.25)
    parser.add_argument("--hook", choices=["none", "fp16", "bf16"], default="none")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                        help="cuda: the model on each rank's GPU, NCCL for both libraries")
    parser.add_argument("--out", default=None, help="also write the JSON results here")
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.steps, args.bucket_cap_mb, args.hook, args.device)
        return
    results = []
    for lib in args.libs:
        for ranks in args.ranks:
            print(f"running {lib} on {ranks} rank(s)...", file=sys.stderr, flush=True)
            results.append(run(lib, ranks, args))
    print(report(results, args))
    if args.out:
        with open(args.out, "w") as out:
            json.dump({"args": vars(args), "results": results}, out, indent=1)


if __name__ == "__main__":
    main()
