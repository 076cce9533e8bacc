"""DeviceArray: the array a CUDA tensor holds.

The ops of the core are written once, against NumPy's API (``np.exp(a)``, ``np.add(a, b,
out=a)``, ``a.sum(axis)``, ``np.where(c, a, b)``). A DeviceArray implements NumPy's two
dispatch protocols, ``__array_ufunc__`` and ``__array_function__``, so each of those calls
arrives here, is checked (devices, dtypes), and becomes one launch of a kernel of
``cuda/*.cu`` through the device's seam. That is how ops never branch on the device: NumPy
asks the array's type once, and the type is the backend.

A DeviceArray wraps the seam's raw array (a ``cupy.ndarray`` on a GPU, a NumPy array on the
emulated device) and reads only its metadata; views (slicing, transpose, broadcast,
reshape) are metadata too, and every computation is a kernel. A NumPy function this backend
does not implement raises a TypeError that names it; nothing falls back to the host
silently, and ``numpy.asarray(device_array)`` refuses as ``Tensor.numpy()`` does in torch.
"""
import operator

import ml_dtypes  # noqa: F401  (registers the "bfloat16" dtype name the manifest uses)
import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from autograd_cy.cuda import manifest
from autograd_cy.cuda.launch import elementwise_config
from autograd_cy.cuda.layout import broadcast_strides, contiguous_strides, elementwise_layout

# The C type of each dtype in name expressions, and the C type of a scalar operand.
# NOTE [The array's operations]
# This module holds the array: its data, views, copies and host transfers. The modules that
# implement NumPy's protocols on it (dispatch: ufuncs, functions and reductions; indexing:
# gathers and scatters; rows: the device-side asserts) import it, and register their entry
# points here when they are imported (register_operations), so this module imports none of
# them and no import runs in a method. autograd_cy.cuda imports every one of them first.
_operations = {}


def register_operations(**functions):
    """Make ``functions`` the array's operations of those names (see the NOTE above)."""
    _operations.update(functions)


_CTYPES = {np.dtype(name): ctype for name, ctype in manifest.STORAGE_CTYPES.items()}
_SCALAR_DTYPES = {np.dtype(name): np.dtype(manifest.scalar_param(name)).type
                  for name in manifest.STORAGE_CTYPES}


def floating(dtype):
    """Whether the kernels treat ``dtype`` as a float: float16/32/64 and bfloat16 (whose kind
    is "V" in ml_dtypes, so ``dtype.kind == "f"`` misses it: NOTE [bfloat16's kind] in
    pyx/dtype.pxd)."""
    return dtype.name in manifest.FLOAT_CTYPES


def mixed_devices_error(first, second):
    return RuntimeError("Expected all tensors to be on the same device, but found at least "
                        f"two devices, {first} and {second}!")


def _device_name(array):
    return f"cuda:{array.device.id}" if isinstance(array, DeviceArray) else "cpu"


