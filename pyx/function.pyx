"""Custom autograd Functions: the node that runs a user's Python ``backward``.

# NOTE [ctx is the node]
As in PyTorch, the ``ctx`` a custom Function's ``forward`` (or ``setup_context``)
receives *is* the backward node that ends up as the outputs' ``grad_fn``: an
instance of ``<Class>Backward``, a Python subclass (made by FunctionMeta in
autograd_cy/autograd/function.py) of ``_FunctionBase`` below. What forward
stores on it -- ``ctx.save_for_backward(...)``, ``ctx.mark_dirty(...)``, any
attribute -- is therefore what ``backward(ctx, *grads)`` reads.

``function_apply`` is ``Function.apply``: forward with grad mode off, then, if
grad mode is on and a tensor argument requires grad, the outputs are attached to
the node. The node has one next edge per *tensor*
argument; ``backward`` returns one value per argument, and ``apply`` below maps
the values for tensor arguments onto those edges.

# NOTE [needs_input_grad during backward]
At forward time ``ctx.needs_input_grad`` is the static ``requires_grad`` of each
argument. While the engine runs ``backward`` with ``inputs=`` pruning the graph it
sets ``output_mask`` on the node; ``needs_input_grad`` then also says False for
an argument whose gradient nobody asked for (``backward(inputs=[a])``,
``grad(out, a)``), so a custom backward can skip work like a built-in formula
does. PyTorch 2.13 keeps the static tuple (pytorch issue 56500 asks for this).

# NOTE [Custom Functions in forward AD]
When a tensor argument has a tangent (NOTE [Forward AD] in forward.pyx), ``forward`` runs
with the level suspended (its ops compute no tangents) and then ``jvp(ctx, *tangents)``
gives the outputs' tangents, one per output, from one tangent per argument (zeros for a
floating or complex tensor without one, unless ``ctx.set_materialize_grads(False)``; None
for an integer tensor and a non-tensor). In ``jvp``, ``ctx.saved_tensors`` are what
``ctx.save_for_forward`` kept. As PyTorch, the tangents are checked: an input that forward
modified in place (``mark_dirty``) must get back its own tangent, modified in place (its
version moved); an output that is a view of an input (an input returned as-is is one) a
view of that input's tangent, or of the same base; a non-differentiable output (marked so,
or of an integer dtype) None.
"""
cimport cython
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF, Py_XDECREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM, PyTuple_GET_ITEM
cimport numpy as cnp
import traceback
import warnings

from autograd_cy._C.dtype cimport kind_of
from autograd_cy._C.grad_mode cimport (
    is_grad_enabled, set_grad_enabled, is_anomaly_enabled, next_sequence_nr, forward_level,
    suspend_forward_level, resume_forward_level, is_inference_mode_enabled,
)
from autograd_cy._C.forward cimport (
    any_tangent, set_tangent, run_formula, run_formula_per_row, tangent_shape, zero_tangent_of,
)
from autograd_cy._C.batching cimport tangent_batch
from autograd_cy._C.provenance cimport recording_provenance, caller_code
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, make_view, version_counter, bump_version, requires_grad,
    VIEW_DEFAULT, VIEW_IN_CUSTOM_FUNCTION, VIEW_MULTI_OUTPUT_NODE, gradient_metadata,
    tangent_of,
)
from autograd_cy._C.node cimport Node, Edge, set_edges
from autograd_cy._C.device cimport zeros_for_metadata
from autograd_cy._C.saved_tensor cimport SavedTensor, save, freed_message
from autograd_cy._C.recording cimport gradient_edge, set_next_edges, output_metadata
from autograd_cy._C.views cimport move_retains_grad_hook, rebase_history, view_error_message

cdef inline bint overridden(object method):
    """Does a Function subclass define ``method`` itself? The base class's ``backward``,
    ``vjp`` and ``setup_context`` (autograd_cy/autograd/function.py) carry the attribute
    ``_is_default_implementation``."""
    return not getattr(method, "_is_default_implementation", False)


