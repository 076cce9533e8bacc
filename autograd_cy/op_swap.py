"""Putting wrappers in place of the ops for a while, and the originals back.

Three features must see op calls without the ops testing a flag: the profiler records
each op (NOTE [Profiling ops] in pyx/profiling.pyx), ``func.vmap`` sends each op that
receives a batched tensor to its batching rule (NOTE [How vmap reaches the ops] in
autograd_cy/func/dispatch.py), and autocast casts the inputs of the ops of its lists
(NOTE [How autocast reaches the ops] in autograd_cy/amp/casting.py). All three swap the
ops: while they are active, the Tensor methods and the functions of the ``autograd_cy``
and ``autograd_cy.nn.functional`` namespaces are wrappers around the originals; afterwards
every op is exactly the function it was, at exactly its cost.
"""
import importlib
import pkgutil

from autograd_cy._C import profiling as _profiling


def unswapped(value):
    """``value``, or the function under it when it is a swap's wrapper (one made here)."""
    while getattr(value, "__op_swap__", False):
        value = value.__wrapped__
    return value


def _made(wrapper):
    wrapper.__op_swap__ = True          # what ``unswapped`` looks for
    return wrapper


def op_functions():
    """Every op function of pyx/ops, of ``nn.functional`` and the in-place forms of
    inplace_forms.py, by identity: ``{id(function): function}``."""
    import autograd_cy._C.ops as ops_package
    import autograd_cy.inplace_forms as inplace_forms
    import autograd_cy.nn.functional as functional
    modules = [importlib.import_module(f"autograd_cy._C.ops.{info.name}")
               for info in pkgutil.iter_modules(ops_package.__path__)] + [
                   functional, inplace_forms]
    functions = {}
    for module in modules:
        names = tuple(getattr(module, "__all__", ())) + tuple(
            getattr(module, "__tensor_methods__", ()))
        for name in names:
            value = unswapped(getattr(module, name, None))    # read while a swap is in
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
                while id(value) not in functions and hasattr(value, "__wrapped__"):
                    value = value.__wrapped__        # made while another swap is installed
                if id(value) in functions and (private or not name.startswith("_")):
                    key = (name, id(value))
                    if key not in wrappers:
                        wrappers[key] = _made(make_wrapper(name, value))
                    result[name] = (value, wrappers[key])
            return result
        self.namespace_plans = [(vars(namespace), plan(vars(namespace).items()))
                                for namespace in (autograd_cy, functional) + tuple(
                                    extra_namespaces)]
        self.method_plan = plan(vars(Tensor).items())
        self.tensor_dict = vars(Tensor)
        self.swapped = []
        self.wrappers = {identity: wrapper for (_, identity), wrapper in wrappers.items()}
        self.make_wrapper = make_wrapper
        self.stacked = {}       # id(another swap's wrapper) -> (it, our wrapper of it)
        # per plan: {name: original}, {name: wrapper}, for the usual install
        self.fast = {id(p): ({n: o for n, (o, _) in p.items()}, {n: w for n, (_, w) in p.items()})
                     for p in [plan for _, plan in self.namespace_plans] + [self.method_plan]}

    def wrapper_of(self, function):
        """The wrapper made for ``function``, or ``function`` if it is not an op."""
        return self.wrappers.get(id(function), function)

    def _swap_for(self, name, current, original, wrapper):
        """The wrapper to put in place of ``current``: ours, over the original; over another
        swap's wrapper of it (a profile inside vmap, or vmap inside a profile), a wrapper of
        that one, so both see the call; None for a name rebound since."""
        if current is original:
            return wrapper
        if getattr(current, "__wrapped__", None) is original:
            key = id(current)
            if key not in self.stacked:
                self.stacked[key] = (current, _made(self.make_wrapper(name, current)))
            return self.stacked[key][1]
        return None

    def _plan_swap(self, plan, namespace):
        originals, wrappers = self.fast[id(plan)]
        if originals.items() <= namespace.items():      # every op is its original: no loop
            return wrappers, originals
        swap, previous = {}, {}
        for name, (original, wrapper) in plan.items():
            current = namespace.get(name)
            replacement = self._swap_for(name, current, original, wrapper)
            if replacement is not None:
                swap[name], previous[name] = replacement, current
        return swap, previous

    def install(self):
        for namespace, plan in self.namespace_plans:
            swap, previous = self._plan_swap(plan, namespace)
            namespace.update(swap)
            self.swapped.append((namespace, previous))
        methods, previous = self._plan_swap(self.method_plan, self.tensor_dict)
        _profiling.replace_tensor_methods(methods)
        self.swapped.append((None, previous))

    def uninstall(self):
        """Put back what ``install`` replaced (the originals, or another swap's wrappers)."""
        for namespace, previous in self.swapped:
            if namespace is None:
                _profiling.replace_tensor_methods(previous)
            else:
                namespace.update(previous)
        self.swapped = []
