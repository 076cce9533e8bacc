"""The op table: each elementwise op of one tensor declared once, as data plus its formulas.

A family module (pointwise.pyx) writes, for each op, its backward Node class and its tangent
formula, then one ``unary_op(...)`` entry that ties them to the op's array forward and names
everything else about it. This module runs every entry with one forward, makes the public
function, the in-place form and the Tensor methods, and gives docs/derivatives.md and the
CUDA manifest what they list.
"""
import numpy as np
cimport numpy as cnp

from cpython.object cimport PyObject, PyTypeObject

from autograd_cy._C.grad_mode cimport (
    is_grad_enabled, set_grad_enabled, forward_level, needs_tensor_ops)
from autograd_cy._C.forward cimport forward1, batch_unary, no_forward_formula
from autograd_cy._C.tensor cimport Tensor, make_tensor, requires_grad
from autograd_cy._C.node cimport Node
from autograd_cy._C.saved_tensor cimport SavedTensor
from autograd_cy._C.recording cimport record1
from autograd_cy._C.promotion cimport (
    floating as computed_in_float, refuse_complex, half_precision_array, is_complex_array,
    widened)
from autograd_cy._C.fp_errors cimport quietly
from autograd_cy._C.views cimport apply_inplace
from autograd_cy._C.ops.out_arguments cimport write_out

cnp.import_array()


# NOTE [The op table]
# An op used to live in up to eight places: its forward, Node and tangent in a family module,
# the registration lines at that module's end, its in-place form in another module, its row
# in docs/derivatives.md, its CUDA functor, and the manifest line mapping one to the other.
# Now an elementwise op of one tensor is one entry (a UnaryOp) beside its Node and tangent:
#
#   - the forward is array-level and device-neutral (``np.exp``: NumPy's dispatch takes a
#     DeviceArray to its kernel), optionally behind a fused loop that may decline (tanh's);
#   - the Node class stays a class: it is the engine's unit, and its name is the grad_fn
#     name a PyTorch user sees (ExpBackward0). The bases below carry what every elementwise
#     Node shares (it batches gradients; it saves ``self`` or its result);
#   - the entry makes the public function, the in-place form (which saves a copy of the old
#     value only when the Node reads ``self``), their names in ``__all__`` and
#     ``__tensor_methods__`` (the package makes those Tensor methods), and
#     registers a batching tangent (NOTE [Batched tangents] in forward.pyx);
#   - docs/derivatives.md's rows of these ops are generated from the entries (docs/
#     op_table.py; a test fails when the file is stale), and the CUDA manifest maps each
#     entry's forward to its functor, so a kernel is the only other thing a new op needs.
#
# Three ways to look at: PyTorch generates its ops from derivatives.yaml (a build step; the
# generated code is what runs, and what a reader must find), tinygrad writes one class per op
# with forward and backward methods (one place, but dispatch through Python classes), CuPy
# declares ufuncs as data (create_ufunc) compiled at first use. We keep the formulas as code
# that runs as written (Cython Nodes and C tangent functions, no generator between the reader
# and what runs) and make the rest of an op data, read at import: one place, nothing
# generated but a doc table.


cdef class ElementwiseNode(Node):
    """The backward of an elementwise op: its formula is right on a batch of gradients as it
    is (NOTE [Batched gradients] in batching.pyx)."""
    batches_gradients = True


cdef class SavesSelf(ElementwiseNode):
    """A backward that reads the forward's input, ``saved_tensors[0]`` (``_saved_self``)."""
    saved_names = ("self",)


cdef class SavesResult(ElementwiseNode):
    """A backward that reads the forward's output, ``saved_tensors[0]`` (``_saved_result``)."""
    saved_names = ("result",)

    cdef object fused_backward(self, object grad, ResultKernel kernel):
        """``kernel(grad, result)`` as a Tensor when nothing is recorded (no create_graph)
        or differentiated forward (no dual level), and the kernel takes the arrays; None, and
        the caller runs its Tensor formula."""
        if needs_tensor_ops() or not isinstance(grad, Tensor):
            return None
        grad_array = (<Tensor>grad)._data
        result = (<SavedTensor>self.saved_tensors[0]).unpack_array(self)
        if half_precision_array(grad_array):        # computed in float32, rounded once
            array = kernel(widened(grad_array), widened(result))
            return None if array is None else make_tensor(array.astype(grad_array.dtype))
        array = kernel(grad_array, result)
        return None if array is None else make_tensor(array)


cdef class SavesSelfAndResult(ElementwiseNode):
    """A backward that reads both: ``saved_tensors`` is ``(self, result)``."""
    saved_names = ("self", "result")


cdef tuple NO_ARGUMENTS = ()
cdef object FLOAT32 = np.dtype(np.float32)


cdef inline Node new_node(type node_type):
    """``node_type()`` without the type call's argument parsing (Node's __cinit__ takes any)."""
    return <Node>(<PyTypeObject*>node_type).tp_new(node_type, <PyObject*>NO_ARGUMENTS, NULL)