# NOTE [A Function class's methods, looked up once]
# Function.apply runs for every call of a custom Function and its node's ``apply`` for
# every backward through it. What both need from the Function class -- its ctx class, which
# of ``backward`` / ``vjp`` it overrides, whether it has its own ``setup_context``, whether
# saved tensors are freed on first access -- is decided on the class's first use and kept in
# one FunctionMethods on the class; every ctx points to it. The entry names its class, so a
# subclass that finds its parent's entry through inheritance decides for itself. The
# ``<Class>Backward`` node class is made with the C attribute lookup of its base (NOTE
# [Attribute lookup of a Function's node]).

cdef extern from "Python.h":
    ctypedef PyObject* (*getattrofunc)(PyObject*, PyObject*)
    ctypedef object (*newfunc)(PyObject*, PyObject*, PyObject*)
    ctypedef struct PyTypeObject:
        getattrofunc tp_getattro
        newfunc tp_new
    PyObject* PyObject_GenericGetAttr(PyObject*, PyObject*)


@cython.final
cdef class FunctionMethods:
    """What ``apply`` and backward need from one Function class."""

    def __repr__(self):
        return f"<FunctionMethods of {self.forward_cls.__name__}>"


cdef FunctionMethods methods_of(object forward_cls):
    """The FunctionMethods of a Function class, made on first use."""
    cdef object found = getattr(forward_cls, "_autograd_cy_methods", None)
    if found is not None and (<FunctionMethods>found).forward_cls is forward_cls:
        return <FunctionMethods>found
    cdef FunctionMethods entry
    entry = FunctionMethods.__new__(FunctionMethods)
    entry.forward_cls = forward_cls
    entry.backward_cls = forward_cls._backward_cls
    backward, vjp = forward_cls.backward, forward_cls.vjp
    if overridden(backward) and overridden(vjp):
        entry.backward = None       # refused when backward runs, as PyTorch refuses it
    else:
        entry.backward = vjp if overridden(vjp) else backward
    entry.separate_setup = overridden(forward_cls.setup_context)
    entry.clear_saved_on_access = bool(
        getattr(forward_cls, "clear_saved_tensors_on_access", False))
    forward_cls._autograd_cy_methods = entry
    return entry


# NOTE [Attribute lookup of a Function's node]
# ``<Class>Backward`` is a Python subclass of _FunctionBase, and Node defines ``__getattr__``
# (for a built-in node's ``_saved_<name>``). CPython gives such a subclass a generic slot
# that goes through Python-level ``__getattribute__`` and ``__getattr__`` wrappers for every
# attribute read, a few hundred instructions each, and a ctx is read many times per call
# (``ctx.save_for_backward``, ``ctx.saved_tensors``, the user's own attributes). A custom
# Function's node has no ``_saved_<name>`` fields to find (its saved values are
# ``saved_tensors``), so the class is made here and then given CPython's own generic lookup:
# the instance dict and the class, as for any Python object. With that slot the interpreter
# also calls ``ctx.save_for_backward(...)`` without making a bound method first.

def _make_node_class(str name, type base, object forward_cls):
    """``<name>``: the ctx / backward node class of the Function class ``forward_cls``."""
    node_class = type(name, (base,), {"_forward_cls": forward_cls})
    (<PyTypeObject*>node_class).tp_getattro = PyObject_GenericGetAttr
    return node_class


_SAVED_RETURNED_INPUT = (
    "An input that has been returned as-is as output is being saved for backward. This is not "
    "supported if you override setup_context. You should return and save a view of the input "
    "instead, e.g. with x.view_as(x) or setup ctx inside the forward function itself.")
_DIRTY_NOT_INPUT = (
    "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have "
    "been mutated should be passed to ctx.mark_dirty().")
_DIRTY_VIEW_MULTIPLE_OUTPUTS = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
    "cannot return more than one Tensor. This is not supported by the current autograd engine. "
    "You should either make sure the input is not a view (using .clone() for example) or make "
    "your Function only return one Tensor (potentially splitting it into two Functions: one "
    "doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do "
    "this change.")
_DIRTY_NOT_RETURNED = (
    "Some elements marked as dirty during the forward method were not returned as output. The "
    "inputs that are modified inplace must all be outputs of the Function.")


