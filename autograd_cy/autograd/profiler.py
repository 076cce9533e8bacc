"""The autograd profiler, named as ``torch.autograd.profiler``.

``with profile() as prof:`` records every op (``aten::mul``, ``aten::tanh``), every backward
node the engine runs (``MulBackward0`` inside ``autograd::engine::evaluate_function:
MulBackward0``) and every ``record_function`` label as a timed range; ``prof.key_averages()
.table()`` summarises them in PyTorch's format and ``prof.export_chrome_trace(path)`` writes
a trace that ``chrome://tracing`` and Perfetto open. How recording stays free when no profile
is active: NOTE [Profiling ops] in pyx/profiling.pyx.

Where it differs from PyTorch's: built-in backward formulas compute on arrays, so no
``aten::mul`` appears inside ``MulBackward0``; ops reached inside other ops (matmul's ``mm``)
and factories (``tensor``, ``ones``) are not recorded; an op function looked up before the
profile started (``f = ag.mul``) is not recorded; ``profile_memory`` counts the bytes of
results only (no frees); the Chrome trace has the trace-event fields, not kineto's metadata.
"""
import contextlib
import functools
import math
import sqlite3
import warnings
from collections import defaultdict

import numpy as np

from autograd_cy._C import profiling as _profiling
from autograd_cy.op_swap import OpSwap
from autograd_cy._C.grad_mode import _is_profiler_enabled  # noqa: F401  (as torch's module has it)
from autograd_cy.autograd.profiler_util import (
    EventList, FunctionEvent, FunctionEventAvg, Interval, Kernel, MemRecordsAcc,
    StringTable, SCOPE_BACKWARD_FUNCTION, SCOPE_FUNCTION, SCOPE_USER,
)

__all__ = ["profile", "record_function", "emit_nvtx", "emit_itt", "EnforceUnique",
           "KinetoStepTracker", "load_nvprof", "parse_nvprof_trace", "EventList",
           "FunctionEvent", "FunctionEventAvg", "Interval", "Kernel", "MemRecordsAcc",
           "StringTable"]

_KIND = _profiling.KINDS
_SCOPE_OF_KIND = {_KIND["op"]: SCOPE_FUNCTION, _KIND["node"]: SCOPE_BACKWARD_FUNCTION,
                  _KIND["evaluate"]: SCOPE_FUNCTION, _KIND["user"]: SCOPE_USER}
_VALID_DEVICES = ("cuda", "xpu", "mtia", "hpu")


# ----------------------------------------------------------------- swapping the ops in

# Where torch records another name than the function's: the dtype shorthands are aten::to.
_ATEN_NAMES = {"float": "to", "double": "to", "half": "to", "bfloat16": "to", "int": "to",
               "long": "to", "short": "to", "char": "to", "byte": "to", "bool": "to",
               "cross_entropy": "cross_entropy_loss"}


def _recording(name, function):
    """``function``, recorded as torch's op for it, ``aten::<name>`` (NOTE [Profiling ops])."""
    op_name = "aten::" + _ATEN_NAMES.get(name, name)
    record_call = _profiling.record_call

    @functools.wraps(function)
    def recorded(*args, **kwargs):
        return record_call(op_name, function, args, kwargs)
    return recorded


_swap_maker = None      # the OpSwap of recording wrappers, made on first use
_swap = None            # the installed OpSwap while a profile (or emit_nvtx) is active
_active = None          # that profile


def _start(owner, record_shapes, profile_memory, push=None, pop=None):
    """Start recording for ``owner``; a recording already running is taken over (its
    events are dropped and its exit finds it no longer owns the recording)."""
    global _swap, _active, _swap_maker
    raw = _profiling.start(record_shapes, profile_memory, push, pop)
    if _swap is None:
        if _swap_maker is None:
            _swap_maker = OpSwap(_recording)
        _swap = _swap_maker
        _swap.install()
    _active = owner
    return raw


def _stop(owner):
    """Stop recording, if ``owner`` still owns it; return whether it did."""
    global _swap, _active
    if _active is not owner:
        return False
    _profiling.stop()
    _swap.uninstall()
    _swap = _active = None
    return True


# --------------------------------------------------------------------------- profile

def kineto_available():
    """False: this profiler records through autograd_cy's own hooks, not Kineto
    (``torch.autograd.kineto_available`` and ``torch.profiler.kineto_available``)."""
    return False


