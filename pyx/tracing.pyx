"""The engine's recorder: what ``trace_backward`` and ``trace_hooks`` see of a backward.

The engine (engine.pyx, accumulate_grad.pyx) calls the ``trace_*`` functions below at its
event sites while a recorder is installed; each builds a small dict of facts and hands it,
with the event's kind, the running GraphTask's id and the node, to every recorder installed
on the calling thread. The Python tools turn those into readable events
(autograd_cy/autograd/trace_backward.py, trace_hooks.py).

NOTE [Tracing the engine]
A stepper for learners must show the engine's real order -- the same dependency counts, the
same ready-queue pops, the same hook calls -- so it cannot be a second engine that imitates
the first: it is the engine itself, reporting. What reporting costs when nobody listens is
one C int, ``tracing`` below, that the engine reads through a pointer (``tracing_flag``) as
it reads the profiler's flag: once per node in ``evaluate_function`` (kept in a local for the
node's edges), once per backward after the dependencies are counted, once per
AccumulateGrad, and inside the branches that call hooks (which only run when a hook is
registered). It is 1 while at least one recorder is installed, on any thread; each recorder
hears only the events of the thread that installed it. The events carry descriptions of
gradients (dtype and shape), never the gradient tensors: holding one would change what the
engine may steal as ``.grad`` (NOTE [Stealing the gradient]), and so the result.
A reentrant backward past MAX_REENTRANT_DEPTH runs on a fresh thread: its events are not
heard.
"""
from cpython.pythread cimport PyThread_get_thread_ident

from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.node cimport Node
from autograd_cy._C.graph_task cimport (
    GraphTask, ExecInfo, Pending, ReadyQueue, current_tasks, will_run,
)

cdef int tracing = 0          # 1 while a recorder is installed (read by the engine)
cdef list recorders = []      # (thread ident, recorder(kind, task id, node, fields))


cdef int* tracing_flag() noexcept nogil:
    return &tracing


def add_recorder(recorder):
    """Call ``recorder(kind, task_id, node, fields)`` at every engine event of this thread;
    returns the token that ``remove_recorder`` takes."""
    global tracing
    token = (PyThread_get_thread_ident(), recorder)
    recorders.append(token)
    tracing = 1
    return token


def remove_recorder(token):
    global tracing
    recorders.remove(token)
    tracing = 1 if recorders else 0


def recording():
    """Is a recorder installed (on any thread)? The engine then reports its events."""
    return tracing == 1


cdef void record(str kind, long long task_id, Node node, dict fields) except *:
    cdef unsigned long thread = PyThread_get_thread_ident()
    for owner, recorder in list(recorders):
        if owner == thread:
            recorder(kind, task_id, node, fields)


cdef str describe(object grad):
    """A gradient as text: dtype and shape (``float32[2, 3]``), or None."""
    if grad is None:
        return "None"
    data = (<Tensor>grad)._data
    return f"{data.dtype.name}{list(data.shape)}"


# -------------------------------------------------------------- a node's state in a task

cdef Py_ssize_t dependencies_of(GraphTask task, Node node):
    """The edges still to deliver into ``node`` (NOTE [Dependencies on the node])."""
    cdef Pending state
    if task.shared:
        state = task.pending.get(node)
        return 0 if state is None else state.dependencies
    if node.engine_task == task.id:
        return node.engine_dependencies
    return 0


cdef list buffer_of(GraphTask task, Node node):
    """``node``'s InputBuffer in the task, or None when none is made yet."""
    cdef Pending state
    if task.shared:
        state = task.pending.get(node)
        return None if state is None else state.buffer
    if node.engine_task == task.id:
        return node.engine_buffer
    return None


cdef str plan_of(GraphTask task, Node node):
    """What exec_info (``inputs=``) decided for ``node``."""
    cdef ExecInfo info = task.exec_info.get(node)
    if info is None or not (info.needed or info.captures):
        return "pruned: no path to an input"
    if info.needed and info.captures:
        return "runs; grad() reads its input"
    if info.needed:
        return "runs"
    return "grad() reads its input; does not run"


