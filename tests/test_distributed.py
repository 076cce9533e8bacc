"""autograd_cy.distributed and DistributedDataParallel. The collectives and DDP run under
``mpiexec -n 2`` (the scripts of tests/distributed, each checking its results against NumPy
or a single process and exiting 0); the failure tests check that every rank fails, within
the timeout and naming the failed rank; what needs no second process runs here, against
torch where torch has the same function."""
import os
import subprocess
import sys

import pytest
import torch

import autograd_cy as ag
import autograd_cy.distributed as dist
from autograd_cy.nn.parallel.buckets import compute_bucket_assignment_by_size
from autograd_cy.distributed.run import mpiexec_command

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "distributed")


#: the failure tests' bound: a rank that hangs instead of failing makes subprocess.run raise
#: TimeoutExpired, which fails the test (the scripts' process groups time out after 60 s)
NO_HANG = 90


def run_ranks(script, *args, nproc=2, helper=False, timeout=120, env=None):
    """Run a script of tests/distributed on ``nproc`` ranks (through the run helper when
    ``helper``), with ``env`` added to the environment; (exit code, output). A run longer
    than ``timeout`` seconds raises ``subprocess.TimeoutExpired``."""
    program = [os.path.join(SCRIPTS, script)] + list(args)
    command = (mpiexec_command(nproc, program) if helper
               else [os.path.join(os.path.dirname(sys.executable), "mpiexec"), "-n",
                     str(nproc), sys.executable] + program)
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, **(env or {})))
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("script", ["collectives.py", "ddp_training.py", "ddp_features.py"])
def test_on_two_ranks(script):
    code, output = run_ranks(script)
    assert code == 0, output
    assert "rank 0 passed" in output and "rank 1 passed" in output, output


NCCL_ON_THE_EMULATED_DEVICE = {"AUTOGRAD_CY_CUDA": "emulate", "AUTOGRAD_CY_TEST_DEVICE": "cuda",
                               "AUTOGRAD_CY_TEST_BACKEND": "nccl"}


@pytest.mark.cpu_only     # the scripts put their tensors on the (emulated) device themselves
@pytest.mark.parametrize("script", ["collectives.py", "ddp_training.py", "ddp_features.py",
                                    "nccl_streams.py"])
def test_nccl_on_two_ranks(script):
    """The same scripts on the nccl backend (CuPy's NCCL stood in for by
    autograd_cy/distributed/emulated_nccl.py), and what only NCCL does: its side stream."""
    code, output = run_ranks(script, env=NCCL_ON_THE_EMULATED_DEVICE)
    assert code == 0, output
    assert "rank 0 passed" in output and "rank 1 passed" in output, output


@pytest.mark.cpu_only
def test_a_rank_that_raises_fails_the_others():
    code, output = run_ranks("faults.py", "raise", timeout=NO_HANG)
    assert code != 0
    assert "ValueError: rank 1's data loader broke" in output
    assert "rank 1 failed: ValueError: rank 1's data loader broke" in output, output
    assert "finished the step" not in output


@pytest.mark.cpu_only
def test_a_rank_that_dies_fails_the_others():
    # through the run helper, whose guard keeps MPICH from killing rank 0 at once
    code, output = run_ranks("faults.py", "die", helper=True, timeout=NO_HANG)
    assert code != 0
    assert "rank 1 died (its process" in output, output
    # plain mpiexec kills the others: a failure too, not a hang
    code, output = run_ranks("faults.py", "die", timeout=NO_HANG)
    assert code != 0 and "finished the step" not in output


@pytest.mark.cpu_only
def test_a_rank_that_does_not_join_times_out_naming_it():
    code, output = run_ranks("faults.py", "stall", "1", timeout=NO_HANG)
    assert code != 0
    assert "Timed out after 1 s on rank 0 waiting in all_reduce" in output, output
    assert "rank 1 did not answer" in output
    # rank 1, joining late, learns that rank 0 gave up
    assert "rank 0 failed: DistBackendError: Timed out" in output


@pytest.mark.cpu_only
def test_mismatched_sizes_fail_on_every_rank():
    code, output = run_ranks("faults.py", "mismatch", timeout=NO_HANG)
    assert code != 0
    message = ("Detected mismatch between collectives on ranks: rank 0 is running "
               "collective: all_reduce (#2) with RedOpType.SUM of 3 float32 elements, rank 1 "
               "is running collective: all_reduce (#2) with RedOpType.SUM of 5 float32 "
               "elements")
    assert output.count(message) >= 2, output


