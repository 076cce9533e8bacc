"""``gumbel_softmax``: a sample of the Gumbel-Softmax (Concrete) distribution over ``dim``,
``softmax((logits + g) / tau)`` with ``g = -log(Exponential(1))`` drawn from the default
generator as torch draws it (so a seed gives torch's sample); ``hard=True`` returns the
one-hot of its argmax with the soft sample's gradient (the straight-through estimator).

Composed of existing ops as torch composes it: the nodes are those ops'.
"""
import warnings

from autograd_cy import factories

__all__ = ["gumbel_softmax"]


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """A Gumbel-Softmax sample at temperature ``tau``; with ``hard``, one-hot forward and
    the soft sample's gradient. ``eps`` is deprecated and unused."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    noise = factories.empty(tuple(logits.shape), dtype=logits.dtype, device=logits.device)
    gumbels = -noise.exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = factories.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
