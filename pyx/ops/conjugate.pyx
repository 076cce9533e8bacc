# cython: allow_none_for_extension_args=False
"""Complex numbers: ``conj``, ``real``, ``imag``, ``complex``, and the conjugate that every
backward formula takes of what it multiplies the gradient by.

# NOTE [Complex gradients]
A real loss L of a complex z = x + iy has two real derivatives, dL/dx and dL/dy. PyTorch's
convention, followed here, is that ``z.grad`` holds dL/dx + i dL/dy: the conjugate
Wirtinger derivative, times two. It is the direction of steepest ascent, so ``z -= lr *
z.grad`` descends L as it does for a real parameter.

For an op w = f(z) with f holomorphic (exp, mul, matmul ...), the chain rule in this
convention is ``grad_z = grad_w * conj(f'(z))``: the formulas are the real ones with every
factor conjugated. So ``MulBackward0`` returns ``grad * conj(other)`` and ``ExpBackward0``
``grad * conj(result)``. ``conj_of`` is that conjugate: a complex tensor's conjugate, a
recorded op so that double backward sees it, and the value itself (no node, no copy) for a
real tensor or a real number, so the real formulas pay a type test and nothing else.

An op that is not holomorphic (abs, real, imag, angle) has its own formula, from the two
real derivatives. A real input of a complex computation receives the real part of its
complex gradient (validate_outputs): dL/dx, its own derivative.

A formula is right for complex tensors only once it takes those conjugates, so a Node
class says so with ``complex_formulas = True``; recording a Node without it on a complex
tensor raises NotImplementedError naming the Node (NOTE [Complex formulas gate] in
recording.pyx), rather than returning a wrong gradient.
"""
import builtins

import numpy as np
cimport numpy as cnp

from autograd_cy._C.grad_mode cimport forward_level, is_grad_enabled
from autograd_cy._C.forward cimport forward1, forward2, batch_unary, UnaryTangent
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, make_view, array_module, register_methods, requires_grad,
    conj_counterpart, tensor_operators)
from autograd_cy._C.node cimport Node
from autograd_cy._C.recording cimport (
    record1, record2, any_requires_grad2, view_records)
from autograd_cy._C.dtype cimport scalar_name
from autograd_cy._C.promotion cimport is_complex_array
from autograd_cy._C.views cimport apply_inplace

cnp.import_array()

__all__ = ["conj", "conj_physical", "conj_physical_", "resolve_conj", "is_conj", "resolve_neg",
           "is_neg", "isreal", "real", "imag", "complex"]
__tensor_methods__ = ("conj", "conj_physical", "conj_physical_", "resolve_conj", "is_conj",
                      "resolve_neg", "is_neg", "isreal")


cdef type PYTHON_COMPLEX = builtins.complex       # this module's ``complex`` is the op


cdef object conjugate(object x):
    """conj_of's other cases: ``conj_physical(x)`` for a complex tensor, ``x.conjugate()``
    for a complex number, ``x`` itself otherwise."""
    if isinstance(x, Tensor):
        return conj_physical(<Tensor>x) if is_complex_array((<Tensor>x)._data) else x
    if isinstance(x, PYTHON_COMPLEX):
        return x.conjugate()
    return x


# ------------------------------------------------------------------ conj

cdef class ConjBackward0(Node):
    """The conjugate of the gradient: conj is its own adjoint."""
    batches_gradients = True
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        return (conj_of(grads[0]),)


cdef object new_conj_node(object unused):
    return ConjBackward0.__new__(ConjBackward0)


# views.pyx rebuilds a conjugate view's grad_fn with it (NOTE [Conjugate views] in tensor.pyx)
tensor_operators().conj_node = new_conj_node


cdef class ConjPhysicalBackward0(ConjBackward0):
    pass


cdef class ConjPhysicalBackward1(ConjBackward0):
    """conj_physical_'s Node (torch numbers the in-place form's apart)."""


cdef object conj_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return conj_of(self_t)


cdef object conj_view_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """A conjugate view's tangent is the conjugate view of its base's (NOTE [Tangents of
    views and in-place ops] in views.pyx), so an in-place change of either shows in both."""
    return conj(self_t)


