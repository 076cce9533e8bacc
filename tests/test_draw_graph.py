"""draw_graph: the picture of the backward graph, rendered to SVG by Graphviz's real ``dot``
and read back, against the graph torch records for the same program (node names, edges,
saved tensors' shapes and versions, .grad) and against what plain backward does (a stale
saved tensor is one backward refuses; the trace's order is the order nodes ran in)."""
import re
import sys
import xml.etree.ElementTree as ET

import pytest
import torch

import autograd_cy as ag
from autograd_cy.autograd import draw_graph
from oracle import assert_same_error, node_name, to_torch

SVG = "{http://www.w3.org/2000/svg}"


def render(dot):
    """``{node id: (lines of text, fill colour)}`` and ``{(tail, head): label}`` of the SVG
    that ``dot`` renders."""
    root = ET.fromstring(dot.pipe(format="svg"))
    nodes, edges = {}, {}
    for group in root.iter(SVG + "g"):
        title = group.find(SVG + "title").text if group.find(SVG + "title") is not None else None
        texts = [t.text for t in group.iter(SVG + "text")]
        if group.get("class") == "node":
            shape = next(iter(group.iter(SVG + "polygon")), None)
            if shape is None:
                shape = next(iter(group.iter(SVG + "ellipse")), None)
            nodes[title] = (texts, shape.get("fill"))
        elif group.get("class") == "edge":
            tail, head = title.split("->")
            edges[(tail, head)] = " ".join(texts)
    return nodes, edges


def torch_walk(roots):
    """torch's graph behind ``roots`` walked breadth-first as draw_graph walks ours: node
    names in walk order and edges (parent, input, child, output) by walk position."""
    order, index, edges = [], {}, []
    for node in roots:
        if node not in index:
            index[node] = len(order)
            order.append(node)
    for node in order:
        for input_nr, (child, output_nr) in enumerate(node.next_functions):
            if child is None:
                continue
            if child not in index:
                index[child] = len(order)
                order.append(child)
            edges.append((index[node], input_nr, index[child], output_nr))
    return [node_name(node) for node in order], edges


def drawn_structure(nodes, edges):
    """The same from the SVG: names of node0, node1, ... and the labelled edges."""
    count = sum(1 for name in nodes if re.fullmatch(r"node\d+", name))
    names = [node_name_of(nodes[f"node{i}"][0][0]) for i in range(count)]
    drawn = []
    for (tail, head), label in edges.items():
        if tail.startswith("node") and "_saved" not in tail:
            numbers = [int(n) for n in re.findall(r"\d+", label)]
            input_nr, output_nr = numbers[0], (numbers[1] if len(numbers) > 1 else 0)
            drawn.append((int(tail[4:]), input_nr, int(head[4:]), output_nr))
    return names, sorted(drawn)


def node_name_of(text):
    return text.rsplit("::", 1)[-1]


def program(lib, x, w):
    """Reuse, a multi-output op (output 1 feeds the graph), a view and a reduction."""
    y = x * w
    first, second = y.unbind(0)
    z = (second.exp() + first * y[0]).sum()
    return z


def leaves(requires=(True, True)):
    x = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=requires[0])
    w = ag.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=requires[1])
    return x, w


def test_nodes_and_numbered_edges_are_torchs_graph():
    x, w = leaves()
    z = program(ag, x, w)
    tz = program(torch, to_torch(x), to_torch(w))
    nodes, edges = render(draw_graph(z))
    names, drawn = drawn_structure(nodes, edges)
    torch_names, torch_edges = torch_walk([tz.grad_fn])
    assert names == torch_names
    assert drawn == sorted(torch_edges)
    assert any(o != 0 for *_, o in drawn)       # unbind's output 1 is labelled as such
    assert edges[("tensor0", "node0")] == "grad_fn"


