"""torch's CPU random numbers: the MT19937 words and what torch's CPU kernels make of them.

NOTE [torch's CPU random numbers]
torch's CPU generator is the 32-bit Mersenne Twister (MT19937) seeded with the low 32 bits of
the seed, exactly as NumPy's ``MT19937`` with its legacy seeding. A draw is one 32-bit word,
or a 64-bit number made of two words (the first the high half). Each random op turns words
into values by a fixed rule, and doing the same here gives torch's numbers after the same
``manual_seed``:

* uniform float (``rand``, ``uniform_``): the low 24 bits of a word times 2**-24, then
  ``u * (to - from) + from`` in float32 with one rounding (a fused multiply-add); float16
  and bfloat16 round that float32 value;
  float64 takes the low 53 bits of a 64-bit number times 2**-53.
* integers (``randint``, ``random_(from, to)``): ``word % range + from`` (a 64-bit number
  when the range is 2**32 or more); ``random_()`` without bounds: ``% (max + 1)`` of the
  dtype (``2**24 + 1`` for float32, whose integers are exact up to 2**24).
* ``randperm(n)``: Fisher-Yates from the front, swapping ``i`` with ``i + word % (n - i)``.
* normal (``randn``, ``normal_``): 16 or more elements are filled with uniforms and
  transformed by Box-Muller in blocks of 16 (the first 8 with the last 8 of each block; a
  partial last block is redrawn as a whole block ending at the last element); fewer than 16
  take a 64-bit Box-Muller pair per two values, the second value kept in the generator for
  the next draw. torch's float32 blocks use vectorized log/sin/cos, which can differ from
  NumPy's in the last bit.

``bernoulli_`` (dropout's mask) has no torch counterpart here: torch's CPU kernel draws it
through MKL. Those draws use the same stream, through NumPy.
"""
import math

import numpy as np

__all__ = ["uniform", "normal", "integers", "full_range", "permutation"]

_INTEGER_MAX = {"int64": 2 ** 63, "int32": 2 ** 31, "int16": 2 ** 15, "int8": 2 ** 7,
                "uint8": 2 ** 8, "bool": 2, "float32": 2 ** 24 + 1, "float64": 2 ** 53 + 1,
                "float16": 2 ** 11 + 1, "bfloat16": 2 ** 8 + 1}


def _words(generator, count):
    """``count`` 32-bit words of the stream, as uint64."""
    return generator._bits.random_raw(count)


def _wide_words(generator, count):
    """``count`` 64-bit numbers, each from two words (the first the high half)."""
    pairs = _words(generator, 2 * count).reshape(count, 2) if count else np.zeros((0, 2),
                                                                                  np.uint64)
    return (pairs[:, 0] << np.uint64(32)) | pairs[:, 1]


def _unit_uniform(generator, count, double):
    """``count`` uniforms on [0, 1): float64 from 53 bits, else float32 from 24 bits."""
    if double:
        return (_wide_words(generator, count) & np.uint64(2 ** 53 - 1)).astype(
            np.float64) * 2.0 ** -53
    return (_words(generator, count) & np.uint64(2 ** 24 - 1)).astype(np.float32) * \
        np.float32(2.0 ** -24)


def _as_real_pairs(draw):
    """A complex dtype draws its real and imaginary parts as a real tensor of twice the
    values, interleaved (torch's ``view_as_real``); a normal part has half the variance."""
    def complex_aware(generator, shape, numpy_dtype, first=0.0, second=1.0):
        numpy_dtype = np.dtype(numpy_dtype)
        if numpy_dtype.kind != "c":
            return draw(generator, shape, numpy_dtype, first, second)
        real = np.float32 if numpy_dtype == np.complex64 else np.float64
        if draw is normal_real:                    # each part has half the variance
            second = second / np.sqrt(2.0)
        pairs = draw(generator, tuple(shape) + (2,), real, first, second)
        return pairs.view(numpy_dtype).reshape(shape)
    complex_aware.__name__ = draw.__name__.replace("_real", "")
    complex_aware.__doc__ = draw.__doc__
    return complex_aware


