"""autograd_cy.utils.data against torch.utils.data: batches and their order (shuffled with the
default generator and with a seeded one, replacement, drop_last), random_split, collation of
nested samples, IterableDataset, lengths and errors."""
from collections import namedtuple

import numpy as np
import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, both, same_warning

Point = namedtuple("Point", "x y")


class Row(list):
    """A list subclass with an attribute: collation copies it (NOTE [Containers keep their
    type])."""
    tag = "row"


def described(value):
    """A batch as plain data that keeps what ``plain`` folds together: the container types
    (tuple or list, namedtuple, subclass) and each tensor's dtype."""
    if hasattr(value, "dtype") and hasattr(value, "tolist"):
        return ("tensor", str(value.dtype).split(".")[-1], value.tolist())
    if isinstance(value, dict):
        return (type(value).__name__, {k: described(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, getattr(value, "tag", None),
                [described(v) for v in value])
    return value


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


@pytest.mark.parametrize("samples", [
    [(1, "a", 2.5, True), (2, "b", 3.5, False)],
    [[1, "a"], [2, "b"]],
    [Point(1, "x"), Point(2, "y")],
    [Row([1, 2.0]), Row([3, 4.0])],
    [np.float32(1), np.float32(2)],
    [np.int8(1), np.int8(2)],
    [np.bool_(True), np.bool_(False)],
    [np.ones((2, 2), np.float16), np.zeros((2, 2), np.float16)],
    [np.arange(3, dtype=np.int32), np.arange(3, dtype=np.int32)],
    [{"x": np.full(2, 1, np.float32), "y": 1, "n": "s"},
     {"x": np.full(2, 2, np.float32), "y": 2, "n": "t"}],
    [b"a", b"b"],
])
def test_collated_structures_and_dtypes(samples):
    def run(lib):
        return described(lib.utils.data.default_collate(samples))
    ours, theirs = both(run)
    assert ours == theirs


def test_converted_structures():
    data = {"a": np.ones(2), "b": (np.float32(1), "s"), "c": Row([np.int64(1)]),
            "p": Point(np.ones(1), 3), "text": np.array(["a"]), "r": range(2)}

    def run(lib):
        out = lib.utils.data.default_convert(data)
        return {k: described(v) for k, v in out.items() if k != "text"}, out["text"].tolist()
    ours, theirs = both(run)
    assert ours == theirs


def test_loader_collates_a_map_dataset_of_dicts():
    def run(lib):
        class Records(lib.utils.data.Dataset):
            def __len__(self):
                return 5

            def __getitem__(self, index):
                return {"x": np.full(2, index, np.float32), "y": index, "name": f"s{index}"}
        loader = lib.utils.data.DataLoader(Records(), batch_size=2)
        return [described(batch) for batch in loader], len(loader)
    ours, theirs = both(run)
    assert ours == theirs


@pytest.mark.cpu_only             # the CPU generator's numbers decide the order
def test_workers_load_in_torchs_order():
    """num_workers=2 delivers in torch's order, and draws the default generator as torch."""
    def run(lib):
        lib.manual_seed(4)
        loader = lib.utils.data.DataLoader(dataset(lib), batch_size=3, shuffle=True,
                                           num_workers=2, worker_init_fn=lambda worker: None)
        return batches(loader), lib.rand(2).tolist()
    assert_same(run)


@pytest.mark.cpu_only
def test_a_sampler_that_draws_eagerly_draws_before_the_base_seed():
    """torch makes the sampler's iterator, then draws its base seed: a sampler whose
    ``__iter__`` draws at once sees the generator before the loader's draw."""
    def run(lib):
        class Eager(lib.utils.data.Sampler):
            def __iter__(self):
                return iter(lib.randperm(6).tolist())

            def __len__(self):
                return 6
        lib.manual_seed(0)
        loader = lib.utils.data.DataLoader(dataset(lib, 6), batch_size=4, sampler=Eager())
        return batches(loader), lib.rand(1).item()
    assert_same(run)


@pytest.mark.cpu_only
def test_random_sampler_draws():
    def run(lib):
        lib.manual_seed(3)
        seeded = lib.Generator().manual_seed(7)
        sampler = lib.utils.data.RandomSampler
        return (list(sampler(range(5), num_samples=12, generator=seeded)),
                list(sampler(range(5), replacement=True, num_samples=40)),
                list(sampler(range(5), num_samples=3)), len(sampler(range(5), num_samples=3)))
    assert_same(run)


def test_generic_classes_and_worker_info():
    """Annotations such as ``Dataset[tuple]`` work; outside workers there is no worker info."""
    def run(lib):
        data = lib.utils.data
        class Pairs(data.Dataset[tuple]):
            def __getitem__(self, index):
                return (index, -index)

            def __len__(self):
                return 3
        loader = data.DataLoader[tuple](Pairs(), batch_size=2)
        aliases = (data.Sampler[int], data.IterableDataset[int])
        return (batches(loader), data.get_worker_info(),
                [alias.__origin__.__name__ for alias in aliases])
    assert_same(run)


def test_pin_memory_is_accepted():
    data = dataset(ag)
    pinned = ag.utils.data.DataLoader(data, batch_size=4, pin_memory=True)
    assert batches(pinned) == batches(ag.utils.data.DataLoader(data, batch_size=4))


def test_a_zero_length_split_warns():
    def run(lib):
        return [len(part) for part in lib.utils.data.random_split(
            dataset(lib, 2), [0.9, 0.05, 0.05], generator=lib.Generator().manual_seed(0))]
    ours, theirs = same_warning(run, UserWarning, "Length of split at index 2 is 0")
    assert ours == theirs


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
    (lambda lib: lib.utils.data.default_collate([lib.ones(2), lib.ones(3)]), "equal size"),
    (lambda lib: lib.utils.data.default_collate([np.array(["a"]), np.array(["b"])]), None),
    (lambda lib: lib.utils.data.DataLoader(dataset(lib), prefetch_factor=2), None),
    (lambda lib: lib.utils.data.DataLoader(dataset(lib), num_workers=1, prefetch_factor=-1),
     None),
    (lambda lib: lib.utils.data.DataLoader(dataset(lib), persistent_workers=True), None),
    (lambda lib: lib.utils.data.DataLoader(dataset(lib), multiprocessing_context="spawn"),
     None),
    (lambda lib: lib.utils.data.DataLoader(dataset(lib), num_workers=-1), None),
    (lambda lib: lib.utils.data.DataLoader(dataset(lib), timeout=-1), None),
    (lambda lib: setattr(lib.utils.data.DataLoader(dataset(lib)), "batch_size", 3), None),
    (lambda lib: lib.utils.data.DataLoader(stream(lib), shuffle=True), None),
    (lambda lib: lib.utils.data.DataLoader(stream(lib), batch_sampler=[[0]]),
     "expected unspecified batch_sampler"),
    (lambda lib: lib.utils.data.DataLoader(dataset(lib), batch_sampler=[[0]], drop_last=True),
     None),
    (lambda lib: lib.utils.data.RandomSampler(dataset(lib), num_samples=0), None),
    (lambda lib: lib.utils.data.RandomSampler(dataset(lib), replacement=1), None),
    (lambda lib: lib.utils.data.BatchSampler([0, 1], 2, 1), None),
    (lambda lib: lib.utils.data.random_split(dataset(lib), [1.5, -0.5]), None),
    (lambda lib: lib.utils.data.ConcatDataset([]), None),
    (lambda lib: lib.utils.data.ConcatDataset([stream(lib)]), None),
    (lambda lib: (dataset(lib, 2) + dataset(lib, 2))[-5], None),
    (lambda lib: lib.utils.data.Dataset()[0], None),
]


def stream(lib):
    class Stream(lib.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(3))
    return Stream()


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    """torch's exception type; its key words, or (None) its whole message."""
    fn, words = ERRORS[index]
    if words is None:
        assert_same_error(fn, exact=True)
    else:
        assert_same_error(fn, words)


@pytest.mark.cpu_only             # the CPU generator's numbers decide the order
@pytest.mark.parametrize("replacement", [True, False])
def test_weighted_random_sampler_draws_torchs_indices(replacement):
    import torch
    weights = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
    theirs = torch.utils.data.WeightedRandomSampler(
        weights, 5, replacement, generator=torch.Generator().manual_seed(1))
    ours = ag.utils.data.WeightedRandomSampler(weights, 5, replacement,
                                               generator=ag.Generator().manual_seed(1))
    assert list(ours) == list(theirs) and list(ours) == list(theirs) and len(ours) == 5
    torch.manual_seed(4)
    ag.manual_seed(4)
    assert list(ag.utils.data.WeightedRandomSampler([1.0, 2.0, 3.0], 10)) == \
        list(torch.utils.data.WeightedRandomSampler([1.0, 2.0, 3.0], 10))


@pytest.mark.parametrize("args", [([1.0, 2.0], 0), ([1.0, 2.0], True), ([1.0], 2, 1),
                                  ([[1.0, 2.0]], 2)])
def test_weighted_random_sampler_errors_as_torch(args):
    assert_same_error(lambda lib: lib.utils.data.WeightedRandomSampler(*args))
