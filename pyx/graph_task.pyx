"""The state of one backward pass: GraphTask, its ReadyQueue and InputBuffers.

engine.pyx tells the story of a backward; this file holds what it works on:

- GraphTask: one ``backward()`` / ``grad()`` call: ``retain_graph``, the root, exec_info
  when ``inputs=`` prunes the graph, grad()'s captured results, the ReadyQueue, the final
  callbacks;
- where a node's dependency count and InputBuffer live while the task runs (NOTE
  [Dependencies on the node]), behind two helpers, ``input_buffer`` and ``deliver``
  (graph_task.pxd);
- the ReadyQueue, a heap of (node, InputBuffer) ordered by sequence_nr;
- which tasks are running, for the queries hooks may make (``queue_callback``,
  ``_current_graph_task_id``, ``_will_engine_execute_node``).
"""
cimport cython

from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF

from autograd_cy._C.grad_mode cimport needs_tensor_ops
from autograd_cy._C.tensor cimport Tensor, make_tensor
from autograd_cy._C.node cimport Node
from autograd_cy._C.kernels cimport binary_kernel, KERNEL_ADD


@cython.final
cdef class GraphTask:
    """The state of one backward() / grad() call (PyTorch's GraphTask)."""

    def __cinit__(self):
        self.exec_info = {}
        self.captured = []
        self.queue = ReadyQueue()
        self.final_callbacks = []


@cython.final
cdef class ExecInfo:
    """Per node, when ``inputs=`` prunes the graph: run it? capture its input for grad()?"""


# ---------------------------------------------------------------------------- InputBuffer
# A node's InputBuffer is a list with one slot per forward output of the node: the gradients
# arriving along different edges into the same slot are summed.

cdef void accumulate(list buffer, Py_ssize_t slot, Tensor grad) except *:
    """InputBuffer.add: the first gradient is stored, later ones summed. The sum is a Tensor
    op when it must be differentiable (create_graph) or must carry a tangent (a backward
    inside a dual level: forward-over-reverse); else a bare array addition."""
    old = buffer[slot]
    if old is None:
        buffer[slot] = grad
    elif needs_tensor_ops():
        buffer[slot] = old + grad       # out of place: the sum records / propagates
    else:
        array = binary_kernel(KERNEL_ADD, (<Tensor>old)._data, grad._data)
        if array is None:
            array = (<Tensor>old)._data + grad._data
        buffer[slot] = make_tensor(array)


# NOTE [Dependencies on the node]
# A GraphTask needs, for every node below its root, the number of edges that still have to
# deliver a gradient and the InputBuffer collecting them. It keeps them in the node itself
# (engine_task / engine_dependencies / engine_buffer): no dictionary, so the cost per node
# stays flat however deep the graph. A node belongs to one running task at a time:
# compute_dependencies claims it (engine_task = task.id). The id of a task that has ended
# is stale and the node free again (owned_by_other), so a finished backward need not walk
# its graph once more to give the nodes back. If a node is claimed by another task that is
# still running (a backward started inside a hook, or on another thread, over part of the
# same graph), the new task gives back its claims and keeps its counts in a private dict of
# Pending entries instead ("shared" mode). Two helpers, ``input_buffer`` and ``deliver``
# (graph_task.pxd, inline), hide which storage a task uses.

@cython.final
cdef class Pending:
    """A node's state inside a shared-mode GraphTask, until it is ready to run."""


cdef bint owned_by_other(long long owner) except -1:
    """Is task ``owner`` (not the caller's) still running? Ids of ended tasks stay on the
    nodes they ran; when the caller is the only running task, every such id is stale."""
    return len(_live_tasks) > 1 and owner in _live_tasks


cdef void release_nodes(GraphTask task) except *:
    """Give back the nodes this task claimed (it has ended, or switched to shared mode).

    They are found again from the root: every claimed node is reachable through claimed
    nodes. (A list of them, kept while counting, would be one more pass over a deep
    graph's memory at the end of every backward, to drop its references.)"""
    if task.root is None:
        return
    cdef list stack = [task.root]
    cdef long long task_id = task.id
    cdef Node node, child
    while stack:
        node = <Node>stack.pop()
        for child in node.next_nodes:
            if child is not None and child.engine_task == task_id:
                child.engine_task = 0
                child.engine_buffer = None
                stack.append(child)


# ----------------------------------------------------------------------------- ReadyQueue

