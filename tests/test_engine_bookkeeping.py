"""The engine's per-node bookkeeping (pyx/engine.pyx NOTE [Dependencies on the node]).

Dependency counts and InputBuffers live on the nodes for the running task, with a
private fallback when tasks overlap; input metadata is built straight from the
array. These tests compare results with torch in the situations that exercise
those shortcuts: large dims, a backward started from inside a backward, a failed
backward re-run, and several threads over one retained graph.
"""
import numpy as np
import pytest

import autograd_cy as ag
from oracle import DEVICE_NAME, LIBS, run_threads, to_numpy


@pytest.mark.parametrize("n", [1, 256, 257, 5000, 100_000])
def test_metadata_of_large_dims(n):
    x = ag.ones(n, 3, requires_grad=True)
    y = x * x
    metadata, = y.grad_fn._input_metadata
    assert (metadata.shape, metadata.dtype, str(metadata.device)) == ((n, 3), ag.float32,
                                                                      DEVICE_NAME)
    y.sum().backward()
    np.testing.assert_array_equal(to_numpy(x.grad), np.full((n, 3), 2.0, np.float32))


def _values(lib):
    return np.arange(1.0, 7.0).reshape(2, 3)


def test_grad_of_a_subgraph_from_a_hook_of_the_running_backward():
    results = []
    for lib in LIBS:
        x = lib.tensor(_values(lib), requires_grad=True)
        a = x.exp()
        b = a * 3
        seen = []

        def hook(grad, a=a, x=x, seen=seen):
            # A second task over nodes the first one is still running (grad mode is
            # off inside backward, so the new root is recorded under enable_grad).
            with lib.enable_grad():
                total = a.sum()
            seen.append(to_numpy(lib.autograd.grad(total, x, retain_graph=True)[0]).copy())
        b.register_hook(hook)
        (b * b).sum().backward()
        results.append((seen[0], to_numpy(x.grad).copy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


def test_backward_that_failed_in_a_hook_can_run_again():
    results = []
    for lib in LIBS:
        x = lib.tensor(_values(lib), requires_grad=True)
        y = (x * 2).sin()
        handle = y.register_hook(lambda g: (_ for _ in ()).throw(KeyError("stop")))
        with pytest.raises(KeyError):
            y.sum().backward(retain_graph=True)
        handle.remove()
        y.sum().backward()
        results.append(to_numpy(x.grad).copy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)


def test_threads_running_grad_over_one_retained_graph():
    single_threaded = []
    for lib in LIBS:
        x = lib.tensor(_values(lib), requires_grad=True)
        w = lib.tensor(_values(lib) * 0.5, requires_grad=True)
        out = ((x * w).tanh() * x).sum()
        expected = [to_numpy(g).copy() for g in lib.autograd.grad(out, (x, w), retain_graph=True)]
        single_threaded.append(expected)
        runs = []

        def worker():
            for _ in range(50):
                grads = lib.autograd.grad(out, (x, w), retain_graph=True)
                for got, want in zip(grads, expected):
                    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-6,
                                               err_msg=lib.__name__)
                runs.append(1)
        # A worker's exception (a wrong value, or an error in grad) fails the test.
        run_threads(*[worker] * 4)
        assert len(runs) == 4 * 50, lib.__name__
    for ours, theirs in zip(*single_threaded):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)
