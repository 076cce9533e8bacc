"""The recording side of ``autograd_cy.autograd.profiler``: raw events, cheaply.

A profile collects one tuple per event into a list (``RAW_FIELDS`` names the fields); the
Python profiler turns them into FunctionEvents when asked, so recording costs two clock reads
and one append. Times come from ``CLOCK_MONOTONIC`` in nanoseconds (``time.perf_counter_ns``'s
clock), so events recorded here and by ``record_function`` in Python share one time line.
"""
from cpython.pythread cimport PyThread_get_thread_ident
from libc.stdint cimport UINT64_MAX
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

cimport numpy as cnp

from autograd_cy._C.grad_mode cimport (
    is_grad_enabled, peek_sequence_nr, set_profiler_enabled, is_profiler_enabled,
)
from autograd_cy._C.tensor cimport Tensor, TensorOperators, tensor_operators
from autograd_cy._C.node cimport Node

from cpython.object cimport PyTypeObject

cdef extern from "Python.h":
    void PyType_Modified(PyTypeObject* type)


# NOTE [Profiling ops]
# "Recording costs nothing when no profiler is active": a forward op must not even test a
# flag. So the ops are not instrumented; a profile *swaps* them while it is active:
# - the operators (``y * c``, ``x[i]``) are entries of Tensor's C table (NOTE [How Tensor gets
#   its methods]); ``start`` saves the table and fills it with the wrappers below, each of
#   which records its op around the saved entry; ``stop`` puts the saved table back;
# - named methods (``x.tanh()``) and the namespace functions (``autograd_cy.tanh``) are
#   replaced by recording closures (autograd_cy/autograd/profiler.py builds them with
#   ``record_call``; ``replace_tensor_methods`` writes Tensor's class dict) and restored after.
# Between profiles every op is exactly the function it was, at exactly its cost (measured:
# benchmarks/NOTES.md, "Profiler"). Only the engine tests one C flag per node it runs (grad
# mode's profiler flag, read through a pointer: one load), to bracket the node with its two
# events, torch's "autograd::engine::evaluate_function: MulBackward0" around "MulBackward0".
# A built-in formula computes with arrays, not through the swapped ops, so its work is the
# node's own time (torch lists e.g. the aten::mul inside MulBackward0).
# The price of swapping: a reference taken before the profile started (``f = autograd_cy.mul``)
# calls the original, unrecorded; and the swap is process-wide, as the flag is. What it
# records is not: as torch's, a profile is the thread's that started it, so a wrapper (and
# the engine's node events) called on any other thread runs the op unrecorded, at the cost of
# one thread-id compare (``recording_here``).
# A forward op's ``sequence_nr`` is the sequence number the next node would get (the node the
# op records, if any) when grad mode is on, and -1 otherwise, as torch's; the Python side sets
# it to -1 for an op nested inside another op (in torch such ops run below autograd).

# Event kinds (the `scope` FunctionEvent reports follows from them).
cdef enum:
    KIND_OP = 0          # an op: forward, or inside a backward formula
    KIND_NODE = 1        # a backward node's own run (torch's RecordScope BACKWARD_FUNCTION)
    KIND_EVALUATE = 2    # the engine's evaluate_function around it
    KIND_USER = 7        # record_function (torch's RecordScope USER_SCOPE)

RAW_FIELDS = ("kind", "name", "start_ns", "end_ns", "thread", "sequence_nr", "input_shapes",
              "cpu_memory_usage", "device_memory_usage")
KINDS = {"op": KIND_OP, "node": KIND_NODE, "evaluate": KIND_EVALUATE, "user": KIND_USER}

cdef list sink = None            # the active profile's raw events
cdef bint shapes_on = False
cdef bint memory_on = False
cdef TensorOperators saved_operators
cdef object range_push = None    # emit_nvtx: open a named range (None: not emitting)
cdef object range_pop = None
cdef unsigned long profiling_thread = 0     # the thread that started the active profile


cdef inline long long now() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec * 1000000000LL + t.tv_nsec


def now_ns():
    """The profiler's clock, in nanoseconds."""
    return now()


cdef list shapes_of(tuple args):
    """torch's ``input_shapes``: a tensor argument's shape, ``[]`` for anything else."""
    return [list((<Tensor>a)._data.shape) if isinstance(a, Tensor) else [] for a in args]


