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
)
from autograd_cy._C.tensor import Tensor

__all__ = ["FunctionCtx", "BackwardCFunction", "FunctionMeta", "Function",
           "once_differentiable", "InplaceFunction"]


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
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class _SingleLevelFunction(FunctionCtx, metaclass=FunctionMeta):
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

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run the Function on ``args``; the outputs record ``<Class>Backward`` as grad_fn
        when grad mode is on and a tensor argument requires grad."""
        if kwargs or cls.setup_context is not _SingleLevelFunction.setup_context:
            args = _bind_arguments(cls, args, kwargs)
        return _function_apply(cls, args)


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


# The engine tells an overridden backward/vjp/setup_context from these defaults by this mark.
for _default in (_SingleLevelFunction.backward, _SingleLevelFunction.vjp,
                 _SingleLevelFunction.setup_context):
    _default._is_default_implementation = True
del _default


class InplaceFunction(Function):
    """Kept for old code; use ``Function``."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


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
