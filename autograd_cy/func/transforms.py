"""The function transforms of ``torch.func``: grad, grad_and_value, vjp, jvp, jacrev, jacfwd,
hessian, linearize, built on the engine, forward AD and vmap.

NOTE [Transforms without levels]
torch.func gives each transform a level, and a tensor carries one wrapper per level, so
``grad(grad(f))`` keeps the two differentiations apart. Here a transform differentiates with
respect to a fresh tensor of its own: ``grad`` and ``vjp`` make each input a new node (a view
of it, or a new leaf when nothing outside differentiates it), so ``autograd.grad`` counts
only the paths through that node, and record their backward (``create_graph``) whenever
something outside may differentiate the result (another transform is running, an input
requires grad, or a forward-AD level is open). Inside vmap the new node is batched over
every active level (NOTE [autograd.grad inside vmap] in batched_autograd.py), so each
example gets its own gradient. Forward AD has one level at a time (forward_ad.py), so
``jvp`` does not nest in ``jvp``; ``hessian`` is ``jacfwd(jacrev(f))``, which needs only one,
and a ``jacfwd`` inside an open level (``jacfwd(jacfwd(f))``) gives the same Jacobian by
reverse mode.
"""
import functools

import autograd_cy
from autograd_cy._C.backward import grad as _engine_grad
from autograd_cy._C.tensor import Tensor
from autograd_cy.autograd import forward_ad
from autograd_cy.autograd.graph import disable_saved_tensors_hooks
from autograd_cy.func.batched_tensor import (
    batched, is_batched, levels_of, physical_of, materialized, union_levels, active_levels,
)
from autograd_cy.func import autograd_function
from autograd_cy.func.batched_autograd import batched_grad
from autograd_cy.func.pytree import tree_flatten, tree_unflatten
from autograd_cy.func.vmap import vmap
from autograd_cy.grad_mode import (
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
)

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
           "linearize"]

# NOTE [Grad mode around a transform]
# As torch.func: grad mode off around a transform (``with no_grad(): grad(f)(x)``) stops only
# the outer differentiation, for the transform differentiates at a level of its own. So the
# transform's nodes are made and ``f`` runs with grad mode on, and whether the result records
# a graph for the outside (``create_graph``) is decided by grad mode where the transform, or
# ``vjp_fn``, is called: a ``vjp`` made under no_grad returns an output that does not require
# grad, yet its ``vjp_fn`` called later with grad mode on gives gradients that do.

_depth = 0       # transforms running now: their results may be differentiated again


class _Running:
    """A transform runs: results may be differentiated again, and custom Functions take
    their transform form (autograd_function.py)."""
    def __enter__(self):
        global _depth
        _depth += 1
        autograd_function.enter_transform()

    def __exit__(self, *exc):
        global _depth
        _depth -= 1
        autograd_function.exit_transform()


def _no_saved_tensor_hooks(function):
    """``function`` refusing saved_tensors_hooks around it and inside it, as torch.func's
    grad, vjp, jacrev and hessian do."""
    @functools.wraps(function)
    def refusing(*args, **kwargs):
        with disable_saved_tensors_hooks(
                "torch.func.{grad, vjp, jacrev, hessian} don't yet support saved tensor hooks. "
                "Please open an issue with your use case."):
            return function(*args, **kwargs)
    return refusing


def _outside_inference_mode(function):
    """``function`` run with inference mode off and grad mode off for the outside, as torch's
    transforms under ``inference_mode()``: they still differentiate (inference mode would
    record no graph to differentiate), and give results that record nothing."""
    @functools.wraps(function)
    def run(*args, **kwargs):
        if not is_inference_mode_enabled():
            return function(*args, **kwargs)
        with inference_mode(False), no_grad():
            return function(*args, **kwargs)
    return run


def _records_graph(inputs):
    """Must the transform's backward be recorded (NOTE [Transforms without levels])?"""
    return (_depth > 0 or forward_ad._current_level >= 0
            or any(isinstance(t, Tensor) and t.requires_grad for t in inputs))


