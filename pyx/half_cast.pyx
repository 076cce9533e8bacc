"""float32 to float16 (rounded to nearest even) and back, each in one C loop.

NOTE [Rounding to float16]
NumPy rounds float32 to float16 correctly, but each value that lands in float16's subnormal
range (below 2**-14, about 6.1e-5: most gradients) raises the underflow flag through a
floating-point operation on a subnormal, which costs about 60 ns on x86: a cast of 200,000
gradients to float16 took 13 ms instead of 0.5. torch's CPU kernels convert with the F16C
instruction. This loop gives NumPy's bits (round to nearest even, subnormals, overflow to
inf, NaN payloads kept as NumPy keeps them) with integer arithmetic, and one float addition
for the subnormals, so no flag is raised and no value is slow. The way back is exact; NumPy's is
slow on subnormals too (a loop that normalises the mantissa bit by bit, 8 ns a value), and
here a subnormal is its mantissa times 2**-24, one float multiply.
"""
cimport numpy as cnp
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
    # subnormal (or zero): a multiple of 2**-24, the multiple rounded to even. Adding 0.5
    # (exponent 126) puts the bit of weight 2**-24 at the bottom of the sum's mantissa, so
    # the addition itself rounds to nearest even; the sum's bits past 0.5's are the float16
    # bits (1024 multiples, if it rounds up that far, being the smallest normal's bits)
    memcpy(&value, &magnitude, 4)
    value = value + <float>0.5
    memcpy(&rebased, &value, 4)
    return <uint16_t>(sign | (rebased - 0x3f000000))


cdef inline float float_of_half(uint16_t half) noexcept nogil:
    """The float32 value of the float16 bits ``half`` (exact)."""
    cdef uint32_t sign = (<uint32_t>half & 0x8000) << 16
    cdef uint32_t exponent = (half >> 10) & 0x1f
    cdef uint32_t mantissa = half & 0x3ff
    cdef uint32_t bits
    cdef float value
    if exponent == 0x1f:                        # inf, NaN (payload kept)
        bits = sign | 0x7f800000 | (mantissa << 13)
    elif exponent != 0:                         # normal: rebias the exponent
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13)
    else:                                       # zero or subnormal: mantissa * 2**-24
        value = <float>mantissa * <float>5.9604644775390625e-08
        memcpy(&bits, &value, 4)
        bits |= sign
    memcpy(&value, &bits, 4)
    return value


cdef tuple _source_and_target(object array, object out, object source_dtype,
                              object target_dtype):
    """(source, target) of a conversion this module does: ``array``, a C-contiguous array of
    ``source_dtype``, and ``out`` (a writable C-contiguous array of ``target_dtype`` and
    ``array``'s shape) or a new array; None for anything else."""
    if type(array) is not cnp.ndarray or (<cnp.ndarray>array).dtype != source_dtype \
            or not cnp.PyArray_ISCARRAY_RO(<cnp.ndarray>array):
        return None
    if out is None:
        return array, np.empty(array.shape, dtype=target_dtype)
    if (type(out) is not cnp.ndarray or (<cnp.ndarray>out).dtype != target_dtype
            or not cnp.PyArray_ISCARRAY(<cnp.ndarray>out) or out.shape != array.shape):
        return None
    return array, out


cpdef object float16_to_float32(object array, object out=None):
    """``array`` (a float16 ndarray) as float32: into ``out`` or a new array. None, doing
    nothing, unless ``array`` is a C-contiguous float16 ndarray and ``out`` (if given) a
    C-contiguous float32 one of its shape: the caller then converts with NumPy."""
    cdef cnp.ndarray source, target
    cdef const uint16_t* halves
    cdef float* values
    cdef Py_ssize_t i, n
    arrays = _source_and_target(array, out, np.float16, np.float32)
    if arrays is None:
        return None
    source, target = arrays
    halves = <const uint16_t*>cnp.PyArray_DATA(source)
    values = <float*>cnp.PyArray_DATA(target)
    n = cnp.PyArray_SIZE(source)
    with nogil:
        for i in range(n):
            values[i] = float_of_half(halves[i])
    return target


cpdef object float32_to_float16(object array, object out=None):
    """``array`` (a float32 ndarray) rounded to float16: into ``out`` or a new array.
    None, doing nothing, unless ``array`` is a C-contiguous float32 ndarray and ``out`` (if
    given) a C-contiguous float16 one of its shape: the caller then casts with NumPy."""
    cdef cnp.ndarray source, target
    cdef const float* values
    cdef uint16_t* halves
    cdef Py_ssize_t i, n
    arrays = _source_and_target(array, out, np.float32, np.float16)
    if arrays is None:
        return None
    source, target = arrays
    values = <const float*>cnp.PyArray_DATA(source)
    halves = <uint16_t*>cnp.PyArray_DATA(target)
    n = cnp.PyArray_SIZE(source)
    with nogil:
        for i in range(n):
            halves[i] = half_bits(values[i])
    return target
