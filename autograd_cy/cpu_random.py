"""torch's CPU random numbers: the MT19937 words and what torch's CPU kernels make of them.

NOTE [torch's CPU random numbers]
torch's CPU generator is the 32-bit Mersenne Twister (MT19937) seeded with the low 32 bits of
the seed, exactly as NumPy's ``MT19937`` with its legacy seeding. A draw is one 32-bit word,
or a 64-bit number made of two words (the first the high half). Each random op turns words
into values by a fixed rule, and doing the same here gives torch's numbers after the same
``manual_seed``:

* uniform float (``rand``, ``uniform_``): the low 24 bits of a word times 2**-24, then
  ``u * (to - from) + from`` in float32 with one rounding (a fused multiply-add); float16
  and bfloat16 round that float32 value; float64 takes the low 53 bits of a 64-bit number
  times 2**-53, also with a fused multiply-add (NOTE [A fused multiply-add in NumPy]).
* integers (``randint``, ``random_(from, to)``): ``word % range + from`` (a 64-bit number
  when the range is 2**32 or more); ``random_(from, None)`` runs to the dtype's largest
  value; ``random_()`` without bounds: ``% (max + 1)`` of the dtype (``2**24 + 1`` for
  float32, whose integers are exact up to 2**24).
* ``randperm(n)``: Fisher-Yates from the front, swapping ``i`` with ``i + word % (n - i)``;
  from n = (2**32 - 1) // 20 on, the "inside-out" shuffle with 64-bit numbers.
* normal (``randn``, ``normal_``): 16 or more elements of a contiguous tensor are filled
  with uniforms and transformed by Box-Muller in blocks of 16 (the first 8 with the last 8
  of each block; a partial last block is redrawn as a whole block ending at the last
  element; float16 and bfloat16 draw each block's uniforms just before transforming it);
  fewer elements, or a tensor that is not contiguous, take a float64 Box-Muller pair per two
  values, the second value kept in the generator for the next draw. float64 uses the C
  library's log/cos/sin as torch does, bit for bit; torch's float32 blocks use vectorized
  log/sin/cos, which can differ from NumPy's in the last bit.
* ``exponential_(rate)``: ``-log1p(-u) / rate`` of a float64 uniform.
* ``cauchy_(median, sigma)``: ``median + sigma * tan(pi * (u - 0.5))``, ``geometric_(p)``:
  ``ceil(log(u) / log1p(-p))``, of a float64 uniform each; ``log_normal_(mean, std)``:
  ``exp`` of one float64 Box-Muller normal (``normal_``'s scalar path) per element.
* ``poisson`` and ``binomial``: per element, torch's rejection samplers over float64
  uniforms (NOTE [Poisson and binomial draws]).
* every fill runs through the tensor's memory in address order (torch's serial kernels), so
  a transposed or sliced tensor gets the values its memory would get in torch.

``bernoulli_`` (dropout's mask) has no torch counterpart here: torch's CPU kernel draws it
through MKL. Those draws use the same stream, through NumPy.
"""
import functools
import math

import numpy as np

from autograd_cy._C.dtype import _c10_name

__all__ = ["uniform", "normal", "integers", "full_range", "permutation", "in_memory_order",
           "exponential", "cauchy", "log_normal", "geometric", "poisson", "binomial",
           "bernoulli", "check_uniform_bounds", "random_bounds", "categorical"]

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
    def complex_aware(generator, shape, numpy_dtype, first=0.0, second=1.0, **options):
        numpy_dtype = np.dtype(numpy_dtype)
        if numpy_dtype.kind != "c":
            return draw(generator, shape, numpy_dtype, first, second, **options)
        real = np.float32 if numpy_dtype == np.complex64 else np.float64
        if draw is normal_real:                    # each part has half the variance
            second = second / np.sqrt(2.0)
        pairs = draw(generator, tuple(shape) + (2,), real, first, second, **options)
        return pairs.view(numpy_dtype).reshape(shape)
    complex_aware.__name__ = draw.__name__.replace("_real", "")
    complex_aware.__doc__ = draw.__doc__
    return complex_aware


# NOTE [A fused multiply-add in NumPy]
# torch's CPU kernels are compiled with fused multiply-adds: ``u * span + low`` is rounded
# once, where NumPy rounds the product and then the sum, and differs in the last bit for
# about one value in ten. In float32 the product of two float32 is exact in float64, so
# one float64 sum and a cast suffice. In float64, Dekker's error-free product and Knuth's
# error-free sum split ``a * b + c`` into a rounded value and its exact remainder; adding
# the remainder once rounds the whole (wrong only where a remainder's own rounding crosses
# a tie: never seen in torch's draws).

