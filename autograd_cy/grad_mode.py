"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

Thin shells over the thread-local C flags in ``pyx/grad_mode.pyx``. Each is a
context manager and a decorator (also bare: ``@no_grad``); on a generator
function the mode is re-applied around every resumption (engine_semantics 9.1).
"""
import functools
import inspect

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
            raise RuntimeError("grad mode context managers cannot decorate a class")
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return decorated

    def _wrap_generator(self, func):
        @functools.wraps(func)
        def generator(*args, **kwargs):
            gen = func(*args, **kwargs)
            response = None
            try:
                while True:
                    with self.clone():
                        item = gen.send(response)
                    response = yield item
            except StopIteration as stop:
                return stop.value
        return generator

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Disable recording: ops inside produce tensors with no grad_fn.

    >>> import autograd_cy as ag
    >>> x = ag.ones(2, requires_grad=True)
    >>> with ag.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __new__(cls, func=None):
        if func is None or cls is not no_grad:
            return super().__new__(cls)
        return cls()(func)     # bare @no_grad

    def __enter__(self):
        self.previous = _flags._is_grad_enabled()
        _flags._set_grad_enabled(False)

    def __exit__(self, *exc_info):
        _flags._set_grad_enabled(self.previous)


class enable_grad(_DecoratorContextManager):
    """Enable recording inside a ``no_grad`` region (has no effect on inference mode)."""

    def __new__(cls, func=None):
        if func is None or cls is not enable_grad:
            return super().__new__(cls)
        return cls()(func)

    def __enter__(self):
        self.previous = _flags._is_grad_enabled()
        _flags._set_grad_enabled(True)

    def __exit__(self, *exc_info):
        _flags._set_grad_enabled(self.previous)


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode on or off: as a function call it takes effect at once, as a
    context manager it restores the previous mode on exit."""

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

    def clone(self):
        return _SetGradEnabledScope(self.mode)


class _SetGradEnabledScope(set_grad_enabled):
    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.previous = _flags._is_grad_enabled()
        _flags._set_grad_enabled(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``, and tensors made inside are inference tensors (never recorded)."""

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)     # bare @inference_mode
        return super().__new__(cls)

    def __init__(self, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return
        self.mode = mode

    def __enter__(self):
        self.previous = (_flags._is_grad_enabled(), _flags._is_inference_mode_enabled())
        if self.mode:
            _flags._set_grad_enabled(False)
        _flags._set_inference_mode(self.mode)

    def __exit__(self, *exc_info):
        grad_enabled, inference = self.previous
        _flags._set_grad_enabled(grad_enabled)
        _flags._set_inference_mode(inference)

    def clone(self):
        return self.__class__(self.mode)
