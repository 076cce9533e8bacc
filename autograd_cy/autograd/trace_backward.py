"""``trace_backward``: run a real backward and see, step by step, what the engine did.

The engine reports its own events while a trace records (NOTE [Tracing the engine] in
pyx/tracing.pyx), so the trace is the backward itself, not a model of it, and the gradients
land in ``.grad`` exactly as a plain ``backward()`` puts them there. Its events, in order:

- ``dependencies``: for every node, breadth-first from the root, how many edges point at it:
  how many gradients it waits for before it may run;
- ``plan`` (with ``inputs=``): which nodes run, and which are pruned (no path to an input);
- ``pop``: the ready queue hands out a node: the newest forward op (largest
  ``sequence_nr``) first; the event shows what else was ready and why this one won;
- ``hook``: a hook is called (tensor pre-hook, retains_grad, node pre-hook, node post-hook,
  post accumulate grad), in the order the engine calls them;
- ``input``: one gradient the node produced goes into the InputBuffer slot of the node at
  the other end of the edge (stored, summed with an earlier one, or dropped when pruned);
  when that node's last gradient has arrived it is ready;
- ``accumulate``: an AccumulateGrad writes its leaf's ``.grad``.

Example: a diamond, ``x`` used twice:

>>> import autograd_cy as ag
>>> x = ag.tensor([1.0, 2.0], requires_grad=True)
>>> y = x * 2
>>> loss = (y * y + y).sum()
>>> trace = ag.autograd.trace_backward(loss, names={"x": x, "y": y})
>>> [node.name() for node in trace.node_order]
['SumBackward0', 'AddBackward0', 'MulBackward0', 'MulBackward0', 'torch::autograd::AccumulateGrad']
>>> x.grad
tensor([10., 18.])
>>> print(trace.table(kinds=("pop",)))
step  event         node               seq  details
   5  pop           SumBackward0         3  the only one ready; gets float32[]
   7  pop           AddBackward0         2  the only one ready; gets float32[2]
  10  pop           MulBackward0#1       1  the only one ready; gets float32[2]
  13  pop           MulBackward0(y)      0  the only one ready; gets float32[2]
  15  pop           AccumulateGrad(x)  max  the only one ready; gets float32[2]
(seq: sequence_nr counted from the oldest node in the trace; max: AccumulateGrad)
"""
import html

from autograd_cy._C import tracing

SEQUENCE_MAX = 2 ** 64 - 1          # AccumulateGrad's (and GraphRoot's) sequence_nr


class EngineEvent:
    """One step of the engine.

    ``kind`` says what happened (see the module docstring), ``node`` to which node, ``task``
    in which backward (0: the traced one; 1, 2, ...: backwards started inside it, by a hook).
    The other attributes depend on the kind:

    - dependencies: ``count``, ``sequence_nr``;
    - plan: ``decision``;
    - pop: ``sequence_nr``, ``queue`` (the nodes still ready, newest first), ``runs``
      (False: popped for ``inputs=`` but not run), ``inputs`` (its gradients, as text),
      ``reason``;
    - input: ``output`` (which gradient of ``node``), ``child`` and ``slot`` (where it
      goes), ``action``, ``grad`` (as text), ``left`` (gradients ``child`` still waits for);
    - hook: ``hook_kind``, ``hook``, ``slot``, ``tensor`` (None for a node hook, and for a
      hook on a non-leaf: that one is its grad_fn's, at ``slot``);
    - accumulate: ``action``, ``grad`` (as text).

    ``str(event)`` is its row of the trace's table.
    """

    def __init__(self, kind, task, node, fields):
        self.kind = kind
        self.task = task
        self.node = node
        self.text = kind
        self.__dict__.update(fields)

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"<EngineEvent {' '.join(self.text.split()[1:])}>"


