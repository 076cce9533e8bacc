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

import autograd_cy.autograd as autograd
from autograd_cy import factories
from autograd_cy._C.tensor import Tensor
from autograd_cy.op_swap import OpSwap, op_functions
from autograd_cy.func.batched_tensor import (
    BatchedTensor, batched, is_batched, materialized, active_levels,
)
from autograd_cy.func import autograd_function
from autograd_cy.func.batched_autograd import batched_grad
from autograd_cy.func.batching_rules import RULES
from autograd_cy.func.fallback import dispatched_call, has_batched

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


# ------------------------------------------------------------------ randomness

RANDOMNESS_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap")


def _random_factory(name, function):
    """rand, randn, randint: 'different' gives each element its own numbers (a batch dim
    per active level), 'same' one draw for all."""
    @functools.wraps(function)
    def dispatched(*args, **kwargs):
        levels = active_levels()
        mode = _randomness()
        if mode == "error":
            raise RuntimeError(RANDOMNESS_ERROR)
        if mode == "same":
            return function(*args, **kwargs)
        batch = tuple(level.size for level in levels)
        numbers = tuple(level.number for level in levels)
        if name == "randint":
            *bounds, size = args
            return batched(function(*bounds, batch + tuple(size), **kwargs), numbers)
        size = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        return batched(function(batch + tuple(size), **kwargs), numbers)
    return dispatched


def _random_like(name, function):
    """rand_like, randn_like, dropout: 'same' draws for one element's shape and lets it
    broadcast; 'different' draws for every element of every active level."""
    @functools.wraps(function)
    def dispatched(*args, **kwargs):
        if name == "dropout" and (not _get_training(args, kwargs) or _get_p(args, kwargs) == 0):
            return dispatched_call(name, function, args, kwargs)
        mode = _randomness()
        if mode == "error":
            raise RuntimeError(RANDOMNESS_ERROR)
        x = args[0]
        if not is_batched(x) and mode == "same":
            return function(*args, **kwargs)
        levels = tuple(level.number for level in active_levels())
        if mode == "same":
            if name == "dropout":
                mask = function(x._physical.new_ones(tuple(x.shape)), *args[1:], **kwargs)
                return RULES["mul"](operator.mul, (x, mask), {})
            return function(x._physical.new_empty(tuple(x.shape)), *args[1:], **kwargs)
        physical = materialized(x, levels)
        return batched(function(physical, *args[1:], **kwargs), levels)
    return dispatched


def _get_training(args, kwargs):
    return args[2] if len(args) > 2 else kwargs.get("training", True)


def _get_p(args, kwargs):
    return args[1] if len(args) > 1 else kwargs.get("p", 0.5)


def _randomness():
    levels = active_levels()
    return levels[-1].randomness if levels else "same"


_RANDOM_FACTORIES = ("rand", "randn", "randint")
_RANDOM_LIKE = ("rand_like", "randn_like", "dropout")
_LIKE = ("zeros_like", "ones_like", "empty_like", "full_like")


def _like_factory(function):
    """zeros_like, ones_like, empty_like, full_like of a batched tensor: one per example,
    batched as it is (as torch's rules)."""
    @functools.wraps(function)
    def dispatched(input, *args, **kwargs):
        if not is_batched(input):
            return function(input, *args, **kwargs)
        return batched(function(input._physical, *args, **kwargs), input._levels)
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


def _make_swap():
    functions = op_functions()
    extras = {name: getattr(factories, name) for name in _RANDOM_FACTORIES + _RANDOM_LIKE
              + _LIKE if hasattr(factories, name)}
    functions.update({id(f): f for f in extras.values()})
    functions[id(autograd.grad)] = autograd.grad
    functions[id(autograd.backward)] = autograd.backward

    def make_wrapper(name, function):
        if name in _RANDOM_FACTORIES:
            return _random_factory(name, function)
        if name in _RANDOM_LIKE:
            return _random_like(name, function)
        if name in _LIKE:
            return _like_factory(function)
        if function is autograd.grad:
            return _grad_inside_vmap(function)
        if function is autograd.backward:
            return _backward_inside_vmap(function)
        return _dispatching(name, function)
    return OpSwap(make_wrapper, functions, private=True, extra_namespaces=(autograd,))


def dispatching_version(function):
    """The dispatcher of ``function`` when it is an op (``vmap(ag.dot)`` names the original,
    looked up before the swap), else ``function``."""
    global _swap
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
