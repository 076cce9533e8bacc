"""autograd_cy.multiprocessing against torch.multiprocessing: share_memory_ / is_shared,
Module.share_memory, a tensor sent to a child process (spawn, fork, a Queue) sharing its
memory with the parent (Hogwild: the child's optimizer steps reach the parent's model),
spawn and its errors."""
import functools
import pickle

import numpy as np
import pytest
import torch

import autograd_cy as ag
import mp_workers
from oracle import assert_same, assert_same_error

pytestmark = pytest.mark.cpu_only        # shared memory is the CPU's; a CUDA tensor's is a no-op

LIBS = {"autograd_cy": ag, "torch": torch}


def test_share_memory_keeps_the_values_and_marks_the_tensor_shared():
    def run(lib):
        x = lib.arange(6.0).view(2, 3)
        before = x.is_shared()
        y = x.share_memory_()
        return before, y is x, x.is_shared(), x.tolist(), x.share_memory_().is_shared()
    assert_same(run)


def test_module_share_memory_shares_parameters_and_buffers():
    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2))
        params = [p.clone() for p in model.parameters()]
        returned = model.share_memory()
        out = model(lib.ones(4, 3)).sum()
        out.backward()
        return (returned is model, [p.is_shared() for p in model.parameters()],
                [b.is_shared() for b in model.buffers()],
                all(lib.equal(a, b) for a, b in zip(params, model.parameters())),
                type(model[0].weight).__name__)
    assert_same(run)


def _hogwild(lib, method):
    lib.manual_seed(0)
    model = lib.nn.Linear(2, 1)
    model.share_memory()
    context = lib.multiprocessing.get_context(method)
    child = context.Process(target=mp_workers.train_steps, args=(lib.__name__, model, 3))
    child.start()
    child.join()
    return child.exitcode, model.weight.tolist(), model.bias.tolist(), \
        model.weight.requires_grad


@functools.lru_cache(maxsize=None)
def _torch_hogwild():
    # spawned: torch refuses backward in a child forked after the parent ran its threaded
    # autograd engine, which the other tests of a session have done
    return _hogwild(torch, "spawn")


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_a_child_process_trains_the_parents_shared_model(method):
    """mnist_hogwild: the parent's model changes by the child's SGD steps."""
    ours, theirs = _hogwild(ag, method), _torch_hogwild()
    assert ours[0] == theirs[0] == 0
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-6)
    assert ours[3] is theirs[3] is True
    lib = ag
    lib.manual_seed(0)
    assert lib.nn.Linear(2, 1).weight.tolist() != ours[1]      # it did train


def test_a_tensor_sent_through_a_queue_is_moved_to_shared_memory():
    def run(lib):
        context = lib.multiprocessing.get_context("fork")
        queue, done = context.Queue(), context.Queue()
        x = lib.zeros(3)
        child = context.Process(target=mp_workers.add_one, args=(queue, done))
        child.start()
        queue.put(x)
        shared_in_child = done.get(timeout=60)
        child.join()
        return x.is_shared(), shared_in_child, x.tolist()
    assert_same(run)


def test_start_processes_raises_a_childs_exception_in_the_parent():
    for lib in (ag, torch):
        with pytest.raises(lib.multiprocessing.ProcessRaisedException) as caught:
            lib.multiprocessing.start_processes(mp_workers.fail, args=("bad input",), nprocs=2,
                                                start_method="fork")
        assert "Process 1 terminated with the following error" in str(caught.value)
        assert "ValueError: bad input" in str(caught.value)
        assert caught.value.error_index == 1


def test_spawn_with_another_start_method_warns_and_spawns():
    from oracle import same_warning
    assert same_warning(lambda lib: lib.multiprocessing.spawn(mp_workers.fail, nprocs=0,
                                                              start_method="fork"),
                        FutureWarning, "only supports start_method=spawn") == (None, None)


def test_a_non_leaf_that_requires_grad_is_not_sent():
    from multiprocessing.reduction import ForkingPickler
    assert_same_error(
        lambda lib: ForkingPickler.dumps(lib.ones(2, requires_grad=True) * 2),
        RuntimeError, "Cowardly refusing to serialize non-leaf tensor which requires_grad")


def test_plain_pickling_still_copies():
    x = ag.ones(2).share_memory_()
    y = pickle.loads(pickle.dumps(x))
    y.add_(1)
    assert x.tolist() == [1.0, 1.0] and not y.is_shared()


def test_sharing_strategies():
    assert_same(lambda lib: (lib.multiprocessing.get_sharing_strategy(),
                             sorted(lib.multiprocessing.get_all_sharing_strategies())[:1]))
