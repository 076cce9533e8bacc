"""The backward graph's vertex and edges: Node, Edge, GraphRoot.

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

from autograd_cy._C.tensor import Size
from autograd_cy._C.dtype cimport from_numpy_dtype
from autograd_cy._C.device import CPU
from autograd_cy._C.saved_tensor cimport SavedTensor


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


cdef Edge INVALID_EDGE = Edge(None, 0)


cdef Edge invalid_edge():
    """``Edge(None, 0)``: no gradient flows along it."""
    return INVALID_EDGE


cdef unsigned long long last_handle_id = 0   # ids count up; the GIL orders the increments


cdef class RemovableHandle:
    """Returned by every ``register_*hook``; ``remove()`` unregisters the hook from
    ``hooks_dict`` and from ``extra_dict`` (a dict or a list of them), as
    torch.utils.hooks.RemovableHandle. It holds its tables strongly (torch's holds weak
    references, which a plain dict, the core's hook table, does not take)."""
    cdef readonly object id
    cdef object table             # the hook table it is in (a dict, or an OrderedDict)
    cdef tuple other_tables       # and any others (a hook may sit in several), or None

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.id = next_handle_id()
        self.table = hooks_dict
        self.other_tables = (extra_dict,) if isinstance(extra_dict, dict) else \
            (tuple(extra_dict) if extra_dict else None)

    def hooks_dict_ref(self):
        """The hook table (torch's is a weak reference, called to get the table)."""
        return self.table

    def remove(self):
        self.table.pop(self.id, None)
        if self.other_tables is not None:
            for hooks in self.other_tables:
                hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


cdef inline object next_handle_id():
    global last_handle_id
    last_handle_id += 1
    return last_handle_id


cdef object add_hook(dict hooks, object fn):
    """Add ``fn`` to ``hooks`` under a new handle's id; the handle."""
    cdef RemovableHandle handle = RemovableHandle.__new__(RemovableHandle)
    handle.id = next_handle_id()
    handle.table = hooks
    hooks[handle.id] = fn
    return handle


class InputMetadata:
    """``grad_fn._input_metadata[i]``: the shape, dtype and device the engine checks the
    gradient of the node's output ``i`` against."""
    __slots__ = ("shape", "dtype", "device")
    is_nested_tensor = False
    is_cpp_nested_tensor = False

    def __init__(self, shape, dtype, device=CPU):
        self.shape = Size(shape)
        self.dtype = from_numpy_dtype(dtype)
        self.device = device

    def __repr__(self):
        return f"InputMetadata(shape={self.shape}, dtype={self.dtype}, device={self.device})"


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
        """Free what backward needed (NOTE [Saved tensors]); a later unpack raises."""
        cdef SavedTensor saved
        if self.saved_tensors is None:
            return
        for saved in self.saved_tensors:
            if saved is not None:
                saved.release()

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
        # torch's C++ nodes print their class name: ``<AccumulateGrad object at ...>`` for
        # the node whose name() is "torch::autograd::AccumulateGrad"
        return f"<{self.name().rpartition('::')[2]} object at {id(self):#x}>"

    def __call__(self, *grads):
        if self.input_metadata is not None and len(grads) != len(self.input_metadata):
            raise TypeError(f"expected {len(self.input_metadata)} arguments, got {len(grads)} "
                            "instead")
        check_saved(self)
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

    @property
    def _forward_origin(self):
        """``(code, offset)`` of the forward op's call (NOTE [Provenance]), or None."""
        return None if self.origin_code is None else (self.origin_code, self.origin_lasti)

    @property
    def _forward_nonfinite(self):
        """Had an output of the forward op a NaN or inf? None if anomaly mode with
        check_nan was off in forward (NOTE [NaN origins])."""
        return None if self.forward_check == 0 else self.forward_check == 2

    @property
    def _input_metadata(self):
        """What this node expects of the gradient of each of its outputs."""
        return tuple([InputMetadata(*metadata[:3]) for metadata in self.input_metadata or ()])

    def _inspect(self):
        """What this node holds, read-only, for the debugging tools (draw_graph, why_alive):
        its SavedTensors and its hook tables (None where it has none)."""
        extras = self.extras
        return {
            "saved": self.saved_tensors or (),
            "pre_hooks": None if extras is None else extras.pre_hooks,
            "post_hooks": None if extras is None else extras.post_hooks,
            "tensor_pre_hooks": None if extras is None else extras.tensor_pre_hooks,
            "retains_grad_hooks": None if extras is None else extras.retains_grad_hooks,
        }

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` after this node runs; may replace grad_inputs."""
        cdef NodeExtras extras = self.get_extras()
        if extras.post_hooks is None:
            extras.post_hooks = {}
        return add_hook(extras.post_hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` before this node runs; may replace grad_outputs."""
        cdef NodeExtras extras = self.get_extras()
        if extras.pre_hooks is None:
            extras.pre_hooks = {}
        return add_hook(extras.pre_hooks, fn)

    def _register_hook_dict(self, tensor):
        pass

    def __getattr__(self, str name):
        # PyTorch exposes what a node saved as ``_saved_<name>`` (unpacked) and
        # ``_raw_saved_<name>`` (the SavedTensor). A node class lists the names of its
        # ``saved_tensors`` in ``saved_names``; other saved values are ``saved_<name>`` fields.
        cdef bint raw = name.startswith("_raw_saved_")
        if not raw and not name.startswith("_saved_"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        field = name[len("_raw_saved_"):] if raw else name[len("_saved_"):]
        names = getattr(type(self), "saved_names", ())
        if field in names and self.saved_tensors is not None:
            value = self.saved_tensors[names.index(field)]
        else:
            value = getattr(self, "saved_" + field)
        if raw:
            return value
        if isinstance(value, SavedTensor):
            return (<SavedTensor>value).unpack(self)
        if isinstance(value, tuple) and any(isinstance(v, SavedTensor) for v in value):
            return tuple(None if v is None else (<SavedTensor>v).unpack(self) for v in value)
        return value


@cython.final
cdef class GraphRoot(Node):
    """Feeds the root gradients of a backward with several roots into the graph."""

    def __cinit__(self, tuple edges=(), tuple outputs=()):
        set_edges(self, edges)
        self.outputs = outputs
        self.input_metadata = ()

    batches_gradients = True     # hands on the (batched) root gradients as they are
    cpdef tuple apply(self, tuple grads):
        return self.outputs


cdef Edge make_edge(Node function, Py_ssize_t input_nr):
    """``Edge(function, input_nr)`` without the Python-level constructor call."""
    cdef Edge edge = Edge.__new__(Edge)
    edge.function = function
    edge.input_nr = input_nr
    return edge


# The shared all-zero next_input_nrs, by length (NOTE [Edges as two tuples]).
cdef tuple ZERO_INPUT_NRS = tuple([(0,) * length for length in range(9)])


cdef tuple zero_input_nrs(Py_ssize_t length):
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
