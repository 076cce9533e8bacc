"""The profiler's results, named as ``torch.autograd.profiler_util``.

A profile yields an :class:`EventList` of :class:`FunctionEvent` (one op, backward node or
``record_function`` range each, with its :class:`Interval` in microseconds and its place in
the tree of CPU events); ``key_averages()`` folds it into :class:`FunctionEventAvg` rows and
``table()`` prints them in PyTorch's format.
"""
import bisect
import enum
import itertools
import json
import math
import os
from collections import defaultdict, namedtuple

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "Interval", "Kernel",
           "MemRecordsAcc", "StringTable", "DeviceType"]


class DeviceType(enum.IntEnum):
    """Where an event ran (``torch._C._autograd.DeviceType``'s members that exist here)."""
    CPU = 0
    CUDA = 1

    def __str__(self):
        return f"DeviceType.{self.name}"


# RecordScope numbers torch reports in ``FunctionEvent.scope``.
SCOPE_FUNCTION, SCOPE_BACKWARD_FUNCTION, SCOPE_USER = 0, 1, 7


class Interval:
    """A time range ``[start, end)`` in microseconds."""

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        """The length of the interval."""
        return self.end - self.start


#: a device kernel an op launched (none are recorded on the CPU)
Kernel = namedtuple("Kernel", ["name", "device", "duration"])


