"""Putting wrappers in place of the ops for a while, and the originals back.

Two features must see every op call without the ops testing a flag: the profiler records
each op (NOTE [Profiling ops] in pyx/profiling.pyx) and ``func.vmap`` sends each op that
receives a batched tensor to its batching rule (NOTE [How vmap reaches the ops] in
autograd_cy/func/dispatch.py). Both swap the ops: while they are active, the Tensor methods
and the functions of the ``autograd_cy`` and ``autograd_cy.nn.functional`` namespaces are
wrappers around the originals; afterwards every op is exactly the function it was, at
exactly its cost.
"""
import importlib
import pkgutil

from autograd_cy._C import profiling as _profiling


def op_functions():
    """Every op function of pyx/ops and of ``nn.functional``, by identity:
    ``{id(function): function}``."""
    import autograd_cy._C.ops as ops_package
    import autograd_cy.nn.functional as functional
    modules = [importlib.import_module(f"autograd_cy._C.ops.{info.name}")
               for info in pkgutil.iter_modules(ops_package.__path__)] + [functional]
    functions = {}
    for module in modules:
        names = tuple(getattr(module, "__all__", ())) + tuple(
            getattr(module, "__tensor_methods__", ()))
        for name in names:
            value = getattr(module, name, None)
            if callable(value) and not isinstance(value, type):
                functions[id(value)] = value
    return functions


class OpSwap:
    """Puts ``make_wrapper(name, original)`` in place of each op (the Tensor methods and the
    functions of ``autograd_cy`` and ``autograd_cy.nn.functional``) and puts the originals
    back.

    ``functions`` (``{id: function}``, default ``op_functions()``) says what is an op;
    ``private`` also swaps the namespaces' underscore names (nn.functional calls its ops
    through some); ``extra_namespaces`` are swapped too (vmap's ``autograd.grad``). The
    wrappers are built once, here, so ``install`` costs two dict updates
    per namespace. A name rebound since (``ag.mul = f``) is left alone."""

    def __init__(self, make_wrapper, functions=None, private=False, extra_namespaces=()):
        import autograd_cy
        import autograd_cy.nn.functional as functional
        from autograd_cy import Tensor
        functions = op_functions() if functions is None else functions
        wrappers = {}

        def plan(items):
            result = {}
            for name, value in items:
                if id(value) in functions and (private or not name.startswith("_")):
                    key = (name, id(value))
                    if key not in wrappers:
                        wrappers[key] = make_wrapper(name, value)
                    result[name] = (value, wrappers[key])
            return result
        self.namespace_plans = [(vars(namespace), plan(vars(namespace).items()))
                                for namespace in (autograd_cy, functional) + tuple(
                                    extra_namespaces)]
        self.method_plan = plan(vars(Tensor).items())
        self.tensor_dict = vars(Tensor)
        self.swapped = []
        self.wrappers = {identity: wrapper for (_, identity), wrapper in wrappers.items()}

    def wrapper_of(self, function):
        """The wrapper made for ``function``, or ``function`` if it is not an op."""
        return self.wrappers.get(id(function), function)

    def install(self):
        for namespace, plan in self.namespace_plans:
            swap = {name: wrapper for name, (original, wrapper) in plan.items()
                    if namespace.get(name) is original}
            namespace.update(swap)
            self.swapped.append((namespace, plan, list(swap)))
        methods = {name: wrapper for name, (original, wrapper) in self.method_plan.items()
                   if self.tensor_dict.get(name) is original}
        _profiling.replace_tensor_methods(methods)
        self.swapped.append((None, self.method_plan, list(methods)))

    def uninstall(self):
        for namespace, plan, names in self.swapped:
            originals = {name: plan[name][0] for name in names}
            if namespace is None:
                _profiling.replace_tensor_methods(originals)
            else:
                namespace.update(originals)
        self.swapped = []
