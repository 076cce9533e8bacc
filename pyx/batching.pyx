"""Batched gradients: one backward in which every gradient carries a leading batch dim.

NOTE [Batched gradients]
``autograd.grad(outputs, inputs, grad_outputs, is_grads_batched=True)`` reads the first dim
of every grad_output as a batch of B independent gradients (a Jacobian's rows, say). PyTorch
runs the backward formulas under vmap; here the engine runs ONE pass in which every
gradient a node receives and returns has the shape ``(B, *shape)`` (``shape`` that of the
forward tensor), and the formulas are written so that they stay right with that extra dim:

- while such a pass runs, the thread-local switch ``grads_batched()`` is on (the engine sets
  it per GraphTask; a nested backward of its own, as a checkpoint's, sets its own value);
- elementwise formulas need nothing: their saved tensors align on the right with a
  gradient of one more dim, the result has the batched shape (broadcasting included);
- a formula that names a shape (reshape, view, expand, zeros of the input's shape) asks for
  ``batched_shape(grad, shape)``; one that names a non-negative dim (sum over dims,
  unsqueeze, select, cat, transpose) asks for ``batched_dim(dim)`` / ``batched_dims(dims)``
  (a negative dim counts from the right and needs no change); a matrix product uses
  ``matmul``, which broadcasts over leading dims, where the unbatched formula used ``mm``;
- the engine's checks (validate_outputs.pyx: the receiving input's shape, summing a
  broadcast gradient down, dtype casts) compare ``(B, *shape)``; ``grad()`` captures the
  batched gradients as they are.

A Node opts in with the class attribute ``batches_gradients = True`` once its formula has
been read with the rules above. Any other Node (a custom ``autograd.Function``, whose
backward, as under PyTorch's vmap, sees gradients of the forward shape; and every formula
not yet audited) runs once per batch row with the switch off, and its per-row results are
stacked: correct, B times slower, as PyTorch's vmap fallback (which warns only after
``_debug_only_display_vmap_fallback_warnings(True)``, here as there). The built-in nodes
that run per row today (tests/test_batched_grad.py ``PER_ROW_NODES`` keeps this list
honest):

- reductions: the full max/min/median (MaxBackward1), Trace;
- activations and losses: Softmax, LogSoftmax and their double backward, Gelu, Softplus,
  LeakyRelu (and their double backward), MseLoss, NllLoss, BinaryCrossEntropy(WithLogits);
- indexing and in-place: Index, IndexPut, IndexSelect, IndexAdd, Gather, ScatterAdd,
  MaskedFill, Diagonal, AsStrided, TransposeBackward1, CopySlices (the view
  regeneration of an in-place op on a view), CopyBackwards, Fill, Zero;
- a custom Function's backward, by design; torch::autograd::Error (it only raises).
"""
import warnings


cdef extern from *:
    """
    static __thread int autograd_cy_grads_batched = 0;
    static __thread Py_ssize_t autograd_cy_tangent_batch = 0;
    """
    int autograd_cy_grads_batched
    Py_ssize_t autograd_cy_tangent_batch


cdef bint grads_batched() noexcept nogil:
    """Does every gradient in the running backward carry a leading batch dim?"""
    return autograd_cy_grads_batched


cdef void set_grads_batched(bint batched) noexcept nogil:
    global autograd_cy_grads_batched
    autograd_cy_grads_batched = batched


cdef Py_ssize_t batch_ndim() noexcept nogil:
    """How many leading dims a gradient has beyond its tensor's: 1 in a batched pass, else 0."""
    return 1 if autograd_cy_grads_batched else 0


cdef tuple batched_shape(Tensor grad, tuple shape):
    """``shape`` with the batch dim of ``grad`` in front in a batched pass, else ``shape``."""
    if autograd_cy_grads_batched:
        return (grad._data.shape[0],) + shape
    return shape


cdef Py_ssize_t batched_dim(Py_ssize_t dim) noexcept nogil:
    """A non-negative dim of the forward tensor as a dim of its (batched) gradient; a
    negative dim counts from the right and stays."""
    if autograd_cy_grads_batched and dim >= 0:
        return dim + 1
    return dim


cdef tuple batched_dims(object dims):
    """``batched_dim`` of each of ``dims`` (an int or a sequence), as a tuple."""
    if isinstance(dims, int):
        return (batched_dim(dims),)
    return tuple([batched_dim(d) for d in dims])


cdef Py_ssize_t tangent_batch() noexcept nogil:
    """The batch size of every tangent in a batched forward pass (NOTE [Batched tangents] in
    forward.pyx), 0 outside one."""
    return autograd_cy_tangent_batch


cdef void set_tangent_batch(Py_ssize_t batch) noexcept nogil:
    global autograd_cy_tangent_batch
    autograd_cy_tangent_batch = batch


cdef object stack_op = None


cdef void register_stack_rows(object stack) except *:
    global stack_op
    stack_op = stack


cdef object stack_rows(list rows):
    """The per-row results of the fallback, stacked along a new leading dim."""
    return stack_op(rows)


cdef bint display_fallback_warnings = False


cdef void warn_per_row(object node) except *:
    """The warning of a per-row fallback, when asked for (PyTorch words it for its vmap
    fallback and, like PyTorch, shows it only after ``_debug_only_display_vmap_fallback_warnings
    (True)``)."""
    if display_fallback_warnings:
        warnings.warn("There is a performance drop because we have not yet implemented the "
                      f"batching rule for {node.name()}. Please file us an issue on GitHub so "
                      "that we can prioritize its implementation.", UserWarning, stacklevel=2)


def _debug_only_display_vmap_fallback_warnings(bint enabled):
    """Warn each time a node's formula runs once per batch row (off by default)."""
    global display_fallback_warnings
    display_fallback_warnings = enabled


def _is_vmap_fallback_warning_enabled():
    """Does an op run once per element warn? (autograd_cy.func's fallback asks too.)"""
    return display_fallback_warnings


def _grads_batched():
    """Python view of the switch (tests)."""
    return autograd_cy_grads_batched != 0


def _tangent_batch():
    """Python view of the batched-tangents switch: the batch size, 0 when off."""
    return autograd_cy_tangent_batch


def _set_tangent_batch(Py_ssize_t batch):
    """Turn batched tangents on (``batch`` rows) or off (0); returns the previous value
    (forward_ad's private ``_batched_tangents`` context manager)."""
    previous = autograd_cy_tangent_batch
    set_tangent_batch(batch)
    return previous