def test_several_roots_share_one_graph():
    x, w = leaves()
    y = x * w
    a, b = y.sum(), (y * 2).sum()
    ta, tb = (lambda y: (y.sum(), (y * 2).sum()))(to_torch(x) * to_torch(w))
    nodes, edges = render(draw_graph([a, b]))
    names, drawn = drawn_structure(nodes, edges)
    assert (names, drawn) == (lambda n, e: (n, sorted(e)))(*torch_walk([ta.grad_fn, tb.grad_fn]))
    assert ("tensor1", "node1") in edges


def test_saved_tensors_with_shape_and_version():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    m = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    out = (m * x).tanh()
    tout = (to_torch(m) * to_torch(x)).tanh()
    nodes, _ = render(draw_graph(out))
    drawn = {tuple(texts[:2]): texts[2] for name, (texts, _) in nodes.items() if "_saved" in name}
    mul = tout.grad_fn.next_functions[0][0]
    for label, value in [("saved result", tout.grad_fn._saved_result),
                         ("saved self", mul._saved_self), ("saved other", mul._saved_other)]:
        shape = tuple(value.shape)
        assert (label, f"{shape} float32" + device_suffix()) in drawn
        assert drawn[(label, f"{shape} float32" + device_suffix())] == f"version {value._version}"


def device_suffix():
    from oracle import DEVICE_NAME
    return "" if DEVICE_NAME == "cpu" else f" {DEVICE_NAME}"


def test_a_stale_saved_tensor_is_marked_and_backward_refuses_it():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a = x * 1
        b = a * a
        a.add_(1)
        return a, b
    a, b = run(ag)
    ta, _ = run(torch)
    nodes, edges = render(draw_graph(b))
    stale = [(name, texts, fill) for name, (texts, fill) in nodes.items()
             if "STALE" in " ".join(texts)]
    assert len(stale) == 2                      # b saved a twice (self and other)
    for name, texts, fill in stale:
        assert texts[-1] == f"STALE: saved at version 0, now {ta._version}"
        assert fill == "red"
        assert edges[(name, name.split("_")[0])] == ""
    assert_same_error(lambda lib: run(lib)[1].sum().backward(), RuntimeError,
                      "modified by an inplace operation")


def test_hooks_are_listed_where_they_were_attached():
    def run(lib, fired):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        z = y.exp()

        def scale_grad(grad):
            fired.append("scale_grad")

        def before_exp(grad_outputs):
            fired.append("before_exp")

        def after_exp(grad_inputs, grad_outputs):
            fired.append("after_exp")

        def leaf_hook(grad):
            fired.append("leaf_hook")

        def accumulated(tensor):
            fired.append("accumulated")
        y.register_hook(scale_grad)
        y.retain_grad()
        z.grad_fn.register_prehook(before_exp)
        z.grad_fn.register_hook(after_exp)
        x.register_hook(leaf_hook)
        x.register_post_accumulate_grad_hook(accumulated)
        return z
    fired, torch_fired = [], []
    z = run(ag, fired)
    nodes, _ = render(draw_graph(z))
    by_name = {node_name_of(texts[0]): texts for name, (texts, _) in nodes.items()
               if re.fullmatch(r"node\d+", name)}
    assert by_name["ExpBackward0"][1:] == ["pre-hook: before_exp", "post-hook: after_exp"]
    assert by_name["MulBackward0"][1:] == ["tensor hook on output 0: scale_grad",
                                           "retain_grad on output 0"]
    assert by_name["AccumulateGrad"][-2:] == ["tensor hook: leaf_hook",
                                              "post-accumulate hook: accumulated"]
    # Plain backward fires exactly the hooks drawn, as torch's does for the same program.
    z.sum().backward()
    run(torch, torch_fired).sum().backward()
    assert fired == torch_fired
    drawn = {line.rsplit(": ", 1)[-1] for texts in by_name.values() for line in texts[1:]
             if "hook" in line}
    assert drawn == set(fired)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_leaves_show_whether_grad_is_set():
    def run(lib, create_graph):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0], requires_grad=True)
        y = (x ** 3 * w).sum()
        before = y
        y.backward(create_graph=create_graph, inputs=[x])
        return x, w, before
    for create_graph in (False, True):
        x, w, y = run(ag, create_graph)
        tx, tw, _ = run(torch, create_graph)
        nodes, _ = render(draw_graph(y))
        leaves_drawn = [texts for texts, fill in nodes.values() if fill == "lightblue"]
        grads = sorted(texts[2] for texts in leaves_drawn)
        expected = []
        for theirs in (tx, tw):
            if theirs.grad is None:
                expected.append(".grad: None")
            else:
                text = f".grad: {tuple(theirs.grad.shape)} float32" + device_suffix()
                if theirs.grad.grad_fn is not None:
                    text += f" (grad_fn={theirs.grad.grad_fn.name()})"
                expected.append(text)
        assert grads == sorted(expected)


