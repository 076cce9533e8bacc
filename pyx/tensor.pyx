# cython: embedsignature=True
"""The Tensor: an array (NumPy on the CPU, CuPy on the GPU) plus autograd metadata.

As in PyTorch, a tensor is a *leaf* when it has no ``grad_fn``; a leaf that
``requires_grad`` collects its gradient in ``.grad`` through its AccumulateGrad
node, a non-leaf passes gradients on to its ``grad_fn``. The ops themselves live
in ``pyx/ops/``: the methods at the end of this class only forward to them, so
this file holds the data model and nothing else.
"""
import warnings
import weakref

import numpy as np
cimport cython
cimport numpy as cnp
from cpython.object cimport PyTypeObject

from autograd_cy._C.grad_mode cimport (
    is_grad_enabled, is_inference_mode_enabled,
)
from autograd_cy import dtypes as _dtypes
from autograd_cy.device import CPU as _CPU, device as _device

cnp.import_array()

# Filled in by autograd_cy/__init__.py once every op module is imported: the
# namespace that the forwarding methods below call into (tensor.pyx cannot import
# the op modules, which cimport it).
cdef object _ops = None
cdef object _hooks_api = None       # autograd_cy._C.node, for hooks that live on Nodes
cdef object _regenerate_view_grad_fn = None


def _install(ops, hooks_api, regenerate_view_grad_fn):
    global _ops, _hooks_api, _regenerate_view_grad_fn
    _ops = ops
    _hooks_api = hooks_api
    _regenerate_view_grad_fn = regenerate_view_grad_fn


cdef FastOps _fast        # zero-initialised: every entry NULL until its module installs it


cdef FastOps* fast_ops() noexcept:
    return &_fast


cdef object array_module(object array):
    """NumPy or CuPy: the one place that decides which array library runs an op."""
    if type(array) is cnp.ndarray:
        return np
    import cupy
    return cupy


cdef class VersionCounter:
    pass


cdef Tensor make_tensor(object array):
    """Wrap an array (NumPy scalars become 0-d arrays) in a fresh leaf Tensor."""
    cdef Tensor t = Tensor.__new__(Tensor)
    if type(array) is not cnp.ndarray:
        array = _coerce_array(array)
    t._data = array
    t._is_inference = is_inference_mode_enabled()
    return t


def _wrap_array(array):
    """A leaf Tensor around ``array`` without copying (factories use this)."""
    return make_tensor(array)


cdef object _coerce_array(object array):
    if isinstance(array, np.generic):
        return np.asarray(array)
    if type(array).__module__.startswith("cupy"):
        return array
    return np.asarray(array)


cdef Tensor make_view(object array, Tensor source):
    """A tensor that shares ``source``'s memory and version counter (a view op's output)."""
    cdef Tensor view = make_tensor(array)
    cdef int meta = VIEW_DEFAULT
    view._is_inference = source._is_inference     # a view of a normal tensor stays normal
    view._base = source._base if source._base is not None else source
    view._version_counter = version_counter(source)
    view._grad_fn_version = view._version_counter.version
    # A view made in inference mode of a normal tensor is a normal tensor.
    view._is_inference = source._is_inference
    if source._base is not None and source._creation_meta != VIEW_DEFAULT:
        meta = source._creation_meta
        view._view_op_name = source._view_op_name
    elif is_inference_mode_enabled():
        meta = VIEW_INFERENCE_MODE
    elif not is_grad_enabled():
        meta = VIEW_NO_GRAD_MODE
    view._creation_meta = meta
    return view


cdef VersionCounter version_counter(Tensor t):
    if t._version_counter is None:
        t._version_counter = VersionCounter.__new__(VersionCounter)
    return t._version_counter


cdef void bump_version(Tensor t) except *:
    cdef VersionCounter counter = version_counter(t)
    counter.version += 1


cdef object get_grad_fn(Tensor t):
    """``t.grad_fn``; for a view whose base changed in place, rebuilt first (rule 7.4)."""
    if (t._base is not None
            and t._version_counter.version != t._grad_fn_version
            and _regenerate_view_grad_fn is not None):
        _regenerate_view_grad_fn(t)
    return t._grad_fn


_NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more informations.")


