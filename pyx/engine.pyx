"""The backward engine: one ``backward()`` or ``grad()``, read from top to bottom.

``run_backward`` runs a *GraphTask*, the state of one backward pass, in four steps:

1. ``compute_dependencies`` walks the graph once from the root and counts, for every node,
   the edges that point at it (its *dependencies*: how many gradients it waits for).
2. With ``inputs=`` given, ``compute_exec_info`` marks the nodes that lie on a path to an
   input (*exec_info*: everything else is pruned) and where ``grad()`` *captures* a result.
3. ``execute`` pops the *ReadyQueue*: the ready node with the largest ``sequence_nr``, that
   is the most recent forward op, first. ``evaluate_function`` runs it (``call_function``:
   hooks, ``apply``, ``validate_outputs`` in PyTorch's order) and adds each gradient it
   produces into the receiving node's *InputBuffer* (one slot per forward output of that
   node); a node whose last dependency arrived is pushed onto the queue with its buffer.
4. Final callbacks (``queue_callback``) run; the saved tensors of every node that ran are
   freed unless ``retain_graph``.

On CUDA devices each node runs on the stream its forward op used, with events where
gradients cross streams (streams.pyx, NOTE [Streams of backward]).

The data structures it works on (GraphTask, ReadyQueue, the InputBuffer and where a node's
count and buffer live while a task runs) are in graph_task.pyx. Nothing here recurses: the
graph can be a million nodes deep.
"""
from cpython.object cimport PyObject, PyTypeObject, Py_TYPE
from cpython.dict cimport PyDict_GetItem, PyDict_Next
import sys
import threading
import warnings

cimport numpy as cnp

from autograd_cy._C.grad_mode cimport (
    set_grad_enabled, is_anomaly_enabled, is_anomaly_check_nan_enabled,
    set_anomaly_enabled, is_inference_mode_enabled, set_inference_mode, profiler_flag,
)
from autograd_cy._C.grad_mode import _is_grad_enabled
from autograd_cy._C.device cimport streams_in_use, backend
from autograd_cy._C.tensor cimport Tensor, make_tensor, array_module
from autograd_cy._C.node cimport Node, Edge, GraphRoot, check_saved
from autograd_cy._C.accumulate_grad cimport AccumulateGrad, flush_deferred_accumulation
from autograd_cy._C.hooks cimport check_hook_result, check_node_hook_result
from autograd_cy._C.saved_tensor cimport hooks_state, set_hooks_state
from autograd_cy._C.graph_task cimport (
    GraphTask, ExecInfo, Pending, ReadyQueue, current_tasks, task_started, task_ended,
    owned_by_other, release_nodes, will_run, input_buffer, deliver, new_input_buffer,
    accumulate,
)
from autograd_cy._C.validate_outputs cimport (
    validate_outputs, validate_batched_outputs, root_grads_on_their_devices,
)
from autograd_cy._C.batching cimport (
    grads_batched, set_grads_batched, warn_per_row, stack_rows,
)
from autograd_cy._C.profiling cimport enter_node, exit_node
from autograd_cy._C.provenance cimport has_nan
from autograd_cy._C.fp_errors cimport enter_quiet_region, exit_quiet_region
from autograd_cy._C.provenance import nan_origin_sentences, format_trace
from autograd_cy._C.streams cimport (
    node_stream, enter_stream, exit_stream, add_on_streams, caller_stream, note_leaf_stream,
    sync_leaf_streams,
)
from autograd_cy._C.tracing cimport (
    tracing_flag, trace_plan, trace_pop, trace_edge, trace_hook,
)

cnp.import_array()

cdef extern from "Python.h":
    unsigned long Py_TPFLAGS_HEAPTYPE
    int PyType_HasFeature(PyTypeObject *type, unsigned long feature)


# =========================================================================== run_backward

