"""The backward graph: Node, Edge, AccumulateGrad, GraphRoot, SavedTensor.

# NOTE [What a Node is]
A Node is one step of the backward pass. When a recorded op runs forward it
creates a Node (``MulBackward0`` for ``a * b``) that knows how to turn the
gradient of the op's outputs into gradients of its inputs: ``apply(grads)``
takes one gradient per forward *output* and returns one per forward *input*.
Where each returned gradient goes is its edge ``(function, input_nr)``: the
Node that produced that input and which of its outputs the input was. A leaf
that requires grad is fed by its AccumulateGrad node, which writes ``.grad``;
inputs that need no gradient get an invalid edge ``(None, 0)``.

# NOTE [Edges as two tuples]
PyTorch keeps a node's edges in one array of ``{function, input_nr}`` structs.
The Python equivalent, a tuple of Edge objects, costs an object per edge and
one more pointer to follow per edge; on a graph larger than the CPU's caches
each of those is a cache miss, paid when the graph is built, in every pass of
backward, and when it is freed. So a Node stores its edges as two parallel
tuples, ``next_nodes`` and ``next_input_nrs``: edge ``i`` is
``(next_nodes[i], next_input_nrs[i])``. Almost every input is output 0 of its
producer, so nodes share one tuple of zeros per length. The Edge class remains
the value the API hands out (``get_gradient_edge``, backward's roots and
``inputs=``); ``set_edges`` turns a sequence of them into the two tuples.

``sequence_nr`` counts Nodes per thread in creation order. The engine runs the
ready Node with the largest number first, so backward visits ops in reverse
order of the forward pass (AccumulateGrad has the largest possible number and
runs as soon as it is ready).

# NOTE [Ownership]
Output tensors own their grad_fn; a Node owns its next Nodes and the tensors it
saved. A Node never owns its own outputs: a SavedTensor of an output keeps the
bare array and re-attaches ``grad_fn`` on unpack, so there is no cycle and the
graph is freed by reference counting the moment the outputs go away.
"""
cimport cython
import itertools
import threading
import traceback
import warnings
import weakref

from cpython.ref cimport Py_REFCNT, Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
cimport numpy as cnp
from libc.stdint cimport UINT64_MAX

from autograd_cy._C.grad_mode cimport (
    is_grad_enabled, set_grad_enabled, is_inference_mode_enabled, is_anomaly_enabled,
    next_sequence_nr,
)
from autograd_cy._C.grad_mode import _is_grad_enabled
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, version_counter, get_grad_fn, requires_grad, VersionCounter,
    array_module, bump_version,
)


cdef class Edge:
    """``(function, input_nr)``: where one gradient produced by a Node goes."""

    def __init__(self, Node function=None, Py_ssize_t input_nr=0):
        # __init__, not __cinit__: make_edge's Edge.__new__ then parses no arguments.
        self.function = function
        self.input_nr = input_nr

    def is_valid(self):
        return self.function is not None

    def __iter__(self):
        return iter((self.function, self.input_nr))

    def __repr__(self):
        return f"Edge(function={self.function!r}, input_nr={self.input_nr})"


cnp.import_array()

cdef Edge INVALID_EDGE = Edge(None, 0)


_handle_ids = itertools.count(1)       # next() on a count is atomic under the GIL


class RemovableHandle:
    """Returned by every ``register_*hook``; ``remove()`` unregisters the hook."""

    def __init__(self, hooks_dict, extra_dicts=()):
        self.id = next(_handle_ids)
        self._dicts = (hooks_dict,) + tuple(extra_dicts)

    def remove(self):
        for hooks in self._dicts:
            hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


cdef object _add_hook(dict hooks, object fn):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


cdef class NodeExtras:
    """What few nodes carry: hooks, the user's metadata dict, the anomaly trace. Kept out
    of Node, so that each node of a deep graph is 48 bytes smaller."""


