"""``autograd.functional``: the Jacobian and Hessian of a whole function, and their products
with a vector.

Each function takes a Python function ``func`` and the point ``inputs`` at which to
differentiate it (a Tensor or a tuple of Tensors), runs ``func`` once on fresh graph roots
and asks the engine (``autograd.grad``) for what it needs, as ``torch.autograd.functional``:

* ``vjp``: ``v^T J`` -- one backward.
* ``jvp``: ``J v`` -- by the double-backward trick (NOTE [The double-backward trick]).
* ``jacobian``: one backward per output element, or ONE batched backward
  (``vectorize=True``), or forward-mode AD (``strategy="forward-mode"``).
* ``hessian``: the Jacobian of the gradient (the inner Jacobian is reverse mode).
* ``vhp``: ``v^T H`` -- a backward of the gradient; ``hvp``: ``H v`` -- the same backward
  (H is symmetric: NOTE [hvp as the backward of the gradient]), or, with ``create_graph``
  or ``strict``, the double-backward trick applied to the gradient, as in torch.

Results follow the inputs' (and outputs') structure: a single Tensor where the argument
was a single Tensor, a tuple where it was a tuple, and for ``jacobian`` a tuple of tuples
``J[i][j]`` (output ``i``, input ``j``, shape ``output_i.shape + input_j.shape``) when both
were tuples (lists where torch's forward-mode jacobian returns lists). Without
``create_graph`` every result is detached from the graph.

>>> import autograd_cy as ag
>>> from autograd_cy.autograd.functional import jacobian
>>> jacobian(lambda x: x ** 2, ag.tensor([1.0, 2.0]))
tensor([[2., 0.],
        [0., 4.]])
"""
import sys

from autograd_cy._C.grad_mode import _GradMode
from autograd_cy._C.ops.split_cat import stack
from autograd_cy._C.tensor import Tensor
from autograd_cy.autograd import forward_ad
from autograd_cy.autograd.backward import grad as _autograd_grad
from autograd_cy.factories import eye, zeros_like
from autograd_cy.grad_mode import is_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_STRATEGIES = ("forward-mode", "reverse-mode")


# ---------------------------------------------------------------- argument structure

def _as_tuple(value, what, function):
    """``(was_a_tuple, value as a tuple)``, each element checked to be a Tensor.

    Only a real tuple counts as several arguments: a list is one (invalid) argument, as
    in torch. ``function`` names the caller in the error message.
    """
    was_tuple = isinstance(value, tuple)
    items = value if was_tuple else (value,)
    for index, item in enumerate(items):
        if not isinstance(item, Tensor):
            where = f"value at index {index}" if was_tuple else f"given {what}"
            raise TypeError(f"The {what} given to {function} must be either a Tensor or a "
                            f"tuple of Tensors but the {where} has type {type(item)}.")
    return was_tuple, items


def _as_given(results, was_tuple):
    """The tuple ``results`` back in the caller's structure: its only element, or itself."""
    return results if was_tuple else results[0]


def _as_given_nested(results, outer_was_tuple, inner_was_tuple):
    """``_as_given`` for a tuple of tuples (Jacobians, Hessians): inner level, then outer."""
    if not inner_was_tuple:
        results = tuple(row[0] for row in results)
    return _as_given(results, outer_was_tuple)


_INSIDE_TRANSFORM = (
    "You are attempting to call Tensor.requires_grad_() (or perhaps using "
    "torch.autograd.functional.* APIs) inside of a function being transformed by a functorch "
    "transform. This is unsupported, please attempt to use the functorch transforms (e.g. "
    "grad, vjp, jacrev, jacfwd, hessian) or call requires_grad_() outside of a function being "
    "transformed instead.")


def _refuse_inside_transform():
    """torch's error where its autograd.functional calls ``requires_grad_`` inside a
    torch.func transform (vmap, grad, jvp ...), which torch refuses there."""
    transforms = sys.modules.get("autograd_cy.func.autograd_function")
    if transforms is not None and transforms._depth:
        raise RuntimeError(_INSIDE_TRANSFORM)