cdef Tensor conjugated(Tensor self, Node node):
    """The conjugate of a complex ``self`` as a new tensor, recorded with ``node``."""
    cdef Tensor out = make_tensor(np.conjugate(self._data))
    if is_grad_enabled() and requires_grad(self):
        record1(node, self, out)
    if forward_level():
        forward1(out, self, conj_tangent)
    return out


def conj_physical(Tensor self):
    """The complex conjugate, computed now; a real tensor is returned as it is."""
    if not is_complex_array(self._data):
        return self
    return conjugated(self, ConjPhysicalBackward0.__new__(ConjPhysicalBackward0))


cdef bint has_mirror_layout(Tensor self):
    """Can the memory under ``self`` have a conjugate mirror? Complex numbers can; the real
    numbers under a view_as_complex only as one contiguous run (NOTE [Conjugate views])."""
    cdef Tensor owner = self._base if self._base is not None else self
    return is_complex_array(owner._data) or owner.is_contiguous()


def conj(Tensor self):
    """The complex conjugate as a view (``ConjBackward0``): ``is_conj()`` is True, and writes
    through either tensor show in the other (NOTE [Conjugate views] in tensor.pyx). The
    conjugate of a conjugate view is a plain view of the memory again; a real tensor is
    returned as it is."""
    if not is_complex_array(self._data):
        return self
    if not has_mirror_layout(self):
        return conjugated(self, ConjBackward0.__new__(ConjBackward0))
    cdef Tensor out = make_view(conj_counterpart(self), self)
    out._is_conj = not self._is_conj
    if view_records(self):
        record1(ConjBackward0.__new__(ConjBackward0), self, out)
    if forward_level():
        forward1(out, self, conj_view_tangent)
    return out


def conj_physical_(Tensor self):
    """conj_physical in place; a real tensor is left as it is."""
    if not is_complex_array(self._data):
        return self
    return apply_inplace(
        self, lambda x: conjugated(x, ConjPhysicalBackward1.__new__(ConjPhysicalBackward1)),
        (), False)


def is_conj(Tensor self):
    """Is this a conjugate view (``conj()`` of a complex tensor, or a view of one)?"""
    return self._is_conj and is_complex_array(self._data)


def resolve_conj(Tensor self):
    """A conjugate view's values in memory of their own (a clone); any other tensor itself."""
    return self.clone() if is_conj(self) else self


def is_neg(Tensor self):
    """Is this the imaginary part of a conjugate view, torch's tensor with the negative
    bit (its memory holds the negated values, NOTE [Conjugate views])?"""
    return self._is_conj and not is_complex_array(self._data)


def resolve_neg(Tensor self):
    """A negative-bit tensor's values in memory of their own (a clone); any other itself."""
    return self.clone() if is_neg(self) else self


def isreal(Tensor self):
    """Where the imaginary part is zero; every element of a real tensor."""
    if is_complex_array(self._data):
        return make_tensor(self._data.imag == 0)
    return make_tensor(array_module(self._data).ones(self._data.shape, dtype=np.bool_))


# ------------------------------------------------------------------ complex(real, imag)

cdef object parts_to_complex(object real_part, object imag_part):
    """The complex array ``real_part + i imag_part`` (either may be None: zeros)."""
    like = real_part if real_part is not None else imag_part
    xp = array_module(like)
    dtype = np.complex128 if like.dtype == np.float64 else np.complex64
    array = xp.zeros(like.shape, dtype=dtype)
    if real_part is not None:
        array.real = real_part
    if imag_part is not None:
        array.imag = imag_part
    return array


cdef void check_parts(object a, object b) except *:
    """PyTorch's errors for the arrays of two parts of complex numbers (complex, polar): one
    floating dtype (half, float or double)."""
    if a.dtype != b.dtype:
        raise RuntimeError(f"Expected object of scalar type {scalar_name(a.dtype)} but got "
                           f"scalar type {scalar_name(b.dtype)} for second argument")
    if a.dtype.kind != "f":
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{scalar_name(a.dtype)} and {scalar_name(b.dtype)}")