@cython.trashcan(True)
cdef class Node:
    """A backward function: gradients of the outputs in, gradients of the inputs out."""

    def __cinit__(self, *args, **kwargs):
        self.next_nodes = ()
        self.next_input_nrs = ()

    cpdef tuple apply(self, tuple grads):
        raise NotImplementedError(f"{self.name()} has no backward formula")

    cdef void release_variables(self):
        pass

    cdef NodeExtras get_extras(self):
        if self.extras is None:
            self.extras = NodeExtras.__new__(NodeExtras)
        return self.extras

    cdef dict tensor_hooks(self):
        return None if self.extras is None else self.extras.tensor_pre_hooks

    cdef bint should_compute_output(self, Py_ssize_t i):
        """Does the gradient for forward input ``i`` reach anything that wants it?"""
        if self.output_mask is not None:
            return self.output_mask[i]
        return self.next_nodes[i] is not None

    # ---------------------------------------------------------- Python API
    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{self.name()} object at {id(self):#x}>"

    def __call__(self, *grads):
        return self.apply(grads)

    @property
    def next_functions(self):
        return tuple(zip(self.next_nodes, self.next_input_nrs))

    @property
    def metadata(self):
        cdef NodeExtras extras = self.get_extras()
        if extras.metadata is None:
            extras.metadata = {}
        return extras.metadata

    def _sequence_nr(self):
        return self.sequence_nr

    def _input_metadata(self):
        return list(self.input_metadata or ())

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` after this node runs; may replace grad_inputs."""
        cdef NodeExtras extras = self.get_extras()
        if extras.post_hooks is None:
            extras.post_hooks = {}
        return _add_hook(extras.post_hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` before this node runs; may replace grad_outputs."""
        cdef NodeExtras extras = self.get_extras()
        if extras.pre_hooks is None:
            extras.pre_hooks = {}
        return _add_hook(extras.pre_hooks, fn)

    def _register_hook_dict(self, tensor):
        pass

    def __getattr__(self, str name):
        # `_saved_self` / `_raw_saved_self` read the `saved_self` field of built-in nodes.
        cdef object value
        if name.startswith("_raw_saved_"):
            value = getattr(self, "saved_" + name[len("_raw_saved_"):])
            return value
        if name.startswith("_saved_"):
            value = getattr(self, "saved_" + name[len("_saved_"):])
            if isinstance(value, SavedTensor):
                return (<SavedTensor>value).unpack(self)
            if isinstance(value, tuple) and value and isinstance(value[0], SavedTensor):
                return tuple((<SavedTensor>v).unpack(self) for v in value)
            return value
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


@cython.final
cdef class AccumulateGrad(Node):
    """The sink of a leaf: adds the incoming gradient into ``variable.grad``."""

    def __cinit__(self, Tensor variable=None):
        self.variable = variable
        self.sequence_nr = UINT64_MAX
        if variable is not None:
            self.input_metadata = ((variable._data.shape, variable._data.dtype),)

    def name(self):
        return "torch::autograd::AccumulateGrad"

    cdef dict tensor_hooks(self):
        # Leaf hooks live on the tensor, so they outlive this (weakly cached) node.
        if self.variable._hooks:
            return {0: self.variable._hooks}
        return None

    cpdef tuple apply(self, tuple grads):
        cdef Tensor variable = self.variable
        cdef object grad = grads[0]
        if grad is not None and variable._requires_grad:
            if variable._grad_fn is not None:
                raise RuntimeError("leaf variable has been moved into the graph interior")
            accumulate_grad(variable, <Tensor>grad)
        if variable._post_accumulate_grad_hooks:
            for hook in list(variable._post_accumulate_grad_hooks.values()):
                result = hook(variable)
                if result is not None:
                    raise TypeError(
                        f"expected Variable, but hook returned '{type(result).__name__}'")
        return ()


# References to the incoming gradient held by the engine while AccumulateGrad runs
# (the InputBuffer list, the grads tuple, the local in apply). One more means
# someone else holds it, so it must be copied, not stolen (rule 6.2). Calibrated
# against torch's data_ptr() behaviour by test_6_2 in tests/test_engine.py.
cdef Py_ssize_t ENGINE_REFERENCES = 3


cdef void accumulate_grad(Tensor variable, Tensor grad) except *:
    """The "default gradient layouts" rules (engine_semantics 6.1-6.3)."""
    cdef Tensor old = variable._grad
    if old is None:
        if not is_grad_enabled() and can_steal(variable, grad):
            variable._grad = grad
        elif is_grad_enabled() and requires_grad(grad):
            # create_graph: a differentiable copy, laid out like the leaf (CopyBackwards).
            from autograd_cy._C.ops.inplace import copy_
            copy = make_tensor(xp_empty_like(variable._data, grad._data.dtype))
            variable._grad = copy_(copy, grad)
        else:
            variable._grad = make_tensor(copy_with_layout(grad._data, variable._data))
    elif not is_grad_enabled():
        # Rule 6.3: in place, so a user-assigned .grad keeps its identity and strides.
        old._data += grad._data
        bump_version(old)
        check_layout_contract(old, variable)
    else:
        variable._grad = old + grad
        check_layout_contract(variable._grad, variable)


cdef bint _layout_warned = False


cdef void check_layout_contract(Tensor grad, Tensor param) except *:
    """Warn once per process when ``.grad`` is not laid out like its leaf (rule 6.4):
    the same strides when the leaf is dense, else row-major contiguous."""
    global _layout_warned
    if _layout_warned or grad._data.strides == param._data.strides:
        return
    if obeys_layout_contract(grad._data, param._data):
        return
    _layout_warned = True
    warnings.warn(
        "grad and param do not obey the gradient layout contract. This is not an error, but "
        "may impair performance.\n"
        f"grad.sizes() = {list(grad._data.shape)}, strides() = {element_strides(grad._data)}\n"
        f"param.sizes() = {list(param._data.shape)}, strides() = "
        f"{element_strides(param._data)}", UserWarning, stacklevel=2)


cdef list element_strides(object array):
    return [stride // array.itemsize for stride in array.strides]


cdef bint obeys_layout_contract(object grad, object param):
    cdef list grad_strides = element_strides(grad)
    cdef list param_strides = element_strides(param)
    cdef Py_ssize_t i
    if not is_dense(param):
        return bool(grad.flags.c_contiguous)
    for i in range(len(param_strides)):
        if param.shape[i] != 1 and grad_strides[i] != param_strides[i]:
            return False
    return True


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


cdef bint can_steal(Tensor variable, Tensor grad):
    """May ``grad`` itself become ``.grad``? Only if nobody else can see it (rule 6.2)."""
    cdef object array = grad._data          # this local is the array's second reference
    return (Py_REFCNT(grad) <= ENGINE_REFERENCES
            and Py_REFCNT(array) == 2
            and grad._grad_fn is None
            and not grad._requires_grad
            and array.base is None
            and array.dtype == variable._data.dtype
            and (array.strides == variable._data.strides
                 or obeys_layout_contract(array, variable._data)))


cdef object xp_empty_like(object param_array, object dtype):
    return array_module(param_array).empty_like(param_array, dtype=dtype)


cdef object copy_with_layout(object grad_array, object param_array):
    """A copy of the gradient laid out like the parameter when it is dense (rule 6.1)."""
    result = xp_empty_like(param_array, grad_array.dtype)
    result[...] = grad_array
    return result


@cython.final
cdef class GraphRoot(Node):
    """Feeds the root gradients of a backward with several roots into the graph."""

    def __cinit__(self, tuple edges=(), tuple outputs=()):
        set_edges(self, edges)
        self.outputs = outputs
        self.input_metadata = ()

    cpdef tuple apply(self, tuple grads):
        return self.outputs


# ------------------------------------------------------------------ graph recording

cdef AccumulateGrad get_accumulator(Tensor leaf):
    """The leaf's AccumulateGrad, created once and cached weakly (rule 1.4)."""
    cdef AccumulateGrad acc = None
    if leaf._accumulator is not None:
        acc = leaf._accumulator()
    if acc is None:
        acc = AccumulateGrad(leaf)
        leaf._accumulator = weakref.ref(acc)
    return acc


cdef inline Edge make_edge(Node function, Py_ssize_t input_nr):
    """``Edge(function, input_nr)`` without the Python-level constructor call."""
    cdef Edge edge = Edge.__new__(Edge)
    edge.function = function
    edge.input_nr = input_nr
    return edge


cdef object gradient_function(Tensor t):
    """The Node a gradient for ``t`` goes to: its grad_fn, its accumulator, or None."""
    cdef object grad_fn = get_grad_fn(t)
    if grad_fn is not None:
        return grad_fn
    if t._requires_grad:
        return get_accumulator(t)
    return None


cdef inline Py_ssize_t gradient_input_nr(Tensor t):
    """The other half of t's gradient edge; call after gradient_function(t) (which may
    regenerate a view's grad_fn)."""
    return t._output_nr if t._grad_fn is not None else 0


cdef Edge gradient_edge(Tensor t):
    """The edge a gradient for ``t`` must travel, as a value for the API."""
    cdef object function = gradient_function(t)
    if function is None:
        return INVALID_EDGE
    return make_edge(<Node>function, gradient_input_nr(t))


def _gradient_edge(Tensor t):
    return gradient_edge(t)


cdef inline object function_of(object x):
    """gradient_function for an op's operand; a non-Tensor operand gets no edge."""
    if isinstance(x, Tensor):
        return gradient_function(<Tensor>x)
    return None


cdef inline Py_ssize_t input_nr_of(object x):
    return gradient_input_nr(<Tensor>x) if isinstance(x, Tensor) else 0


# The shared all-zero next_input_nrs, by length (NOTE [Edges as two tuples]).
cdef tuple ZERO_INPUT_NRS = tuple([(0,) * length for length in range(9)])


cdef inline tuple zero_input_nrs(Py_ssize_t length):
    return <tuple>ZERO_INPUT_NRS[length] if length < 9 else (0,) * length


cdef tuple input_nrs_tuple(list input_nrs):
    """``tuple(input_nrs)``, or the shared tuple of zeros when they are all zero."""
    for input_nr in input_nrs:
        if input_nr != 0:
            return tuple(input_nrs)
    return zero_input_nrs(len(input_nrs))


cdef void set_edges(Node node, edges) except *:
    """Store a sequence of Edge values as ``node``'s two edge tuples."""
    cdef Edge edge
    cdef list functions = []
    cdef list input_nrs = []
    for edge in edges:
        functions.append(edge.function)
        input_nrs.append(edge.input_nr)
    node.next_nodes = tuple(functions)
    node.next_input_nrs = input_nrs_tuple(input_nrs)


cdef tuple _last_metadata = None     # the metadata tuple made last (see output_metadata)
cdef tuple _last_single = None       # (_last_metadata,): a one-output node's input_metadata


cdef inline tuple output_metadata(Tensor output):
    """``(shape, dtype)`` of an output, what validate_outputs checks its gradient against.

    Consecutive ops mostly produce outputs of one shape and dtype: the immutable tuple made
    for the previous output is then shared, not rebuilt (two fewer objects per node)."""
    global _last_metadata
    cdef object array = output._data
    cdef tuple metadata
    if type(array) is not cnp.ndarray:
        return (array.shape, array.dtype)
    metadata = _last_metadata
    if metadata is not None and matches(<cnp.ndarray>array, metadata):
        return metadata
    # Read from the array struct: no attribute lookups on the per-op path.
    metadata = (array_shape(<cnp.ndarray>array), <object>cnp.PyArray_DESCR(<cnp.ndarray>array))
    _last_metadata = metadata
    return metadata


cdef inline tuple single_output_metadata(Tensor output):
    """``input_metadata`` of a one-output node: ``(output_metadata(output),)``, shared
    like the metadata itself (one object fewer per node, ~10% of a deep chain's memory)."""
    global _last_single
    cdef tuple metadata = output_metadata(output)
    cdef tuple single = _last_single
    if single is None or single[0] is not metadata:
        single = (metadata,)
        _last_single = single
    return single


cdef inline bint matches(cnp.ndarray array, tuple metadata):
    """Does ``metadata`` hold exactly this array's shape and dtype?"""
    cdef tuple shape = <tuple>metadata[0]
    cdef Py_ssize_t i, ndim = cnp.PyArray_NDIM(array)
    if <object>cnp.PyArray_DESCR(array) is not metadata[1] or len(shape) != ndim:
        return False
    for i in range(ndim):
        if cnp.PyArray_DIMS(array)[i] != <Py_ssize_t>shape[i]:
            return False
    return True


cdef tuple array_shape(cnp.ndarray array):
    """``array.shape``, built straight from the dimensions."""
    cdef Py_ssize_t i, ndim = cnp.PyArray_NDIM(array)
    cdef tuple shape = PyTuple_New(ndim)
    cdef object size        # typed: an inferred C integer would be boxed twice, freed once
    for i in range(ndim):
        size = cnp.PyArray_DIMS(array)[i]
        Py_INCREF(size)
        PyTuple_SET_ITEM(shape, i, size)
    return shape


cdef inline void attach_output(Node node, Tensor output, Py_ssize_t output_nr):
    output._grad_fn = node
    output._output_nr = output_nr
    if output._base is not None:
        output._grad_fn_version = version_counter(output).version




cdef inline void stamp(Node node):
    node.sequence_nr = next_sequence_nr()
    if is_anomaly_enabled():
        node.get_extras().anomaly_trace = "".join(traceback.format_stack())


cdef Node set_history1(Node node, Tensor input, Tensor output):
    """Record a one-input, one-output op: ``output = op(input)`` with backward ``node``."""
    cdef Py_ssize_t input_nr
    stamp(node)
    node.next_nodes = (gradient_function(input),)
    input_nr = gradient_input_nr(input)
    node.next_input_nrs = zero_input_nrs(1) if input_nr == 0 else (input_nr,)
    attach_output(node, output, 0)
    node.input_metadata = single_output_metadata(output)
    return node


cdef Node set_history2(Node node, object input0, object input1, Tensor output):
    """Record a binary op; a non-Tensor operand gets an invalid edge (rule 1.3)."""
    cdef Py_ssize_t input_nr0, input_nr1
    stamp(node)
    node.next_nodes = (function_of(input0), function_of(input1))
    input_nr0, input_nr1 = input_nr_of(input0), input_nr_of(input1)
    node.next_input_nrs = (zero_input_nrs(2) if input_nr0 == 0 and input_nr1 == 0
                           else (input_nr0, input_nr1))
    attach_output(node, output, 0)
    node.input_metadata = single_output_metadata(output)
    return node


cdef Node set_history(Node node, tuple inputs, tuple outputs):
    """Record any op. Outputs that are None or of integer dtype stay outside the graph."""
    cdef Py_ssize_t i
    cdef list metadata = []
    stamp(node)
    node.next_nodes = tuple([function_of(x) for x in inputs])
    node.next_input_nrs = input_nrs_tuple([input_nr_of(x) for x in inputs])
    for i in range(len(outputs)):
        output = outputs[i]
        if output is None:
            metadata.append(None)
        elif (<Tensor>output)._data.dtype.kind != "f":
            metadata.append(((<Tensor>output)._data.shape, (<Tensor>output)._data.dtype))
        else:
            attach_output(node, <Tensor>output, i)
            metadata.append(output_metadata(<Tensor>output))
    node.input_metadata = tuple(metadata)
    return node


cdef bint any_requires_grad2(object a, object b):
    """Should a binary op record a node? (grad mode on, some operand requires grad)."""
    if not is_grad_enabled():
        return False
    return ((isinstance(a, Tensor) and requires_grad(<Tensor>a))
            or (isinstance(b, Tensor) and requires_grad(<Tensor>b)))


def _set_history(Node node, tuple inputs, tuple outputs):
    """Python access to set_history (custom Functions, tests of the engine)."""
    return set_history(node, inputs, outputs)


# ------------------------------------------------------------------ saved tensors

_FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")

_INFERENCE_SAVE_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead "
    "of `torch.inference_mode()`.")

