"""How an op call inside vmap reaches its batching rule.

NOTE [How vmap reaches the ops]
torch sends every op through its dispatcher, where a batched tensor's key selects the
batching rule. Our ops are Cython functions called directly, and testing a flag in each
would cost every op outside vmap. So vmap *swaps* the ops while any vmap is active, as the
profiler does (autograd_cy/op_swap.py): each Tensor method and each function of
``autograd_cy`` and ``autograd_cy.nn.functional`` becomes ``dispatched``, which calls the
original when no argument is batched (one scan of the arguments) and otherwise the op's rule
(batching_rules.py), or, for an op without one, the per-element fallback. The operators of a
BatchedTensor (``x + 1``, ``x[i]``) are methods of its class, defined here; ``plain + x``
reaches them too, as Python asks a subclass's reflected operator first.

The swap is installed by the outermost vmap and removed when it returns: between vmaps every
op is exactly the function it was. What it costs: an op called inside vmap on unbatched
tensors pays the scan; a function looked up before the vmap started (``f = ag.exp``) is the
original, and given a batched tensor it raises (its values are a stand-in, NOTE [The batched
tensor]), except the function vmap itself is given (``vmap(ag.dot)``), which vmap swaps.
"""
import functools
import operator
import warnings

import autograd_cy.autograd as autograd
from autograd_cy import factories
from autograd_cy._C.tensor import Tensor
from autograd_cy.op_swap import OpSwap, op_functions
from autograd_cy.func.batched_tensor import (
    BatchedTensor, batched,
)
from autograd_cy.func import autograd_function
from autograd_cy.func.batched_autograd import batched_grad
from autograd_cy.func.batching_rules import RULES
from autograd_cy.func.fallback import dispatched_call, fallback, has_batched
from autograd_cy.func.randomness import RANDOM_KINDS, random_wrapper

__all__ = ["dispatching_version", "enter_vmap", "exit_vmap"]


def _dispatching(name, function):
    """``function`` as vmap swaps it in: the original at the cost of one scan when no
    argument is batched, its rule (or the fallback) otherwise."""
    @functools.wraps(function)
    def dispatched(*args, **kwargs):
        if not has_batched(args, kwargs):
            return function(*args, **kwargs)
        return dispatched_call(name, function, args, kwargs)
    return dispatched


# ------------------------------------------------------------------ autograd inside vmap

def _grad_inside_vmap(function):
    """``autograd.grad`` called inside vmap (vmap of grad: jacrev, per-example gradients
    of an ordinary backward, is_grads_batched)."""
    @functools.wraps(function)
    def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
             only_inputs=True, allow_unused=None, is_grads_batched=False,
             materialize_grads=False):
        outputs_seq = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
        inputs_seq = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
        if grad_outputs is None:
            grads_seq = (None,) * len(outputs_seq)
        elif isinstance(grad_outputs, Tensor):
            grads_seq = (grad_outputs,)
        else:
            grads_seq = tuple(grad_outputs)
        if not (has_batched(outputs_seq, {}) or has_batched(inputs_seq, {})
                or has_batched(grads_seq, {})) or is_grads_batched:
            return function(outputs, inputs, grad_outputs, retain_graph, create_graph,
                            only_inputs, allow_unused, is_grads_batched, materialize_grads)
        return batched_grad(function, outputs_seq, inputs_seq, grads_seq,
                            retain_graph=retain_graph, create_graph=create_graph,
                            allow_unused=allow_unused, materialize_grads=materialize_grads)
    return grad


def _backward_inside_vmap(function):
    @functools.wraps(function)
    def backward(tensors, *args, **kwargs):
        if has_batched((tensors,) if isinstance(tensors, Tensor) else tuple(tensors), {}):
            BatchedTensor.backward(None)
        return function(tensors, *args, **kwargs)
    return backward


# ------------------------------------------------------------------ the swap

_swap = None
_depth = 0


_LIKE_FACTORIES = ("zeros_like", "ones_like", "empty_like", "full_like")

# ------------------------------------------------------------------ composite ops

# torch's namespaces of Python ops over the core here (the op modules' functions have rules
# or the fallback), and the top-level names of theirs and of the linalg modules (inverse,
# det, cholesky ...). Each swapped name costs every outermost vmap call a little, so the
# top level's other Python ops, which mostly compose ops that have rules, are not swapped.
_COMPOSITE_NAMESPACES = ("linalg", "special", "fft")
_COMPOSITE_MODULES = ("autograd_cy.linalg", "autograd_cy.special", "autograd_cy.fft",
                      # and the top level's that read values (found by test_vmap.py's
                      # OpInfo sweep): fmod, signbit, bucketize, take, put, index_reduce
                      "autograd_cy.remainders", "autograd_cy.signs", "autograd_cy.binning",
                      "autograd_cy.index_writes", "autograd_cy.indexed_writes",
                      "autograd_cy.function_forms")
