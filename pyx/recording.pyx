"""Recording: how a forward op makes its backward Node part of the graph.

When grad mode is on and an input requires grad, an op creates its Node and calls one of the
``record*`` functions here, which
- stamp the node with the next ``sequence_nr``, where the forward op was called (NOTE
  [Provenance]) and, in anomaly mode, the forward stack;
- give it one edge per forward input: the input's ``grad_fn`` and ``output_nr``, a leaf's
  AccumulateGrad, or no edge for an input that needs no gradient or is not a tensor;
- save the tensors its backward formula reads (NOTE [Saved tensors]);
- attach each floating-point output (``grad_fn = node``, ``output_nr = i``) and record its
  ``(shape, dtype)`` in ``input_metadata``, what the engine checks gradients against
  (``(shape, dtype, device)`` for an output on a CUDA device);
- in anomaly mode with check_nan, mark the node whose outputs hold a NaN or inf (NOTE [NaN
  origins]).
"""
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
cimport numpy as cnp

from autograd_cy._C.dtype cimport kind_of
from autograd_cy._C.grad_mode cimport (
    is_grad_enabled, is_anomaly_enabled, is_anomaly_check_nan_enabled, next_sequence_nr,
)
from autograd_cy._C.provenance cimport recording_provenance, caller_code, capture_stack, all_finite
import numpy as np

from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, version_counter, get_grad_fn, requires_grad,
    gradient_metadata,
)
from autograd_cy._C.saved_tensor cimport save
from autograd_cy._C.promotion cimport is_complex_array
from autograd_cy._C.node cimport (
    Node, Edge, make_edge, invalid_edge, zero_input_nrs,
)
from autograd_cy._C.accumulate_grad cimport get_accumulator

cnp.import_array()


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
        return invalid_edge()
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


cdef tuple _last_metadata = None     # the metadata tuple made last (see output_metadata)
cdef tuple _last_single = None       # (_last_metadata,): a one-output node's input_metadata


cdef tuple output_metadata(Tensor output):
    """``(shape, dtype)`` of an output, what validate_outputs checks its gradient against
    (with the device as a third item for a CUDA output; a CPU output's tuple stays short).

    Consecutive ops mostly produce outputs of one shape and dtype: the immutable tuple made
    for the previous output is then shared, not rebuilt (two fewer objects per node)."""
    global _last_metadata
    cdef object array = output._data
    cdef tuple metadata
    if type(array) is not cnp.ndarray:
        return gradient_metadata(output)
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


cdef void stamp(Node node):
    """Give a new node its ``sequence_nr``, where its forward op was called (NOTE
    [Provenance]) and, in anomaly mode, the forward stack."""
    node.sequence_nr = next_sequence_nr()
    if recording_provenance():
        node.origin_code = caller_code(&node.origin_lasti)
        if is_anomaly_enabled():
            node.get_extras().anomaly_trace = capture_stack()


cdef void check_output(Node node, Tensor output) except *:
    """Anomaly mode with check_nan: mark ``node`` if ``output`` has a NaN or inf (NOTE [NaN
    origins]); 1 = checked and finite, 2 = not finite."""
    if node.forward_check != 2:
        node.forward_check = 1 if all_finite(output._data) else 2


# NOTE [Complex formulas gate]
# A backward formula written for real tensors gives a wrong gradient for complex ones unless
# it takes the conjugates PyTorch's convention asks for (NOTE [Complex gradients] in
# ops/conjugate.pyx). A Node class whose formulas do says so with ``complex_formulas =
# True``. Recording any other Node where an input or an output is complex raises
# NotImplementedError naming it, at the forward op, so that a formula nobody has checked
# for complex tensors fails loudly instead of training a model on a wrong gradient. The test
# on the real path is the dtype read from each array struct; the class attribute is looked
# up only for complex tensors.

cdef void check_complex_formulas(Node node) except *:
    """Refuse to record ``node`` on complex tensors unless its class has complex formulas."""
    if not getattr(type(node), "complex_formulas", False):
        raise NotImplementedError(
            f"the derivative of {type(node).__name__} for complex tensors is not implemented "
            "in autograd_cy yet; compute it under no_grad() or on real tensors")


cdef inline bint complex_tensor(object x):
    return isinstance(x, Tensor) and is_complex_array((<Tensor>x)._data)


cdef bint any_complex(tuple values):
    for x in values:
        if complex_tensor(x):
            return True
    return False


cdef Node set_history1(Node node, Tensor input, Tensor output):
    """Record a one-input, one-output op: ``output = op(input)`` with backward ``node``."""
    cdef Py_ssize_t input_nr
    if is_complex_array(output._data) or is_complex_array(input._data):
        check_complex_formulas(node)
    stamp(node)
    node.next_nodes = (gradient_function(input),)
    input_nr = gradient_input_nr(input)
    node.next_input_nrs = zero_input_nrs(1) if input_nr == 0 else (input_nr,)
    attach_output(node, output, 0)
    node.input_metadata = single_output_metadata(output)
    if is_anomaly_enabled() and is_anomaly_check_nan_enabled():
        check_output(node, output)
    return node


cdef Node set_history2(Node node, object input0, object input1, Tensor output):
    """Record a binary op; a non-Tensor operand (a Python number) gets an invalid edge."""
    cdef Py_ssize_t input_nr0, input_nr1
    if is_complex_array(output._data) or complex_tensor(input0) or complex_tensor(input1):
        check_complex_formulas(node)
    stamp(node)
    node.next_nodes = (function_of(input0), function_of(input1))
    input_nr0, input_nr1 = input_nr_of(input0), input_nr_of(input1)
    node.next_input_nrs = (zero_input_nrs(2) if input_nr0 == 0 and input_nr1 == 0
                           else (input_nr0, input_nr1))
    attach_output(node, output, 0)
    node.input_metadata = single_output_metadata(output)
    if is_anomaly_enabled() and is_anomaly_check_nan_enabled():
        check_output(node, output)
    return node


