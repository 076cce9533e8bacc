"""Forward-mode AD: the tangents that ride on tensors, and how an op propagates them.

# NOTE [Forward AD]
Inside a dual level (``autograd_cy.autograd.forward_ad.dual_level``) a tensor may carry a
*tangent* (``Tensor._fw_grad``), a tensor of its shape: the directional derivative of its
value along the direction the user seeded with ``make_dual``. Each op computes its output's
tangent from its inputs' tangents with its *tangent formula* (the Jacobian-vector product),
written right below its backward Node in the op's module, e.g. for ``exp``::

    cdef object exp_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
        return mul(self_t, result)

    def exp(Tensor self):
        out = ...
        if is_grad_enabled() and requires_grad(self):
            record1(ExpBackward0(), self, out, (out,))
        if forward_level():                      # one load outside a dual level
            forward1(out, self, exp_tangent)

A formula is a C function of the type its arity needs (``UnaryTangent``, ``BinaryTangent``,
``NaryTangent`` in forward.pxd), so propagating a tangent costs no Python call.
``forward1`` / ``forward2`` / ``forward_n`` call it only when an input has a tangent, with
the inputs' tangents first (None for an input without one: the formula skips that term, a
missing tangent is zero), then the inputs, the result and the op's ``extra`` arguments (a
tuple, ``()`` when it has none: ``forward1(out, self, softmax_tangent, (dim,))``). The
formula runs with the level suspended, so the primals it reads do not propagate tangents of
their own (forward AD is not nested), and under the current grad mode, with Tensor ops:
reverse mode records it, so a tangent can be differentiated (reverse-over-forward). The tangent is set *after* the op recorded its node, as PyTorch
does, so that the formula's graph reaches the inputs through the output's grad_fn; then
``set_tangent`` hands it to the node's saved copy of the output too, so that backward
formulas run on dual tensors (forward-over-reverse: forward AD through a backward built
with ``create_graph=True``, what a Hessian-vector product needs).

Ops inside ``inference_mode`` propagate no tangent (as in PyTorch); ``no_grad`` does not
stop forward AD. An op that has no formula yet calls ``no_forward_formula``, which raises
PyTorch's error when an input has a tangent: a tangent is never dropped silently.
"""
cimport numpy as cnp
from libc.string cimport memcpy
from cpython.object cimport PyObject_CallObject

from autograd_cy._C.grad_mode cimport (
    forward_level, suspend_forward_level, resume_forward_level, is_inference_mode_enabled,
)
from autograd_cy._C.tensor cimport Tensor, tangent_of
from autograd_cy._C.node cimport Node
from autograd_cy._C.saved_tensor cimport SavedTensor, save
from autograd_cy._C.tensor cimport make_tensor, array_module

cnp.import_array()


cdef void set_tangent(Tensor out, object tangent, unsigned long long level) except *:
    """Give ``out`` its ``tangent`` at ``level`` (an integer output or a None tangent gets
    none), and the saved copy of ``out`` in its own node too (NOTE [Saved tensors])."""
    if tangent is None:
        return
    array = out._data
    cdef char kind = ((<cnp.ndarray>array).descr.kind if type(array) is cnp.ndarray
                      else (<cnp.dtype>array.dtype).kind)
    if kind != b"f" and kind != b"c":
        return
    out._fw_grad = tangent
    out._fw_level = level
    grad_fn = out._grad_fn
    if grad_fn is None or (<Node>grad_fn).saved_tensors is None:
        return
    for entry in (<Node>grad_fn).saved_tensors:
        if (entry is not None and (<SavedTensor>entry).is_output
                and (<SavedTensor>entry).data is out._data):
            (<SavedTensor>entry).fw_grad = (tangent, level)


cdef object run_formula(object formula, tuple args, unsigned long long level):
    """``formula(*args)``, a Python callable (a custom Function's ``jvp``, make_dual's view),
    with the level suspended (the primals' tangents are not propagated by its own ops)."""
    suspend_forward_level()
    try:
        return PyObject_CallObject(formula, args)
    finally:
        resume_forward_level(level)


# The formula runs with the level suspended; try/finally restores it when the formula
# raises (on the normal path Cython's finally is plain C, no exception state is touched).

cdef void forward1(Tensor out, object x, UnaryTangent formula, tuple extra=()) except *:
    """``out = op(x)``: ``out``'s tangent is ``formula(x_t, x, out, extra)`` if x has one."""
    cdef unsigned long long level = forward_level()
    x_t = tangent_of(x, level)
    if x_t is None or is_inference_mode_enabled():
        return
    suspend_forward_level()
    try:
        tangent = formula(<Tensor>x_t, <Tensor>x, out, extra)
    finally:
        resume_forward_level(level)
    set_tangent(out, tangent, level)


