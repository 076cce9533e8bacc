"""Provenance: which line of the user's code made a node, or wrote into a tensor in place.

# NOTE [Provenance]
"Trying to backward through the graph a second time" or "modified by an inplace
operation" name a node (``MulBackward0``) but not *which* multiplication of the
program made it. So, while provenance is on (the default; ``set_provenance(False)`` turns
it off, anomaly mode always turns it on), recording a node stores where the forward op
was called from: the code object of the innermost Python frame outside autograd_cy and
its instruction offset (``Node.origin_code`` / ``origin_lasti``); a version bump stores the
same on the tensor's VersionCounter. Not the frame itself, which would keep the caller's
locals alive as long as the graph; and not the line number, which costs a walk of the
code's line table: the offset becomes ``file:line (in function)`` only when an error
names it. The frames of autograd_cy's own Python modules (``nn.functional``, ``utils``)
are skipped, so the line is the user's call, not the library's; whether a code object is
the library's is decided once per file and cached.

Cost: one thread-local load per op when off; when on, fetching the current frame, its code
(a reference count) and offset per recorded op: 1.5% of the ``chain`` workload's
instructions (callgrind, against ``set_provenance(False)``), so it is on by default.

# NOTE [NaN origins]
Anomaly mode with ``check_nan`` raises at the first backward node that returns NaN, as
PyTorch does. The NaN rarely starts there: ``log`` of a negative number made it in
forward, or ``sqrt``'s backward divided by a zero. So in anomaly mode recording checks
every floating-point output of a recorded op for NaN/inf (a C loop over the array, not
a NumPy call: the chain's whole per-op cost is about a microsecond) and marks the node
(``Node.forward_nonfinite``); it does not raise, as PyTorch does not. The backward error
then names the failing node's forward line and, among the nodes upstream of it (what its
inputs were computed from), the marked one made first (smallest ``sequence_nr``); if none
is marked, the first NaN was made in backward, by the failing node itself.

In anomaly mode the whole forward stack of each node is kept for the "Traceback of
forward call" warning, as code objects and offsets too (``capture_stack``), formatted like
``traceback.format_stack`` only when a warning shows it.
"""
import os
import traceback

cimport numpy as cnp
from cpython.ref cimport PyObject, Py_DECREF
from cpython.bytes cimport PyBytes_FromStringAndSize

from autograd_cy._C.dtype cimport kind_of
from autograd_cy._C.grad_mode cimport is_anomaly_enabled
import numpy as np

cnp.import_array()

cdef extern from *:
    """
    static __thread int autograd_cy_provenance = 1;
    """
    int autograd_cy_provenance

cdef extern from "Python.h":
    ctypedef struct PyFrameObject:
        pass
    ctypedef struct PyCodeObject:
        PyObject* co_filename
    PyFrameObject* PyEval_GetFrame()
    object PyFrame_GetCode "(PyObject *)PyFrame_GetCode" (PyFrameObject* frame)
    int PyFrame_GetLasti(PyFrameObject* frame)
    PyObject* PyFrame_GetBack "(PyObject *)PyFrame_GetBack" (PyFrameObject* frame)


cdef bint recording_provenance() noexcept nogil:
    """Do nodes and version bumps record where they were made?"""
    return autograd_cy_provenance or is_anomaly_enabled()


def _set_provenance_enabled(bint enabled):
    global autograd_cy_provenance
    autograd_cy_provenance = enabled


def _is_provenance_enabled():
    return autograd_cy_provenance != 0


# ------------------------------------------------------------ the user's frame

cdef str PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
cdef dict _internal_files = {}    # co_filename -> is it a file of autograd_cy?
cdef enum:
    RECENT_CODES = 8
cdef list _recent_codes = [None] * RECENT_CODES   # code objects asked about lately ...
cdef bint _recent_internal[RECENT_CODES]          # ... and their answers
cdef int _next_recent = 0


cdef bint is_internal(object code) except -1:
    """Is ``code`` autograd_cy's own? The code objects asked about repeat (the frames
    between the user's and an op: the same few functions, call after call), so the last
    few answers are kept by identity: the list holds them, and the walk up from an op
    compares pointers instead of looking file names up."""
    global _next_recent
    cdef int i
    for i in range(RECENT_CODES):
        if _recent_codes[i] is code:
            return _recent_internal[i]
    filename = <object>(<PyCodeObject*>code).co_filename
    internal = _internal_files.get(filename)
    if internal is None:
        internal = _internal_files[filename] = os.path.abspath(filename).startswith(PACKAGE_DIR)
    _recent_codes[_next_recent] = code
    _recent_internal[_next_recent] = internal
    _next_recent = (_next_recent + 1) % RECENT_CODES
    return internal


cdef object caller_code(int* lasti):
    """The code object of the innermost Python frame outside autograd_cy (the innermost
    frame if all are autograd_cy's), with its instruction offset in ``lasti``; None and -1
    when no Python frame runs."""
    cdef PyFrameObject* frame = PyEval_GetFrame()
    cdef PyObject* back
    cdef object held, first = None
    cdef int first_lasti = -1
    while frame != NULL:
        code = PyFrame_GetCode(frame)
        if not is_internal(code):
            lasti[0] = PyFrame_GetLasti(frame)
            return code
        if first is None:
            first, first_lasti = code, PyFrame_GetLasti(frame)
        back = PyFrame_GetBack(frame)
        if back == NULL:
            break
        held = <object>back        # keeps the frame alive while we look at it
        Py_DECREF(held)            # ... in place of the reference PyFrame_GetBack returned
        frame = <PyFrameObject*>back
    lasti[0] = first_lasti
    return first