_COMPOSITE_NAMES = ("linspace", "logspace")     # of tensors start and end

# what an op reading a batched tensor's values raises (NOTE [The batched tensor])
_READS_VALUES = ("an operation read the values of a BatchedTensor", "LogicalStandIn",
                 "data-dependent control flow", "calling .item() on a Tensor",
                 "_data_dependent")


def _composite_functions(known):
    """``{id: (name, function)}``: the ops of linalg, special and fft that are not op
    functions (``known``) already, and their top-level names."""
    import importlib
    import types
    import autograd_cy
    found = {}
    for space in _COMPOSITE_NAMESPACES:
        module = importlib.import_module(f"autograd_cy.{space}")
        for name, value in vars(module).items():
            if (not name.startswith("_") and callable(value) and id(value) not in known
                    and not isinstance(value, (type, types.ModuleType))
                    and (getattr(value, "__module__", None) or "").startswith("autograd_cy")):
                found[id(value)] = (f"{space}.{name}", value)
    for name, value in vars(autograd_cy).items():
        if (not name.startswith("_") and callable(value) and id(value) not in known
                and not isinstance(value, (type, types.ModuleType))
                and ((getattr(value, "__module__", None) or "").startswith(_COMPOSITE_MODULES)
                     or name in _COMPOSITE_NAMES)):
            found.setdefault(id(value), (name, value))
    return found


def _composite(name, function):
    """A Python op over the core: it runs as it is, its inner ops batched through their
    rules; if it reads a batched tensor's values (a check of a pivot, an ``item()``), it
    runs once per example instead (the fallback), as torch's vmap falls back for an op
    without a rule. These ops do not write to their inputs, so the second run is safe."""
    @functools.wraps(function)
    def dispatched(*args, **kwargs):
        if not has_batched(args, kwargs):
            return function(*args, **kwargs)
        try:
            with warnings.catch_warnings(record=True) as given:    # once, from one of the runs
                warnings.simplefilter("always")
                result = function(*args, **kwargs)
        except (RuntimeError, TypeError, AttributeError) as error:
            if not any(words in str(error) for words in _READS_VALUES):
                raise
            return fallback(name, function, args, kwargs)
        for w in given:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return result
    return dispatched


def _random_functions():
    """The random ops by identity (NOTE [Random ops under vmap]): the functions of
    ``autograd_cy`` and ``nn.functional`` and the Tensor methods of those names."""
    import autograd_cy
    import autograd_cy.nn.functional as functional
    found = {}
    for namespace in (vars(autograd_cy), vars(functional), vars(Tensor), vars(factories)):
        for name in RANDOM_KINDS:
            value = namespace.get(name)
            if callable(value) and not isinstance(value, type):
                found[id(value)] = value
    return found


def _make_swap():
    import autograd_cy.linalg
    import autograd_cy.special
    import autograd_cy.fft
    functions = op_functions()
    functions.update(_random_functions())
    for name in _LIKE_FACTORIES:      # zeros_like(x): batched as x (RULES)
        functions[id(getattr(factories, name))] = getattr(factories, name)
    composite = _composite_functions(functions)
    functions.update({identity: function for identity, (_, function) in composite.items()})
    from autograd_cy.unfold import unfold as tensor_unfold     # a view, with its own rule
    functions[id(tensor_unfold)] = tensor_unfold
    functions[id(autograd.grad)] = autograd.grad
    functions[id(autograd.backward)] = autograd.backward

    def make_wrapper(name, function):
        if name in RANDOM_KINDS:
            return random_wrapper(name, function, dispatched_call)
        if id(function) in composite:
            return _composite(composite[id(function)][0], function)
        if function is tensor_unfold:       # nn.functional.unfold (im2col) has the name
            return _dispatching("Tensor.unfold", function)
        if function is autograd.grad:
            return _grad_inside_vmap(function)
        if function is autograd.backward:
            return _backward_inside_vmap(function)
        return _dispatching(name, function)
    return OpSwap(make_wrapper, functions, private=True, extra_namespaces=(
        autograd, autograd_cy.linalg, autograd_cy.special, autograd_cy.fft))