cdef tuple result_bytes(object result, tuple args):
    """(CPU bytes, device bytes) the op allocated for its results: a new tensor's array;
    nothing for a view or for an input handed back (an in-place op)."""
    cdef long long cpu = 0, device = 0
    cdef Tensor t
    results = result if isinstance(result, (tuple, list)) else (result,)
    for r in results:
        if not isinstance(r, Tensor):
            continue
        t = <Tensor>r
        if t._base is not None or any(t is a for a in args):
            continue
        if type(t._data) is cnp.ndarray:
            cpu += t._data.nbytes
        else:
            device += t._data.nbytes
    return cpu, device


cdef inline bint recording_here() noexcept:
    """Does this thread record? A profile is active and this thread started it."""
    return sink is not None and PyThread_get_thread_ident() == profiling_thread


cdef inline void open_range(str name, long long seq) except *:
    """emit_nvtx's range for an op, named as torch names it."""
    if range_push is not None:
        range_push(name if seq < 0 else f"{name}, seq = {seq}")


cdef void append_op(str name, long long start, long long seq, tuple args, object result):
    cdef long long end = now()
    if range_pop is not None:
        range_pop()
    shapes = shapes_of(args) if shapes_on else None
    cpu, device = result_bytes(result, args) if memory_on and result is not None else (0, 0)
    sink.append((KIND_OP, name, start, end, PyThread_get_thread_ident(), seq, shapes, cpu,
                 device))


cpdef object record_call(str name, object function, tuple args, dict kwargs):
    """Run ``function(*args, **kwargs)`` and record it as the op ``name``."""
    if not recording_here():     # another thread, or a wrapper outliving its profile
        return function(*args, **kwargs)
    cdef long long seq = peek_sequence_nr() if is_grad_enabled() else -1
    open_range(name, seq)
    cdef long long start = now()
    try:
        result = function(*args, **kwargs) if kwargs else function(*args)
    except BaseException:
        append_op(name, start, seq, args, None)
        raise
    append_op(name, start, seq, args, result)
    return result


def record_range(str name, long long start_ns, long long end_ns):
    """Record a ``record_function`` range."""
    if recording_here():
        sink.append((KIND_USER, name, start_ns, end_ns, PyThread_get_thread_ident(), -1,
                     [] if shapes_on else None, 0, 0))


# --------------------------------------------------------------------- backward nodes

cdef tuple enter_node(Node node):
    """Start the two events of a node: evaluate_function's, then the node's own (None on a
    thread that does not record)."""
    if not recording_here():
        return None
    if range_push is not None:
        range_push(f"{node.name()}, seq = {node.sequence_nr}"
                   if node.sequence_nr != UINT64_MAX else node.name())
    cdef long long outer = now()
    return (outer, now())


cdef void exit_node(Node node, list inputs, tuple started) except *:
    if started is None:
        return
    cdef long long inner_end = now()
    if range_pop is not None:
        range_pop()
    name = node.name()
    seq = -1 if node.sequence_nr == UINT64_MAX else <long long>node.sequence_nr
    shapes = ([list(g.shape) if g is not None else [] for g in inputs] if shapes_on
              else None)
    thread = PyThread_get_thread_ident()
    sink.append((KIND_NODE, name, started[1], inner_end, thread, seq, shapes, 0, 0))
    sink.append((KIND_EVALUATE, "autograd::engine::evaluate_function: " + name, started[0],
                 now(), thread, seq, [] if shapes_on else None, 0, 0))


# ------------------------------------------------------------------ the operator table

cdef str index_op_name(object index):
    """torch's first op for ``x[index]``: index when the key holds an index array (or is a
    list, a mask); otherwise what its first entry that does something does: select for an
    int, slice for a slice other than ``:``, unsqueeze for None; alias for ``x[...]``."""
    entries = index if type(index) is tuple else (index,)
    for entry in entries:
        if not (entry is None or entry is Ellipsis or isinstance(entry, (int, slice))):
            return "aten::index"
    for entry in entries:
        if entry is None:
            return "aten::unsqueeze"
        if isinstance(entry, int):
            return "aten::select"
        if isinstance(entry, slice) and entry != slice(None):
            return "aten::slice"
    return "aten::alias"


cdef object binary(str name, object (*op)(object, object), object a, object b):
    if not recording_here():
        return op(a, b)
    cdef long long seq = peek_sequence_nr() if is_grad_enabled() else -1
    open_range(name, seq)
    cdef long long start = now()
    try:
        result = op(a, b)
    except BaseException:
        append_op(name, start, seq, (a, b), None)
        raise
    append_op(name, start, seq, (a, b), result)
    return result