class BackwardTrace:
    """The events of one traced backward, in order: iterate it, index it, print it.

    ``node_order`` lists the nodes of the traced backward in the order the engine ran them;
    ``table()`` (also ``str(trace)``) prints the events as a fixed-width table. Step
    through it one event at a time (each prints as its row), and read an event's fields:

    >>> import autograd_cy as ag
    >>> w = ag.tensor([1.0, -2.0], requires_grad=True)
    >>> trace = ag.autograd.trace_backward((w * w).sum())
    >>> steps = iter(trace)
    >>> print(next(steps))
       0  dependencies  SumBackward0      1  the root
    >>> print(next(steps))
       1  dependencies  MulBackward0      0  waits for 1 gradient
    >>> pop = trace[5]
    >>> pop.kind, pop.node.name(), pop.inputs, pop.queue
    ('pop', 'MulBackward0', ('float32[2]',), ())
    >>> [(event.action, event.left) for event in trace if event.kind == "input"]
    [('stored', 0), ('stored', 1), ('summed', 0)]
    """

    def __init__(self, events, names=None):
        self.events = events
        self.labels = node_labels(events, names)
        self.node_order = [event.node for event in events
                           if event.kind == "pop" and event.task == 0 and event.runs]
        self.sequence_base = min((node.sequence_nr for node in self.labels
                                  if node.sequence_nr != SEQUENCE_MAX), default=0)
        self.multiple_tasks = any(event.task for event in events)
        for event in events:
            if event.kind == "pop":
                event.reason = pop_reason(event)
        header = self.header()
        lines = fixed_width([header] + [self.columns(step, event)
                                        for step, event in enumerate(events)],
                            right={i for i, name in enumerate(header)
                                   if name in ("step", "task", "seq")})
        self.header_line = lines[0]
        for event, line in zip(events, lines[1:]):
            event.text = line

    def __iter__(self):
        return iter(self.events)

    def __len__(self):
        return len(self.events)

    def __getitem__(self, index):
        return self.events[index]

    def __str__(self):
        return self.table()

    def __repr__(self):
        return f"<BackwardTrace: {len(self.events)} events, {len(self.node_order)} nodes run>"

    def seq(self, sequence_nr):
        """A sequence_nr as the table shows it: counted from the trace's oldest node."""
        return "max" if sequence_nr == SEQUENCE_MAX else str(sequence_nr - self.sequence_base)

    def label(self, node):
        return self.labels[node]

    def columns(self, step, event):
        """The cells of ``event``'s row: step, [task,] event, node, seq, details."""
        cells = [str(step)]
        if self.multiple_tasks:
            cells.append(str(event.task))
        seq = self.seq(event.node.sequence_nr) if event.kind in ("dependencies", "pop") else ""
        return cells + [event.kind, self.label(event.node), seq, self.details(event)]

    def header(self):
        return ["step"] + (["task"] if self.multiple_tasks else []) + ["event", "node", "seq",
                                                                       "details"]

    def details(self, event):
        """What the event's row says after the node's name."""
        if event.kind == "dependencies":
            if event.count == 0:
                return "the root"
            return f"waits for {event.count} gradient{'s' if event.count != 1 else ''}"
        if event.kind == "plan":
            return event.decision
        if event.kind == "pop":
            text = f"{event.reason}; gets " + ", ".join(event.inputs)
            if event.queue:
                text += "; also ready: " + ", ".join(self.label(node) for node in event.queue)
            return text if event.runs else text + "; not run: only captured or pruned"
        if event.kind == "input":
            text = (f"grad {event.output} {event.grad} -> {self.label(event.child)} "
                    f"slot {event.slot}: {event.action}")
            if event.action.startswith("dropped"):
                return text
            return text + ("; ready" if event.left == 0 else f"; waits for {event.left} more")
        if event.kind == "hook":
            name = getattr(event.hook, "__name__", type(event.hook).__name__)
            where = f" on slot {event.slot}" if event.slot >= 0 else ""
            return f"{event.hook_kind} {name}{where}"
        return f"{event.action}: {event.grad}"        # accumulate

    def table(self, kinds=None):
        """The events as a fixed-width text table; ``kinds``: only the events of these kinds
        (their steps keep their numbers)."""
        lines = [self.header_line] + [event.text for event in self.events
                                      if kinds is None or event.kind in kinds]
        lines.append("(seq: sequence_nr counted from the oldest node in the trace; "
                     "max: AccumulateGrad)")
        return "\n".join(lines)

    def _repr_html_(self):
        rows = ["<tr>" + "".join(f"<th>{html.escape(cell)}</th>" for cell in self.header())
                + "</tr>"]
        for step, event in enumerate(self.events):
            rows.append("<tr>" + "".join(f"<td>{html.escape(cell)}</td>"
                                         for cell in self.columns(step, event)) + "</tr>")
        return "<table>" + "".join(rows) + "</table>"


