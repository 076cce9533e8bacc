"""Deep graphs and graph lifetime: no recursion anywhere, in backward or in freeing.

A chain of a million nodes must run backward and be freed without recursion
errors or a C stack overflow, and a finished graph must not survive its outputs
through reference cycles (the weakref test runs with the cyclic GC disabled, so
only reference counting can free it). PyTorch's nodes do not support weak
references, so the lifetime tests check autograd_cy alone; the values computed
on deep graphs are compared with torch.
"""
import gc
import subprocess
import sys
import textwrap
import weakref

import pytest
import autograd_cy as ag
from oracle import assert_same


def run_isolated(code):
    """Run ``code`` in a fresh interpreter (a crash there fails the test, not the session)."""
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, timeout=120,
                            env={"PYTHONPATH": ag.__path__[0].rsplit("/", 1)[0]})
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def no_gc(fn):
    """Run ``fn`` with the cyclic garbage collector off: only reference counting frees."""
    gc.disable()
    try:
        return fn()
    finally:
        gc.enable()


def test_million_node_chain_backward_and_delete():
    """``y = y * 1.0`` a million times: backward, then drop every reference.

    The cyclic GC is switched off while building, as its full collections over
    millions of live objects cost more than the graph itself; nothing here is a
    cycle, so reference counting alone must free it all.
    """
    out = run_isolated("""
        import gc, sys
        import autograd_cy as ag
        gc.disable()
        assert sys.getrecursionlimit() <= 1000
        x = ag.ones(1, requires_grad=True)
        y = x
        for _ in range(1_000_000):
            y = y * 1.0
        y.sum().backward()
        print(x.grad.tolist())
        probe = ag.autograd.graph.get_gradient_edge(x).node
        import weakref
        alive = weakref.ref(probe)
        del probe, y
        print(alive() is None)
    """)
    assert out.split() == ["[1.0]", "True"]


def test_deep_chain_with_saved_tensors_backpropagates():
    """100,000 ops that save tensors (exp saves its output, mul its operands)."""
    def run(lib):
        x = lib.full((2,), 0.5, requires_grad=True)
        w = lib.full((2,), 1.0, requires_grad=True)
        y = x
        for _ in range(50_000):
            y = (y * w).tanh()
        y.sum().backward()
        return x.grad, w.grad
    no_gc(lambda: assert_same(run, rtol=1e-4, atol=1e-6))


def test_deep_graph_is_freed_without_recursion():
    """Deleting the only reference to a 200,000-node graph frees it at once."""
    def run():
        x = ag.ones(1, requires_grad=True)
        y = x
        for _ in range(100_000):
            y = y.exp() * 0.1
        last = weakref.ref(y.grad_fn)
        first = weakref.ref(y.grad_fn.next_functions[0][0])
        del y
        return last() is None and first() is None
    assert no_gc(run)


@pytest.mark.parametrize("make", [
    lambda x: x * 2,
    lambda x: x.exp(),                   # saves its own output
    lambda x: x.tanh() * x,
    lambda x: (x * x).sum(),
    lambda x: x.pow(2),
])
def test_no_reference_cycles_between_outputs_and_grad_fn(make):
    def run():
        x = ag.ones(2, requires_grad=True)
        y = make(x)
        node = weakref.ref(y.grad_fn)
        del y
        return node() is None
    assert no_gc(run)


def test_no_reference_cycles_after_backward_with_retain_grad_and_hooks():
    def run():
        x = ag.ones(2, requires_grad=True)
        y = x.exp()
        y.retain_grad()
        y.register_hook(lambda g: g * 2)
        z = (y * y).sum()
        node = weakref.ref(y.grad_fn)
        z.backward()
        del y, z
        return node() is None
    assert no_gc(run)


def test_accumulate_grad_dies_with_its_graph():
    def run():
        x = ag.ones(2, requires_grad=True)
        y = x * 2
        acc = weakref.ref(ag.autograd.graph.get_gradient_edge(x).node)
        alive_with_graph = acc() is not None
        del y
        return alive_with_graph, acc() is None, x.requires_grad
    assert no_gc(run) == (True, True, True)