cdef object p_add(object a, object b): return binary("aten::add", saved_operators.add, a, b)
cdef object p_sub(object a, object b): return binary("aten::sub", saved_operators.sub, a, b)
cdef object p_rsub(object a, object b): return binary("aten::rsub", saved_operators.rsub, a, b)
cdef object p_mul(object a, object b): return binary("aten::mul", saved_operators.mul, a, b)
cdef object p_div(object a, object b): return binary("aten::div", saved_operators.div, a, b)
cdef object p_rdiv(object a, object b): return binary("aten::div", saved_operators.rdiv, a, b)
cdef object p_floordiv(object a, object b):
    return binary("aten::floor_divide", saved_operators.floordiv, a, b)
cdef object p_rfloordiv(object a, object b):
    return binary("aten::floor_divide", saved_operators.rfloordiv, a, b)
cdef object p_pow(object a, object b): return binary("aten::pow", saved_operators.pow, a, b)
cdef object p_rpow(object a, object b): return binary("aten::pow", saved_operators.rpow, a, b)
cdef object p_matmul(object a, object b):
    return binary("aten::matmul", saved_operators.matmul, a, b)
cdef object p_rmatmul(object a, object b):
    return binary("aten::matmul", saved_operators.rmatmul, a, b)
cdef object p_iadd(object a, object b): return binary("aten::add_", saved_operators.iadd, a, b)
cdef object p_isub(object a, object b): return binary("aten::sub_", saved_operators.isub, a, b)
cdef object p_imul(object a, object b): return binary("aten::mul_", saved_operators.imul, a, b)
cdef object p_idiv(object a, object b): return binary("aten::div_", saved_operators.idiv, a, b)
cdef object p_ifloordiv(object a, object b):
    return binary("aten::floor_divide_", saved_operators.ifloordiv, a, b)
cdef object p_ipow(object a, object b): return binary("aten::pow_", saved_operators.ipow, a, b)
cdef object p_eq(object a, object b): return binary("aten::eq", saved_operators.eq, a, b)
cdef object p_ne(object a, object b): return binary("aten::ne", saved_operators.ne, a, b)
cdef object p_lt(object a, object b): return binary("aten::lt", saved_operators.lt, a, b)
cdef object p_le(object a, object b): return binary("aten::le", saved_operators.le, a, b)
cdef object p_gt(object a, object b): return binary("aten::gt", saved_operators.gt, a, b)
cdef object p_ge(object a, object b): return binary("aten::ge", saved_operators.ge, a, b)
cdef object p_and(object a, object b):
    return binary("aten::bitwise_and", saved_operators.bitwise_and, a, b)
cdef object p_or(object a, object b):
    return binary("aten::bitwise_or", saved_operators.bitwise_or, a, b)
cdef object p_xor(object a, object b):
    return binary("aten::bitwise_xor", saved_operators.bitwise_xor, a, b)
cdef object p_getitem(object a, object b):
    return binary(index_op_name(b), saved_operators.getitem, a, b)


cdef object unary(str name, object (*op)(object), object a):
    if not recording_here():
        return op(a)
    cdef long long seq = peek_sequence_nr() if is_grad_enabled() else -1
    open_range(name, seq)
    cdef long long start = now()
    try:
        result = op(a)
    except BaseException:
        append_op(name, start, seq, (a,), None)
        raise
    append_op(name, start, seq, (a,), result)
    return result


cdef object p_neg(object a): return unary("aten::neg", saved_operators.neg, a)
cdef object p_abs(object a): return unary("aten::abs", saved_operators.abs, a)
cdef object p_not(object a): return unary("aten::bitwise_not", saved_operators.bitwise_not, a)


cdef object p_setitem(object a, object index, object value):
    if not recording_here():
        return saved_operators.setitem(a, index, value)
    name = "aten::copy_" if isinstance(value, Tensor) else "aten::fill_"
    if isinstance(index, Tensor) or isinstance(index, (list, tuple)):
        name = "aten::index_put_"
    cdef long long seq = peek_sequence_nr() if is_grad_enabled() else -1
    open_range(name, seq)
    cdef long long start = now()
    try:
        result = saved_operators.setitem(a, index, value)
    except BaseException:
        append_op(name, start, seq, (a, value), None)
        raise
    append_op(name, start, seq, (a, value), None)
    return result