def _split(x):
    """``x`` as high + low halves of 26 bits each: their products are exact."""
    scaled = 134217729.0 * x                # 2**27 + 1
    high = scaled - (scaled - x)
    return high, x - high


def fused_multiply_add(a, b, c):
    """``a * b + c`` (float64 arrays or numbers) rounded once (NOTE [A fused multiply-add
    in NumPy])."""
    a = np.asarray(a, np.float64)
    product = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(np.float64(b))
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + \
        a_low * b_low
    total = product + c
    part = total - product
    sum_error = (product - (total - part)) + (c - part)
    return total + (product_error + sum_error)


def uniform_real(generator, shape, numpy_dtype, low=0.0, high=1.0):
    """Uniform samples on [low, high) in ``numpy_dtype``, as torch's ``uniform_``."""
    count = int(np.prod(shape, dtype=np.int64))
    double = numpy_dtype == np.float64
    u = _unit_uniform(generator, count, double)
    if double:
        values = fused_multiply_add(u, float(high) - float(low), float(low))
    else:
        # float32 bounds, and ``u * span + low`` rounded once, as the fused multiply-add
        # torch's vectorized kernel compiles to (the product is exact in float64)
        span = np.float32(high) - np.float32(low)
        values = u.astype(np.float64) * np.float64(span) + np.float64(np.float32(low))
    return values.astype(numpy_dtype).reshape(shape)


def _libm(function, values):
    """``function`` of ``math`` (the C library's, as torch's scalar float64 code calls it)
    over an array: NumPy's own vectorized log, cos and sin differ in the last bit."""
    return np.fromiter(map(function, values.ravel().tolist()), np.float64,
                       values.size).reshape(values.shape)


def _box_muller_blocks(u):
    """torch's normal_fill: ``u`` (a multiple of 16 uniforms) to normals, block by block.
    float64 goes through the C library's functions as torch's does, bit for bit; float32
    through NumPy's, where torch's vectorized ones may differ in the last bit."""
    blocks = u.reshape(-1, 2, 8)
    theta = (2.0 * np.pi * blocks[:, 1]).astype(u.dtype)
    if u.dtype == np.float64:
        log, cos, sin = (functools.partial(_libm, f) for f in (math.log, math.cos, math.sin))
    else:
        log, cos, sin = np.log, np.cos, np.sin
    radius = np.sqrt(-2 * log(1 - blocks[:, 0]))
    return np.stack([radius * cos(theta), radius * sin(theta)], axis=1).reshape(-1)


def _scaled(values, mean, std):
    """``values * std + mean`` rounded once, as the fused multiply-add torch's compiled
    kernels use: float32 through float64, where the product is exact."""
    if values.dtype == np.float64:
        return fused_multiply_add(values, float(std), float(mean))
    exact = values.astype(np.float64) * np.float64(np.float32(std))
    return (exact + np.float64(np.float32(mean))).astype(np.float32)


def _normal_blocks(generator, count, double, interleaved):
    """``count`` (>= 16) standard normals from uniforms transformed in blocks of 16, a
    partial last block redrawn whole and written over the last 16 values. ``interleaved``:
    each block's 16 uniforms are drawn just before it is transformed (torch's float16 and
    bfloat16), else all ``count`` first and the redrawn block after them."""
    whole = count - count % 16
    if interleaved:
        u = _unit_uniform(generator, whole + (16 if count % 16 else 0), double)
        drawn = _box_muller_blocks(u)
        tail = drawn[whole:]
    else:
        drawn = _box_muller_blocks(_unit_uniform(generator, count, double)[:whole])
        tail = _box_muller_blocks(_unit_uniform(generator, 16, double)) if count % 16 \
            else drawn[:0]
    values = np.empty(count, drawn.dtype)
    values[:whole] = drawn[:whole]
    if count % 16:
        values[count - 16:] = tail
    return values


def normal_real(generator, shape, numpy_dtype, mean=0.0, std=1.0, contiguous=True):
    """Normal samples in ``numpy_dtype``, as torch's ``normal_`` (NOTE [torch's CPU random
    numbers]); a tensor that is not ``contiguous`` takes torch's one-by-one path."""
    count = int(np.prod(shape, dtype=np.int64))
    numpy_dtype = np.dtype(numpy_dtype)
    if count >= 16 and contiguous:
        double = numpy_dtype == np.float64
        standard = _normal_blocks(generator, count, double,
                                  interleaved=numpy_dtype.itemsize == 2)
        values = _scaled(standard, mean, std)
    else:
        values = _scaled(np.array([_one_normal(generator) for _ in range(count)], np.float64),
                         mean, std)
    return values.astype(numpy_dtype, copy=False).reshape(shape)