def _differentiable(value, levels):
    """A new node for ``value`` that a transform differentiates with respect to, batched
    over ``levels`` (made with grad mode on: the transform records even under an outer
    no_grad, NOTE [Grad mode around a transform])."""
    if not isinstance(value, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(value)}")
    physical = materialized(value, levels) if levels else physical_of(value)
    with enable_grad():
        if physical.requires_grad:
            physical = physical.view_as(physical)   # a forward-AD tangent carries through
        else:
            tangent = forward_ad.unpack_dual(physical).tangent
            physical = physical.detach().requires_grad_()
            if tangent is not None:                 # jvp of a grad: keep the tangent
                physical = forward_ad.make_dual(physical, tangent)
    return batched(physical, levels)


def _detached(tree):
    """``tree`` with its tensors detached: what a transform returns when nothing outside it
    differentiates (torch's results of a finished transform do not require grad)."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([t.detach() if isinstance(t, Tensor) else t for t in leaves], spec)


def _op_of_vmap(func):
    """``func`` as the transforms swap it: ``grad(MyFunction.apply)`` and ``vmap(grad(ag.sin))``
    name what was looked up before the swap (a Function's plain apply, NOTE [How vmap reaches
    the ops])."""
    owner = getattr(func, "__self__", None)
    if isinstance(owner, type) and getattr(func, "__func__", None) is _PLAIN_APPLY:
        return functools.partial(autograd_function.transformed_apply, owner)
    if not active_levels():
        return func
    from autograd_cy.func import dispatch
    return dispatch.dispatching_version(func)


_PLAIN_APPLY = autograd_function._ORIGINAL.__func__


def _grad(outputs, inputs, cotangents, create_graph, retain_graph=True):
    """Gradients of ``outputs`` with respect to ``inputs``, zeros where unused (an output
    that does not depend on any input, as torch.func: its gradient is zero, not an error)."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if physical_of(o).requires_grad]
    if not pairs:
        return tuple(autograd_cy.zeros_like(t) for t in inputs)
    outputs, cotangents = [o for o, _ in pairs], [c for _, c in pairs]
    if any(is_batched(t) for t in list(outputs) + list(inputs) + list(cotangents)):
        grads = batched_grad(_engine_grad, outputs, inputs, cotangents,
                             retain_graph=retain_graph, create_graph=create_graph,
                             allow_unused=True,
                             materialize_grads=False)
    else:
        grads = _engine_grad(
            outputs, inputs, cotangents, retain_graph=retain_graph, create_graph=create_graph,
            allow_unused=True)
    return tuple(autograd_cy.zeros_like(t) if g is None else g for t, g in zip(inputs, grads))


def _output_and_aux(output, has_aux, call):
    """``(output, aux)`` of a function's result: with ``has_aux`` it must be that pair."""
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{call}: output of function f should be a tuple: (output, aux) "
                           "if has_aux is True")
    for value in tree_flatten(output[1])[0]:
        if not isinstance(value, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(value)}")
    return output


def _tensor_outputs(output, call):
    """The flattened outputs of ``f``, which must be a non-empty pytree of tensors."""
    flat, spec = tree_flatten(output)
    if not flat or flat == [None]:
        raise RuntimeError(f"{call}: Expected f to be a function that has non-empty output "
                           f"(got output = {flat})")
    for value in flat:
        if not isinstance(value, Tensor):
            raise RuntimeError(f"{call}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(value)}")
    return flat, spec


def _check_real(name, flat, what):
    """jacrev and jacfwd refuse complex inputs and outputs, as torch.func's."""
    for index, value in enumerate(flat):
        if isinstance(value, Tensor) and value.is_complex():
            raise RuntimeError(f"{name}: Expected all {what} to be real but received complex "
                               f"tensor at flattened input idx: {index}")


