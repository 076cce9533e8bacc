# cython: allow_none_for_extension_args=False
"""Strided views and metadata-only in-place ops: as_strided, as_strided_, transpose_ (and
swapdims_, swapaxes_, t_), unsqueeze_, squeeze_, resize_.

``as_strided`` reads the memory the tensor views (the array that owns it, else the autograd
``_base``'s, or the tensor's own) as PyTorch reads a storage: sizes, strides and
``storage_offset`` count elements from the start of that memory. Its backward scatters the
gradient into a zero "storage" at the positions the output read (adding where they
overlap) and gathers the input's positions back, with index_add and index_select, so it is
itself differentiable.

``transpose_``, ``unsqueeze_``, ``squeeze_`` and ``as_strided_`` change only how ``self``
reads its memory: like other
in-place ops they bump the version and make the new node ``self``'s grad_fn, with the old
one as its input (on a view too: the base's history is untouched, as in PyTorch).
"""
import numpy as np
cimport numpy as cnp

from autograd_cy._C.grad_mode cimport (
    is_grad_enabled, is_inference_mode_enabled, forward_level, suspend_forward_level,
    resume_forward_level,
)
from autograd_cy._C.forward cimport set_tangent
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, bump_version, get_grad_fn, wrap_dim,
    version_counter, array_module, tangent_of,
)
from autograd_cy._C.device cimport strided_view, data_address, array_to_device, device_of
from autograd_cy._C.node cimport Node
from autograd_cy._C.recording cimport record1
from autograd_cy._C.views cimport check_inplace, check_inference_inplace, view_tangent
from autograd_cy._C.ops.shape cimport record_view
from autograd_cy._C.ops.shape import transpose, reshape, squeeze, t
from autograd_cy._C.ops.gather_scatter import index_add, index_select

__all__ = ["as_strided", "resize_as_"]
__tensor_methods__ = ("as_strided", "as_strided_", "transpose_", "swapdims_", "swapaxes_",
                      "t_", "unsqueeze_", "squeeze_", "resize_", "resize_as_")


cdef Tensor storage_owner(Tensor self):
    return self._base if self._base is not None else self


cdef object memory_owner(Tensor self):
    """The array whose memory ``self`` reads, as torch's storage: the NumPy array at the end
    of the ``.base`` chain when it holds elements of ``self``'s dtype in C order (so a
    detached slice still reads the whole allocation), else the autograd base's array."""
    array = self._data
    if type(array) is cnp.ndarray:
        root = array
        while type(root.base) is cnp.ndarray:
            root = root.base
        if root.dtype == array.dtype and root.flags.c_contiguous:
            return root
    elif hasattr(type(array), "raw"):        # a DeviceArray: the chain of its seam's arrays
        raw = root = array.raw
        while type(root.base) is type(raw):
            root = root.base
        if root is not raw and root.dtype == raw.dtype and root.flags.c_contiguous:
            return type(array)(root, array.device)
    return storage_owner(self)._data


