"""Custom autograd Functions: ``Function``, its ``ctx`` (``FunctionCtx``), ``once_differentiable``.

A custom Function is a pair of static methods written by the user::

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            y, = ctx.saved_tensors
            return grad * y

``Exp.apply(x)`` runs ``forward`` with grad mode off and makes the node
``ExpBackward`` the outputs' ``grad_fn``; the engine calls ``backward`` with
one gradient per output and expects one back per argument. The node *is* the
``ctx`` (see NOTE [ctx is the node] in pyx/function.pyx, where ``apply`` lives).
"""
import functools
import inspect
import warnings

from autograd_cy._C.function import (
    _FunctionBase, function_apply as _function_apply, delayed_error as _delayed_error,
    _make_node_class, _set_argument_binder,
)
from autograd_cy._C.tensor import Tensor

__all__ = ["FunctionCtx", "BackwardCFunction", "FunctionMeta", "Function",
           "once_differentiable", "InplaceFunction", "NestedIOFunction"]


class FunctionCtx:
    """The methods ``forward`` / ``setup_context`` call on ``ctx``.

    Each records its arguments; ``Function.apply`` acts on them once forward
    has returned. Any other attribute (``ctx.k = 3``) is simply kept for backward.
    """

    def save_for_backward(self, *tensors):
        """Keep ``tensors`` (or None) for ``backward``, where ``ctx.saved_tensors`` returns them.

        Saved tensors are checked on access: modifying one in place after saving
        makes ``saved_tensors`` raise. Call at most once, from forward or setup_context.

        >>> import autograd_cy as ag
        >>> class Square(ag.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x * x
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         x, = ctx.saved_tensors
        ...         return 2 * x * grad
        >>> x = ag.tensor([1.0, 3.0], requires_grad=True)
        >>> Square.apply(x).sum().backward()
        >>> x.grad
        tensor([2., 6.])
        """
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Keep ``tensors`` for a forward-mode ``jvp``."""
        for tensor in tensors:
            if not (isinstance(tensor, Tensor) or tensor is None):
                raise AssertionError(
                    "save_for_forward expects all arguments to be tensors; you should save "
                    "non-tensors as attributes on ctx.")
        self.saved_for_forward = tensors

    @property
    def saved_variables(self):
        """Deprecated name of ``saved_tensors``."""
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'",
                      DeprecationWarning, stacklevel=2)
        return self.saved_tensors

    def mark_dirty(self, *tensors):
        """Declare that forward modified these inputs in place; forward must return them.

        The same tensor objects come back from ``apply``, with their version bumped and
        their history continued by this Function's node.
        """
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs without a gradient: they get ``requires_grad=False``.

        ``backward`` still receives one gradient per output (zeros for these).
        """
        self.non_differentiable = tensors

    def set_materialize_grads(self, value):
        """Whether missing output gradients reach ``backward`` as zeros (True, the
        default) or as None (False, which lets backward skip work)."""
        self.materialize_grads = bool(value)

    def mark_shared_storage(self, *pairs):
        warnings.warn("`mark_shared_storage` is deprecated. Tensors with shared storages are "
                      "automatically tracked. Note that calls to `set_()` are not tracked",
                      FutureWarning, stacklevel=2)


class BackwardCFunction(_FunctionBase, FunctionCtx):
    """The base of every ``<Class>Backward`` node; one instance is the ctx of one call."""

    def apply_jvp(self, *tangents):
        return self._forward_cls.jvp(self, *tangents)


class FunctionMeta(type):
    """Gives each Function subclass its node class ``<Class>Backward``."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = _make_node_class(name + "Backward", BackwardCFunction, cls)
        if getattr(cls, "complex_formulas", False):
            # a built-in op whose torch formulas give a real input the real part of its
            # complex gradient (handle_r_to_c): validate_outputs takes it (NOTE [Complex
            # formulas gate]); any other Function's is refused there, as torch's engine does
            cls._backward_cls.complex_formulas = True
        super().__init__(name, bases, attrs)


class _SingleLevelFunction(FunctionCtx, metaclass=FunctionMeta):
    # True on the library's own ops (NOTE [Views a library op makes inside its forward]);
    # declared here so that wrap_outputs finds it without raising an AttributeError
    builtin_op = False

    @staticmethod
    def forward(*args, **kwargs):
        """The computation: ``forward(ctx, *args)``, or ``forward(*args)`` together with
        ``setup_context(ctx, inputs, output)``. Runs with grad mode off."""
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Fill ``ctx`` from the arguments and the output, for a ``forward`` without ctx."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """The gradients of the arguments from the gradients of the outputs (one per output
        in, one per argument out; None for an argument that needs none)."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD.")

    vjp = backward

    # vmap of the Function (autograd_cy/func/autograd_function.py): its own batching rule,
    # or ``generate_vmap_rule = True`` to have one made from forward
    generate_vmap_rule = False

    @staticmethod
    def vmap(info, in_dims, *args):
        """The Function's batching rule: ``info`` (batch_size, randomness), one in_dim per
        argument (None: not batched); returns ``(outputs, out_dims)``."""
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the vmap "
            "staticmethod or set generate_vmap_rule=True.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward-mode AD: the tangents of the outputs from those of the arguments."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD.")


