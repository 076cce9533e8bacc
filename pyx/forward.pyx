"""Forward-mode AD: the tangents that ride on tensors, and how an op propagates them.

# NOTE [Forward AD]
Inside a dual level (``autograd_cy.autograd.forward_ad.dual_level``) a tensor may carry a
*tangent* (``Tensor._fw_grad``), a tensor of its shape: the directional derivative of its
value along the direction the user seeded with ``make_dual``. Each op computes its output's
tangent from its inputs' tangents with its *tangent formula* (the Jacobian-vector product),
written right below its backward Node in the op's module, e.g. for ``exp``::

    def exp_tangent(self_t, self, result):
        return mul(self_t, result)

    def exp(Tensor self):
        out = ...
        if is_grad_enabled() and requires_grad(self):
            record1(ExpBackward0(), self, out, (out,))
        if forward_level():                      # one load outside a dual level
            forward1(out, self, exp_tangent)

``forward1`` / ``forward2`` / ``forward_n`` call the formula only when an input has a
tangent, with the inputs' tangents first (None for an input without one: the formula skips
that term, a missing tangent is zero), then the inputs, the result and any extra
arguments. The formula runs with the level suspended, so the primals it reads do not
propagate tangents of their own (forward AD is not nested), and under the current grad
mode, with Tensor ops: reverse mode records it, so a tangent can be differentiated
(reverse-over-forward). The tangent is set *after* the op recorded its node, as PyTorch
does, so that the formula's graph reaches the inputs through the output's grad_fn; then
``set_tangent`` hands it to the node's saved copy of the output too, so that backward
formulas run on dual tensors (forward-over-reverse: forward AD through a backward built
with ``create_graph=True``, what a Hessian-vector product needs).

Ops inside ``inference_mode`` propagate no tangent (as in PyTorch); ``no_grad`` does not
stop forward AD. An op that has no formula yet calls ``no_forward_formula``, which raises
PyTorch's error when an input has a tangent: a tangent is never dropped silently.
"""
cimport numpy as cnp
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
    kind = (<object>cnp.PyArray_DESCR(<cnp.ndarray>array)).kind if type(array) is cnp.ndarray \
        else array.dtype.kind
    if kind != "f" and kind != "c":
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
    """``formula(*args)`` with the level suspended (the primals' tangents are not
    propagated by the formula's own ops)."""
    suspend_forward_level()
    try:
        result = PyObject_CallObject(formula, args)
    finally:
        resume_forward_level(level)
    return result


cdef void forward1(Tensor out, object x, object formula, tuple extra=()) except *:
    """``out = op(x)``: ``out``'s tangent is ``formula(x_t, x, out, *extra)`` if x has one."""
    cdef unsigned long long level = forward_level()
    x_t = tangent_of(x, level)
    if x_t is None or is_inference_mode_enabled():
        return
    args = (x_t, x, out) + extra if extra else (x_t, x, out)
    set_tangent(out, run_formula(formula, args, level), level)


cdef void forward2(Tensor out, object a, object b, object formula, tuple extra=()) except *:
    """``out = op(a, b)``: ``formula(a_t, b_t, a, b, out, *extra)`` if either has a tangent
    (the other's is None; a Python number has none)."""
    cdef unsigned long long level = forward_level()
    a_t = tangent_of(a, level)
    b_t = tangent_of(b, level)
    if (a_t is None and b_t is None) or is_inference_mode_enabled():
        return
    args = (a_t, b_t, a, b, out) + extra if extra else (a_t, b_t, a, b, out)
    set_tangent(out, run_formula(formula, args, level), level)


cdef void forward_n(Tensor out, tuple inputs, object formula, tuple extra=()) except *:
    """``out = op(*inputs)``: ``formula(tangents, inputs, out, *extra)``, ``tangents`` a
    tuple with None for each input without one."""
    cdef unsigned long long level = forward_level()
    if not any_tangent(inputs, level) or is_inference_mode_enabled():
        return
    tangents = tuple([tangent_of(x, level) for x in inputs])
    set_tangent(out, run_formula(formula, (tangents, inputs, out) + extra, level), level)


cdef bint any_tangent(tuple inputs, unsigned long long level):
    for x in inputs:
        if tangent_of(x, level) is not None:
            return True
    return False


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
