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
reverse mode records it, so a tangent can be differentiated (reverse-over-forward). The
tangent is set *after* the op recorded its node, as PyTorch does, so that the formula's
graph reaches the inputs through the output's grad_fn; then
``set_tangent`` hands it to the node's saved copy of the output too, so that backward
formulas run on dual tensors (forward-over-reverse: forward AD through a backward built
with ``create_graph=True``, what a Hessian-vector product needs).

Ops inside ``inference_mode`` propagate no tangent (as in PyTorch); ``no_grad`` does not
stop forward AD. An op that has no formula yet calls ``no_forward_formula``, which raises
PyTorch's error when an input has a tangent: a tangent is never dropped silently.

# NOTE [Batched tangents]
gradcheck's ``check_batched_forward_grad`` asks whether the tangent formulas stay right when
every tangent carries a leading batch dim: PyTorch runs forward AD under vmap with a batch of
tangents on unbatched primals. Here a private switch does it (``forward_ad._batched_tangents
(B)``; ``tangent_batch()`` in batching.pyx): while it is on, every tangent has the shape
``(B, *shape)``, its primal ``shape``, and the formulas run in one of two ways:

- a formula that has been read for it is *registered* (``batch_unary`` / ``batch_binary``
  / ``batch_nary``, next to the formulas, in the op modules) and runs once on the batched
  tangents, with ``grads_batched()`` on: the vocabulary of NOTE [Batched gradients]
  (``batched_dim``, ``batched_shape``; a Node of ``batches_gradients``) applies to a batched
  tangent as to a batched gradient. An elementwise formula registers with ``align``: its
  tangents are first given the output's rank (``(B, 3)`` for an output of ``(2, 3)`` becomes
  ``(B, 1, 3)``), so they broadcast as the primals do;
