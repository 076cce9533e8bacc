"""The stream semantics of backward on CUDA devices: which stream each node runs on, and
the events that order gradients passed between streams.

# NOTE [Streams of backward]
# A CUDA op launches its kernels on its device's current stream, and a backward op keeps
# the stream its forward op ran on: each CUDA output records, in its gradient metadata,
# the stream current when it was made, and the node that receives its gradient runs with
# that stream current (``node_stream``: the first CUDA entry of the node's input metadata).
# Gradients cross streams in two places, and each crossing is ordered by an event recorded
# on the stream that wrote the gradient and waited on by the stream that reads it:
#
# - InputBuffer.add (``add_on_streams``): a gradient made on the producer node's stream
#   goes to the consumer node, which reads it on its own stream. On one device, the
#   consumer's stream waits for the producer's and the sum of several gradients runs on
#   the consumer's stream. Across devices, the device's default stream stands in for the
#   stream on the other device (torch's rules 2 to 5, in ``accumulation_stream``).
# - The end of the pass (``sync_leaf_streams``): the streams of the nodes that wrote a
#   result (AccumulateGrad, grad()'s captures) are waited on by the stream that was
#   current when backward() was called, so the caller may use ``.grad`` on its stream as
#   it would use any op's result.
#
# The root gradient counts as made on the caller's current stream. None of this runs
# until some CUDA output exists in the process: the CPU engine pays one flag test a node.
"""
from autograd_cy._C.device cimport backend, is_cuda_array
from autograd_cy._C.graph_task cimport accumulate


cdef object node_stream(Node node):
    """``(device index, stream)`` that ``node`` runs on, or None for a CPU node."""
    for metadata in node.input_metadata:
        if metadata is not None and len(<tuple>metadata) == 4:
            return (metadata[2].index, metadata[3])
    return None


cdef object enter_stream(object stream):
    """Make ``stream`` current on its device; return the stream it replaces (the common
    case, already current, switches nothing)."""
    cdef object cuda = backend()
    previous = cuda.current_stream(stream[0])
    if previous is not stream[1]:
        cuda.use_stream(stream[0], stream[1])
    return previous


cdef void exit_stream(object stream, object previous) except *:
    if previous is not stream[1]:
        backend().use_stream(stream[0], previous)


cdef void wait_for(int index, object waiter, object producer) except *:
    """``waiter`` waits for the work queued on ``producer`` so far (an event between them)."""
    if waiter != producer:
        backend().wait_stream(index, waiter, producer)


cdef object accumulation_stream(int index, object producer, object consumer):
    """The stream that receives a gradient on cuda:index, after making it wait for the
    stream that wrote it."""
    cdef bint on_producer = producer is not None and producer[0] == index
    cdef bint on_consumer = consumer is not None and consumer[0] == index
    if on_producer and on_consumer:
        wait_for(index, consumer[1], producer[1])
        return consumer
    default = (index, backend().default_stream(index))
    if on_consumer:                 # made on another device: its default stream wrote it
        wait_for(index, consumer[1], default[1])
        return consumer
    if on_producer:                 # read on another device, which waits on our default
        wait_for(index, default[1], producer[1])
    return default


cdef void add_on_streams(list buffer, Py_ssize_t slot, Tensor grad, object producer,
                         object consumer) except *:
    """InputBuffer.add across streams: ``grad`` from the node running on ``producer`` into
    slot ``slot`` of the node that runs on ``consumer`` (either None on the CPU)."""
    if not is_cuda_array(grad._data):
        accumulate(buffer, slot, grad)
        return
    stream = accumulation_stream(grad._data.device.id, producer, consumer)
    if buffer[slot] is None:
        buffer[slot] = grad
        return
    previous = enter_stream(stream)
    try:
        accumulate(buffer, slot, grad)
    finally:
        exit_stream(stream, previous)


cdef object caller_stream(GraphTask task, Tensor grad):
    """The stream a root gradient counts as made on: the caller's current one."""
    if not is_cuda_array(grad._data):
        return None
    index = grad._data.device.id
    return (index, task.caller_streams[index])


cdef void note_leaf_stream(GraphTask task, object stream) except *:
    if stream is not None and stream not in task.leaf_streams:
        task.leaf_streams.append(stream)


cdef void sync_leaf_streams(GraphTask task) except *:
    """The caller's current streams wait for the streams that wrote the results."""
    for index, stream in task.leaf_streams:
        wait_for(index, task.caller_streams[index], stream)
