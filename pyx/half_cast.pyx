"""float32 to float16, rounded to nearest even, in one C loop.

NOTE [Rounding to float16]
NumPy rounds float32 to float16 correctly, but each value that lands in float16's subnormal
range (below 2**-14, about 6.1e-5: most gradients) raises the underflow flag through a
floating-point operation on a subnormal, which costs about 60 ns on x86: a cast of 200,000
gradients to float16 took 13 ms instead of 0.5. torch's CPU kernels convert with the F16C
instruction. This loop gives NumPy's bits (round to nearest even, subnormals, overflow to
inf, NaN payloads kept as NumPy keeps them) with integer arithmetic and one ``rint`` for the
subnormals, so no flag is raised and no value is slow.
"""
cimport numpy as cnp
from libc.math cimport rintf
from libc.stdint cimport uint16_t, uint32_t
from libc.string cimport memcpy

import numpy as np

cnp.import_array()


cdef inline uint16_t half_bits(float value) noexcept nogil:
    """The float16 bits nearest ``value`` (ties to even)."""
    cdef uint32_t bits, magnitude, sign, payload, rebased
    memcpy(&bits, &value, 4)
    sign = (bits >> 16) & 0x8000
    magnitude = bits & 0x7fffffff
    if magnitude >= 0x7f800000:                 # inf, or NaN with its payload's top bits
        if magnitude == 0x7f800000:
            return <uint16_t>(sign | 0x7c00)
        payload = (magnitude & 0x007fffff) >> 13
        return <uint16_t>(sign | 0x7c00 | (payload if payload else 1))
    if magnitude >= 0x477ff000:                 # 65520 and up round to inf
        return <uint16_t>(sign | 0x7c00)
    if magnitude >= 0x38800000:                 # a normal float16: rebias, round the 13 bits
        rebased = magnitude - 0x38000000
        rebased += 0xfff + ((rebased >> 13) & 1)
        return <uint16_t>(sign | (rebased >> 13))
    # subnormal (or zero): a multiple of 2**-24, the multiple rounded to even; 1024 of
    # them is the smallest normal, whose bits are 1024 too
    value = (-value if value < 0 else value) * 16777216.0
    return <uint16_t>(sign | <uint32_t>rintf(value))


cpdef object float32_to_float16(object array, object out=None):
    """``array`` (a float32 ndarray) rounded to float16: into ``out`` (a C-contiguous
    float16 array of its shape) or a new array. None when ``array`` is not a C-contiguous
    float32 ndarray: the caller casts with NumPy then."""
    cdef cnp.ndarray source, target
    cdef const float* values
    cdef uint16_t* halves
    cdef Py_ssize_t i, n
    if type(array) is not cnp.ndarray or cnp.PyArray_TYPE(<cnp.ndarray>array) != cnp.NPY_FLOAT \
            or not cnp.PyArray_ISCARRAY_RO(<cnp.ndarray>array):
        return None
    source = <cnp.ndarray>array
    target = np.empty_like(source, dtype=np.float16) if out is None else <cnp.ndarray?>out
    if target.dtype != np.float16 or not cnp.PyArray_ISCARRAY(target) \
            or cnp.PyArray_SIZE(target) != cnp.PyArray_SIZE(source):
        raise ValueError("float32_to_float16: out must be a C-contiguous float16 array of "
                         "the input's size")
    values = <const float*>cnp.PyArray_DATA(source)
    halves = <uint16_t*>cnp.PyArray_DATA(target)
    n = cnp.PyArray_SIZE(source)
    with nogil:
        for i in range(n):
            halves[i] = half_bits(values[i])
    return target