cdef class _FunctionBase(Node):
    """A custom Function's backward node, and the ``ctx`` its forward and backward share.

    The ``ctx`` methods (``save_for_backward``, ``mark_dirty`` ...) live in
    ``FunctionCtx`` (autograd/function.py) and only fill the public fields
    below; ``function_apply`` acts on them once forward has returned.
    """
    def __cinit__(self, *args, **kwargs):
        self.materialize_grads = True
        self.static_needs_input_grad = ()
        self.tensor_index = ()

    # ------------------------------------------------------------ ctx, write side
    # FunctionCtx (autograd/function.py) documents these; the node's own versions, in C,
    # take precedence over its Python ones (a Python call frame less per call).
    def save_for_backward(self, *tensors):
        """Keep ``tensors`` (or None) for ``backward``: ``ctx.saved_tensors`` returns them."""
        self.to_save = tensors

    def mark_dirty(self, *tensors):
        """Declare that forward modified these inputs in place; forward must return them."""
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs without a gradient: they get ``requires_grad=False``."""
        self.non_differentiable = tensors

    def set_materialize_grads(self, value):
        """Whether missing output gradients reach ``backward`` as zeros (the default)."""
        self.materialize_grads = bool(value)

    # ------------------------------------------------------------ ctx, read side
    @property
    def needs_input_grad(self):
        """One bool per forward argument: does backward have to compute its gradient?"""
        cdef Py_ssize_t i, index
        cdef tuple static = self.static_needs_input_grad
        if self.output_mask is None:
            return static
        # NOTE [needs_input_grad during backward]: also ask the running graph task.
        result = []
        for i in range(len(static)):
            index = self.tensor_index[i]
            result.append(bool(static[i]) and index >= 0 and bool(self.output_mask[index]))
        return tuple(result)

    @property
    def saved_tensors(self):
        """The tensors given to ``save_for_backward``, version-checked on every access (in
        ``jvp``: those given to ``save_for_forward``)."""
        if self.saved_for_forward is not None:
            return self.saved_for_forward
        if self.has_freed_buffers:
            if self.cleared_on_access:
                raise RuntimeError(_CLEARED_ON_ACCESS)
            raise RuntimeError(freed_message(self))
        if not self.saved_variables:
            return ()
        result = tuple([(<SavedTensor>saved).unpack(self) for saved in self.saved_variables])
        if self.function_methods().clear_saved_on_access:
            # The Function asked to free its saved tensors as soon as backward reads them.
            self.release_variables()
            self.cleared_on_access = True
        return result

    @property
    def _saved_tensors(self):
        """``saved_tensors`` under the spelling of a built-in node's saved fields (the
        property: ``self.saved_tensors`` in this class is Node's C field)."""
        return getattr(self, "saved_tensors")

    @property
    def _raw_saved_tensors(self):
        """The SavedTensor objects behind ``saved_tensors`` (to register pack/unpack hooks)."""
        if self.has_freed_buffers:
            raise RuntimeError(freed_message(self))
        return tuple(self.saved_variables or ())

    # ------------------------------------------------------------ backward
    cpdef tuple apply(self, tuple grads):
        """Call the user's ``backward(ctx, *grads)``; one gradient per tensor argument back."""
        cdef Py_ssize_t i
        cdef list inputs = None
        if self.materialize_grads and self.output_info is not None:
            for i in range(len(grads)):
                info = self.output_info[i]
                if (grads[i] is None and info is not None
                        and (self.input_metadata[i] is not None
                             or getattr(self, "_materialize_non_diff_grads", True))):
                    if inputs is None:
                        inputs = list(grads)
                    inputs[i] = make_tensor(zeros_for_metadata(info))
            if inputs is not None:
                grads = tuple(inputs)
        cdef FunctionMethods methods = self.function_methods()
        if methods.backward is None:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function "
                               "is not allowed. You should only implement one of them.")
        return self.gradients_for_edges(methods.backward(self, *grads))

    cdef FunctionMethods function_methods(self):
        """Its Function class's FunctionMethods (set by apply; looked up for a node made by
        calling its class directly)."""
        if self.methods is None:
            self.methods = methods_of(type(self)._forward_cls)
        return self.methods

    cdef tuple gradients_for_edges(self, object result):
        """Check ``backward``'s result (one gradient per argument, each None or of the
        argument's shape) and keep the tensor arguments'."""
        cdef Py_ssize_t i, count
        cdef Py_ssize_t expected = len(self.tensor_index)
        # Every argument a tensor (one edge each): backward's own tuple is the edges'.
        cdef list gradients = None if len(self.next_nodes) == expected else []
        if not isinstance(result, tuple):
            result = (result,)
        count = len(result)
        # Extra trailing Nones are fine (a backward written for optional arguments).
        if count > expected and all(value is None for value in result[expected:]):
            result = result[:expected]
            count = expected
        if count != expected:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                               f"gradients (expected {expected}, got {count})")
        for i in range(expected):
            value = result[i]
            if gradients is not None and <Py_ssize_t>self.tensor_index[i] < 0:
                if value is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {i + 1}, but the corresponding forward input was not a "
                        "Variable")
                continue
            if value is not None and not isinstance(value, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(value).__name__})")
            if gradients is not None:
                gradients.append(value)
        return <tuple>result if gradients is None else tuple(gradients)

    cdef void release_variables(self):
        if self.saved_variables is not None:
            for saved in self.saved_variables:
                (<SavedTensor>saved).release()
        self.saved_variables = None
        self.has_freed_buffers = True