- any other formula runs once per batch row with the switch off (a custom Function's ``jvp``
  too, as under PyTorch's vmap fallback), and the rows are stacked: right, B times slower.

So inside a formula ``grads_batched()`` says whether *its tangents* are batched: a formula
that runs inside a batched backward (forward-over-reverse under ``is_grads_batched``) sees it
off, as its tangents are not.

The check then compares one batched pass with one pass per tangent; only a registered formula
can make them differ, so only those are under test. Tangents in a batched pass are values:
the per-row rows and the aligned tangents carry no graph (the check never differentiates
them).
"""
cimport numpy as cnp
from libc.string cimport memcpy
from cpython.object cimport PyObject_CallObject

from autograd_cy._C.grad_mode cimport (
    forward_level, suspend_forward_level, resume_forward_level, is_inference_mode_enabled,
)
from autograd_cy._C.tensor cimport Tensor, tangent_of, tensor_operators
from autograd_cy._C.node cimport Node
from autograd_cy._C.saved_tensor cimport SavedTensor, save
from autograd_cy._C.tensor cimport make_tensor, array_module
from autograd_cy._C.promotion cimport is_complex_array
from autograd_cy._C.batching cimport (
    tangent_batch, set_tangent_batch, grads_batched, set_grads_batched, stack_rows,
)

cnp.import_array()


cdef void set_tangent(Tensor out, object tangent, unsigned long long level) except *:
    """Give ``out`` its ``tangent`` at ``level`` (an integer output or a None tangent gets
    none), and the saved copy of ``out`` in its own node too (NOTE [Saved tensors])."""
    if tangent is None:
        return
    array = out._data
    cdef char kind = ((<cnp.ndarray>array).descr.kind if type(array) is cnp.ndarray
                      else (<cnp.dtype>array.dtype).kind)
    if kind != b"f" and kind != b"c" and kind != b"V":     # V: NOTE [bfloat16's kind]
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

# NOTE [Complex tangents]
# A tangent formula is a Jacobian-vector product, and for complex tensors PyTorch's convention
# is the plain one: the tangent of ``w = f(z)`` is what ``w`` moves by when ``z`` moves by
# ``dz``. For a holomorphic f (exp, mul, matmul, a view ...) that is ``f'(z) * dz``: the real
# formula as written, with no conjugate, unlike the backward formulas (NOTE [Complex
# gradients] in ops/conjugate.pyx), which multiply by ``conj(f'(z))``. So a tangent formula
# that reuses its backward Node (``pointwise_tangent``) is wrong for complex tensors as it is;
# conjugating its tangent in and its result out, ``conj(J^H conj(dz))``, gives ``f'(z) dz``
# back for a holomorphic op. An op that is not holomorphic moves with ``dz`` and
# ``conj(dz)``, and has a formula of its own: ``abs``'s tangent is ``Re(conj(z) dz) / |z|``,
# ``conj``'s is ``conj(dz)``, ``real``'s ``Re(dz)``.
#
# As in reverse mode (NOTE [Complex formulas gate] in recording.pyx), a formula is trusted
# with complex tensors only once someone has checked it against PyTorch's: its module
# registers it (``complex_unary`` / ``complex_binary`` / ``complex_nary``, next to the
# batching registrations). Any other formula meeting a complex input or output raises
# NotImplementedError naming the op, rather than propagating a wrong tangent. The real path
# pays the dtype test of the output and the inputs, no lookup.

cdef set complex_formulas = set()   # the addresses of the formulas checked for complex


cdef void complex_unary(UnaryTangent formula) except *:
    """Register ``formula`` as right for complex tensors (NOTE [Complex tangents])."""
    complex_formulas.add(<size_t><void*>formula)


cdef void complex_binary(BinaryTangent formula) except *:
    complex_formulas.add(<size_t><void*>formula)


cdef void complex_nary(NaryTangent formula) except *:
    complex_formulas.add(<size_t><void*>formula)


cdef inline bint complex_tensor(object x):
    return isinstance(x, Tensor) and is_complex_array((<Tensor>x)._data)


cdef void check_complex_tangent(size_t formula, Tensor out, tuple extra) except *:
    """Refuse ``formula``, which meets a complex output or input, unless it is registered
    (NOTE [Complex tangents])."""
    if formula in complex_formulas:
        return
    if formula == <size_t><void*>linear_tangent:
        name = extra[0].__name__
    elif out._grad_fn is not None:
        name = f"{type(out._grad_fn).__name__}'s op"
    elif extra and isinstance(extra[0], Node):       # a formula that runs a Node's
        name = f"{type(extra[0]).__name__}'s op"
    else:
        name = "an op"
    raise NotImplementedError(
        f"forward-mode AD of {name} for complex tensors is not implemented in autograd_cy "
        "yet (its tangent formula has not been checked for them); compute it in reverse "
        "mode or on real tensors")


cdef object complex_valued(object tangent, Tensor out):
    """A complex output's tangent as a complex tensor: a real one (a real input's tangent
    passed on by ``add``) plus ``0j``, recorded, as PyTorch gives a complex output a complex
    tangent."""
    if (tangent is None or not is_complex_array(out._data)
            or is_complex_array((<Tensor>tangent)._data)):
        return tangent
    return tensor_operators().add(tangent, 0j)


cdef void forward1(Tensor out, object x, UnaryTangent formula, tuple extra=()) except *:
    """``out = op(x)``: ``out``'s tangent is ``formula(x_t, x, out, extra)`` if x has one."""
    cdef unsigned long long level = forward_level()
    x_t = tangent_of(x, level)
    if x_t is None or is_inference_mode_enabled():
        return
    if is_complex_array(out._data) or is_complex_array((<Tensor>x)._data):
        check_complex_tangent(<size_t><void*>formula, out, extra)
    suspend_forward_level()
    try:
        if tangent_batch() or grads_batched():
            tangent = batched_formula1(formula, <Tensor>x_t, <Tensor>x, out, extra)
        else:
            tangent = formula(<Tensor>x_t, <Tensor>x, out, extra)
        tangent = complex_valued(tangent, out)
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
    if is_complex_array(out._data) or complex_tensor(a) or complex_tensor(b):
        check_complex_tangent(<size_t><void*>formula, out, extra)
    suspend_forward_level()
    try:
        if tangent_batch() or grads_batched():
            tangent = batched_formula2(formula, a_t, b_t, a, b, out, extra)
        else:
            tangent = formula(a_t, b_t, a, b, out, extra)
        tangent = complex_valued(tangent, out)
    finally:
        resume_forward_level(level)
    set_tangent(out, tangent, level)