def in_memory_order(draw, shape, strides, *operands):
    """The values of ``draw(shape)`` placed as torch's serial kernels write them into a
    tensor of ``strides``: the n-th value drawn to the n-th lowest address, so a transposed
    or sliced tensor gets the numbers its memory would get in torch. ``operands`` (arrays
    broadcast to ``shape``, bernoulli's probabilities) reach ``draw`` in the same order."""
    order = sorted(range(len(shape)), key=lambda dim: -strides[dim])
    values = draw(tuple(shape[dim] for dim in order),
                  *(np.transpose(np.broadcast_to(a, shape), order) for a in operands))
    return np.transpose(values, np.argsort(order))


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


def exponential(generator, shape, numpy_dtype, rate):
    """Exponential samples of rate ``rate`` (``exponential_``): ``-log1p(-u) / rate`` of a
    float64 uniform, rounded to ``numpy_dtype``."""
    count = int(np.prod(shape, dtype=np.int64))
    u = _unit_uniform(generator, count, double=True)
    return (-1.0 / rate * _libm(math.log1p, -u)).astype(numpy_dtype).reshape(shape)



def _float64_uniforms(generator, shape):
    count = int(np.prod(shape, dtype=np.int64))
    return _unit_uniform(generator, count, double=True).tolist()


def cauchy(generator, shape, numpy_dtype, median, sigma):
    """Cauchy samples (``cauchy_``): ``median + sigma * tan(pi * (u - 0.5))`` of float64
    uniforms, rounded to ``numpy_dtype``."""
    values = [median + sigma * math.tan(math.pi * (u - 0.5))
              for u in _float64_uniforms(generator, shape)]
    return np.array(values, np.float64).astype(numpy_dtype).reshape(shape)


def geometric(generator, shape, numpy_dtype, p):
    """Geometric samples on 1, 2, ... (``geometric_``): ``ceil(log(u) / log1p(-p))``."""
    scale = math.log1p(-p)
    values = [math.ceil(math.log(u) / scale) if u > 0 else math.inf
              for u in _float64_uniforms(generator, shape)]
    return np.array(values, np.float64).astype(numpy_dtype).reshape(shape)


def log_normal(generator, shape, numpy_dtype, mean, std):
    """Log-normal samples (``log_normal_``): ``exp(mean + std * z)``, one float64
    Box-Muller normal ``z`` per element (the pair's second value kept for the next)."""
    count = int(np.prod(shape, dtype=np.int64))
    normals = np.array([_one_normal(generator) for _ in range(count)], np.float64)
    values = _libm(math.exp, fused_multiply_add(normals, float(std), float(mean)))
    return values.astype(numpy_dtype).reshape(shape)


# NOTE [Poisson and binomial draws]
# torch's CPU ``poisson`` and ``binomial`` sample one element at a time, in row-major
# order of the result, each from float64 uniforms drawn as the sampler asks for them:
# * poisson(rate): 0 for rate 0; below 10 the product of uniforms until it falls to
#   exp(-rate) or under; from 10 on Hormann's transformed rejection (PTRS), each try
#   taking two uniforms. A negative or NaN rate is refused.
# * binomial(count, p): 0 for count <= 0 or p <= 0, count for p >= 1, NaN for a NaN p;
#   with q = min(p, 1 - p), count * q below 10 sums geometric variables (inversion),
#   else Hormann's BTRS, and p > 1/2 gives count minus the sample for q. The arithmetic on
#   count and p is done in their dtype (float32 for float32 tensors), the rest in float64.

def _to_int64(value):
    """C's ``(int64_t)`` of a float: x86 gives the smallest int64 for what does not fit
    (an infinite rate's NaN and infinities)."""
    return math.floor(value) if abs(value) < 2.0 ** 63 else -2 ** 63


