"""``autograd_cy.device``: where a tensor's array lives (``cpu`` or ``cuda:N``)."""

__all__ = ["device"]

import numpy as np

cimport numpy as cnp
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF

cnp.import_array()

cdef extern from "numpy/arrayobject.h":
    # (numpy's own .pxd leaves it out) steals a reference to ``descr``
    object PyArray_NewFromDescr(type subtype, cnp.PyArray_Descr* descr, int nd, cnp.npy_intp* dims,
                                cnp.npy_intp* strides, void* data, int flags, PyObject* obj)


cdef class device:
    """A device, parsed like ``torch.device``.

    >>> ag.device("cuda:1"), ag.device("cpu") == "cpu"
    (device(type='cuda', index=1), True)
    """

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = (<device>type).type, (<device>type).index
        elif ":" in type:
            type, _, number = type.partition(":")
            index = int(number)
        if type not in ("cpu", "cuda", "meta"):
            raise RuntimeError(
                f"Expected one of cpu, cuda, meta device type at start of device string: "
                f"{type}")
        self.type = type
        self.index = index

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return (isinstance(other, device) and self.type == (<device>other).type
                and self.index == (<device>other).index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __reduce__(self):
        return (device, (self.type, self.index))

    # ``with device("meta"):`` makes it the factories' default device for the block (as
    # ``set_default_device``), the previous default back afterwards; blocks nest.
    def __enter__(self):
        _entered_defaults.append(default_device)
        set_default_device(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        set_default_device(_entered_defaults.pop())


CPU = device("cpu")


# The device factories use when given none (None: the CPU): ``set_default_device``, and
# ``with device(...)``. Kept here, below the factories, so that a device can be entered.
cdef object default_device = None
cdef list _entered_defaults = []


def set_default_device(target):
    """Make ``target`` (a device or its name; None: the CPU) the factories' default."""
    global default_device
    default_device = None if target is None else (
        target if isinstance(target, device) else device(target))


def get_default_device():
    """The factories' default device, or None for the CPU (set_default_device)."""
    return default_device


META = device("meta")


# NOTE [Meta tensors]
# A tensor on the meta device has a shape and a dtype and no data: torch uses it to describe
# a model without allocating it (``model.to("meta")`` as the stateless skeleton that
# ``func.functional_call`` fills with real tensors; ``Module.to_empty`` gives it storage
# later). Its array is a MetaArray, which has an array's metadata and no values. torch also
# computes ops on meta tensors (the result's shape only); autograd_cy does not: anything that
# reads values, an op included, raises, and only the copies that keep the metadata (``.to``
# a dtype, ``copy``) make new meta arrays.
_META_NO_OPS = ("autograd_cy runs no ops on meta tensors (a meta tensor has a shape and a "
                "dtype but no data): give the module real tensors with func.functional_call, "
                "or storage with Module.to_empty(device=...)")


class MetaArray:
    """A meta tensor's array: shape, dtype and row-major strides, no values (NOTE [Meta
    tensors])."""
    __slots__ = ("shape", "dtype", "ndim", "size", "itemsize", "strides")

    def __init__(self, shape, dtype):
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        self.ndim = len(self.shape)
        self.itemsize = self.dtype.itemsize
        size, strides = 1, []
        for n in reversed(self.shape):
            strides.append(size * self.itemsize)
            size *= n
        self.size = size
        self.strides = tuple(reversed(strides))

    def copy(self, order="C"):
        return MetaArray(self.shape, self.dtype)

    def astype(self, dtype, copy=True):
        return MetaArray(self.shape, dtype)

    def fill(self, value):
        """A factory's fill: nothing to write."""

    def _no_values(self, *args, **kwargs):
        raise NotImplementedError(_META_NO_OPS)

    __array__ = __array_ufunc__ = __array_function__ = __getitem__ = __setitem__ = _no_values
    reshape = view = item = tolist = transpose = sum = __len__ = __iter__ = _no_values
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _no_values
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _no_values
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = __neg__ = __pos__ = __abs__ = _no_values
    __lt__ = __le__ = __gt__ = __ge__ = __and__ = __or__ = __xor__ = __invert__ = _no_values
    __iadd__ = __isub__ = __imul__ = __itruediv__ = __bool__ = __float__ = __int__ = _no_values

    def __getattr__(self, name):        # anything else an op would read
        raise NotImplementedError(_META_NO_OPS)


# NOTE [The CUDA backend slot]
# The core moves arrays between devices (Tensor.to, .cuda(), .cpu(), factories' device=)
# but sits below the Python package that implements CUDA (autograd_cy/cuda), which it must
# not import. So that package fills this slot when it is imported, as the op modules fill
# TensorOperators: one Backend (NOTE [One backend interface]) that also has array_type
# (DeviceArray), to_cuda(array, index), to_host(array), namespace(index), device_index(i)
# and the stream methods of NOTE [Streams of backward]. The CPU backend's slot is filled the
# same way, by pyx/ops/cpu_backend.pyx: its typed loops sit in the op layer.
cdef object cuda_backend = None


cdef object cuda_array_type = None


cdef Backend cpu_backend = Backend()


def set_cuda_backend(backend):
    global cuda_backend, cuda_array_type
    if not isinstance(backend, Backend):
        raise TypeError(f"the CUDA backend must be a Backend, not {type(backend).__name__}")
    cuda_backend = backend
    cuda_array_type = backend.array_type


def set_cpu_backend(Backend backend not None):
    global cpu_backend
    cpu_backend = backend


cdef bint cuda_streams_seen = False


cdef object current_stream(int index):
    """The current stream of cuda:index, as the backend's seam names it: what a CUDA
    output records in its gradient metadata (the stream its backward node will run on)."""
    global cuda_streams_seen
    cuda_streams_seen = True
    return cuda_backend.current_stream(index)


cdef bint streams_in_use():
    """Whether any CUDA output has been recorded in this process: until then the engine
    skips its stream bookkeeping (NOTE [Streams of backward]), and the CPU pays one test."""
    return cuda_streams_seen


cdef object backend():
    """The CUDA backend (NOTE [The CUDA backend slot]); None before it is imported."""
    return cuda_backend


cdef class Backend:
    """What an op may ask of the device of its arrays (NOTE [One backend interface] in
    device.pxd). This base serves nothing: each method answers None ("no fused path: run
    the NumPy formula"), False, or the plain loop."""

    cpdef object fused(self, str formula, object grad, object operand, tuple scalars=()):
        """The backward formula ``formula`` (a template of cuda/pointwise_backward.cu:
        ``tanh_backward``, ``gelu_backward`` ...) of the incoming gradient ``grad`` and one
        saved array ``operand``, with ``scalars`` (threshold_backward's threshold ...), in
        one pass; the result has ``grad``'s shape and dtype. None where not served."""
        return None

    cpdef tuple fused_pair(self, str formula, object grad, object a, object b, bint need_a,
                           bint need_b):
        """Both input gradients of a binary op (``mul_backward``, ``div_backward``) from
        ``grad`` and the saved operands ``a`` and ``b`` in one pass: ``(grad_a, grad_b)``,
        each None unless ``need_a`` / ``need_b`` (an operand only such a formula reads may
        be None). None where not served."""
        return None

    cpdef object unary(self, str functor, object x):
        """An elementwise function NumPy has no ufunc for (``Gelu``, ``Silu``, ``Sigmoid``
        in one pass) of ``x``. None where not served."""
        return None

    cpdef object rows(self, str formula, tuple arrays, Py_ssize_t dim, tuple scalars=()):
        """``softmax_forward`` (arrays ``(x,)``) or ``softmax_backward`` (``(grad,
        output)``) along ``dim``, scalars ``(take_log,)``. None where not served."""
        return None

    cpdef object loss(self, str name, tuple arrays, tuple options):
        """The loss ``name`` with its reduction. ``nll_loss``: arrays ``(input, target,
        weight, total_weight)``, options ``(reduction, ignore_index)``, gives ``(loss,
        total_weight)``; ``nll_loss_backward``: arrays ``(grad, input, target, weight,
        total_weight)``, the same options; ``mse_loss`` and ``binary_cross_entropy``:
        ``(input, target, weight)``, ``(reduction,)``; their ``_backward``: ``(input, target,
        grad)``, ``(divisor,)``. None where not served."""
        return None

    cpdef bint has_gemm(self, object array) except -1:
        """Whether ``gemm`` serves matrices like ``array`` (its dtype, on this backend)."""
        return False

    cpdef tuple gemm(self, object a, object b, object alpha, object bias=None, object beta=1,
                     bint column_sums=False):
        """``(alpha * (a @ b) + beta * bias, beta * b.sum(0) or None)`` in one pass (no bias
        term when ``bias`` is None; its values ignored when ``beta`` is 0, NaN included, as
        in addmm). None where not served."""
        return None

    cpdef bint can_add_in_place_together(self, object out, object addend) except -1:
        """Whether ``out += addend`` may wait for one ``add_in_place_together`` with others
        (NOTE [Deferred gradient accumulation] in accumulate_grad.pyx)."""
        return False

    cpdef add_in_place_together(self, list pairs):
        """``out += addend`` for every ``(out, addend)`` of ``pairs``."""
        for out, addend in pairs:
            out += addend

    cpdef object current_stream(self, int index):
        """The current stream of device ``index``; None: this device has no streams."""
        return None


cdef Backend backend_of(object array):
    """The Backend of ``array``'s device: the CPU's for a NumPy array (one pointer compare)
    and for anything that is no array (a number: nothing to fuse), the CUDA backend's for a
    DeviceArray."""
    if type(array) is cnp.ndarray or type(array) is not cuda_array_type:
        return cpu_backend
    return <Backend>cuda_backend


cdef bint is_cuda_array(object array):
    """Whether ``array`` is the CUDA backend's array type (a DeviceArray)."""
    return cuda_array_type is not None and type(array) is cuda_array_type


cdef object array_to_device(object array, device target):
    """``array`` on ``target`` (the same object when it is already there)."""
    if target.type == "meta":       # NOTE [Meta tensors]
        return array if type(array) is MetaArray else MetaArray(array.shape, array.dtype)
    if type(array) is MetaArray:
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    if target.type == "cpu":
        if type(array) is cnp.ndarray:
            return array
        return cuda_backend.to_host(array)
    if cuda_backend is None:
        raise RuntimeError("Found no NVIDIA driver on your system.")
    return cuda_backend.to_cuda(array, target.index)


def _array_to_device(array, target):
    """Python access to array_to_device, for the factories."""
    return array_to_device(array, target if isinstance(target, device) else device(target))


cpdef device device_of(object array):
    """The device an array lives on: NumPy's on the CPU, a DeviceArray on its CUDA device."""
    if type(array) is cnp.ndarray:
        return CPU
    if type(array) is MetaArray:
        return META
    return device("cuda", array.device.id)


# NOTE [Fused formulas on CUDA]
# On the CPU a backward formula such as tanh's ``grad * (1 - y*y)`` is a few NumPy calls (or
# one typed loop for small arrays, kernels.pyx). On a CUDA device each NumPy call is a
# kernel launch and a pass over memory, so a formula runs as one launch of its fused kernel
# (cuda/pointwise_backward.cu) when nothing is recorded (no create_graph); so do softmax
# (cuda/softmax.cu), the losses (cuda/loss.cu) and addmm (cuda/gemm.cu). The ops ask the
# backend of their array (NOTE [One backend interface]); the CUDA backend launches, the
# CPU backend runs its loop or answers None, and the NumPy path runs unchanged.


cdef object array_namespace(object array):
    """The array library of ``array``: NumPy, or for a DeviceArray a NumPy-like namespace
    whose factories (zeros, ones, empty, full) make arrays on its device."""
    if type(array) is cnp.ndarray:
        return np
    return cuda_backend.namespace(array.device.id)


cdef object zeros_for_metadata(tuple metadata):
    """Zeros of a node's input metadata, ``(shape, dtype)`` on the CPU or ``(shape, dtype,
    device, stream)`` on a CUDA device: the gradient an output that received none stands for."""
    if len(metadata) == 2:
        return np.zeros(metadata[0], dtype=metadata[1])
    return cuda_backend.namespace((<device>metadata[2]).index).zeros(metadata[0], metadata[1])


cpdef device resolved_device(object spec):
    """A device with its index: ``"cuda"`` means the current CUDA device, as in torch;
    a CUDA device that does not exist raises here."""
    cdef device target = spec if isinstance(spec, device) else device(spec)
    if target.type == "cuda":
        if cuda_backend is None:
            raise RuntimeError("Found no NVIDIA driver on your system.")
        return device("cuda", cuda_backend.device_index(target.index))
    return target


# NOTE [Arrays of either device]
# np.asarray and np.ascontiguousarray do not take part in NumPy's dispatch: on a CUDA
# DeviceArray they would ask for a host copy (which it refuses). Ops that normalise a
# result (a NumPy scalar back to a 0-d array, a dtype, a layout) call these two instead.

cdef object as_array(object value, object dtype=None):
    """``value`` as an array of ``dtype`` (its own when None): arrays of either device stay
    where they are; NumPy scalars and Python numbers become 0-d NumPy arrays."""
    if type(value) is cnp.ndarray or is_cuda_array(value):
        if dtype is None or value.dtype == dtype:
            return value
        return value.astype(dtype)
    return np.asarray(value, dtype=dtype)


cdef bint is_array(object value):
    """Whether ``value`` is an array of either device (not a Tensor, not a number)."""
    return type(value) is cnp.ndarray or is_cuda_array(value)


cdef object contiguous_array(object array):
    """``array`` if row-major contiguous, else a contiguous copy on its device."""
    if array.flags.c_contiguous:
        return array
    if type(array) is cnp.ndarray:
        return np.ascontiguousarray(array)
    return array.copy()


cdef list element_strides(object array):
    return [stride // array.itemsize for stride in array.strides]


cdef bint is_dense(object array):
    """Non-overlapping and dense: the elements tile one block of memory, in some dim order."""
    cdef list strides = element_strides(array)
    cdef Py_ssize_t expected = 1
    dims = sorted((strides[i], array.shape[i]) for i in range(array.ndim) if array.shape[i] != 1)
    for stride, size in dims:
        if size == 0:
            return True
        if stride != expected:
            return False
        expected *= size
    return True


cdef bint has_dense_layout(cnp.ndarray array) except -1:
    """PyTorch's is_non_overlapping_and_dense (``is_dense``), answered from NumPy's flags
    first: most arrays are contiguous."""
    return (cnp.PyArray_IS_C_CONTIGUOUS(array) or cnp.PyArray_IS_F_CONTIGUOUS(array)
            or is_dense(array))


cdef list result_dim_order(object array):
    """The dims of ``array`` from innermost to outermost as PyTorch's TensorIterator orders a
    result's memory: by the input's strides, an insertion sort from the last dim to the first
    in which a comparison with a stride-0 dim decides nothing (the dims keep their order)."""
    cdef list order = list(range(array.ndim - 1, -1, -1))
    cdef list strides = [abs(s) for s in array.strides]
    cdef Py_ssize_t i, inner, outer
    for i in range(1, len(order)):
        outer = i
        for inner in range(i - 1, -1, -1):
            a, b = strides[order[inner]], strides[order[outer]]
            if a == 0 or b == 0:
                continue
            if a < b:
                break
            if a > b:
                order[inner], order[outer] = order[outer], order[inner]
                outer = inner
    return order


# NOTE [The layout of a result of several operands]
# PyTorch's TensorIterator lays out the result of an elementwise op of several tensors by
# sorting the dims by the operands' strides, the first operand that tells two dims apart
# deciding (a broadcast dim, stride 0, tells nothing; equal strides put the smaller dim
# inside): ``t.t() - u`` of a transposed ``t`` and a row-major ``u`` is transposed, ``u -
# t.t()`` row-major. NumPy's "K" order gives both row-major. The difference shows in which
# later op is a view and which a copy (``flatten``, ``contiguous``), so in what an in-place
# write reaches. ``laid_out_as_pointwise`` gives a NumPy result PyTorch's layout, copying it
# only when some operand is not row-major and the two orders differ.

cdef object laid_out_as_pointwise(object result, object a, object b):
    """``result``, the NumPy result of an elementwise op of ``a`` and ``b`` (arrays or
    numbers), laid out as PyTorch's result (NOTE [The layout of a result of several
    operands]): itself where it already is, else a copy."""
    if type(result) is not cnp.ndarray or cnp.PyArray_NDIM(<cnp.ndarray>result) < 2:
        return result
    if row_major_or_number(a) and row_major_or_number(b):
        return result       # every operand row-major: so are both results
    cdef list order = pointwise_dim_order(result.shape, (a, b))
    cdef Py_ssize_t stride = result.itemsize
    cdef bint same = True
    for dim in order:           # the strides of that order, dims of size 1 aside
        if result.shape[dim] != 1 and result.strides[dim] != stride:
            same = False
            break
        stride *= result.shape[dim]
    if same:
        return result
    outer_first = order[::-1]
    block = np.empty([result.shape[dim] for dim in outer_first], dtype=result.dtype)
    laid_out = block.transpose(np.argsort(outer_first))
    laid_out[...] = result
    return laid_out


cdef inline bint row_major_or_number(object value):
    return type(value) is not cnp.ndarray or cnp.PyArray_NDIM(<cnp.ndarray>value) < 2 or (
        cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>value))


cdef list pointwise_dim_order(tuple shape, tuple operands):
    """The dims of a result of ``shape`` from innermost to outermost, as TensorIterator's
    ``reorder_dimensions`` sorts them for ``operands`` (an insertion sort from the last dim
    to the first)."""
    cdef Py_ssize_t ndim = len(shape), i, inner, outer, k
    cdef list all_strides = []
    for operand in operands:
        if type(operand) is not cnp.ndarray:
            continue
        k = ndim - operand.ndim
        all_strides.append([0] * k + [
            0 if operand.shape[d] == 1 and shape[k + d] != 1 else abs(operand.strides[d])
            for d in range(operand.ndim)])
    cdef list order = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        outer = i
        for inner in range(i - 1, -1, -1):
            decision = swap_decision(all_strides, shape, order[inner], order[outer])
            if decision > 0:
                order[inner], order[outer] = order[outer], order[inner]
                outer = inner
            elif decision < 0:
                break
    return order


cdef int swap_decision(list all_strides, tuple shape, Py_ssize_t dim0, Py_ssize_t dim1):
    """TensorIterator's ``should_swap``: 1 to put ``dim1`` inside ``dim0``, -1 to keep them,
    0 when no operand tells."""
    for strides in all_strides:
        stride0, stride1 = strides[dim0], strides[dim1]
        if stride0 == 0 or stride1 == 0:
            continue
        if stride0 < stride1:
            return -1
        if stride0 > stride1:
            return 1
        if shape[dim0] > shape[dim1]:
            return 1
    return 0


cdef object empty_result_like(object x, object dtype=None):
    """An uninitialized result of ``x``'s shape, laid out as PyTorch lays out a pointwise
    result: ``x``'s strides when ``x`` is non-overlapping and dense (a transposed input's
    result is transposed), else dense in the order of ``result_dim_order``. NumPy's order "K"
    would sort an expanded input's stride-0 dims innermost, where PyTorch keeps their place."""
    if type(x) is not cnp.ndarray or has_dense_layout(<cnp.ndarray>x):
        return np.empty_like(x, dtype=dtype)
    cdef list outer_first = result_dim_order(x)[::-1]
    block = np.empty([x.shape[dim] for dim in outer_first], dtype=x.dtype if dtype is None
                     else dtype)
    return block.transpose(np.argsort(outer_first))     # back to x's dim order


# NOTE [Strided views of either device]
# NumPy's as_strided goes through ``np.array`` (no dispatch), so on a DeviceArray it would
# ask for a host copy. The strided ops (as_strided, diagonal) call these instead: the view
# is metadata over the same device memory, made by the array's seam.

cdef object strided_view(object array, tuple shape, tuple byte_strides, bint writeable=True):
    """A view of ``array``'s memory from its first element, with ``shape`` and
    ``byte_strides`` (no copy, no bounds check: the caller checked them). It is writeable
    where ``array`` is, unless ``writeable`` is False; the caller need not (and, for a
    DeviceArray, whose CuPy flags have no ``writeable``, cannot) ask the array."""
    if type(array) is cnp.ndarray:
        return host_strided_view(<cnp.ndarray>array, shape, byte_strides, writeable)
    return array.as_strided(shape, byte_strides)


cdef object host_strided_view(cnp.ndarray array, tuple shape, tuple byte_strides,
                              bint writeable):
    """``strided_view`` of a NumPy array, made in C: the same array as
    ``np.lib.stride_tricks.as_strided`` gives (whose Python costs more than an op), with
    ``array`` as its base. It is writeable only where ``array`` is."""
    cdef int ndim = len(shape)
    cdef cnp.npy_intp sizes[cnp.NPY_MAXDIMS]
    cdef cnp.npy_intp strides[cnp.NPY_MAXDIMS]
    cdef int i
    if ndim > cnp.NPY_MAXDIMS:
        raise ValueError(f"maximum supported dimension for an ndarray is {cnp.NPY_MAXDIMS}, "
                         f"found {ndim}")
    for i in range(ndim):
        sizes[i] = shape[i]
        strides[i] = byte_strides[i]
    cdef cnp.PyArray_Descr* descr = cnp.PyArray_DESCR(array)
    Py_INCREF(<object>descr)
    cdef int flags = (cnp.NPY_ARRAY_WRITEABLE
                      if writeable and cnp.PyArray_ISWRITEABLE(array) else 0)
    cdef cnp.ndarray view = PyArray_NewFromDescr(
        np.ndarray, descr, ndim, sizes, strides, cnp.PyArray_DATA(array), flags, NULL)
    cnp.set_array_base(view, array)
    return view


cdef Py_ssize_t data_address(object array):
    """The address of ``array``'s first element, in its device's memory."""
    if type(array) is cnp.ndarray:
        return <Py_ssize_t>cnp.PyArray_DATA(<cnp.ndarray>array)
    return array.data_ptr()