cpdef list run_backward(tuple root_edges, tuple root_grads, bint keep_graph,
                        bint create_graph, list input_edges, bint accumulate_grad,
                        bint batched=False):
    """Run one backward pass; return the captured gradients when ``accumulate_grad`` is False.

    ``root_edges``/``root_grads`` pair each output's gradient edge with its gradient;
    ``input_edges`` is None for a plain ``backward()``, else the edges of ``inputs=``
    (prune to them; capture them for ``grad()``). ``batched``: every gradient carries a
    leading batch dim (``is_grads_batched``, NOTE [Batched gradients] in batching.pyx).
    """
    cdef GraphTask task = GraphTask.__new__(GraphTask)
    cdef Node root
    cdef list root_buffer
    cdef Edge edge
    task.keep_graph = keep_graph
    task.batched = batched
    if batched:
        for grad in root_grads:
            if grad is not None:
                task.batch_size = (<Tensor>grad)._data.shape[0]
                break
    root_grads = root_grads_on_their_devices(root_edges, root_grads)
    if streams_in_use():
        task.caller_streams = backend().current_streams()
        task.leaf_streams = []

    if len(root_edges) == 1:
        # One root: that node receives the gradient directly in its input slot.
        edge = root_edges[0]
        root = edge.function
        root_buffer = new_input_buffer(root)
        if root_grads[0] is not None and task.caller_streams is not None:
            add_on_streams(root_buffer, edge.input_nr, root_grads[0],
                           caller_stream(task, root_grads[0]), node_stream(root))
        elif root_grads[0] is not None:
            root_buffer[edge.input_nr] = root_grads[0]
    else:
        # Several roots: a GraphRoot node hands each its gradient.
        root = GraphRoot(root_edges, root_grads)
        root.sequence_nr = <unsigned long long>-1
        root_buffer = []

    cdef bint completed = False
    task_started(task)
    try:
        compute_dependencies(task, root)
        if input_edges is not None:
            task.captured = [None] * len(input_edges)
            compute_exec_info(task, root, input_edges, accumulate_grad)
            if not task.exec_info:
                # No input has an edge (all are unreachable): prune everything all the same.
                # An empty exec_info would mean "no pruning".
                task.exec_info[None] = ExecInfo()
            if len(root_edges) != 1:
                (<ExecInfo>task.exec_info.setdefault(root, ExecInfo())).needed = True
        if tracing_active[0]:
            trace_plan(task, root)      # NOTE [Tracing the engine] in tracing.pyx

        tasks = current_tasks()
        task.queue.push(root, root_buffer)
        if len(tasks) >= MAX_REENTRANT_DEPTH:
            execute_on_new_thread(task, create_graph)
        else:
            previous_grad_mode = _is_grad_enabled()
            # The pass runs with a copy of the caller's saved_tensors_hooks: a hook that
            # enters or exits a saved_tensors_hooks context during it leaves no trace after.
            previous_saved_hooks = hooks_state()
            previous_batched = grads_batched()
            set_grad_enabled(create_graph)   # inside backward, grad mode is create_graph
            set_grads_batched(batched)
            tasks.append(task)
            quiet = enter_quiet_region()        # NOTE [Quiet regions] in fp_errors.pyx
            try:
                execute(task)
            finally:
                exit_quiet_region(quiet)
                tasks.pop()
                set_grad_enabled(previous_grad_mode)
                set_grads_batched(previous_batched)
                set_hooks_state(previous_saved_hooks)
        completed = True
    finally:
        flush_deferred_accumulation()   # a backward that failed: what was added lands
        task_ended(task)
        # A plain backward that ran to the end has run every claimed node, which left no
        # InputBuffer behind: the stale ids need no cleanup (NOTE [Dependencies on the
        # node]), and a deep graph is not walked a second time. Otherwise buffers may be
        # left: drop them.
        if not completed or task.exec_info:
            release_nodes(task)
    return task.captured