# ---- saved_tensors_hooks (rules 5.4-5.6): a per-thread stack of (pack, unpack) pairs.
# `save` runs on every recorded op, so "are hooks active?" is one C thread-local load;
# the Python stack itself lives in a threading.local and is read only when it is set.
cdef extern from *:
    """
    static __thread int autograd_cy_saved_hooks_depth = 0;
    """
    int autograd_cy_saved_hooks_depth

_hooks_local = threading.local()


cdef list _hooks_stack():
    stack = getattr(_hooks_local, "stack", None)
    if stack is None:
        stack = _hooks_local.stack = []
    return stack


def _push_saved_tensors_hooks(pack, unpack):
    """Make ``(pack, unpack)`` the innermost pair (only that one applies, rule 5.4)."""
    global autograd_cy_saved_hooks_depth
    message = getattr(_hooks_local, "disabled_message", None)
    if message is not None:
        raise RuntimeError(message)
    _hooks_stack().append((pack, unpack))
    autograd_cy_saved_hooks_depth += 1


def _pop_saved_tensors_hooks():
    global autograd_cy_saved_hooks_depth
    _hooks_stack().pop()
    autograd_cy_saved_hooks_depth -= 1


def _disable_saved_tensors_hooks(message):
    """Forbid saved_tensors_hooks with ``message``; returns the previous setting."""
    previous = getattr(_hooks_local, "disabled_message", None)
    if message is not None and autograd_cy_saved_hooks_depth:
        raise RuntimeError(message)
    _hooks_local.disabled_message = message
    return previous


