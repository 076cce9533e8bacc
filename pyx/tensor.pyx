# cython: embedsignature=True
"""The Tensor: an array (NumPy on the CPU, CuPy on the GPU) plus autograd metadata.

As in PyTorch, a tensor is a *leaf* when it has no ``grad_fn``; a leaf that
``requires_grad`` collects its gradient in ``.grad`` through its AccumulateGrad
node, a non-leaf passes gradients on to its ``grad_fn``. This file holds the data
model; the ops, hooks and ``backward`` live in the layers above and register
themselves as Tensor's methods (NOTE [How Tensor gets its methods]).
"""
import copy as copy_module    # __array__ has an argument named copy
import warnings
import weakref

import numpy as np
cimport cython
cimport numpy as cnp
from cpython.object cimport PyTypeObject

from autograd_cy._C.grad_mode cimport is_grad_enabled, is_inference_mode_enabled
from autograd_cy._C.dtype cimport (
    from_numpy_dtype, scalar_name, c10_name, kind_of, default_float)
from autograd_cy._C.device cimport (
    device, is_cuda_array, array_namespace, current_stream, strided_view, data_address)

from autograd_cy._C.device import MetaArray      # NOTE [Meta tensors]

cnp.import_array()

cdef device CPU = device("cpu")
cdef device META = device("meta")
# NOTE [Deferred gradient accumulation] (pyx/accumulate_grad.pyx): while additions into a
# .grad wait for the end of a backward, accumulate_grad sets this to their flush.
cdef grad_flush_fn grad_flush = NULL


cdef void set_grad_flush(grad_flush_fn flush) noexcept:
    global grad_flush
    grad_flush = flush


# NOTE [How Tensor gets its methods]
# Tensor is the lowest layer that knows of autograd, and every op lives above it (the op
# modules cimport this file), so this file cannot import them. Instead what the modules above
# implement is *registered*, once, when they are imported:
# - named methods (``x.exp()``, ``x.sum(1)``, ``x.backward()``, ``x.register_hook(f)``) go
#   into Tensor's class dict through ``register_methods``: an ordinary method lookup, served
#   by Python's method cache. A core module registers its own; an op module lists its
#   methods in ``__tensor_methods__`` and the package's import of pyx/ops registers them;
# - what the class body itself must call -- the operators, whose C slots are fixed when the
#   class is made, ``repr`` and the rebuild of a view's grad_fn -- and what a core module
#   below the ops calls on a gradient (``sum_to``, for validate_outputs) goes into one C
#   table of function pointers, ``TensorOperators``, so ``y * c`` is one C call.
# Nothing else is handed down: no namespace, no ``__getattr__`` fallback. ``import
# autograd_cy`` imports every op module, so the table is full before a tensor exists.

cdef TensorOperators _operators   # zero-initialised: every entry NULL until registered


cdef TensorOperators* tensor_operators() noexcept:
    return &_operators


cdef extern from "Python.h":
    void PyType_Modified(PyTypeObject* type)


# is_contiguous(memory_format=...)'s check, put here by autograd_cy/layout_ops.py
memory_format_check = None


cdef void register_methods(dict methods) except *:
    """Make each entry of ``methods`` (a function or a property) an attribute of Tensor.

    Names the class defines itself keep their definition."""
    cdef dict class_dict = <dict>(<PyTypeObject*>Tensor).tp_dict
    for name, method in methods.items():
        if name not in class_dict:
            class_dict[name] = method
    PyType_Modified(<PyTypeObject*>Tensor)


cdef int ops_not_loaded() except -1:
    raise RuntimeError("autograd_cy's ops are not loaded: import the autograd_cy package first")


# Operators whose op is written in Python, registered by its module when the package loads
# (``%``: autograd_cy/remainders.py, ``<<`` and ``>>``: integer_ops.py); the others' C
# functions are in TensorOperators.
cdef dict python_operators = {}