def _poisson_one(next_uniform, rate):
    if rate >= 10:
        root, log_rate = math.sqrt(rate), math.log(rate)
        b = 0.931 + 2.53 * root
        a = -0.059 + 0.02483 * b
        inverse_alpha = 1.1239 + 1.1328 / (b - 3.4)
        v_r = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = next_uniform() - 0.5
            v = next_uniform()
            us = 0.5 - abs(u)
            k = _to_int64(np.floor((2 * a / us + b) * u + rate + 0.43))
            if us >= 0.07 and v <= v_r:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(inverse_alpha) - math.log(a / (us * us) + b)) <= (
                    -rate + k * log_rate - math.lgamma(k + 1.0)):
                return k
    if rate == 0:
        return 0
    limit, product, k = math.exp(-rate), 1.0, 0
    while True:
        product *= next_uniform()
        if product > limit:
            k += 1
        else:
            return k


def _next_uniform(generator):
    return lambda: float(_unit_uniform(generator, 1, double=True)[0])


def poisson(generator, rates, numpy_dtype):
    """Poisson samples of the float64 ``rates`` (row-major), in ``numpy_dtype``."""
    flat = np.ascontiguousarray(rates, np.float64).ravel().tolist()
    if any(not rate >= 0 for rate in flat):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    next_uniform = _next_uniform(generator)
    values = [_poisson_one(next_uniform, rate) for rate in flat]
    return np.array(values, np.float64).astype(numpy_dtype).reshape(np.shape(rates))


_STIRLING_TAILS = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                   0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                   0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                   0.00833056343336287)


def _stirling_tail(k):
    """log(k!) less Stirling's approximation of it: a table to 9, a series beyond."""
    if k <= 9:
        return _STIRLING_TAILS[int(k)]
    square = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / square) / square) / (k + 1)


def _binomial_inversion(next_uniform, count, q, real):
    log_q = float(real(np.log1p(-real(q))))
    total, k = 0.0, real(0)
    while True:
        total += math.ceil(math.log(next_uniform()) / log_q)
        if total > count:
            return k
        k = real(k + 1)


def _btrs(next_uniform, count, q, real):
    stddev = float(np.sqrt(real(count * q * real(1 - q))))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(q)
    c = float(real(count * q)) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(real(q / real(1 - q)))
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(float(real(real(count + 1) * q)))
    count = float(count)
    while True:
        u = next_uniform() - 0.5
        v = next_uniform()
        us = 0.5 - abs(u)
        k = float(real(np.floor((2 * a / us + b) * u + c)))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        bound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                 + (count + 1) * math.log((count - m + 1) / (count - k + 1))
                 + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
                 + _stirling_tail(m) + _stirling_tail(count - m)
                 - _stirling_tail(k) - _stirling_tail(count - k))
        if v <= bound:
            return k


def _binomial_one(next_uniform, count, p, real):
    if count <= 0 or p <= 0:
        return 0.0
    if p >= 1:
        return float(count)
    if p <= 0.5 or p > 0.5:
        q = p if p <= 0.5 else real(1.0 - p)
        if real(count * q) >= 10.0:
            k = _btrs(next_uniform, count, q, real)
        else:
            k = float(_binomial_inversion(next_uniform, count, q, real))
        return k if p <= 0.5 else float(real(count - real(k)))
    return math.nan


def binomial(generator, counts, probabilities, numpy_dtype):
    """Binomial samples of ``counts`` trials of probabilities ``probabilities`` (arrays of
    one shape, row-major), in ``numpy_dtype``, the arithmetic on them in that dtype."""
    real = np.float32 if np.dtype(numpy_dtype) == np.float32 else np.float64
    next_uniform = _next_uniform(generator)
    values = [_binomial_one(next_uniform, real(n), real(p), real) for n, p in zip(
        np.asarray(counts).ravel().tolist(), np.asarray(probabilities).ravel().tolist())]
    return np.array(values, np.float64).astype(numpy_dtype).reshape(np.shape(counts))


# NOTE [Bernoulli draws]
# torch's CPU ``bernoulli_`` with a probability ``p`` (a number: dropout's masks) compares a
# float64 uniform of 53 bits with ``p``, one per element in memory order: ``u < p`` is 1.
# With a tensor of probabilities the uniform is float64 for float64 probabilities and float32
# (24 bits) for the others. That is torch's portable kernel; on a CPU whose vendor is Intel,
# torch's wheels take MKL's generator for a number ``p`` instead (its own stream, seeded from
# this one), whose draws these are not.

def bernoulli(generator, shape, numpy_dtype, p):
    """0/1 samples in ``numpy_dtype``, 1 with probability ``p`` (a number or an array of
    ``shape``): NOTE [Bernoulli draws]."""
    count = int(np.prod(shape, dtype=np.int64))
    if isinstance(p, np.ndarray):
        u = _unit_uniform(generator, count, double=p.dtype == np.float64).reshape(shape)
        return (u < p.astype(u.dtype, copy=False)).astype(numpy_dtype)
    u = _unit_uniform(generator, count, double=True).reshape(shape)
    return (u < p).astype(numpy_dtype)