cdef void forward_n(Tensor out, tuple inputs, NaryTangent formula, tuple extra=()) except *:
    """``out = op(*inputs)``: ``formula(tangents, inputs, out, extra)``, ``tangents`` a
    tuple with None for each input without one."""
    cdef unsigned long long level = forward_level()
    if not any_tangent(inputs, level) or is_inference_mode_enabled():
        return
    if is_complex_array(out._data) or any([complex_tensor(x) for x in inputs]):
        check_complex_tangent(<size_t><void*>formula, out, extra)
    tangents = tuple([tangent_of(x, level) for x in inputs])
    suspend_forward_level()
    try:
        if tangent_batch() or grads_batched():
            tangent = batched_formula_n(formula, tangents, inputs, out, extra)
        else:
            tangent = formula(tangents, inputs, out, extra)
        tangent = complex_valued(tangent, out)
    finally:
        resume_forward_level(level)
    set_tangent(out, tangent, level)


cdef object linear_tangent(Tensor x_t, Tensor x, Tensor result, tuple extra):
    """The formula of an op linear in its input (a repeat, a reshape, a backward linear in
    its gradient): the op itself on the tangent, ``op(x_t, *rest)`` for ``extra = (op,
    *rest)``. ``op`` is the op's Python function (a ``def`` taking Python arguments), which
    the formula would call through Python anyway."""
    return extra[0](x_t, *extra[1:])


complex_unary(linear_tangent)     # the op of a complex-linear map, on the tangent


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
    if total is not None and (<Tensor>total)._data.shape != tangent_shape(result):
        total = total + make_tensor(array_module(result._data).zeros_like(result._data))
    return total


# ------------------------------------------------------------------ batched tangents
# NOTE [Batched tangents], in this module's docstring

cdef dict batched_formulas = {}     # a registered formula's address -> align its tangents?


cdef void batch_unary(UnaryTangent formula) except *:
    """Register ``formula`` as right on a batched tangent as it is."""
    batched_formulas[<size_t><void*>formula] = False


cdef void batch_binary(BinaryTangent formula, bint align) except *:
    """Register ``formula``; ``align``: an elementwise formula, its tangents to be given the
    output's rank first."""
    batched_formulas[<size_t><void*>formula] = align


cdef void batch_nary(NaryTangent formula, bint align) except *:
    batched_formulas[<size_t><void*>formula] = align


cdef tuple tangent_shape(Tensor t):
    """The shape of a tangent of ``t``: ``t``'s, with the batch in front in a batched pass."""
    cdef Py_ssize_t batch = tangent_batch()
    return (batch,) + t._data.shape if batch else t._data.shape


cdef object zero_tangent_of(Tensor t):
    """A zero tangent for ``t`` (of ``tangent_shape(t)``)."""
    return make_tensor(array_module(t._data).zeros(tangent_shape(t), t._data.dtype))


cdef object aligned(object t, Tensor result):
    """A batched tangent with the rank of ``result``'s tangent: ones inserted after the
    batch dim, so that it broadcasts against the primals as its primal does."""
    if t is None:
        return None
    array = (<Tensor>t)._data
    cdef Py_ssize_t missing = result._data.ndim + 1 - array.ndim
    if missing <= 0:
        return t
    return make_tensor(array.reshape(array.shape[:1] + (1,) * missing + array.shape[1:]))


cdef Py_ssize_t per_row_runs = 0     # formulas run once per row so far (tests read it)


cdef inline object row(object t, Py_ssize_t b):
    return None if t is None else make_tensor((<Tensor>t)._data[b])


cdef object stacked(list rows):
    global per_row_runs
    per_row_runs += 1
    return None if rows[0] is None else stack_rows(rows)


cdef inline (Py_ssize_t, bint) batching_state() noexcept nogil:
    return tangent_batch(), grads_batched()


cdef inline void set_batching(Py_ssize_t batch, bint grads) noexcept nogil:
    """The two switches a formula runs under: its tangents' batch size (0: unbatched) and
    ``grads_batched()``, which inside a formula says whether its tangents are batched."""
    set_tangent_batch(batch)
    set_grads_batched(grads)


# Each of the three runs ``formula`` once (unbatched tangents inside a batched backward, or a
# registered formula on the batch) or once per row, and restores the switches.

