"""trace_backward: the engine's own steps of one backward, against torch's.

The oracle is torch: the same graph is built in both libraries and walked in parallel, so
every node gets one label in both. Torch's execution order is recorded with a node pre-hook
on every node of its graph (a pre-hook runs just before its node does); trace_backward's
``node_order`` must list the same labels in the same order, ties between leaves included.
The dependency counts are checked against the edges of torch's graph, the gradients
against a plain backward of autograd_cy (equal) and torch's (close).
"""
import warnings

import numpy as np

import pytest
import torch

import autograd_cy as ag
from autograd_cy.autograd import trace_backward
from autograd_cy._C.tracing import recording
from tests.oracle import assert_close, node_name, to_numpy


def walk_in_parallel(ours, theirs):
    """Breadth-first over both graphs at once: {our node: label}, {torch node: label}."""
    our_labels, their_labels = {ours: 0}, {theirs: 0}
    queue = [(ours, theirs)]
    while queue:
        our_node, their_node = queue.pop(0)
        assert node_name(our_node) == node_name(their_node)
        our_children = our_node.next_functions
        their_children = their_node.next_functions
        assert len(our_children) == len(their_children)
        for (our_child, _), (their_child, _) in zip(our_children, their_children):
            assert (our_child is None) == (their_child is None)
            if their_child is None:
                continue
            if their_child in their_labels:
                assert our_labels[our_child] == their_labels[their_child]
                continue
            our_labels[our_child] = their_labels[their_child] = len(their_labels)
            queue.append((our_child, their_child))
    return our_labels, their_labels


def torch_order(root, labels, **backward_args):
    """The labels of torch's nodes in the order its engine runs them."""
    order = []
    for node, label in labels.items():
        node.register_prehook(lambda grads, label=label: order.append(label))
    root.backward(**backward_args)
    return order


def edges_into(labels):
    """How many edges of the graph point at each node: its dependency count."""
    counts = dict.fromkeys(labels.values(), 0)
    for node in labels:
        for child, _ in node.next_functions:
            if child is not None:
                counts[labels[child]] += 1
    return counts


# Each graph: build(lib) -> (root, {name: leaf}); `inputs` names the leaves of inputs=.
def several_leaves(lib):
    leaves = {name: lib.tensor([float(i), 1.0], requires_grad=True) for i, name in
              enumerate("abcde")}
    return lib.cat(list(leaves.values())).sum(), leaves


def product_of_three(lib):
    leaves = {name: lib.tensor([2.0, float(i + 1)], requires_grad=True) for i, name in
              enumerate("abc")}
    a, b, c = leaves.values()
    return (a * b * c + b).sum(), leaves


def diamond(lib):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x * 2
    return (y * y + y.exp() + y.sin()).sum(), {"x": x}


def two_layers(lib):
    rng = np.random.default_rng(0)
    leaves = {"x": lib.tensor(rng.standard_normal((4, 3)).astype(np.float32)),
              "w1": lib.tensor(rng.standard_normal((3, 5)).astype(np.float32),
                               requires_grad=True),
              "b1": lib.tensor(rng.standard_normal(5).astype(np.float32), requires_grad=True),
              "w2": lib.tensor(rng.standard_normal((5, 2)).astype(np.float32),
                               requires_grad=True)}
    hidden = (leaves["x"] @ leaves["w1"] + leaves["b1"]).tanh()
    return (hidden @ leaves["w2"]).pow(2).mean(), leaves


