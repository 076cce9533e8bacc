r"""``draw_graph``: a picture of the backward graph behind tensors, as a ``graphviz.Digraph``.

What the picture shows, for each Node reachable from the tensors' ``grad_fn``:

- its name (``MulBackward0``), and with ``trace=`` its place in the order the engine ran it;
- one edge per input that gets a gradient, labelled with the input's number (and the output
  of the receiving node when that is not its output 0), drawn the way gradients flow;
- each tensor it saved for backward, with its shape and dtype, and the version it was saved
  at against the tensor's version now: a saved tensor modified in place since (backward would
  raise) is drawn red and marked ``STALE``; a freed one (backward ran) says so;
- the hooks attached: the node's pre- and post-hooks, tensor hooks and ``retain_grad`` on
  its outputs, and on a leaf's ``AccumulateGrad`` the leaf's own hooks;
- for a leaf (``AccumulateGrad``) the leaf's shape and whether its ``.grad`` is set.

>>> import autograd_cy as ag
>>> x = ag.tensor([1.0, 2.0], requires_grad=True)
>>> dot = ag.autograd.draw_graph((x * x).sum())
>>> for line in dot.source.splitlines()[5:9]:
...     print(line.strip())
node0 [label=SumBackward0]
node1 [label=MulBackward0]
node1_saved0 [label="saved other\n(2,) float32\nversion 0" fillcolor=orange shape=note]
node1_saved0 -> node1 [arrowhead=none color=black style=dashed]
>>> svg = dot.pipe(format="svg").decode()          # Graphviz's dot draws it
>>> "MulBackward0" in svg
True

Rendering (``pipe``, ``render``) needs Graphviz's ``dot`` program; building the Digraph
needs only the ``graphviz`` Python package. Node ids follow the walk (``node0`` is the first
root's grad_fn), never memory addresses, so the same graph always gives the same source.
"""
from autograd_cy._C.accumulate_grad import AccumulateGrad
from autograd_cy._C.tensor import Tensor, _wrap_array

__all__ = ["draw_graph"]

_STALE_COLOR = "red"
_LEAF_COLOR = "lightblue"
_ROOT_COLOR = "darkolivegreen1"
_SAVED_COLOR = "orange"
_NOT_RUN_COLOR = "lightgrey"
_FREED = "freed (backward ran without retain_graph)"
# Lines of a label are joined by DOT's own escape for a centred line break (the source then
# keeps one line per node).
_LINE_BREAK = "\\n"


def _graphviz():
    try:
        import graphviz
    except ImportError:
        raise ImportError(
            "draw_graph needs the 'graphviz' Python package (pip install graphviz), and "
            "Graphviz's 'dot' program to render the picture (e.g. apt-get install graphviz)"
        ) from None
    return graphviz


def describe_tensor(shape, dtype, device=None):
    """``(2, 3) float32`` (and the device when it is not the CPU); why_alive says it too."""
    dtype_name = str(dtype).rsplit(".", 1)[-1]
    text = f"{tuple(shape)} {dtype_name}"
    if device is not None and str(device) != "cpu":
        text += f" {device}"
    return text


def _tensor_text(tensor):
    return describe_tensor(tensor.shape, tensor.dtype, tensor.device)


def _hook_names(hooks):
    """The names of the hooks in a ``handle id -> hook`` table, in registration order."""
    return [getattr(hook, "__name__", type(hook).__name__) for hook in (hooks or {}).values()]


def saved_values(node):
    """``(name, SavedTensor)`` for each tensor ``node`` keeps for backward. A custom
    Function's ctx keeps them in ``save_for_backward``'s order (named by position); a
    built-in node names them as PyTorch does (``_saved_self``: name ``self``)."""
    if hasattr(type(node), "_forward_cls"):
        try:
            raw = node._raw_saved_tensors
        except RuntimeError:           # freed by a backward without retain_graph
            return [("tensors", None)]
        return [(str(i), saved) for i, saved in enumerate(raw)]
    names = getattr(type(node), "saved_names", ())
    return [(names[i] if i < len(names) else str(i), saved)
            for i, saved in enumerate(node._inspect()["saved"]) if saved is not None]


def saved_state(saved):
    """``(lines, stale)``: a saved tensor's shape, dtype and versions, as the picture shows it."""
    if saved is None:
        return [_FREED], False
    state = saved._inspect()
    if state["was_none"]:
        return ["None"], False
    if state["freed"]:
        return [_FREED], False
    if state["packed"]:
        return ["packed by saved_tensors_hooks"], False
    value = state["value"]
    if isinstance(value, Tensor):
        text = _tensor_text(value)
    else:                               # a node's own output, kept as its array
        text = _tensor_text(_wrap_array(value))
    saved_at, now = state["saved_version"], state["version"]
    if saved_at != now:
        return [text, f"STALE: saved at version {saved_at}, now {now}"], True
    return [text, f"version {saved_at}"], False


def _hook_lines(node):
    """One line per hook attached to ``node`` (or, for AccumulateGrad, to its leaf)."""
    state = node._inspect()
    lines = [f"pre-hook: {name}" for name in _hook_names(state["pre_hooks"])]
    for output_nr, hooks in sorted((state["tensor_pre_hooks"] or {}).items()):
        lines += [f"tensor hook on output {output_nr}: {name}" for name in _hook_names(hooks)]
    for output_nr in sorted(state["retains_grad_hooks"] or {}):
        lines.append(f"retain_grad on output {output_nr}")
    lines += [f"post-hook: {name}" for name in _hook_names(state["post_hooks"])]
    if isinstance(node, AccumulateGrad):
        leaf = node.variable
        lines += [f"tensor hook: {name}" for name in _hook_names(leaf._backward_hooks)]
        lines += [f"post-accumulate hook: {name}"
                  for name in _hook_names(leaf._post_accumulate_grad_hooks)]
    return lines


