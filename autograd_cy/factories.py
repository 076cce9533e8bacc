"""Tensor factories: ``tensor``, ``zeros``, ``randn``, ``arange`` ... as in ``torch``.

All of them return leaves; ``requires_grad=True`` is honoured even under
``no_grad()`` (no_grad only stops recording) and refused for non-floating dtypes.
Random factories draw from one module-level generator seeded by ``manual_seed``.
"""
import builtins
import math
import warnings

import numpy as np

from autograd_cy import dtypes as _dtypes
from autograd_cy._C import device as _device_module
from autograd_cy._C.dtype import check_convertible as _check_convertible
from autograd_cy._C.fp_errors import FloatingPointErrorsIgnored as _FloatingPointErrorsIgnored
from autograd_cy._C.tensor import Tensor, Size, _wrap_array, _array_of
from autograd_cy import cuda as _cuda
from autograd_cy.cuda import random as _cuda_random
from autograd_cy.rng_state import state_bytes, state_tensor
from autograd_cy import cpu_random as _cpu_random
from autograd_cy import memory_formats as _memory_format

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty",
           "zeros_like", "ones_like", "full_like", "empty_like", "rand", "randn", "randint",
           "rand_like", "randn_like", "randint_like", "randperm", "arange", "range", "linspace",
           "logspace", "eye", "empty_strided", "empty_permuted", "scalar_tensor", "manual_seed",
           "Generator", "seed", "initial_seed", "default_generator", "get_rng_state",
           "set_rng_state",
           "set_default_device", "get_default_device", "is_inference", "FloatTensor",
           "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor",
           "ByteTensor", "BoolTensor"]


class Generator:
    """A random number generator (``torch.Generator``): torch's MT19937, so the same seed
    gives torch's numbers (NOTE [torch's CPU random numbers] in cpu_random.py)."""

    def __init__(self, device="cpu"):
        self._waiting = []      # who wants the state as it is before the next draw or change
        self._reseed(67280421310721)

    def _reseed(self, seed):
        self._seed = seed & 0xFFFFFFFFFFFFFFFF            # torch keeps the seed as a uint64
        self._bits = np.random.MT19937()
        self._bits._legacy_seeding(seed & 0xFFFFFFFF)     # and seeds with its low 32 bits
        self._rng = np.random.Generator(self._bits)       # draws torch has no rule for
        self._next_normal = None        # the second value of a Box-Muller pair, if waiting
        self._fresh = True              # nothing drawn since seeding (get_state's ``next``)

    def manual_seed(self, seed):
        self._before_change()
        self._reseed(builtins.int(seed))
        return self

    def seed(self):
        """Seed from the operating system's entropy; returns the seed."""
        seed = builtins.int.from_bytes(np.random.SeedSequence().generate_state(2, np.uint32)
                                       .tobytes(), "little")
        self.manual_seed(seed)
        return seed

    def initial_seed(self):
        return self._seed

    def _raw_state(self):
        """(the 624 MT19937 words as bytes, position, seed, waiting normal, fresh): what
        ``get_state`` packs; plain values, so that two states compare with ``==``."""
        state = self._bits.state["state"]
        return (np.asarray(state["key"], np.uint32).tobytes(), builtins.int(state["pos"]),
                self._seed, self._next_normal, self._fresh)

    def _set_raw_state(self, raw):
        self._before_change()
        words, position, self._seed, self._next_normal, self._fresh = raw
        self._bits.state = {"bit_generator": "MT19937", "state": {
            "key": np.frombuffer(words, np.uint32).copy(), "pos": position}}

    def _wait_for_state(self, waiter):
        """Give ``waiter.states`` the raw state this generator has just before its next draw
        or change, not now: most checkpointed regions draw nothing, and copying the 624
        words costs more than the rest of a region's bookkeeping (NOTE [Checkpoint RNG
        state]). A waiter still waiting has seen the state unchanged."""
        self._waiting.append(waiter)

    def _stop_waiting(self, waiter):
        if waiter in self._waiting:
            self._waiting.remove(waiter)

    def _before_change(self):
        """About to draw or change the state: the waiters get the state as it is now."""
        if self._waiting:
            raw = self._raw_state()
            for waiter in self._waiting:
                waiter.states = [raw]
            self._waiting.clear()
        self._fresh = False

    def get_state(self):
        """The generator's state as a uint8 tensor in torch's layout (NOTE [The CPU
        generator's state bytes]), so torch's ``set_rng_state`` takes it and the reverse."""
        words, position, seed, next_normal, fresh = self._raw_state()
        state = np.zeros(1, _CPU_STATE)
        state["seed"], state["seeded"] = seed, 1
        state["left"] = _MT_WORDS + 1 - position
        state["next"] = 0 if fresh else position
        state["words"] = np.frombuffer(words, np.uint32)
        if next_normal is not None:
            state["normal_y"], state["normal_is_valid"] = next_normal, 1
        return state_tensor(state.tobytes())

    def set_state(self, new_state):
        """Restore a state taken by ``get_state`` (ours or torch's): the same numbers are
        drawn again."""
        state = np.frombuffer(state_bytes(new_state, _CPU_STATE.itemsize,
                                          "CPUGeneratorImplState"), _CPU_STATE)[0]
        left, position = builtins.int(state["left"]), builtins.int(state["next"])
        if not state["seeded"] or not 0 < left <= _MT_WORDS or position > _MT_WORDS:
            raise RuntimeError("Invalid mt19937 state")
        self._set_raw_state((
            state["words"].astype(np.uint32).tobytes(), _MT_WORDS + 1 - left,
            builtins.int(state["seed"]),
            builtins.float(state["normal_y"]) if state["normal_is_valid"] else None,
            position == 0))
        return self


