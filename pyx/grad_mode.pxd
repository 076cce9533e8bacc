# Design: the engine's thread-local switches, read on every op. Each is one C
# `__thread` variable, so "is grad mode on?" costs a load, not a threading.local
# lookup (STYLE: no per-op Python tax).

cdef bint is_grad_enabled() noexcept nogil
cdef void set_grad_enabled(bint enabled) noexcept nogil
cdef bint is_inference_mode_enabled() noexcept nogil
cdef void set_inference_mode(bint enabled) noexcept nogil
cdef bint is_anomaly_enabled() noexcept nogil
cdef bint is_anomaly_check_nan_enabled() noexcept nogil
cdef void set_anomaly_enabled(bint enabled, bint check_nan) noexcept nogil
cdef unsigned long long next_sequence_nr() noexcept nogil
cdef unsigned long long peek_sequence_nr() noexcept nogil
cdef bint is_profiler_enabled() noexcept nogil
cdef int* profiler_flag() noexcept nogil      # its address: the engine reads it without a call
cdef void set_profiler_enabled(bint enabled) noexcept nogil
cdef unsigned long long forward_level() noexcept nogil
cdef bint needs_tensor_ops() noexcept nogil
cdef unsigned long long suspend_forward_level() noexcept nogil
cdef void resume_forward_level(unsigned long long level) noexcept nogil
