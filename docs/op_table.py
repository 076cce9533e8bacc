"""``make docs``: write the op table's rows into docs/derivatives.md.

The ops declared as entries of the op table (NOTE [The op table] in pyx/ops/op_table.pyx) get
their rows of derivatives.md from their entries: the backward table (op, node, saves,
gradient) and the tangent table (op, tangent). Each generated table sits between two marker
comments; everything else in the file is written by hand. tests/test_op_table.py fails when
the file differs from what this script writes, so the page cannot drift from the code.
"""
import os
import re
import sys

from autograd_cy._C.ops.op_table import unary_ops

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "derivatives.md")
BLOCK = re.compile(r"(<!-- op table: (backward|tangents) -->\n)(.*?)(<!-- end op table -->)", re.S)


def _names(op):
    return f"`{op.name}`" if op.inplace is None else f"`{op.name}`, `{op.inplace}`"


def _module(op):
    return op.module.rsplit(".", 1)[-1]


def _complex(op):
    """What the entry does with a complex input: its formula takes the conjugates (NOTE
    [Complex gradients] in pyx/ops/conjugate.pyx), PyTorch refuses it, or its backward is
    not written for complex tensors yet (recording it raises NotImplementedError)."""
    if getattr(op.node_type, "complex_formulas", False):
        return "yes"
    return "refused" if op.complex_error is not None else "not yet"


def backward_rows():
    """The backward table of every entry: module, op, node, what it saves, gradient, and
    whether it differentiates complex inputs."""
    rows = ["| module | op | node | saves | gradient | complex |",
            "| --- | --- | --- | --- | --- | --- |"]
    for op in unary_ops():
        rows.append(f"| {_module(op)} | {_names(op)} | {op.node_type.__name__} | {op.saved} | "
                    f"{op.gradient} | {_complex(op)} |")
    return rows


def tangent_rows():
    """The tangent table of every entry."""
    rows = ["| module | op | tangent |", "| --- | --- | --- |"]
    for op in unary_ops():
        rows.append(f"| {_module(op)} | `{op.name}` | {op.tangent_formula} |")
    return rows


def render(text):
    """``text`` (derivatives.md) with every generated block written anew."""
    def block(match):
        rows = (backward_rows if match.group(2) == "backward" else tangent_rows)()
        return match.group(1) + "\n" + "\n".join(rows) + "\n\n" + match.group(4)
    return BLOCK.sub(block, text)


def main():
    with open(PATH) as handle:
        text = handle.read()
    updated = render(text)
    if updated != text:
        with open(PATH, "w") as handle:
            handle.write(updated)
        print(f"updated {os.path.relpath(PATH)}", file=sys.stderr)


if __name__ == "__main__":
    main()
