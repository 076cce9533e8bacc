"""Thread-local autograd state: grad mode, inference mode, anomaly mode, sequence numbers.

Every flag is a C thread-local, so a thread started inside ``no_grad()`` sees the
default (grad enabled), as in PyTorch, and reading a flag on
the per-op path costs one memory load. The Python context managers in
``autograd_cy/autograd/grad_mode.py`` are thin shells over the setters here.
"""

cdef extern from *:
    """
    static __thread int autograd_cy_grad_enabled = 1;
    static __thread int autograd_cy_inference_mode = 0;
    static __thread int autograd_cy_anomaly_enabled = 0;
    static __thread int autograd_cy_anomaly_check_nan = 1;
    /* Node sequence numbers: thread-local, one per recorded node. */
    static __thread unsigned long long autograd_cy_sequence_nr = 0;
    /* Is an autograd profiler recording? Process-wide, as the profiler's swapped ops are
       (NOTE [Profiling ops] in profiling.pyx). */
    static int autograd_cy_profiler_enabled = 0;
    /* Forward AD (NOTE [Forward AD levels]): process-wide, as PyTorch's levels are. */
    static unsigned long long autograd_cy_forward_level = 0;
    static unsigned long long autograd_cy_forward_level_ids = 0;
    """
    int autograd_cy_grad_enabled
    int autograd_cy_inference_mode
    int autograd_cy_anomaly_enabled
    int autograd_cy_anomaly_check_nan
    unsigned long long autograd_cy_sequence_nr
    int autograd_cy_profiler_enabled
    unsigned long long autograd_cy_forward_level
    unsigned long long autograd_cy_forward_level_ids


cdef bint is_grad_enabled() noexcept nogil:
    """Do ops record a graph? Grad mode on and inference mode off (an ``enable_grad()``
    inside ``inference_mode()`` flips the flag but records nothing)."""
    return autograd_cy_grad_enabled and not autograd_cy_inference_mode


cdef void set_grad_enabled(bint enabled) noexcept nogil:
    global autograd_cy_grad_enabled
    autograd_cy_grad_enabled = enabled


cdef bint is_inference_mode_enabled() noexcept nogil:
    return autograd_cy_inference_mode


cdef void set_inference_mode(bint enabled) noexcept nogil:
    global autograd_cy_inference_mode
    autograd_cy_inference_mode = enabled


cdef bint is_anomaly_enabled() noexcept nogil:
    return autograd_cy_anomaly_enabled


cdef bint is_anomaly_check_nan_enabled() noexcept nogil:
    return autograd_cy_anomaly_check_nan


cdef void set_anomaly_enabled(bint enabled, bint check_nan) noexcept nogil:
    global autograd_cy_anomaly_enabled, autograd_cy_anomaly_check_nan
    autograd_cy_anomaly_enabled = enabled
    autograd_cy_anomaly_check_nan = check_nan


cdef unsigned long long next_sequence_nr() noexcept nogil:
    global autograd_cy_sequence_nr
    autograd_cy_sequence_nr += 1
    return autograd_cy_sequence_nr - 1


cdef unsigned long long peek_sequence_nr() noexcept nogil:
    return autograd_cy_sequence_nr


cdef bint is_profiler_enabled() noexcept nogil:
    return autograd_cy_profiler_enabled


cdef int* profiler_flag() noexcept nogil:
    return &autograd_cy_profiler_enabled


cdef void set_profiler_enabled(bint enabled) noexcept nogil:
    global autograd_cy_profiler_enabled
    autograd_cy_profiler_enabled = enabled


# NOTE [Forward AD levels]
# A dual level is identified by a number never reused (1, 2, 3 ... over the process's
# life); ``forward_level()`` is the id of the level active now, or 0 when none is. An op
# asks ``if forward_level() and has_tangent(...)``: outside a level that is one load. A
# tangent on a Tensor carries the id of its level (``Tensor._fw_level``): a tangent whose id
# is not the active one belongs to an exited level and reads as None. Exiting a level is
# then O(1) and needs no weak reference to each dual tensor made in it (the cheaper choice:
# a dual tensor costs no registration); the stale tangent's memory goes with its tensor or
# with the next tangent set on it. While a tangent formula runs, the level reads 0
# (``suspend_forward_level``), so the primals it reads do not propagate their own tangents:
# forward AD is not nested, a tangent has no tangent.

cdef unsigned long long forward_level() noexcept nogil:
    return autograd_cy_forward_level


cdef bint needs_tensor_ops() noexcept nogil:
    """Must an op with a bare-array fast path (a fused backward kernel, an InputBuffer sum)
    take its Tensor path? Yes when it is recorded (grad mode on: create_graph) and when its
    result may need a tangent (inside a dual level: forward AD through a backward, which
    PyTorch propagates with or without create_graph)."""
    return is_grad_enabled() or autograd_cy_forward_level != 0


cdef unsigned long long suspend_forward_level() noexcept nogil:
    """Read the active level as 0 until ``resume_forward_level(returned id)``."""
    global autograd_cy_forward_level
    cdef unsigned long long level = autograd_cy_forward_level
    autograd_cy_forward_level = 0
    return level


cdef void resume_forward_level(unsigned long long level) noexcept nogil:
    global autograd_cy_forward_level
    autograd_cy_forward_level = level


def _forward_level():
    """The id of the active dual level (0: none)."""
    return autograd_cy_forward_level


def _enter_forward_level():
    """Activate a new dual level; returns its id (ids are never reused)."""
    global autograd_cy_forward_level, autograd_cy_forward_level_ids
    autograd_cy_forward_level_ids += 1
    autograd_cy_forward_level = autograd_cy_forward_level_ids
    return autograd_cy_forward_level


def _exit_forward_level():
    """Deactivate the active level: every tangent made in it reads as None from now on."""
    global autograd_cy_forward_level
    autograd_cy_forward_level = 0


# Python-visible accessors (used by the grad-mode context managers and tests).

def _is_grad_enabled():
    """The grad-mode flag itself (``torch.is_grad_enabled()``), whatever inference mode says."""
    return autograd_cy_grad_enabled != 0


def _set_grad_enabled(bint enabled):
    set_grad_enabled(enabled)


def _is_inference_mode_enabled():
    return autograd_cy_inference_mode != 0


cdef class _GradMode:
    """``with _GradMode(enabled):`` grad mode for a block, the previous mode restored after.
    For library code that switches the mode on every call (the functional API): a C guard
    costs about a tenth of entering ``enable_grad()``, a Python decorator class."""
    cdef bint enabled, previous

    def __init__(self, bint enabled):
        self.enabled = enabled

    def __enter__(self):
        self.previous = autograd_cy_grad_enabled != 0
        set_grad_enabled(self.enabled)

    def __exit__(self, *exc_info):
        set_grad_enabled(self.previous)


def _set_inference_mode(bint enabled):
    set_inference_mode(enabled)


def _is_anomaly_enabled():
    return autograd_cy_anomaly_enabled != 0


def _is_anomaly_check_nan_enabled():
    return autograd_cy_anomaly_check_nan != 0


def _set_anomaly_enabled(bint enabled, bint check_nan=True):
    set_anomaly_enabled(enabled, check_nan)


def _is_profiler_enabled():
    """Is an autograd profiler recording (``torch.autograd.profiler._is_profiler_enabled``)?"""
    return autograd_cy_profiler_enabled != 0
