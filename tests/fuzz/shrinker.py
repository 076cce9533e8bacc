"""Reduce a program that shows a difference to a minimal one that shows the same class.

Greedy passes until nothing more can go: cut everything after the difference; delete an
op (with every op that uses its outputs), or bypass it (its users take its first operand
instead: this drops hooks, views and conversions from chains); shrink leaf dimensions to
1; drop keyword arguments; make leaves not require grad. A candidate is kept when it
shows a difference of the same class.
"""
import time
from dataclasses import replace

from tests.fuzz.program import Op, Program, Ref, map_refs
from tests.fuzz.runner import run_program


def delete_ops(program, doomed, substitute=None):
    """``program`` without the ops ``doomed`` (indices) and every op that uses their
    outputs; ``substitute`` maps an old slot to the Ref that replaces it."""
    substitute = substitute or {}
    ranges = program.slot_ranges()
    gone_slots, mapping, ops = set(), {}, []
    new_slot = 0
    for index, (op, (first, nout)) in enumerate(zip(program.ops, ranges)):
        uses = set(op.refs())
        uses = {substitute[s].slot if s in substitute else s for s in uses}
        if index in doomed or uses & gone_slots:
            gone_slots.update(range(first, first + nout))
            continue

        def remap(ref):
            slot = substitute[ref.slot].slot if ref.slot in substitute else ref.slot
            return Ref(mapping[slot])
        ops.append(replace(op, args=map_refs(op.args, remap),
                           kwargs=map_refs(op.kwargs, remap)))
        for k in range(nout):
            mapping[first + k] = new_slot + k
        new_slot += nout
    return Program(ops, program.seed)


def _shrink_data(data, dim):
    """Keep index 0 along ``dim`` of nested lists."""
    if dim == 0:
        return data[:1]
    return [_shrink_data(d, dim - 1) for d in data]


def _shape(data):
    shape = []
    while isinstance(data, list):
        shape.append(len(data))
        data = data[0] if data else None
    return shape


def candidates(program, index):
    ops = program.ops
    # 1. delete single ops, newest first (never the failing op itself).
    for i in range(index - 1, -1, -1):
        yield delete_ops(program, {i})
    # 2. bypass an op: its users read its first tensor operand instead.
    ranges = program.slot_ranges()
    for i in range(index, -1, -1):
        op = ops[i]
        first, nout = ranges[i]
        operands = [r for r in op.refs()]
        if not operands or op.kind == "leaf":
            continue
        source = Ref(operands[0])
        substitute = {first + k: source for k in range(nout)}
        if i < index:
            yield delete_ops(program, {i}, substitute)
    # 3. leaves: smaller, not requiring grad, float64.
    for i, op in enumerate(ops[:index + 1]):
        if op.kind != "leaf":
            continue
        data, dtype, requires_grad = op.args
        for dim, size in enumerate(_shape(data)):
            if size > 1:
                new = list(ops)
                new[i] = replace(op, args=(_shrink_data(data, dim), dtype, requires_grad))
                yield Program(new, program.seed)
        if requires_grad:
            new = list(ops)
            new[i] = replace(op, args=(data, dtype, False))
            yield Program(new, program.seed)
    # 4. keyword arguments.
    for i, op in enumerate(ops[:index + 1]):
        for key in op.kwargs:
            if op.kind == "hook":
                continue
            new = list(ops)
            new[i] = replace(op, kwargs={k: v for k, v in op.kwargs.items() if k != key})
            yield Program(new, program.seed)


def _failing_index(program):
    difference = run_program(program)
    return difference


def shrink(program, difference, budget_s=20.0, max_runs=600):
    """A minimal program with a difference of ``difference.cls``, and that difference."""
    deadline = time.monotonic() + budget_s
    best = Program(list(program.ops[:difference.index + 1]), program.seed)
    best_diff = difference
    runs = 0
    improved = True
    while improved and time.monotonic() < deadline and runs < max_runs:
        improved = False
        for candidate in candidates(best, best_diff.index):
            if time.monotonic() > deadline or runs >= max_runs:
                break
            if not candidate.ops:
                continue
            runs += 1
            try:
                found = run_program(candidate)
            except Exception:   # noqa: BLE001 - a broken candidate
                continue
            if found is not None and found.cls == difference.cls:
                best = Program(list(candidate.ops[:found.index + 1]), program.seed)
                best_diff = found
                improved = True
                break
    return best, best_diff


def shown_slots(program, difference):
    """The slots a reproducer should print: the failing op's outputs (or its operands)."""
    first, nout = program.slot_ranges()[difference.index]
    op: Op = program.ops[difference.index]
    slots = list(range(first, first + nout))
    return slots or sorted(set(op.refs()))
