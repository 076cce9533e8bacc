"""The DataLoader's iterator with worker processes (``num_workers > 0``), as torch's
``_MultiProcessingDataLoaderIter``: it starts the workers (``worker.py``), hands each its
share of the sampler's indices through its own index queue, and reads the collated batches
back from one shared result queue, in sampler order.

NOTE [DataLoader workers: result order and shutdown]
Ordering. Every task gets a sequence number ``idx`` as it is sent (``_send_idx``); the
tasks go round-robin to the workers still active, at most ``prefetch_factor *
num_workers`` of them outstanding at a time. Workers finish in any order, so a result that
arrives before the one the caller waits for (``_rcvd_idx``) is parked in ``_task_info[idx]``
(which holds ``(worker_id,)`` while the task is out and ``(worker_id, data)`` once its
result is in) until its turn; each result handed to the caller sends one new task, which
keeps the pipeline full. With ``in_order=False`` a result is handed over as it arrives, and
a task goes to a worker only while it has fewer than its fair share of the outstanding
tasks, so a slow sample does not hold up the others.
An ``IterableDataset`` has no indices: a task is "the next sample" (or a list of
``batch_size`` placeholders: "the next batch"), and each worker answers from its own copy of
the dataset. A worker whose copy has ended answers ``_IterableDatasetStopIteration``; it is
then sent no more tasks, and the tasks it still had out are skipped when their turn comes.
The epoch ends when no task is left out and the sampler has no more indices.

Shutdown. A worker stops when it reads ``None`` from its index queue. At the end of an
epoch (unless ``persistent_workers``), when the iterator is garbage-collected (a loop that
breaks early drops it) or when an error is raised, the main process sets ``done_event``
(workers skip any task still queued), sends every worker ``None``, joins each for a moment
and terminates any still alive. Neither side must block on a queue the other no longer
reads: index queues are closed with ``cancel_join_thread``, and a worker that sees
``done_event`` does the same with the result queue. The workers are daemon processes, and
each leaves its loop once the main process is gone (its parent pid changes), so none
outlives the program. While waiting for a result the main process checks every
``STATUS_CHECK_INTERVAL`` seconds that its workers live: one that died (``os._exit``, a
signal) raises RuntimeError instead of a wait for ever. Persistent workers are kept across
epochs: a new epoch sends each ``_ResumeIteration`` and discards whatever results of the
previous epoch are still in the queue until every worker has acknowledged it."""
import atexit
import itertools
import multiprocessing
import os
import queue
import weakref

from autograd_cy import factories, int64
from autograd_cy.utils.data import worker as _worker

__all__ = []

_python_exiting = False


def _set_python_exiting():
    # at interpreter exit the queues and modules may already be torn down: leave the daemon
    # workers to multiprocessing's own exit handler, as torch does
    global _python_exiting
    _python_exiting = True


atexit.register(_set_python_exiting)


def _index_sampler(loader):
    """What the main process draws tasks from: the batch sampler (auto-collation) or the
    sampler; for an ``IterableDataset`` an endless stream of placeholders."""
    if loader._iterable:
        if loader._auto_collation:
            return _Endless([None] * loader.batch_size)
        return _Endless(None)
    return loader.batch_sampler if loader._auto_collation else loader.sampler


class _Endless:
    """torch's ``_InfiniteConstantSampler`` (batched): the same placeholder for ever."""

    def __init__(self, value):
        self.value = value

    def __iter__(self):
        return itertools.repeat(self.value)