def uniform_real(generator, shape, numpy_dtype, low=0.0, high=1.0):
    """Uniform samples on [low, high) in ``numpy_dtype``, as torch's ``uniform_``."""
    count = int(np.prod(shape, dtype=np.int64))
    double = numpy_dtype == np.float64
    u = _unit_uniform(generator, count, double)
    if double:
        # the fused multiply-add in x87's 64-bit mantissa: exact but for a rare double
        # rounding (float64 alone would round the product first)
        values = (u.astype(np.longdouble) * np.longdouble(float(high) - float(low))
                  + np.longdouble(float(low))).astype(np.float64)
    else:
        # float32 bounds, and ``u * span + low`` rounded once, as the fused multiply-add
        # torch's vectorized kernel compiles to (the product is exact in float64)
        span = np.float32(high) - np.float32(low)
        values = u.astype(np.float64) * np.float64(span) + np.float64(np.float32(low))
    return values.astype(numpy_dtype).reshape(shape)


def _box_muller_blocks(u):
    """torch's normal_fill: ``u`` (a multiple of 16 uniforms) to normals, block by block."""
    blocks = u.reshape(-1, 2, 8)
    radius = np.sqrt(-2 * np.log(1 - blocks[:, 0]))
    theta = (2.0 * np.pi * blocks[:, 1]).astype(u.dtype)
    return np.stack([radius * np.cos(theta), radius * np.sin(theta)], axis=1).reshape(-1)


def normal_real(generator, shape, numpy_dtype, mean=0.0, std=1.0):
    """Normal samples in ``numpy_dtype``, as torch's ``normal_`` (NOTE [torch's CPU random
    numbers])."""
    count = int(np.prod(shape, dtype=np.int64))
    if count >= 16:
        double = numpy_dtype == np.float64
        work = np.float64 if double else np.float32
        u = _unit_uniform(generator, count, double)
        values = np.empty(count, work)
        whole = count - count % 16
        values[:whole] = _box_muller_blocks(u[:whole])
        if count % 16:
            values[count - 16:] = _box_muller_blocks(_unit_uniform(generator, 16, double))
        values = values * work(std) + work(mean)
    else:
        values = np.array([_one_normal(generator) * std + mean for _ in range(count)])
    return values.astype(numpy_dtype, copy=False).reshape(shape)


uniform = _as_real_pairs(uniform_real)
normal = _as_real_pairs(normal_real)


def _one_normal(generator):
    """One standard normal from a 64-bit Box-Muller pair; the pair's second value waits in
    the generator for the next call."""
    if generator._next_normal is not None:
        value, generator._next_normal = generator._next_normal, None
        return value
    u1, u2 = (float(u) for u in _unit_uniform(generator, 2, double=True))
    radius = math.sqrt(-2.0 * math.log1p(-u2))          # the C library's functions, as torch
    theta = 2.0 * math.pi * u1
    generator._next_normal = radius * math.sin(theta)
    return radius * math.cos(theta)


def integers(generator, shape, numpy_dtype, low, high):
    """Integers uniform on [low, high) (``randint``, ``random_(from, to)``)."""
    count = int(np.prod(shape, dtype=np.int64))
    span = int(high) - int(low)
    draws = _wide_words(generator, count) if span >= 2 ** 32 else _words(generator, count)
    values = (draws % np.uint64(span)).astype(np.int64) + int(low)
    return values.astype(numpy_dtype).reshape(shape)


def full_range(generator, shape, numpy_dtype):
    """``random_()`` without bounds: integers on [0, max] of the dtype (for a floating dtype,
    up to the largest integer it holds exactly)."""
    count = int(np.prod(shape, dtype=np.int64))
    name = np.dtype(numpy_dtype).name
    modulus = _INTEGER_MAX[name]
    draws = _wide_words(generator, count) if name in ("int64", "float64") else \
        _words(generator, count)
    return (draws % np.uint64(modulus)).astype(numpy_dtype).reshape(shape)


def permutation(generator, n):
    """A random permutation of ``0 .. n-1`` (``randperm``), as torch's CPU kernel shuffles."""
    result = np.arange(n, dtype=np.int64)
    if n < 2:
        return result
    offsets = (_words(generator, n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
    order = result.tolist()
    for i, offset in enumerate(offsets):
        j = i + offset
        order[i], order[j] = order[j], order[i]
    return np.array(order, dtype=np.int64)