# ------------------------------------------------------------------ forward

cdef object argument_binder = None      # autograd/function.py's _bind_arguments
cdef tuple NO_ARGUMENTS = ()


def _set_argument_binder(binder):
    """Called once by autograd/function.py: ``binder(cls, args, kwargs)`` makes keyword
    arguments and defaults of ``forward`` positional (it needs ``inspect``)."""
    global argument_binder
    argument_binder = binder


def function_apply(cls, *args, **kwargs):
    """Run the Function on ``args``; the outputs record ``<Class>Backward`` as grad_fn
    when grad mode is on and a tensor argument requires grad (``Function.apply``)."""
    cdef FunctionMethods methods = methods_of(cls)
    if kwargs or methods.separate_setup:
        args = argument_binder(cls, args, kwargs)
    return apply_function(cls, methods, args)


cdef inline void set_item(object fresh_tuple, Py_ssize_t i, object value) noexcept:
    """Fill slot ``i`` of a tuple just made by PyTuple_New (which then owns ``value``)."""
    Py_INCREF(value)
    PyTuple_SET_ITEM(fresh_tuple, i, value)


cdef inline void replace_item(object own_tuple, Py_ssize_t i, object value) noexcept:
    """Replace slot ``i`` of a tuple this module made and filled, and nobody else reads yet."""
    cdef PyObject* old = PyTuple_GET_ITEM(own_tuple, i)
    Py_INCREF(value)
    PyTuple_SET_ITEM(own_tuple, i, value)
    Py_XDECREF(old)


cdef object apply_function(object cls, FunctionMethods methods, tuple args):
    """Forward with grad mode off, then the node attached to the outputs."""
    # ``_FunctionBase.__new__(backward_cls)``, by the slot: Cython would look ``__new__`` up
    cdef _FunctionBase ctx = (<PyTypeObject*>_FunctionBase).tp_new(
        <PyObject*>methods.backward_cls, <PyObject*>NO_ARGUMENTS, NULL)
    cdef Py_ssize_t i, tensors = 0, n = len(args)
    # Per argument: does it require grad, and its edge (or -1: not a Tensor); the tensors.
    cdef object needs = PyTuple_New(n)
    cdef object tensor_index = PyTuple_New(n)
    cdef tuple tensor_inputs
    cdef bint any_requires_grad = False
    cdef bint requires
    ctx.methods = methods
    for i in range(n):
        arg = args[i]
        if isinstance(arg, Tensor):
            requires = requires_grad(<Tensor>arg)
            set_item(tensor_index, i, tensors)
            tensors += 1
        else:
            requires = False
            set_item(tensor_index, i, -1)
        any_requires_grad |= requires
        set_item(needs, i, True if requires else False)
    if tensors == n:
        tensor_inputs = args
    else:
        tensor_inputs = tuple([arg for arg in args if isinstance(arg, Tensor)])
    # The node takes its sequence number before forward runs, so nodes recorded inside
    # forward get larger numbers.
    ctx.sequence_nr = next_sequence_nr()
    ctx.static_needs_input_grad = <tuple>needs
    ctx.tensor_index = <tuple>tensor_index
    cdef bint is_executable = is_grad_enabled() and any_requires_grad
    if is_executable:
        # Edges are taken now: a forward that mutates an input must not see its new history.
        set_next_edges(ctx, tensor_inputs)
        ctx.input_metadata = ()
        if recording_provenance():       # NOTE [Provenance]
            ctx.origin_code = caller_code(&ctx.origin_lasti)
        if is_anomaly_enabled():
            ctx.get_extras().anomaly_trace = "".join(traceback.format_stack()[:-1])

    cdef bint previous = is_grad_enabled()
    cdef unsigned long long level = forward_level()
    cdef bint forward_ad = (level != 0 and not is_inference_mode_enabled()
                            and any_tangent(tensor_inputs, level))
    cdef tuple input_tangents = None
    if forward_ad:      # taken before forward, which may modify an input in place
        input_tangents = tuple([tangent_of(arg, level) for arg in args])
    set_grad_enabled(False)
    suspend_forward_level()
    try:
        if methods.separate_setup:
            output = cls.forward(*args)
            cls.setup_context(ctx, args, output)
        else:
            output = cls.forward(ctx, *args)
    finally:
        set_grad_enabled(previous)
        resume_forward_level(level)
    saved_for_forward = ctx.saved_for_forward
    cdef tuple non_differentiable = (tuple(ctx.non_differentiable)
                                     if forward_ad and ctx.non_differentiable is not None else ())
    result = process_outputs(cls, ctx, tensor_inputs, output, is_executable,
                             methods.separate_setup)
    if forward_ad:
        set_output_tangents(cls, ctx, args, input_tangents, result, saved_for_forward, level,
                            non_differentiable)
    return result


