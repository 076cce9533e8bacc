"""A fuzz program is data: a list of op records that either library can execute.

Every record produces ``nout`` values, numbered in order over the whole program (slots);
an operand that names an earlier value is a ``Ref(slot)``. Leaves are records too
(``kind='leaf'``), so a program is one flat list that the shrinker can cut, and the
same list runs on ``torch`` and on ``autograd_cy`` (``lib`` below), whose names agree.
"""
import operator
from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Ref:
    """The value in slot ``slot`` (an earlier op's output)."""
    slot: int


@dataclass(frozen=True)
class IndexTensor:
    """A constant int64 tensor (indices for gather, index_select, advanced indexing)."""
    values: object      # nested lists of ints

    def shape(self):
        shape, v = [], self.values
        while isinstance(v, list):
            shape.append(len(v))
            v = v[0] if v else None
        return tuple(shape)


@dataclass(frozen=True)
class MaskTensor:
    """A constant bool tensor (masks for where, masked_fill, boolean indexing)."""
    values: object


@dataclass(frozen=True)
class DType:
    """``lib.<name>``: a dtype."""
    name: str


@dataclass
class Op:
    """One record: ``kind`` says how to call, ``name`` what, on ``args``/``kwargs``.

    kinds: leaf (args = data, dtype name, requires_grad), fn (``lib.name``), method
    (``args[0].name``), F (``lib.nn.functional.name``), linalg (``lib.linalg.name``), op
    (``operator.name``), setitem, attr (``args[0].name``), hook (a tensor hook:
    ``kwargs['scale']`` scales the gradient, None records it), backward, grad
    (``autograd.grad``).
    ``label`` names the op in difference classes; ``mutates`` marks ops that can change
    values or flags of earlier slots (in-place ops, backward).
    """
    kind: str
    name: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    nout: int = 1
    label: str = ""
    mutates: bool = False
    no_grad: bool = False       # run under ``no_grad()``

    def refs(self):
        found = []
        _collect_refs(self.args, found)
        _collect_refs(tuple(self.kwargs.values()), found)
        return found


def _collect_refs(value, found):
    if isinstance(value, Ref):
        found.append(value.slot)
    elif isinstance(value, (tuple, list)):
        for item in value:
            _collect_refs(item, found)


def map_refs(value, fn):
    """``value`` with every Ref replaced by ``fn(ref)``."""
    if isinstance(value, Ref):
        return fn(value)
    if isinstance(value, tuple):
        return tuple(map_refs(v, fn) for v in value)
    if isinstance(value, list):
        return [map_refs(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: map_refs(v, fn) for k, v in value.items()}
    return value


@dataclass
class Program:
    ops: list
    seed: int = -1

    def slot_ranges(self):
        """(first slot, nout) of every op."""
        ranges, slot = [], 0
        for op in self.ops:
            ranges.append((slot, op.nout))
            slot += op.nout
        return ranges


# ------------------------------------------------------------------ rendering as Python

_BINARY = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "pow": "**", "matmul": "@",
           "iadd": "+=", "isub": "-=", "imul": "*=", "itruediv": "/="}


