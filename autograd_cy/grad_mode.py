"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``, and
the engine switches ``set_multithreading_enabled``, ``enforce_grad_layout_policy``.

Thin shells over the thread-local C flags in ``pyx/grad_mode.pyx``, so a thread
started inside ``no_grad()`` sees grad mode on (grad mode is thread-local). Each is a
context manager and a decorator (``no_grad``, ``enable_grad`` and
``inference_mode`` also bare: ``@no_grad``); on a generator function the mode is
re-applied around every resumption and the caller's mode restored between yields
(as PyTorch's decorators do).
"""
import functools
import inspect
import threading
import warnings

from autograd_cy._C import grad_mode as _flags

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled", "set_multithreading_enabled",
           "is_multithreading_enabled", "enforce_grad_layout_policy", "is_view_replay_enabled"]


def is_grad_enabled():
    """Is grad mode on in this thread?"""
    return _flags._is_grad_enabled()


def is_inference_mode_enabled():
    """Is inference mode on in this thread?"""
    return _flags._is_inference_mode_enabled()


def _check_bool(function_name, argument, value, position=1):
    """The TypeError PyTorch's argument parser raises for a non-bool flag."""
    if not isinstance(value, bool):
        raise TypeError(f"{function_name}(): argument '{argument}' (position {position}) "
                        f"must be bool, not {type(value).__name__}")


class _DecoratorContextManager:
    """A context manager that can also decorate functions and generator functions."""

    def __call__(self, func):
        if inspect.isclass(func):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You "
                "should only decorate functions or methods. To preserve the current behavior "
                "of class decoration, you can directly decorate the `__init__` method and "
                "nothing else.", FutureWarning, stacklevel=2)
            return functools.wraps(func)(lambda *args, **kwargs: self._run(func, args, kwargs))
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def decorated(*args, **kwargs):
            return self._run(func, args, kwargs)
        return decorated

    def _run(self, func, args, kwargs):
        with self.clone():
            return func(*args, **kwargs)

    def _wrap_generator(self, func):
        """Each step of the generator (send, throw, close) runs inside a fresh copy of the mode."""
        @functools.wraps(func)
        def generator(*args, **kwargs):
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    item = gen.send(None)
                while True:
                    try:
                        request = yield item
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as error:
                        with self.clone():
                            item = gen.throw(error)
                    else:
                        with self.clone():
                            item = gen.send(request)
            except StopIteration as stop:
                return stop.value
        return generator

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """A context manager without arguments, usable bare as a decorator (``@no_grad``)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Disable recording: ops inside produce tensors with no grad_fn.

    Factories with ``requires_grad=True`` and ``requires_grad_()`` still work.

    >>> import autograd_cy as ag
    >>> x = ag.ones(2, requires_grad=True)
    >>> with ag.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __init__(self, orig_func=None):
        pass

    def __enter__(self):
        self.previous = _flags._is_grad_enabled()
        _flags._set_grad_enabled(False)

    def __exit__(self, *exc_info):
        _flags._set_grad_enabled(self.previous)


class enable_grad(_NoParamDecoratorContextManager):
    """Enable grad mode, e.g. inside a ``no_grad`` region.

    Inside ``inference_mode`` it flips the flag but ops still record nothing.
    """

    def __init__(self, orig_func=None):
        pass

    def __enter__(self):
        self.previous = _flags._is_grad_enabled()
        _flags._set_grad_enabled(True)

    def __exit__(self, *exc_info):
        _flags._set_grad_enabled(self.previous)


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode on or off. Called as a function it takes effect at once; as a context
    manager it restores the previous mode on exit.

    >>> import autograd_cy as ag
    >>> with ag.set_grad_enabled(False):
    ...     ag.is_grad_enabled()
    False
    >>> ag.is_grad_enabled()
    True
    """

    def __init__(self, mode):
        _check_bool("set_grad_enabled", "enabled", mode)
        self.previous = _flags._is_grad_enabled()
        self.mode = mode
        _flags._set_grad_enabled(mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc_info):
        _flags._set_grad_enabled(self.previous)

    def __call__(self, func):
        # Decorating: undo the immediate effect of the constructor call.
        _flags._set_grad_enabled(self.previous)
        return super().__call__(func)

    def clone(self):
        return _GradEnabledScope(self.mode)

    def __repr__(self):
        return f"{type(self).__module__}.{type(self).__qualname__}(mode={self.mode})"

    __str__ = __repr__


class _GradEnabledScope:
    """The context manager ``set_grad_enabled(mode)`` becomes around a decorated call."""

    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.previous = _flags._is_grad_enabled()
        _flags._set_grad_enabled(self.mode)

    def __exit__(self, *exc_info):
        _flags._set_grad_enabled(self.previous)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``, and tensors made inside are inference tensors that can never be
    recorded. ``inference_mode(False)`` turns it off again (and grad mode on).

    >>> import autograd_cy as ag
    >>> with ag.inference_mode():
    ...     t = ag.ones(2)
    >>> t.is_inference()
    True
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)          # bare @inference_mode

    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        self.previous = (_flags._is_grad_enabled(), _flags._is_inference_mode_enabled())
        # As PyTorch's InferenceMode guard: grad mode is the opposite of inference mode.
        _flags._set_grad_enabled(not self.mode)
        _flags._set_inference_mode(self.mode)

    def __exit__(self, *exc_info):
        grad_enabled, inference = self.previous
        _flags._set_grad_enabled(grad_enabled)
        _flags._set_inference_mode(inference)

    def clone(self):
        return self.__class__(self.mode)