def _graph_roots(tensors, create_graph, need_graph):
    """The tensors ``func`` is run on: new graph roots, so the engine is asked about them.

    With ``create_graph`` an input that requires grad is passed as a view of itself: the
    results stay connected to the caller's graph (and can be differentiated again). Any
    other input is detached (no copy: the storage is shared) and then requires grad when
    ``need_graph`` (the inputs), not when it is only a given vector ``v`` (torch calls
    ``requires_grad_`` either way: inside a transform, its error).
    """
    if not all(create_graph and t.requires_grad for t in tensors):
        _refuse_inside_transform()
    if not need_graph and not create_graph:
        return tuple([t.detach() for t in tensors])
    return tuple([t.view_as(t) if create_graph and t.requires_grad
                  else t.detach().requires_grad_(need_graph) for t in tensors])


def _detached_unless(results, create_graph):
    """Results as returned: detached from the graph unless ``create_graph`` (nested tuples
    walked)."""
    if create_graph:
        return results
    return tuple([r.detach() if isinstance(r, Tensor) else _detached_unless(r, False)
                  for r in results])


def _check_v(v, refs, refs_were_tuple):
    """``v`` has one tensor per reference tensor, each of the same size."""
    if len(v) != len(refs):
        if refs_were_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(refs)} but "
                               f"got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for index, (vector, ref) in enumerate(zip(v, refs)):
        if not vector.is_same_size(ref):
            entry = f"Entry {index} in " if refs_were_tuple else ""
            raise RuntimeError(f"{entry}v has invalid size: should be {ref.size()} but got "
                               f"{vector.size()}.")


def _check_single_element_input(inputs):
    if len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided "
                           "function is a single Tensor with a single element.")


def _check_scalar_function(outputs, outputs_were_tuple, function):
    """``hvp``/``vhp``: ``func`` returns one Tensor with one element."""
    if outputs_were_tuple:
        raise RuntimeError(f"The function given to {function} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {function} should "
                           "contain a single element")


# ---------------------------------------------------------------- strict mode

def _check_requires_grad(tensors, kind, strict):
    """``strict``: each of ``tensors`` (outputs, or gradients on the way to a second
    derivative) exists and depends on the inputs (requires grad)."""
    if not strict:
        return
    for index, tensor in enumerate(tensors):
        if tensor is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {index}. This is not allowed in strict mode.")
        if tensor.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {index} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs.")
        if kind == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {index} is independent of the input. This "
                "is not allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).")
        if kind == "grad_inputs":
            raise RuntimeError(
                f"The gradient with respect to input {index} is independent of the inputs of "
                "the user-provided function. This is not allowed in strict mode.")
        raise RuntimeError(
            f"Output {index} of the user-provided function does not require gradients. The "
            "outputs must be computed in a differentiable manner from the input when running "
            "in strict mode.")


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {}. This is "
            "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
                         "{} in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward "
                         "mode AD.",
}