# Reentrant backward (a backward started inside a backward, as a checkpointed model does)
# nests on the caller's stack. Past this depth, like PyTorch's engine, the nested task runs on
# a fresh thread, with a fresh stack, while the caller waits: thousands of levels then fit.
cdef Py_ssize_t MAX_REENTRANT_DEPTH = 40


cdef void execute_on_new_thread(GraphTask task, bint create_graph) except *:
    """Run ``task`` to the end on a new thread with the caller's thread-local state: its
    autograd modes and saved_tensors_hooks (a nested forward there packs as the caller's)."""
    cdef bint anomaly = is_anomaly_enabled()
    cdef bint check_nan = is_anomaly_check_nan_enabled()
    cdef bint inference = is_inference_mode_enabled()
    cdef tuple saved_hooks = hooks_state()
    errors = []

    def worker():
        set_grad_enabled(create_graph)
        set_anomaly_enabled(anomaly, check_nan)
        set_inference_mode(inference)
        set_hooks_state(saved_hooks)
        set_grads_batched(task.batched)
        tasks = current_tasks()
        tasks.append(task)
        try:
            execute(task)
        except BaseException as error:
            errors.append(error)
        finally:
            tasks.pop()

    thread = threading.Thread(target=worker, name="autograd reentrant backward")
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


# =================================================================== compute_dependencies

cdef void compute_dependencies(GraphTask task, Node root) except *:
    """Count, for every node below the root, the edges that point at it."""
    cdef list stack = [root]
    cdef long long task_id = task.id
    cdef Node node
    cdef Node child
    cdef tuple children
    cdef Py_ssize_t i
    task.root = root
    while stack:
        node = <Node>stack.pop()
        children = node.next_nodes
        for i in range(len(children)):
            child = <Node>children[i]
            if child is None:
                continue
            if child.engine_task == task_id:
                child.engine_dependencies += 1
            elif child.engine_task == 0 or not owned_by_other(child.engine_task):
                child.engine_task = task_id
                child.engine_dependencies = 1
                child.engine_buffer = None
                stack.append(child)
            else:
                # Another running task owns this node (NOTE [Dependencies on the node]).
                release_nodes(task)
                compute_shared_dependencies(task, root)
                return


cdef void compute_shared_dependencies(GraphTask task, Node root) except *:
    """compute_dependencies for a task that shares nodes with another: counts in a dict."""
    cdef dict pending = {}
    cdef list stack = [root]
    cdef Node node
    cdef Node child
    cdef tuple children
    cdef Py_ssize_t i
    cdef PyObject* entry
    cdef Pending state
    task.shared = True
    task.pending = pending
    while stack:
        node = <Node>stack.pop()
        children = node.next_nodes
        for i in range(len(children)):
            child = <Node>children[i]
            if child is None:
                continue
            entry = PyDict_GetItem(pending, child)
            if entry is NULL:
                state = Pending.__new__(Pending)
                pending[child] = state
                stack.append(child)
            else:
                state = <Pending>entry
            state.dependencies += 1


# ======================================================================= compute_exec_info

cdef void compute_exec_info(GraphTask task, Node root, list input_edges,
                            bint accumulate_grad):
    """Mark every node with a path to an input as needed, without recursion.

    An explicit stack of (node, index of the next child to visit) replaces the recursive
    DFS; a node's ``needed`` is settled once all its children are done.
    """
    cdef dict exec_info = task.exec_info
    cdef ExecInfo info
    cdef Edge edge
    cdef Node node, child
    cdef Py_ssize_t position
    for position in range(len(input_edges)):
        edge = input_edges[position]
        if edge.function is None:
            continue
        info = exec_info.get(edge.function)
        if info is None:
            info = exec_info[edge.function] = ExecInfo()
        if accumulate_grad:
            info.needed = True
        else:
            if info.captures is None:
                info.captures = []
            info.captures.append((edge.input_nr, position))

    cdef set visited = set()
    cdef list stack = [(root, 0)]
    cdef Py_ssize_t child_index
    visited.add(root)
    while stack:
        node, child_index = stack[-1]
        if child_index < len(node.next_nodes):
            stack[-1] = (node, child_index + 1)
            child = node.next_nodes[child_index]
            if child is not None and child not in visited:
                visited.add(child)
                stack.append((child, 0))
            continue
        stack.pop()
        # Post-order: every child of `node` is settled; is any of them needed?
        for child in node.next_nodes:
            if will_run(task, child):
                info = exec_info.get(node)
                if info is None:
                    info = exec_info[node] = ExecInfo()
                info.needed = True
                break