def _format_time(time_us):
    """``12.345us``, ``1.234ms`` or ``1.234s``."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_time_us):
    """``time_us`` as a percentage of ``total_time_us`` (``NaN`` of nothing)."""
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _format_memory(nbytes):
    """A byte count in B, KB, MB or GB (powers of 1024)."""
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


def _time_string(attribute):
    return property(lambda self: _format_time(getattr(self, attribute)))


class FormattedTimesMixin:
    """The ``*_str`` forms of the times, and the per-call averages, of an event or a row."""

    cpu_time_str = _time_string("cpu_time")
    device_time_str = _time_string("device_time")
    cpu_time_total_str = _time_string("cpu_time_total")
    device_time_total_str = _time_string("device_time_total")
    self_cpu_time_total_str = _time_string("self_cpu_time_total")
    self_device_time_total_str = _time_string("self_device_time_total")

    @property
    def cpu_time(self):
        """Average CPU time per call, in microseconds."""
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def device_time(self):
        """Average device time per call, in microseconds."""
        return 0.0 if self.count == 0 else self.device_time_total / self.count


class FunctionEvent(FormattedTimesMixin):
    """One profiled range: an op (``aten::mul``), a backward node (``MulBackward0`` inside
    ``autograd::engine::evaluate_function: MulBackward0``) or a ``record_function`` label.

    ``sequence_nr`` links a backward node's events to the forward op that recorded the node
    (both carry the node's sequence number); ``fwd_thread`` is the thread of that forward.
    """

    def __init__(self, id, name, thread, start_us, end_us, overload_name="", fwd_thread=None,
                 input_shapes=None, stack=None, scope=0, use_device=None, cpu_memory_usage=0,
                 device_memory_usage=0, is_async=False, is_remote=False, sequence_nr=-1,
                 node_id=-1, device_type=DeviceType.CPU, device_index=0,
                 device_resource_id=None, is_legacy=False, flops=None, trace_name=None,
                 concrete_inputs=None, kwinputs=None, is_user_annotation=False):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.overload_name = overload_name
        self.trace_name = name if trace_name is None else trace_name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.kernels = []
        self.count = 1
        self.cpu_children = []
        self.cpu_parent = None
        self.input_shapes = input_shapes
        self.concrete_inputs = concrete_inputs
        self.kwinputs = kwinputs
        self.stack = stack
        self.scope = scope
        self.use_device = use_device
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.device_type = device_type
        self.device_index = device_index
        self.device_resource_id = thread if device_resource_id is None else device_resource_id
        self.is_legacy = is_legacy
        self.flops = flops
        self.is_user_annotation = is_user_annotation
        self.self_cpu_percent = -1
        self.total_cpu_percent = -1
        self.total_device_percent = -1

    def append_kernel(self, name, device, duration):
        self.kernels.append(Kernel(name, device, duration))

    def append_cpu_child(self, child):
        """Add a direct child (a range inside this one, on the same thread)."""
        if not isinstance(child, FunctionEvent):
            raise AssertionError("Expected child to be a FunctionEvent")
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        """Set the innermost range that contains this one."""
        if not isinstance(parent, FunctionEvent):
            raise AssertionError("Expected parent to be a FunctionEvent")
        self.cpu_parent = parent

    @property
    def self_cpu_memory_usage(self):
        """Bytes allocated by this range itself, its children's taken out."""
        if self.is_async:
            return 0
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_device_memory_usage(self):
        if self.is_async:
            return 0
        return self.device_memory_usage - sum(c.device_memory_usage for c in self.cpu_children)

    @property
    def cpu_time_total(self):
        """The range's length in microseconds, children included."""
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        """The range's length minus its children's."""
        if self.is_async:
            return 0
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def device_time_total(self):
        """Device time of the kernels this range launched: none are timed here."""
        if self.is_async or not self.use_device:
            return 0
        return (sum(k.duration for k in self.kernels)
                + sum(c.device_time_total for c in self.cpu_children))

    @property
    def self_device_time_total(self):
        if self.is_async or not self.use_device:
            return 0
        return self.device_time_total - sum(c.device_time_total for c in self.cpu_children)

    @property
    def key(self):
        """What ``key_averages`` groups by: the name."""
        return self.name

    def __repr__(self):
        device = self.use_device
        return (f"<FunctionEvent id={self.id} name={self.name} "
                f"overload_name={self.overload_name} device_type={self.device_type} "
                f"node_id={self.node_id} cpu_time={self.cpu_time_str} "
                f"start_us={self.time_range.start} end_us={self.time_range.end} "
                f"cpu_children={[c.id for c in self.cpu_children]} "
                f"{device}_time={self.device_time_str} name={self.name} "
                f"thread={self.thread} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage} "
                f"{device}_memory_usage={self.device_memory_usage} is_async={self.is_async} "
                f"is_remote={self.is_remote} seq_nr={self.sequence_nr} "
                f"is_legacy={self.is_legacy}>")


class FunctionEventAvg(FormattedTimesMixin):
    """The totals of every event of one key (``key_averages``), or of all (``total_average``)."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0
        self.device_time_total = 0
        self.self_cpu_time_total = 0
        self.self_device_time_total = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.is_user_annotation = False
        self.flops = 0

    def add(self, other):
        """Add an event (or another row) of the same key to this row."""
        if self.key is None:
            # The first event gives the row its descriptive fields.
            for field in ("key", "node_id", "is_async", "is_remote", "cpu_parent",
                          "cpu_children", "overload_name", "input_shapes", "stack", "scope",
                          "device_type", "is_legacy", "use_device", "is_user_annotation"):
                setattr(self, field, getattr(other, field))
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        for field in ("cpu_time_total", "device_time_total", "self_cpu_time_total",
                      "self_device_time_total", "cpu_memory_usage", "device_memory_usage",
                      "self_cpu_memory_usage", "self_device_memory_usage", "count"):
            setattr(self, field, getattr(self, field) + getattr(other, field))
        if self.flops is None:
            self.flops = other.flops
        elif other.flops is not None:
            self.flops += other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        device = self.use_device or "cuda"
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str}  self_{device}_time="
                f"{self.self_device_time_total_str} {device}_time={self.device_time_str} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
                f"{device}_memory_usage={self.device_memory_usage}>")


class StringTable(defaultdict):
    """Interned names: a missing key maps to itself (there are no C++ symbols to demangle)."""

    def __missing__(self, key):
        self[key] = key
        return key


class MemRecordsAcc:
    """Memory records sorted by time, to find those inside an interval quickly.

    Each record is a pair whose first item has ``start_ns()``, as torch's are."""

    def __init__(self, mem_records):
        self._mem_records = mem_records
        order = sorted((r[0].start_ns(), i) for i, r in enumerate(mem_records))
        self._start_nses = [start for start, _ in order]
        self._indices = [i for _, i in order]

    def in_interval(self, start_ns, end_ns):
        """The records that start within ``[start_ns, end_ns]``."""
        first = bisect.bisect_left(self._start_nses, start_ns)
        last = bisect.bisect_right(self._start_nses, end_ns)
        for i in range(first, last):
            yield self._mem_records[self._indices[i]]


class EventList(list):
    """A list of FunctionEvents (or of FunctionEventAvg rows) with the reports over them."""

    def __init__(self, *args, **kwargs):
        use_device = kwargs.pop("use_device", None)
        profile_memory = kwargs.pop("profile_memory", False)
        with_flops = kwargs.pop("with_flops", False)
        super().__init__(*args, **kwargs)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._tree_built = False

    def _build_tree(self):
        self._populate_cpu_children()
        self._remove_dup_nodes()
        self._tree_built = True

    def __str__(self):
        return self.table()

    def _populate_cpu_children(self):
        """Each event's parent is the innermost event of its thread whose range contains it.

        Per thread, events sorted by start (the longer first on a tie) are walked with a
        stack of open ranges; a range that ends before the next starts is closed."""
        events = sorted((e for e in self if not e.is_async), key=lambda e: e.thread)
        for _, thread_events in itertools.groupby(events, key=lambda e: (e.thread, e.node_id)):
            open_ranges = []
            for event in sorted(thread_events,
                                key=lambda e: (e.time_range.start, -e.time_range.end)):
                while open_ranges:
                    parent = open_ranges[-1]
                    if (event.time_range.start >= parent.time_range.end
                            or event.time_range.end > parent.time_range.end):
                        open_ranges.pop()
                    else:
                        parent.append_cpu_child(event)
                        event.set_cpu_parent(parent)
                        break
                open_ranges.append(event)

    def _remove_dup_nodes(self):
        """Fold an event into its parent when both have one name and it is the only child
        (a method that calls the function of the same op records it twice)."""
        while True:
            duplicates = set()
            for index, event in enumerate(self):
                parent = event.cpu_parent
                if (parent is not None and parent.name == event.name
                        and len(parent.cpu_children) == 1):
                    parent.cpu_children = event.cpu_children
                    parent.kernels = event.kernels
                    for child in event.cpu_children:
                        child.cpu_parent = parent
                    duplicates.add(index)
            if not duplicates:
                return
            kept = [event for index, event in enumerate(self) if index not in duplicates]
            self.clear()
            self.extend(kept)

    @property
    def self_cpu_time_total(self):
        """The sum of every event's self CPU time: the profiled time, in microseconds."""
        return sum(event.self_cpu_time_total for event in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The events as PyTorch's text table.

        Args:
            sort_by (str, optional): the attribute rows are sorted by, largest first
                (``cpu_time``, ``cpu_time_total``, ``self_cpu_time_total``,
                ``cpu_memory_usage``, ``self_cpu_memory_usage``, ``count``, and the
                ``cuda``/``device`` forms); by default, in recording order.
            row_limit (int): at most this many rows.
            top_level_events_only (bool): only events with no parent.
            time_unit (str, optional): ``"s"``, ``"ms"`` or ``"us"`` for every time.
        """
        return _build_table(self, sort_by=sort_by, row_limit=row_limit,
                            max_src_column_width=max_src_column_width,
                            max_name_column_width=max_name_column_width,
                            max_shapes_column_width=max_shapes_column_width, header=header,
                            profile_memory=self._profile_memory, with_flops=self._with_flops,
                            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace-event file (``chrome://tracing``, Perfetto):
        ``{"traceEvents": [...]}`` with one complete event (``"ph": "X"``, ``ts`` and
        ``dur`` in microseconds) per range."""
        pid = os.getpid()
        trace = []
        for event in self:
            if event.trace_name is None:
                continue
            args = {}
            if event.sequence_nr >= 0:
                args["Sequence number"] = event.sequence_nr
                args["Fwd thread id"] = event.fwd_thread or 0
            if event.input_shapes:
                args["Input Dims"] = event.input_shapes
            trace.append({
                "ph": "X",
                "cat": "user_annotation" if event.is_user_annotation else "cpu_op",
                "name": event.trace_name, "pid": pid, "tid": event.thread,
                "ts": event.time_range.start, "dur": event.time_range.elapsed_us(),
                "args": args,
            })
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": trace,
                       "traceName": str(path)}, f)

    def supported_export_stacks_metrics(self):
        return ["self_cpu_time_total", "self_cuda_time_total", "self_xpu_time_total",
                "self_privateuse1_time_total"]

    def export_stacks(self, path, metric):
        """Write ``stack;frames value`` lines (a flame graph's input) for events with a stack."""
        if metric not in self.supported_export_stacks_metrics():
            raise ValueError("metric should be one of: "
                             + str(self.supported_export_stacks_metrics()))
        translate = str.maketrans(" ;\t\n", "____")
        attribute = (metric.replace("cuda", "device").replace("xpu", "device")
                     .replace("privateuse1", "device"))
        with open(path, "w") as f:
            for event in self:
                value = int(getattr(event, attribute))
                if event.stack and value > 0:
                    frames = ";".join(entry.translate(translate)
                                      for entry in reversed(event.stack))
                    f.write(f"{frames} {value}\n")

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """One FunctionEventAvg per event name (and, if asked, input shapes or the top
        ``group_by_stack_n`` stack frames), in order of first appearance."""
        if not self._tree_built:
            raise AssertionError("Expected tree to be built before calling key_averages")
        rows = defaultdict(FunctionEventAvg)
        for event in self:
            key = [str(event.key), str(event.node_id), str(event.device_type),
                   str(event.is_legacy), str(event.is_user_annotation)]
            if group_by_overload_name:
                key.append(event.overload_name)
            if group_by_input_shapes:
                key.append(str(event.input_shapes))
            if group_by_stack_n > 0:
                key += (event.stack or [])[:group_by_stack_n]
            rows[tuple(key)].add(event)
        averages = EventList(rows.values(), use_device=self._use_device,
                             profile_memory=self._profile_memory, with_flops=self._with_flops)
        for row in averages:
            row.stack = (row.stack or [])[:group_by_stack_n]
            if not group_by_input_shapes:
                row.input_shapes = ""
            if not group_by_overload_name:
                row.overload_name = ""
        return averages

    def total_average(self):
        """One FunctionEventAvg, keyed ``"Total"``, over every event."""
        total = FunctionEventAvg()
        for event in self:
            total += event
            total.key = None
        total.key = "Total"
        return total