class Function(_SingleLevelFunction):
    """Base class of custom autograd Functions: subclass it, write static ``forward`` and
    ``backward``, call ``apply``.

    >>> import autograd_cy as ag
    >>> class Double(ag.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         return x * 2
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         return grad * 2
    >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
    >>> y = Double.apply(x)
    >>> y.grad_fn.name()
    'DoubleBackward'
    """

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are "
            "all static, so you should invoke them on the class itself. Instantiating an "
            "autograd function will raise an error in a future version of PyTorch.",
            DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    # Function.apply is the C function itself: no Python frame between a call and forward.
    apply = classmethod(_function_apply)


# forward function -> (its signature, whether binding can change positional arguments)
_signatures = {}


def _bind_arguments(cls, args, kwargs):
    """Keyword arguments and defaults of ``forward`` become positional arguments, so that
    ``setup_context`` and ``needs_input_grad`` see every argument (as in PyTorch)."""
    forward = cls.forward
    cached = _signatures.get(forward)
    if cached is None:
        signature = inspect.signature(forward)
        trivial = all(p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD
                      for p in signature.parameters.values())
        cached = _signatures[forward] = (signature, trivial)
    signature, trivial = cached
    if trivial and not kwargs:
        return args
    # forward(ctx, ...) takes a placeholder for ctx, dropped again after binding.
    with_ctx = cls.setup_context is _SingleLevelFunction.setup_context
    bound = signature.bind(None, *args, **kwargs) if with_ctx else signature.bind(*args,
                                                                                  **kwargs)
    bound.apply_defaults()
    if bound.kwargs:
        name = next(iter(bound.kwargs))
        raise TypeError(f"forward() got an unexpected keyword argument '{name}'")
    return tuple(bound.args[1:] if with_ctx else bound.args)


_set_argument_binder(_bind_arguments)


# The engine tells an overridden backward/vjp/setup_context from these defaults by this mark.
for _default in (_SingleLevelFunction.backward, _SingleLevelFunction.vjp,
                 _SingleLevelFunction.setup_context, _SingleLevelFunction.vmap):
    _default._is_default_implementation = True
del _default