def _out_of_bounds(value, name, low, high, dtype):
    if not low <= value <= high:
        raise RuntimeError(f"{name} is out of bounds for {_c10_name(dtype)}")


def _limits(dtype):
    """The smallest and largest value of ``dtype`` (autograd_cy's dtype), as Python
    numbers."""
    if dtype.is_floating_point:
        info = np.finfo(dtype.numpy)
        return float(info.min), float(info.max)
    if dtype.numpy == np.bool_:
        return 0, 1
    info = np.iinfo(dtype.numpy)
    return int(info.min), int(info.max)


def check_uniform_bounds(low, high, dtype):
    """torch's checks of ``uniform_``'s bounds: finite in ``dtype``, ordered, and a span
    the dtype holds."""
    if dtype.is_complex:
        return
    smallest, largest = _limits(dtype)
    _out_of_bounds(low, "from", smallest, largest, dtype)
    _out_of_bounds(high, "to", smallest, largest, dtype)
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={low} > to={high}")
    if high - low > largest:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<"
                           f"{dtype._scalar_name}>::max(), but found to={high:g} and "
                           f"from={low:g} which result in to-from to exceed the limit")


def random_bounds(low, high, dtype):
    """``random_(from, to)``'s range as [low, high), with torch's checks: ``to=None`` runs
    to the dtype's largest value (for a floating dtype, its largest exact integer); both
    must lie in the dtype."""
    if high is not None:
        if low >= high:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={low} >= to={high}")
        last = high - 1
    else:
        digits = np.finfo(dtype.numpy).nmant + 1 if dtype.is_floating_point else None
        last = 2 ** digits if digits else _limits(dtype)[1]
        if digits and low >= last:
            raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than or "
                               f"equal to 'to_inc' casted to dtype, but got from={low} > "
                               f"to_inc={last}")
    smallest, largest = _limits(dtype)
    _out_of_bounds(low, "from", smallest, largest, dtype)
    _out_of_bounds(last, "to - 1", smallest, largest, dtype)
    return int(low), int(last) + 1


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


# torch shuffles with 32-bit words below this length, whose remainders are fair enough there
_SMALL_PERMUTATION = (2 ** 32 - 1) // 20


def permutation(generator, n):
    """A random permutation of ``0 .. n-1`` (``randperm``), as torch's CPU kernel shuffles:
    Fisher-Yates from the front with 32-bit words, or from ``_SMALL_PERMUTATION`` on the
    "inside-out" shuffle with 64-bit numbers (one Python step per element: slow there)."""
    if n >= _SMALL_PERMUTATION:
        return _inside_out_permutation(generator, n)
    result = np.arange(n, dtype=np.int64)
    if n < 2:
        return result
    offsets = (_words(generator, n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
    order = result.tolist()
    for i, offset in enumerate(offsets):
        j = i + offset
        order[i], order[j] = order[j], order[i]
    return np.array(order, dtype=np.int64)


def _inside_out_permutation(generator, n):
    """Element ``i`` goes to a place ``z`` uniform on [0, i], whose element moves to ``i``."""
    result = np.empty(n, np.int64)
    chunk = 2 ** 20                     # the 64-bit numbers drawn a chunk at a time
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        places = _wide_words(generator, stop - start) % np.arange(start + 1, stop + 1,
                                                                   dtype=np.uint64)
        for i, z in enumerate(places.tolist(), start):
            result[i] = result[z]
            result[z] = i
    return result


def categorical(generator, probabilities, count):
    """``count`` categories of each row of ``probabilities`` (2-D, non-negative, finite, each
    row with a positive sum), drawn with replacement as torch's CPU ``multinomial``: the
    row's cumulative sums in its dtype (float32 for a half dtype) divided by the total, the
    last one set to 1, and for each sample a float64 uniform looked up by binary search (the
    first category whose cumulative share is not below it)."""
    dtype = np.float32 if probabilities.dtype.itemsize == 2 else probabilities.dtype
    rows = []
    for row in probabilities.astype(dtype):
        cumulative = np.cumsum(row, dtype=dtype)
        cumulative = cumulative / cumulative[-1]
        cumulative[-1] = 1
        u = _unit_uniform(generator, count, double=True)
        rows.append(np.searchsorted(cumulative.astype(np.float64), u, side="left"))
    return np.array(rows, dtype=np.int64).reshape(len(rows), count)