def _build_table(events, sort_by=None, header=None, row_limit=100, max_src_column_width=75,
                 max_name_column_width=55, max_shapes_column_width=80, with_flops=False,
                 profile_memory=False, top_level_events_only=False, time_unit=None):
    """PyTorch's summary table of ``events`` (FunctionEvents or FunctionEventAvg rows)."""
    if len(events) == 0:
        return ""
    use_device = events[0].use_device
    has_device_time = any(e.self_device_time_total > 0 for e in events)
    has_device_memory = any(e.self_device_memory_usage > 0 for e in events)
    has_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    has_overloads = any(e.overload_name for e in events)
    if sort_by is not None:
        attribute = (sort_by.replace("cuda", "device").replace("xpu", "device")
                     .replace("privateuse1", "device"))
        events = EventList(sorted(events, key=lambda e: getattr(e, attribute), reverse=True),
                           use_device=use_device, profile_memory=profile_memory,
                           with_flops=with_flops)
    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_width = min(shapes_width, max_shapes_column_width)
    stacks = [e.stack for e in events if e.stack]
    src_width = None
    if stacks:
        src_width = max(len(entry) for stack in stacks for entry in stack) + 4
        if max_src_column_width is not None:
            src_width = min(src_width, max_src_column_width)

    device_name = use_device.upper() if use_device is not None else "None"
    headers = ["Name"] + (["Overload Name"] if has_overloads else [])
    headers += ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if has_device_time:
        headers += [f"Self {device_name}", f"Self {device_name} %", f"{device_name} total",
                    f"{device_name} time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
        if use_device and has_device_memory:
            headers += [f"{device_name} Mem", f"Self {device_name} Mem"]
    headers.append("# of Calls")
    with_node_id = any(e.node_id != -1 for e in events)
    if with_node_id:
        headers.append("Node ID")

    # Each column: right-aligned to its width (the source column left-aligned), two spaces
    # after it; the separator line is dashes of the same widths.
    widths = [name_width] + [name_width] * has_overloads
    widths += [12] * (len(headers) - len(widths))
    aligns = [">"] * len(widths)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
        aligns.append(">")
    if stacks:
        headers.append("Source Location")
        widths.append(src_width)
        aligns.append("<")
    flops_scale = 1.0
    if with_flops:
        flops = [e.flops for e in events if e.flops and e.flops > 0]
        if flops:
            prefixes = ["", "K", "M", "G", "T", "P"]
            exponent = int(min(max(0.0, _log1000(min(flops))), len(prefixes) - 1))
            flops_scale = 1000.0 ** -exponent
            headers.append(f"Total {prefixes[exponent]}FLOPs")
            widths.append(12)
            aligns.append(">")
        else:
            with_flops = False
    row_format = "".join("{: " + align + str(width) + "}  " for align, width in zip(aligns, widths))
    separator = "".join("-" * width + "  " for width in widths)
    line_length = sum(widths) + 2 * (len(widths) - 1)

    def unit(time_us, default):
        if time_unit == "s":
            return f"{time_us / 1e6:.3f}s"
        if time_unit == "ms":
            return f"{time_us / 1e3:.3f}ms"
        if time_unit == "us":
            return f"{time_us:.3f}us"
        return default

    def trim_path(path):
        if len(path) > src_width:
            path = path[len(path) - src_width:]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    total_self_cpu = sum(e.self_cpu_time_total for e in events)
    total_self_device = sum(e.self_device_time_total for e in events
                            if e.device_type != DeviceType.CPU and not e.is_user_annotation)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]
    shown = 0
    for event in events:
        if shown == row_limit:
            break
        if top_level_events_only and event.cpu_parent is not None:
            continue
        shown += 1
        name = event.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        event.self_cpu_percent = _format_time_share(event.self_cpu_time_total, total_self_cpu)
        event.total_cpu_percent = (0 if event.is_async else
                                   _format_time_share(event.cpu_time_total, total_self_cpu))
        row = [name]
        if has_overloads:
            overload = event.overload_name or ""
            if max_name_column_width is not None and len(overload) >= max_name_column_width - 3:
                overload = overload[:max_name_column_width - 3] + "..."
            row.append(overload)
        row += [event.self_cpu_percent,
                unit(event.self_cpu_time_total, event.self_cpu_time_total_str),
                event.total_cpu_percent,
                unit(event.cpu_time_total, event.cpu_time_total_str),
                unit(event.cpu_time, event.cpu_time_str)]
        if has_device_time:
            event.total_device_percent = _format_time_share(event.self_device_time_total,
                                                            total_self_device)
            row += [unit(event.self_device_time_total, event.self_device_time_total_str),
                    event.total_device_percent,
                    unit(event.device_time_total, event.device_time_total_str),
                    unit(event.device_time, event.device_time_str)]
        if profile_memory:
            row += [_format_memory(event.cpu_memory_usage),
                    _format_memory(event.self_cpu_memory_usage)]
            if use_device and has_device_memory:
                row += [_format_memory(event.device_memory_usage),
                        _format_memory(event.self_device_memory_usage)]
        row.append(event.count)
        if with_node_id:
            row.append(event.node_id)
        if has_shapes:
            row.append(str(event.input_shapes)[:shapes_width])
        if with_flops:
            row.append("--" if not event.flops or event.flops <= 0
                       else f"{event.flops * flops_scale:8.3f}")
        if stacks:
            row.append(trim_path(event.stack[0]) if event.stack else "")
        lines.append(row_format.format(*row))
        if stacks:
            blank = [""] * (len(headers) - 1)
            for entry in (event.stack or [])[1:]:
                lines.append(row_format.format(*(blank + [trim_path(entry)])))
            lines.append(row_format.format(*(blank + [""])))
    lines.append(separator)
    lines.append(f"Self CPU time total: {unit(total_self_cpu, _format_time(total_self_cpu))}")
    if has_device_time:
        lines.append(f"Self {device_name} time total: "
                     f"{unit(total_self_device, _format_time(total_self_device))}")
    return "".join(line + "\n" for line in lines)


def _log1000(value):
    return math.log10(value) / 3