# NOTE [The CPU generator's state bytes]
# torch's get_rng_state is a C struct copied byte for byte: the seed, MT19937's countdown
# ``left`` to its next twist and its read position ``next``, the 624 words (each widened to
# 64 bits), three doubles of which only ``normal_y`` is still used (the waiting second
# value of a float64 Box-Muller pair), its flag, and a float32 equivalent torch no longer
# fills. NumPy's MT19937 keeps one read position ``pos`` that twists at 624: ``left`` is
# 625 - pos, and ``next`` is pos except right after seeding, where torch reads 0 (its first
# draw twists, as NumPy's does at pos 624). The same layout makes either library's state
# loadable by the other.
_MT_WORDS = 624
_CPU_STATE = np.dtype([
    ("seed", "<u8"), ("left", "<i4"), ("seeded", "<i4"), ("next", "<u8"),
    ("words", "<u8", (_MT_WORDS,)), ("normal_x", "<f8"), ("normal_y", "<f8"),
    ("normal_rho", "<f8"), ("normal_is_valid", "<i4"), ("padding", "<i4"),
    ("float_normal", "<f4"), ("float_normal_is_valid", "u1"), ("float_padding", "u1", (3,))])


# A new Generator starts from torch's fixed seed; the default one, as torch 2.13's, from the
# system's entropy at import, so that runs that never call manual_seed differ.
default_generator = Generator()
default_generator.seed()


def manual_seed(seed):
    """Seed the default generator and every CUDA device's (as ``torch.manual_seed`` does);
    returns the default generator."""
    _cuda.manual_seed_all(seed)
    return default_generator.manual_seed(seed)


def seed():
    """Seed the default generator, and every CUDA device's, from the operating system's
    entropy (``torch.seed``); returns the seed, a 64-bit number."""
    value = default_generator.seed()
    _cuda.manual_seed_all(value)
    return value


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    """The default CPU generator's state, a uint8 tensor (``torch.get_rng_state``)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore the default CPU generator to ``new_state`` from ``get_rng_state``."""
    default_generator.set_state(new_state)


def _generator(generator):
    """The Generator to draw from (``generator`` or the default one), about to change."""
    generator = generator or default_generator
    generator._before_change()
    return generator


def _rng(generator):
    """The NumPy generator over the same stream, for draws torch has no CPU rule for."""
    return _generator(generator)._rng


def set_default_device(device):
    """The device factories use when no ``device=`` is given (None: the CPU); ``with
    autograd_cy.device(...):`` sets it for a block."""
    _device_module.set_default_device(device)


def get_default_device():
    return _device_module.get_default_device() or _device_module.device("cpu")