def _spec_str(spec):
    """A pytree structure written as torch's ``treespec_pprint``: ``((*, (*, *)),)``."""
    if spec.is_leaf():
        return "*"
    inner = [_spec_str(child) for child in spec.children_specs]
    if spec.type is tuple:
        return "(" + ", ".join(inner) + (",)" if len(inner) == 1 else ")")
    if spec.type is list:
        return "[" + ", ".join(inner) + "]"
    if spec.type is dict:
        return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(spec.context, inner)) + "}"
    return f"{spec.type.__name__}(" + ", ".join(inner) + ")"


def _argnums_inputs(name, args, argnums):
    """The positions ``argnums`` selects, checked as torch.func checks them."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    numbers = (argnums,) if isinstance(argnums, int) else argnums
    wrapped = []
    for number in numbers:
        if not isinstance(number, int):
            raise RuntimeError(f"argnum must be int, got: {type(number)}")
        if not -len(args) <= number < len(args):
            raise RuntimeError(f"Got argnum={number}, but only {len(args)} positional "
                               "inputs")
        wrapped.append(number % len(args))
    if isinstance(argnums, tuple):
        if not wrapped:
            raise RuntimeError("argnums must be non-empty")
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"argnums elements must be unique, got {tuple(wrapped)}")
    return wrapped


def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient, value)`` of a function that returns a scalar tensor, as
    ``torch.func.grad_and_value``: the gradient with respect to the ``argnums`` inputs."""
    @functools.wraps(func)
    @_outside_inference_mode
    @_no_saved_tensor_hooks
    def wrapper(*args, **kwargs):
        numbers = _argnums_inputs("grad_and_value(f)(*args)", args, argnums)
        levels = tuple(level.number for level in active_levels())
        outer = is_grad_enabled()
        call = _op_of_vmap(func)
        args = list(args)
        leaves, specs, originals = [], [], []
        for number in numbers:
            flat, spec = tree_flatten(args[number])
            originals.extend(flat)
            flat = [_differentiable(t, levels) for t in flat]
            leaves.append(flat)
            specs.append(spec)
            args[number] = tree_unflatten(flat, spec)
        create_graph = outer and _records_graph(originals)
        with enable_grad(), _Running():
            output = call(*args, **kwargs)
        output, aux = _output_and_aux(output, has_aux, "grad_and_value(f)(*args)")
        if not isinstance(output, Tensor):
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                               f"Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {output.dim()} dims. Maybe you wanted "
                               "to use the vjp or jacrev APIs instead?")
        flat_inputs = [t for flat in leaves for t in flat]
        grads = iter(_grad((output,), flat_inputs, (None,), create_graph))
        results = [tree_unflatten([next(grads) for _ in flat], spec)
                   for flat, spec in zip(leaves, specs)]
        gradient = results[0] if isinstance(argnums, int) else tuple(results)
        if not create_graph:
            output, aux = output.detach(), _detached(aux)
        return (gradient, (output, aux)) if has_aux else (gradient, output)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a function that returns a scalar tensor, as ``torch.func.grad``.

    >>> x = ag.tensor([1.0, 2.0])
    >>> ag.func.grad(lambda t: (t ** 3).sum())(x)
    tensor([ 3., 12.])
    """
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        gradient, value = inner(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient
    return wrapper


@_outside_inference_mode
@_no_saved_tensor_hooks
def vjp(func, *primals, has_aux=False):
    """``(output, vjp_fn)``: ``vjp_fn(cotangents)`` is the vector-Jacobian product of
    ``func`` at ``primals``, as ``torch.func.vjp`` (a tuple, one entry per primal)."""
    levels = tuple(level.number for level in active_levels())
    outer = is_grad_enabled()
    flat, spec = tree_flatten(list(primals))
    originals = list(flat)
    flat = [_differentiable(t, levels) for t in flat]
    with enable_grad(), _Running():
        output = _op_of_vmap(func)(*tree_unflatten(flat, spec))
    output, aux = _output_and_aux(output, has_aux, "vjp(f, *primals)")
    flat_out, out_spec = _tensor_outputs(output, "vjp(f, *primals)")

    @_outside_inference_mode
    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function. cotangents: "
                               f"{_spec_str(cot_spec)}, primal output: {_spec_str(out_spec)}")
        for value, cot in zip(flat_out, flat_cot):
            if tuple(value.shape) != tuple(cot.shape):
                raise RuntimeError(
                    "Mismatch in shape: grad_output[0] has a shape of "
                    f"{tuple(cot.shape)} and output[0] has a shape of {tuple(value.shape)}.")
        if create_graph is None:
            create_graph = is_grad_enabled() and _records_graph(originals + flat_cot)
        grads = _grad(flat_out, flat, flat_cot, create_graph, retain_graph)
        return tuple(tree_unflatten(list(grads), spec))

    def batch_of_cotangents(flat_batches):
        """What ``vmap(vjp_fn)`` gives for cotangents with a leading batch dim, in one
        batched backward without vmap's swap (jacrev of outputs vmap does not batch)."""
        pairs = [(o, c) for o, c in zip(flat_out, flat_batches) if o.requires_grad]
        grads = _engine_grad([o for o, _ in pairs], flat, [c for _, c in pairs],
                             retain_graph=True, allow_unused=True, is_grads_batched=True,
                             create_graph=is_grad_enabled() and _records_graph(originals)
                             ) if pairs else [None] * len(flat)
        batch = (flat_batches[0].shape[0],)
        return tuple(tree_unflatten(
            [autograd_cy.zeros(batch + tuple(t.shape), dtype=t.dtype, device=t.device)
             if g is None else g for t, g in zip(flat, grads)], spec))
    vjp_fn.batch_of_cotangents = batch_of_cotangents

    if not (outer and _records_graph(originals)):
        output, aux = _detached(output), _detached(aux)
    return (output, vjp_fn, aux) if has_aux else (output, vjp_fn)