class _MultiProcessingDataLoaderIter:
    """One epoch (or, with ``persistent_workers``, every epoch) of a DataLoader loaded by
    worker processes. See NOTE [DataLoader workers: result order and shutdown]."""

    def __init__(self, loader):
        self._loader = weakref.ref(loader)     # for len(); no cycle with a persistent loader
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        self._timeout = loader.timeout
        self._persistent_workers = loader.persistent_workers
        self._iterable = loader._iterable
        # torch's order: the sampler's iterator, then the base seed (one draw of the
        # loader's generator), which the workers' seeds derive from
        self._sampler_iter = iter(_index_sampler(loader))
        base_seed = factories.empty((), dtype=int64).random_(generator=loader.generator).item()
        context = loader.multiprocessing_context or multiprocessing.get_context()
        self._shutdown = False
        self._owner_pid = os.getpid()
        self._workers_status = [True] * self._num_workers
        self._result_queue = context.Queue()
        self._done_event = context.Event()
        self._index_queues, self._workers = [], []
        for worker_id in range(self._num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()
            process = context.Process(target=_worker._worker_loop, args=(
                self._iterable, loader.dataset, index_queue, self._result_queue,
                self._done_event, loader._auto_collation, loader.collate_fn,
                loader.drop_last, base_seed, loader.worker_init_fn, worker_id,
                self._num_workers), daemon=True)
            process.start()
            self._index_queues.append(index_queue)
            self._workers.append(process)
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        """Start an epoch: a new sampler iterator, no task out, every worker active; then
        fill the pipeline with ``prefetch_factor * num_workers`` tasks."""
        self._sampler_iter = iter(_index_sampler(loader))
        self._send_idx = 0              # the number of the next task to send
        self._rcvd_idx = 0              # the number of the next result to hand over
        self._task_info = {}            # idx -> (worker_id,) or (worker_id, data)
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            for index_queue in self._index_queues:
                index_queue.put(_worker._ResumeIteration())
            waiting = self._num_workers
            while waiting > 0:          # results of the previous epoch are dropped
                idx, _ = self._get_data()
                if isinstance(idx, _worker._ResumeIteration):
                    waiting -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader())

    def __next__(self):
        while True:
            # skip the tasks of workers whose IterableDataset has ended
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info:
                    if len(info) == 2 or self._workers_status[info[0]]:
                        break           # its data is in, or its worker will answer
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:     # parked earlier: its turn
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if isinstance(data, _worker._IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx == self._rcvd_idx:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)
            if not self._in_order:
                worker_id = self._task_info.pop(idx)[0]
                return self._process_data(data, worker_id)
            self._task_info[idx] += (data,)                   # park it until its turn

    def _try_put_index(self):
        """Send the sampler's next index to the next active worker (round-robin)."""
        max_tasks = self._prefetch_factor * self._num_workers
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._worker_cycle)
            if self._workers_status[worker_id] and (
                    self._in_order or self._workers_num_tasks[worker_id]
                    < max_tasks // sum(self._workers_status)):
                break
        else:
            return                      # no worker can take it
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._workers_num_tasks[worker_id] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data, worker_id):
        self._workers_num_tasks[worker_id] -= 1
        self._try_put_index()
        if isinstance(data, _worker.ExceptionWrapper):
            data.reraise()
        return data

    def _get_data(self):
        """The next ``(idx, data)`` from the result queue, whichever worker sent it."""
        if self._timeout > 0:
            found, data = self._try_get_data(self._timeout)
            if not found:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            return data
        while True:
            found, data = self._try_get_data(_worker.STATUS_CHECK_INTERVAL)
            if found:
                return data

    def _try_get_data(self, timeout):
        """``(True, item)``, or ``(False, None)`` when nothing came within ``timeout``
        seconds; a worker found dead meanwhile raises RuntimeError."""
        try:
            return True, self._result_queue.get(timeout=timeout)
        except queue.Empty as empty:
            failed = []
            for worker_id, process in enumerate(self._workers):
                if self._workers_status[worker_id] and not process.is_alive():
                    failed.append(process)
                    self._mark_worker_as_unavailable(worker_id)
            if failed:
                pids = ", ".join(str(process.pid) for process in failed)
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited "
                                   "unexpectedly") from empty
            return False, None

    def _mark_worker_as_unavailable(self, worker_id):
        """Send the worker the final signal; it gets no more tasks."""
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self):
        """Stop every worker (see the NOTE); safe to call more than once."""
        if _python_exiting or self._shutdown:
            return
        self._shutdown = True
        try:
            self._done_event.set()
            for worker_id in range(self._num_workers):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id)
            for process in self._workers:
                process.join(timeout=_worker.STATUS_CHECK_INTERVAL)
            for index_queue in self._index_queues:
                index_queue.cancel_join_thread()
                index_queue.close()
        finally:
            for process in self._workers:
                if process.is_alive():
                    process.terminate()
                    process.join(timeout=_worker.STATUS_CHECK_INTERVAL)

    def __getstate__(self):
        raise NotImplementedError(f"{type(self).__name__} cannot be pickled")

    def __del__(self):
        # a forked worker inherits this object too: only the process that started the
        # workers may stop them
        if getattr(self, "_workers", None) is not None and os.getpid() == self._owner_pid:
            self._shutdown_workers()