def _current_saved_tensors_hooks():
    stack = _hooks_stack()
    return stack[-1] if stack else None


def _forward_op_name(node):
    """``AddBackward0`` -> ``Add``: PyTorch names the forward op in version errors."""
    name = node.name()
    stripped = name.rstrip("0123456789")
    if stripped.endswith("Backward"):
        stripped = stripped[:-len("Backward")]
    return stripped or name


@cython.freelist(262144)
cdef class SavedTensor:
    """A tensor kept for backward (PyTorch's SavedVariable), version-checked on unpack.

    An input of the node is kept as the tensor object itself; the node's own output
    only as its array (plus version counter), re-wrapped with ``grad_fn = node`` on
    each unpack, so that node -> output -> node is never a reference cycle (rule 5.1).
    """

    def register_hooks(self, pack_hook, unpack_hook):
        """Replace how this value is stored: ``pack_hook`` now, ``unpack_hook`` on access."""
        if self.was_none:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        if self.freed:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through "
                "the graph a second time or if you need to access saved variables after "
                "calling backward.")
        if self.unpack_hook is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at a "
                               "time.")
        value = self.data
        if self.is_output:
            value = make_tensor(self.data)
            self._restore_metadata(value, None)
        self._apply_hooks(pack_hook, unpack_hook, value)

    cdef _apply_hooks(self, pack_hook, unpack_hook, Tensor value):
        """Hand storage to a pack hook (run under no_grad, exactly once: rule 5.4)."""
        cdef bint previous = _is_grad_enabled()
        cdef unsigned long long version = version_counter(value).version
        if value._grad_fn is None and value._requires_grad:
            # A leaf: keep (weakly) the accumulator, so gradients of the unpacked
            # tensor still reach this leaf's .grad.
            self.is_leaf_or_input_kept = True
            self.input_grad_fn = weakref.ref(get_accumulator(value))
        set_grad_enabled(False)
        try:
            self.packed = pack_hook(value)
        finally:
            set_grad_enabled(previous)
        if version_counter(value).version != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as "
                "input to pack hook cannot be modified by in-place operations as this can lead "
                "to unexpected side-effects. Please open an issue if you need to perform "
                "in-place operations on the input to a pack hook.")
        self.unpack_hook = unpack_hook
        self.data = None

    cpdef object unpack(self, Node owner=None):
        """The saved tensor; raises if it was freed or modified in place since saving."""
        cdef Tensor result
        if self.was_none:
            return None
        if self.freed:
            raise RuntimeError(_FREED_MESSAGE)
        if self.unpack_hook is not None:
            # Hooks take over storage; PyTorch skips the version check here (rule 5.5).
            value = self.unpack_hook(self.packed)
            if not isinstance(value, Tensor):
                raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but "
                                f"got result of type {type(value).__name__}")
            result = make_tensor((<Tensor>value)._data)
            self._restore_metadata(result, owner)
            return result
        if (<VersionCounter>self.version_counter).version != self.saved_version:
            raise RuntimeError(self._version_message(owner))
        if not self.is_output:
            return self.data
        result = make_tensor(self.data)
        self._restore_metadata(result, owner)
        return result

    cdef object unpack_array(self, Node owner):
        """``unpack(owner)._data`` with the same checks, without wrapping an output first."""
        if self.was_none or self.freed or self.unpack_hook is not None or not self.is_output:
            value = self.unpack(owner)
            return None if value is None else (<Tensor>value)._data
        if (<VersionCounter>self.version_counter).version != self.saved_version:
            raise RuntimeError(self._version_message(owner))
        return self.data

    cdef void _restore_metadata(self, Tensor result, Node owner):
        result._version_counter = self.version_counter
        if not self.saved_requires_grad:
            return
        if self.is_output:
            result._grad_fn = owner
            result._output_nr = self.output_nr
        elif self.is_leaf_or_input_kept:
            result._requires_grad = True
            result._accumulator = self.input_grad_fn
        elif self.input_grad_fn is not None:
            result._grad_fn = self.input_grad_fn
            result._output_nr = self.output_nr
        else:
            result._requires_grad = True

    def _version_message(self, owner=None):
        from autograd_cy.dtypes import from_numpy_dtype
        if self.is_output:
            array, grad_fn, output_nr = self.data, owner, self.output_nr
        else:
            # The tensor's *current* history names the op (rule 5.2).
            array = (<Tensor>self.data)._data
            grad_fn = (<Tensor>self.data)._grad_fn
            output_nr = (<Tensor>self.data)._output_nr
        type_name = "autograd_cy." + from_numpy_dtype(array.dtype)._tensor_type
        where = ""
        if grad_fn is not None:
            where = f", which is output {output_nr} of {_forward_op_name(grad_fn)},"
        if is_anomaly_enabled():
            hint = ("Hint: the backtrace further above shows the operation that failed to "
                    "compute its gradient. The variable in question was changed in there or "
                    "anywhere later. Good luck!")
        else:
            hint = ("Hint: enable anomaly detection to find the operation that failed to "
                    "compute its gradient, with "
                    "torch.autograd.set_detect_anomaly(True, check_nan=False).")
        return (
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{type_name} {list(array.shape)}]{where} is at version "
            f"{(<VersionCounter>self.version_counter).version}; expected version "
            f"{self.saved_version} instead. {hint}")

    cdef void release(self):
        self.freed = True
        self.data = None
        self.packed = None

    def __repr__(self):
        return "<autograd_cy._C._autograd.SavedTensor object>"