def _register_operators(dict operators):
    """``{"mod": fn, "rmod": fn, "imod": fn ...}``: the ops behind ``%``, ``%=`` ..."""
    python_operators.update(operators)


cdef object python_operator(str name):
    found = python_operators.get(name)
    if found is None:
        ops_not_loaded()
    return found


def _register_methods(dict methods):
    """``register_methods`` for the Python package (the op modules' ``__tensor_methods__``,
    the ``new_*`` factories)."""
    register_methods(methods)


cdef inline binary_fn loaded(binary_fn function) except NULL:
    if function is NULL:
        ops_not_loaded()
    return function


cdef inline object reflected(binary_fn op, binary_fn reversed_op, object self, object other):
    """``other <op> self`` for a reflected operator (NOTE [Reflected operators of a
    subclass]): the ordinary op for a Tensor ``other``, else the reflected form."""
    if isinstance(other, Tensor):
        return loaded(op)(other, self)
    return loaded(reversed_op)(self, other)


cdef object array_module(object array):
    """NumPy, or the CUDA namespace of a DeviceArray's device: where new arrays are made."""
    if type(array) is cnp.ndarray:
        return np
    return array_namespace(array)


cdef tuple gradient_metadata(Tensor t):
    """What a gradient of ``t`` must match: ``(shape, dtype)``, and for a tensor on a CUDA
    device also the device and the stream current now, the one its backward runs on (a
    node's ``input_metadata`` entry; NOTE [Streams of backward])."""
    cdef object array = t._data
    if type(array) is cnp.ndarray:
        return (array.shape, array.dtype)
    if type(array) is MetaArray:        # recorded, never run (NOTE [Meta tensors])
        return (array.shape, array.dtype, META, None)
    cdef int index = array.device.id
    return (array.shape, array.dtype, device("cuda", index), current_stream(index))


cdef class VersionCounter:
    pass


# NOTE [Conjugate views]
# ``z.conj()`` of a complex ``z`` is a view in PyTorch: the same memory read through a
# conjugate bit, and every kernel that cannot read the bit resolves it first. NumPy has no
# such bit, and every op here reads ``_data`` as it is, so a conjugate view instead holds its
# values in a *mirror*: a conjugate copy of its base's whole array, with the same layout, so
# that a view of the conjugate sits in the mirror exactly where the plain view would sit in
# the base (``conj_counterpart`` moves an array between the two). ``_is_conj`` says that a
# tensor's memory is the mirror: a complex one is a conjugate view (``is_conj()``), a real
# one the imaginary part of one (``is_neg()``, as torch's negative bit).
#
# The two copies must read as one memory. Every in-place write ends in ``bump_version`` of
# the counter the base and all its views share, which calls ``sync_conj_mirror``: a write
# into the mirror conjugates it back into the base, any other write refreshes the mirror.
# The counter holds the mirror weakly (for NumPy): once the last conjugate view dies, the
# copy is freed and writes no longer pay for it. What escapes is a write that bumps no
# counter of theirs, such as one through ``numpy()``: a conjugate view made after it reads it
# (``conj()`` refreshes the mirror), one made before does not. The memory of a
# ``view_as_complex`` is real numbers: its mirror negates every other one, the imaginary
# parts (``conjugate_into``), and is made only for a contiguous base, where every other
# element is an imaginary part.

cdef object conj_storage_of(VersionCounter counter):
    """The mirror's storage while a conjugate view holds it; clears the counter if none does."""
    if counter.conj_storage is None:
        return None
    storage = counter.conj_storage()
    if storage is None:
        counter.conj_root = counter.conj_storage = None
    return storage