def dispatching_version(function):
    """The dispatcher of ``function`` when it is an op (``vmap(ag.dot)`` names the original,
    looked up before the swap), else ``function``."""
    global _swap
    if type(function) is functools.partial:     # vmap(functools.partial(ag.mul, x))
        return functools.partial(dispatching_version(function.func), *function.args,
                                 **function.keywords)
    owner = getattr(function, "__self__", None)
    if isinstance(owner, type) and getattr(function, "__func__", None) is getattr(
            autograd_function.Function.apply, "__func__", None):    # SomeFunction.apply
        return functools.partial(autograd_function.transformed_apply, owner)
    if _swap is None:
        _swap = _make_swap()
    return _swap.wrapper_of(function)


def enter_vmap():
    """The ops become batching dispatchers (the outermost vmap installs them)."""
    global _swap, _depth
    if _depth == 0:
        if _swap is None:
            _swap = _make_swap()
        _swap.install()
        _install_subclass_operators()
    _depth += 1
    autograd_function.enter_transform()


def exit_vmap():
    global _depth
    autograd_function.exit_transform()
    _depth -= 1
    if _depth == 0:
        _swap.uninstall()
        _uninstall_subclass_operators()


# ------------------------------------------------------------------ the operators

def _operator(name, function, reflected=False):
    def method(self, other):
        args = (other, self) if reflected else (self, other)
        return dispatched_call(name, function, args, {})
    method.__name__ = f"__{'r' if reflected else ''}{name}__"
    return method


def _install_operators():
    ops = [("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
           ("truediv", operator.truediv), ("floordiv", operator.floordiv),
           ("pow", operator.pow), ("matmul", operator.matmul), ("and", operator.and_),
           ("or", operator.or_), ("xor", operator.xor)]
    rule_names = {"truediv": "div", "floordiv": "floor_divide", "and": "bitwise_and",
                  "or": "bitwise_or", "xor": "bitwise_xor"}
    for short, function in ops:
        name = rule_names.get(short, short)
        setattr(BatchedTensor, f"__{short}__", _operator(name, function))
        setattr(BatchedTensor, f"__r{short}__", _operator(name, function, reflected=True))
        inplace = getattr(operator, f"i{short}")
        setattr(BatchedTensor, f"__i{short}__", _operator(name + "_", inplace))
    for short in ("eq", "ne", "lt", "le", "gt", "ge"):
        setattr(BatchedTensor, f"__{short}__", _operator(short, getattr(operator, short)))
    BatchedTensor.__hash__ = Tensor.__hash__
    BatchedTensor.__neg__ = lambda self: dispatched_call("neg", operator.neg, (self,), {})
    BatchedTensor.__abs__ = lambda self: dispatched_call("abs", operator.abs, (self,), {})
    BatchedTensor.__invert__ = lambda self: dispatched_call(
        "bitwise_not", operator.invert, (self,), {})
    BatchedTensor.__getitem__ = lambda self, index: dispatched_call(
        "getitem", operator.getitem, (self, index), {})
    BatchedTensor.__setitem__ = lambda self, index, value: dispatched_call(
        "setitem", operator.setitem, (self, index, value), {})
    BatchedTensor.T = property(lambda self: RULES["T"](None, (self,), {}))
    BatchedTensor.mT = property(lambda self: RULES["mT"](None, (self,), {}))
    BatchedTensor.real = property(lambda self: batched(self._physical.real, self._levels))
    BatchedTensor.imag = property(lambda self: batched(self._physical.imag, self._levels))


_install_operators()


# NOTE [A Tensor subclass on the left of a batched tensor]
# ``plain - batched`` reaches BatchedTensor.__rsub__ because Python asks a subclass's
# reflected operator first; ``parameter - batched`` does not (BatchedTensor is no subclass
# of Parameter), and Tensor's operator would read the batched tensor's values (MAML's
# ``params[k] - alpha * grads[k]`` inside vmap). So while a vmap runs, Parameter and Buffer
# get operators that hand a batched right operand to its reflected operator.
_ARITHMETIC = ("add", "sub", "mul", "truediv", "floordiv", "pow", "matmul")


def _subclass_operator(short):
    forward = getattr(Tensor, f"__{short}__")
    reflected = f"__r{short}__"

    def method(self, other):
        if type(other) is BatchedTensor:
            return getattr(BatchedTensor, reflected)(other, self)
        return forward(self, other)
    method.__name__ = f"__{short}__"
    return method


_SUBCLASS_OPERATORS = {f"__{short}__": _subclass_operator(short) for short in _ARITHMETIC}


def _subclasses():
    from autograd_cy.nn.parameter import Parameter, Buffer
    return (Parameter, Buffer)


def _install_subclass_operators():
    for cls in _subclasses():
        for name, method in _SUBCLASS_OPERATORS.items():
            setattr(cls, name, method)


def _uninstall_subclass_operators():
    for cls in _subclasses():
        for name in _SUBCLASS_OPERATORS:
            delattr(cls, name)
