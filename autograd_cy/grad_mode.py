"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

Thin shells over the thread-local C flags in ``pyx/grad_mode.pyx``, so a thread
started inside ``no_grad()`` sees grad mode on (grad mode is thread-local). Each is a
context manager and a decorator (``no_grad``, ``enable_grad`` and
``inference_mode`` also bare: ``@no_grad``); on a generator function the mode is
re-applied around every resumption and the caller's mode restored between yields
(as PyTorch's decorators do).
"""
import functools
import inspect
import warnings

from autograd_cy._C import grad_mode as _flags

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled"]


def is_grad_enabled():
    """Is grad mode on in this thread?"""
    return _flags._is_grad_enabled()


def is_inference_mode_enabled():
    """Is inference mode on in this thread?"""
    return _flags._is_inference_mode_enabled()


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


class no_grad(_DecoratorContextManager):
    """Disable recording: ops inside produce tensors with no grad_fn.

    Factories with ``requires_grad=True`` and ``requires_grad_()`` still work.

    >>> import autograd_cy as ag
    >>> x = ag.ones(2, requires_grad=True)
    >>> with ag.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __new__(cls, orig_func=None):
        if orig_func is None or cls is not no_grad:
            return super().__new__(cls)
        return cls()(orig_func)     # bare @no_grad

    def __init__(self, orig_func=None):
        pass

    def __enter__(self):
        self.previous = _flags._is_grad_enabled()
        _flags._set_grad_enabled(False)

    def __exit__(self, *exc_info):
        _flags._set_grad_enabled(self.previous)


class enable_grad(_DecoratorContextManager):
    """Enable grad mode, e.g. inside a ``no_grad`` region.

    Inside ``inference_mode`` it flips the flag but ops still record nothing.
    """

    def __new__(cls, orig_func=None):
        if orig_func is None or cls is not enable_grad:
            return super().__new__(cls)
        return cls()(orig_func)     # bare @enable_grad

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
        if not isinstance(mode, bool):
            raise TypeError("set_grad_enabled(): argument 'enabled' (position 1) must be "
                            f"bool, not {type(mode).__name__}")
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