def _leaf_lines(node):
    leaf = node.variable
    grad = leaf.grad
    grad_text = ".grad: None" if grad is None else f".grad: {_tensor_text(grad)}"
    if grad is not None and grad.grad_fn is not None:
        grad_text += f" (grad_fn={grad.grad_fn.name()})"
    return [f"leaf {_tensor_text(leaf)}", grad_text]


def _walk(roots):
    """Every Node reachable from ``roots``, in breadth-first order (iterative: graphs may be
    millions of nodes deep), and the edges ``(parent, input, child, child's output)``."""
    order, index, edges = [], {}, []
    for node in roots:
        if node is not None and id(node) not in index:
            index[id(node)] = len(order)
            order.append(node)
    position = 0
    while position < len(order):
        node = order[position]
        position += 1
        for input_nr, (child, output_nr) in enumerate(node.next_functions):
            if child is None:
                continue
            if id(child) not in index:
                index[id(child)] = len(order)
                order.append(child)
            edges.append((node, input_nr, child, output_nr))
    return order, index, edges


def _run_position(trace):
    """``id(node) -> step`` (0-based) from a trace's ``node_order`` (trace_backward)."""
    if trace is None:
        return None
    return {id(node): step for step, node in enumerate(trace.node_order)}


def _step_color(step, steps):
    """A hue from red (first to run) to blue (last), in Graphviz's "H S V" notation."""
    hue = 0.0 if steps <= 1 else 0.66 * step / (steps - 1)
    return f"{hue:.3f} 0.35 1.000"


def draw_graph(tensors, trace=None, *, show_saved=True, graph_name="backward_graph"):
    """The backward graph behind ``tensors`` (a Tensor or a sequence of them) as a
    ``graphviz.Digraph``; see the module docstring for what it shows.

    ``trace``: a ``BackwardTrace`` (``trace_backward``); its ``node_order`` numbers and colours
    each node by when the engine ran it (red first, blue last; grey: not run).
    ``show_saved``: draw the saved tensors (orange boxes, dashed edges to their node).

    >>> import autograd_cy as ag
    >>> a = ag.tensor([1.0, 2.0], requires_grad=True)
    >>> dot = ag.autograd.draw_graph((a.exp() * a).sum())
    >>> "MulBackward0" in dot.source and "ExpBackward0" in dot.source
    True
    """
    graphviz = _graphviz()
    if isinstance(tensors, Tensor):
        tensors = (tensors,)
    tensors = tuple(tensors)
    for tensor in tensors:
        if not isinstance(tensor, Tensor):
            raise TypeError(f"draw_graph expects Tensors, got {type(tensor).__name__}")
    dot = graphviz.Digraph(graph_name)
    dot.attr("node", shape="box", style="filled", fillcolor="white", fontsize="11")
    dot.attr("edge", fontsize="10")
    text = graphviz.nohtml

    grad_fns = [tensor.grad_fn for tensor in tensors]
    order, index, edges = _walk(grad_fns)
    run_position = _run_position(trace)
    steps = 0 if run_position is None else len(run_position)

    for i, tensor in enumerate(tensors):
        root = f"tensor{i}"
        lines = [f"tensor {i}", _tensor_text(tensor)]
        if tensor.grad_fn is None:
            lines.append("no grad_fn (leaf or constant)")
        label = _LINE_BREAK.join(lines)
        dot.node(root, text(label), fillcolor=_ROOT_COLOR, shape="ellipse")
        if tensor.grad_fn is not None:
            nr = tensor.output_nr
            dot.edge(root, f"node{index[id(tensor.grad_fn)]}",
                     label="grad_fn" if nr == 0 else f"grad_fn, output {nr}")

    for number, node in enumerate(order):
        name = f"node{number}"
        lines = [node.name()]
        attrs = {}
        if isinstance(node, AccumulateGrad):
            lines += _leaf_lines(node)
            attrs["fillcolor"] = _LEAF_COLOR
        if run_position is not None:
            step = run_position.get(id(node))
            if step is None:
                lines.append("not run")
                attrs["fillcolor"] = _NOT_RUN_COLOR
            else:
                lines.append(f"step {step + 1} of {steps}")
                attrs["fillcolor"] = _step_color(step, steps)
        hook_lines = _hook_lines(node)
        if hook_lines:
            lines += hook_lines
            attrs["penwidth"] = "2"
        dot.node(name, text(_LINE_BREAK.join(lines)), **attrs)
        if show_saved and not isinstance(node, AccumulateGrad):
            for slot, (saved_name, saved) in enumerate(saved_values(node)):
                saved_text, stale = saved_state(saved)
                saved_id = f"{name}_saved{slot}"
                label = _LINE_BREAK.join([f"saved {saved_name}", *saved_text])
                dot.node(saved_id, text(label), shape="note",
                         fillcolor=_STALE_COLOR if stale else _SAVED_COLOR)
                dot.edge(saved_id, name, style="dashed", arrowhead="none",
                         color=_STALE_COLOR if stale else "black")

    for parent, input_nr, child, output_nr in edges:
        label = f"input {input_nr}" if output_nr == 0 else f"input {input_nr} -> output {output_nr}"
        dot.edge(f"node{index[id(parent)]}", f"node{index[id(child)]}", label=label)
    return dot