class InplaceFunction(Function):
    """Kept for old code; use ``Function``."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


# ------------------------------------------------------------------ NestedIOFunction

def _iter_nested(obj, accepts, accepted):
    """The leaves of a nesting of lists, tuples and dict values that ``accepts(leaf)``,
    depth first; None entries are skipped, any other leaf is refused."""
    if accepts(obj):
        yield obj
    elif obj is None:
        return
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _iter_nested(item, accepts, accepted)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _iter_nested(item, accepts, accepted)
    else:
        raise ValueError("Auto nesting doesn't know how to process an input object of type "
                         f"{_typename(obj)}. Accepted types: {accepted}, or lists/tuples of "
                         "them")


def _typename(obj):
    """PyTorch's ``typename``: the class's qualified name, builtins without a module."""
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


def _iter_tensors(obj):
    return _iter_nested(obj, lambda x: isinstance(x, Tensor), "Tensors")


def _iter_tensors_or_none(obj):
    return _iter_nested(obj, lambda x: x is None or isinstance(x, Tensor), "Tensors or None")


def _unflatten(flat, proto):
    """Give the flat sequence ``flat`` the nesting of ``proto`` (lists and tuples whose
    leaves are taken from ``flat`` in order; None entries of ``proto`` stay None)."""
    return _take(flat, proto)[0]


def _take(flat, proto):
    """``_unflatten``'s walk: ``(proto's nesting filled from flat, what is left of flat)``
    (a module function: a nested one calling itself is a reference cycle, NOTE [Pytree
    walks without closures] in func/pytree.py)."""
    if not isinstance(proto, (list, tuple)):
        return flat[0], flat[1:]
    result = []
    for entry in proto:
        if entry is None:
            result.append(None)
        else:
            value, flat = _take(flat, entry)
            result.append(value)
    return type(proto)(result), flat


def _detached_data(obj):
    """``obj`` with each tensor replaced by its ``.data`` (the nesting kept)."""
    if isinstance(obj, Tensor):
        return obj.data
    if obj is None:
        return None
    if isinstance(obj, (list, tuple)):
        return type(obj)(_detached_data(item) for item in obj)
    if isinstance(obj, dict):
        return {key: _detached_data(value) for key, value in obj.items()}
    raise ValueError("Auto nesting doesn't know how to process an input object of type "
                     f"{_typename(obj)}. Accepted types: Tensors, or lists/tuples of them")


class NestedIOFunction(Function):
    """Kept for old code (use ``Function``): an instance-method Function whose
    ``forward_extended`` / ``backward_extended`` take and return nested lists and tuples
    of tensors, flattened for the engine by ``forward`` / ``backward``.

    As in PyTorch 2.13 it cannot run any more: calling an instance needs the legacy
    ``_do_forward`` that Function no longer has, and ``apply`` runs ``forward`` on the
    node class's ctx, which has no ``_nested_input``. Both raise AttributeError.
    """

    def _do_forward(self, *inputs):
        self._nested_input = inputs
        flat_output = super()._do_forward(*tuple(_iter_tensors(inputs)))
        return _unflatten(flat_output, self._nested_output)

    def _do_backward(self, gradients, retain_variables):
        self.retain_variables = retain_variables
        result = super()._do_backward(gradients, retain_variables)
        if not retain_variables:
            del self._nested_output
            del self._to_save_nested
        return result

    __call__ = _do_forward

    def forward(self, *args):
        """Run ``forward_extended`` on the nested inputs' data; returns the flat outputs."""
        nested_inputs = _detached_data(self._nested_input)
        result = self.forward_extended(*nested_inputs)
        del self._nested_input
        self._nested_output = result
        return tuple(_iter_tensors(result))

    def backward(self, *gradients):
        """Nest the flat output gradients as the outputs were, run ``backward_extended``,
        and flatten what it returns (None entries kept)."""
        nested_gradients = _unflatten(gradients, self._nested_output)
        result = self.backward_extended(*nested_gradients)
        return tuple(_iter_tensors_or_none(result))

    def save_for_backward(self, *args):
        """Keep the tensors of a nesting for ``saved_tensors``."""
        self.to_save = tuple(_iter_tensors(args))
        self._to_save_nested = args

    @property
    def saved_tensors(self):
        """The saved tensors, nested as given to ``save_for_backward``. An instance never
        runs as a node, so the engine holds nothing for it: this raises IndexError, as
        PyTorch's does."""
        return _unflatten((), self._to_save_nested)

    def mark_dirty(self, *args, **kwargs):
        """Declare the tensors of a nesting modified in place."""
        self.dirty_tensors = tuple(_iter_tensors((args, kwargs)))

    def mark_non_differentiable(self, *args, **kwargs):
        """Declare the tensors of a nesting non-differentiable."""
        self.non_differentiable = tuple(_iter_tensors((args, kwargs)))

    def forward_extended(self, *input):
        """The user's forward, on nested inputs."""
        raise NotImplementedError

    def backward_extended(self, *grad_output):
        """The user's backward, on nested output gradients."""
        raise NotImplementedError


_ONCE_DIFFERENTIABLE_ERROR = ("trying to differentiate twice a function that was marked with "
                              "@once_differentiable")


def once_differentiable(fn):
    """Decorate a ``backward`` that cannot itself be differentiated.

    The body runs under ``no_grad``. If a graph is being built (``create_graph=True``
    with gradients that require grad), the results are routed through an ``Error``
    node, so that a double backward raises instead of silently returning wrong values.
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        from autograd_cy.grad_mode import no_grad, is_grad_enabled
        with no_grad():
            outputs = fn(ctx, *args)
        if not is_grad_enabled():
            return outputs
        if not any(isinstance(arg, Tensor) and arg.requires_grad for arg in args):
            return outputs
        if isinstance(outputs, tuple):
            return _delayed_error(_ONCE_DIFFERENTIABLE_ERROR, outputs)
        return _delayed_error(_ONCE_DIFFERENTIABLE_ERROR, (outputs,))[0]

    return wrapper