@cython.final
cdef class ReadyQueue:
    """A max-heap of (node, InputBuffer) keyed by the node's sequence_nr: the newest
    forward op runs first (AccumulateGrad, numbered 2**64 - 1, as soon as it is ready).

    Nodes and buffers are kept in two parallel lists that never shrink, so a push or pop
    reallocates nothing; ``size`` is the number of entries in use."""

    def __cinit__(self):
        self.nodes = []
        self.buffers = []

    cdef void push(self, Node node, list buffer) except *:
        if self.size == len(self.nodes):
            self.nodes.append(None)
            self.buffers.append(None)
        self.size += 1
        self.sift_up(self.size - 1, node, buffer)

    cdef void sift_up(self, Py_ssize_t hole, Node node, list buffer) except *:
        """Put ``(node, buffer)`` at ``hole`` or above it, moving older parents down."""
        cdef Py_ssize_t parent
        cdef list nodes = self.nodes, buffers = self.buffers
        while hole > 0:
            parent = (hole - 1) >> 1
            if (<Node>nodes[parent]).sequence_nr >= node.sequence_nr:
                break
            nodes[hole] = nodes[parent]
            buffers[hole] = buffers[parent]
            hole = parent
        nodes[hole] = node
        buffers[hole] = buffer

    cdef tuple pop(self):
        """Remove the newest node; return ``(node, its InputBuffer)``.

        NOTE [Ties in the ready queue]
        Every AccumulateGrad has the same sequence_nr, so the order in which the leaves of
        one node accumulate (and their hooks fire) is decided by how the heap breaks ties.
        PyTorch's queue is a ``std::priority_queue``, and its pop moves the hole left by
        the top all the way down to a leaf, always into the larger child (the right one
        on a tie), then sifts the last entry up from there. Doing the same here gives
        PyTorch's order: for five leaves of one ``cat``, 0, 2, 4, 1, 3."""
        cdef list nodes = self.nodes, buffers = self.buffers
        cdef tuple top = (nodes[0], buffers[0])
        cdef Py_ssize_t size = self.size - 1
        cdef Node last = nodes[size]
        cdef list last_buffer = buffers[size]
        cdef Py_ssize_t hole = 0, child = 0
        nodes[size] = None
        buffers[size] = None
        self.size = size
        if size == 0:
            return top
        while child < (size - 1) // 2:            # the hole down to a leaf
            child = 2 * child + 2
            if (<Node>nodes[child]).sequence_nr < (<Node>nodes[child - 1]).sequence_nr:
                child -= 1
            nodes[hole] = nodes[child]
            buffers[hole] = buffers[child]
            hole = child
        if size % 2 == 0 and child == (size - 2) // 2:   # a last parent with one child
            child = 2 * child + 1
            nodes[hole] = nodes[child]
            buffers[hole] = buffers[child]
            hole = child
        self.sift_up(hole, last, last_buffer)     # then the last entry up from there
        return top

    cdef bint empty(self):
        return self.size == 0


# ============================================================== the running tasks, queried

_task_counter = [0]
cdef set _live_tasks = set()    # ids of the GraphTasks running now, on any thread


cdef void task_started(GraphTask task) except *:
    """Give ``task`` its id and count it as running; push it on this thread's stack."""
    _task_counter[0] += 1
    task.id = _task_counter[0]
    _live_tasks.add(task.id)


cdef void task_ended(GraphTask task) except *:
    _live_tasks.discard(task.id)


cdef extern from *:
    """
    static __thread PyObject *autograd_cy_current_tasks = NULL;  /* owned, never freed */
    """
    PyObject* autograd_cy_current_tasks


cdef list current_tasks():
    """This thread's running tasks, innermost last: a list owned by a C thread-local (one
    load on every unpack and accumulation; threading.local's lookup cost more). The list is
    made on the thread's first backward and kept for the OS thread's life, so a new Python
    thread state on the same OS thread (a C library calling back into Python) finds a live,
    empty list, never a freed one."""
    global autograd_cy_current_tasks
    if autograd_cy_current_tasks == NULL:
        tasks = []
        Py_INCREF(tasks)
        autograd_cy_current_tasks = <PyObject*>tasks
    return <list>autograd_cy_current_tasks


def _current_graph_task_id():
    tasks = current_tasks()
    return (<GraphTask>tasks[-1]).id if tasks else -1


def _is_checkpoint_valid():
    """False while a backward running on this thread prunes its graph (``grad()``, or
    ``backward(inputs=...)``): a reentrant checkpoint cannot work out which gradients to make."""
    for task in current_tasks():
        if (<GraphTask>task).exec_info:
            return False
    return True


def queue_callback(callback):
    """Run ``callback()`` once the current backward has finished."""
    tasks = current_tasks()
    if not tasks:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    (<GraphTask>tasks[-1]).final_callbacks.append(callback)


cdef bint will_run(GraphTask task, object node):
    """Under exec_info: does ``node`` run, or capture a result for grad()?"""
    cdef ExecInfo info
    if node is None:
        return False
    info = task.exec_info.get(node)
    return info is not None and (info.needed or bool(info.captures))


def _will_engine_execute_node(node):
    """Is ``node`` in the running backward's graph, and needed or captured?"""
    cdef GraphTask task
    cdef ExecInfo info
    tasks = current_tasks()
    if not isinstance(node, Node):
        raise RuntimeError("_will_engine_execute_node expects an grad_fn, but got "
                           f"{type(node).__name__}")
    if not tasks:
        raise RuntimeError(
            "_get_should_execute_nodes should only be called during the backward pass")
    task = tasks[-1]
    if node is not task.root and not in_task(task, <Node>node):
        return False
    if not task.exec_info:
        return True
    info = task.exec_info.get(node)
    if info is None or not (info.needed or info.captures):
        return False
    if info.captures and not has_children(node):
        raise RuntimeError(
            "A leaf node was passed to _will_engine_execute_node but we are currently "
            "running autograd.grad(). This is currently not supported.")
    return True


cdef bint in_task(GraphTask task, Node node):
    """Is ``node`` below the root of ``task``?"""
    if task.shared:
        return node in task.pending
    return node.engine_task == task.id


cdef bint has_children(Node node):
    for child in node.next_nodes:
        if child is not None:
            return True
    return False
