"""Core autograd behaviours checked against torch 2.13: concurrent accumulation, in-place
ops whose backward ignores the old value, in-place ops on views, and API corners.

Each test runs the same code on autograd_cy and on torch (``lib``) and compares."""
import threading

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_close, to_numpy

LIBS = [pytest.param(ag, id="ours"), pytest.param(torch, id="torch")]


def both(fn):
    """``fn(lib)`` on both libraries; the results must match (values, None-ness)."""
    ours, theirs = fn(ag), fn(torch)
    assert_close(ours, theirs)
    return ours, theirs


def raises_like(fn, *words):
    """``fn(lib)`` raises on both libraries, with the same exception type and ``words``."""
    errors = []
    for lib in (ag, torch):
        with pytest.raises(Exception) as info:
            fn(lib)
        errors.append(info.value)
    ours, theirs = errors
    assert type(ours) is type(theirs), (ours, theirs)
    for word in words:
        assert word in str(theirs), (word, theirs)
        assert word in str(ours), (word, ours)


# ------------------------------------------------------------ concurrent accumulation

@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("fresh_grad", [True, False])
def test_threads_accumulating_into_one_leaf_lose_no_update(lib, fresh_grad):
    # Eight threads backpropagate into one 512x512 parameter at once; NumPy releases the GIL
    # inside large in-place adds, so accumulation must be serialised per leaf.
    threads, steps, rounds = 8, 5, 4
    p = lib.zeros(512, 512, requires_grad=True)
    for _ in range(rounds):
        if fresh_grad:
            p.grad = None               # the race for the first gradient, too
        errors = []
        barrier = threading.Barrier(threads)

        def work(seed):
            try:
                y = (p * float(seed + 1)).sum()
                barrier.wait()
                for _ in range(steps):
                    y.backward(retain_graph=True)
            except BaseException as error:      # noqa: BLE001 - reported below
                errors.append(error)

        workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert not errors, errors
        expected = steps * sum(range(1, threads + 1))
        if not fresh_grad:
            expected *= _ + 1
        grad = to_numpy(p.grad)
        assert grad.min() == grad.max() == expected
