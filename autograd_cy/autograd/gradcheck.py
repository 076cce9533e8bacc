"""``gradcheck`` / ``gradgradcheck``: autograd's Jacobians against finite differences.

For a function ``f`` and inputs ``x``, the *analytical* Jacobian comes from the
engine: one ``autograd.grad(out, inputs, e_r)`` call per output element ``r``
(``e_r`` a unit grad_output) gives row ``r``. The *numerical* Jacobian comes
from central differences: perturb one input element by ``+-eps``, rerun ``f``,
take ``(f(x + eps) - f(x - eps)) / (2 eps)`` (in float64). Both are laid out as
``J[input element, output element]`` and compared with ``allclose(analytical,
numerical, rtol, atol)``. ``fast_mode`` compares only ``v^T J u`` for random
``u``, ``v``, so it costs two engine calls and two function calls per pair.

On a CUDA tensor the perturbation is written into the tensor's device memory (the
perturbed values uploaded) and the results are compared on the host, as torch does.

``gradgradcheck`` checks the gradient *function*: it runs ``gradcheck`` on
``(x, v) -> grad(f(x), x, v, create_graph=True)``, i.e. on the graph that a
backward with ``create_graph=True`` records.
"""
import warnings

import numpy as np

from autograd_cy._C.tensor import Tensor, _array_of

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` and :func:`gradgradcheck` when a check fails."""


def _write_host_values(array, values):
    """``array[...] = values`` for NumPy ``values``, uploaded first when ``array`` is on a
    CUDA device: gradcheck perturbs inputs on their device and compares on the host, as
    torch's does."""
    if not isinstance(array, np.ndarray):
        from autograd_cy.cuda import DeviceNamespace
        values = DeviceNamespace(array.device).array(values, dtype=array.dtype)
    array[...] = values


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Check the gradients of ``func`` at ``inputs`` against finite differences.

    Every floating tensor in ``inputs`` with ``requires_grad=True`` is checked,
    against every output that requires grad. Use float64 inputs: the default
    tolerances are meant for them. Returns True, or raises GradcheckError (returns
    False with ``raise_exception=False``).

    >>> import autograd_cy as ag
    >>> x = ag.tensor([0.5, 1.5], dtype=ag.float64, requires_grad=True)
    >>> ag.autograd.gradcheck(lambda t: (t * t).exp(), (x,), check_undefined_grad=False)
    True
    """
    for name, enabled in (("check_batched_grad", check_batched_grad),
                          ("check_batched_forward_grad", check_batched_forward_grad),
                          ("check_forward_ad", check_forward_ad), ("masked", masked)):
        if enabled:
            raise NotImplementedError(f"gradcheck: {name}=True is not supported by autograd_cy")
    try:
        return _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                          check_grad_dtypes, check_backward_ad, fast_mode)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check second derivatives: gradcheck of the gradient of ``func`` (``create_graph=True``).

    ``grad_outputs`` (one per differentiable output) default to random values in
    [-1, 1) that require grad, so the check also covers the derivative with respect
    to them.

    >>> import autograd_cy as ag
    >>> x = ag.tensor([0.5, 1.5], dtype=ag.float64, requires_grad=True)
    >>> ag.autograd.gradgradcheck(lambda t: t.exp() * t, (x,), check_undefined_grad=False)
    True
    """
    from autograd_cy import rand, float64
    from autograd_cy.autograd.backward import grad as autograd_grad
    if check_fwd_over_rev:
        raise NotImplementedError("gradgradcheck: check_fwd_over_rev=True is not supported "
                                  "by autograd_cy")
    if not check_rev_over_rev:
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _differentiable_outputs(func(*inputs))
        grad_outputs = tuple(
            (rand(*out.shape, dtype=out.dtype if out.is_floating_point() else float64) * 2
             - 1).requires_grad_() for out in outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    count = len(grad_outputs)
    differentiable = [i for i, x in enumerate(inputs) if _requires_grad(x)]

    def gradient_function(*args):
        outputs = _differentiable_outputs(func(*args[:-count]))
        wrt = tuple(args[i] for i in differentiable)
        grads = autograd_grad(outputs, wrt, args[-count:], create_graph=True,
                              allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(gradient_function, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, fast_mode=fast_mode)


# ------------------------------------------------------------------ the checks

def _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
               check_grad_dtypes, check_backward_ad, fast_mode):
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    func_out = func(*inputs)
    outputs = _differentiable_outputs(func_out)
    if not check_backward_ad:
        return True
    if not outputs:
        # Nothing to differentiate: then the function must not depend on its inputs.
        for per_output in _numerical_jacobian(func, inputs, eps):
            for jacobian in per_output:
                if np.any(jacobian != 0):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    # Where the differentiable outputs sit among all tensor outputs (numerical Jacobians
    # are computed for every tensor output).
    tensor_outputs = [o for o in _as_tuple(func_out) if isinstance(o, Tensor)]
    positions = [k for k, o in enumerate(tensor_outputs) if o.requires_grad]
    if fast_mode:
        _fast_check(func, inputs, outputs, positions, eps, atol, rtol, nondet_tol,
                    check_grad_dtypes)
    else:
        _slow_check(func, inputs, outputs, positions, eps, atol, rtol, nondet_tol,
                    check_grad_dtypes)
    _check_backward_multiplies_grad_output(inputs, outputs)
    if check_undefined_grad:
        _check_undefined_grad(func, inputs)
    return True


def _slow_check(func, inputs, outputs, positions, eps, atol, rtol, nondet_tol,
                check_grad_dtypes):
    """Compare the full Jacobians, one (output, input) pair at a time."""
    numerical = _numerical_jacobian(func, inputs, eps)   # [input][tensor output]
    for i, out in enumerate(outputs):
        analytical = _analytical_jacobian(inputs, out, nondet_tol, check_grad_dtypes)
        for j, a in enumerate(analytical):
            n = numerical[j][positions[i]]
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                raise GradcheckError(_mismatch_message(a, n, i, j))


def _mismatch_message(analytical, numerical, output_index, input_index):
    from autograd_cy import tensor
    return (f"Jacobian mismatch for output {output_index:d} with respect to input "
            f"{input_index:d},\nnumerical:{tensor(numerical)!r}\n"
            f"analytical:{tensor(analytical)!r}\n")


def _numerical_jacobian(func, inputs, eps):
    """``J[j][k]``: central differences of tensor output ``k`` w.r.t. differentiable input
    ``j``, shape ``(input numel, output numel)``, float64."""
    output_sizes = [o.size for o in _evaluate(func, inputs)]
    result = []
    for inp in inputs:
        if not _requires_grad(inp):
            continue
        array = _array_of(inp)
        columns = [np.zeros((array.size, size)) for size in output_sizes]
        for index in range(array.size):
            direction = np.zeros(array.shape)
            direction.flat[index] = 1
            for k, d in enumerate(_central_difference(func, inputs, array, direction, eps)):
                columns[k][index] = d
        result.append(columns)
    return result


def _central_difference(func, inputs, array, direction, eps):
    """``(f(x + eps u) - f(x - eps u)) / (2 eps)`` per tensor output, flattened, where the
    input whose data is ``array`` moves along ``direction`` (a unit vector, or one entry)."""
    original = _host_copy(array)
    try:
        _write_host_values(array, original - eps * direction)
        before = _evaluate(func, inputs)
        _write_host_values(array, original + eps * direction)
        after = _evaluate(func, inputs)
    finally:
        _write_host_values(array, original)
    return [(b - a).reshape(-1) / (2 * eps) for a, b in zip(before, after)]


def _evaluate(func, inputs):
    # Not under no_grad: gradgradcheck's function itself differentiates.
    out = func(*inputs)
    return [_host(o).astype(np.float64) for o in _as_tuple(out) if isinstance(o, Tensor)]


def _analytical_jacobian(inputs, output, nondet_tol, check_grad_dtypes):
    """``J[j]`` of shape ``(input numel, output numel)``: one engine call per output element
    (column), computed twice to catch a backward that is not reentrant."""
    from autograd_cy import zeros_like
    differentiable = [x for x in inputs if _requires_grad(x)]
    jacobians = []
    for attempt in range(2):
        columns = [np.zeros((x.numel(), output.numel())) for x in differentiable]
        for r in range(output.numel()):
            unit = zeros_like(output)
            one_hot = np.zeros(output.numel())
            one_hot[r] = 1
            _write_host_values(_array_of(unit), one_hot.reshape(tuple(output.shape)))
            grads = _vjp(output, differentiable, unit)
            for j, (g, x) in enumerate(zip(grads, differentiable)):
                if g is None:
                    continue
                if tuple(g.shape) != tuple(x.shape):
                    raise GradcheckError("Analytical gradient has incorrect size")
                if check_grad_dtypes and g.dtype != x.dtype:
                    raise GradcheckError("Gradient has dtype mismatch")
                columns[j][:, r] = _host(g).reshape(-1)
        jacobians.append(columns)
    for first, second in zip(*jacobians):
        if first.size and np.max(np.abs(first - second)) > nondet_tol:
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and "
                "grad_output multiple times gives different values, although analytical "
                f"gradient matches numerical gradient.The tolerance for nondeterminism was "
                f"{nondet_tol}.")
    return jacobians[0]


def _vjp(output, inputs, grad_output):
    from autograd_cy.autograd.backward import grad
    return grad(output, inputs, grad_output, retain_graph=True, allow_unused=True)


def _fast_check(func, inputs, outputs, positions, eps, atol, rtol, nondet_tol,
                check_grad_dtypes):
    """Compare ``v^T J u`` for one random ``u`` per input and ``v`` per output."""
    from autograd_cy import tensor
    rng = np.random.default_rng(0)
    differentiable = [x for x in inputs if _requires_grad(x)]
    all_u = [_unit_random(rng, x.numel()) for x in differentiable]
    all_v = [_unit_random(rng, out.numel()) for out in outputs]
    for i, out in enumerate(outputs):
        v = tensor(all_v[i].reshape(tuple(out.shape)), dtype=out.dtype)
        first = _vjp(out, differentiable, v)
        second = _vjp(out, differentiable, v)
        for j, x in enumerate(differentiable):
            vj = _flat_or_zeros(first[j], x)
            if np.max(np.abs(vj - _flat_or_zeros(second[j], x)), initial=0) > nondet_tol:
                raise GradcheckError("Backward is not reentrant, i.e., running backward with "
                                     "same input and grad_output multiple times gives "
                                     "different values, although analytical gradient matches "
                                     "numerical gradient.The tolerance for nondeterminism was "
                                     f"{nondet_tol}.")
            if check_grad_dtypes and first[j] is not None and first[j].dtype != x.dtype:
                raise GradcheckError("Gradient has dtype mismatch")
            u = all_u[j].reshape(tuple(x.shape))
            analytical = float(vj @ all_u[j])
            ju = _central_difference(func, inputs, _array_of(x), u, eps)[positions[i]]
            numerical = float(ju @ all_v[i])
            # |v^T (A - N) u| may reach atol * sum(u) * sum(v) where every |A - N| <= atol.
            tolerance = atol * all_u[j].sum() * all_v[i].sum()
            if not np.isclose(analytical, numerical, rtol=rtol, atol=tolerance):
                raise GradcheckError(
                    _mismatch_message(np.array(analytical), np.array(numerical), i, j)
                    + _slow_details(func, inputs, out, positions[i], j, eps, atol, rtol))


def _slow_details(func, inputs, output, position, input_index, eps, atol, rtol):
    """The full Jacobians of the failing pair, for fast mode's error message."""
    from autograd_cy import tensor
    numerical = _numerical_jacobian(func, inputs, eps)[input_index][position]
    analytical = _analytical_jacobian(inputs, output, float("inf"), False)[input_index]
    max_difference = np.max(np.abs(numerical - analytical), initial=0)
    message = (
        "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
        "in fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
        f"Numerical:\n {tensor(numerical)!r}\nAnalytical:\n{tensor(analytical)!r}\n\n"
        f"The max per-element difference (slow mode) is: {max_difference}.\n")
    if np.allclose(analytical, numerical, rtol=rtol, atol=atol):
        message += ("\nFast gradcheck failed but element-wise differences are small. This "
                    "means that the test might've passed in slow_mode! Call gradcheck with "
                    "`fast_mode=False`.")
    return message


def _unit_random(rng, size):
    vector = rng.random(size)
    norm = np.linalg.norm(vector)
    return vector / norm if norm else vector


def _flat_or_zeros(grad, like):
    if grad is None:
        return np.zeros(like.numel())
    return _host(grad).astype(np.float64).reshape(-1)


def _check_backward_multiplies_grad_output(inputs, outputs):
    """A zero grad_output must give zero (or no) input gradients."""
    from autograd_cy import zeros_like
    from autograd_cy.autograd.backward import grad
    differentiable = [x for x in inputs if _requires_grad(x)]
    grads = grad(outputs, differentiable, [zeros_like(o) for o in outputs], allow_unused=True)
    for g, x in zip(grads, differentiable):
        if g is None:
            continue
        if np.any(_host(g) != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if g.dtype != x.dtype:
            raise GradcheckError("grad is incorrect type")
        if tuple(g.shape) != tuple(x.shape):
            raise GradcheckError("grad is incorrect size")


def _check_undefined_grad(func, inputs):
    """Backward must accept undefined (None) output gradients and treat them as zeros."""
    from autograd_cy import zeros_like
    from autograd_cy.autograd.backward import grad
    differentiable = [x for x in inputs if _requires_grad(x)]

    def check(outputs):
        try:
            grads = grad(outputs, differentiable, [zeros_like(o) for o in outputs],
                         allow_unused=True)
        except Exception as error:
            _warn_undefined_grad_check()
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look at "
                '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
            ) from error
        for g in grads:
            if g is not None and np.any(_host(g) != 0):
                _warn_undefined_grad_check()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads "
                    'are undefined or zero. Please look at "Notes about undefined output '
                    'gradients" in "tools/autograd/derivatives.yaml"')

    outputs = _differentiable_outputs(func(*inputs))
    check([_UndefinedGrad.apply(o) for o in outputs])
    # With several outputs, each may be the only undefined one.
    if len(outputs) > 1:
        for undefined in range(len(outputs)):
            outputs = _differentiable_outputs(func(*inputs))
            check([_UndefinedGrad.apply(o) if k == undefined else o
                   for k, o in enumerate(outputs)])


def _warn_undefined_grad_check():
    warnings.warn("Backwards compatibility: New undefined gradient support checking feature is "
                  "enabled by default, but it may break existing callers of this function. If "
                  "this is true for you, you can call this function with "
                  '"check_undefined_grad=False" to disable the feature', stacklevel=5)


def _undefined_grad_function():
    from autograd_cy.autograd.function import Function

    class UndefinedGrad(Function):
        """Identity whose backward sends an undefined (None) gradient to its input."""

        @staticmethod
        def forward(ctx, x):
            return x.view_as(x)

        @staticmethod
        def backward(ctx, grad):
            return None

    return UndefinedGrad


_UndefinedGrad = _undefined_grad_function()


# ------------------------------------------------------------------ helpers

def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if isinstance(o, Tensor) and o.requires_grad)


def _requires_grad(x):
    return isinstance(x, Tensor) and x.requires_grad


def _host(t):
    """``t``'s values as a NumPy array (a download from a CUDA device)."""
    return t.detach().cpu().numpy()


def _host_copy(array):
    """A NumPy copy of a tensor's array, of either device."""
    return array.copy() if isinstance(array, np.ndarray) else array.get()





def _check_inputs(inputs):
    from autograd_cy import float64
    any_requires_grad = False
    for index, inp in enumerate(inputs):
        if not _requires_grad(inp):
            continue
        if inp.dtype != float64:
            warnings.warn(
                f"Input #{index} requires gradient and is not a double precision floating "
                "point or complex. This check will likely fail if all the inputs are not of "
                "double precision floating point or complex. ", stacklevel=4)
        if not all(stride > 0 or size <= 1 for stride, size in zip(inp.stride(), inp.shape)):
            raise RuntimeError(
                f"The {index}th input has a dimension with stride 0. gradcheck only supports "
                "inputs that are non-overlapping to be able to compute the numerical "
                "gradients correctly. You should call .contiguous on the input before passing "
                "it to gradcheck.")
        any_requires_grad = True
    if not any_requires_grad:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