def _zeros_where_unused(grads, refs, strict, create_graph, stage):
    """A gradient the engine found unused (None) is zero, shaped like its reference; in
    strict mode it is an error instead (worded after the ``stage`` that found it), as is a
    gradient that does not require grad although ``create_graph`` asked for one."""
    filled = []
    for index, (value, ref) in enumerate(zip(grads, refs)):
        if value is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(index))
            value = zeros_like(ref)
        elif strict and create_graph and not value.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {index}. This is not allowed in strict mode when "
                               "create_graph=True.")
        filled.append(value)
    return tuple(filled)


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None,
          is_grads_batched=False):
    """``autograd.grad`` over the outputs that require grad (the others are constants: no
    gradient flows from them); unused inputs give None, and so do all of them when no
    output requires grad."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(out, g) for out, g in zip(outputs, grad_outputs)
            if out is not None and out.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return _autograd_grad(tuple(out for out, _ in kept), inputs,
                              tuple(g for _, g in kept), retain_graph=retain_graph,
                              create_graph=create_graph, allow_unused=True,
                              is_grads_batched=is_grads_batched)


# ---------------------------------------------------------------- vjp, jvp

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """The vector-Jacobian product ``v^T J`` of ``func`` at ``inputs``.

    ``v`` has the outputs' structure and sizes; it may be omitted when ``func`` returns a
    single one-element Tensor. Returns ``(func_output, vjp)``, ``vjp`` shaped like the
    inputs. ``create_graph=True`` computes both differentiably; ``strict=True`` raises
    where an input does not influence the outputs (instead of returning zeros).

    >>> import autograd_cy as ag
    >>> from autograd_cy.autograd.functional import vjp
    >>> def adder(x, y):
    ...     return 2 * x + 3 * y
    >>> vjp(adder, (ag.ones(2), ag.ones(2)), ag.ones(2))[1]
    (tensor([2., 2.]), tensor([3., 3.]))
    """
    with _GradMode(True):
        inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _graph_roots(inputs, create_graph, need_graph=True)
        outputs_were_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            v = _graph_roots(_as_tuple(v, "v", "vjp")[1], create_graph, need_graph=False)
            _check_v(v, outputs, outputs_were_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
    with _GradMode(create_graph or is_grad_enabled()):
        products = _zeros_where_unused(_grad(outputs, inputs, v, create_graph=create_graph),
                                       inputs, strict, create_graph, "back")
    return (_as_given(_detached_unless(outputs, create_graph), outputs_were_tuple),
            _as_given(_detached_unless(products, create_graph), inputs_were_tuple))


# NOTE [The double-backward trick]
# A backward pass computes u -> u^T J, which is linear in u. Run it with create_graph on a
# placeholder u that requires grad (zeros: its value does not matter, only the graph):
# g(u) = u^T J. Differentiating g once more, with respect to u and in the direction v, gives
# (d g / d u)^T v = J v: a forward-mode product from two reverse passes. jvp uses it on
# func's Jacobian, hvp on the Jacobian of the gradient (the Hessian). It costs a second
# backward but needs no forward-mode formulas, which is why torch's functional API uses it.

def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Jacobian-vector product ``J v`` of ``func`` at ``inputs``.

    ``v`` has the inputs' structure and sizes; it may be omitted when the input is a
    single one-element Tensor. Returns ``(func_output, jvp)``, ``jvp`` shaped like the
    outputs. Computed, as torch does, by the double-backward trick (two reverse passes;
    NOTE [The double-backward trick]); ``autograd.forward_ad`` is the direct way.

    >>> import autograd_cy as ag
    >>> from autograd_cy.autograd.functional import jvp
    >>> def adder(x, y):
    ...     return 2 * x + 3 * y
    >>> jvp(adder, (ag.ones(2), ag.ones(2)), (ag.ones(2), ag.ones(2)))[1]
    tensor([5., 5.])
    """
    with _GradMode(True):
        inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _graph_roots(inputs, create_graph, need_graph=True)
        if v is not None:
            v = _graph_roots(_as_tuple(v, "v", "jvp")[1], create_graph, need_graph=False)
            _check_v(v, inputs, inputs_were_tuple)
        else:
            _check_single_element_input(inputs)
        outputs_were_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        placeholders = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, placeholders, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with _GradMode(create_graph or is_grad_enabled()):
        products = _zeros_where_unused(
            _grad(grad_inputs, placeholders, v, create_graph=create_graph),
            outputs, strict, create_graph, "back_trick")
    return (_as_given(_detached_unless(outputs, create_graph), outputs_were_tuple),
            _as_given(_detached_unless(products, create_graph), outputs_were_tuple))


# ---------------------------------------------------------------- jacobian

