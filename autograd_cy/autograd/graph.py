"""``autograd.graph``: Node and GradientEdge for inspecting and hooking the graph."""
from collections import namedtuple

from autograd_cy._C.node import Node, _gradient_edge

__all__ = ["Node", "GradientEdge", "get_gradient_edge", "increment_version"]


class GradientEdge(namedtuple("GradientEdge", ("node", "output_nr"))):
    """Where a tensor's gradient enters the graph: ``(node, output_nr)``."""

    @property
    def _edge(self):
        from autograd_cy._C.node import Edge
        return Edge(self.node, self.output_nr)


def get_gradient_edge(tensor):
    """The GradientEdge of ``tensor`` (its grad_fn, or its leaf's AccumulateGrad)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    edge = _gradient_edge(tensor)
    return GradientEdge(edge.function, edge.input_nr)


def increment_version(tensor):
    """Bump ``tensor``'s version counter by hand, as an in-place op would."""
    from autograd_cy._C.ops.inplace import _increment_version
    _increment_version(tensor)