@_outside_inference_mode
def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(output, jvp_out)``: the Jacobian-vector product of ``func`` at ``primals``, by
    forward AD, as ``torch.func.jvp``."""
    call = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{call}: Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    flat_p, spec = tree_flatten(primals)
    flat_t, tspec = tree_flatten(tangents)
    if spec != tspec:
        raise RuntimeError(f"{call}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, "
                           "tangents also must be. Got primals with structure "
                           f"{spec} and tangents with structure {tspec}")
    for what, flat in (("primals", flat_p), ("tangents", flat_t)):
        if not flat:
            raise RuntimeError(f"{call}: Expected {what} to contain at least one Tensor.")
        for value in flat:
            if not isinstance(value, Tensor):
                raise RuntimeError(f"{call}: Expected {what} to only contain Tensors, got "
                                   f"{type(value)}")
    for p, t in zip(flat_p, flat_t):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                "original Tensor, this is not supported. Tensor is of size "
                f"{list(p.shape)} while the given forward gradient is of size "
                f"{list(t.shape)}.")
    create_graph = _records_graph(flat_p + flat_t)
    with forward_ad.dual_level(), _Running():
        duals = [_make_dual(p, t) for p, t in zip(flat_p, flat_t)]
        output = _op_of_vmap(func)(*tree_unflatten(duals, spec))
        output, aux = _output_and_aux(output, has_aux, call)
        flat_out, out_spec = _tensor_outputs(output, call)
        if strict and any(forward_ad.unpack_dual(physical_of(value)).tangent is None
                          for value in flat_out):
            raise RuntimeError(f"{call[:-1]}, strict=True): The output of f is independent "
                               "of the inputs. This is not allowed with strict=True.")
        pairs = [_unpack_dual(value) for value in flat_out]
    if not create_graph:
        pairs = [(p.detach(), t.detach()) for p, t in pairs]
        aux = _detached(aux)
    primal_out = tree_unflatten([p for p, _ in pairs], out_spec)
    tangent_out = tree_unflatten([t for _, t in pairs], out_spec)
    return (primal_out, tangent_out, aux) if has_aux else (primal_out, tangent_out)


def _make_dual(primal, tangent):
    levels = union_levels((primal, tangent))
    if not levels:
        return forward_ad.make_dual(primal, tangent)
    # a primal the batch does not vary over is expanded: contiguous, for forward AD lays a
    # tangent out like its primal, and an expanded layout would hold one row of tangents
    expanded = levels_of(primal) != levels
    primal = materialized(primal, levels)
    if expanded:
        primal = primal.contiguous()
    dual = forward_ad.make_dual(primal, materialized(tangent, levels).contiguous())
    return batched(dual, levels)


def _unpack_dual(value):
    levels = levels_of(value)
    primal, tangent = forward_ad.unpack_dual(physical_of(value))
    if tangent is None:
        tangent = autograd_cy.zeros_like(primal)
    return batched(primal, levels), batched(tangent, levels)


def _basis(flat, dtype_of):
    """Rows of the identity, split by the tensors of ``flat``: one batch of basis vectors
    per tensor, shaped like it (``(N, *shape)``, N the total number of elements)."""
    sizes = [t.numel() for t in flat]
    total = sum(sizes)
    eye = autograd_cy.eye(total, dtype=dtype_of.dtype, device=dtype_of.device)
    pieces, start = [], 0
    for t, size in zip(flat, sizes):
        pieces.append(eye[:, start:start + size].reshape((total,) + tuple(t.shape)))
        start += size
    return pieces, sizes


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` by reverse mode: one vjp per output element, batched with
    vmap, as ``torch.func.jacrev``. Outputs that vmap does not batch take the basis as one
    batched backward directly (what vmap of the vjp would run, without its fixed cost).
    ``_preallocate_and_copy`` (how torch lays out the chunks of ``chunk_size``) gives the same
    values, so it is accepted and changes nothing here."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    @functools.wraps(func)
    @_outside_inference_mode
    def wrapper(*args):
        numbers = _argnums_inputs("jacrev", args, argnums)

        def selected(*chosen):
            full = list(args)
            for n, value in zip(numbers, chosen):
                full[n] = value
            return _op_of_vmap(func)(*full)
        _check_real("jacrev", tree_flatten([args[n] for n in numbers])[0], "inputs")
        result = vjp(selected, *[args[n] for n in numbers], has_aux=has_aux)
        output, vjp_fn = result[0], result[1]
        flat_out, out_spec = tree_flatten(output)
        _check_real("jacrev", flat_out, "outputs")
        basis, sizes = _basis(flat_out, flat_out[0])
        if chunk_size is None and not any(is_batched(t) for t in flat_out):
            rows = vjp_fn.batch_of_cotangents(basis)
        else:
            rows = vmap(vjp_fn, chunk_size=chunk_size)(tree_unflatten(basis, out_spec))
        jacobians = []
        for i, out in enumerate(flat_out):
            start = sum(sizes[:i])
            per_input = []
            for n, rows_n in zip(numbers, rows):
                flat_rows, in_spec = tree_flatten(rows_n)
                per_input.append(tree_unflatten(
                    [r[start:start + sizes[i]].reshape(tuple(out.shape) + tuple(r.shape)[1:])
                     for r in flat_rows], in_spec))
            jacobians.append(per_input[0] if isinstance(argnums, int) else tuple(per_input))
        jacobian = tree_unflatten(jacobians, out_spec)
        return (jacobian, result[2]) if has_aux else jacobian
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` by forward mode: one jvp per input element, batched with
    vmap, as ``torch.func.jacfwd``."""
    @functools.wraps(func)
    @_outside_inference_mode
    def wrapper(*args):
        if forward_ad._current_level >= 0:
            # forward AD has one level here (NOTE [Transforms without levels]): inside a jvp
            # or jacfwd (jacfwd(jacfwd(f))) the same Jacobian comes by reverse mode, which the
            # open level differentiates as it does hessian's jacfwd(jacrev(f))
            return jacrev(func, argnums, has_aux=has_aux)(*args)
        numbers = _argnums_inputs("jacfwd", args, argnums)
        primals = [args[n] for n in numbers]
        flat_p, p_spec = tree_flatten(primals)
        _check_real("jacfwd", flat_p, "inputs")
        basis, sizes = _basis(flat_p, flat_p[0])

        def selected(*chosen):
            full = list(args)
            for n, value in zip(numbers, chosen):
                full[n] = value
            return _op_of_vmap(func)(*full)

        if not any(is_batched(p) for p in flat_p):
            # the batch of basis tangents is forward AD's own (NOTE [Batched tangents] in
            # pyx/forward.pyx): the primal computed once, every tangent formula on N rows
            tangents_out, aux = jvp_of_tangent_batch(selected, flat_p, p_spec, basis, has_aux)
        else:
            def push(*tangents):
                result = jvp(selected, tuple(primals), tuple(tangents), has_aux=has_aux)
                return (result[1], result[2]) if has_aux else result[1]
            pushed = vmap(push, randomness=randomness)(*tree_unflatten(basis, p_spec))
            tangents_out, aux = pushed if has_aux else (pushed, None)
            if has_aux:
                aux = tree_unflatten([a[0] for a in tree_flatten(aux)[0]],
                                     tree_flatten(aux)[1])
        flat_out, out_spec = tree_flatten(tangents_out)
        _check_real("jacfwd", flat_out, "outputs")
        jacobians = []
        for out in flat_out:
            per_input, start = [], 0
            for p, size in zip(flat_p, sizes):
                rows = out[start:start + size]
                start += size
                moved = rows.movedim(0, -1) if rows.dim() > 1 else rows
                per_input.append(moved.reshape(tuple(out.shape)[1:] + tuple(p.shape)))
            grouped = tree_unflatten(per_input, p_spec)
            jacobians.append(grouped[0] if isinstance(argnums, int) else tuple(grouped))
        jacobian = tree_unflatten(jacobians, out_spec)
        return (jacobian, aux) if has_aux else jacobian
    return wrapper