cdef class ComplexBackward0(Node):
    """``complex(real, imag)``: the real part of the gradient to ``real``, its imaginary part
    to ``imag`` (their derivatives dL/dx and dL/dy, NOTE [Complex gradients])."""
    batches_gradients = True
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        return (real(grad) if self.should_compute_output(0) else None,
                imag(grad) if self.should_compute_output(1) else None)


cdef object complex_tangent(real_t, imag_t, real_part, imag_part, Tensor result, tuple extra):
    zeros = make_tensor(array_module(result._data).zeros(result._data.shape,
                                                         dtype=(<Tensor>real_part)._data.dtype))
    return complex(zeros if real_t is None else real_t, zeros if imag_t is None else imag_t)


def complex(Tensor real, Tensor imag, *, out=None):
    """The complex tensor ``real + i imag`` of two floating tensors of one dtype."""
    a, b = real._data, imag._data
    check_parts(a, b)
    if a.dtype == np.float16:
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{scalar_name(a.dtype)} and {scalar_name(b.dtype)}")
    xp = array_module(a)
    shape = np.broadcast_shapes(a.shape, b.shape)
    cdef Tensor result = make_tensor(parts_to_complex(xp.broadcast_to(a, shape),
                                                      xp.broadcast_to(b, shape)))
    if any_requires_grad2(real, imag):
        record2(ComplexBackward0.__new__(ComplexBackward0), real, imag, result)
    if forward_level():
        forward2(result, real, imag, complex_tangent)
    return result


# ------------------------------------------------------------------ real / imag

cdef class RealBackward0(Node):
    """The gradient of the real part, as a complex gradient with no imaginary part."""
    batches_gradients = True
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        return (complex(grads[0], zeros_like(grads[0])),)


cdef class ImagBackward0(Node):
    """The gradient of the imaginary part goes to the imaginary part: ``i * grad``."""
    batches_gradients = True
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        return (complex(zeros_like(grads[0]), grads[0]),)


cdef Tensor zeros_like(Tensor t):
    return make_tensor(array_module(t._data).zeros_like(t._data))


cdef object real_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return real(self_t)


cdef object imag_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return imag(self_t)


cdef Tensor part_view(Tensor self, object array, bint in_mirror, Node node,
                      UnaryTangent tangent):
    """``array`` (the real or imaginary part of ``self``'s memory) as a view of ``self``;
    ``in_mirror``: it is the imaginary part of a conjugate view (NOTE [Conjugate views])."""
    cdef Tensor out = make_view(array, self)
    out._is_conj = in_mirror
    if view_records(self):
        record1(node, self, out)
    if forward_level():
        forward1(out, self, tangent)
    return out


def real(Tensor self):
    """The real part of a complex tensor, a view of its memory; a real tensor itself. A
    conjugate view's real part is its base's (NOTE [Conjugate views])."""
    if not is_complex_array(self._data):
        return self
    array = conj_counterpart(self) if self._is_conj else self._data
    return part_view(self, array.real, False, RealBackward0.__new__(RealBackward0), real_tangent)


def imag(Tensor self):
    """The imaginary part of a complex tensor, a view of its memory."""
    if not is_complex_array(self._data):
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return part_view(self, self._data.imag, self._is_conj,
                     ImagBackward0.__new__(ImagBackward0), imag_tangent)


def _set_real(Tensor self, value):
    real(self).copy_(value)


def _set_imag(Tensor self, value):
    imag(self).copy_(value)


batch_unary(real_tangent)
batch_unary(imag_tangent)
batch_unary(conj_tangent)
batch_unary(conj_view_tangent)
register_methods({"real": property(real, _set_real, doc=real.__doc__),
                  "imag": property(imag, _set_imag, doc=imag.__doc__)})


# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
from autograd_cy._C.forward cimport complex_unary, complex_binary
complex_unary(conj_tangent)
complex_unary(conj_view_tangent)
complex_unary(real_tangent)
complex_unary(imag_tangent)
complex_binary(complex_tangent)