def _standard_basis(tensors, numels):
    """One ``(sum(numels), numel_i)`` block per tensor (its dtype and device) of the identity
    matrix: row ``r`` holds, across the blocks, the unit vector of flat element ``r`` of the
    concatenated tensors. Rows are the batch of ``is_grads_batched`` (or of tangents)."""
    if len(tensors) == 1 and not tensors[0].is_cuda:
        # the identity itself: one NumPy call (on a GPU, filling it there beats an upload)
        return (eye(numels[0], dtype=tensors[0].dtype, device=tensors[0].device),)
    total = sum(numels)
    blocks, start = [], 0
    for tensor, numel in zip(tensors, numels):
        block = tensor.new_zeros(total, numel)
        block.diagonal(-start).fill_(1)
        blocks.append(block)
        start += numel
    return tuple(blocks)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``.

    For one input and one output a Tensor of shape ``output.shape + input.shape``; a tuple
    over the inputs (or over the outputs) when that argument was a tuple; ``J[i][j]`` for
    output ``i`` and input ``j`` when both were. Each block has the input's dtype (the
    output's with ``strategy="forward-mode"``).

    * ``strategy="reverse-mode"`` without ``vectorize``: one ``autograd.grad`` per output
      element (a row of the Jacobian).
    * ``vectorize=True``: one ``autograd.grad(..., is_grads_batched=True)`` call whose
      batch is the identity matrix (every row at once); not with ``strict=True``.
    * ``strategy="forward-mode"`` (needs ``vectorize=True``, not with ``create_graph`` or
      ``strict``): forward-mode AD, one column per input element. autograd_cy has no
      vmap: the tangents are pushed one input element at a time, one forward run of
      ``func`` per input element.

    >>> import autograd_cy as ag
    >>> from autograd_cy.autograd.functional import jacobian
    >>> def exp_adder(x, y):
    ...     return 2 * x.exp() + 3 * y
    >>> jacobian(exp_adder, (ag.zeros(2), ag.zeros(2)))
    (tensor([[2., 0.],
            [0., 2.]]), tensor([[3., 0.],
            [0., 3.]]))
    """
    if strategy not in _STRATEGIES:
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `create_graph=False` or `strategy="reverse-mode"`.')
        return _jacobian_forward_mode(func, inputs, strict, vectorize)

    with _GradMode(True):
        inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _graph_roots(inputs, create_graph, need_graph=True)
        outputs_were_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize:
            if strict:
                raise RuntimeError(
                    "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` "
                    "are not supported together. Please either set `strict=False` or "
                    "`vectorize=False`.")
            blocks = _jacobian_batched(outputs, inputs, create_graph)
        else:
            blocks = tuple(_jacobian_rows(i, out, inputs, create_graph, strict)
                           for i, out in enumerate(outputs))
    return _as_given_nested(_detached_unless(blocks, create_graph), outputs_were_tuple,
                            inputs_were_tuple)


def _jacobian_rows(index, output, inputs, create_graph, strict):
    """The blocks ``J[index][j]`` of one output, a backward pass per output element."""
    rows = tuple([] for _ in inputs)
    numel = output.nelement()
    # One backward per element: (root, seed) pairs. _grad's filter is hoisted out of the loop:
    # every element of ``output`` requires grad, or none does (then no gradient flows).
    if not output.requires_grad:
        backwards = [None] * numel
    elif output.is_complex():
        # torch's backward from each element, with the gradient created implicitly
        raise RuntimeError("grad can be implicitly created only for real scalar outputs but "
                           f"got {output.dtype}")
    elif create_graph:      # the graph torch records: a backward from each element
        flat = output.reshape(-1)
        backwards = [((flat[element],), None) for element in range(numel)]
    else:                   # the same gradients, from the output seeded with one-hot rows
        rows_of_identity = _standard_basis((output,), (numel,))[0].view(
            (numel,) + output.shape).unbind(0)
        backwards = [((output,), (row,)) for row in rows_of_identity]
    unused = (None,) * len(inputs)
    for backward in backwards:
        grads = unused if backward is None else _autograd_grad(
            backward[0], inputs, backward[1], retain_graph=True, create_graph=create_graph,
            allow_unused=True)
        for j, (value, input) in enumerate(zip(grads, inputs)):
            if value is None:
                if strict:
                    raise RuntimeError(
                        f"Output {index} of the user-provided function is independent of "
                        f"input {j}. This is not allowed in strict mode.")
                value = zeros_like(input)
            elif strict and create_graph and not value.requires_grad:
                raise RuntimeError(
                    "The jacobian of the user-provided function is independent of input "
                    f"{index}. This is not allowed in strict mode when create_graph=True.")
            rows[j].append(value)
    return tuple(stack(column, dim=0).view(output.size() + input.size())
                 for column, input in zip(rows, inputs))


def _jacobian_batched(outputs, inputs, create_graph):
    """All blocks from one batched backward: the identity matrix as the batch of
    grad_outputs for the flattened outputs; the result for input ``j`` stacks the rows of
    every output, split back per output.

    Without ``create_graph`` the graph is not returned, so the basis is shaped like each
    output instead of each output being flattened (no reshape recorded and backpropagated),
    and one output needs no split."""
    numels = tuple(out.numel() for out in outputs)
    total = sum(numels)
    basis = _standard_basis(outputs, numels)
    if create_graph:
        roots = tuple(out.reshape(-1) for out in outputs)
    else:
        roots = outputs
        basis = tuple(block if block.shape == (total,) + out.shape
                      else block.view((total,) + out.shape)
                      for block, out in zip(basis, outputs))
    grads = _grad(roots, inputs, basis, create_graph=create_graph, is_grads_batched=True)
    by_input = []
    for value, input in zip(grads, inputs):
        if value is None:
            value = zeros_like(input).expand((total,) + input.shape)
        if len(outputs) == 1 and not create_graph:
            shape = outputs[0].shape + input.shape
            by_input.append((value if value.shape == shape else value.view(shape),))
        else:
            by_input.append(tuple(part.view(out.shape + input.shape)
                                  for part, out in zip(value.split(numels, dim=0), outputs)))
    return tuple(zip(*by_input))


def _jacobian_forward_mode(func, inputs, strict, vectorize):
    """``jacobian(strategy="forward-mode")``: one forward-AD run of ``func`` whose tangents
    are a batch, every row of the standard basis (a unit vector per input element): the
    output tangents are the columns of the Jacobian."""
    if strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and "
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`strict=False` or `strategy="reverse-mode"`.')
    inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
            "only implemented for `vectorize=True`.")
    numels = tuple(input.numel() for input in inputs)
    total = sum(numels)
    basis = [block.reshape((total,) + tuple(input.shape))
             for input, block in zip(inputs, _standard_basis(inputs, numels))]
    found = {}

    def outputs_of(*duals):
        found["tuple"], dual_outputs = _as_tuple(func(*duals), "outputs", None)
        return dual_outputs
    # every input element's unit tangent at once: one forward pass with batched tangents
    outputs, tangents = forward_ad._jvp_of_tangent_batch(outputs_of, inputs, basis)
    outputs_were_tuple = found["tuple"]
    # Lists, not tuples, where torch's forward-mode jacobian returns lists (J[i] for a tuple
    # of inputs; the outer level when outputs and inputs were both tuples).
    blocks = []
    for i, output in enumerate(outputs):
        # tangents[i][r]: d output_i / d (flat input element r); split r per input
        stacked = tangents[i]
        blocks.append([
            part.permute(*range(1, part.ndim), 0).reshape(output.shape + input.shape)
            for part, input in zip(stacked.split(numels, dim=0), inputs)])
    return _as_given_nested(blocks, outputs_were_tuple, inputs_were_tuple)


# ---------------------------------------------------------------- hessian, vhp, hvp

def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of the scalar function ``func`` at ``inputs``: the Jacobian of its
    gradient.

    For one input a Tensor of shape ``input.shape + input.shape``; for a tuple of inputs
    a tuple of tuples ``H[i][j]`` of shape ``input_i.shape + input_j.shape``. The inner
    Jacobian (the gradient) is reverse mode; ``outer_jacobian_strategy`` and ``vectorize``
    choose how the outer one is computed (see :func:`jacobian`).

    >>> import autograd_cy as ag
    >>> from autograd_cy.autograd.functional import hessian
    >>> def pow_adder_reducer(x, y):
    ...     return (2 * x.pow(2) + 3 * y.pow(2)).sum()
    >>> hessian(pow_adder_reducer, (ag.ones(2), ag.ones(2)))[1][1]
    tensor([[6., 0.],
            [0., 6.]])
    """
    inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or '
                             '"reverse-mode".')

    def scalar_func(*args):
        out = func(*args)
        out_was_tuple, outs = _as_tuple(out, "outputs of the user-provided function",
                                        "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if out_was_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def gradient(*args):
        if outer_jacobian_strategy == "forward-mode":
            _refuse_inside_transform()
            args = tuple(arg.requires_grad_(True) for arg in args)
        if create_graph or outer_jacobian_strategy == "forward-mode":
            gradients = jacobian(scalar_func, args, create_graph=True)
        else:       # the Hessian's graph is not returned: the short way
            gradients = _gradient_of_scalar(scalar_func, args)
        _check_requires_grad(gradients, "jacobian", strict)
        return gradients

    blocks = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                      vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _as_given_nested(blocks, inputs_were_tuple, inputs_were_tuple)


def _gradient_of_scalar(func, inputs):
    """``jacobian(func, inputs, create_graph=True)`` for a ``func`` that returns one
    element: the same values and differentiability, from one ``autograd.grad`` of the
    output, without the per-element indexing and stacking of the general Jacobian (whose
    graph only matters where it is returned: ``hessian(create_graph=True)``)."""
    with _GradMode(True):
        roots = _graph_roots(inputs, True, need_graph=True)
        output = func(*roots)
        gradients = _grad((output,), roots, create_graph=True)
    return tuple(zeros_like(root) if value is None else value
                 for value, root in zip(gradients, roots))


def _scalar_function_gradient(func, inputs, v, create_graph, strict, function):
    """The first half of ``vhp``/``hvp``: run ``func`` on fresh roots and take its gradient
    with a graph (to be differentiated again). Returns ``(inputs_were_tuple, inputs, v,
    outputs, gradient)``."""
    inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", function)
    inputs = _graph_roots(inputs, create_graph, need_graph=True)
    if v is not None:
        v = _graph_roots(_as_tuple(v, "v", function)[1], create_graph, need_graph=False)
        _check_v(v, inputs, inputs_were_tuple)
    else:
        _check_single_element_input(inputs)
    outputs_were_tuple, outputs = _as_tuple(
        func(*inputs), "outputs of the user-provided function", function)
    _check_requires_grad(outputs, "outputs", strict)
    _check_scalar_function(outputs, outputs_were_tuple, function)
    gradient = _grad(outputs, inputs, create_graph=True)
    _check_requires_grad(gradient, "jacobian", strict)
    return inputs_were_tuple, inputs, v, outputs, gradient


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """The vector-Hessian product ``v^T H`` of the scalar function ``func`` at ``inputs``:
    a backward pass of its gradient, in the direction ``v``.

    ``v`` has the inputs' structure and sizes (optional for a single one-element input).
    Returns ``(func_output, vhp)``, ``vhp`` shaped like the inputs.

    >>> import autograd_cy as ag
    >>> from autograd_cy.autograd.functional import vhp
    >>> def pow_adder_reducer(x, y):
    ...     return (2 * x.pow(2) + 3 * y.pow(2)).sum()
    >>> vhp(pow_adder_reducer, (ag.ones(2), ag.ones(2)), (ag.zeros(2), ag.ones(2)))[1]
    (tensor([0., 0.]), tensor([6., 6.]))
    """
    return _backward_of_gradient(func, inputs, v, create_graph, strict, "vhp")


def _backward_of_gradient(func, inputs, v, create_graph, strict, function):
    """``vhp``: ``v^T H`` as the backward of the gradient in the direction ``v``; also
    ``hvp``'s fast way (NOTE [hvp as the backward of the gradient]). ``function`` names the
    caller in the errors."""
    with _GradMode(True):
        inputs_were_tuple, inputs, v, outputs, gradient = _scalar_function_gradient(
            func, inputs, v, create_graph, strict, function)
    with _GradMode(create_graph or is_grad_enabled()):
        products = _zeros_where_unused(_grad(gradient, inputs, v, create_graph=create_graph),
                                       inputs, strict, create_graph, "double_back")
    return (_detached_unless(outputs, create_graph)[0],
            _as_given(_detached_unless(products, create_graph), inputs_were_tuple))


# NOTE [hvp as the backward of the gradient]
# torch's hvp computes H v by the double-backward trick on the gradient (NOTE [The
# double-backward trick]): three reverse passes, the second one recording a graph. H is the
# Hessian of a scalar function, symmetric wherever func is twice continuously
# differentiable, and then H v = (v^T H)^T: vhp's single backward of the gradient gives the
# same product for one pass less (about half the time). hvp takes that way whenever nothing
# else can be observed: without create_graph (with it, the result's graph is the trick's,
# node for node as torch records it) and without strict (whose errors are worded after the
# trick's stages). The values agree with the trick's up to rounding; only at points where
# func is not twice differentiable (where the Hessian is not defined and autograd returns
# one convention or another) could the two conventions differ.
#
# Forward-over-reverse (the gradient computed on dual inputs with tangent v: its tangent is
# H v) would be the direct way; it is not used yet. Backward formulas propagate tangents
# only when the backward records a graph (create_graph=True), and tangent formulas record
# graph nodes of their own, so it currently costs about as much as the trick.

def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Hessian-vector product ``H v`` of the scalar function ``func`` at ``inputs``.

    With ``create_graph`` or ``strict``, as torch, by the double-backward trick on its
    gradient (NOTE [The double-backward trick]); otherwise, as ``H`` is symmetric, by
    ``vhp``'s single backward of the gradient (NOTE [hvp as the backward of the gradient]).

    >>> import autograd_cy as ag
    >>> from autograd_cy.autograd.functional import hvp
    >>> def pow_adder_reducer(x, y):
    ...     return (2 * x.pow(2) + 3 * y.pow(2)).sum()
    >>> hvp(pow_adder_reducer, (ag.ones(2), ag.ones(2)), (ag.zeros(2), ag.ones(2)))[1]
    (tensor([0., 0.]), tensor([6., 6.]))
    """
    if not create_graph and not strict:
        return _backward_of_gradient(func, inputs, v, create_graph, strict, "hvp")
    with _GradMode(True):
        inputs_were_tuple, inputs, v, outputs, gradient = _scalar_function_gradient(
            func, inputs, v, create_graph, strict, "hvp")
        placeholders = tuple(zeros_like(input, requires_grad=True) for input in inputs)
        double_back = _grad(gradient, inputs, placeholders, create_graph=True)
        _check_requires_grad(gradient, "hessian", strict)
    with _GradMode(create_graph or is_grad_enabled()):
        products = _zeros_where_unused(
            _grad(double_back, placeholders, v, create_graph=create_graph),
            inputs, strict, create_graph, "double_back_trick")
    return (_detached_unless(outputs, create_graph)[0],
            _as_given(_detached_unless(products, create_graph), inputs_were_tuple))