# ------------------------------------------------------------------------ the event sites

cdef void trace_plan(GraphTask task, Node root) except *:
    """After compute_dependencies (and compute_exec_info): each node's count, breadth-first
    from the root; under ``inputs=``, what exec_info decided for each."""
    cdef list order = [root]
    cdef set seen = {root}
    cdef Py_ssize_t i = 0
    cdef Node node
    while i < len(order):
        node = <Node>order[i]
        i += 1
        for child in node.next_nodes:
            if child is not None and child not in seen:
                seen.add(child)
                order.append(child)
    for node in order:
        record("dependencies", task.id, node, {
            "count": 0 if node is root else dependencies_of(task, node),
            "sequence_nr": node.sequence_nr})
    if task.exec_info:
        for node in order:
            record("plan", task.id, node, {"decision": plan_of(task, node)})


cdef void trace_pop(GraphTask task, Node node, list inputs) except *:
    """``node`` was just popped: what was ready with it, and whether it runs."""
    cdef ReadyQueue queue = task.queue
    cdef ExecInfo info = task.exec_info.get(node) if task.exec_info else None
    waiting = sorted(queue.nodes[:queue.size], key=sequence_key)
    record("pop", task.id, node, {
        "sequence_nr": node.sequence_nr,
        "queue": tuple(waiting),
        "runs": not task.exec_info or (info is not None and info.needed),
        "inputs": tuple([describe(grad) for grad in inputs])})


def sequence_key(Node node):
    return -<object>node.sequence_nr       # newest first; ties keep their heap order


cdef void trace_edge(GraphTask task, Node node, Py_ssize_t output, object grad) except *:
    """Before ``node``'s gradient ``output`` goes into the InputBuffer of the edge's node."""
    cdef Node child = <Node>node.next_nodes[output]
    cdef Py_ssize_t slot = node.next_input_nrs[output]
    cdef list buffer
    if task.exec_info and not will_run(task, child):
        action = "dropped (pruned)"
    elif grad is None:
        action = "no gradient"
    else:
        buffer = buffer_of(task, child)
        action = "stored" if buffer is None or buffer[slot] is None else "summed"
    record("input", task.id, node, {
        "output": output, "child": child, "slot": slot, "action": action,
        "grad": describe(grad), "left": dependencies_of(task, child) - 1})


cdef void trace_hook(str kind, Node node, Py_ssize_t slot, object hook) except *:
    """A hook of ``kind`` is about to be called on ``node`` (slot: its input slot, for
    the tensor hooks)."""
    tensor = None
    if kind == "retains_grad":
        tensor = hook.tensor_ref()
    elif kind != "node pre-hook" and kind != "node post-hook":
        tensor = getattr(node, "variable", None)      # a leaf's hooks live on the leaf
    tasks = current_tasks()
    record("hook", (<GraphTask>tasks[-1]).id if tasks else 0, node, {
        "hook_kind": kind, "slot": slot, "hook": hook, "tensor": tensor})


cdef void trace_accumulate(Node node, Tensor variable, object grad_before, object grad) except *:
    """AccumulateGrad ``node`` has written ``grad`` into ``variable.grad``."""
    cdef Tensor after = variable._grad
    if grad_before is None:
        # Taken: the gradient itself, or its memory (a view is taken detached).
        taken = after is grad or after._data is (<Tensor>grad)._data
        action = "took the gradient as .grad" if taken else "copied into .grad"
    elif after is grad_before:
        action = "added into .grad in place"
    else:
        action = "summed into a new .grad"
    tasks = current_tasks()
    record("accumulate", (<GraphTask>tasks[-1]).id if tasks else 0, node, {
        "action": action, "grad": describe(grad)})