def branches_of_different_ages(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([3.0, -1.0], requires_grad=True)
    old = x.exp()               # recorded first: runs last of the three branches
    middle = x * w
    new = w.sin()
    return (new * middle + old).sum(), {"x": x, "w": w}


GRAPHS = [
    (several_leaves, None),
    (product_of_three, None),
    (diamond, None),
    (two_layers, None),
    (branches_of_different_ages, None),
    (several_leaves, ("b", "d")),
    (product_of_three, ("a", "c")),
    (two_layers, ("w1",)),
    (branches_of_different_ages, ("w",)),
]


@pytest.mark.parametrize("build, inputs", GRAPHS,
                         ids=[f"{build.__name__}-{inputs}" for build, inputs in GRAPHS])
def test_node_order_counts_and_gradients_match(build, inputs):
    root, leaves = build(ag)
    their_root, their_leaves = build(torch)
    our_labels, their_labels = walk_in_parallel(root.grad_fn, their_root.grad_fn)
    our_inputs = None if inputs is None else [leaves[name] for name in inputs]
    their_inputs = None if inputs is None else [their_leaves[name] for name in inputs]

    trace = trace_backward(root, inputs=our_inputs)

    expected = torch_order(their_root, their_labels, inputs=their_inputs)
    assert [our_labels[node] for node in trace.node_order] == expected
    counts = {our_labels[event.node]: event.count for event in trace
              if event.kind == "dependencies"}
    assert counts == edges_into(their_labels)
    plain_root, plain_leaves = build(ag)
    plain_root.backward(inputs=None if inputs is None else
                        [plain_leaves[name] for name in inputs])
    for name, leaf in leaves.items():
        if plain_leaves[name].grad is None:
            assert leaf.grad is None and their_leaves[name].grad is None
            continue
        assert np.array_equal(to_numpy(leaf.grad), to_numpy(plain_leaves[name].grad))
        assert_close(leaf.grad, their_leaves[name].grad, rtol=1e-5, atol=1e-6)


def test_pops_are_newest_first_and_explain_ties():
    root, _ = several_leaves(ag)
    trace = trace_backward(root)
    pops = [event for event in trace if event.kind == "pop"]
    assert len(pops) == 7                  # SumBackward0, CatBackward0, five AccumulateGrads
    for event in pops:
        assert all(event.sequence_nr >= node.sequence_nr for node in event.queue)
        if event.queue and event.queue[0].sequence_nr == event.sequence_nr:
            assert event.reason == "a tie: heap order"
    assert "newest" not in pops[2].reason and len(pops[2].queue) == 4


def test_input_events_follow_the_buffers():
    """Every edge that carries a gradient is an input event: the first into a slot is
    stored, the later ones summed, and the last into a node makes it ready."""
    root, _ = diamond(ag)
    trace = trace_backward(root)
    arrived = {}
    for event in trace:
        if event.kind == "input":
            key = (event.child, event.slot)
            assert event.action == ("summed" if key in arrived else "stored")
            arrived[key] = True
    dependencies = {event.node: event.count for event in trace if event.kind == "dependencies"}
    for node, count in dependencies.items():
        lefts = [event.left for event in trace if event.kind == "input" and event.child is node]
        assert lefts == list(range(count - 1, -1, -1))


def test_pruning_under_inputs():
    root, leaves = product_of_three(ag)
    trace = trace_backward(root, inputs=[leaves["a"]], names=leaves)
    plan = {trace.label(event.node): event.decision for event in trace if event.kind == "plan"}
    assert plan["AccumulateGrad(a)"] == "runs"
    assert plan["AccumulateGrad(b)"] == plan["AccumulateGrad(c)"] == \
        "pruned: no path to an input"
    dropped = {trace.label(event.child) for event in trace
               if event.kind == "input" and event.action == "dropped (pruned)"}
    assert dropped == {"AccumulateGrad(b)", "AccumulateGrad(c)"}


def test_hooks_and_accumulation_appear_in_the_engine_order():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()

    def double(grad):
        return grad * 2
    y.register_hook(double)
    trace = trace_backward(y.sum(), names={"x": x, "y": y})
    steps = [(event.kind, trace.label(event.node)) for event in trace
             if event.kind in ("pop", "hook", "accumulate")]
    assert steps == [("pop", "SumBackward0"), ("pop", "MulBackward0(y)"),
                     ("hook", "MulBackward0(y)"), ("hook", "MulBackward0(y)"),
                     ("pop", "AccumulateGrad(x)"), ("accumulate", "AccumulateGrad(x)")]
    assert [event.hook_kind for event in trace if event.kind == "hook"] == \
        ["tensor pre-hook", "retains_grad"]
    assert to_numpy(x.grad).tolist() == [6.0, 6.0]


def test_create_graph_and_retain_graph_give_plain_gradients():
    def build(lib):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        return (x.exp() * x).sum(), x
    root, x = build(ag)
    ag.set_warn_always(True)        # a warning given once per process: give it again
    try:
        with pytest.warns(UserWarning, match="create_graph=True will create a reference cycle"):
            trace_backward(root, create_graph=True)
    finally:
        ag.set_warn_always(False)
    grad = x.grad
    x.grad = None
    trace = trace_backward(grad.sum(), retain_graph=True)
    their_root, their_x = build(torch)
    with warnings.catch_warnings():     # torch warns once per process (TORCH_WARN_ONCE)
        warnings.simplefilter("ignore")
        their_root.backward(create_graph=True)
    their_grad = their_x.grad
    their_x.grad = None
    their_grad.sum().backward()
    assert_close(x.grad, their_x.grad)
    assert trace.node_order[-1].name().endswith("AccumulateGrad")


def test_a_backward_inside_a_hook_is_another_task():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    z = ag.tensor([3.0], requires_grad=True)
    y = x * 2

    def inner_backward(grad):
        with ag.enable_grad():
            (z * z).sum().backward()
    y.register_hook(inner_backward)
    trace = trace_backward(y.sum())
    assert {event.task for event in trace} == {0, 1}
    assert [node.name() for node in trace.node_order] == \
        ["SumBackward0", "MulBackward0", "torch::autograd::AccumulateGrad"]
    assert to_numpy(z.grad).tolist() == [6.0]
    assert "task" in str(trace).splitlines()[0]


def test_the_table_prints_each_event_without_addresses():
    root, leaves = diamond(ag)
    trace = trace_backward(root, names=leaves)
    lines = str(trace).splitlines()
    assert lines[0].split() == ["step", "event", "node", "seq", "details"]
    assert len(lines) == len(trace) + 2
    assert all(str(event) in lines for event in trace)
    assert "0x" not in str(trace) and "0x" not in trace._repr_html_()
    assert trace._repr_html_().count("<tr>") == len(trace) + 1
    assert "AccumulateGrad(x)" in str(trace)
    assert "MulBackward0#1" in str(trace) and "MulBackward0#2" in str(trace)
    assert trace.table(kinds=("pop",)).count(" pop ") == len(trace.node_order)


def test_errors_are_those_of_backward_and_leave_no_recorder():
    x = ag.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="does not require grad"):
        trace_backward(x.sum())
    with pytest.raises(RuntimeError, match="does not require grad"):
        x.sum().backward()
    assert not recording()


