"""``jit``: the TorchScript entry points, as pass-throughs.

autograd_cy has no TorchScript compiler. ``script(obj)`` and ``trace(func, inputs)``
return ``obj`` / ``func`` itself: calling it computes what the scripted or traced one
would, but it is not a ScriptModule (no ``.graph``, no ``.save``), and a traced function
still follows its Python control flow instead of the path recorded for ``inputs``.
``ignore`` and ``unused`` mark functions TorchScript should not compile; with no compiler
they leave them as they are.
"""

__all__ = ["script", "trace", "ignore", "unused", "is_scripting", "is_tracing"]


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """``obj`` itself (a function, a Module or a class)."""
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-05, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """``func`` itself, run eagerly on each call (not replaying a recorded path)."""
    return func


def ignore(drop=False, **kwargs):
    """``@ignore`` or ``@ignore(drop=True)``: the function unchanged."""
    if callable(drop):
        return drop
    return lambda function: function


def unused(fn):
    """``@unused``: the function unchanged."""
    return fn


def is_scripting():
    """False: nothing runs as TorchScript."""
    return False


def is_tracing():
    """False: nothing is traced."""
    return False