cdef void set_output_tangents(object cls, _FunctionBase ctx, tuple args, tuple input_tangents,
                              object result, object saved_for_forward,
                              unsigned long long level, tuple non_differentiable) except *:
    """Run ``jvp`` and give each output its tangent (NOTE [Custom Functions in forward AD])."""
    cdef Py_ssize_t i, j
    cdef list tangents = list(input_tangents)
    for i in range(len(args)):
        # zeros for a tensor without a tangent, one of a floating or complex dtype only: an
        # integer input's tangent is None (torch's isDifferentiableType)
        if (tangents[i] is None and isinstance(args[i], Tensor) and ctx.materialize_grads
                and floating_or_complex((<Tensor>args[i])._data)):
            tangents[i] = zero_tangent_of(<Tensor>args[i])
    # the versions of the input tangents: jvp must modify a dirty input's tangent in place
    # (per row, under batched tangents, the rows are written back: not checked there)
    cdef list versions = [t._version if isinstance(t, Tensor) and not tangent_batch() else None
                          for t in input_tangents]
    ctx.saved_for_forward = tuple(saved_for_forward) if saved_for_forward is not None else ()
    try:
        if tangent_batch():     # jvp sees one row at a time (NOTE [Batched tangents])
            output_tangents = run_formula_per_row(cls.jvp, ctx, tangents, level)
        else:
            output_tangents = run_formula(cls.jvp, (ctx,) + tuple(tangents), level)
    finally:
        ctx.saved_for_forward = None
    outputs = result if isinstance(result, tuple) else (result,)
    if not isinstance(output_tangents, tuple):
        output_tangents = (output_tangents,)
    if len(output_tangents) != len(outputs):
        raise RuntimeError("Function's jvp returned an invalid number of forward gradients "
                           f"(expected {len(outputs)} but got {len(output_tangents)})")
    for i in range(len(outputs)):
        output, tangent = outputs[i], output_tangents[i]
        if not isinstance(output, Tensor) or tangent is None:
            continue
        if (contains(non_differentiable, output)
                or not floating_or_complex((<Tensor>output)._data)):
            raise RuntimeError(
                f"Function's jvp returned a gradient at position {i}, but  the corresponding "
                "forward output is not a differentiable Tensor.You should return None at "
                "that position instead.")
        for j in range(len(args)):
            if (args[j] is output and input_tangents[j] is not None
                    and (tangent is not input_tangents[j]
                         or versions[j] is not None
                         and (<Tensor>tangent)._version == versions[j])):
                raise RuntimeError(
                    "An inplace custom Function is not modifying the forward mode gradients "
                    "inplace. If the forward is modifying an input inplace, then the jvp "
                    "function must modify the corresponding gradient inplace.")
        if not tangent_batch():
            check_view_tangent(output, tangent, args, tangents)
        if (<Tensor>tangent)._data.shape != tangent_shape(<Tensor>output):
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                "original Tensor, this is not supported. Tensor is of size "
                f"{list((<Tensor>output)._data.shape)} while the given forward gradient is of "
                f"size {list((<Tensor>tangent)._data.shape)}.")
        set_tangent(<Tensor>output, tangent, level)