cdef object flat_storage(object array):
    """``array``'s memory as one dimension, from its first element to its last (nothing for
    an empty array); strides of 0 or more."""
    cdef Py_ssize_t span = 1
    itemsize = array.itemsize
    if array.size == 0:
        span = 0
    else:
        for n, stride in zip(array.shape, array.strides):
            span += (n - 1) * (stride // itemsize)
    return strided_view(array, (span,), (itemsize,))


cdef object conj_counterpart(Tensor t):
    """``t``'s array in the other memory: in the mirror for a plain tensor (made on first
    use, for its base's whole array), in the base for a tensor in the mirror."""
    cdef VersionCounter counter = version_counter(t)
    storage = conj_storage_of(counter)
    if storage is None:
        counter.conj_root = (t._base if t._base is not None else t)._data
        base_storage = flat_storage(counter.conj_root)
        storage = base_storage.copy()
        conjugate_into(base_storage, storage)
        counter.conj_storage = (weakref.ref(storage) if type(storage) is cnp.ndarray
                                else lambda: storage)   # a DeviceArray takes no weak reference
    else:
        base_storage = flat_storage(counter.conj_root)
        if not t._is_conj:
            # a new conjugate view reads the base as it is now, even after a write that
            # bumped no counter (gradcheck's perturbations through numpy())
            sync_conj_mirror(t, counter)
    source, target = (storage, base_storage) if t._is_conj else (base_storage, storage)
    array = t._data
    if array.dtype != target.dtype:           # a real part of a complex storage
        source, target = source.view(array.dtype), target.view(array.dtype)
    offset = (data_address(array) - data_address(source)) // array.itemsize
    return strided_view(target[offset:], array.shape, array.strides)


cdef void sync_conj_mirror(Tensor t, VersionCounter counter) except *:
    """After a write through ``t``: the base and its mirror read as conjugates again."""
    storage = conj_storage_of(counter)
    if storage is None:
        return
    root = counter.conj_root
    mirror = strided_view(storage, root.shape, root.strides)
    if t._is_conj:
        conjugate_into(mirror, root)
    else:
        conjugate_into(root, mirror)


cdef void conjugate_into(object source, object target) except *:
    """``target = conj(source)``; of real numbers (the memory of a view_as_complex, one
    contiguous run of real and imaginary parts), the odd elements negated."""
    if source.dtype.kind == "c":
        np.conjugate(source, out=target)
        return
    flat_source, flat_target = source.reshape(-1), target.reshape(-1)
    flat_target[0::2] = flat_source[0::2]
    np.negative(flat_source[1::2], out=flat_target[1::2])


cdef Tensor make_tensor(object array):
    """Wrap an array (NumPy scalars become 0-d arrays) in a fresh leaf Tensor."""
    cdef Tensor t = Tensor.__new__(Tensor)
    if type(array) is not cnp.ndarray:
        array = _coerce_array(array)
    t._data = array
    t._is_inference = is_inference_mode_enabled()
    return t


def _array_of(Tensor t):
    """The array a tensor holds, without a check (autograd_cy.dlpack shares it)."""
    return t._data


def _wrap_array(array):
    """A leaf Tensor around ``array`` without copying (factories use this)."""
    return make_tensor(array)


def _swap_contents(Tensor a, Tensor b):
    """Exchange everything two tensors hold but their Python class and ``__dict__``
    (``utils.swap_tensors`` swaps those): data, autograd history, views, grad, hooks,
    version counter. Each gets a new AccumulateGrad on next use: the old node belongs to
    the other tensor's history."""
    a._data, b._data = b._data, a._data
    a._requires_grad, b._requires_grad = b._requires_grad, a._requires_grad
    a._grad, b._grad = b._grad, a._grad
    a._grad_fn, b._grad_fn = b._grad_fn, a._grad_fn
    a._output_nr, b._output_nr = b._output_nr, a._output_nr
    a._version_counter, b._version_counter = b._version_counter, a._version_counter
    a._base, b._base = b._base, a._base
    a._creation_meta, b._creation_meta = b._creation_meta, a._creation_meta
    a._view_op_name, b._view_op_name = b._view_op_name, a._view_op_name
    a._grad_fn_version, b._grad_fn_version = b._grad_fn_version, a._grad_fn_version
    a._hooks, b._hooks = b._hooks, a._hooks
    a._post_accumulate_grad_hooks, b._post_accumulate_grad_hooks = (
        b._post_accumulate_grad_hooks, a._post_accumulate_grad_hooks)
    a._accumulator = b._accumulator = None
    a._retains_grad, b._retains_grad = b._retains_grad, a._retains_grad
    a._is_inference, b._is_inference = b._is_inference, a._is_inference
    a._is_conj, b._is_conj = b._is_conj, a._is_conj
    a._fw_grad, b._fw_grad = b._fw_grad, a._fw_grad
    a._fw_level, b._fw_level = b._fw_level, a._fw_level


def _hold_array(Tensor t, array):
    """Make ``array`` the array ``t`` holds, as it is, without coercing it: a BatchedTensor
    of autograd_cy.func holds a stand-in of its logical shape (NOTE [The batched tensor])."""
    t._data = array


def _rebuild_tensor(array, requires_grad):
    """Unpickle a tensor (``Tensor.__reduce__``): a leaf around the pickled array."""
    cdef Tensor t = make_tensor(array)
    if requires_grad:
        t.requires_grad_(True)
    return t


cdef object _coerce_array(object array):
    if isinstance(array, np.generic):
        return np.asarray(array)
    if is_cuda_array(array) or type(array) is MetaArray:
        return array
    return np.asarray(array)


cdef Tensor make_view(object array, Tensor source):
    """A tensor that shares ``source``'s memory and version counter (a view op's output).
    An inference tensor tracks no views: its view is a plain inference tensor (a view op on
    it records nothing, in or out of inference mode)."""
    cdef Tensor view = make_tensor(array)
    cdef int meta = VIEW_DEFAULT
    view._is_conj = source._is_conj
    if source._is_inference:
        view._is_inference = True
        view._version_counter = source._version_counter   # a conjugate mirror's, if any
        return view
    view._base = source._base if source._base is not None else source
    view._version_counter = version_counter(source)
    view._grad_fn_version = view._version_counter.version
    # A view made in inference mode of a normal tensor is a normal tensor.
    view._is_inference = False
    if source._base is not None and source._creation_meta != VIEW_DEFAULT:
        meta = source._creation_meta
        view._view_op_name = source._view_op_name
    elif is_inference_mode_enabled():
        meta = VIEW_INFERENCE_MODE
    elif not is_grad_enabled():
        meta = VIEW_NO_GRAD_MODE
    view._creation_meta = meta
    return view


cdef Tensor detached(Tensor t):
    """``t.detach()``, from C (a checkpoint's recomputation detaches every tensor it saves)."""
    cdef Tensor out = make_tensor(t._data)
    out._version_counter = version_counter(t)
    out._is_inference = t._is_inference
    out._is_conj = t._is_conj
    return out


def _reset_grad_accumulator(Tensor leaf):
    """Forget ``leaf``'s AccumulateGrad, as torch does after ``set_``: a graph recorded
    before holds the old node, so gradients it computes no longer reach ``leaf`` (only its
    GradientEdge taken before)."""
    leaf._accumulator = None


def _make_subclass(cls, Tensor data, bint require_grad=False):
    """An instance of the Tensor subclass ``cls`` over ``data``'s memory and version counter,
    a leaf outside ``data``'s graph (``torch.Tensor._make_subclass``: how ``nn.Parameter``
    wraps a tensor, so an in-place write to either is seen by both)."""
    cdef Tensor out = Tensor.__new__(cls)
    out._data = data._data
    out._version_counter = version_counter(data)
    out._is_inference = data._is_inference
    out._is_conj = data._is_conj
    if require_grad:
        out.requires_grad_(True)
    return out


cdef VersionCounter version_counter(Tensor t):
    if t._version_counter is None:
        t._version_counter = VersionCounter.__new__(VersionCounter)
    return t._version_counter


cdef object single_element(Tensor t):
    """``t.item()`` for Python's float(), int() and complex(), which raise a ValueError."""
    if t._data.size != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return t.item()


cdef object get_grad_fn(Tensor t):
    """``t.grad_fn``; for a view whose base changed in place since, rebuilt first."""
    if (t._base is not None
            and t._version_counter.version != t._grad_fn_version
            and _operators.regenerate_view_grad_fn is not NULL):
        _operators.regenerate_view_grad_fn(t)
    return t._grad_fn


_NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information.")


cdef bint warned_scalar_of_grad = False


cdef void warn_scalar_of_grad(Tensor t) except *:
    """torch's warning, once a process, when float() or complex() takes a tensor that
    requires grad while grad mode is on (the number it gives is outside the graph); under
    no_grad, as in LBFGS's step, it stays silent."""
    global warned_scalar_of_grad
    if not warned_scalar_of_grad and requires_grad(t) and is_grad_enabled():
        warned_scalar_of_grad = True
        warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                      "unexpected behavior.\nConsider using tensor.detach() first.",
                      UserWarning, stacklevel=1)