cdef class UnaryOp:
    """One entry of the op table (NOTE [The op table])."""

    def __repr__(self):
        return f"<UnaryOp {self.name} ({self.node_type.__name__})>"

    @property
    def saved(self):
        """What the Node saves, as docs/derivatives.md names it."""
        return ("-", "self", "result", "self, result")[self.saves]

    cdef Tensor apply(self, Tensor self_):
        """The op on ``self_``: the array forward, then the Node if grad mode records, then
        the tangent if a dual level is active."""
        cdef object array = None
        cdef Node node
        if self.complex_error is not None:
            refuse_complex(self_, NotImplementedError, self.complex_error)
        if self.fast_forward is not NULL:
            array = self.fast_forward(self_._data)
        if array is None and self.floating and half_precision_array(self_._data):
            # NOTE [Half-precision products and reductions]: a formula of several NumPy
            # calls (sigmoid's) rounds once, as PyTorch's kernel does
            # (a forward adjusted for float32 and float64 alone runs as it was: NOTE [The sign
            # of a NaN] in fp_errors.pyx)
            array = quietly(getattr(self.forward, "__wrapped__", self.forward),
                            widened(self_._data)).astype(self_._data.dtype)
        elif array is None:
            array = quietly(self.forward,
                            computed_in_float(self_) if self.floating else self_._data)
        cdef Tensor out = make_tensor(array)
        if is_grad_enabled() and requires_grad(self_):
            node = new_node(self.node_type)
            if self.saves == SAVES_SELF_AND_RESULT:
                record1(node, self_, out, (self_, out))
            elif self.saves == SAVES_RESULT:
                record1(node, self_, out, (out,))
            elif self.saves == SAVES_SELF:
                record1(node, self_, out, (self_,))
            else:
                record1(node, self_, out)
        if forward_level():
            forward1(out, self_, self.tangent)
        return out


# The entries in the order they were declared: what docs/op_table.py and the manifest read.
cdef dict UNARY_OPS = {}


def unary_ops():
    """Every UnaryOp entry, in declaration order."""
    return list(UNARY_OPS.values())


# the entries whose torch function has no out= variant
WITHOUT_OUT = frozenset({"relu"})


def _function_of(UnaryOp op, str doc):
    """The public function of ``op`` (``autograd_cy.exp``, ``Tensor.exp``), with torch's
    ``out=`` (which Tensor's method accepts too, where torch's takes no keyword)."""
    def function(Tensor self, *, out=None):
        if out is not None:
            if op.name in WITHOUT_OUT:
                raise TypeError(f"{op.name}() got an unexpected keyword argument 'out'")
            return write_out(op.name, out, (self,), lambda: op.apply(self))
        return op.apply(self)
    function.__name__ = function.__qualname__ = op.name
    function.__doc__ = doc
    return function


def _inplace_function_of(UnaryOp op):
    """``op``'s in-place form (``exp_``): apply_inplace saves a copy of the old value only
    when the Node reads ``self``, and ``self`` itself in place of a saved result."""
    needs_original = op.saves == SAVES_SELF or op.saves == SAVES_SELF_AND_RESULT

    def inplace(Tensor self):
        if op.inplace_complex_error is not None and is_complex_array(self._data):
            raise RuntimeError(op.inplace_complex_error)
        if op.inplace_node_type is not None:
            return apply_inplace(self, lambda x: without_derivative(op, x), (), False)
        return apply_inplace(self, op.function, (), needs_original)
    inplace.__name__ = inplace.__qualname__ = op.inplace
    inplace.__doc__ = f"In-place :func:`{op.name}`."
    return inplace


# NOTE [In-place forms without a derivative]
# torch gives asinh_, acosh_ and atanh_ no formula: the in-place form records a Node of its
# own (AsinhBackward1) whose backward raises, and refuses a dual tensor at once. The entry
# names that Node (``inplace_node_type``); the value is computed as the out-of-place op's,
# outside the graph, and written back by apply_inplace with its usual checks.
FORWARD_NOT_IMPLEMENTED = (
    " because it has not been implemented yet.\nPlease file an issue to PyTorch at "
    "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that we can "
    "prioritize its implementation.")


cdef class InplaceWithoutDerivative(Node):
    """The Node of such an in-place form; a subclass names the op (``op_name``)."""
    complex_formulas = True
    batches_gradients = True        # it raises whatever the gradient

    cpdef tuple apply(self, tuple grads):
        raise NotImplementedError(
            f"the derivative for 'inplace version of {self.op_name}' is not implemented.")


cdef Tensor without_derivative(UnaryOp op, Tensor x):
    """``op``'s value of ``x``, recorded with the in-place form's own Node."""
    no_forward_formula(op.inplace, (x,), FORWARD_NOT_IMPLEMENTED)
    cdef bint enabled = is_grad_enabled()
    cdef bint records = enabled and requires_grad(x)
    set_grad_enabled(False)
    try:
        out = <Tensor>op.apply(x)
    finally:
        set_grad_enabled(enabled)
    if records:
        record1(op.inplace_node_type.__new__(op.inplace_node_type), x, out)
    return out