def jvp_of_tangent_batch(func, flat_primals, spec, basis, has_aux):
    """The output tangents of ``func`` (a pytree, and its aux) for a batch of input tangents
    (``basis``, each ``(N, *shape)``), in one forward-AD pass with batched tangents
    (``forward_ad._jvp_of_tangent_batch``): vmap's rule for a jvp whose tangents alone are
    batched."""
    create_graph = _records_graph(flat_primals)
    found = {}

    def flat_outputs(*duals):
        output, found["aux"] = _output_and_aux(func(*tree_unflatten(list(duals), spec)),
                                               has_aux, "jacfwd(f)(*args)")
        flat_out, found["spec"] = _tensor_outputs(output, "jvp(f, primals, tangents)")
        return flat_out
    with _Running():
        _, tangents = forward_ad._jvp_of_tangent_batch(flat_outputs, flat_primals, basis)
    if not create_graph:
        tangents = [t.detach() for t in tangents]
    aux = found["aux"]
    return tree_unflatten(list(tangents), found["spec"]), aux if create_graph else _detached(aux)


def hessian(func, argnums=0):
    """The Hessian of a scalar function, ``jacfwd(jacrev(func))``, as ``torch.func.hessian``."""
    return jacfwd(jacrev(func, argnums), argnums)


def linearize(func, *primals):
    """``(output, jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian-vector product at
    ``primals``, as ``torch.func.linearize`` (each call runs forward AD again)."""
    output = func(*primals)
    flat_p, p_spec = tree_flatten(primals)

    def jvp_fn(*tangents):
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {t_spec} to have the same argspec as "
                               f"the primals {p_spec}")
        for index, (p, t) in enumerate(zip(flat_p, flat_t)):
            for what in ("shape", "device", "dtype"):
                if getattr(t, what) != getattr(p, what):
                    raise RuntimeError(
                        f"tangent:{index} with {what} {getattr(t, what)} in flattened pytree "
                        f"doesn't match the {what} {getattr(p, what)} of the corresponding "
                        "primal.")
        return jvp(func, primals, tangents)[1]
    return output, jvp_fn