@cython.freelist(262144)
cdef class Tensor:
    """A multi-dimensional array that records the operations applied to it.

    >>> x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4., 6.])
    """

    def __init__(self, *args):
        if len(args) == 1 and not isinstance(args[0], int):
            self._data = np.asarray(args[0], dtype=default_float())
        elif not args:          # Tensor(): an empty vector, as torch's
            self._data = np.empty((0,), dtype=default_float())
        else:
            self._data = np.empty(args, dtype=default_float())
        self._is_inference = is_inference_mode_enabled()

    # ------------------------------------------------------------------ data model
    @property
    def data(self):
        """The same memory as a tensor outside autograd (own version counter)."""
        cdef Tensor out = make_tensor(self._data)
        cdef VersionCounter counter = self._version_counter
        out._is_inference = self._is_inference
        out._is_conj = self._is_conj
        if counter is not None and counter.conj_storage is not None:
            # the same memory, so the same conjugate mirror (NOTE [Conjugate views])
            out._version_counter = VersionCounter.__new__(VersionCounter)
            out._version_counter.conj_root = counter.conj_root
            out._version_counter.conj_storage = counter.conj_storage
        return out

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        new_data = (<Tensor>value)._data
        if requires_grad(self) and kind_of(new_data.dtype) not in "fc":
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
        if new_data.dtype != self._data.dtype or new_data.shape != self._data.shape:
            self._accumulator = None      # its metadata describes the old data
        self._data = new_data

    @data.deleter
    def data(self):
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[wrap_dim(dim, self._data.ndim)]

    def dim(self):
        return self._data.ndim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    @property
    def dtype(self):
        return from_numpy_dtype(self._data.dtype)

    @property
    def device(self):
        if type(self._data) is cnp.ndarray:
            return CPU
        if type(self._data) is MetaArray:
            return META
        return device("cuda", self._data.device.id)

    @property
    def is_cuda(self):
        return type(self._data) is not cnp.ndarray and type(self._data) is not MetaArray

    @property
    def is_meta(self):
        """Whether this is a meta tensor: a shape and a dtype, no data (NOTE [Meta tensors])."""
        return type(self._data) is MetaArray

    def is_floating_point(self):
        return kind_of(self._data.dtype) == "f"

    def is_complex(self):
        return self._data.dtype.kind == "c"

    def stride(self, dim=None):
        itemsize = self._data.itemsize
        strides = tuple(s // itemsize for s in self._data.strides)
        if dim is None:
            return strides
        return strides[wrap_dim(dim, self._data.ndim)]

    def is_contiguous(self, memory_format=None):
        """Whether the elements lie in row-major order (or in ``memory_format``'s: NOTE
        [Memory formats reach the ops through a slot] in ops/conversion.pyx)."""
        if memory_format is None:
            return bool(self._data.flags.c_contiguous)
        return memory_format_check(self, memory_format)

    def data_ptr(self):
        array = conj_counterpart(self) if self._is_conj else self._data  # its base's memory
        if type(array) is cnp.ndarray:
            return array.ctypes.data
        return array.data_ptr()

    def element_size(self):
        return self._data.itemsize

    def item(self):
        if type(self._data) is MetaArray:
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        if type(self._data) is MetaArray:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        return self._data.tolist()

    def numpy(self, *, force=False):
        """The NumPy array behind this tensor, sharing memory (refuses when it requires grad
        and grad mode is on: writes through the array would escape autograd)."""
        if requires_grad(self) and not force and is_grad_enabled():
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead.")
        if type(self._data) is not cnp.ndarray:
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. "
                "Use Tensor.cpu() to copy the tensor to host memory first.")
        if self._is_conj:       # the array is a mirror (NOTE [Conjugate views])
            if force:
                return self._data.copy()        # torch's force resolves the bit
            if self._data.dtype.kind == "c":
                raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. "
                                   "Use tensor.resolve_conj().numpy() instead.")
            raise RuntimeError("Can't call numpy() on Tensor that has negative bit set. "
                               "Use tensor.resolve_neg().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def __bool__(self):
        if self._data.size != 1:
            amount = "no values" if self._data.size == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
        return bool(self._data.reshape(()).item())

    # float(t), int(t), complex(t): a ValueError, where t.item() raises a RuntimeError.
    def __float__(self):
        warn_scalar_of_grad(self)
        return float(single_element(self))

    def __int__(self):
        return int(single_element(self))

    def __complex__(self):
        warn_scalar_of_grad(self)
        return complex(single_element(self))

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    def __repr__(self):
        return unary(_operators.repr, self)

    def __deepcopy__(self, memo):
        """A new leaf with copied memory, flag and ``.grad``; graph tensors refuse."""
        cdef Tensor result
        if get_grad_fn(self) is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment.  If you were attempting to deepcopy a "
                "module, this may be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        result = make_tensor(self._data.copy())
        result._requires_grad = self._requires_grad
        result._is_inference = self._is_inference
        memo[id(self)] = result
        if self._grad is not None:
            result._grad = copy_module.deepcopy(self._grad, memo)
        attributes = getattr(self, "__dict__")
        if attributes:
            getattr(result, "__dict__").update(copy_module.deepcopy(attributes, memo))
        return result

    def __reduce__(self):
        return (_rebuild_tensor, (self._data, requires_grad(self)))

    # ------------------------------------------------------------- autograd state
    @property
    def requires_grad(self):
        return requires_grad(self)

    @requires_grad.setter
    def requires_grad(self, value):
        if not isinstance(value, bool):
            raise RuntimeError("requires_grad must be a bool")
        self._set_requires_grad(value, "only Tensors of floating point and complex dtype "
                                       "can require gradients")

    @requires_grad.deleter
    def requires_grad(self):
        raise RuntimeError("requires_grad must be a bool")

    def requires_grad_(self, requires_grad=True):
        if not isinstance(requires_grad, bool):
            raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be "
                            f"bool, not {type(requires_grad).__name__}")
        self._set_requires_grad(requires_grad,
                                "only Tensors of floating point dtype can require gradients")
        return self

    def _set_requires_grad(self, bint value, str dtype_error):
        if self._grad_fn is not None:
            if not value:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach().")
            return
        if value and kind_of(self._data.dtype) not in "fc":
            raise RuntimeError(dtype_error)
        if value and self._is_inference and not is_inference_mode_enabled():
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        self._requires_grad = value

    @property
    def is_leaf(self):
        return get_grad_fn(self) is None

    @property
    def grad_fn(self):
        return get_grad_fn(self)

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def grad(self):
        if grad_flush is not NULL:
            grad_flush()                # NOTE [Deferred gradient accumulation]
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(_NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        cdef Tensor new_grad
        if value is None:
            self._grad = None
            return
        if not isinstance(value, Tensor):
            raise TypeError("assigned grad expected to be a Tensor or None but got grad of type "
                            + type(value).__name__)
        new_grad = value
        if new_grad is self:
            raise RuntimeError("can't assign Variable as its own grad")
        if new_grad._data.shape != self._data.shape:
            raise RuntimeError(
                f"attempting to assign a gradient of size '{list(new_grad._data.shape)}' to a "
                f"tensor of size '{list(self._data.shape)}'. Please ensure that the gradient "
                "and the tensor are the same size")
        if new_grad._data.dtype != self._data.dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{c10_name(new_grad._data.dtype)}' "
                f"to a tensor with grad_dtype '{scalar_name(self._data.dtype)}'. The "
                "gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). "
                "You can set the tensor's grad_dtype attribute with a specific dtype, or None "
                "to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a "
                "tensor and its gradient may break downstream systems that assume they match.")
        if type(new_grad._data) is not type(self._data):
            raise RuntimeError("attempting to assign a gradient located on device with index "
                               "to a tensor located on a different device")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def _version(self):
        return 0 if self._version_counter is None else self._version_counter.version

    @property
    def _base(self):
        return self._base

    def _is_view(self):
        return self._base is not None

    def is_inference(self):
        return self._is_inference

    @property
    def retains_grad(self):
        return self._retains_grad

    def detach(self):
        """A new leaf sharing memory *and* version counter, outside the graph."""
        return detached(self)

    def detach_(self):
        """Make this tensor a leaf that does not require grad, in place."""
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._output_nr = 0
        self._requires_grad = False
        self._fw_grad = None        # as detach(): no tangent either
        return self

    # ------------------------------------------- operators (NOTE [How Tensor gets its methods])
    # Above an ndarray's priority (0), as in PyTorch: a NumPy scalar or array on the left
    # (``np.float64(2) * x``) defers to the Tensor's reflected operator instead of
    # converting the tensor to an array.
    __array_priority__ = 1000

    # NOTE [Reflected operators of a subclass]
    # Python asks the right operand's reflected method first when its type is a subclass of
    # the left's (``x - parameter`` calls ``parameter.__rsub__(x)``). A Tensor ``other``
    # there is the left operand of the ordinary op (``reflected``), so the node is torch's
    # (SubBackward0, DivBackward0, not the reflected forms for a number on the left).
    def __add__(self, other): return loaded(_operators.add)(self, other)
    def __radd__(self, other): return reflected(_operators.add, _operators.add, self, other)
    def __sub__(self, other): return loaded(_operators.sub)(self, other)
    def __rsub__(self, other): return reflected(_operators.sub, _operators.rsub, self, other)
    def __mul__(self, other): return loaded(_operators.mul)(self, other)
    def __rmul__(self, other): return reflected(_operators.mul, _operators.mul, self, other)
    def __truediv__(self, other): return loaded(_operators.div)(self, other)

    def __rtruediv__(self, other):
        return reflected(_operators.div, _operators.rdiv, self, other)

    def __floordiv__(self, other): return loaded(_operators.floordiv)(self, other)

    def __rfloordiv__(self, other):
        return reflected(_operators.floordiv, _operators.rfloordiv, self, other)

    def __pow__(self, other, modulo=None): return loaded(_operators.pow)(self, other)

    def __rpow__(self, other, modulo=None):
        return reflected(_operators.pow, _operators.rpow, self, other)

    def __matmul__(self, other): return loaded(_operators.matmul)(self, other)

    def __rmatmul__(self, other):
        return reflected(_operators.matmul, _operators.rmatmul, self, other)

    def __iadd__(self, other): return loaded(_operators.iadd)(self, other)
    def __isub__(self, other): return loaded(_operators.isub)(self, other)
    def __imul__(self, other): return loaded(_operators.imul)(self, other)
    def __itruediv__(self, other): return loaded(_operators.idiv)(self, other)
    def __ifloordiv__(self, other): return loaded(_operators.ifloordiv)(self, other)
    def __ipow__(self, other): return loaded(_operators.ipow)(self, other)

    def __eq__(self, other):
        return False if other is None else loaded(_operators.eq)(self, other)

    def __ne__(self, other):
        return True if other is None else loaded(_operators.ne)(self, other)

    def __lt__(self, other): return loaded(_operators.lt)(self, other)
    def __le__(self, other): return loaded(_operators.le)(self, other)
    def __gt__(self, other): return loaded(_operators.gt)(self, other)
    def __ge__(self, other): return loaded(_operators.ge)(self, other)
    def __and__(self, other): return loaded(_operators.bitwise_and)(self, other)
    def __rand__(self, other): return loaded(_operators.bitwise_and)(self, other)
    def __or__(self, other): return loaded(_operators.bitwise_or)(self, other)
    def __ror__(self, other): return loaded(_operators.bitwise_or)(self, other)
    def __xor__(self, other): return loaded(_operators.bitwise_xor)(self, other)
    def __rxor__(self, other): return loaded(_operators.bitwise_xor)(self, other)
    def __mod__(self, other): return python_operator("mod")(self, other)
    def __rmod__(self, other): return python_operator("rmod")(self, other)
    def __imod__(self, other): return python_operator("imod")(self, other)
    def __lshift__(self, other): return python_operator("lshift")(self, other)
    def __rlshift__(self, other): return python_operator("rlshift")(self, other)
    def __ilshift__(self, other): return python_operator("ilshift")(self, other)
    def __rshift__(self, other): return python_operator("rshift")(self, other)
    def __rrshift__(self, other): return python_operator("rrshift")(self, other)
    def __irshift__(self, other): return python_operator("irshift")(self, other)
    def __getitem__(self, index): return loaded(_operators.getitem)(self, index)

    def __setitem__(self, index, value):
        if _operators.setitem is NULL:
            ops_not_loaded()
        _operators.setitem(self, index, value)

    def __neg__(self): return unary(_operators.neg, self)
    def __pos__(self): return self
    def __abs__(self): return unary(_operators.abs, self)
    def __invert__(self): return unary(_operators.bitwise_not, self)

    @property
    def T(self):
        return self.permute(tuple(range(self._data.ndim - 1, -1, -1)))

    @property
    def mT(self):
        """The last two dims swapped; a 0-d tensor is returned as it is (deprecated in
        PyTorch, with its warning) and a 1-d one refused, as PyTorch does."""
        if self._data.ndim == 0:
            warnings.warn("Tensor.mT is deprecated on 0-D tensors. This function is the "
                          "identity in these cases.", UserWarning, stacklevel=2)
            return self
        if self._data.ndim == 1:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of "
                               "matrices. Got 1-D tensor.")
        return self.transpose(-2, -1)


cdef inline object unary(unary_fn function, object value):
    if function is NULL:
        ops_not_loaded()
    return function(value)


class Size(tuple):
    """``tensor.shape``: a tuple that prints like ``torch.Size``."""

    def __repr__(self):
        return f"autograd_cy.Size({list(self)})"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


cdef Py_ssize_t wrap_dim(Py_ssize_t dim, Py_ssize_t ndim) except -1:
    """Normalise a possibly negative dim, with PyTorch's IndexError when out of range."""
    cdef Py_ssize_t rank = ndim if ndim > 0 else 1
    if dim < -rank or dim >= rank:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], "
            f"but got {dim})")
    return dim + rank if dim < 0 else dim