cdef tuple storage_of(Tensor self):
    """(the owner's memory as a 1-D element array, ``self``'s storage offset in elements)."""
    owner = memory_owner(self)
    itemsize = owner.itemsize
    length = 1 + sum([(n - 1) * s // itemsize for n, s in zip(owner.shape, owner.strides)]) \
        if owner.size else 0
    flat = strided_view(owner, (length,), (itemsize,))    # writeable where owner is
    offset = (data_address(self._data) - data_address(owner)) // itemsize
    return flat, offset


cdef object positions(tuple size, tuple stride, Py_ssize_t offset):
    """The storage index of every element of a ``size``/``stride`` geometry, in C order."""
    index = np.full(size, offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        index = index + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return index.reshape(-1)


cdef object strided_array(Tensor self, tuple size, tuple stride, object storage_offset):
    flat, own_offset = storage_of(self)
    offset = own_offset if storage_offset is None else storage_offset
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    for n in size:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{list(size)}")
    for s in stride:
        if s < 0:
            raise RuntimeError("as_strided: Negative strides are not supported at the moment, "
                               f"got strides: {list(stride)}")
    needed = offset + 1 + sum([(n - 1) * s for n, s in zip(size, stride)]) \
        if all([n > 0 for n in size]) else 0
    if needed > flat.shape[0]:
        itemsize = flat.itemsize
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {needed * itemsize} are out "
            f"of bounds for storage of size {flat.shape[0] * itemsize}")
    itemsize = flat.itemsize
    return strided_view(flat[offset:], size, tuple([s * itemsize for s in stride])), offset


cdef class AsStridedBackward0(Node):
    cdef readonly tuple saved_size, saved_stride
    cdef readonly object saved_storage_offset       # as given (None: self's own)
    cdef object output_positions, input_positions, input_shape
    cdef Py_ssize_t storage_length

    complex_formulas = True     # it only moves (and adds) the gradient's elements

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        grad_array = (<Tensor>grad)._data
        where = device_of(grad_array)       # the positions go where the gradient is
        storage = make_tensor(array_module(grad_array).zeros(self.storage_length,
                                                             grad_array.dtype))
        output_positions = make_tensor(array_to_device(self.output_positions, where))
        input_positions = make_tensor(array_to_device(self.input_positions, where))
        storage = index_add(storage, 0, output_positions, reshape(grad, (-1,)))
        return (reshape(index_select(storage, 0, input_positions), self.input_shape),)


cdef class AsStridedBackward1(AsStridedBackward0):
    pass


cdef void describe(AsStridedBackward0 node, Tensor self, tuple size, tuple stride,
                   Py_ssize_t offset, object flat, Py_ssize_t own_offset,
                   object storage_offset) except *:
    node.saved_size, node.saved_stride, node.saved_storage_offset = size, stride, storage_offset
    itemsize = self._data.itemsize
    node.input_shape = self._data.shape
    node.input_positions = positions(self._data.shape,
                                     tuple([s // itemsize for s in self._data.strides]),
                                     own_offset)
    node.output_positions = positions(size, stride, offset)
    node.storage_length = flat.shape[0]


def as_strided(Tensor self, size, stride, storage_offset=None):
    """A view reading the owner's memory with the given sizes, strides and offset (in
    elements), as ``torch.as_strided``."""
    if self._is_conj:
        # A conjugate view's elements live in the conjugated mirror of its base's memory:
        # the geometry reads the base's memory, and the result is its conjugate view.
        return as_strided(self.conj(), size, stride, storage_offset).conj()
    size, stride = tuple(size), tuple(stride)
    flat, own_offset = storage_of(self)
    array, offset = strided_array(self, size, stride, storage_offset)
    cdef AsStridedBackward0 node = AsStridedBackward0()
    if is_grad_enabled() and requires_grad(self):
        describe(node, self, size, stride, offset, flat, own_offset, storage_offset)
    return record_view(node, self, array)


cdef Tensor restride_in_place(Tensor self, object array, Node node):
    """Make ``self`` read its memory as ``array`` does; record ``node`` as an in-place op.
    A tangent is restrided alike (the same view of the old tangent, as for any view)."""
    get_grad_fn(self)           # a view's grad_fn is brought up to date first
    cdef bint records = is_grad_enabled() and requires_grad(self)
    cdef unsigned long long level = forward_level()
    self_t = tangent_of(self, level) if level and not is_inference_mode_enabled() else None
    if self_t is not None:
        suspend_forward_level()         # as forward1 runs a formula (NOTE [Forward AD])
        try:
            self_t = view_tangent(<Tensor>self_t, make_tensor(self._data), make_tensor(array), ())
        finally:
            resume_forward_level(level)
    self._data = array
    if records:
        record1(node, self, self)
    bump_version(self)
    if records and self._base is not None:
        self._grad_fn_version = version_counter(self).version
    if self_t is not None:
        set_tangent(self, self_t, level)
    return self


def as_strided_(Tensor self, size, stride, storage_offset=None):
    """In-place ``as_strided``: ``self`` itself now reads its memory that way."""
    check_inplace(self, is_grad_enabled() and requires_grad(self))
    size, stride = tuple(size), tuple(stride)
    flat, own_offset = storage_of(self)
    array, offset = strided_array(self, size, stride, storage_offset)
    cdef AsStridedBackward1 node = AsStridedBackward1()
    describe(node, self, size, stride, offset, flat, own_offset, storage_offset)
    return restride_in_place(self, array, node)


cdef class TransposeBackward1(Node):
    cdef readonly Py_ssize_t saved_dim0, saved_dim1

    complex_formulas = True     # it only moves the gradient's elements

    cpdef tuple apply(self, tuple grads):
        return (transpose(grads[0], self.saved_dim0, self.saved_dim1),)


def transpose_(Tensor self, dim0, dim1):
    """In-place transpose: ``self`` now reads its memory with ``dim0`` and ``dim1`` swapped."""
    check_inplace(self, is_grad_enabled() and requires_grad(self))
    cdef TransposeBackward1 node = TransposeBackward1()
    ndim = self._data.ndim
    node.saved_dim0 = wrap_dim(dim0, ndim)
    node.saved_dim1 = wrap_dim(dim1, ndim)
    array = np.swapaxes(self._data, node.saved_dim0, node.saved_dim1) if ndim else self._data
    return restride_in_place(self, array, node)


def swapdims_(Tensor self, dim0, dim1):
    """``transpose_`` by another name, as torch's."""
    return transpose_(self, dim0, dim1)


def swapaxes_(Tensor self, axis0, axis1):
    """``transpose_`` by NumPy's name, as torch's."""
    return transpose_(self, axis0, axis1)


cdef class TBackward1(Node):
    complex_formulas = True     # it only moves the gradient's elements

    cpdef tuple apply(self, tuple grads):
        return (t(grads[0]),)


def t_(Tensor self):
    """In-place ``t()``: a matrix reads its memory transposed; fewer dims are unchanged."""
    ndim = self._data.ndim
    if ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    check_inplace(self, is_grad_enabled() and requires_grad(self))
    return restride_in_place(self, self._data.T if ndim == 2 else self._data, TBackward1())


cdef class UnsqueezeBackward1(Node):
    cdef readonly Py_ssize_t saved_dim

    complex_formulas = True     # it only moves the gradient's elements

    cpdef tuple apply(self, tuple grads):
        return (squeeze(grads[0], self.saved_dim),)


def unsqueeze_(Tensor self, dim):
    """In-place ``unsqueeze``: ``self`` gains a dim of size 1 at ``dim``."""
    cdef UnsqueezeBackward1 node = UnsqueezeBackward1()
    node.saved_dim = wrap_dim(dim, self._data.ndim + 1)
    check_inplace(self, is_grad_enabled() and requires_grad(self))
    return restride_in_place(self, np.expand_dims(self._data, node.saved_dim), node)


cdef class SqueezeBackward3(Node):
    """``squeeze_()``'s backward (SqueezeBackward4: of one dim, 5: of several): the
    gradient reshaped to the input's sizes, the squeezed dims of size 1 back in place."""
    cdef readonly tuple saved_self_sym_sizes

    complex_formulas = True     # it only moves the gradient's elements

    cpdef tuple apply(self, tuple grads):
        return (reshape(grads[0], self.saved_self_sym_sizes),)


cdef class SqueezeBackward4(SqueezeBackward3):
    cdef readonly object saved_dim


cdef class SqueezeBackward5(SqueezeBackward4):
    pass


def squeeze_(Tensor self, dim=None):
    """In-place ``squeeze``: ``self`` loses its dims of size 1 (all, or those of ``dim``)."""
    cdef SqueezeBackward3 node
    shape = self._data.shape
    if dim is None:
        node = SqueezeBackward3()
        axes = tuple(i for i, n in enumerate(shape) if n == 1)
    else:
        node = SqueezeBackward4() if isinstance(dim, int) else SqueezeBackward5()
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        wrapped = tuple(wrap_dim(d, self._data.ndim) for d in dims)
        (<SqueezeBackward4>node).saved_dim = wrapped[0] if isinstance(dim, int) else wrapped
        axes = tuple(d for d in wrapped if self._data.ndim and shape[d] == 1)
    node.saved_self_sym_sizes = shape
    check_inplace(self, is_grad_enabled() and requires_grad(self))
    return restride_in_place(self, np.squeeze(self._data, axis=axes) if axes
                             else self._data, node)


def resize_as_(Tensor self, Tensor the_template, *, memory_format=None):
    """``resize_`` to ``the_template``'s shape."""
    return resize_(self, tuple(the_template._data.shape), memory_format=memory_format)


def resize_(Tensor self, *sizes, memory_format=None):
    """Give ``self`` the shape ``sizes`` (contiguous), keeping the elements it had in order;
    new elements are uninitialised. Not for tensors that require grad."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    check_inference_inplace(self)
    # Inference mode skips autograd's kernels, and with them this check.
    if requires_grad(self) and not is_inference_mode_enabled():
        raise RuntimeError("cannot resize variables that require grad")
    for n in sizes:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{list(sizes)}")
    old = self._data
    if old.shape == tuple(sizes):
        return self
    new = array_module(old).empty(tuple(sizes), old.dtype)
    kept = min(old.size, new.size)
    new.reshape(-1)[:kept] = old.reshape(-1)[:kept]
    self._data = new
    # A new shape is a write (saved values of self would be stale); the same shape is not.
    bump_version(self)
    return self