cdef void check_view_tangent(object output, object tangent, tuple args,
                             list tangents) except *:
    """An output that is a view of an input (an input returned as-is is one too) needs a
    tangent that is the same view of that input's tangent: a view of it, or of its base."""
    base = output._base
    if base is None or contains(args, output):   # a dirty input: checked by the caller
        return
    for j in range(len(args)):
        arg = args[j]
        if not isinstance(arg, Tensor) or tangents[j] is None:
            continue
        if base is not (arg._base if arg._base is not None else arg):
            continue
        if tangent._base is None:
            raise RuntimeError("A custom Function's forward is returning a view (or an input "
                               "as-is) but the jvp is not returning a view.")
        given = tangents[j]
        if given._base is not None:
            if tangent._base is not given._base:
                raise RuntimeError("A custom Function is returning a view but the jvp is not "
                                   "returning a view of the same base as the given grad input.")
        elif tangent._base is not given:
            raise RuntimeError("A custom Function is returning a view but the jvp is not "
                               "returning a view of the given grad input.")
        return


cdef inline bint contains(tuple values, object value):
    """Is ``value`` one of ``values`` (by identity)? A custom Function has a few inputs: a
    scan costs less than building a set of their ids on every call."""
    for candidate in values:
        if candidate is value:
            return True
    return False