cdef void swap_operators() noexcept:
    """Save Tensor's operator table and fill it with the recording wrappers."""
    global saved_operators
    cdef TensorOperators* table = tensor_operators()
    saved_operators = table[0]
    table.add, table.sub, table.rsub, table.mul = p_add, p_sub, p_rsub, p_mul
    table.div, table.rdiv, table.floordiv, table.rfloordiv = p_div, p_rdiv, p_floordiv, p_rfloordiv
    table.pow, table.rpow, table.matmul, table.rmatmul = p_pow, p_rpow, p_matmul, p_rmatmul
    table.iadd, table.isub, table.imul, table.idiv = p_iadd, p_isub, p_imul, p_idiv
    table.ifloordiv, table.ipow = p_ifloordiv, p_ipow
    table.eq, table.ne, table.lt, table.le, table.gt, table.ge = p_eq, p_ne, p_lt, p_le, p_gt, p_ge
    table.bitwise_and, table.bitwise_or, table.bitwise_xor = p_and, p_or, p_xor
    table.neg, table.abs, table.bitwise_not = p_neg, p_abs, p_not
    table.getitem, table.setitem = p_getitem, p_setitem


# ------------------------------------------------------------------ start and stop

def replace_tensor_methods(dict methods):
    """Put ``methods`` into Tensor's class dict; return the entries they replaced."""
    cdef dict class_dict = <dict>(<PyTypeObject*>Tensor).tp_dict
    cdef dict previous = {name: class_dict[name] for name in methods}
    class_dict.update(methods)
    PyType_Modified(<PyTypeObject*>Tensor)
    return previous


def start(bint record_shapes, bint profile_memory, push=None, pop=None):
    """Begin recording into a fresh list of raw events, which is returned. With ``push``
    and ``pop`` (emit_nvtx), each op and node also opens and closes a named range.

    A profile started inside another takes over, as in torch: the outer one's events so
    far are dropped and it records nothing more."""
    global sink, shapes_on, memory_on, range_push, range_pop, profiling_thread
    if is_profiler_enabled():
        del sink[:]
    else:
        swap_operators()
    sink, shapes_on, memory_on = [], record_shapes, profile_memory
    range_push, range_pop = push, pop
    profiling_thread = PyThread_get_thread_ident()
    set_profiler_enabled(True)
    return sink


def stop():
    """Stop recording: the operator table is restored and the flag cleared."""
    global sink, range_push, range_pop
    if not is_profiler_enabled():
        return
    tensor_operators()[0] = saved_operators
    set_profiler_enabled(False)
    sink = range_push = range_pop = None


# ------------------------------------------------------------------ autocast's operators
# NOTE [Autocast's operators]
# Under autocast, ``x @ w`` casts as ``matmul`` does and ``x ** 2`` as ``pow`` (CUDA's float32
# list). Those operators are entries of Tensor's C table, so ``set_autocast_operators(cast)``
# puts wrappers there which call ``cast(name, a, b)`` for the operands and then the entry
# they replaced; ``set_autocast_operators(None)`` puts the entries back. Outside autocast the
# table is untouched. The wrappers sit below the profiler's: while a profile holds the table,
# they go into (and come out of) the table it saved and restores.

cdef object autocast_cast = None
cdef TensorOperators autocast_saved


cdef object a_matmul(object a, object b):
    a, b = autocast_cast("matmul", a, b)
    return autocast_saved.matmul(a, b)
cdef object a_rmatmul(object a, object b):
    a, b = autocast_cast("matmul", a, b)
    return autocast_saved.rmatmul(a, b)
cdef object a_pow(object a, object b):
    a, b = autocast_cast("pow", a, b)
    return autocast_saved.pow(a, b)
cdef object a_rpow(object a, object b):
    a, b = autocast_cast("pow", a, b)
    return autocast_saved.rpow(a, b)


def set_autocast_operators(cast):
    """``cast(name, a, b) -> (a, b)`` runs before ``@`` and ``**`` (None: the entries back)."""
    global autocast_cast
    cdef TensorOperators* table = (&saved_operators if is_profiler_enabled()
                                   else tensor_operators())
    if cast is not None and autocast_cast is None:
        autocast_saved.matmul, autocast_saved.rmatmul = table.matmul, table.rmatmul
        autocast_saved.pow, autocast_saved.rpow = table.pow, table.rpow
        table.matmul, table.rmatmul, table.pow, table.rpow = a_matmul, a_rmatmul, a_pow, a_rpow
    elif cast is None and autocast_cast is not None:
        table.matmul, table.rmatmul = autocast_saved.matmul, autocast_saved.rmatmul
        table.pow, table.rpow = autocast_saved.pow, autocast_saved.rpow
    autocast_cast = cast