class DeviceArray(NDArrayOperatorsMixin):
    """An n-dimensional array in the memory of one CUDA device (see the module docstring)."""

    __slots__ = ("_raw", "device")
    __array_priority__ = 1000

    def __init__(self, raw, device):
        self._raw = raw
        self.device = device

    # ---------------------------------------------------------------- metadata
    shape = property(lambda self: self._raw.shape)
    strides = property(lambda self: self._raw.strides)
    dtype = property(lambda self: self._raw.dtype)
    ndim = property(lambda self: self._raw.ndim)
    size = property(lambda self: self._raw.size)
    itemsize = property(lambda self: self._raw.itemsize)
    nbytes = property(lambda self: self._raw.nbytes)
    flags = property(lambda self: self._raw.flags)
    raw = property(lambda self: self._raw, doc="the seam's array (cupy.ndarray on a GPU)")
    base = property(lambda self: self._raw.base, doc="None when this array owns its memory")

    @property
    def element_strides(self):
        itemsize = self._raw.itemsize
        return tuple(s // itemsize for s in self._raw.strides)

    def data_ptr(self):
        raw = self._raw
        if isinstance(raw, np.ndarray):     # the emulated device (raw.data, a memoryview,
            return raw.ctypes.data          # refuses bfloat16)
        return raw.data.ptr

    def __len__(self):
        if self._raw.ndim == 0:
            raise TypeError("len() of unsized object")
        return self._raw.shape[0]

    def __repr__(self):
        return f"DeviceArray({self.get()!r}, device=cuda:{self.device.id})"

    # ---------------------------------------------------------------- host transfers
    def get(self):
        """A NumPy copy of this array in host memory (CuPy's name for it); a device-side
        assert flagged since the last host read raises here (NOTE [Device-side asserts])."""
        _operations["check_device_asserts"](self.device)
        return self.device.seam.to_host(self._raw)

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"can't convert cuda:{self.device.id} device type tensor to numpy. "
                        "Use Tensor.cpu() to copy the tensor to host memory first.")

    def item(self):
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self.get().item()

    def tolist(self):
        return self.get().tolist()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        return operator.index(self.item())

    def __bool__(self):
        return bool(self.item())

    # ---------------------------------------------------------------- views (metadata only)
    def _view(self, raw):
        return DeviceArray(raw, self.device)

    def __getitem__(self, key):
        """Basic indexing (ints, slices, None, Ellipsis) is a view; a key with index arrays
        or bool masks is a gather (NOTE [An index as a view and a gather] in indexing.py)."""
        if _is_basic(key):
            parts = key if isinstance(key, tuple) else (key,)
            if Ellipsis not in parts:
                parts += (Ellipsis,)    # a view even when every dim is indexed away (0-d)
            return self._view(self._raw[parts])
        return _operations["take"](self, key)

    def nonzero(self):
        return _operations["nonzero"](self)

    def transpose(self, *axes):
        return self._view(self._raw.transpose(*axes))

    @property
    def T(self):
        return self.transpose()

    def swapaxes(self, a, b):
        return self._view(self._raw.swapaxes(a, b))

    def squeeze(self, axis=None):
        return self._view(self._raw.squeeze(axis))

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        shape = resolve_shape(tuple(int(s) for s in shape), self.size)
        strides = view_strides(self.shape, self.element_strides, shape)
        source = self
        if strides is None:           # not expressible as a view: copy, then view
            source = self.copy()
            strides = view_strides(source.shape, source.element_strides, shape)
        itemsize = self.itemsize
        return self._view(self.device.seam.as_strided(
            source._raw, shape, tuple(s * itemsize for s in strides)))

    def ravel(self):
        return self.reshape(-1)

    def view(self, dtype=None):
        """A view of the same memory; with ``dtype``, read as that dtype, by NumPy's (and
        CuPy's) rules: view_as_real and view_as_complex take complex numbers as pairs of
        reals and back."""
        if dtype is not None and np.dtype(dtype) != self.dtype:
            return self._view(self._raw.view(np.dtype(dtype)))
        return self._view(self._raw.view())

    # NOTE [Parts of a complex array]
    # A complex element is its real part, then its imaginary part, in memory: each part of a
    # complex array is a strided view of the real dtype (twice the element stride, the
    # imaginary part one real further on), as NumPy's and CuPy's .real and .imag are. A real
    # array is its own real part, and its imaginary part is zeros (a new array here, where
    # NumPy gives a read-only one).
    @property
    def real(self):
        return self._view(self._raw.real) if self.dtype.kind == "c" else self

    @real.setter
    def real(self, value):
        self.real[...] = value

    @property
    def imag(self):
        if self.dtype.kind == "c":
            return self._view(self._raw.imag)
        result = empty(self.shape, self.dtype, self.device)
        fill_array(result, 0)
        return result

    @imag.setter
    def imag(self, value):
        if self.dtype.kind != "c":
            raise TypeError("array does not have imaginary part to set")
        self.imag[...] = value

    def conjugate(self):
        return np.conjugate(self)

    conj = conjugate

    def as_strided(self, shape, strides):
        """A view of this array's memory with ``shape`` and ``strides`` (bytes, from its
        element 0), as NumPy's as_strided: the caller keeps the view inside the memory."""
        return self._view(self.device.seam.as_strided(self._raw, tuple(shape), tuple(strides)))

    def broadcast_to(self, shape):
        shape = tuple(shape)
        strides = broadcast_strides(shape, self.shape, self.element_strides)
        if any(n != s and s != 1 for n, s in zip(shape[len(shape) - self.ndim:], self.shape)):
            raise ValueError(f"operands could not be broadcast together with remapped shapes "
                             f"{self.shape} and requested shape {shape}")
        return self._view(self.device.seam.as_strided(
            self._raw, shape, tuple(s * self.itemsize for s in strides)))

    # ---------------------------------------------------------------- copies and fills
    def copy(self, order="C"):
        """A copy in C order, or with ``order="K"`` in this array's memory order when it is
        dense (torch's clone keeps a transposed tensor's strides)."""
        out = (empty_in_order(self.shape, self.dtype, self.device, (self,)) if order == "K"
               else empty(self.shape, self.dtype, self.device))
        copy_into(out, self)
        return out

    def astype(self, dtype, copy=True, order="K", casting="unsafe"):
        dtype = np.dtype(dtype)
        if dtype == self.dtype and not copy:
            return self
        out = (empty_in_order(self.shape, dtype, self.device, (self,)) if order == "K"
               else empty(self.shape, dtype, self.device))
        copy_into(out, self)
        return out

    def fill(self, value):
        fill_array(self, value)

    def __setitem__(self, key, value):
        if (isinstance(key, DeviceArray) and key.dtype == np.bool_ and key.shape == self.shape
                and (not isinstance(value, DeviceArray) or value.size == 1)):
            _masked_fill(self, key, value)      # x[mask] = v: a where() into x itself
            return
        if not _is_basic(key):
            _operations["put"](self, key, value)    # x[index] = v: a scatter
            return
        target = self[key]
        if isinstance(value, DeviceArray):
            check_same_device(target, value)
            copy_into(target, value)
        elif isinstance(value, np.ndarray) and value.ndim > 0:
            raise mixed_devices_error(_device_name(self), "cpu")
        else:
            fill_array(target, value)

    # ---------------------------------------------------------------- fused formulas
    def fused(self, template, operands=(), scalars=()):
        """One launch of ``template<T>`` (a fused formula of cuda/pointwise_backward.cu) over
        this array and ``operands``, all of this shape: NOTE [Fused formulas on CUDA]."""
        name = kernel_name(template, self.dtype)
        require_kernel(name, f"{template} of {self.dtype}")
        out = empty_in_order(self.shape, self.dtype, self.device, (self,) + tuple(operands))
        return launch_elementwise(name, out, (self,) + tuple(operands),
                                  tuple(scalar_operand(s, self.dtype) for s in scalars))

    def fused_pair(self, template, a, b, needs=(True, True)):
        """Both gradients of a binary op in one launch (``mul_backward`` ...): this array is
        the incoming gradient; outputs share one layout slot (NOTE [Two gradients in one
        pass] in cuda/pointwise_backward.cu); an output not needed is a null pointer, and so
        is an input (None) that only such an output's formula reads."""
        name = kernel_name(template, self.dtype)
        require_kernel(name, f"{template} of {self.dtype}")
        shape = self.shape
        outs = [empty(shape, self.dtype, self.device) if need else None for need in needs]
        if self.size:
            inputs = (self, a, b)
            strides = [contiguous_strides(shape)] + [
                (0,) * len(shape) if x is None else
                broadcast_strides(shape, x.shape, x.element_strides) for x in inputs]
            seam = self.device.seam
            grid, block = elementwise_config(self.size, seam)
            seam.launch(name, grid, block,
                        (elementwise_layout(shape, strides), np.int64(self.size))
                        + tuple(o._raw if o is not None else None for o in outs)
                        + tuple(None if x is None else x._raw for x in inputs))
        return tuple(outs)

    def apply_functor(self, functor):
        """``unary<T, functor>``: an elementwise function NumPy has no ufunc for (Gelu ...)."""
        name = kernel_name("unary", self.dtype, functor)
        require_kernel(name, f"{functor} of {self.dtype}")
        return launch_elementwise(
            name, empty_in_order(self.shape, self.dtype, self.device, (self,)), (self,))

    # ---------------------------------------------------------------- reductions
    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return _reduce("sum", self, axis, keepdims, dtype, out)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return _reduce("prod", self, axis, keepdims, dtype, out)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return _reduce("mean", self, axis, keepdims, dtype, out)

    def max(self, axis=None, out=None, keepdims=False):
        return _reduce("amax", self, axis, keepdims, None, out)

    def min(self, axis=None, out=None, keepdims=False):
        return _reduce("amin", self, axis, keepdims, None, out)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None):
        return _reduce("var", self, axis, keepdims, dtype, out,
                       correction=ddof if correction is None else correction)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None):
        return _reduce("std", self, axis, keepdims, dtype, out,
                       correction=ddof if correction is None else correction)

    def any(self, axis=None, out=None, keepdims=False):
        return np.any(self, axis=axis, keepdims=keepdims)

    def all(self, axis=None, out=None, keepdims=False):
        return np.all(self, axis=axis, keepdims=keepdims)

    def argmax(self, axis=None, out=None, keepdims=False):
        return _argreduce("argmax", self, axis, keepdims)

    def argmin(self, axis=None, out=None, keepdims=False):
        return _argreduce("argmin", self, axis, keepdims)

    # ---------------------------------------------------------------- NumPy's protocols
    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        return _operations["ufunc"](ufunc, method, inputs, out, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _operations["array_function"](func, args, kwargs)


# -------------------------------------------------------------------- construction

def empty_in_order(shape, dtype, device, arrays):
    """An uninitialised result of ``shape`` laid out in the inputs' memory order when they
    all share one (each dense in the order of the first's strides, largest first), as
    NumPy's concatenate and ufuncs keep it; C order otherwise."""
    arrays = [a for a in arrays if isinstance(a, DeviceArray) and a.ndim == len(shape)]
    if not arrays or len(shape) < 2:
        return empty(shape, dtype, device)
    order = sorted(range(len(shape)), key=lambda d: -arrays[0].strides[d])
    if order == list(range(len(shape))) or not all(
            a.transpose(order).flags.c_contiguous for a in arrays):
        return empty(shape, dtype, device)
    result = empty(tuple(shape[dim] for dim in order), dtype, device)
    return result.transpose(tuple(np.argsort(order)))


def require_storage(dtype, device):
    """Refuse a dtype that the device's seam cannot hold, where the array is made, rather
    than at the first kernel the array meets."""
    reason = device.seam.unsupported_dtypes.get(dtype.name)
    if reason:
        raise NotImplementedError(f"{dtype.name} tensors on cuda:{device.id}: {reason}")


def empty(shape, dtype, device):
    """A new, contiguous, uninitialised DeviceArray."""
    dtype = np.dtype(dtype)
    require_storage(dtype, device)
    return DeviceArray(device.seam.empty(tuple(shape), dtype), device)


# NOTE [Layout of empty_like]
# NumPy's ``empty_like(a, order="K")`` lays the new array out in the dim order of ``a``: dims
# sorted by decreasing |stride| (a stable sort, so ties and broadcast dims keep their place),
# the result a dense array in that order, seen through the inverse permutation. A CUDA
# array follows the same rule, so both devices agree: the leaf gradient's layout rule
# (pyx/accumulate_grad.pyx) gives a transposed leaf a transposed ``.grad``, and an
# elementwise result keeps its input's layout (a permuted tensor times 2 is permuted), as on
# the CPU and in torch.

def empty_in_layout_of(prototype, dtype=None):
    """A new DeviceArray of ``prototype``'s shape and device, laid out in its dim order."""
    dtype = prototype.dtype if dtype is None else np.dtype(dtype)
    if prototype.ndim < 2:
        return empty(prototype.shape, dtype, prototype.device)
    strides = prototype.strides
    outer_first = sorted(range(prototype.ndim), key=lambda dim: -abs(strides[dim]))
    result = empty(tuple(prototype.shape[dim] for dim in outer_first), dtype, prototype.device)
    return result.transpose(tuple(np.argsort(outer_first)))


def from_host(array, device):
    """A DeviceArray holding a copy of the NumPy ``array``."""
    array = np.asarray(array)
    require_storage(array.dtype, device)
    return DeviceArray(device.seam.from_host(array), device)


# -------------------------------------------------------------------- shapes

def resolve_shape(shape, size):
    """``shape`` with its -1 (if any) worked out for ``size`` elements, as reshape takes it."""
    if shape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    if -1 in shape:
        known = 1
        for s in shape:
            if s != -1:
                known *= s
        shape = tuple(size // known if s == -1 and known else (0 if s == -1 else s)
                      for s in shape)
    if int(np.prod(shape, dtype=np.int64)) != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {shape}")
    return shape


def view_strides(old_shape, old_strides, new_shape):
    """The element strides of ``new_shape`` viewing memory laid out as (old_shape,
    old_strides), or None when only a copy can have that shape.

    The old dims fall into chunks, runs of dims each of which steps over exactly the next
    one (contiguous among themselves). A view may regroup the dims inside one chunk
    freely, but no new dim may straddle two chunks. Walk both shapes from the innermost
    dim, chunk by chunk, and give each new dim the stride of its place in its chunk."""
    if 0 in old_shape or 0 in new_shape or not old_shape:
        old_shape, old_strides = (old_shape or (1,)), (old_strides or (1,))
        if 0 in old_shape or 0 in new_shape:
            return contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_strides[-1]
    chunk_numel = view_numel = 1
    for d in range(len(old_shape) - 1, -1, -1):
        chunk_numel *= old_shape[d]
        chunk_ends = d == 0 or (old_shape[d - 1] != 1 and
                                old_strides[d - 1] != chunk_numel * chunk_base_stride)
        if chunk_ends:
            while view_d >= 0 and (view_numel < chunk_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != chunk_numel:
                return None
            if d > 0:
                chunk_base_stride = old_strides[d - 1]
                chunk_numel = view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def _is_basic(key):
    """Whether ``key`` indexes with ints, slices, None and Ellipsis only (a view)."""
    for part in (key if isinstance(key, tuple) else (key,)):
        if not (part is None or part is Ellipsis or isinstance(part, slice)
                or (isinstance(part, (int, np.integer))
                    and not isinstance(part, (bool, np.bool_)))):
            return False
    return True


# -------------------------------------------------------------------- launches

def check_same_device(*arrays):
    """Raise torch's mixed-devices error when the DeviceArrays among ``arrays`` are on two
    devices, or one of ``arrays`` is a NumPy array that is not 0-d (a CPU tensor's)."""
    first = None
    for a in arrays:
        if isinstance(a, DeviceArray):
            if first is None:
                first = a
            elif a.device.id != first.device.id:
                raise mixed_devices_error(_device_name(first), _device_name(a))
        elif isinstance(a, np.ndarray) and a.ndim > 0:
            raise mixed_devices_error(_device_name(first) if first is not None else "cuda:0",
                                      "cpu")


def launch_elementwise(family_name, out, inputs, scalars=()):
    """One launch of an elementwise kernel: ``out`` (a DeviceArray of the broadcast shape)
    and the DeviceArray ``inputs`` as NOTE [Layout] describes them, then the scalars."""
    n = out.size
    if n == 0:
        return out
    shape = out.shape
    strides = [out.element_strides] + [
        broadcast_strides(shape, a.shape, a.element_strides) for a in inputs]
    layout = elementwise_layout(shape, strides)
    seam = out.device.seam
    grid, block = elementwise_config(n, seam)
    seam.launch(family_name, grid, block,
                (layout, np.int64(n), out._raw) + tuple(a._raw for a in inputs) + tuple(scalars))
    return out


def kernel_name(template, *args):
    """``unary<float, Exp>`` from ("unary", dtype, "Exp"): dtypes become their C types."""
    parts = [_CTYPES[a] if isinstance(a, np.dtype) else a for a in args]
    return f"{template}<{', '.join(parts)}>"


def require_kernel(name, what):
    """The manifest entry ``name``, or a TypeError that says which op lacks a kernel (for a
    complex dtype, torch's words for an op its CUDA kernels lack: a NotImplementedError,
    which is a RuntimeError as torch's is)."""
    try:
        return manifest.lookup(name)
    except KeyError:
        for dtype, ctype in manifest.COMPLEX_CTYPES.items():
            if ctype in name:
                raise NotImplementedError(
                    f'"{what}" not implemented for \'{_TORCH_NAMES[dtype]}\' on CUDA '
                    f"(autograd_cy has no kernel {name} in autograd_cy/cuda/manifest.py; "
                    "the CPU has it)") from None
        raise TypeError(f"autograd_cy's CUDA backend has no kernel for {what} "
                        f"(looked for {name} in autograd_cy/cuda/manifest.py)") from None


_TORCH_NAMES = {"complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def scalar_operand(value, dtype):
    """A Python or NumPy number as the exact C type a kernel of ``dtype`` takes."""
    if isinstance(value, DeviceArray):
        value = value.item()            # a 0-d device array used as a number: read it
    return _SCALAR_DTYPES[np.dtype(dtype)](value)


def copy_into(out, source):
    """out[...] = source, broadcasting and converting dtype: one ``cast`` launch."""
    name = kernel_name("cast", source.dtype, out.dtype)
    require_kernel(name, f"a copy from {source.dtype} to {out.dtype}")
    launch_elementwise(name, out, (source,))


def _masked_fill(out, mask, value):
    """``out[mask] = value`` for a bool mask of out's shape and one value: one ``where``
    launch writing into ``out`` (each element reads only its own position, so the aliasing
    is safe)."""
    if isinstance(value, DeviceArray):
        value = value.reshape(())
    else:
        filled = empty((), out.dtype, out.device)
        fill_array(filled, value)
        value = filled
    value = value.astype(out.dtype, copy=False)
    name = kernel_name("where", out.dtype)
    require_kernel(name, f"x[mask] = v of {out.dtype}")
    launch_elementwise(name, out, (mask, value, out))


def fill_array(out, value):
    """out[...] = value for one number: one ``fill`` launch."""
    name = kernel_name("fill", out.dtype)
    require_kernel(name, f"fill of {out.dtype}")
    launch_elementwise(name, out, (), (scalar_operand(value, out.dtype),))


def _reduce(op, x, axis, keepdims, dtype, out, **options):
    return _operations["reduce"](op, x, axis, keepdims, dtype, out, **options)


def _argreduce(op, x, axis, keepdims):
    return _operations["argreduce"](op, x, axis, keepdims)