# ------------------------------------------------------------------ engine switches

# NOTE [Engine switches without an effect]
# PyTorch's engine runs the backward of accelerator devices on one worker thread per
# device, relaxes the layout contract of accumulated gradients on request, and can
# replay the views of a modified base instead of using as_strided. autograd_cy's engine
# runs backward on the calling thread (a very deep reentrant backward aside, pyx/engine.pyx)
# and rebuilds a modified view's grad_fn as AsStridedBackward0 (pyx/views.pyx), whatever
# these flags say: they exist, thread-local with PyTorch's defaults, so that code that
# sets and reads them runs as is. Differences show only in the grad_fn of such a view under
# ``_force_original_view_tracking(True)`` and in the strides of an accumulated ``.grad``
# under ``enforce_grad_layout_policy(False)``.

class _EngineSwitches(threading.local):
    multithreading = True
    grad_layout_enforced = True
    view_replay = False


_switches = _EngineSwitches()


def is_multithreading_enabled():
    """Does backward run on per-device worker threads in this thread (the default)?"""
    return _switches.multithreading


def is_view_replay_enabled():
    """Is view replay forced on in this thread (``_force_original_view_tracking``)?"""
    return _switches.view_replay


class _ImmediateSwitch(_DecoratorContextManager):
    """A thread-local engine flag set at construction, restored on exit: usable as a
    function call or as a context manager (decorating leaves the flag set, as PyTorch's)."""

    _setter_name = _argument = _attribute = None

    def __init__(self, mode):
        _check_bool(self._setter_name, self._argument, mode)
        self.prev = getattr(_switches, self._attribute)
        setattr(_switches, self._attribute, mode)
        self.mode = mode

    def __enter__(self):
        pass

    def __exit__(self, *exc_info):
        setattr(_switches, self._attribute, self.prev)

    def clone(self):
        return self.__class__(self.mode)


class set_multithreading_enabled(_ImmediateSwitch):
    """Enable or disable multithreaded backward (per-device worker threads), in this thread.

    Takes effect at once; as a context manager the previous setting comes back on exit.
    autograd_cy's engine always runs backward on the calling thread, so the flag is only
    recorded (NOTE [Engine switches without an effect]).

    >>> import autograd_cy as ag
    >>> with ag.autograd.set_multithreading_enabled(False):
    ...     ag.autograd.is_multithreading_enabled()
    False
    >>> ag.autograd.is_multithreading_enabled()
    True
    """

    _setter_name, _argument, _attribute = "set_multithreading_enabled", "enabled", "multithreading"


class enforce_grad_layout_policy(_ImmediateSwitch):
    """Whether accumulated gradients must follow their parameter's strides (``enable=True``,
    the default) or may keep the incoming gradient's layout; thread-local.

    Only recorded here (NOTE [Engine switches without an effect]).
    """

    _setter_name, _argument = "set_grad_layout_enforcement_enabled", "enabled"
    _attribute = "grad_layout_enforced"

    def __init__(self, enable=True):
        super().__init__(enable)

    def __call__(self, func):
        # Decorating: undo the immediate effect of the constructor call.
        setattr(_switches, self._attribute, self.prev)
        return super().__call__(func)


class _force_original_view_tracking(_ImmediateSwitch):
    """Force view replay (rather than ``as_strided``) when a modified view's grad_fn is
    rebuilt; thread-local. Only recorded here (NOTE [Engine switches without an effect])."""

    _setter_name, _argument, _attribute = "set_view_replay_enabled", "enabled", "view_replay"

    def __call__(self, func):
        setattr(_switches, self._attribute, self.prev)
        return super().__call__(func)


class _unsafe_preserve_version_counter(_DecoratorContextManager):
    """Hide the in-place changes made inside from autograd: on exit, the version counters
    of ``tensors`` (a tensor or a tuple of tensors) are set back to their values on entry,
    so a saved tensor modified inside no longer fails its check at backward."""

    def __init__(self, tensors):
        from autograd_cy._C.tensor import Tensor
        self.tensors = (tensors,) if isinstance(tensors, Tensor) else tensors
        if not isinstance(self.tensors, tuple):
            raise AssertionError("Expected tensors to be a tuple")
        self.prev_versions = tuple(t._version for t in self.tensors)

    def __enter__(self):
        pass

    def __exit__(self, *exc_info):
        from autograd_cy._C.ops.inplace import _unsafe_set_version_counter
        _unsafe_set_version_counter(self.tensors, self.prev_versions)

    def clone(self):
        return self.__class__(self.tensors)
