"""The dataset protocol beyond ``__getitem__`` against torch.utils.data: ``__getitems__`` (a
batch in one call) as the DataLoader, ``Subset`` and ``StackDataset`` use it, ``StackDataset``,
``ChainDataset`` (``stream + stream``), ``get_worker_info`` while loading, the epoch iterator's
``len()``, the ``pin_memory`` warning without an accelerator and the options a loader keeps."""
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same, assert_same_error, both, no_warning, same_warning
from test_data import described


def batched(lib, n=5):
    """Sample ``i`` is ``i``; a batch read through ``__getitems__`` is ten times its indices,
    so the result says which path the loader took."""
    class Batched(lib.utils.data.Dataset):
        def __getitem__(self, index):
            return index

        def __getitems__(self, indices):
            return [10 * i for i in indices]

        def __len__(self):
            return n
    return Batched()


def stream(lib, n):
    class Stream(lib.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(n))

        def __len__(self):
            return n
    return Stream()


@pytest.mark.parametrize("batch_size", [2, None])
def test_the_loader_reads_batches_through_getitems(batch_size):
    assert_same(lambda lib: [described(b) for b in
                             lib.utils.data.DataLoader(batched(lib), batch_size=batch_size)])


def test_subset_passes_getitems_on():
    def run(lib):
        subset = lib.utils.data.Subset(batched(lib), [4, 0, 2])
        loader = lib.utils.data.DataLoader(subset, batch_size=2)
        return subset.__getitems__([0, 1]), subset[1], [b.tolist() for b in loader]
    assert_same(run)


def test_a_subset_that_changes_getitem_must_change_getitems():
    def run(lib):
        class Doubled(lib.utils.data.Subset):
            def __getitem__(self, index):
                return 2 * super().__getitem__(index)
        return Doubled(range(4), [1, 2])
    assert_same_error(run, NotImplementedError, "overrides __getitem__ but not __getitems__")


@pytest.mark.parametrize("named", [False, True])
def test_stack_dataset(named):
    def run(lib):
        columns = (lib.arange(6).reshape(3, 2), batched(lib, 3), ["a", "b", "c"])
        data = (lib.utils.data.StackDataset(x=columns[0], y=columns[1], z=columns[2]) if named
                else lib.utils.data.StackDataset(*columns))
        loader = lib.utils.data.DataLoader(data, batch_size=2)
        return len(data), described(data[2]), [described(b) for b in loader]
    ours, theirs = both(run)
    assert ours == theirs


@pytest.mark.parametrize("make", [
    lambda lib: lib.utils.data.StackDataset(lib.zeros(2), lib.zeros(3)),
    lambda lib: lib.utils.data.StackDataset(),
    lambda lib: lib.utils.data.StackDataset(lib.zeros(2), y=lib.zeros(2)),
], ids=["sizes", "empty", "both-kinds"])
def test_stack_dataset_errors(make):
    assert_same_error(make, ValueError)


def test_stack_dataset_getitems_size_mismatch():
    def run(lib):
        class Short(lib.utils.data.Dataset):
            def __getitem__(self, index):
                return index

            def __getitems__(self, indices):
                return indices[:-1]

            def __len__(self):
                return 3
        return lib.utils.data.StackDataset(Short(), Short()).__getitems__([0, 1])
    assert_same_error(run, ValueError, r"^Nested dataset's output size mismatch\. Expected 2, "
                                       r"got 1$")


def test_streams_chain():
    def run(lib):
        chained = stream(lib, 3) + stream(lib, 2)
        loader = lib.utils.data.DataLoader(chained, batch_size=2)
        return (type(chained).__name__, len(chained), list(chained), len(loader),
                [b.tolist() for b in loader])
    assert_same(run)


@pytest.mark.parametrize("read", [list, len], ids=["iterate", "len"])
def test_chain_of_a_map_dataset_is_refused(read):
    assert_same_error(lambda lib: read(lib.utils.data.ChainDataset([stream(lib, 2), range(3)])),
                      AssertionError, "ChainDataset only supports IterableDataset")


def test_no_worker_is_loading():
    def run(lib):
        seen = []

        class Sharded(lib.utils.data.IterableDataset):
            def __iter__(self):
                seen.append(lib.utils.data.get_worker_info())
                return iter(range(4))
        batches = [b.tolist() for b in lib.utils.data.DataLoader(Sharded(), batch_size=3)]
        return batches, seen
    assert_same(run)


@pytest.mark.parametrize("dataset", ["map", "stream"])
def test_the_epoch_iterator_has_the_loaders_length(dataset):
    def run(lib):
        data = range(7) if dataset == "map" else stream(lib, 7)
        loader = lib.utils.data.DataLoader(data, batch_size=3)
        epoch = iter(loader)
        first = next(epoch)
        return len(epoch), first.tolist(), [b.tolist() for b in epoch], iter(epoch) is epoch
    if dataset == "stream":
        # torch's iterator asks its endless sampler for a length and raises TypeError; ours
        # gives the loader's estimate from len(dataset) (see _Epoch)
        ours = run(ag)
        assert ours == (len(ag.utils.data.DataLoader(stream(ag, 7), batch_size=3)),
                        [0, 1, 2], [[3, 4, 5], [6]], True)
        return
    assert_same(run)


def test_pin_memory_without_an_accelerator_warns(monkeypatch):
    monkeypatch.setattr(ag.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.accelerator, "is_available", lambda: False)

    def run(lib):
        loader = lib.utils.data.DataLoader(range(3), batch_size=2, pin_memory=True)
        return [b.tolist() for b in loader]
    ours, theirs = same_warning(run, UserWarning, "'pin_memory' argument is set as true but "
                                                  "no accelerator is found")
    assert ours == theirs
    no_warning(lambda lib: list(lib.utils.data.DataLoader(range(3))), "pin_memory")


def test_the_loader_keeps_its_options():
    def run(lib):
        loader = lib.utils.data.DataLoader(range(4), batch_size=3, pin_memory_device="",
                                           in_order=False, timeout=0, num_workers=0)
        return {name: getattr(loader, name) for name in (
            "batch_size", "drop_last", "num_workers", "pin_memory", "pin_memory_device",
            "in_order", "timeout", "worker_init_fn", "prefetch_factor", "persistent_workers",
            "multiprocessing_context", "generator")}
    assert_same(run)
