"""``Work``, the handle of a collective started with ``async_op=True`` (as torch's
``dist.Work``), and the ``Future`` its ``get_future()`` returns (as ``torch.futures.Future``),
which DDP's communication hooks chain with ``then``."""

__all__ = ["Work", "Future"]


class Work:
    """A collective in flight: ``wait()`` blocks until it completes (and has written its
    output tensors), ``is_completed()`` asks without blocking. ``wait_for(timeout)`` is the
    process group's wait loop (NOTE [When a rank fails]); ``finish()`` writes the results
    into the output tensors once the transport is done."""

    def __init__(self, requests, test_all, wait_for, finish=None, outputs=()):
        self._requests = requests
        self._test_all = test_all
        self._wait_for = wait_for
        self._finish = finish
        self._outputs = list(outputs)
        self._done = False
        self._exception = None

    def is_completed(self):
        """Whether the collective has completed (this call also lets MPI progress)."""
        if not self._done and self._test_all(self._requests):
            self._complete()
        return self._done

    def wait(self, timeout=None):
        """Block until the collective completes; True. Raises ``DistBackendError`` when
        another rank fails or the timeout (a ``timedelta``, the group's by default)
        passes."""
        if not self._done:
            try:
                self._wait_for(self._requests, timeout)
            except Exception as error:
                self._exception = error
                raise
            self._complete()
        return True

    def _complete(self):
        self._done = True
        if self._finish is not None:
            self._finish()
            self._finish = None

    def is_success(self):
        """Whether the collective completed without an error."""
        return self._done and self._exception is None

    def exception(self):
        """The error the collective failed with, or None."""
        return self._exception

    def result(self):
        """The output tensors (after ``wait()``)."""
        return self._outputs

    def get_future(self):
        """A ``Future`` whose value is ``result()``, once the collective completes."""
        return Future(self, lambda: self._outputs)

    def __repr__(self):
        return f"<Work completed={self._done}>"


class Future:
    """A value that becomes available when a collective completes, as ``torch.futures.Future``:
    ``wait()``/``value()``, ``done()``, and ``then(callback)`` for a future of
    ``callback(this_future)``. A Future made empty is completed with ``set_result``."""

    def __init__(self, work=None, compute=None):
        self._work = work
        self._compute = compute
        self._has_value = False
        self._value = None

    def set_result(self, value):
        """Complete an empty future with ``value``."""
        if self._has_value:
            raise RuntimeError("Future can only be marked completed once.")
        self._value, self._has_value = value, True

    def done(self):
        """Whether the value is ready (without blocking)."""
        return self._has_value or (self._work is not None and self._work.is_completed())

    def wait(self):
        """Block until the value is ready, and return it."""
        if not self._has_value:
            if self._work is None:
                raise RuntimeError("wait() of a Future that nothing will complete")
            self._work.wait()
            self._value, self._has_value = self._compute(), True
        return self._value

    def value(self):
        """The value of a completed future."""
        return self.wait()

    def then(self, callback):
        """The future of ``callback(self)``, computed once this one completes."""
        return Future(_Chain(self), lambda: callback(self))


class _Chain:
    """The work of a ``then``-future: the parent future's."""

    def __init__(self, parent):
        self._parent = parent

    def is_completed(self):
        return self._parent.done()

    def wait(self):
        self._parent.wait()
        return True
