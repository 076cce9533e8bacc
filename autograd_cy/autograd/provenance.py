"""Provenance: errors that say which line of your program made the node they name.

With provenance on (the default, and always in anomaly mode) every recorded node remembers
where its forward op was called, and every in-place op where it wrote (NOTE [Provenance] in
pyx/provenance.pyx). The errors then say where, after PyTorch's own words:

    Trying to backward through the graph a second time (...). The node MulBackward0 was
    created by the forward op at train.py:12 (in step).

    one of the variables needed for gradient computation has been modified by an inplace
    operation: (...) The node MulBackward0 was created by the forward op at train.py:12 (in
    step). The in-place op at train.py:15 (in step) last bumped its version.

Recording costs about 1.5% of a graph of small ops; ``set_provenance(False)`` turns it off.
``detect_anomaly(check_nan=True)`` also names, in its NaN error, the first forward op whose
output had a NaN or inf (NOTE [NaN origins]).
"""
from autograd_cy._C import provenance as _provenance
from autograd_cy.grad_mode import _check_bool

__all__ = ["set_provenance", "is_provenance_enabled", "forward_location"]


def is_provenance_enabled():
    """Do nodes record where they were made in this thread (anomaly mode aside)?"""
    return _provenance._is_provenance_enabled()


class set_provenance:
    """Turn provenance recording on or off in this thread. Usable as a function call or as a
    context manager, which restores the previous setting on exit.

    >>> with set_provenance(False):
    ...     is_provenance_enabled()
    False
    >>> is_provenance_enabled()
    True
    """

    def __init__(self, mode):
        _check_bool("set_provenance", "mode", mode)
        self.prev = is_provenance_enabled()
        _provenance._set_provenance_enabled(mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc_info):
        _provenance._set_provenance_enabled(self.prev)


def forward_location(node):
    """``"file:line (in function)"`` of the forward call that recorded ``node`` (a
    ``grad_fn``), or None if it was recorded with provenance off.

    >>> import autograd_cy as ag
    >>> x = ag.ones(2, requires_grad=True)
    >>> forward_location((x * 2).grad_fn).endswith("(in <module>)")
    True
    """
    return _provenance.node_location(node)