cdef object batched_formula1(UnaryTangent formula, Tensor x_t, Tensor x, Tensor out,
                             tuple extra):
    cdef Py_ssize_t i, batch = tangent_batch()
    cdef (Py_ssize_t, bint) previous = batching_state()
    cdef bint registered = batch != 0 and <size_t><void*>formula in batched_formulas
    cdef bint once = batch == 0 or registered
    set_batching(batch if once else 0, registered)
    try:
        if once:
            return formula(x_t, x, out, extra)
        rows = [formula(<Tensor>row(x_t, i), x, out, extra) for i in range(batch)]
    finally:
        set_batching(previous[0], previous[1])
    return stacked(rows)


cdef object batched_formula2(BinaryTangent formula, object a_t, object b_t, object a, object b,
                             Tensor out, tuple extra):
    cdef Py_ssize_t i, batch = tangent_batch()
    cdef (Py_ssize_t, bint) previous = batching_state()
    align = batched_formulas.get(<size_t><void*>formula) if batch else None
    cdef bint once = batch == 0 or align is not None
    if align:
        a_t, b_t = aligned(a_t, out), aligned(b_t, out)
    set_batching(batch if once else 0, align is not None)
    try:
        if once:
            return formula(a_t, b_t, a, b, out, extra)
        rows = [formula(row(a_t, i), row(b_t, i), a, b, out, extra) for i in range(batch)]
    finally:
        set_batching(previous[0], previous[1])
    return stacked(rows)


cdef object batched_formula_n(NaryTangent formula, tuple tangents, tuple inputs, Tensor out,
                              tuple extra):
    cdef Py_ssize_t i, batch = tangent_batch()
    cdef (Py_ssize_t, bint) previous = batching_state()
    align = batched_formulas.get(<size_t><void*>formula) if batch else None
    cdef bint once = batch == 0 or align is not None
    if align:
        tangents = tuple([aligned(t, out) for t in tangents])
    set_batching(batch if once else 0, align is not None)
    try:
        if once:
            return formula(tangents, inputs, out, extra)
        rows = [formula(tuple([row(t, i) for t in tangents]), inputs, out, extra)
                for i in range(batch)]
    finally:
        set_batching(previous[0], previous[1])
    return stacked(rows)


cdef tuple run_formula_per_row(object formula, object ctx, list tangents,
                               unsigned long long level):
    """A Python formula (a custom Function's ``jvp(ctx, *tangents)``) in a batched pass:
    once per batch row with the switch off, as under PyTorch's vmap fallback. Returns one
    batched tangent per output: its rows stacked, or, when every row is the row given for an
    input (a ``jvp`` that updates it in place), that input's batched tangent itself."""
    cdef Py_ssize_t i, j, k, batch = tangent_batch()
    cdef (Py_ssize_t, bint) previous = batching_state()
    given, returned = [], []
    suspend_forward_level()
    set_batching(0, False)
    try:
        for i in range(batch):
            rows = [row(t, i) for t in tangents]
            result = PyObject_CallObject(formula, (ctx,) + tuple(rows))
            given.append(rows)
            returned.append(result if isinstance(result, tuple) else (result,))
    finally:
        set_batching(previous[0], previous[1])
        resume_forward_level(level)
    outputs = []
    for k in range(len(returned[0])):
        column = [returned[i][k] if k < len(returned[i]) else None for i in range(batch)]
        if column[0] is None or not isinstance(column[0], Tensor):
            outputs.append(column[0])
            continue
        for j in range(len(tangents)):
            if all([column[i] is given[i][j] for i in range(batch)]):
                outputs.append(tangents[j])
                break
        else:
            outputs.append(stacked(column))
    return tuple(outputs)


# ------------------------------------------------------------------ Python access

def _tangent(Tensor t):
    """``t``'s tangent at the active level, or None (``unpack_dual``'s tangent)."""
    return tangent_of(t, forward_level())


def _set_tangent(Tensor t, tangent):
    """Make ``tangent`` ``t``'s tangent at the active level (``make_dual``)."""
    set_tangent(t, tangent, forward_level())


def _per_row_tangent_runs():
    """How many tangent formulas have run once per batch row (NOTE [Batched tangents])."""
    return per_row_runs


def _run_suspended(formula, *args):
    """``formula(*args)`` with forward AD suspended (``make_dual`` builds its view so)."""
    return run_formula(formula, args, forward_level())