def stolen_in_torch(build):
    """For each leaf, did torch make the incoming gradient itself its ``.grad``? (A post
    hook on the node that feeds the leaf notes the gradient's address, not the tensor:
    holding it would change torch's choice.)"""
    root, leaves = build(torch)
    addresses = {}
    for node in walk_in_parallel(root.grad_fn, root.grad_fn)[1]:
        def note(grad_inputs, grad_outputs, node=node):
            for (child, _), grad in zip(node.next_functions, grad_inputs):
                if child is not None and hasattr(child, "variable") and grad is not None:
                    addresses.setdefault(id(child.variable), []).append(grad.data_ptr())
        node.register_hook(note)
    root.backward()
    return {name: [leaf.grad.data_ptr()] == addresses[id(leaf)]
            for name, leaf in leaves.items() if leaf.requires_grad}


def added_twice(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([3.0, 4.0], requires_grad=True)
    return (x + w).sum(), {"x": x, "w": w}


def scaled(lib):
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    return (x * 3).sum(), {"x": x}


@pytest.mark.cpu_only        # torch's choice is read from its CPU tensors
@pytest.mark.parametrize("build", [scaled, added_twice, two_layers])
def test_accumulate_events_say_when_the_gradient_is_stolen_as_torch_does(build):
    root, leaves = build(ag)
    trace = trace_backward(root, names=leaves)
    ours = {trace.label(event.node)[len("AccumulateGrad("):-1]:
            event.action == "took the gradient as .grad"
            for event in trace if event.kind == "accumulate"}
    assert ours == stolen_in_torch(build)


def test_a_backward_sharing_nodes_with_the_traced_one_keeps_its_own_counts():
    """A backward started in a hook over nodes the traced backward has claimed keeps its
    counts and buffers apart ("shared" mode, NOTE [Dependencies on the node])."""
    def build(lib, inner_roots):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        a = x * 2
        b = a.exp()

        def inner_backward(grad):
            with lib.enable_grad():
                inner_roots.append((a * a).sum())
                inner_roots[-1].backward(retain_graph=True)
        b.register_hook(inner_backward)
        return b.sum(), x
    inner_roots, their_inner_roots = [], []
    root, x = build(ag, inner_roots)
    trace = trace_backward(root)
    their_root, their_x = build(torch, their_inner_roots)
    their_root.backward()
    assert_close(x.grad, their_x.grad)

    our_labels, their_labels = walk_in_parallel(inner_roots[0].grad_fn,
                                                their_inner_roots[0].grad_fn)
    inner = [event for event in trace if event.task == 1]
    counts = {our_labels[event.node]: event.count for event in inner
              if event.kind == "dependencies"}
    assert counts == edges_into(their_labels)
    for node, count in counts.items():
        lefts = [event.left for event in inner
                 if event.kind == "input" and our_labels[event.child] == node]
        assert lefts == list(range(count - 1, -1, -1))


def test_draw_graph_numbers_the_nodes_by_the_trace():
    """The contract with draw_graph: ``node_order`` numbers and colours its nodes."""
    root, leaves = product_of_three(ag)
    trace = trace_backward(root, inputs=[leaves["a"]])
    source = ag.autograd.draw_graph(root, trace=trace).source
    steps = len(trace.node_order)
    for step in range(1, steps + 1):
        assert source.count(f"step {step} of {steps}") == 1
    assert source.count("not run") == 2            # the AccumulateGrads of b and c
