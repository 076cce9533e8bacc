"""autograd_cy.utils.data against torch.utils.data: batches and their order (shuffled with the
default generator and with a seeded one, replacement, drop_last), random_split, collation of
nested samples, IterableDataset, lengths and errors."""
from collections import namedtuple

import numpy as np
import pytest

from oracle import assert_same, assert_same_error

Point = namedtuple("Point", "x y")


def dataset(lib, n=10):
    return lib.utils.data.TensorDataset(lib.arange(float(2 * n)).reshape(n, 2), lib.arange(n))


def batches(loader):
    return [[t.tolist() if hasattr(t, "tolist") else t for t in batch] for batch in loader]


@pytest.mark.cpu_only             # the CPU generator's numbers decide the order
@pytest.mark.parametrize("options", [
    {"batch_size": 4},
    {"batch_size": 4, "shuffle": True},
    {"batch_size": 3, "shuffle": True, "drop_last": True},
    {"batch_size": 3, "shuffle": True, "generator": "seeded"},
    {"batch_size": 2, "sampler": "replacement"},
    {"batch_size": None},
])
def test_batches_and_order_match_torch(options):
    def run(lib):
        lib.manual_seed(0)
        kwargs = dict(options)
        if kwargs.get("generator") == "seeded":
            kwargs["generator"] = lib.Generator().manual_seed(5)
        data = dataset(lib)
        if kwargs.get("sampler") == "replacement":
            kwargs["sampler"] = lib.utils.data.RandomSampler(data, replacement=True,
                                                             num_samples=7)
        loader = lib.utils.data.DataLoader(data, **kwargs)
        return batches(loader), batches(loader), len(loader)
    assert_same(run)


@pytest.mark.cpu_only
def test_random_split_and_subset_samplers():
    def run(lib):
        lib.manual_seed(1)
        parts = lib.utils.data.random_split(dataset(lib), [0.5, 0.3, 0.2])
        seeded = lib.utils.data.random_split(dataset(lib), [6, 4],
                                             generator=lib.Generator().manual_seed(2))
        sampler = lib.utils.data.SubsetRandomSampler([3, 5, 7, 9])
        return ([list(p.indices) for p in parts], [list(p.indices) for p in seeded],
                list(sampler), len(parts[1]), parts[1][0][1].item())
    assert_same(run)


def test_collation_of_nested_samples():
    samples = [{"a": 1.0, "b": (np.ones(2), 3), "c": "x", "p": Point(1, 2.0)},
               {"a": 2.0, "b": (np.zeros(2), 4), "c": "y", "p": Point(3, 4.0)}]

    def run(lib):
        batch = lib.utils.data.default_collate(samples)
        return (batch["a"], str(batch["a"].dtype).split(".")[-1], batch["b"], batch["c"],
                type(batch["p"]).__name__, batch["p"].x, batch["p"].y,
                lib.utils.data.default_convert([np.ones(2), (np.int64(3),)]))
    assert_same(run)


def test_iterable_dataset_and_concat():
    def run(lib):
        class Stream(lib.utils.data.IterableDataset):
            def __iter__(self):
                return iter(lib.arange(7).tolist())

            def __len__(self):
                return 7
        loader = lib.utils.data.DataLoader(Stream(), batch_size=3)
        joined = dataset(lib, 3) + dataset(lib, 2)
        return batches(loader), len(loader), len(joined), joined[4][1].item(), joined[-1][1]
    assert_same(run)


ERRORS = [
    (lambda lib: lib.utils.data.TensorDataset(lib.ones(3), lib.ones(4)), "Size mismatch"),
    (lambda lib: lib.utils.data.DataLoader(dataset(lib), sampler=[0, 1], shuffle=True),
     "mutually exclusive"),
    (lambda lib: lib.utils.data.DataLoader(dataset(lib), batch_sampler=[[0]], batch_size=2),
     "mutually exclusive"),
    (lambda lib: lib.utils.data.DataLoader(dataset(lib), batch_size=None, drop_last=True),
     "mutually exclusive"),
    (lambda lib: lib.utils.data.random_split(dataset(lib), [3, 3]), "Sum of input lengths"),
    (lambda lib: lib.utils.data.BatchSampler([0, 1], 0, False), "positive integer"),
    (lambda lib: lib.utils.data.default_collate([object(), object()]), "default_collate"),
    (lambda lib: lib.utils.data.default_collate([[1, 2], [1]]), "equal size"),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    fn, words = ERRORS[index]
    assert_same_error(fn, words)