cdef object process_outputs(object cls, _FunctionBase ctx, tuple tensor_inputs, object output,
                            bint is_executable, bint separate_setup):
    cdef bint single = not isinstance(output, tuple)
    cdef list outputs = [output] if single else list(output)
    cdef Py_ssize_t i

    # What setup_context saved, to refuse an input that is returned as-is and saved.
    cdef tuple saved_for_setup = ()
    if separate_setup:
        saved_for_setup = tuple(ctx.to_save or ()) + tuple(ctx.saved_for_forward or ())
    cdef tuple to_save = None
    if ctx.to_save is not None and is_executable:
        to_save = tuple(ctx.to_save)
        for i in range(len(to_save)):
            if to_save[i] is not None and not isinstance(to_save[i], Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{i} is of type {type(to_save[i]).__name__}")

    cdef tuple dirty = mark_dirty_inputs(ctx.dirty_tensors)
    cdef tuple non_differentiable = ()
    if ctx.non_differentiable is not None:
        non_differentiable = tuple(ctx.non_differentiable)
        for value in non_differentiable:
            if not isinstance(value, Tensor):
                raise RuntimeError("mark_non_differentiable only accepts variable arguments, "
                                   f"but got {type(value).__name__}")

    wrap_outputs(cls, ctx, outputs, tensor_inputs, dirty, non_differentiable,
                 saved_for_setup, is_executable)
    if is_executable and to_save is not None:
        ctx.saved_variables = save_variables(ctx, to_save)
    ctx.to_save = None
    ctx.dirty_tensors = None
    ctx.non_differentiable = None
    ctx.saved_for_forward = None
    return outputs[0] if single else tuple(outputs)


cdef tuple mark_dirty_inputs(object dirty_tensors):
    """Bump the version of every tensor given to ``mark_dirty``; those tensors."""
    if dirty_tensors is None:
        return ()
    cdef tuple dirty = tuple(dirty_tensors)
    for i, value in enumerate(dirty):
        if not isinstance(value, Tensor):
            raise RuntimeError("mark_dirty can only accept variables, but argument "
                               f"{i} is of type {type(value).__name__}")
        bump_version(<Tensor>value)
    return dirty


# NOTE [Views a library op makes inside its forward]
# An op of the library's written as a Function (``builtin_op``) often returns a reshape of a
# tensor it made in forward (conv2d's ``(kernels @ columns).reshape(...)``). That is a view
# to the tensor type, and a view leaving a custom Function may not be modified in place:
# ``nn.LeakyReLU(inplace=True)`` after a ``Conv2d`` (DCGAN) raised where torch's native op
# gives a plain tensor. So such an output stops being a view (same memory, its own version
# counter): nothing else holds the tensor it was cut from. A view of an input stays one.


cdef void untrack_internal_view(Tensor var, tuple inputs) except *:
    """Make ``var``, a view of a tensor a builtin op made in forward, a plain tensor."""
    cdef Tensor base = var._base
    for value in inputs:
        if value is base or (<Tensor>value)._base is base:
            return
    var._base = None
    var._creation_meta = 0
    var._view_op_name = None
    var._version_counter = None


cdef void wrap_outputs(object cls, _FunctionBase ctx, list outputs, tuple inputs, tuple dirty,
                       tuple non_differentiable, tuple saved_for_setup,
                       bint is_executable) except *:
    """Attach each output to ``ctx`` (an input returned as-is becomes a view, a dirty input
    continues its history at ``ctx``); edits ``outputs`` in place. The tuples hold tensors,
    compared by identity."""
    cdef Py_ssize_t i, count = len(outputs), differentiable_count = 0
    cdef Tensor var
    cdef bint is_input, is_modified, is_differentiable
    # Per output, when recording: its metadata, and the engine's copy (None when it gets no
    # gradient). Filled in place: every slot is set before anything can raise.
    cdef object output_info = PyTuple_New(count) if is_executable else None
    cdef object metadata = PyTuple_New(count) if is_executable else None
    cdef tuple returned = tuple(outputs) if dirty else None     # before any is replaced
    if is_executable:
        for i in range(count):
            set_item(output_info, i, None)
            set_item(metadata, i, None)
        ctx.output_info = <tuple>output_info
        ctx.input_metadata = <tuple>metadata
    cdef bint builtin = getattr(cls, "builtin_op", False)
    for i in range(count):
        value = outputs[i]
        if not isinstance(value, Tensor):
            continue
        var = value
        is_input = contains(inputs, var)
        if builtin and not is_input and var._base is not None:
            untrack_internal_view(var, inputs)
        is_modified = contains(dirty, var)
        is_differentiable = (is_executable and not contains(non_differentiable, var)
                             and floating_or_complex(var._data))
        if is_input and not is_modified and contains(saved_for_setup, var):
            raise RuntimeError(_SAVED_RETURNED_INPUT)
        if is_executable:
            info = output_metadata(var)
            replace_item(output_info, i, info)
            if is_differentiable:
                replace_item(metadata, i, info)

        if not is_differentiable:
            if not requires_grad(var):
                if is_input and not is_modified:
                    var = alias(var)
            elif is_input:
                var = var.detach()
            elif var._base is None:
                var._grad_fn = None            # detach_(): an output made in forward
                var._requires_grad = False
                var._output_nr = 0
        elif is_modified:
            rebase_dirty(ctx, var, i, is_input, count)
        else:
            if is_input:
                var = alias(var)
            set_gradient_edge(var, ctx, i)
        # Views leaving a custom Function may not be modified in place.
        if not (is_input and is_modified) and var._base is not None:
            var._creation_meta = VIEW_IN_CUSTOM_FUNCTION
            var._view_op_name = cls.__name__
        if is_differentiable:
            differentiable_count += 1
        outputs[i] = var
    if differentiable_count > 1:
        for value in outputs:
            if (isinstance(value, Tensor) and (<Tensor>value)._base is not None
                    and (<Tensor>value)._grad_fn is ctx):
                (<Tensor>value)._creation_meta = VIEW_MULTI_OUTPUT_NODE
    for value in dirty:
        if not contains(returned, value):
            raise RuntimeError(_DIRTY_NOT_RETURNED)


cdef inline bint floating_or_complex(object array):
    """Can ``array`` carry a gradient (a floating or complex dtype)? Read from the array
    struct for a NumPy array."""
    if type(array) is cnp.ndarray and (cnp.PyArray_ISFLOAT(<cnp.ndarray>array)
                                       or cnp.PyArray_ISCOMPLEX(<cnp.ndarray>array)):
        return True
    return kind_of(array.dtype) in "fc"     # bfloat16 too (NOTE [bfloat16's kind])


cdef Tensor alias(Tensor var):
    """An input returned as-is comes back as a new view of it."""
    return make_view(var._data.view(), var)


cdef inline void set_gradient_edge(Tensor var, _FunctionBase ctx, Py_ssize_t output_nr):
    var._grad_fn = ctx
    var._output_nr = output_nr
    if var._base is not None:
        var._grad_fn_version = version_counter(var).version


cdef void rebase_dirty(_FunctionBase ctx, Tensor var, Py_ssize_t output_nr, bint is_input,
                       Py_ssize_t output_count) except *:
    """``var`` was modified in place by forward: its history continues at ``ctx``."""
    cdef Tensor base = var._base
    if not is_input:
        if base is not None:
            raise RuntimeError(_DIRTY_NOT_INPUT)
        warnings.warn(_DIRTY_NOT_INPUT, UserWarning, stacklevel=1)
    if var._grad_fn is None and var._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                           "operation.")
    if base is not None and base._grad_fn is None and base._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    if base is not None and output_count > 1:
        raise RuntimeError(_DIRTY_VIEW_MULTIPLE_OUTPUTS)
    if base is not None and var._creation_meta != VIEW_DEFAULT:
        # PyTorch's handle_view_on_rebase: a view of a multi-output op, or made in no_grad
        # mode or by a custom Function, may not be written in place
        raise RuntimeError(view_error_message(var, False))
    var._grad = None
    if base is not None:
        # The base takes a CopySlices grad_fn, the view's own grad_fn is rebuilt lazily.
        rebase_history(var, ctx)
        return
    old_fn, old_nr = var._grad_fn, var._output_nr
    var._grad_fn = ctx
    var._output_nr = output_nr
    if old_fn is not None:
        move_retains_grad_hook(var, old_fn, old_nr)