cdef tuple capture_stack():
    """The whole Python stack, innermost first, as ``(codes, offsets)``: a tuple of code
    objects and a bytes object of C ints (anomaly mode's forward traceback)."""
    cdef PyFrameObject* frame = PyEval_GetFrame()
    cdef PyObject* back
    cdef object held
    cdef list codes = []
    cdef int offsets[1024]
    cdef Py_ssize_t depth = 0
    while frame != NULL and depth < 1024:
        codes.append(PyFrame_GetCode(frame))
        offsets[depth] = PyFrame_GetLasti(frame)
        depth += 1
        back = PyFrame_GetBack(frame)
        if back == NULL:
            break
        held = <object>back
        Py_DECREF(held)
        frame = <PyFrameObject*>back
    return (tuple(codes), PyBytes_FromStringAndSize(<char*>offsets, depth * sizeof(int)))


# ------------------------------------------------------------ offsets as lines

def line_of(code, int lasti):
    """The source line of the instruction at byte offset ``lasti`` of ``code``."""
    if lasti >= 0:
        for start, end, line in code.co_lines():
            if start <= lasti < end and line is not None:
                return line
    return code.co_firstlineno


def where(code, int lasti):
    """``file:line (in function)`` of an instruction."""
    return f"{code.co_filename}:{line_of(code, lasti)} (in {code.co_name})"


def format_trace(trace):
    """A ``capture_stack`` result as ``"".join(traceback.format_stack())`` writes it (a
    string, as custom Functions keep it, is already formatted)."""
    if isinstance(trace, str):
        return trace
    codes, offsets = trace
    lastis = memoryview(offsets).cast("i")
    frames = [traceback.FrameSummary(codes[i].co_filename, line_of(codes[i], lastis[i]),
                                     codes[i].co_name)
              for i in reversed(range(len(codes)))]
    return "".join(traceback.StackSummary.from_list(frames).format())


def node_location(node):
    """Where ``node``'s forward op was called (``file:line (in function)``), or None when it
    was recorded with provenance off."""
    origin = node._forward_origin
    return None if origin is None else where(*origin)


def created_sentence(node):
    """The sentence errors about ``node`` end with (empty without provenance)."""
    location = node_location(node)
    if location is None:
        return ""
    name = node.name().rsplit("::", 1)[-1]         # CopySlices, not torch::autograd::CopySlices
    return f" The node {name} was created by the forward op at {location}."


def bumped_sentence(code, int lasti):
    """The sentence a version error ends with: where the tensor was last written in place."""
    if code is None:
        return ""
    return f" The in-place op at {where(code, lasti)} last bumped its version."


# ------------------------------------------------------------ NaN and inf

cdef bint all_finite(object array) except -1:
    """No NaN and no inf in ``array`` (the forward check of NOTE [NaN origins])."""
    return not has_bad_value(array, True)


cdef bint has_nan(object array) except -1:
    """Is there a NaN in ``array``? (The backward check of anomaly mode, as PyTorch's.)"""
    return has_bad_value(array, False)


cdef bint has_bad_value(object array, bint inf_too) except -1:
    """A NaN (or, with ``inf_too``, an inf) in ``array``? A C loop for contiguous
    float32/float64 NumPy arrays, NumPy (or the CUDA backend) otherwise. ``x - x`` is NaN
    exactly for a NaN or an inf; ``x != x`` only for a NaN."""
    cdef Py_ssize_t i, n
    cdef float* f32
    cdef double* f64
    if type(array) is cnp.ndarray and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>array):
        n = cnp.PyArray_SIZE(<cnp.ndarray>array)
        if cnp.PyArray_TYPE(<cnp.ndarray>array) == cnp.NPY_FLOAT32:
            f32 = <float*>cnp.PyArray_DATA(<cnp.ndarray>array)
            for i in range(n):
                if (f32[i] - f32[i] != 0) if inf_too else (f32[i] != f32[i]):
                    return True
            return False
        if cnp.PyArray_TYPE(<cnp.ndarray>array) == cnp.NPY_FLOAT64:
            f64 = <double*>cnp.PyArray_DATA(<cnp.ndarray>array)
            for i in range(n):
                if (f64[i] - f64[i] != 0) if inf_too else (f64[i] != f64[i]):
                    return True
            return False
    if kind_of(array.dtype) not in "fc":
        return False
    if inf_too:
        return not bool(np.isfinite(array).all())
    return bool(np.isnan(array).any())


def _all_finite(array):
    return all_finite(array)


def _has_nan(array):
    return has_nan(array)


cpdef str forward_op_name(object node):
    """``AddBackward0`` -> ``Add``: PyTorch names the forward op in version errors."""
    name = node.name()
    stripped = name.rstrip("0123456789")
    if stripped.endswith("Backward"):
        stripped = stripped[:-len("Backward")]
    return stripped or name


def nan_origin_sentences(node):
    """What the NaN error of anomaly mode adds after PyTorch's words: where ``node``'s
    forward op ran, and the first forward op upstream of it whose output had a NaN or an
    inf (NOTE [NaN origins])."""
    text = created_sentence(node)
    if node._forward_nonfinite is None:
        return text + (" Its forward ran outside detect_anomaly(check_nan=True): run the "
                       "forward in it too to find the first forward op with a NaN or inf.")
    first = None
    seen = {id(node)}
    stack = [node]
    while stack:
        current = stack.pop()
        if current._forward_nonfinite and (
                first is None or current._sequence_nr() < first._sequence_nr()):
            first = current
        for child, _ in current.next_functions:
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    if first is None:
        return text + (" No forward op before it had a NaN or inf output: the first NaN was "
                       f"made in backward, by {node.name()}.")
    location = node_location(first)
    at = f", at {location}" if location is not None else ""
    return text + (" The first forward op before it whose output had a NaN or inf is "
                   f"{forward_op_name(first)} ({first.name()}){at}.")
