"""``DataLoader``, as torch's: batches of a dataset in sampler order, collated.

Iteration draws as torch's loader does: starting an epoch makes the sampler's iterator, then
takes one 64-bit draw from the loader's generator (torch's base seed for workers), then the
sampler draws its order as it is read; so with the CPU generator giving torch's numbers, a
seeded loader yields torch's batches.

With ``num_workers=0`` the batches are loaded in this process, as they are asked for. With
``num_workers > 0`` worker processes load them (``multiprocessing_iter.py``, ``worker.py``),
seeded from the base seed as torch's workers are, and each with its own copy of the dataset:
an ``IterableDataset`` that does not shard itself through ``get_worker_info()`` then yields
every sample once per worker, as in torch. With ``persistent_workers=True`` the workers
(and the base seed, drawn once) are kept from one epoch to the next."""
import multiprocessing
import os
import warnings
from typing import Generic

from autograd_cy import cuda, factories, int64
from autograd_cy.utils.data.collate import default_collate, default_convert
from autograd_cy.utils.data.dataset import IterableDataset, T_co, _fetch
from autograd_cy.utils.data.multiprocessing_iter import _MultiProcessingDataLoaderIter
from autograd_cy.utils.data.sampler import BatchSampler, RandomSampler, SequentialSampler
from autograd_cy.utils.data.worker import get_worker_info

__all__ = ["DataLoader", "get_worker_info"]


class DataLoader(Generic[T_co]):
    """Iterates over ``dataset`` in batches of ``batch_size`` (``shuffle`` for a new random
    order each epoch; ``batch_size=None`` for samples without batching). ``num_workers``
    processes load the batches in the background (0: this process does), each first calling
    ``worker_init_fn(worker_id)``; ``timeout`` bounds the wait for a worker's batch.
    ``pin_memory`` is accepted and, with no pinned memory on this library's devices,
    changes nothing.

    >>> import autograd_cy as ag
    >>> data = ag.utils.data.TensorDataset(ag.arange(5))
    >>> [batch[0].tolist() for batch in ag.utils.data.DataLoader(data, batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    # set once in __init__: changing them would leave the samplers built from them stale
    _FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
               "persistent_workers")
    _initialized = False
    _iterator = None                # the persistent workers' iterator

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
        _check_worker_options(num_workers, prefetch_factor, persistent_workers)
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
        self.pin_memory_device = pin_memory_device
        self.in_order = in_order
        self._initialized = True
        self.check_worker_number_rationality()

    def __setattr__(self, name, value):
        if self._initialized and name in self._FROZEN:
            raise ValueError(f"{name} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def multiprocessing_context(self):
        """The ``multiprocessing`` context the workers start from; ``None``: the default."""
        return self._multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        if context is not None:
            if self.num_workers == 0:
                raise ValueError("multiprocessing_context can only be used with multi-process "
                                 "loading (num_workers > 0), but got "
                                 f"num_workers={self.num_workers}")
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError("multiprocessing_context option should specify a valid "
                                     f"start method in {methods!r}, but got "
                                     f"multiprocessing_context={context!r}")
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context "
                                "object or a string specifying the start method, but got "
                                f"multiprocessing_context={context}")
        self._multiprocessing_context = context

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
        if self.pin_memory and not cuda.is_available():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=2)
        if self.num_workers > 0:
            if not self.persistent_workers:
                self.check_worker_number_rationality()
                return _MultiProcessingDataLoaderIter(self)
            if self._iterator is None:
                self.check_worker_number_rationality()
                self._iterator = _MultiProcessingDataLoaderIter(self)
            else:
                self._iterator._reset(self)     # the same workers; no new base seed
            return self._iterator
        # the sampler's iterator, then the base seed (see the module's doc)
        if self._iterable:
            factories.empty((), dtype=int64).random_(generator=self.generator)
            return _Epoch(self._iterate_stream(), self)
        indices = iter(self.batch_sampler if self._auto_collation else self.sampler)
        factories.empty((), dtype=int64).random_(generator=self.generator)
        return _Epoch(self._iterate_map(indices), self)

    def check_worker_number_rationality(self):
        """torch's warning when this loader would start more workers than the CPUs this
        process may run on (``os.sched_getaffinity`` where there is one)."""
        if not self.num_workers:
            return
        cpuset_checked = hasattr(os, "sched_getaffinity")
        cpus = len(os.sched_getaffinity(0)) if cpuset_checked else os.cpu_count()
        if cpus is not None and self.num_workers <= cpus:
            return
        if cpus is None:
            suggestion = ("DataLoader is not able to compute a suggested max number of worker "
                          "in current system.")
        else:
            suggestion = (f"Our suggested max number of worker in current system is {cpus}"
                          f"{'' if cpuset_checked else ' (`cpuset` is not taken into account)'}"
                          ", which is smaller than what this DataLoader is going to create.")
        warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in "
                      f"total. {suggestion} Please be aware that excessive worker creation "
                      "might get DataLoader running slow or even freeze, lower the worker "
                      "number to avoid potential slowness/freeze if necessary.", stacklevel=2)

    def _iterate_map(self, indices):
        for index in indices:
            if self._auto_collation:
                yield self.collate_fn(_fetch(self.dataset, index))
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


class _Epoch:
    """One pass over a DataLoader; ``len()`` of it is the loader's number of batches, as of
    torch's iterator (a progress bar may ask the iterator). Over an ``IterableDataset`` torch's
    iterator has no length (TypeError); this one gives the loader's estimate."""

    def __init__(self, batches, loader):
        self._batches = batches
        self._loader = loader

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._batches)

    def __len__(self):
        return len(self._loader)


def _check_worker_options(num_workers, prefetch_factor, persistent_workers):
    """torch's errors for the options that only mean something with workers."""
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