@cython.freelist(262144)
cdef class Tensor:
    """A multi-dimensional array that records the operations applied to it.

    >>> import autograd_cy as ag
    >>> x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4., 6.])
    """

    def __init__(self, *args):
        if len(args) == 1 and not isinstance(args[0], int):
            self._data = np.asarray(args[0], dtype=np.float32)
        else:
            self._data = np.empty(args, dtype=np.float32)
        self._is_inference = is_inference_mode_enabled()

    # ------------------------------------------------------------------ data model
    @property
    def data(self):
        """The same memory as a tensor outside autograd (own version counter)."""
        cdef Tensor out = make_tensor(self._data)
        out._is_inference = self._is_inference
        return out

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        new_data = (<Tensor>value)._data
        if new_data.dtype != self._data.dtype or new_data.shape != self._data.shape:
            self._accumulator = None      # its metadata describes the old data (rule 1.4)
        self._data = new_data

    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    def dim(self):
        return self._data.ndim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    def nelement(self):
        return self._data.size

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    @property
    def dtype(self):
        return _dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def device(self):
        if type(self._data) is np.ndarray:
            return _CPU
        return _device("cuda", self._data.device.id)

    @property
    def is_cuda(self):
        return type(self._data) is not np.ndarray

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def stride(self, dim=None):
        itemsize = self._data.itemsize
        strides = tuple(s // itemsize for s in self._data.strides)
        if dim is None:
            return strides
        return strides[_wrap_dim(dim, self._data.ndim)]

    def is_contiguous(self):
        return bool(self._data.flags.c_contiguous)

    def data_ptr(self):
        if type(self._data) is np.ndarray:
            return self._data.ctypes.data
        return self._data.data.ptr

    def element_size(self):
        return self._data.itemsize

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def numpy(self, *, force=False):
        """The NumPy array behind this tensor, sharing memory (refuses when it requires grad)."""
        if requires_grad(self) and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead.")
        if type(self._data) is not np.ndarray:
            raise TypeError(
                "can't convert cuda:0 device type tensor to numpy. "
                "Use Tensor.cpu() to copy the tensor to host memory first.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()).item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

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
        return _ops._tensor_repr(self)

    def __reduce__(self):
        return (_ops.tensor, (self._data, None, None, requires_grad(self)))

    # ------------------------------------------------------------- autograd state
    @property
    def requires_grad(self):
        return requires_grad(self)

    @requires_grad.setter
    def requires_grad(self, bint value):
        self._set_requires_grad(value, "only Tensors of floating point and complex dtype "
                                       "can require gradients")

    def requires_grad_(self, bint requires_grad=True):
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
        if value and self._data.dtype.kind != "f":
            raise RuntimeError(dtype_error)
        if value and self._is_inference and not is_inference_mode_enabled():
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        self._requires_grad = value

    @property
    def is_leaf(self):
        return self._grad_fn is None

    @property
    def grad_fn(self):
        return get_grad_fn(self)

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def grad(self):
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
        if new_grad._data.shape != self._data.shape:
            raise RuntimeError(
                f"attempting to assign a gradient of size '{list(new_grad._data.shape)}' to a "
                f"tensor of size '{list(self._data.shape)}'. Please ensure that the gradient "
                "and the tensor are the same size")
        if new_grad._data.dtype != self._data.dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{_c10_name(new_grad._data.dtype)}' "
                f"to a tensor with grad_dtype '{new_grad_scalar_name(self._data.dtype)}'. The "
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
        cdef Tensor out = make_tensor(self._data)
        out._version_counter = version_counter(self)
        out._is_inference = self._is_inference
        return out

    def detach_(self):
        """Make this tensor a leaf that does not require grad, in place."""
        if self._base is not None and requires_grad(self._base):
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._output_nr = 0
        self._requires_grad = False
        return self

    def retain_grad(self):
        """Keep the gradient of this non-leaf in ``.grad`` during backward."""
        _hooks_api.retain_grad(self)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; may replace it."""
        return _hooks_api.register_tensor_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after a leaf's ``.grad`` has been accumulated."""
        return _hooks_api.register_post_accumulate_grad_hook(self, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate gradients of this tensor into the leaves (``autograd.backward``)."""
        _ops._backward((self,), gradient, retain_graph, create_graph, inputs=inputs)

    # ----------------------------------------------- ops: forwarded to pyx/ops/
    def __add__(self, other):
        return _fast.add(self, other) if _fast.add is not NULL else _ops.add(self, other)

    def __radd__(self, other):
        return _fast.add(self, other) if _fast.add is not NULL else _ops.add(self, other)

    def __sub__(self, other):
        return _fast.sub(self, other) if _fast.sub is not NULL else _ops.sub(self, other)

    def __rsub__(self, other): return _ops.rsub(self, other)

    def __mul__(self, other):
        return _fast.mul(self, other) if _fast.mul is not NULL else _ops.mul(self, other)

    def __rmul__(self, other):
        return _fast.mul(self, other) if _fast.mul is not NULL else _ops.mul(self, other)

    def __truediv__(self, other): return _ops.div(self, other)
    def __rtruediv__(self, other): return _ops.rdiv(self, other)
    def __pow__(self, other, modulo=None): return _ops.pow(self, other)
    def __rpow__(self, other, modulo=None): return _ops.rpow(self, other)
    def __matmul__(self, other): return _ops.matmul(self, other)
    def __rmatmul__(self, other): return _ops.matmul(_ops.as_tensor(other), self)
    def __neg__(self): return _ops.neg(self)
    def __pos__(self): return self
    def __abs__(self): return _ops.abs(self)

    def __iadd__(self, other):
        return _fast.iadd(self, other) if _fast.iadd is not NULL else _ops.add_(self, other)

    def __isub__(self, other):
        return _fast.isub(self, other) if _fast.isub is not NULL else _ops.sub_(self, other)

    def __imul__(self, other): return _ops.mul_(self, other)
    def __itruediv__(self, other): return _ops.div_(self, other)
    def __ipow__(self, other): return _ops.pow_(self, other)
    def __eq__(self, other): return False if other is None else _ops.eq(self, other)
    def __ne__(self, other): return True if other is None else _ops.ne(self, other)
    def __lt__(self, other): return _ops.lt(self, other)
    def __le__(self, other): return _ops.le(self, other)
    def __gt__(self, other): return _ops.gt(self, other)
    def __ge__(self, other): return _ops.ge(self, other)
    def __and__(self, other): return _ops.bitwise_and(self, other)
    def __rand__(self, other): return _ops.bitwise_and(self, other)
    def __or__(self, other): return _ops.bitwise_or(self, other)
    def __ror__(self, other): return _ops.bitwise_or(self, other)
    def __xor__(self, other): return _ops.bitwise_xor(self, other)
    def __rxor__(self, other): return _ops.bitwise_xor(self, other)
    def __invert__(self): return _ops.bitwise_not(self)
    def __getitem__(self, index): return _ops.getitem(self, index)
    def __setitem__(self, index, value): _ops.setitem(self, index, value)

    def __getattr__(self, name):
        # Every op method (x.exp(), x.sum(dim=1), x.add_(y) ...) resolves here, once
        # per call, to the function of the same name in the op namespace.
        method = _TENSOR_METHODS.get(name)
        if method is None:
            raise AttributeError(f"'Tensor' object has no attribute '{name}'")
        return method.__get__(self, Tensor)

    @property
    def T(self):
        return _ops.permute(self, tuple(range(self._data.ndim - 1, -1, -1)))

    @property
    def mT(self):
        return _ops.transpose(self, -2, -1)


# Names of ops that are also Tensor methods; filled by autograd_cy/__init__.py.
_TENSOR_METHODS = {}


cdef extern from "Python.h":
    void PyType_Modified(PyTypeObject* type)


def _register_methods(dict methods):
    """Make each op in ``methods`` a Tensor method.

    Besides the table that ``__getattr__`` reads, each function also goes into the class
    dict itself, so ``x.exp()`` is an ordinary method lookup (Python's method cache, no
    bound-method object) instead of a failed lookup followed by ``__getattr__``. Names the
    class defines itself keep their definition, as before.
    """
    _TENSOR_METHODS.update(methods)
    cdef dict class_dict = <dict>(<PyTypeObject*>Tensor).tp_dict
    for name, method in methods.items():
        if name not in class_dict and hasattr(method, "__get__"):
            class_dict[name] = method
    PyType_Modified(<PyTypeObject*>Tensor)


class Size(tuple):
    """``tensor.shape``: a tuple that prints like ``torch.Size``."""

    def __repr__(self):
        return f"autograd_cy.Size({list(self)})"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


cdef Py_ssize_t _wrap_dim(Py_ssize_t dim, Py_ssize_t ndim) except -1:
    cdef Py_ssize_t rank = ndim if ndim > 0 else 1
    if dim < -rank or dim >= rank:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], "
            f"but got {dim})")
    return dim + rank if dim < 0 else dim


def wrap_dim(dim, ndim):
    """Normalise a possibly negative dim, with PyTorch's IndexError when out of range."""
    return _wrap_dim(dim, ndim)


_C10_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double",
              "int32": "int", "int64": "long int", "bool": "bool"}


cdef str _c10_name(object numpy_dtype):
    return _C10_NAMES.get(numpy_dtype.name, numpy_dtype.name)


cdef str new_grad_scalar_name(object numpy_dtype):
    return _dtypes.from_numpy_dtype(numpy_dtype)._scalar_name