cdef Node set_history(Node node, tuple inputs, tuple outputs):
    """Record any op. Outputs that are None or of integer dtype stay outside the graph."""
    cdef Py_ssize_t i
    cdef list metadata = []
    if any_complex(inputs) or any_complex(outputs):
        check_complex_formulas(node)
    stamp(node)
    set_next_edges(node, inputs)
    for i in range(len(outputs)):
        output = outputs[i]
        if output is None:
            metadata.append(None)
        elif kind_of((<Tensor>output)._data.dtype) not in "fc":
            metadata.append(output_metadata(<Tensor>output))
        else:
            attach_output(node, <Tensor>output, i)
            metadata.append(output_metadata(<Tensor>output))
            if is_anomaly_enabled() and is_anomaly_check_nan_enabled():
                check_output(node, <Tensor>output)
    node.input_metadata = tuple(metadata)
    return node


cdef void set_next_edges(Node node, tuple inputs) except *:
    """``node``'s edges: one per operand, to the Node its gradient goes to (none for an
    operand that is not a Tensor or does not require grad). The two tuples are filled in
    place; the input numbers are the shared tuple of zeros unless one is not 0."""
    cdef Py_ssize_t i, input_nr, n = len(inputs)
    cdef object functions = PyTuple_New(n)
    cdef list input_nrs = None
    for i in range(n):
        x = inputs[i]
        function = function_of(x)       # first: it may regenerate a view's grad_fn
        Py_INCREF(function)             # PyTuple_SET_ITEM takes this reference
        PyTuple_SET_ITEM(functions, i, function)
        input_nr = input_nr_of(x)
        if input_nrs is None and input_nr != 0:
            input_nrs = [0] * i
        if input_nrs is not None:
            input_nrs.append(input_nr)
    node.next_nodes = <tuple>functions
    node.next_input_nrs = zero_input_nrs(n) if input_nrs is None else tuple(input_nrs)


cdef bint gets_gradient(object x):
    """Will the operand ``x`` get a gradient edge (its grad_fn, or as a leaf that requires
    grad its accumulator)? What a formula reads only for another input's gradient is saved
    only if that input gets one, as PyTorch saves it: a view made under no_grad of a tensor
    that requires grad requires grad too, yet gets no edge."""
    return isinstance(x, Tensor) and (
        get_grad_fn(<Tensor>x) is not None or (<Tensor>x)._requires_grad)


cdef bint any_requires_grad2(object a, object b):
    """Should a binary op record a node? (grad mode on, some operand requires grad)."""
    if not is_grad_enabled():
        return False
    return ((isinstance(a, Tensor) and requires_grad(<Tensor>a))
            or (isinstance(b, Tensor) and requires_grad(<Tensor>b)))


# ------------------------------------------------------------ one recording path
#
# An op is its forward, its backward Node and one call to ``record`` (or to ``record1`` /
# ``record2``, the same for one or two inputs and one output, without building tuples):
#
#     out = wrap(np.exp(x._data))
#     if is_grad_enabled() and requires_grad(x):
#         record1(ExpBackward0(), x, out, (out,))      # backward reads the result
#
# ``saved`` lists what the backward formula reads, in the order of the node class's
# ``saved_names``: an input, an output (kept without a reference cycle: its grad_fn is the
# node), None for a value not needed, or a Python number (kept as a 0-d tensor, as PyTorch
# keeps a "wrapped number"). The node then reads them with ``unpack_saved(node, i)`` and
# ``Node.release_variables`` frees them all after backward.

cdef tuple save_all(Node node, tuple saved):
    """A SavedTensor (or None) per entry of ``saved``. An entry whose grad_fn is ``node`` is
    one of its outputs, saved as such (NOTE [Saved tensors]); an output left outside the
    graph (an integer result, e.g. max's indices) has no grad_fn and is kept as it is."""
    cdef Py_ssize_t i, n = len(saved)
    cdef tuple result = PyTuple_New(n)
    cdef object value, entry
    for i in range(n):
        value = saved[i]
        if value is None:
            entry = None
        elif isinstance(value, Tensor):
            entry = save(<Tensor>value, (<Tensor>value)._grad_fn is node)
        else:
            entry = save(make_tensor(np.asarray(value)), False, True)
        Py_INCREF(entry)
        PyTuple_SET_ITEM(result, i, entry)
    return result


cdef Node record(Node node, tuple inputs, tuple outputs, tuple saved=()):
    """Make ``node`` the grad_fn of ``outputs = op(*inputs)`` and save ``saved`` in it."""
    set_history(node, inputs, outputs)
    if saved:
        node.saved_tensors = save_all(node, saved)
    return node


cdef Node record1(Node node, Tensor input, Tensor output, tuple saved=()):
    """``record`` for one input and one output."""
    set_history1(node, input, output)
    if saved:
        node.saved_tensors = save_all(node, saved)
    return node


cdef Node record2(Node node, object input0, object input1, Tensor output, tuple saved=()):
    """``record`` for two inputs (a Python number is one) and one output."""
    set_history2(node, input0, input1, output)
    if saved:
        node.saved_tensors = save_all(node, saved)
    return node


def _set_history(Node node, tuple inputs, tuple outputs):
    """Python access to set_history (custom Functions, tests of the engine)."""
    return set_history(node, inputs, outputs)
