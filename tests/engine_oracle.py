"""Helpers for the engine, hook, grad-mode and Tensor tests: run one snippet on both libraries.

``both(fn)`` calls ``fn(lib)`` with ``lib = autograd_cy`` and ``lib = torch`` and
returns the two results, which a test then compares as plain Python data
(numbers, lists, strings, traces). ``same_error`` and ``same_warning`` check that
both libraries raise / warn with the same type and the same key words.
"""
import re
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag

LIBS = (ag, torch)


def both(fn):
    """``(fn(autograd_cy), fn(torch))``."""
    return fn(ag), fn(torch)


def plain(value):
    """Tensors (of either library) as nested lists; tuples/lists/dicts converted inside."""
    if isinstance(value, (ag.Tensor, torch.Tensor)):
        return value.detach().numpy().tolist()
    if isinstance(value, (tuple, list)):
        return type(value)(plain(v) for v in value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def assert_same(fn, rtol=1e-6, atol=1e-7):
    """``fn(lib)`` gives the same plain data on both libraries (floats compared closely)."""
    ours, theirs = both(fn)
    _close(plain(ours), plain(theirs), rtol, atol, "result")
    return ours, theirs


def _close(a, b, rtol, atol, where):
    if isinstance(b, (list, tuple)):
        assert isinstance(a, (list, tuple)) and len(a) == len(b), f"{where}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, rtol, atol, f"{where}[{i}]")
    elif isinstance(b, dict):
        assert isinstance(a, dict) and a.keys() == b.keys(), f"{where}: {a!r} != {b!r}"
        for k in b:
            _close(a[k], b[k], rtol, atol, f"{where}[{k!r}]")
    elif isinstance(b, float) and isinstance(a, float):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=where)
    else:
        assert a == b, f"{where}: {a!r} != torch {b!r}"


def same_error(fn, exception, match):
    """Both libraries raise ``exception`` whose message contains ``match`` (a regex)."""
    for lib in LIBS:
        with pytest.raises(exception, match=match):
            fn(lib)


def same_warning(fn, category, match):
    """Both libraries emit ``category`` with ``match`` in its message; returns both results."""
    results = []
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results.append(fn(lib))
        hits = [w for w in caught
                if issubclass(w.category, category) and re.search(match, str(w.message))]
        assert hits, f"{lib.__name__}: no {category.__name__} matching {match!r}: " + repr(
            [str(w.message)[:80] for w in caught])
    return tuple(results)


def no_warning(fn, match=""):
    """Neither library warns (with ``match`` in the message)."""
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(lib)
        hits = [str(w.message) for w in caught if re.search(match, str(w.message))]
        assert not hits, f"{lib.__name__} warned: {hits}"


def node_name(node):
    """A node's name as both libraries spell it (``AccumulateGrad``, ``MulBackward0``)."""
    if node is None:
        return None
    return node.name().rsplit("::", 1)[-1]


def graph_structure(node):
    """``next_functions`` as nested (name, input_nr, children) tuples, leaves named."""
    if node is None:
        return None
    children = []
    for child, input_nr in node.next_functions:
        children.append((input_nr, graph_structure(child)))
    return (node_name(node), tuple(children))