def fixed_width(rows, right=()):
    """Rows of cells as lines of a fixed-width table: two spaces between columns, the
    columns whose index is in ``right`` aligned right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.rjust(width) if i in right else cell.ljust(width)
                      for i, (cell, width) in enumerate(zip(row, widths))).rstrip()
            for row in rows]


def pop_reason(event):
    """Why the queue handed out this node: it was the only one, the newest, or a tie."""
    if not event.queue:
        return "the only one ready"
    if event.sequence_nr > event.queue[0].sequence_nr:
        return f"newest of {len(event.queue) + 1} ready"
    return "a tie: heap order"


def node_labels(events, names=None):
    """A readable, stable label per node of ``events``: its name, then ``(name)`` for the
    tensors given in ``names`` ({name: tensor}), else ``#1``, ``#2``... (in order of first
    appearance) where several nodes share a name. No memory addresses."""
    nodes = {}
    for event in events:
        for node in (event.node, getattr(event, "child", None), *getattr(event, "queue", ())):
            if node is not None:
                nodes.setdefault(node, None)
    given = {}
    for name, tensor in (names or {}).items():
        for node in nodes:
            if node is tensor.grad_fn or getattr(node, "variable", None) is tensor:
                given[node] = name
    bases = {node: node.name().replace("torch::autograd::", "") for node in nodes}
    counts = {}
    for base in bases.values():
        counts[base] = counts.get(base, 0) + 1
    labels, numbers = {}, {}
    for node, base in bases.items():
        if node in given:
            labels[node] = f"{base}({given[node]})"
        elif counts[base] > 1:
            numbers[base] = numbers.get(base, 0) + 1
            labels[node] = f"{base}#{numbers[base]}"
        else:
            labels[node] = base
    return labels


class Recorder:
    """Collects the engine's events on this thread while installed (a context manager)."""

    def __init__(self):
        self.events = []
        self.tasks = {}             # GraphTask id -> 0, 1, 2... in order of appearance

    def __call__(self, kind, task_id, node, fields):
        task = self.tasks.setdefault(task_id, len(self.tasks))
        self.events.append(EngineEvent(kind, task, node, fields))

    def __enter__(self):
        self.token = tracing.add_recorder(self)
        return self

    def __exit__(self, *exc_info):
        tracing.remove_recorder(self.token)


def trace_backward(tensor, gradient=None, retain_graph=None, create_graph=False, inputs=None,
                   *, names=None):
    """Run ``tensor.backward(gradient, retain_graph, create_graph, inputs)`` and return its
    BackwardTrace: every step the engine took, in order.

    The gradients are those of a plain backward. ``names`` ({name: tensor}) labels the
    nodes of those tensors in the table: a non-leaf's grad_fn, a leaf's AccumulateGrad.

    >>> import autograd_cy as ag
    >>> a = ag.tensor(2.0, requires_grad=True)
    >>> b = ag.tensor(3.0, requires_grad=True)
    >>> print(ag.autograd.trace_backward(a * b, names={"a": a, "b": b}))
    step  event         node               seq  details
       0  dependencies  MulBackward0         0  the root
       1  dependencies  AccumulateGrad(a)  max  waits for 1 gradient
       2  dependencies  AccumulateGrad(b)  max  waits for 1 gradient
       3  pop           MulBackward0         0  the only one ready; gets float32[]
       4  input         MulBackward0            grad 0 float32[] -> AccumulateGrad(a) slot 0: stored; ready
       5  input         MulBackward0            grad 1 float32[] -> AccumulateGrad(b) slot 0: stored; ready
       6  pop           AccumulateGrad(a)  max  a tie: heap order; gets float32[]; also ready: AccumulateGrad(b)
       7  accumulate    AccumulateGrad(a)       took the gradient as .grad: float32[]
       8  pop           AccumulateGrad(b)  max  the only one ready; gets float32[]
       9  accumulate    AccumulateGrad(b)       took the gradient as .grad: float32[]
    (seq: sequence_nr counted from the oldest node in the trace; max: AccumulateGrad)
    >>> a.grad, b.grad
    (tensor(3.), tensor(2.))
    """  # noqa: E501  (the table's rows as the trace prints them, wider than 100 columns)
    with Recorder() as recorder:
        tensor.backward(gradient, retain_graph, create_graph, inputs)
    return BackwardTrace(recorder.events, names)