cdef SavedTensor save(Tensor t, bint is_output):
    """Save ``t`` for backward: an input as the object itself, an output as its array."""
    cdef SavedTensor saved = SavedTensor.__new__(SavedTensor)
    if t is None:
        saved.was_none = True
        return saved
    if t._is_inference and not is_inference_mode_enabled():
        raise RuntimeError(_INFERENCE_SAVE_MESSAGE)
    counter = version_counter(t)
    saved.version_counter = counter
    saved.saved_version = (<VersionCounter>counter).version
    saved.is_output = is_output
    saved.saved_requires_grad = requires_grad(t)
    saved.output_nr = t._output_nr
    if is_output:
        saved.data = t._data
    else:
        saved.data = t
        saved.input_grad_fn = t._grad_fn
    if autograd_cy_saved_hooks_depth:
        pack_hook, unpack_hook = _hooks_stack()[-1]
        saved._apply_hooks(pack_hook, unpack_hook, t)
    return saved


# ---------------------------------------------------------- hooks on tensors

class RetainGradHook:
    """Keeps a non-leaf's gradient in its ``.grad``; runs after every tensor hook (4.3)."""

    def __init__(self, Tensor tensor):
        self.tensor_ref = weakref.ref(tensor)

    def __call__(self, grad):
        cdef Tensor tensor = self.tensor_ref()
        if tensor is None or grad is None:
            return
        if tensor._grad is None:
            # A fresh contiguous copy: the retained grad never aliases the engine's buffer.
            if is_grad_enabled() and requires_grad(<Tensor>grad):
                contiguous = (<Tensor>grad)._data.flags.c_contiguous
                tensor._grad = grad.clone() if contiguous else grad.contiguous()
            else:
                tensor._grad = make_tensor(array_module((<Tensor>grad)._data).array(
                    (<Tensor>grad)._data, order="C"))
        else:
            tensor._grad = tensor._grad + grad