cdef tuple needed_outputs(GraphTask task, Node node):
    """For each next edge of ``node``: will its gradient be used? (what a formula may skip)"""
    return tuple([will_run(task, child) for child in node.next_nodes])


# ================================================================================ execute

cdef void execute(GraphTask task) except *:
    """Run ready nodes, newest first, until none is left; then the final callbacks."""
    cdef ReadyQueue queue = task.queue
    cdef tuple entry
    while not queue.empty():
        entry = queue.pop()
        if task.caller_streams is None:
            evaluate_function(task, <Node>entry[0], <list>entry[1], None)
        else:
            evaluate_on_stream(task, <Node>entry[0], <list>entry[1])
    if task.caller_streams is not None:
        sync_leaf_streams(task)
    flush_deferred_accumulation()       # NOTE [Deferred gradient accumulation]
    # Final callbacks may queue further callbacks.
    cdef Py_ssize_t i = 0
    while i < len(task.final_callbacks):
        task.final_callbacks[i]()
        i += 1


# ====================================================================== evaluate_function

cdef void evaluate_on_stream(GraphTask task, Node node, list inputs) except *:
    """evaluate_function with the node's stream current (NOTE [Streams of backward])."""
    stream = node_stream(node)
    if stream is None:
        evaluate_function(task, node, inputs, None)
        return
    previous = enter_stream(stream)
    try:
        evaluate_function(task, node, inputs, stream)
    finally:
        exit_stream(stream, previous)


cdef void evaluate_function(GraphTask task, Node node, list inputs, object stream) except *:
    """Run ``node`` on its InputBuffer and pass each gradient it produces on."""
    cdef ExecInfo info = None
    cdef bint needed
    cdef tuple outputs
    cdef bint tracing = tracing_active[0]     # read once per node (NOTE [Tracing the engine])
    if tracing:
        trace_pop(task, node, inputs)
    if task.exec_info:
        info = task.exec_info.get(node)
        needed = info is not None and info.needed
        if not needed:
            # Popped but not run: a captured input, or the root when it reaches no input.
            # Its tensor hooks run all the same (on an undefined slot too: the hook gets
            # None), and grad() captures their edits.
            inputs = call_tensor_pre_hooks(node, inputs)
        if info is not None and info.captures:
            # grad() reads this node's input. A node that runs anyway (it leads to another
            # input) is captured before its tensor hooks, which then run once, inside it.
            for input_nr, position in info.captures:
                task.captured[position] = inputs[input_nr]
            if stream is not None:
                note_leaf_stream(task, stream)
        if not needed:
            return
    try:
        if profiler_active[0]:
            outputs = profiled_call_function(task, node, inputs)
        else:
            outputs = call_function(task, node, inputs)
    except BaseException:
        report_anomaly(node)
        raise

    cdef tuple children = node.next_nodes
    cdef Py_ssize_t i
    cdef Node child
    cdef list buffer
    if stream is not None and not children:
        note_leaf_stream(task, stream)      # AccumulateGrad: it wrote a .grad on its stream
    for i in range(len(outputs)):
        child = <Node>children[i]
        if child is None:
            continue
        if tracing:
            trace_edge(task, node, i, outputs[i])
        if task.exec_info and not will_run(task, child):
            deliver(task, child)        # pruned: the gradient is dropped, the count still drops
            continue
        buffer = input_buffer(task, child)
        if outputs[i] is not None and task.caller_streams is not None:
            add_on_streams(buffer, <Py_ssize_t>node.next_input_nrs[i], outputs[i], stream,
                           node_stream(child))
        elif outputs[i] is not None:
            accumulate(buffer, <Py_ssize_t>node.next_input_nrs[i], outputs[i])
        if deliver(task, child) == 0:
            # The last edge into `child`: it is ready, with every gradient in its buffer.
            task.queue.push(child, buffer)