def test_trace_numbers_and_colours_nodes_in_run_order():
    """A stand-in for trace_backward's BackwardTrace: post-hooks on every node record the
    order plain backward ran them in."""
    x, w = leaves()
    z = (x * w).exp().sum() + (x * 3).sum()
    ran = []
    pending = [z.grad_fn]
    seen = set()
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        node.register_hook(lambda gi, go, node=node: ran.append(node))
        pending += [child for child, _ in node.next_functions if child is not None]
    z.backward(inputs=[x])                  # w's AccumulateGrad does not run

    class Trace:
        node_order = ran
    nodes, _ = render(draw_graph(z, trace=Trace))
    steps = {}
    not_run = []
    for name, (texts, fill) in nodes.items():
        if not re.fullmatch(r"node\d+", name):
            continue
        last = [t for t in texts if t.startswith("step ") or t == "not run"]
        if last == ["not run"]:
            not_run.append(texts)
            assert fill == "lightgrey"
        else:
            step = int(last[0].split()[1])
            steps[step] = (texts, fill)
    assert sorted(steps) == list(range(1, len(ran) + 1))
    for step, node in enumerate(ran, 1):
        assert steps[step][0][0] == node.name()
    assert len({fill for _, fill in steps.values()}) == len(ran)
    assert len(not_run) == 1 and not_run[0][1:3] == ["leaf (2, 2) float32" + device_suffix(),
                                                     ".grad: None"]


def test_custom_function_saved_tensors():
    class Cube(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return 3 * x * x * grad

    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = Cube.apply(x)
    nodes, _ = render(draw_graph(y))
    assert nodes["node0"][0][0] == "CubeBackward"
    assert nodes["node0_saved0"][0] == ["saved 0", "(2,) float32" + device_suffix(), "version 0"]
    y.sum().backward()
    nodes, _ = render(draw_graph(y))
    assert nodes["node0_saved0"][0][1] == "freed (backward ran without retain_graph)"


def test_freed_saved_tensors_after_backward():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.sum().backward()
    nodes, _ = render(draw_graph(y))
    assert nodes["node0_saved0"][0][1] == "freed (backward ran without retain_graph)"
    # torch frees it too: reading it raises.
    ty = to_torch(x).exp()
    ty.sum().backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        ty.grad_fn._saved_result


def test_deep_graph_is_walked_without_recursion_and_ids_are_stable():
    x = ag.tensor([1.0], requires_grad=True)
    y = x
    depth = 300
    for _ in range(depth):
        y = y * 1.0
    frames, frame = 0, sys._getframe()
    while frame is not None:
        frames, frame = frames + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(frames + 100)     # a recursive walk would need `depth` frames
    try:
        dot = draw_graph(y, show_saved=False)
    finally:
        sys.setrecursionlimit(limit)
    assert f"node{depth}" in dot.source       # depth MulBackward0 nodes and AccumulateGrad
    assert draw_graph(y, show_saved=False).source == dot.source


def test_needs_tensors_and_names_the_missing_package(monkeypatch):
    with pytest.raises(TypeError, match="draw_graph expects Tensors"):
        draw_graph([1.0])
    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(ImportError, match="'graphviz' Python package"):
        draw_graph(ag.tensor([1.0], requires_grad=True))
