"""``trace_hooks``: which hooks a backward called, in which order, on what.

Inside ``with trace_hooks() as log:`` every hook the engine calls on this thread -- in every
backward or ``grad()`` of the block -- is appended to ``log`` just before it runs, as the
engine reports it (NOTE [Tracing the engine] in pyx/tracing.pyx). The kinds, in the order
the engine calls them for one node:

- ``tensor pre-hook``: ``tensor.register_hook`` (a leaf's live on the leaf, a non-leaf's on
  its grad_fn's input slot);
- ``retains_grad``: what ``tensor.retain_grad()`` installed, after the tensor's hooks;
- ``node pre-hook``: ``grad_fn.register_prehook``;
- ``post accumulate grad``: ``leaf.register_post_accumulate_grad_hook``, after ``.grad``
  is written (inside the leaf's AccumulateGrad);
- ``node post-hook``: ``grad_fn.register_hook``.

>>> import autograd_cy as ag
>>> x = ag.tensor([1.0, 2.0], requires_grad=True)
>>> y = x * 3
>>> _ = y.register_hook(lambda grad: grad * 2)
>>> y.retain_grad()
>>> def log_grad(tensor): pass
>>> _ = x.register_post_accumulate_grad_hook(log_grad)
>>> with ag.autograd.trace_hooks() as log:
...     y.sum().backward()
>>> print(log)
order  kind                  node            slot  hook
    0  tensor pre-hook       MulBackward0       0  <lambda>
    1  retains_grad          MulBackward0       0  RetainGradHook
    2  post accumulate grad  AccumulateGrad     0  log_grad
>>> log[2].tensor is x
True
"""
import contextlib
from typing import Any, NamedTuple

from autograd_cy.autograd.trace_backward import Recorder, fixed_width, node_labels


class HookCall(NamedTuple):
    """One hook call: its position in the log, its kind, the node that ran it, the tensor it
    belongs to (the leaf, or the retained tensor; None for node hooks and for hooks on a
    non-leaf, which are its grad_fn's, at ``slot``), the input slot (-1 for node hooks),
    the hook itself, and which backward of the block (0, 1, ...) called it."""
    order: int
    kind: str
    node: Any
    tensor: Any
    slot: int
    hook: Any
    backward: int


class HookLog(list):
    """The HookCalls of a ``trace_hooks`` block, in the order they were made; ``str()``
    prints them as a table."""

    def __str__(self):
        labels = node_labels(self)
        header = ("order", "kind", "node", "slot", "hook")
        rows = [header] + [(str(call.order), call.kind, labels[call.node], str(call.slot),
                            getattr(call.hook, "__name__", type(call.hook).__name__))
                           for call in self]
        return "\n".join(fixed_width(rows, right={0, 3}))


class HookRecorder(Recorder):
    """Keeps the engine's hook events only, as HookCalls."""

    def __init__(self):
        super().__init__()
        self.events = HookLog()

    def __call__(self, kind, task_id, node, fields):
        task = self.tasks.setdefault(task_id, len(self.tasks))
        if kind == "hook":
            self.events.append(HookCall(len(self.events), fields["hook_kind"], node,
                                        fields["tensor"], fields["slot"], fields["hook"], task))


@contextlib.contextmanager
def trace_hooks():
    """Log every hook call of the backwards run inside the block (on this thread).

    >>> import autograd_cy as ag
    >>> w = ag.tensor([1.0], requires_grad=True)
    >>> loss = (w * w).sum()
    >>> _ = loss.grad_fn.register_prehook(lambda grads: None)
    >>> with ag.autograd.trace_hooks() as log:
    ...     loss.backward()
    >>> [(call.kind, call.node.name()) for call in log]
    [('node pre-hook', 'SumBackward0')]
    """
    with HookRecorder() as recorder:
        yield recorder.events
