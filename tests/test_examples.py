"""The examples run the same under both libraries: each trains for a few steps with
``import autograd_cy as torch`` and with torch, from the same seed (so the same initial
weights and data order), and the losses agree step by step (1e-5 relative in float64, 1e-3
in float32)."""
import os
import sys

import numpy as np
import pytest
import torch

import autograd_cy as ag

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "examples")
sys.path.insert(0, EXAMPLES)

pytestmark = pytest.mark.cpu_only       # the examples make their own tensors on the CPU


def example(name):
    import importlib
    return importlib.import_module(name)


@pytest.mark.parametrize("dtype, rtol", [("float64", 1e-5), ("float32", 1e-3)])
@pytest.mark.parametrize("name, steps", [("mlp_digits", 6), ("cnn_digits", 10),
                                         ("char_transformer", 3)])
def test_training_losses_agree_step_by_step(name, steps, dtype, rtol):
    module = example(name)
    ours, _ = module.train(ag, steps=steps, dtype=dtype, log=lambda line: None)
    theirs, _ = module.train(torch, steps=steps, dtype=dtype, log=lambda line: None)
    assert len(ours) == len(theirs) == steps
    np.testing.assert_allclose(ours, theirs, rtol=rtol)
    assert ours[-1] < ours[0]          # it learns


def test_per_sample_gradients_agree_with_torch_and_with_a_loop():
    module = example("per_sample_grads")
    ours, our_difference = module.run(ag, batch=16, dtype="float64")
    theirs, their_difference = module.run(torch, batch=16, dtype="float64")
    assert our_difference < 1e-10 and their_difference < 1e-10
    for name in theirs:
        np.testing.assert_allclose(ours[name].numpy(), theirs[name].numpy(), rtol=1e-7,
                                   atol=1e-10)


@pytest.mark.skipif(not ag.cuda.is_available(), reason="needs a (possibly emulated) device")
@pytest.mark.parametrize("name, steps", [("mlp_digits", 3), ("cnn_digits", 2),
                                         ("char_transformer", 2)])
def test_examples_train_on_the_device(name, steps):
    """Every layer, loss and optimizer of the examples on a CUDA device (emulated without a
    GPU): the same losses as on the CPU."""
    module = example(name)
    on_cpu, _ = module.train(ag, steps=steps, log=lambda line: None)
    on_device, _ = module.train(ag, steps=steps, log=lambda line: None, device="cuda")
    np.testing.assert_allclose(on_device, on_cpu, rtol=1e-4)


def test_data_parallel_example_agrees_with_torch_ddp():
    """examples/mlp_digits_ddp.py on 2 ranks (mpiexec): autograd_cy's DDP and torch's (gloo)
    print the same losses, which are also those of one autograd_cy process with the whole
    batches."""
    import subprocess
    script = os.path.join(EXAMPLES, "mlp_digits_ddp.py")
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")

    def losses(lib, nproc):
        command = ([mpiexec, "-n", str(nproc)] if nproc > 1 else []) + \
            [sys.executable, script, "--lib", lib, "--steps", "6"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
        # torch's gloo process group now and then aborts as its process exits, after the
        # losses are printed ("terminate called without an active exception": a thread of
        # gloo's outlives destroy_process_group; seen in three full suite runs, never
        # alone). Only that abort, and only of the oracle's run, is let through; the
        # losses' line (rank 0's, the first) is still compared in full.
        teardown = (lib == "torch" and done.returncode != 0
                    and "terminate called without an active exception" in done.stderr)
        assert done.returncode == 0 or teardown, (
            f"{lib} on {nproc} process(es) exited with {done.returncode}:\n"
            f"{done.stdout}{done.stderr}")
        return [float(v) for v in done.stdout.splitlines()[0].split()]
    ours = losses("autograd_cy", 2)
    np.testing.assert_allclose(ours, losses("torch", 2), rtol=1e-5)
    np.testing.assert_allclose(ours, losses("autograd_cy", 1), rtol=1e-5)
    assert len(ours) == 6 and ours[-1] < ours[0]
