"""Worker processes that survive a crash of the code under test.

multiprocessing.Pool waits forever for the task of a worker killed by a signal; here
each worker runs one item at a time, so the parent knows which item a dead worker was
on, reports it as a crash, and starts a new worker.
"""
import multiprocessing
from multiprocessing.connection import wait


class Crash:
    """What a worker that died on an item left behind."""

    def __init__(self, exitcode):
        self.exitcode = exitcode

    def __repr__(self):
        return f"Crash(exit code {self.exitcode})"


def _serve(conn, fn):
    while True:
        item = conn.recv()
        if item is None:
            return
        conn.send(fn(item))


def run_all(fn, items, jobs):
    """Yield ``(item, fn(item))`` (or ``(item, Crash)``) for every item, in any order."""
    context = multiprocessing.get_context("fork")
    items = list(items)
    if jobs <= 1:
        for item in items:
            yield item, fn(item)
        return
    todo = iter(items)
    workers = {}            # connection -> (process, current item)

    def start():
        parent, child = context.Pipe()
        process = context.Process(target=_serve, args=(child, fn), daemon=True)
        process.start()
        child.close()
        return parent, process

    def feed(conn, process):
        item = next(todo, None)
        if item is None:
            conn.send(None)
            process.join()
            return
        conn.send(item)
        workers[conn] = (process, item)

    for _ in range(min(jobs, len(items))):
        feed(*start())
    while workers:
        for conn in wait(list(workers)):
            process, item = workers.pop(conn)
            try:
                result = conn.recv()
            except (EOFError, OSError):
                process.join()
                yield item, Crash(process.exitcode)
                conn.close()
                feed(*start())
                continue
            yield item, result
            feed(conn, process)
