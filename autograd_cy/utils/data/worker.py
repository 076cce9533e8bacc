"""The DataLoader's worker processes, as torch's ``torch.utils.data._utils.worker``: what a
worker knows about itself (``WorkerInfo``, ``get_worker_info``), how it seeds its random
number generators, and its loop: read a task from its index queue, fetch and collate, put
the result (or the exception it raised) on the shared result queue.

The main process's side, which starts the workers, hands out the tasks and puts the results
back into sampler order, is ``multiprocessing_iter.py``."""
import dataclasses
import os
import pickle
import queue
import random
import sys
import traceback

import numpy as np

from autograd_cy.utils.data.dataset import _fetch

__all__ = ["WorkerInfo", "get_worker_info"]

# How often (seconds) a waiting worker checks that the main process still lives, and the
# main process that its workers do. torch polls every 5 s and learns of a dead worker
# sooner through a SIGCHLD handler; here there is no handler, so the poll is shorter.
STATUS_CHECK_INTERVAL = 0.5

_worker_info = None


@dataclasses.dataclass(frozen=True, slots=True)
class WorkerInfo:
    """Information about the current DataLoader worker process: ``id`` (0 to
    ``num_workers - 1``), ``num_workers``, ``seed`` (the base seed plus ``id``) and
    ``dataset`` (this process's copy of the dataset). Frozen: its fields cannot be set.
    ``rng`` and ``worker_method`` are torch's fields for thread workers, which this library
    does not have; they keep their defaults so that the repr reads as torch's."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = "multiprocessing"


def get_worker_info():
    """The ``WorkerInfo`` of the DataLoader worker process calling it; ``None`` in the main
    process. A dataset (or a ``worker_init_fn``) reads it to shard its data across workers
    or to seed other libraries from ``seed``."""
    return _worker_info


@dataclasses.dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """A worker's answer once its copy of an ``IterableDataset`` is exhausted."""
    worker_id: int


@dataclasses.dataclass(frozen=True)
class _ResumeIteration:
    """Sent to persistent workers at the start of a new epoch: start the dataset again."""


class _KeyErrorMessage(str):
    """A message whose repr is itself: ``KeyError`` shows its argument through ``repr``,
    which would print a traceback as one long quoted line."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception caught in a worker, sent to the main process as its type and formatted
    traceback (a traceback itself does not pickle), and raised again there by ``reraise``
    with torch's wording."""

    def __init__(self, where):
        exc_type, exc, tb = sys.exc_info()
        self.exc_msg = "".join(traceback.format_exception(exc_type, exc, tb))
        try:
            pickle.dumps(exc_type)
        except Exception:
            # a class that cannot travel (defined in a function, say) would be lost in the
            # queue's feeder thread and leave the main process waiting: send RuntimeError
            # and name the type in the message
            exc_type = RuntimeError
        self.exc_type = exc_type
        self.where = where

    def reraise(self):
        """Raise the same exception type with a message naming the worker and holding the
        worker's traceback; a ``RuntimeError`` where the type cannot be built from one
        message."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


def _numpy_seed(base_seed, worker_id):
    """The four 32-bit words that seed a worker's global NumPy generator, as torch's
    ``_generate_state``: that function is NumPy's ``SeedSequence`` (adapted) with the entropy
    ``[worker_id, low 32 bits of base_seed, high 32 bits, 0]``, so the SeedSequence of the
    integer whose 32-bit words those are gives the same numbers. A worker's NumPy state
    then differs from its ``random`` state, seeded from ``base_seed + worker_id``."""
    entropy = worker_id | (base_seed << 32)
    return np.random.SeedSequence(entropy).generate_state(4).tolist()


def _seed_worker(base_seed, worker_id):
    """Seed Python's ``random``, this library's generators and NumPy's global generator,
    in torch's order; returns the worker's seed."""
    from autograd_cy import manual_seed
    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(_numpy_seed(base_seed, worker_id))
    return seed


class _MapFetcher:
    """Fetch the samples of a map-style dataset at the given index (or batch of indices)."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def fetch(self, index):
        if self.auto_collation:
            return self.collate_fn(_fetch(self.dataset, index))
        return self.collate_fn(self.dataset[index])


class _IterableFetcher:
    """Read the next sample (or the next batch: one sample per entry of ``index``) from
    this worker's own iterator over an ``IterableDataset``. A short last batch is dropped
    with ``drop_last``, per worker as in torch; StopIteration once the iterator ends."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.auto_collation, self.collate_fn, self.drop_last = (auto_collation, collate_fn,
                                                                drop_last)
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        batch = []
        for _ in index:
            try:
                batch.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not batch or (self.drop_last and len(batch) < len(index)):
            raise StopIteration
        return self.collate_fn(batch)


def _worker_loop(iterable, dataset, index_queue, result_queue, done_event, auto_collation,
                 collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers):
    """The body of worker process ``worker_id``: seed, set the worker info, call
    ``init_fn(worker_id)``, then answer each task ``(idx, index)`` from ``index_queue`` with
    ``(idx, batch)`` on ``result_queue`` until the main process sends ``None``.
    See NOTE [DataLoader workers: result order and shutdown]."""
    global _worker_info
    try:
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        make_fetcher = _IterableFetcher if iterable else _MapFetcher
        init_error = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = make_fetcher(dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            # answered as the first task's result, so the main process raises it in order
            init_error = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
        # True once this worker's IterableDataset has ended: later tasks are skipped
        iteration_end = False
        parent = os.getppid()
        while os.getppid() == parent:          # the main process still lives
            try:
                task = index_queue.get(timeout=STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(task, _ResumeIteration):
                result_queue.put((task, None))             # acknowledge the new epoch
                iteration_end = False
                fetcher = make_fetcher(dataset, auto_collation, collate_fn, drop_last)
                continue
            if task is None:                               # the final signal
                break
            if done_event.is_set() or iteration_end:
                continue                                   # wait for the final signal
            idx, index = task
            if init_error is not None:
                data, init_error = init_error, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as error:
                    if isinstance(error, StopIteration) and iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
            result_queue.put((idx, data))
            del data, task, index
    except KeyboardInterrupt:
        pass                                               # the main process raises it
    if done_event.is_set():
        # the main process no longer reads: exit without flushing what is left unread
        result_queue.cancel_join_thread()
        result_queue.close()