# ========================================================================== call_function

cdef int* profiler_active = profiler_flag()   # a profile records (read per node: one load)
cdef int* tracing_active = tracing_flag()     # a trace records (NOTE [Tracing the engine])


cdef tuple profiled_call_function(GraphTask task, Node node, list inputs):
    """call_function between the profiler's events for ``node`` (NOTE [Profiling ops])."""
    cdef tuple started = enter_node(node)
    try:
        return call_function(task, node, inputs)
    finally:
        exit_node(node, inputs, started)


cdef tuple call_function(GraphTask task, Node node, list inputs):
    """Hooks and ``apply`` for one node, in PyTorch's order: tensor pre-hooks, retains-grad
    hooks, node pre-hooks, ``apply``, validate_outputs, node post-hooks; then the saved
    tensors are freed unless ``retain_graph``."""
    cdef tuple grad_outputs
    cdef tuple outputs
    inputs = call_tensor_pre_hooks(node, inputs)
    grad_outputs = tuple(inputs)
    if node.extras is not None and node.extras.pre_hooks:
        for hook in list(node.extras.pre_hooks.values()):
            if tracing_active[0]:
                trace_hook("node pre-hook", node, -1, hook)
            result = hook(grad_outputs)
            if result is not None:
                grad_outputs = check_node_hook_result(hook, result, grad_outputs)

    check_saved(node)
    if passes_undefined_through(node, grad_outputs):
        # A built-in formula: no gradient in, no gradient out.
        outputs = (None,) * len(node.next_nodes)
    elif task.batched:
        outputs = call_batched(task, node, grad_outputs)
    elif task.exec_info:
        node.output_mask = needed_outputs(task, node)
        try:
            outputs = node.apply(grad_outputs)
        finally:
            node.output_mask = None
        outputs = validate_outputs(node, outputs)
    else:
        outputs = validate_outputs(node, node.apply(grad_outputs))

    if node.extras is not None and node.extras.post_hooks:
        for hook in list(node.extras.post_hooks.values()):
            if tracing_active[0]:
                trace_hook("node post-hook", node, -1, hook)
            result = hook(outputs, grad_outputs)
            if result is not None:
                outputs = check_node_hook_result(hook, result, outputs)
    if not task.keep_graph:
        node.release_variables()
    if is_anomaly_enabled() and is_anomaly_check_nan_enabled():
        check_nan(node, outputs)
    return outputs


cdef tuple call_batched(GraphTask task, Node node, tuple grad_outputs):
    """``apply`` and validate_outputs in a batched pass (NOTE [Batched gradients]): once
    with the batched gradients if the node's formula batches, else once per batch row."""
    cdef Py_ssize_t batch = task.batch_size
    if task.exec_info:
        node.output_mask = needed_outputs(task, node)
    try:
        if getattr(node, "batches_gradients", False):
            outputs = node.apply(grad_outputs)
        else:
            outputs = apply_per_row(node, grad_outputs, batch)
    finally:
        node.output_mask = None
    return validate_batched_outputs(node, outputs, batch)