cdef void forward2(Tensor out, object a, object b, BinaryTangent formula,
                   tuple extra=()) except *:
    """``out = op(a, b)``: ``formula(a_t, b_t, a, b, out, extra)`` if either has a tangent
    (the other's is None; a Python number has none)."""
    cdef unsigned long long level = forward_level()
    a_t = tangent_of(a, level)
    b_t = tangent_of(b, level)
    if (a_t is None and b_t is None) or is_inference_mode_enabled():
        return
    suspend_forward_level()
    try:
        tangent = formula(a_t, b_t, a, b, out, extra)
    finally:
        resume_forward_level(level)
    set_tangent(out, tangent, level)


cdef void forward_n(Tensor out, tuple inputs, NaryTangent formula, tuple extra=()) except *:
    """``out = op(*inputs)``: ``formula(tangents, inputs, out, extra)``, ``tangents`` a
    tuple with None for each input without one."""
    cdef unsigned long long level = forward_level()
    if not any_tangent(inputs, level) or is_inference_mode_enabled():
        return
    tangents = tuple([tangent_of(x, level) for x in inputs])
    suspend_forward_level()
    try:
        tangent = formula(tangents, inputs, out, extra)
    finally:
        resume_forward_level(level)
    set_tangent(out, tangent, level)


cdef object linear_tangent(Tensor x_t, Tensor x, Tensor result, tuple extra):
    """The formula of an op linear in its input (a repeat, a reshape, a backward linear in
    its gradient): the op itself on the tangent, ``op(x_t, *rest)`` for ``extra = (op,
    *rest)``. ``op`` is the op's Python function (a ``def`` taking Python arguments), which
    the formula would call through Python anyway."""
    return extra[0](x_t, *extra[1:])


cdef bint any_tangent(tuple inputs, unsigned long long level):
    for x in inputs:
        if tangent_of(x, level) is not None:
            return True
    return False


cdef object array_copy(cnp.ndarray array):
    """A copy of ``array``: one memcpy when it is one native-order C block (NumPy's general
    copy costs more than the copy itself on a small tangent)."""
    if not (cnp.PyArray_ISCARRAY_RO(array) and cnp.PyArray_ISNOTSWAPPED(array)):
        return cnp.PyArray_NewCopy(array, cnp.NPY_KEEPORDER)
    cdef cnp.ndarray copy = cnp.PyArray_SimpleNew(cnp.PyArray_NDIM(array), cnp.PyArray_DIMS(array),
                                                  cnp.PyArray_TYPE(array))
    memcpy(cnp.PyArray_DATA(copy), cnp.PyArray_DATA(array), cnp.PyArray_NBYTES(array))
    return copy


NOT_IMPLEMENTED_YET = (
    " because it has not been implemented yet.\nPlease file an issue to PyTorch at "
    "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that we can "
    "prioritize its implementation or submit a PR adding the implementation to derivatives.yaml")


cdef void no_forward_formula(str op_name, tuple inputs, str reason=NOT_IMPLEMENTED_YET) except *:
    """PyTorch's error for an op without a tangent formula that meets a dual tensor
    (``reason``: why, as PyTorch words it; an op with no derivative at all says ".")."""
    cdef unsigned long long level = forward_level()
    if level and not is_inference_mode_enabled() and any_tangent(inputs, level):
        raise NotImplementedError(
            f"Trying to use forward AD with {op_name} that does not support it{reason}")


cdef object pointwise_tangent(Node node, tuple saved, tuple tangents, Tensor result):
    """The tangent of an elementwise op from its backward Node: its Jacobian is diagonal, so
    ``J v`` is the backward formula applied to the tangent as the gradient, one input at a
    time (``tangents[i]`` None: that term is skipped). ``node`` is a fresh instance with
    its attributes (``saved_exponent`` ...) set; ``saved`` what its ``saved_tensors`` hold."""
    cdef Py_ssize_t i, n = len(tangents)
    node.saved_tensors = tuple([None if x is None or not isinstance(x, Tensor)
                                else save(<Tensor>x, False, True) for x in saved])
    total = None
    for i in range(n):
        if tangents[i] is None:
            continue
        node.output_mask = tuple([j == i for j in range(n)])
        term = node.apply((tangents[i],))[i]
        total = term if total is None else total + term
    if total is not None and (<Tensor>total)._data.shape != result._data.shape:
        total = total + make_tensor(array_module(result._data).zeros_like(result._data))
    return total


# ------------------------------------------------------------------ Python access

def _tangent(Tensor t):
    """``t``'s tangent at the active level, or None (``unpack_dual``'s tangent)."""
    return tangent_of(t, forward_level())


def _set_tangent(Tensor t, tangent):
    """Make ``tangent`` ``t``'s tangent at the active level (``make_dual``)."""
    set_tangent(t, tangent, forward_level())


def _run_suspended(formula, *args):
    """``formula(*args)`` with forward AD suspended (``make_dual`` builds its view so)."""
    return run_formula(formula, args, forward_level())