def _make(array, requires_grad, device=None):
    """Wrap ``array`` in a leaf on ``device`` (the default device when None), with
    PyTorch's error for requires_grad on integers; ``array`` is moved there when it is
    elsewhere."""
    if requires_grad and not _dtypes.from_numpy_dtype(array.dtype).is_floating_point and \
            array.dtype.kind != "c":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    if device is None:
        device = _device_module.get_default_device()
    if device is not None:
        target = _device_module.resolved_device(device)
        if target != _device_module.device_of(array):
            array = _device_module._array_to_device(array, target)
    result = _wrap_array(array)
    if requires_grad:
        result.requires_grad_(True)
    return result


def _default_float():
    """The NumPy dtype of ``get_default_dtype()`` (float32 unless set_default_dtype changed
    it)."""
    return _dtypes.get_default_dtype().numpy


def _numpy_dtype(dtype, default=None):
    if dtype is None:
        return default
    if not isinstance(dtype, _dtypes.dtype) and dtype not in (builtins.float, builtins.int,
                                                              builtins.bool):
        raise TypeError(f"argument 'dtype' must be autograd_cy.dtype, not "
                        f"{type(dtype).__name__}")
    return _dtypes.to_numpy_dtype(dtype)


def _infer_numpy(data, dtype):
    """NumPy array for ``data`` with PyTorch's dtype inference (floats -> the default dtype,
    float32; complex numbers -> its complex dtype, complex64)."""
    if isinstance(data, Tensor):
        array = data.detach().numpy(force=True).copy()   # force: a conjugate view resolved
    elif isinstance(data, np.ndarray):
        array = np.array(data, copy=True)
        _check_numpy(array)
    elif isinstance(data, np.generic):
        array = np.array(data)          # a NumPy scalar keeps its own dtype
    else:
        values = _unwrap(data)
        try:
            array = np.array(values)
        except ValueError:
            _check_nesting(values, _nested_shape(values), 0)    # torch's words, if ragged
            raise
        if array.dtype.kind not in "biufc":
            _refuse_uninferable(data)
        if dtype is None and _all_numpy_scalars(data):
            pass
        elif dtype is None and array.dtype.kind == "f":
            with _FloatingPointErrorsIgnored():
                array = array.astype(_default_float())
        elif dtype is None and array.dtype.kind == "c":
            array = array.astype(_dtypes.default_complex_dtype().numpy)
        elif dtype is None and array.dtype.kind in "iu":
            array = array.astype(np.int64)
    with _FloatingPointErrorsIgnored():     # a float past the type's range is inf, quietly
        if dtype is not None:
            numpy_dtype = _numpy_dtype(dtype)
            if not isinstance(data, np.ndarray):
                _check_convertible(array, numpy_dtype, False)
            array = array.astype(numpy_dtype, copy=False)
        elif not _dtypes._is_supported(array.dtype):
            array = array.astype(_dtypes.from_numpy_dtype(array.dtype).numpy)
    return array


def _refuse_uninferable(data):
    """torch's error for data whose dtype it cannot infer: a TypeError for a string, else a
    RuntimeError naming the first element's type that is not a number."""
    good = object()

    def first_bad(value):
        if isinstance(value, (list, tuple)):
            return next((bad for bad in map(first_bad, value) if bad is not good), good)
        if isinstance(value, (builtins.int, builtins.float, builtins.complex, np.generic,
                              Tensor)):
            return good
        return value
    bad = data if isinstance(data, str) else first_bad(data)
    bad = data if bad is good else bad
    if isinstance(bad, str):
        raise TypeError(f"new(): invalid data type '{type(bad).__name__}'")
    raise RuntimeError(f"Could not infer dtype of {type(bad).__name__}")


def _all_numpy_scalars(data):
    """``[np.float64(1.0), ...]``: NumPy scalars keep their dtype, as in PyTorch."""
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return isinstance(data, np.generic)


def _is_sequence(data):
    return isinstance(data, (list, tuple)) or (isinstance(data, np.ndarray) and data.ndim > 0)


def _nested_shape(data):
    """The shape torch reads from nested sequences: the length at each depth of the first
    element of the one above."""
    shape = []
    while _is_sequence(data):
        shape.append(len(data))
        if not len(data):
            break
        data = data[0]
    return shape