cdef list save_variables(_FunctionBase ctx, tuple to_save):
    """SavedTensors for ``save_for_backward``: an output of ``ctx`` is kept without its
    grad_fn (no ctx -> tensor -> ctx cycle) and re-attached on unpack."""
    cdef list saved = []
    for value in to_save:
        if value is None:
            saved.append(save(None, False))
        else:
            saved.append(save(<Tensor>value, (<Tensor>value)._grad_fn is ctx))
    return saved


_CLEARED_ON_ACCESS = (
    "saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is set "
    "on the autograd.Function. Either access saved_tensors only once, or set "
    "clear_saved_tensors_on_access=False.")


# ------------------------------------------------------------------ once_differentiable

@cython.final
cdef class Error(Node):
    """A node that refuses to run: the grad_fn of a once-differentiable backward's results."""

    def name(self):
        return "torch::autograd::Error"

    cpdef tuple apply(self, tuple grads):
        raise RuntimeError(self.msg)


def delayed_error(str msg, tuple values, bint keep_history=False):
    """``values`` re-attached to an Error node, so that differentiating them raises ``msg``.

    Each tensor is routed through a fresh leaf that requires grad (once_differentiable's
    DelayedError): the results require grad, and their backward fails with ``msg``. With
    ``keep_history``, a tensor that requires grad keeps its own edge instead (a formula's
    DelayedError in torch): the inputs it was computed from stay reachable, so a double
    backward towards them reaches the Error node and raises.
    """
    cdef Error node = Error()
    cdef Tensor leaf, out
    cdef list edges = []
    cdef list results = []
    cdef list metadata = []
    node.msg = msg
    node.sequence_nr = next_sequence_nr()
    for i, value in enumerate(values):
        if not isinstance(value, Tensor):
            edges.append(Edge(None, 0))
            metadata.append(None)
            results.append(value)
            continue
        if keep_history and requires_grad(<Tensor>value):
            edges.append(gradient_edge(<Tensor>value))
        else:
            leaf = make_tensor((<Tensor>value)._data)
            leaf._requires_grad = True
            edges.append(gradient_edge(leaf))
        out = make_tensor((<Tensor>value)._data)
        out._grad_fn = node
        out._output_nr = i
        metadata.append(gradient_metadata(out))
        results.append(out)
    set_edges(node, edges)
    node.input_metadata = tuple(metadata)
    return tuple(results)
