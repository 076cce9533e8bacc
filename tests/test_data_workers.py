"""DataLoader with worker processes (num_workers > 0) against torch's, run side by side with
the same seeds: batches and their order, IterableDataset sharding by get_worker_info,
worker_init_fn and WorkerInfo, the workers' random streams, errors raised in a worker,
timeout, a dead worker, persistent workers, and no worker left alive after an early break.
Both libraries start their workers with the default context (fork on Linux), so the
datasets may be local classes."""
import multiprocessing
import os
import random
import signal
import time

import numpy as np
import autograd_cy as ag
import pytest

from oracle import assert_same_error, both

pytestmark = pytest.mark.cpu_only       # the CPU generators' numbers decide the order


def plain(batches):
    """Batches as nested lists of Python numbers (tensors through ``tolist``)."""
    def convert(value):
        if hasattr(value, "tolist"):
            return value.tolist()
        if isinstance(value, (list, tuple)):
            return [convert(v) for v in value]
        return value
    return [convert(batch) for batch in batches]


def pairs(lib, n=10):
    return lib.utils.data.TensorDataset(lib.arange(float(2 * n)).reshape(n, 2), lib.arange(n))


def ranged(lib, start, end, shard):
    """An IterableDataset over ``range(start, end)``; with ``shard``, each worker reads its
    contiguous part, as in torch's documentation of IterableDataset."""
    class Range(lib.utils.data.IterableDataset):
        def __iter__(self):
            info = lib.utils.data.get_worker_info()
            if not shard or info is None:
                return iter(range(start, end))
            per_worker = -(-(end - start) // info.num_workers)
            first = start + info.id * per_worker
            return iter(range(first, min(first + per_worker, end)))
    return Range()


def test_shuffled_batches_match_torch():
    """A seeded shuffle over two epochs; the tensors come back through the queues."""
    def run(lib):
        lib.manual_seed(3)
        generator = lib.Generator().manual_seed(11)
        loader = lib.utils.data.DataLoader(pairs(lib), batch_size=3, shuffle=True,
                                           generator=generator, num_workers=2)
        epochs = [plain(loader), plain(loader)]
        return epochs, len(iter(loader)), generator.initial_seed(), lib.rand(2).tolist()
    ours, theirs = both(run)
    assert ours == theirs


@pytest.mark.parametrize("options", [
    {"batch_size": None, "prefetch_factor": 1},
    {"batch_size": 4, "drop_last": True, "in_order": False},
])
def test_unbatched_and_out_of_order(options):
    def run(lib):
        lib.manual_seed(0)
        loader = lib.utils.data.DataLoader(pairs(lib, 9), shuffle=True, num_workers=2,
                                           **options)
        return sorted(map(str, plain(loader)))    # in_order=False: in any order
    ours, theirs = both(run)
    assert ours == theirs


@pytest.mark.parametrize("batch_size", [None, 2, 3])
def test_sharded_iterable_dataset_gives_torchs_sequence(batch_size):
    def run(lib):
        loader = lib.utils.data.DataLoader(ranged(lib, 3, 14, shard=True),
                                           batch_size=batch_size, num_workers=2)
        return plain(loader)
    ours, theirs = both(run)
    assert ours == theirs


@pytest.mark.parametrize("drop_last", [False, True])
def test_unsharded_iterable_dataset_comes_once_per_worker(drop_last):
    def run(lib):
        loader = lib.utils.data.DataLoader(ranged(lib, 0, 5, shard=False), batch_size=2,
                                           drop_last=drop_last, num_workers=2)
        return plain(loader)
    ours, theirs = both(run)
    assert ours == theirs
    assert sorted(sum(ours, [])) == sorted(2 * sum(ours[::2], []))    # each sample twice


def test_worker_init_fn_and_worker_info():
    """worker_init_fn runs in each worker before any sample; WorkerInfo's fields, seeds
    and repr are torch's, and it is frozen."""
    def run(lib):
        class Records(lib.utils.data.Dataset):
            initialized_by = None

            def __getitem__(self, index):
                info = lib.utils.data.get_worker_info()
                try:
                    info.id = 5
                    frozen = "settable"
                except AttributeError as error:
                    frozen = type(error).__name__
                return (index, self.initialized_by, info.id, info.num_workers, info.seed,
                        info.dataset is self, repr(info), frozen)

            def __len__(self):
                return 4

            def __repr__(self):
                return "Records()"

        def init(worker_id):
            lib.utils.data.get_worker_info().dataset.initialized_by = worker_id
        lib.manual_seed(8)
        loader = lib.utils.data.DataLoader(Records(), batch_size=None, num_workers=2,
                                           worker_init_fn=init)
        return plain(loader), lib.utils.data.get_worker_info()
    ours, theirs = both(run)
    assert ours == theirs
    assert [sample[1] for sample in ours[0]] == [0, 1, 0, 1]


def test_random_streams_in_workers_match_torch():
    """random, NumPy's global generator and the library's default generator, seeded in each
    worker as torch seeds them."""
    def run(lib):
        class Draws(lib.utils.data.Dataset):
            def __getitem__(self, index):
                return [random.random(), float(np.random.rand()), lib.rand(1).item(),
                        int(np.random.randint(0, 2**31))]

            def __len__(self):
                return 6
        loader = lib.utils.data.DataLoader(Draws(), batch_size=None, num_workers=2,
                                           generator=lib.Generator().manual_seed(21))
        return plain(loader)
    ours, theirs = both(run)
    assert ours == theirs


class NeedsTwoArguments(Exception):
    def __init__(self, first, second):
        super().__init__(first, second)


def failing(lib, error):
    class Failing(lib.utils.data.Dataset):
        def __getitem__(self, index):
            if index == 3:
                raise error
            return index

        def __len__(self):
            return 6
    return Failing()


@pytest.mark.parametrize("error, expected", [
    (ValueError("bad sample 3"), ValueError),
    (KeyError("missing"), KeyError),
    (NeedsTwoArguments(1, 2), RuntimeError),     # cannot be built from one message
])
def test_an_error_in_a_worker_is_raised_again(error, expected):
    def run(lib):
        for _ in lib.utils.data.DataLoader(failing(lib, error), batch_size=None,
                                           num_workers=2):
            pass
    name = type(error).__name__
    ours, _ = assert_same_error(run, expected, f"^Caught {name} in DataLoader worker process 1",
                                r"Original Traceback \(most recent call last\)",
                                f"{name}: .*{str(error.args[0])}")
    assert "in __getitem__" in ours


def test_an_error_of_a_local_class_is_raised_as_runtime_error():
    """An exception class that cannot be pickled (defined in a function) cannot travel back
    from the worker; it comes back as RuntimeError naming the type, instead of leaving the
    main process waiting (the loader's timeout stops the test if it ever waits again)."""
    class LocalError(Exception):
        pass
    loader = ag.utils.data.DataLoader(failing(ag, LocalError("local 3")), batch_size=None,
                                      num_workers=1, timeout=60)
    with pytest.raises(RuntimeError, match="(?s)^Caught RuntimeError in DataLoader worker "
                                           "process 0.*LocalError: local 3"):
        list(loader)


def test_an_error_in_worker_init_fn_is_raised_again():
    def run(lib):
        def init(worker_id):
            raise TypeError(f"cannot start {worker_id}")
        for _ in lib.utils.data.DataLoader(pairs(lib), num_workers=2, worker_init_fn=init):
            pass
    assert_same_error(run, TypeError, "^Caught TypeError in DataLoader worker process 0",
                      "cannot start 0")


def test_timeout():
    def run(lib):
        class Slow(lib.utils.data.Dataset):
            def __getitem__(self, index):
                time.sleep(0.3)
                return index

            def __len__(self):
                return 2
        next(iter(lib.utils.data.DataLoader(Slow(), num_workers=1, timeout=0.05)))
    assert_same_error(run, exact=True)


@pytest.mark.parametrize("death", ["exit", "kill"])
def test_a_dead_worker_raises(death):
    """A worker that dies without an answer raises instead of a wait for ever (the
    loader's own check of its workers bounds the test). torch's words, "DataLoader worker
    (pid(s) ...) exited unexpectedly", are written here rather than drawn from torch: its
    loader reports a killed worker from a SIGCHLD handler whose C++ backtrace is symbolized
    by addr2line, which at times never returns in a long test process."""
    class Dying(ag.utils.data.Dataset):
        def __getitem__(self, index):
            if death == "exit":
                os._exit(1)
            os.kill(os.getpid(), signal.SIGKILL)

        def __len__(self):
            return 4
    with pytest.raises(RuntimeError,
                       match=r"^DataLoader worker \(pid\(s\) [0-9, ]+\) exited unexpectedly"):
        for _ in ag.utils.data.DataLoader(Dying(), num_workers=2):
            pass


def test_persistent_workers_are_kept_across_epochs():
    """The same processes serve both epochs, their random streams go on, the base seed is
    drawn once (the second epoch's order is torch's), and the IterableDataset starts again."""
    def run(lib):
        class Draws(lib.utils.data.Dataset):
            def __getitem__(self, index):
                return [index, os.getpid(), random.random()]

            def __len__(self):
                return 5
        lib.manual_seed(2)
        loader = lib.utils.data.DataLoader(Draws(), batch_size=2, shuffle=True,
                                           num_workers=2, persistent_workers=True)
        epochs = [plain(loader), plain(loader)]
        pids = [{row[1] for batch in epoch for row in zip(*batch)} for epoch in epochs]
        stream = lib.utils.data.DataLoader(ranged(lib, 0, 6, shard=True), batch_size=2,
                                           num_workers=2, persistent_workers=True)
        streams = [plain(stream), plain(stream)]
        drop = [[[row[0], row[2]] for row in zip(*batch)] for epoch in epochs
                for batch in epoch]
        return drop, pids[0] == pids[1], len(pids[0]), streams, lib.rand(1).item()
    ours, theirs = both(run)
    assert ours == theirs


def test_breaking_out_early_leaves_no_worker_alive():
    def run(lib):
        class Pids(lib.utils.data.Dataset):
            def __getitem__(self, index):
                return os.getpid()

            def __len__(self):
                return 100
        pids = set()
        for batch in lib.utils.data.DataLoader(Pids(), batch_size=2, num_workers=2):
            pids.update(batch.tolist())
            break
        alive = {child.pid for child in multiprocessing.active_children()}
        return len(pids), sorted(pids & alive)
    ours, theirs = both(run)
    assert ours == theirs == (1, [])


def test_multiprocessing_context_is_checked():
    assert_same_error(lambda lib: lib.utils.data.DataLoader(
        pairs(lib), num_workers=1, multiprocessing_context="nope"), exact=True)
    assert_same_error(lambda lib: lib.utils.data.DataLoader(
        pairs(lib), num_workers=1, multiprocessing_context=3), exact=True)


def test_more_workers_than_cpus_warns(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)

    def run(lib):
        with pytest.warns(UserWarning) as caught:
            lib.utils.data.DataLoader(pairs(lib), num_workers=2).check_worker_number_rationality()
        return [str(warning.message) for warning in caught]
    ours, theirs = both(run)
    assert ours == theirs and "will create 2 worker processes" in ours[0]
