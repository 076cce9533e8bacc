"""``compile``: torch's graph compiler, here the identity.

autograd_cy runs every op eagerly and has no graph compiler, so ``compile(model)`` returns
``model`` itself (a function or a Module), which computes what the compiled one would.
It takes torch's arguments, and works as ``compile(model)``, as ``@compile`` and as
``@compile(mode=...)``; ``backend`` and ``options`` are accepted and unused.
"""

__all__ = ["compile"]


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, name=None, disable=False, recompile_limit=None,
            isolate_recompiles=False, shapes_spec=None):
    """``model`` unchanged; without ``model``, a decorator that returns its function."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if model is None:
        return lambda function: function
    if not callable(model):
        raise RuntimeError("Invalid input to torch.compile: model must be callable")
    return model
