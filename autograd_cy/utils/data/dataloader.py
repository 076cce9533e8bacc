"""``DataLoader``, as torch's: batches of a dataset in sampler order, collated.

Iteration draws as torch's single-process loader does: starting an epoch takes one 64-bit
draw from the loader's generator (torch's base seed for workers), then the sampler draws its
order; so with the CPU generator giving torch's numbers, a seeded loader yields torch's
batches. Data loading runs in this process (``num_workers`` is accepted and ignored: the
arrays are already in memory, and NumPy releases no work to hand off)."""
from autograd_cy import factories, int64
from autograd_cy.utils.data.collate import default_collate, default_convert
from autograd_cy.utils.data.dataset import IterableDataset
from autograd_cy.utils.data.sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader"]


class DataLoader:
    """Iterates over ``dataset`` in batches of ``batch_size`` (``shuffle`` for a new random
    order each epoch; ``batch_size=None`` for samples without batching)."""

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
        # torch's single-process iterator draws its base seed first (see the module's doc)
        factories.empty((), dtype=int64).random_(generator=self.generator)
        if self._iterable:
            return self._iterate_stream()
        return self._iterate_map()

    def _iterate_map(self):
        if self._auto_collation:
            for indices in self.batch_sampler:
                yield self.collate_fn([self.dataset[i] for i in indices])
        else:
            for index in self.sampler:
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
