"""``make docs``: render the pictures of docs/internals.md and the README into docs/images/.

Each picture is ``autograd.draw_graph`` of the example graph the text walks through, rendered
to SVG by Graphviz's ``dot``. The examples are built here exactly as the text builds them, so
a picture always shows what the doctests run.
"""
import os

import autograd_cy as ag
from autograd_cy.autograd import draw_graph, trace_backward

IMAGES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "images")


def diamond():
    """The walk-through's graph: ``y = x * 2`` used twice, ``loss = (y.exp() + y).sum()``."""
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    return (y.exp() + y).sum()


def stale():
    """A saved tensor changed in place after it was saved: the picture marks it."""
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    loss = y.sum()
    y.mul_(2)
    return loss


def render(name, digraph):
    path = os.path.join(IMAGES, f"{name}.svg")
    with open(path, "wb") as handle:
        handle.write(digraph.pipe(format="svg"))
    print(f"wrote {os.path.relpath(path)}")


def main():
    os.makedirs(IMAGES, exist_ok=True)
    render("diamond", draw_graph(diamond()))
    loss = diamond()
    trace = trace_backward(loss, retain_graph=True)     # keep the saved tensors to draw them
    render("diamond_order", draw_graph(loss, trace=trace))
    render("stale", draw_graph(stale()))


if __name__ == "__main__":
    main()