# -- in this process: no process group needed ---------------------------------------------

@pytest.mark.cpu_only
def test_without_a_process_group_as_torch():
    assert dist.is_available() and not dist.is_initialized()
    for name in ["get_rank", "get_world_size", "barrier"]:
        with pytest.raises(ValueError) as ours:
            getattr(dist, name)()
        with pytest.raises(ValueError) as theirs:
            getattr(torch.distributed, name)()
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError, match="has not been initialized"):
        dist.all_reduce(ag.ones(2))


@pytest.mark.cpu_only
def test_names_as_torch():
    tdist = torch.distributed
    for name in ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"]:
        ours, theirs = getattr(dist.ReduceOp, name), getattr(tdist.ReduceOp, name)
        assert (repr(ours), str(ours)) == (repr(theirs), str(theirs))
    for name in ["mpi", "MPI", "gloo", "nccl", "NCCL", "other"]:
        assert dist.Backend(name) == tdist.Backend(name)
    assert dist.default_pg_timeout == tdist.default_pg_timeout
    assert issubclass(dist.DistBackendError, RuntimeError)


@pytest.mark.cpu_only
@pytest.mark.parametrize("limits", [[1024 * 1024, 25 * 1024 * 1024], [100, 400], [64]])
def test_bucket_assignment_as_torch(limits):
    shapes = [(5,), (7, 3), (2,), (20, 4), (3,), (9,), (1,), (16, 16)]
    dtypes = [torch.float32, torch.float32, torch.float64, torch.float32, torch.float64,
              torch.float32, torch.float32, torch.float32]
    theirs_params = [torch.zeros(s, dtype=d) for s, d in zip(shapes, dtypes)]
    ours_params = [ag.zeros(s, dtype=getattr(ag, str(d).split(".")[1]))
                   for s, d in zip(shapes, dtypes)]
    theirs, _ = torch.distributed._compute_bucket_assignment_by_size(
        theirs_params, limits, [False] * len(shapes))
    assert compute_bucket_assignment_by_size(ours_params, limits) == theirs


@pytest.mark.cpu_only
def test_distributed_sampler_as_torch():
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    from autograd_cy.utils.data import DistributedSampler
    for n, replicas, drop_last, shuffle in [(10, 3, False, True), (10, 3, True, True),
                                            (2, 5, False, True), (7, 2, False, False)]:
        for rank in range(replicas):
            ours = DistributedSampler(range(n), replicas, rank, shuffle, 5, drop_last)
            theirs = TorchSampler(range(n), replicas, rank, shuffle, 5, drop_last)
            for epoch in (0, 3):
                ours.set_epoch(epoch)
                theirs.set_epoch(epoch)
                assert list(ours) == list(theirs) and len(ours) == len(theirs)
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval"):
        DistributedSampler(range(4), 3, 3)


@pytest.mark.cpu_only
def test_run_helper_command():
    command = mpiexec_command(4, ["train.py", "--lr", "0.1"], hostfile="hosts")
    assert command[1:3] == ["-n", "4"]
    assert command[-6:] == [sys.executable, "-m", "autograd_cy.distributed.guard", "train.py",
                            "--lr", "0.1"]
    assert command[command.index("-f") + 1] == "hosts"


@pytest.mark.cpu_only
def test_the_benchmark_reports_bytes_and_overlap(capsys):
    from benchmarks import distributed as benchmark
    benchmark.main(["--steps", "3", "--libs", "autograd_cy"])
    table = capsys.readouterr().out
    rows = [line for line in table.splitlines() if line.startswith("| autograd_cy |")]
    assert len(rows) == 2
    assert "1,077,288 (1.00x of the gradients)" in rows[1] and "% (" in rows[1]


@pytest.mark.cpu_only
def test_the_guard_sets_torchruns_variables():
    from autograd_cy.distributed.guard import torchrun_environment
    mpich = {"PMI_RANK": "3", "PMI_SIZE": "4", "MPI_LOCALRANKID": "1", "MPI_LOCALNRANKS": "2"}
    assert torchrun_environment(mpich) == {"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "1",
                                           "LOCAL_WORLD_SIZE": "2"}
    open_mpi = {"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2", "RANK": "7"}
    assert torchrun_environment(open_mpi) == {"WORLD_SIZE": "2"}     # RANK already set: kept
