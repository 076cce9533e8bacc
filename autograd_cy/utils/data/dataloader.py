"""``DataLoader``, as torch's: batches of a dataset in sampler order, collated.

Iteration draws as torch's loader does: starting an epoch makes the sampler's iterator, then
takes one 64-bit draw from the loader's generator (torch's base seed for workers), then the
sampler draws its order as it is read; so with the CPU generator giving torch's numbers, a
seeded loader yields torch's batches.

Data loading always runs in this process: ``num_workers > 0`` is accepted (with torch's
checks of ``prefetch_factor``, ``persistent_workers`` and ``multiprocessing_context``) and
loads in this process too, in the order torch's workers deliver. The arrays are in memory
already and NumPy hands no work to other processes. One difference follows: torch gives each
worker its own copy of an ``IterableDataset``, so with ``num_workers=2`` and no sharding in
the dataset every sample comes twice; here it comes once."""
from typing import Generic

from autograd_cy import factories, int64
from autograd_cy.utils.data.collate import default_collate, default_convert
from autograd_cy.utils.data.dataset import IterableDataset, T_co
from autograd_cy.utils.data.sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info"]


class DataLoader(Generic[T_co]):
    """Iterates over ``dataset`` in batches of ``batch_size`` (``shuffle`` for a new random
    order each epoch; ``batch_size=None`` for samples without batching). ``pin_memory``,
    ``timeout`` and ``worker_init_fn`` are accepted; with the loading in this process they
    change nothing (``worker_init_fn`` is not called: there are no workers).

    >>> import autograd_cy as ag
    >>> data = ag.utils.data.TensorDataset(ag.arange(5))
    >>> [batch[0].tolist() for batch in ag.utils.data.DataLoader(data, batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    # set once in __init__: changing them would leave the samplers built from them stale
    _FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
               "persistent_workers")
    _initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False,
                 timeout=0, worker_init_fn=None, multiprocessing_context=None,
                 generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 "
                             "to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        _check_worker_options(num_workers, prefetch_factor, persistent_workers,
                              multiprocessing_context)
        self.dataset = dataset
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            if shuffle not in (None, False):
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"sampler option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None and not iterable:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None and not iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self._iterable = iterable
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2                 # torch's default with workers
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.multiprocessing_context = multiprocessing_context
        self._initialized = True

    def __setattr__(self, name, value):
        if self._initialized and name in self._FROZEN:
            raise ValueError(f"{name} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None or (self._iterable and
                                                   self.batch_size is not None)

    def __len__(self):
        if self._iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                length = (length // self.batch_size if self.drop_last
                          else -(-length // self.batch_size))
            return length
        return len(self.batch_sampler if self._auto_collation else self.sampler)

    def __iter__(self):
        # the sampler's iterator, then the base seed (see the module's doc)
        if self._iterable:
            factories.empty((), dtype=int64).random_(generator=self.generator)
            return self._iterate_stream()
        indices = iter(self.batch_sampler if self._auto_collation else self.sampler)
        factories.empty((), dtype=int64).random_(generator=self.generator)
        return self._iterate_map(indices)

    def _iterate_map(self, indices):
        for index in indices:
            if self._auto_collation:
                yield self.collate_fn([self.dataset[i] for i in index])
            else:
                yield self.collate_fn(self.dataset[index])

    def _iterate_stream(self):
        if not self._auto_collation:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)


def get_worker_info():
    """Information about the worker process running this code: always ``None``, as in
    torch's main process, since every sample is loaded in this process. A dataset that
    shards itself across workers (``if info is None: whole range``) reads it all here."""
    return None


def _check_worker_options(num_workers, prefetch_factor, persistent_workers, context):
    """torch's errors for the options that only mean something with workers."""
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if context is not None and num_workers == 0:
        raise ValueError("multiprocessing_context can only be used with multi-process "
                         f"loading (num_workers > 0), but got num_workers={num_workers}")