cdef object unary_op(str name, object forward, type node_type, UnaryTangent tangent,
                     str gradient, str tangent_formula, str doc, str cuda_functor=None,
                     bint floating=True, bint batched_tangent=True, str complex_error=None,
                     bint has_inplace=True, str inplace_complex_error=None):
    """Declare the op ``name`` (NOTE [The op table]) and return its public function; the
    family module's ``export_unary_ops(globals())`` exports it with its in-place form.

    ``forward``: the array function (NumPy's API, so a DeviceArray takes it to its kernel);
    ``node_type``: the backward Node, whose base says what it saves (SavesSelf, SavesResult,
    SavesSelfAndResult, or none of them); ``floating``: integer and bool inputs compute in
    float32 (False: the op keeps the dtype); ``complex_error``: PyTorch's NotImplementedError
    message for a complex input, for an op it does not define on complex numbers;
    ``tangent``: the forward-mode formula, ``batched_tangent`` if it is right on a batch of
    tangents as it is; ``gradient``/``tangent_formula``: the formulas as
    docs/derivatives.md prints them; ``cuda_functor``: ``F`` of ``unary<T, F>``;
    ``has_inplace``: False for an op PyTorch gives no in-place form (angle);
    ``inplace_complex_error``: PyTorch's RuntimeError for the in-place form on a complex
    tensor, for an op whose complex result is real (abs_)."""
    if not issubclass(node_type, ElementwiseNode):
        raise TypeError(f"{name}: {node_type!r} is not an ElementwiseNode class")
    cdef UnaryOp op = UnaryOp.__new__(UnaryOp)
    op.name = name
    op.forward = forward
    op.fast_forward = NULL
    op.floating = floating
    op.complex_error = complex_error
    op.inplace_complex_error = inplace_complex_error
    op.node_type = node_type
    op.saves = (SAVES_RESULT if issubclass(node_type, SavesResult) else
                SAVES_SELF if issubclass(node_type, SavesSelf) else
                SAVES_SELF_AND_RESULT if issubclass(node_type, SavesSelfAndResult) else
                SAVES_NOTHING)
    op.tangent = tangent
    op.batched_tangent = batched_tangent
    op.cuda_functor = cuda_functor
    op.gradient = gradient
    op.tangent_formula = tangent_formula
    op.inplace = name + "_" if has_inplace else None
    op.inplace_node_type = None
    op.function = _function_of(op, doc)
    if batched_tangent:
        batch_unary(tangent)
    UNARY_OPS[name] = op
    return op.function


cdef void set_fast_forward(object function, ArrayKernel kernel) except *:
    """Try ``kernel`` (a fused loop that may decline with None) before the NumPy forward of
    the op whose public function is ``function``."""
    entry_of(function).fast_forward = kernel


cdef UnaryOp entry_of(object function):
    """The entry whose public function is ``function``."""
    cdef UnaryOp op
    for op in UNARY_OPS.values():
        if op.function is function:
            return op
    raise ValueError(f"{function!r} is not the function of an op of the table")


cdef void set_inplace_node(object function, type node_type) except *:
    """Give the in-place form of the op whose public function is ``function`` the Node
    ``node_type``, a subclass of InplaceWithoutDerivative (NOTE [In-place forms without a
    derivative])."""
    entry_of(function).inplace_node_type = node_type


def export_unary_ops(dict namespace):
    """Export the entries whose functions ``namespace`` (a family module's globals) holds:
    their in-place forms join the module, and all join its ``__all__`` (the package's names)
    and ``__tensor_methods__`` (Tensor's, NOTE [How Tensor gets its methods])."""
    cdef UnaryOp op
    cdef list names = []
    for op in UNARY_OPS.values():
        # an entry is the declaring module's: others that import its function skip it
        if op.module is not None or namespace.get(op.name) is not op.function:
            continue
        op.module = namespace["__name__"]
        op.function.__module__ = op.module
        names.append(op.name)
        if op.inplace is not None:
            namespace[op.inplace] = _inplace_function_of(op)
            namespace[op.inplace].__module__ = op.module
            names.append(op.inplace)
    namespace.setdefault("__all__", []).extend(names)
    namespace["__tensor_methods__"] = tuple(namespace.get("__tensor_methods__", ())) + tuple(names)


def cuda_unary_functors():
    """``{name: functor}`` of the entries with a CUDA functor: the manifest's unary table,
    keyed as it is, by the name of NumPy's ufunc of the op (``absolute`` for abs: what a
    DeviceArray's ``__array_ufunc__`` is called with), or the op's own where NumPy has none."""
    cdef UnaryOp op
    functors = {}
    for op in UNARY_OPS.values():
        if op.cuda_functor is not None:
            ufunc = op.forward if isinstance(op.forward, np.ufunc) else getattr(np, op.name, None)
            key = ufunc.__name__ if isinstance(ufunc, np.ufunc) else op.name
            functors[key] = op.cuda_functor
    return functors