def retain_grad(Tensor t):
    cdef Node grad_fn
    if not requires_grad(t):
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if t._grad_fn is None or t._retains_grad:
        return
    extras = (<Node>get_grad_fn(t)).get_extras()
    if extras.retains_grad_hooks is None:
        extras.retains_grad_hooks = {}
    extras.retains_grad_hooks[t._output_nr] = RetainGradHook(t)
    t._retains_grad = True


def move_retains_grad_hook(Tensor t, Node old_grad_fn, Py_ssize_t old_output_nr):
    """After an in-place op rebased ``t``, its retains-grad hook follows it (rule 4.7)."""
    cdef NodeExtras old = old_grad_fn.extras
    if old is None or not old.retains_grad_hooks:
        return
    hook = old.retains_grad_hooks.pop(old_output_nr, None)
    if hook is None:
        return
    cdef NodeExtras new = (<Node>t._grad_fn).get_extras()
    if new.retains_grad_hooks is None:
        new.retains_grad_hooks = {}
    new.retains_grad_hooks[t._output_nr] = hook


def register_tensor_hook(Tensor t, hook):
    cdef Node grad_fn
    if not requires_grad(t):
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t._grad_fn is None:
        if t._hooks is None:
            t._hooks = {}
        return _add_hook(t._hooks, hook)
    # A non-leaf's hook binds to its current grad_fn's input slot (rule 4.2).
    extras = (<Node>get_grad_fn(t)).get_extras()
    if extras.tensor_pre_hooks is None:
        extras.tensor_pre_hooks = {}
    slot_hooks = extras.tensor_pre_hooks.setdefault(t._output_nr, {})
    return _add_hook(slot_hooks, hook)


def register_post_accumulate_grad_hook(Tensor t, hook):
    if t._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if not t._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t._post_accumulate_grad_hooks is None:
        t._post_accumulate_grad_hooks = {}
    return _add_hook(t._post_accumulate_grad_hooks, hook)
