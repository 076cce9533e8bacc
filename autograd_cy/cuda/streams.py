"""CUDA streams and events, as ``torch.cuda`` names them: ``Stream``, ``Event``,
``current_stream``, ``default_stream``, ``set_stream`` and the ``stream(s)`` context.

A launch goes to its device's current stream. Backward keeps the streams of forward: each
backward node runs on the stream its forward op used, and the engine orders gradients that
cross streams with events (the core's NOTE [Streams of backward]). On the emulated device
every launch finishes before the call returns, so queries are always True and waits are
only recorded: which stream each launch went to (the seam's ``launch_log``) and which events
each stream waited on (``stream.waited``) is what its tests check.
"""
from autograd_cy._C import device as _core_device
from autograd_cy.cuda import devices


def _device_index(device):
    return devices.index_of(device)


def _seam(index):
    return devices.get(index).seam


class Stream:
    """A queue of kernel launches on one device, run in order (``torch.cuda.Stream``)."""

    def __init__(self, device=None, priority=0, **kwargs):
        self._index = _device_index(device)
        self._raw = kwargs.get("_raw")
        if self._raw is None:
            self._raw = _seam(self._index).new_stream(priority)

    @classmethod
    def _wrap(cls, index, raw):
        return cls(index, _raw=raw)

    @property
    def device(self):
        return _core_device.device("cuda", self._index)

    @property
    def cuda_stream(self):
        """The stream's handle (its number on the emulated device)."""
        return _seam(self._index).stream_handle(self._raw)

    @property
    def priority(self):
        return getattr(self._raw, "priority", 0)

    def wait_event(self, event):
        """Later launches on this stream wait until ``event`` has completed."""
        event.wait(self)

    def wait_stream(self, stream):
        """Later launches on this stream wait for what ``stream`` has queued so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Record ``event`` (a new one if None) at this point of the stream; return it."""
        event = Event() if event is None else event
        event.record(self)
        return event

    def query(self):
        """Whether every launch queued on this stream has finished."""
        return _seam(self._index).stream_done(self._raw)

    def synchronize(self):
        """Wait for every launch queued on this stream."""
        _seam(self._index).synchronize_stream(self._raw)

    def __eq__(self, other):
        return isinstance(other, Stream) and (self._index, self._raw) == (other._index, other._raw)

    def __hash__(self):
        return hash((self._index, self.cuda_stream))

    def __enter__(self):
        self._context = StreamContext(self)
        return self._context.__enter__()

    def __exit__(self, *exc):
        self._context.__exit__(*exc)

    def __repr__(self):
        return f"<autograd_cy.cuda.Stream device={self.device} cuda_stream={self.cuda_stream:#x}>"


class Event:
    """A marker in a stream: streams and the host can wait until the launches queued before
    it have finished (``torch.cuda.Event``)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = enable_timing
        self.blocking = blocking
        self.interprocess = interprocess
        self._index = self._raw = None

    def record(self, stream=None):
        """Record the event on ``stream`` (the current stream by default)."""
        stream = current_stream() if stream is None else stream
        if self._index is not None and self._index != stream._index:
            raise RuntimeError(f"Event device {self._index} does not match recording stream's "
                               f"device {stream._index}.")
        seam = _seam(stream._index)
        if self._raw is None:
            self._raw = seam.new_event(self.enable_timing, self.blocking)
        self._index = stream._index
        seam.record_event(stream._raw, self._raw)

    def wait(self, stream=None):
        """Make ``stream`` (the current one by default) wait for this event; an event never
        recorded is a no-op, as in torch."""
        stream = current_stream() if stream is None else stream
        if self._raw is not None:
            _seam(stream._index).wait_event(stream._raw, self._raw)

    def query(self):
        """Whether the launches before the event have finished (True if never recorded)."""
        return self._raw is None or _seam(self._index).event_done(self._raw)

    def synchronize(self):
        if self._raw is not None:
            _seam(self._index).synchronize_event(self._raw)

    def elapsed_time(self, end_event):
        """Milliseconds between this event and ``end_event``, both recorded with timing."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._raw is None or end_event._raw is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return _seam(self._index).elapsed_ms(self._raw, end_event._raw)

    def __repr__(self):
        return "<autograd_cy.cuda.Event uninitialized>" if self._raw is None else \
            f"<autograd_cy.cuda.Event on cuda:{self._index}>"


def current_stream(device=None):
    """The stream launches on ``device`` (the current device by default) go to now."""
    index = _device_index(device)
    return Stream._wrap(index, _seam(index).current_stream())


def default_stream(device=None):
    """The default stream of ``device``: what is current unless a stream context says else."""
    index = _device_index(device)
    return Stream._wrap(index, _seam(index).default_stream())


def set_stream(stream):
    """Make ``stream`` current on its device (prefer the ``stream(s)`` context)."""
    if stream is not None:
        _seam(stream._index).use_stream(stream._raw)


class StreamContext:
    """``with stream(s):`` launches go to ``s`` (and ``s``'s device is current); on exit the
    previous streams and device come back. ``stream(None)`` changes nothing."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is None:
            return None
        self._previous_device = devices.current_index()
        self._previous_stream = current_stream(self.stream._index)
        devices.set_current(self.stream._index)
        set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            set_stream(self._previous_stream)
            devices.set_current(self._previous_device)
        return False


def stream(stream):
    """The context in which launches go to ``stream`` (``torch.cuda.stream``)."""
    return StreamContext(stream)