cdef tuple apply_per_row(Node node, tuple grads, Py_ssize_t batch):
    """The fallback of a formula that does not batch: ``apply`` once per batch row, with the
    switch off (the formula sees gradients of its tensors' shapes), the rows' results
    stacked. A result some rows leave undefined is zeros in those rows."""
    cdef Py_ssize_t row
    cdef list rows = []
    warn_per_row(node)
    set_grads_batched(False)
    try:
        for row in range(batch):
            rows.append(node.apply(tuple([None if grad is None else grad[row]
                                          for grad in grads])))
    finally:
        set_grads_batched(True)
    if not rows:
        return (None,) * len(node.next_nodes)
    cdef list outputs = []
    for column in zip(*rows):
        defined = next((value for value in column if value is not None), None)
        if defined is None:
            outputs.append(None)
        else:
            if any(value is None for value in column):
                data = (<Tensor>defined)._data
                zeros = make_tensor(array_module(data).zeros_like(data))
                column = [value if value is not None else zeros for value in column]
            outputs.append(stack_rows(list(column)))
    return tuple(outputs)


cdef list call_tensor_pre_hooks(Node node, list inputs):
    """Tensor hooks (registration order, each may replace the grad), then retains-grad."""
    cdef dict hooks_by_slot = node.tensor_hooks()
    cdef Py_ssize_t slot, position
    cdef PyObject* key
    cdef PyObject* value
    if hooks_by_slot:
        for slot, hooks in hooks_by_slot.items():
            if len(<dict>hooks) == 1:
                # the common case, one hook: read it without copying the table (a copy
                # guards against a hook that removes or adds hooks while they run)
                position = 0
                PyDict_Next(hooks, &position, &key, &value)
                call_tensor_pre_hook(node, slot, <object>value, inputs)
                continue
            for hook in list((<dict>hooks).values()):
                call_tensor_pre_hook(node, slot, hook, inputs)
    if node.extras is not None and node.extras.retains_grad_hooks:
        for slot, hook in list(node.extras.retains_grad_hooks.items()):
            if tracing_active[0]:
                trace_hook("retains_grad", node, slot, hook)
            hook(inputs[slot])
    return inputs


cdef inline void call_tensor_pre_hook(Node node, Py_ssize_t slot, object hook,
                                      list inputs) except *:
    if tracing_active[0]:
        trace_hook("tensor pre-hook", node, slot, hook)
    grad = inputs[slot]
    result = hook(grad)
    if result is not None:
        inputs[slot] = check_hook_result(hook, result, grad)


cdef bint passes_undefined_through(Node node, tuple grads):
    """Are all incoming gradients undefined, and is ``node`` a built-in formula?

    Built-in nodes are Cython classes (static types) or the nodes of the library's ops
    written as Functions (``builtin_op``); custom Functions are Python classes (heap types)
    and decide for themselves (``set_materialize_grads``), and AccumulateGrad must still
    run its post-accumulate hooks.
    """
    if not grads:
        return False
    for grad in grads:
        if grad is not None:
            return False
    if isinstance(node, AccumulateGrad):
        return False
    if not PyType_HasFeature(Py_TYPE(node), Py_TPFLAGS_HEAPTYPE):
        return True
    return getattr(getattr(type(node), "_forward_cls", None), "builtin_op", False)


# ============================================================================= anomalies

cdef void check_nan(Node node, tuple outputs) except *:
    for i, grad in enumerate(outputs):
        if grad is not None and has_nan((<Tensor>grad)._data):   # NOTE [NaN origins]
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               "output." + nan_origin_sentences(node))


cdef void report_anomaly(Node node):
    if not is_anomaly_enabled():
        return
    if node.extras is not None and node.extras.anomaly_trace is not None:
        message = (f"Error detected in {node.name()}. Traceback of forward call that caused "
                   f"the error:\n{format_trace(node.extras.anomaly_trace)}")
    else:
        message = (f"Error detected in {node.name()}. No forward pass information available. "
                   "Enable detect anomaly during forward pass for more information.")
    try:
        warnings.warn(message, UserWarning, stacklevel=2)
    except Warning:
        # Warnings filtered into errors: the node's own error is what propagates; the
        # report is printed, as PyTorch's C++ warning handler does.
        sys.stderr.write(f"UserWarning: {message}\n")