def _check_nesting(data, shape, dim):
    """Refuse, as torch does, nested sequences that do not all have ``shape``: the first
    sequence of another length, a number where a sequence belongs, or the reverse."""
    if dim == len(shape):
        if _is_sequence(data):
            raise TypeError(f"must be real number, not {type(data).__name__}")
        return
    if not _is_sequence(data):
        raise TypeError("not a sequence")
    if len(data) != shape[dim]:
        raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} "
                         f"(got {len(data)})")
    for item in data:
        _check_nesting(item, shape, dim + 1)


def _unwrap(data):
    """Nested lists may hold 0-dim tensors (``tensor([x, y])``); take their values."""
    if isinstance(data, Tensor):
        return data.detach().cpu().numpy(force=True)
    if isinstance(data, (list, tuple)):
        return [_unwrap(item) for item in data]
    return data


def _check_numpy(array):
    if any(s < 0 for s in array.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with "
            "negative strides are not currently supported. (You can probably work around "
            "this by making a copy of your array  with array.copy().) ")
    _dtypes.from_numpy_dtype(array.dtype)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf holding a copy of ``data`` (Python floats become the default dtype,
    float32)."""
    return _make(_infer_numpy(data, dtype), requires_grad, device)


def as_tensor(data, dtype=None, device=None):
    """``data`` as a tensor on ``device`` (the default device when None), sharing memory
    when it already is one there with this dtype (a NumPy array shares it on the CPU)."""
    if isinstance(data, Tensor):
        if device is not None:
            data = data.to(device)
        return data if dtype is None else data.to(dtype)
    on_cpu = _device_module.resolved_device(
        device if device is not None else get_default_device()).type == "cpu"
    if on_cpu and isinstance(data, np.ndarray) and (dtype is None or
                                                    _numpy_dtype(dtype) == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array):
    """A tensor sharing ``array``'s memory: writes through either are seen by both. Always
    on the CPU, whatever the default device (as torch's)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _check_numpy(array)
    return _make(array, False, "cpu")


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for n in size:
        if not isinstance(n, (builtins.int, np.integer)):
            raise TypeError(f"empty(): argument 'size' must be tuple of ints, but found "
                            f"element of type {type(n).__name__}")
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{list(size)}")
    return tuple(size)


# NOTE [A factory out of memory]
# Every factory takes its host storage from _allocate, which fails as PyTorch's CPU
# allocator does: sizes whose byte count does not fit in 64 bits are a size error, and
# storage the system cannot give is a RuntimeError naming the bytes asked for, where NumPy
# raises MemoryError, or ValueError past its own limit of 2**63 - 1 bytes, in its own
# words. The bytes named are the tensor's, whatever temporaries a factory needs to fill it
# (random samples are drawn as float64). The sizes are read only on failure: the common
# case costs a try block.

_ZEROED = object()      # _allocate's fill for zeros: calloc's pages are zeroed when touched


def _allocate(shape, numpy_dtype, fill=None, like=None):
    """Host storage for a factory's tensor (NOTE [A factory out of memory]): uninitialised,
    or filled with ``fill`` (a value, _ZEROED, or a function that fills the array).
    ``like``: an array whose layout it takes, and its shape."""
    try:
        if like is not None:
            array = np.empty_like(like, dtype=numpy_dtype, order="K")
        elif fill is _ZEROED:
            return np.zeros(shape, numpy_dtype)
        else:
            array = np.empty(shape, numpy_dtype)
    except (MemoryError, ValueError):       # ValueError: NumPy's "array is too big"
        raise _allocation_error(shape if like is None else like.shape, numpy_dtype) from None
    try:
        if callable(fill):
            fill(array)
        elif fill is not None:
            array.fill(fill)
    except MemoryError:                     # a temporary of the fill
        raise _allocation_error(array.shape, numpy_dtype) from None
    return array


def _allocation_error(shape, numpy_dtype):
    """What torch's CPU allocator raises for a tensor of ``shape`` it cannot allocate."""
    nbytes = math.prod(shape) * np.dtype(numpy_dtype).itemsize
    if nbytes >= 2 ** 64:
        return RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    return RuntimeError(f"DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                        f"{nbytes} bytes. Error code 12 (Cannot allocate memory)")


def zeros(*size, dtype=None, device=None, requires_grad=False, out=None):
    return _make(_allocate(_size(size), _numpy_dtype(dtype, _default_float()), _ZEROED),
                 requires_grad, device)


def ones(*size, dtype=None, device=None, requires_grad=False, out=None):
    return _make(_allocate(_size(size), _numpy_dtype(dtype, _default_float()), 1), requires_grad,
                 device)


def empty(*size, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _memory_format.lay_out(
        _make(_allocate(_size(size), _numpy_dtype(dtype, _default_float())), requires_grad,
              device), memory_format)


def _check_number(function, value, argument="fill_value", position=2):
    if not isinstance(value, (builtins.int, builtins.float, builtins.complex, np.number,
                              np.bool_)):
        raise TypeError(f"{function}(): argument '{argument}' (position {position}) must be "
                        f"Number, not {type(value).__name__}")


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    _check_number("full", fill_value)
    if dtype is None:
        dtype = (_dtypes.bool if isinstance(fill_value, builtins.bool) else
                 _dtypes.int64 if isinstance(fill_value, builtins.int) else
                 _dtypes.default_complex_dtype() if isinstance(fill_value, builtins.complex)
                 else _dtypes.get_default_dtype())
    numpy_dtype = _numpy_dtype(dtype)
    shape = _size((size,))
    # PyTorch's one-element fill casts a float16 without the check.
    _check_convertible(fill_value, numpy_dtype,
                       numpy_dtype != np.float16 or builtins.int(np.prod(shape)) != 1)
    value = np.asarray(fill_value)
    if value.dtype.kind == "c" and numpy_dtype.kind != "c":
        value = value.real          # checked above: no imaginary part
    with _FloatingPointErrorsIgnored():     # cast as C++ casts: -1 is 255 in uint8
        array = _allocate(shape, numpy_dtype, value.astype(numpy_dtype))
    return _make(array, requires_grad, device)


def _like_device(input, device):
    """A ``*_like`` factory's device: the input's unless one is given."""
    return input.device if device is None else device


def _check_like_input(input):
    if not isinstance(input, Tensor):
        raise TypeError(f"argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _empty_like(input, dtype, device=None, fill=None):
    """Uninitialised storage shaped like ``input`` and, when it is dense, with its strides
    (PyTorch's ``memory_format=torch.preserve_format``): on ``input``'s CUDA device when
    that is the target (``device``, the input's when None), else on the host, for _make to
    move. On the host, ``fill`` as _allocate's."""
    _check_like_input(input)
    array = _array_of(input)
    dtype = _numpy_dtype(dtype, array.dtype)
    if input.is_meta or device is not None:     # NOTE [Meta tensors]: no data, no layout
        target = _device_module.resolved_device(_like_device(input, device))
        if target.type == "meta":
            return _device_module.MetaArray(tuple(input.shape), dtype)
        if input.is_meta:
            return _allocate(tuple(input.shape), dtype, fill)
    if input.is_cuda:
        if _device_module.resolved_device(_like_device(input, device)) == input.device:
            return _cuda.DeviceNamespace(array.device).empty_like(array, dtype)
        return _allocate(tuple(input.shape), dtype, fill)
    return _allocate(None, dtype, fill, like=array)


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    array = _empty_like(input, dtype, device)
    array.fill(0)
    return _memory_format.lay_out(_make(array, requires_grad, _like_device(input, device)),
                                  memory_format)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    array = _empty_like(input, dtype, device)
    array.fill(1)
    return _memory_format.lay_out(_make(array, requires_grad, _like_device(input, device)),
                                  memory_format)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _memory_format.lay_out(
        _make(_empty_like(input, dtype, device), requires_grad, _like_device(input, device)),
        memory_format)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,
              memory_format=None):
    _check_number("full_like", fill_value)
    array = _empty_like(input, dtype, device)
    array.fill(fill_value)
    return _memory_format.lay_out(_make(array, requires_grad, _like_device(input, device)),
                                  memory_format)


def _cuda_device(device):
    """The CUDA device (autograd_cy.cuda's) a factory's ``device=`` names, or None for the
    CPU: random factories draw a CUDA tensor on the device, from its Philox stream."""
    if device is None:
        device = _device_module.get_default_device()
    if device is None:
        return None
    target = _device_module.resolved_device(device)
    if target.type != "cuda":
        return None
    return _cuda.devices.get(target.index)


def _random(kind, shape, numpy_dtype, generator, device, requires_grad):
    """Samples of ``kind`` ("uniform" or "normal"): on a CUDA device by cuda/random.cu,
    on the CPU from the generator."""
    cuda_device = _cuda_device(device)
    if cuda_device is not None:
        sample = _cuda_random.uniform if kind == "uniform" else _cuda_random.normal
        return _make(sample(shape, numpy_dtype, cuda_device), requires_grad, device)
    draw = _cpu_random.uniform if kind == "uniform" else _cpu_random.normal

    def fill(array):
        array[...] = draw(_generator(generator), shape, array.dtype)
    return _make(_allocate(shape, numpy_dtype, fill), requires_grad, device)


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Uniform samples on [0, 1)."""
    return _random("uniform", _size(size), _numpy_dtype(dtype, _default_float()), generator, device,
                   requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal samples."""
    return _random("normal", _size(size), _numpy_dtype(dtype, _default_float()), generator, device,
                   requires_grad)


def _random_like(kind, input, dtype, device, requires_grad):
    """rand_like / randn_like: on a CUDA device from its stream; on the CPU into storage
    laid out like ``input``."""
    _check_like_input(input)
    device = _like_device(input, device)
    if _cuda_device(device) is not None:
        numpy_dtype = _numpy_dtype(dtype, _dtypes.to_numpy_dtype(input.dtype))
        sample = _random(kind, tuple(input.shape), numpy_dtype, None, device, requires_grad)
        if sample.device != input.device:
            return sample
        array = _empty_like(input, dtype)       # the samples, laid out like ``input``
        array[...] = _array_of(sample)
        return _make(array, requires_grad, device)
    draw = _cpu_random.uniform if kind == "uniform" else _cpu_random.normal

    def fill(array):        # torch fills the strided result as normal_/uniform_ do
        options = {"contiguous": array.flags.c_contiguous} if kind == "normal" else {}
        array[...] = _cpu_random.in_memory_order(
            lambda shape: draw(_generator(None), shape, array.dtype, **options), array.shape,
            array.strides)
    return _make(_empty_like(input, dtype, fill=fill), requires_grad, device)


def _random_like_in(kind, input, dtype, device, requires_grad, memory_format):
    """rand_like / randn_like with a memory format: the samples drawn in the memory order
    of the laid-out result, as torch's fill draws them."""
    if memory_format is None or memory_format is _memory_format.preserve_format:
        return _random_like(kind, input, dtype, device, requires_grad)
    result = empty_like(input, dtype=dtype, device=device, memory_format=memory_format)
    (result.uniform_() if kind == "uniform" else result.normal_())
    return result.requires_grad_() if requires_grad else result


def rand_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _random_like_in("uniform", input, dtype, device, requires_grad, memory_format)


def randn_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _random_like_in("normal", input, dtype, device, requires_grad, memory_format)


def randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False):
    """Integers uniform on [low, high); ``randint(high, size)`` also works."""
    if size is None or high is None:        # randint(high, size) or randint(high, size=)
        low, high, size = 0, low, high if size is None else size
    if high is None or size is None:
        raise TypeError("randint() missing required arguments: 'high' and 'size'")
    numpy_dtype = np.dtype(_numpy_dtype(dtype, np.int64))
    low, high = _cpu_random.random_bounds(low, high, _dtypes.from_numpy_dtype(numpy_dtype))
    shape = _size((size,))

    def fill(array):
        array[...] = _cpu_random.integers(_generator(generator), shape, array.dtype, low, high)
    return _make(_allocate(shape, numpy_dtype, fill), requires_grad, device)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None,
                 device=None, requires_grad=False, memory_format=None):
    """Integers uniform on [low, high) in a tensor like ``input`` (its dtype unless
    ``dtype``); ``randint_like(input, high)`` also works. Drawn by ``random_``, as torch's."""
    if high is None:
        low, high = 0, low
    result = empty_like(input, dtype=dtype, device=device, memory_format=memory_format)
    result.random_(low, high, generator=generator)
    return result.requires_grad_() if requires_grad else result


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of ``0 .. n-1`` (int64 by default)."""
    numpy_dtype = np.dtype(_numpy_dtype(dtype, np.int64))
    _size((n,))
    kind = _dtypes.from_numpy_dtype(numpy_dtype)
    if kind.is_complex or kind == _dtypes.bool:
        raise NotImplementedError(f"\"randperm\" not implemented for '{kind._scalar_name}'")
    if kind.is_floating_point and n > 2 ** (np.finfo(numpy_dtype).nmant + 1) + 1:
        raise RuntimeError(f"n cannot be greater than {2 ** (np.finfo(numpy_dtype).nmant + 1) + 1}"
                           f" for {kind._scalar_name} type.")
    if not kind.is_floating_point:
        _check_convertible(n - 1, numpy_dtype, True)
    order = _cpu_random.permutation(_generator(generator), builtins.int(n))
    return _make(order.astype(numpy_dtype), requires_grad, device)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """Values from ``start`` to ``end`` (exclusive) by ``step``; int64 unless a float is given."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    values = [start, end, step]
    values = [v.item() if isinstance(v, Tensor) else v for v in values]
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    is_float = any(isinstance(v, builtins.float) for v in values)
    default = _default_float() if is_float else np.int64
    array = np.arange(*values, dtype=np.float64 if is_float else np.int64)
    return _make(array.astype(_numpy_dtype(dtype, default)), requires_grad, device)


def range(start=0, end=None, step=1, *, dtype=None, layout=None, device=None,
          requires_grad=False):
    """Deprecated: values from ``start`` to ``end`` *inclusive* by ``step``, in the default
    float dtype unless ``dtype`` (``arange`` excludes ``end``)."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if end is None:
        start, end = 0, start
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = builtins.int((end - start) / step) + 1
    array = start + np.arange(count, dtype=np.float64) * step
    return _make(array.astype(_numpy_dtype(dtype, _default_float())), requires_grad, device)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    for name, value in (("start", start), ("end", end)):
        if isinstance(value, Tensor) and value.dim():
            raise RuntimeError(f"linspace only supports 0-dimensional start and end tensors, "
                               f"but got {name} with {value.dim()} dimension(s).")
    start, end = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    default = _default_float()
    if isinstance(start, complex) or isinstance(end, complex):
        default = np.result_type(default, np.complex64)
    return _make(_spaced(start, end, steps, np.dtype(_numpy_dtype(dtype, default))),
                 requires_grad, device)


def _spaced(start, end, steps, dtype):
    """linspace's values as torch's kernel computes them, in ``dtype`` (double for an
    integer one): ``start + step * i`` for the first half, ``end - step * (steps - 1 - i)``
    for the second, so both ends are exact."""
    if steps <= 1:
        return np.full(steps, start, dtype=dtype)
    work = np.float64 if dtype.kind in "iub" else dtype.type
    # the ends in dtype first (-3 as uint8 is 253), as torch's
    first, last = (work(np.asarray(v).astype(dtype)) for v in (start, end))
    step = (last - first) / work(steps - 1)
    # torch's vectorized float kernel fuses the multiply-add (one rounding): a wider
    # type's product and sum, rounded once, give its values (complex: not fused)
    wide = _FUSED.get(np.dtype(work), work)
    index = np.arange(steps)
    first, last, step = wide(first), wide(last), wide(step)
    with np.errstate(all="ignore"):
        values = np.where(index < steps // 2, first + step * index.astype(wide),
                          last - step * (steps - 1 - index).astype(wide))
    return values.astype(work).astype(dtype)


_FUSED = {np.dtype(np.float64): np.longdouble, np.dtype(np.float32): np.float64}


def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None,
             requires_grad=False):
    """``steps`` values from ``base ** start`` to ``base ** end``, evenly spaced in the
    exponent (computed in float64, cast to ``dtype``: an integer dtype truncates)."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    with _FloatingPointErrorsIgnored():
        array = np.power(builtins.float(base), np.linspace(start, end, steps))
    return _make(array.astype(_numpy_dtype(dtype, _default_float())), requires_grad, device)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    """The identity matrix (``n`` x ``m``)."""
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    array = _allocate((n, n if m is None else m), _numpy_dtype(dtype, _default_float()), _ZEROED)
    np.fill_diagonal(array, 1)
    return _make(array, requires_grad, device)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """An uninitialised tensor of ``size`` laid out with ``stride`` (in elements) over
    storage just large enough for it."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality "
                           f"of strides ({len(stride)})")
    _size((size,))
    extent = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    storage = empty(extent, dtype=dtype, device=device)
    result = storage.as_strided(size, stride).detach()
    return result.requires_grad_() if requires_grad else result


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An uninitialised tensor of ``size`` whose dims lie in memory in the order
    ``physical_layout`` names them, outermost first (a permutation of a row-major
    tensor)."""
    size, physical_layout = tuple(size), tuple(physical_layout)
    ndim = len(size)
    if len(physical_layout) != ndim:
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {ndim} is not equal to "
                           f"len(physical_layout) = {len(physical_layout)}")
    seen = set()
    for index, dim in enumerate(physical_layout):
        if not 0 <= dim < ndim:
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and "
                               f"{ndim - 1}, but got {dim} at index {index}).  NB: negative "
                               f"dims not currently supported; file an issue if you want it.")
        if dim in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(dim)
    physical = empty(*(size[dim] for dim in physical_layout), dtype=dtype, device=device)
    if requires_grad and not (physical.dtype.is_floating_point or physical.dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    inverse = [0] * ndim
    for index, dim in enumerate(physical_layout):
        inverse[dim] = index
    result = physical.permute(*inverse) if ndim else physical
    return result.requires_grad_() if requires_grad else result


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """A 0-d tensor holding the number ``s``, in the default float dtype unless ``dtype``."""
    _check_number("scalar_tensor", s, "s", 1)
    return full((), s, dtype=_default_float_dtype() if dtype is None else dtype, device=device,
                requires_grad=requires_grad)


def _default_float_dtype():
    return _dtypes.get_default_dtype()


def is_inference(input):
    """Was ``input`` made in inference mode? (``torch.is_inference``)"""
    if not isinstance(input, Tensor):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.is_inference()


def _legacy_new(dtype, args):
    """``torch.FloatTensor(...)`` and ``x.new(...)``: sizes give an uninitialised tensor, a
    sequence or array gives its data, nothing gives an empty 1-D tensor."""
    if not args:
        return empty(0, dtype=dtype)
    if len(args) == 1 and isinstance(args[0], Tensor):
        if args[0].dtype is not dtype:
            raise TypeError(f"expected {dtype} (got {args[0].dtype})")
        return args[0].detach()
    if len(args) == 1 and isinstance(args[0], Size):
        return empty(*args[0], dtype=dtype)
    if all(isinstance(n, (builtins.int, np.integer)) for n in args):
        return empty(*args, dtype=dtype)
    if len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)):
        return tensor(args[0], dtype=dtype)
    raise TypeError(f"new(): invalid data type '{type(args[-1]).__name__}'")