def render_value(value):
    if isinstance(value, Ref):
        return f"v{value.slot}"
    if isinstance(value, IndexTensor):
        return f"T.tensor({value.values!r})"
    if isinstance(value, MaskTensor):
        return f"T.tensor({value.values!r})"
    if isinstance(value, DType):
        return f"T.{value.name}"
    if isinstance(value, slice):
        parts = ["" if p is None else repr(p) for p in (value.start, value.stop, value.step)]
        text = f"{parts[0]}:{parts[1]}"
        return text + (f":{parts[2]}" if value.step is not None else "")
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        return f"float({str(value)!r})"
    if value is Ellipsis:
        return "..."
    if isinstance(value, tuple):
        inner = ", ".join(render_value(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(render_value(v) for v in value) + "]"
    return repr(value)


def _render_index(index):
    if isinstance(index, tuple):
        if not index:
            return "()"
        return ", ".join(render_value(v) for v in index)
    return render_value(index)


def _call(args, kwargs):
    parts = [render_value(a) for a in args]
    parts += [f"{k}={render_value(v)}" for k, v in kwargs.items()]
    return ", ".join(parts)


SEQUENCE_OPS = ("split", "chunk", "unbind", "split_with_sizes", "grad")


def _targets(first, nout, sequence=False):
    names = [f"v{first + i}" for i in range(nout)]
    if nout == 0:
        return ""
    if nout == 1:
        return names[0] + (", = " if sequence else " = ")
    return ", ".join(names) + " = "


def render_op(op, first):
    """One line of Python (``T`` is the library, ``F`` its nn.functional)."""
    lhs = _targets(first, op.nout, op.name in SEQUENCE_OPS)
    a, kw = op.args, op.kwargs
    if op.kind == "leaf":
        data, dtype, requires_grad = a
        return f"{lhs}T.tensor({data!r}, dtype=T.{dtype}, requires_grad={requires_grad})"
    if op.kind == "fn":
        return f"{lhs}T.{op.name}({_call(a, kw)})"
    if op.kind == "F":
        return f"{lhs}F.{op.name}({_call(a, kw)})"
    if op.kind == "linalg":
        return f"{lhs}T.linalg.{op.name}({_call(a, kw)})"
    if op.kind == "method":
        return f"{lhs}{render_value(a[0])}.{op.name}({_call(a[1:], kw)})"
    if op.kind == "attr":
        return f"{lhs}{render_value(a[0])}.{op.name}"
    if op.kind == "op":
        if op.name in ("iadd", "isub", "imul", "itruediv"):
            target = render_value(a[0])
            return f"{target} {_BINARY[op.name]} {render_value(a[1])}; {lhs}{target}"
        if op.name in _BINARY:
            return f"{lhs}{render_value(a[0])} {_BINARY[op.name]} {render_value(a[1])}"
        if op.name == "neg":
            return f"{lhs}-{render_value(a[0])}"
        if op.name == "getitem":
            return f"{lhs}{render_value(a[0])}[{_render_index(a[1])}]"
    if op.kind == "setitem":
        return f"{render_value(a[0])}[{_render_index(a[1])}] = {render_value(a[2])}"
    if op.kind == "hook":
        scale = kw["scale"]
        body = "seen.append(g)" if scale is None else f"g * {scale!r}"
        return f"{render_value(a[0])}.register_hook(lambda g: {body})"
    if op.kind == "backward":
        return f"{render_value(a[0])}.backward({_call(a[1:], kw)})"
    if op.kind == "grad":
        return f"{lhs}T.autograd.grad({_call(a, kw)})"
    raise ValueError(f"cannot render {op}")


def render_program(program, show=()):
    """The program as runnable Python, executed on both libraries."""
    lines = ["import torch", "import autograd_cy", "", "", "def program(T):",
             "    F = T.nn.functional", "    seen = []"]
    slot = 0
    for op in program.ops:
        prefix = "with T.no_grad(): " if op.no_grad else ""
        lines.append("    " + prefix + render_op(op, slot))
        slot += op.nout
    leaves = [first for (first, n), op in zip(program.slot_ranges(), program.ops)
              if op.kind == "leaf"]
    shown = ", ".join(f"v{s}" for s in show)
    lines.append(f"    return [{shown}], [{', '.join(f'v{s}.grad' for s in leaves)}], seen")
    lines += ["", "", "for T in (torch, autograd_cy):", "    try:",
              "        print(T.__name__, program(T))", "    except Exception as e:",
              "        print(T.__name__, 'raised', type(e).__name__, e)"]
    return "\n".join(lines)


def copy_program(program, ops=None):
    return replace(program, ops=list(program.ops if ops is None else ops))


OPERATORS = operator