class profile:
    """Context manager that profiles autograd_cy's ops and autograd's backward nodes, as
    ``torch.autograd.profiler.profile``.

    Every op run inside it (``aten::mul``, ``aten::tanh``...), every backward node the
    engine runs (``autograd::engine::evaluate_function: MulBackward0`` around
    ``MulBackward0``) and every :class:`record_function` range becomes a
    :class:`FunctionEvent` timed on the CPU; a backward node's events carry the
    ``sequence_nr`` of the forward op that recorded the node.

    Args:
        enabled (bool): ``False`` makes the context manager a no-op.
        use_cuda (bool): deprecated, ``use_device="cuda"``.
        use_device (str, optional): the device whose memory and time to report ("cuda").
            Device kernels are not timed: device columns appear only for memory.
        record_shapes (bool): record each op's input shapes (``input_shapes``).
        with_flops (bool): accepted; no FLOPs are estimated (implies ``record_shapes``).
        profile_memory (bool): record the bytes each op allocated for its results.
        with_stack, with_modules, use_kineto, use_cpu, experimental_config, acc_events,
        custom_trace_id_callback, post_processing_timeout_s, activity_filters: accepted as
            torch accepts them.

    Recording swaps the ops for recording wrappers while the profile is active, so a
    function looked up before it started (``f = autograd_cy.mul``) is not recorded.

    Example::

        >>> import autograd_cy
        >>> x = autograd_cy.ones(3, requires_grad=True)
        >>> with autograd_cy.autograd.profiler.profile() as prof:
        ...     (x * 2).tanh().sum().backward()
        >>> rows = [(row.key, row.count) for row in prof.key_averages()]
        >>> rows[:3]
        [('aten::mul', 1), ('aten::tanh', 1), ('aten::sum', 1)]
        >>> rows[3]
        ('autograd::engine::evaluate_function: SumBackward0', 1)
        >>> table = prof.key_averages().table(sort_by="self_cpu_time_total")  # to print
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None, post_processing_timeout_s=None,
                 activity_filters=None):
        self.enabled = enabled
        if not self.enabled:
            return
        self.use_cuda = use_cuda
        if use_cuda:
            warnings.warn("The attribute `use_cuda` will be deprecated soon, please use "
                          "``use_device = 'cuda'`` instead.", FutureWarning, stacklevel=2)
            self.use_device = "cuda"
        else:
            self.use_device = use_device
        self._function_events = None
        self._old_function_events = None
        self._needs_processing = False
        self._raw = None
        self.entered = False
        self.record_shapes = record_shapes or with_flops
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_cpu = use_cpu
        self.acc_events = acc_events
        self.experimental_config = experimental_config
        self.custom_trace_id_callback = custom_trace_id_callback
        self.post_processing_timeout_s = post_processing_timeout_s
        self.activity_filters = activity_filters or {}
        self.profiling_start_time_ns = 0
        self.profiling_end_time_ns = 0
        if not self.use_cpu and not use_kineto:
            raise AssertionError("Device-only events supported only with Kineto "
                                 "(use_kineto=True)")
        if self.use_device is not None:
            if self.use_device not in _VALID_DEVICES:
                warnings.warn(f"The {self.use_device} is not a valid device option.",
                              stacklevel=2)
                self.use_device = None
            elif self.use_device == "cuda" and not _cuda_available():
                warnings.warn("CUDA is not available, disabling CUDA profiling", stacklevel=2)
                self.use_cuda = False
                self.use_device = None
            elif self.use_device != "cuda":
                warnings.warn(f"{self.use_device.upper()} is not available, disabling "
                              f"{self.use_device.upper()} profiling", stacklevel=2)
                self.use_device = None
        if post_processing_timeout_s is not None and post_processing_timeout_s < 0:
            raise ValueError("post_processing_timeout_s must be non-negative")

    def __enter__(self):
        if not self.enabled:
            return
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._start_trace()
        return self

    def _start_trace(self):
        """Start recording (torch.profiler.profile starts each cycle of a schedule here,
        re-entering one profile when it accumulates events)."""
        self._raw = _start(self, self.record_shapes, self.profile_memory)
        self.profiling_start_time_ns = _profiling.now_ns()

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        if self.use_device == "cuda":
            _cuda_synchronize()
        self.profiling_end_time_ns = _profiling.now_ns()
        if self._function_events and self.acc_events:
            self._old_function_events = self._function_events
        self._function_events = None
        if not _stop(self):
            self._raw = []          # taken over by a profile started inside this one
        self._needs_processing = True
        if self.acc_events:
            self._ensure_function_events()
        return False

    def __repr__(self):
        if self._needs_processing:
            self._ensure_function_events()
        if self._function_events is None:
            return "<unfinished torch.autograd.profile>"
        return repr(self._function_events)

    def __str__(self):
        if self._needs_processing:
            self._ensure_function_events()
        if self._function_events is None:
            return "<unfinished torch.autograd.profile>"
        return str(self._function_events)

    def _ensure_function_events(self):
        """Turn the raw events into FunctionEvents, once, after the profile ended."""
        if self._function_events is not None:
            return
        self._needs_processing = False
        raw = self._raw if self._raw is not None and not _is_recording(self) else []
        self._function_events = EventList(
            _function_events(raw, self.profiling_start_time_ns, self.use_device,
                             self.with_flops),
            use_device=self.use_device, profile_memory=self.profile_memory,
            with_flops=self.with_flops)
        self._function_events._build_tree()
        _clear_nested_sequence_numbers(self._function_events)
        _sum_memory_of_ranges(self._function_events)
        if self._old_function_events and self.acc_events:
            self._function_events.extend(self._old_function_events)
            self._old_function_events = None

    @property
    def function_events(self):
        """Every recorded event, an :class:`EventList` in order of start time."""
        if self._function_events is None or self._needs_processing:
            self._ensure_function_events()
        return self._function_events

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        self._ensure_function_events()
        return self._function_events.table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only)

    table.__doc__ = EventList.table.__doc__

    def export_chrome_trace(self, path, metadata=None, use_python_export=False):
        """Write the events to ``path`` as a Chrome trace-event JSON file
        (``chrome://tracing``, https://ui.perfetto.dev)."""
        self._ensure_function_events()
        return self._function_events.export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        self._ensure_function_events()
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        return self._function_events.export_stacks(path, metric)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        self._ensure_function_events()
        return self._function_events.key_averages(group_by_input_shape, group_by_stack_n,
                                                  group_by_overload_name)

    key_averages.__doc__ = EventList.key_averages.__doc__

    def total_average(self):
        self._ensure_function_events()
        return self._function_events.total_average()

    total_average.__doc__ = EventList.total_average.__doc__

    @property
    def self_cpu_time_total(self):
        """Total time spent on the CPU: the sum of every event's self time, in us."""
        self._ensure_function_events()
        return self._function_events.self_cpu_time_total


def _is_recording(owner):
    return _active is owner


def _function_events(raw, start_ns, use_device, with_flops=False):
    """FunctionEvents from the raw tuples of pyx/profiling.pyx (``RAW_FIELDS``), sorted by
    start time (the longer first), numbered from 1, times in microseconds since the start."""
    raw = sorted(raw, key=lambda r: (r[2], -r[3]))
    thread_ids = {}             # torch numbers the profiled threads 1, 2, ...
    events = []
    for number, (kind, name, start, end, ident, seq, shapes, cpu_bytes, device_bytes) in \
            enumerate(raw, 1):
        thread = thread_ids.setdefault(ident, len(thread_ids) + 1)
        backward = kind in (_KIND["node"], _KIND["evaluate"])
        if name.startswith("ProfilerStep#"):
            name = "ProfilerStep*"      # as torch names its step ranges in the results
        event = FunctionEvent(
            id=number, name=name, thread=thread, start_us=(start - start_ns) / 1000,
            end_us=(end - start_ns) / 1000,
            fwd_thread=thread if backward and seq >= 0 else 0,
            input_shapes=shapes if shapes is not None else [], stack=[],
            scope=_SCOPE_OF_KIND[kind], use_device=use_device,
            cpu_memory_usage=cpu_bytes, device_memory_usage=device_bytes,
            sequence_nr=seq, is_user_annotation=kind == _KIND["user"],
            flops=_flops(name, shapes) if with_flops else None)
        event._is_op = kind == _KIND["op"]
        events.append(event)
    return events


def _flops(name, shapes):
    """torch's FLOP estimate of an op from its input shapes: 2*M*K*N for a matrix product,
    one per output element for mul and add; 0 for any other op."""
    if name in ("aten::mm", "aten::bmm", "aten::addmm"):
        first, second = shapes[-2], shapes[-1]
        if len(first) >= 2 and len(second) >= 2:
            batch = first[0] if name == "aten::bmm" else 1
            return 2 * batch * first[-2] * first[-1] * second[-1]
        return 0
    if name in ("aten::mul", "aten::add"):
        tensor_shapes = [tuple(shape) for shape in shapes[:2]]
        try:
            return math.prod(np.broadcast_shapes(*tensor_shapes))
        except ValueError:
            return 0
    return 0


def _clear_nested_sequence_numbers(events):
    """An op run by another op gets ``sequence_nr`` -1 (in torch it runs below autograd)."""
    for event in events:
        if not getattr(event, "_is_op", False):
            continue
        parent = event.cpu_parent
        while parent is not None:
            if getattr(parent, "_is_op", False):
                event.sequence_nr = -1
                break
            parent = parent.cpu_parent


def _sum_memory_of_ranges(events):
    """A label's or a backward node's memory is what the ops inside it allocated (an op's
    own is the size of its results, recorded when it ran). Children start after their
    parent, so walking backwards sums each child before its parent."""
    for event in reversed(events):
        if not event._is_op:
            event.cpu_memory_usage = sum(c.cpu_memory_usage for c in event.cpu_children)
            event.device_memory_usage = sum(c.device_memory_usage for c in event.cpu_children)


def _cuda_available():
    from autograd_cy import cuda
    return cuda.is_available()


def _cuda_synchronize():
    from autograd_cy import cuda
    if cuda.is_available():
        cuda.synchronize()


# -------------------------------------------------------------------- record_function

class record_function(contextlib.ContextDecorator):
    """Context manager and decorator that labels a block of code in the profile.

    Inside an active :class:`profile` the block becomes one event named ``name`` (a
    user annotation) that contains the ops it runs; otherwise it does nothing.

    Args:
        name (str): the label.
        args (str, optional): accepted for torch's signature; not recorded.

    Example::

        >>> import autograd_cy
        >>> y = autograd_cy.ones(2)
        >>> with autograd_cy.autograd.profiler.profile() as prof:
        ...     with record_function("label-z"):
        ...         z = y ** 3
        >>> [(e.name, [c.name for c in e.cpu_children]) for e in prof.function_events]
        [('label-z', ['aten::pow']), ('aten::pow', [])]
    """

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self._start_ns = None

    def __enter__(self):
        self._start_ns = _profiling.now_ns()
        if _emitting is not None:
            _emitting.push(self.name)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.run_callbacks_on_exit:
            return
        if _emitting is not None:
            _emitting.pop()
        _profiling.record_range(self.name, self._start_ns, _profiling.now_ns())

    def _call_end_callbacks_on_future(self, fut):
        """End the range when the future ``fut`` completes instead of at ``__exit__``;
        return a future that completes after that."""
        if not self.run_callbacks_on_exit:
            raise RuntimeError("_call_end_callbacks_on_future can only be called once.")
        self.run_callbacks_on_exit = False
        start = self._start_ns

        def end_range(done):
            _profiling.record_range(self.name, start, _profiling.now_ns())
            return done.result() if hasattr(done, "result") else done
        return fut.then(end_range)


# ---------------------------------------------------------------- emit_nvtx, emit_itt

_emitting = None        # the NVTX range functions while emit_nvtx is active


class _NvtxRanges:
    def __init__(self, nvtx):
        self.push = nvtx.RangePush
        self.pop = nvtx.RangePop


def _real_gpu_nvtx():
    """CuPy's NVTX module when a real GPU backs autograd_cy.cuda, else None."""
    from autograd_cy import cuda
    from autograd_cy.cuda.seam import CupySeam
    if not any(isinstance(d.seam, CupySeam) for d in cuda.devices.all_devices()):
        return None
    from cupy.cuda import nvtx
    return nvtx


class emit_nvtx:
    """Context manager that makes every op and backward node an NVTX range, for nvprof /
    Nsight Systems, as ``torch.autograd.profiler.emit_nvtx``.

    An op's range is named ``aten::mul, seq = N`` (N: the sequence number of the backward
    node it records) and a node's ``MulBackward0, seq = N``, so a backward range can be
    matched with the forward op that made it. The ranges go through CuPy's NVTX bindings
    when a real GPU backs ``autograd_cy.cuda``; without one (the CPU, or the emulated
    device) no NVTX consumer exists and the context manager does nothing.

    Args:
        enabled (bool): ``False`` makes it a no-op.
        record_shapes (bool): accepted for torch's signature.
    """

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes
        self._ranges = None

    def __enter__(self):
        if not self.enabled:
            return
        if self.entered:
            raise RuntimeError("NVTX annotation context manager is not reentrant")
        self.entered = True
        nvtx = _real_gpu_nvtx()
        if nvtx is None:
            return self
        global _emitting
        _cuda_synchronize()
        self._ranges = _emitting = _NvtxRanges(nvtx)
        _start(self, False, False, self._ranges.push, self._ranges.pop)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled or self._ranges is None:
            return False
        global _emitting
        _cuda_synchronize()
        _stop(self)
        _emitting = self._ranges = None
        return False


class emit_itt:
    """Context manager that would emit Intel ITT ranges for VTune, as
    ``torch.autograd.profiler.emit_itt``. No ITT library is bound here, so it only checks
    its use (it is not reentrant) and records nothing.

    Args:
        enabled (bool): ``False`` makes it a no-op.
        record_shapes (bool): accepted for torch's signature.
    """

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes

    def __enter__(self):
        if not self.enabled:
            return
        if self.entered:
            raise RuntimeError("ITT annotation context manager is not reentrant")
        self.entered = True
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False


# ------------------------------------------------------------------------ utilities

class EnforceUnique:
    """Raises an error if a key is seen more than once."""

    def __init__(self):
        self.seen = set()

    def see(self, *key):
        """Observe a key and raise an error if it is seen multiple times."""
        if key in self.seen:
            raise RuntimeError("duplicate key: " + str(key))
        self.seen.add(key)


class KinetoStepTracker:
    """A global step count kept per requester ("ProfilerStep", an optimizer's step...):
    the global step is the largest of them, so several requesters stepping once each
    advance it once."""

    _current_step = 0
    _step_dict = defaultdict(int)

    @classmethod
    def init_step_count(cls, requester):
        """Start ``requester`` at the current global step."""
        cls._step_dict[requester] = cls._current_step

    @classmethod
    def erase_step_count(cls, requester):
        """Forget ``requester``; return whether it was known."""
        return cls._step_dict.pop(requester, None) is not None

    @classmethod
    def increment_step(cls, requester):
        """Advance ``requester``'s count; return the global step."""
        if requester not in cls._step_dict:
            cls.init_step_count(requester)
        cls._step_dict[requester] += 1
        new_step = max(cls._step_dict.values())
        if new_step > cls._current_step:
            if new_step - cls._current_step > 1:
                warnings.warn("Profiler step count has increased more than 1 - "
                              f"current_step = {cls._current_step} step dict =  "
                              f"{cls._step_dict}", stacklevel=2)
            cls._current_step = new_step
        return cls._current_step

    @classmethod
    def current_step(cls):
        """The latest step of any requester."""
        return cls._current_step


def load_nvprof(path):
    """The EventList of the autograd ranges in an nvprof trace (an SQLite file)."""
    return EventList(parse_nvprof_trace(path))


def parse_nvprof_trace(path):
    """FunctionEvents from the NVTX ranges of an nvprof SQLite trace, each with the kernels
    launched (``cudaLaunchKernel``, callback id 211) inside it; in the trace's time unit,
    sorted by start."""
    connection = sqlite3.connect(path)
    connection.row_factory = sqlite3.Row
    strings = StringTable()
    for row in connection.execute("SELECT _id_ AS id, value FROM StringTable"):
        strings[row["id"]] = row["value"]
    # A range is a pair of markers with one id: the start names it, the end has name 0.
    ranges = ("CUPTI_ACTIVITY_KIND_MARKER AS start INNER JOIN CUPTI_ACTIVITY_KIND_MARKER "
              "AS end ON start.id = end.id")
    events, by_id, unique = [], {}, EnforceUnique()
    for row in connection.execute(
            "SELECT start.id AS marker_id, start.name, start.timestamp AS start_time, "
            f"end.timestamp AS end_time FROM {ranges} WHERE start.name != 0 AND end.name = 0"):
        unique.see(row["marker_id"])
        event = FunctionEvent(id=row["marker_id"], node_id=0, name=strings[row["name"]],
                              start_us=row["start_time"], end_us=row["end_time"], thread=0)
        events.append(event)
        by_id[event.id] = event
    unique = EnforceUnique()
    for row in connection.execute(
            "SELECT start.id AS marker_id, runtime._id_ AS runtime_id, runtime.cbid, "
            "kernel.start AS kernel_start, kernel.end AS kernel_end, "
            f"kernel.name AS kernel_name FROM {ranges} "
            "INNER JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS runtime "
            "ON (start.timestamp < runtime.start AND runtime.end < end.timestamp) "
            "INNER JOIN CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL AS kernel "
            "ON kernel.correlationId = runtime.correlationId"):
        unique.see(row["marker_id"], row["runtime_id"])
        if row["cbid"] != 211:
            raise AssertionError(f"Expected cbid to be 211, but got {row['cbid']}")
        by_id[row["marker_id"]].append_kernel(row["kernel_name"], 0,
                                              row["kernel_end"] - row["kernel_start"])
    events.sort(key=lambda event: event.time_range.start)
    return events