class _LegacyTensorType(type):
    """``isinstance(x, autograd_cy.LongTensor)`` is true for int64 tensors, as in PyTorch."""

    def __instancecheck__(cls, value):
        return isinstance(value, Tensor) and value.dtype is cls.dtype

    def __repr__(cls):
        return f"<class 'autograd_cy.{cls.__name__}'>"


def _legacy_type(name, dtype):
    def __new__(cls, *args, device=None):
        return _legacy_new(cls.dtype, args)
    return _LegacyTensorType(name, (), {"dtype": dtype, "__new__": __new__,
                                        "__doc__": f"The legacy constructor of {dtype} "
                                                   "tensors."})


FloatTensor = _legacy_type("FloatTensor", _dtypes.float32)
DoubleTensor = _legacy_type("DoubleTensor", _dtypes.float64)
HalfTensor = _legacy_type("HalfTensor", _dtypes.float16)
LongTensor = _legacy_type("LongTensor", _dtypes.int64)
IntTensor = _legacy_type("IntTensor", _dtypes.int32)
ShortTensor = _legacy_type("ShortTensor", _dtypes.int16)
CharTensor = _legacy_type("CharTensor", _dtypes.int8)
ByteTensor = _legacy_type("ByteTensor", _dtypes.uint8)
BoolTensor = _legacy_type("BoolTensor", _dtypes.bool)
