"""``why_alive``: what keeps a tensor or a backward Node (and so its graph) alive, in words.

A graph lives as long as something refers to one of its tensors or nodes. The usual culprits:
a variable in some frame (``loss`` kept from the last step), a custom Function's ctx
attribute (``ctx.kept = big``), a hook whose closure captured a tensor, the ``.grad`` of a
leaf after ``backward(create_graph=True)`` (it has a graph of its own, which refers back to
the leaf). ``why_alive`` finds the chains of references from a root you recognise (a local
variable of a running function, a module's global) down to the object, and says each step:

>>> import autograd_cy as ag
>>> x = ag.tensor([1.0, 2.0], requires_grad=True)
>>> def forward():
...     hidden = x.exp()
...     return hidden * 2
>>> out = forward()
>>> print(ag.autograd.why_alive(out.grad_fn.next_functions[0][0]))   # doctest: +ELLIPSIS
ExpBackward0 is kept alive by:
  global variable 'out' of <doctest ...>, tensor (2,) float32 with grad_fn=MulBackward0
    its grad_fn is MulBackward0
    whose input 0 comes from ExpBackward0

How: ``gc.get_referrers`` walked breadth-first from the object towards the roots, one whole
level at a time (each call scans every object the garbage collector tracks, so the search
does as few as it can), bounded by ``max_depth`` steps. Running functions' local variables
are not visible to the garbage collector; they are read from the frames of every thread.
"""
import gc
import inspect
import os
import sys
import types
import warnings

from autograd_cy._C.accumulate_grad import AccumulateGrad
from autograd_cy._C.node import Node, NodeExtras
from autograd_cy._C.saved_tensor import SavedTensor
from autograd_cy._C.tensor import Tensor
from autograd_cy.autograd.draw_graph import describe_tensor

__all__ = ["why_alive", "AliveReport"]

_THIS_FILE = os.path.normcase(os.path.abspath(__file__))
_MAX_FRONTIER = 10_000
_CONTAINERS = (dict, list, tuple, set, frozenset, types.CellType, types.TracebackType, SavedTensor,
               NodeExtras)


class AliveReport:
    """What ``why_alive`` found: ``chains``, each a list of lines (the root first, then one
    line per step towards the object), as ``str(report)`` prints them. Holds words only, so
    keeping the report keeps nothing alive."""

    def __init__(self, target, chains, dead_ends):
        self.target = target
        self.chains = chains
        self.dead_ends = dead_ends

    def __str__(self):
        if not self.chains and not self.dead_ends:
            return f"{self.target}: nothing the garbage collector sees refers to it"
        lines = [f"{self.target} is kept alive by:"]
        for chain in self.chains:
            lines.append(f"  {chain[0]}")
            lines += [f"    {step}" for step in chain[1:]]
        if self.dead_ends:
            lines.append("  and, reached from no local variable or global (a reference cycle "
                         "or a C extension's own reference), by:")
            lines += [f"    {what}" for what in self.dead_ends]
        return "\n".join(lines)

    __repr__ = __str__


# ------------------------------------------------------------------ what an object is

def describe(obj):
    """A short name for ``obj``: ``tensor (2,) float32 with grad_fn=MulBackward0``."""
    if isinstance(obj, Tensor):
        text = f"tensor {describe_tensor(obj.shape, obj.dtype, obj.device)}"
        grad_fn = obj.grad_fn
        if grad_fn is not None:
            text += f" with grad_fn={grad_fn.name()}"
        elif obj.requires_grad:
            text += " (a leaf)"
        return text
    if isinstance(obj, Node):
        return obj.name()
    if isinstance(obj, types.FunctionType):
        code = obj.__code__
        return f"{obj.__name__}() of {os.path.basename(code.co_filename)}:{code.co_firstlineno}"
    if isinstance(obj, types.MethodType):
        return f"method {obj.__qualname__}()"
    if isinstance(obj, types.FrameType):
        return f"the finished call {_where(obj)} (kept by a traceback)"
    if isinstance(obj, types.ModuleType):
        return f"module {obj.__name__}"
    if isinstance(obj, type):
        return f"class {obj.__qualname__}"
    return f"a {type(obj).__name__}"


def _where(frame):
    code = frame.f_code
    return f"{code.co_name}() at {os.path.basename(code.co_filename)}:{frame.f_lineno}"


def _key_of(container, value):
    """The key (dict) or index (list, tuple) under which ``container`` holds ``value``."""
    if isinstance(container, dict):
        for key, item in container.items():
            if item is value:
                return key
    elif isinstance(container, (list, tuple)):
        for i, item in enumerate(container):
            if item is value:
                return i
    return None


# ------------------------------------------------------------------ the words of one step

def _step(holder, links, held):
    """How ``holder`` refers to ``held`` through the containers ``links``, in words."""
    what = describe(held)
    if isinstance(holder, Tensor):
        return _tensor_step(holder, links, held, what)
    if isinstance(holder, Node):
        return _node_step(holder, links, held, what)
    if isinstance(holder, types.FunctionType) and links:
        if links[0] is holder.__closure__ and len(links) == 2:
            name = holder.__code__.co_freevars[holder.__closure__.index(links[1])]
            return f"whose closure variable '{name}' is {what}"
        if links[0] is holder.__defaults__:
            return f"whose default argument is {what}"
    if isinstance(holder, BaseException) and links and links[0] is holder.__traceback__:
        return f"whose traceback holds {what}"
    if isinstance(holder, types.FrameType):
        return f"whose local variable '{_key_of(holder.f_locals, held)}' is {what}"
    if links and links[0] is getattr(holder, "__dict__", None):
        return f"whose attribute '{_key_of(links[0], _first(links[1:], held))}' is {what}"
    return f"which holds{_path(holder, links, held)} {what}"


def _first(links, held):
    return links[0] if links else held


def _path(holder, links, held):
    """`` [0]['key']`` and the like: the containers between ``holder`` and ``held``."""
    steps, chain = [], [holder, *links, held]
    for container, item in zip(chain, chain[1:]):
        if isinstance(container, types.CellType):
            steps.append(".cell_contents")
        elif isinstance(container, (dict, list, tuple)):
            steps.append(f"[{_key_of(container, item)!r}]")
    return (" " + "".join(steps)) if steps else ""


def _tensor_step(tensor, links, held, what):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # .grad of a non-leaf warns
        grad = tensor.grad
    if not links:
        if held is tensor.grad_fn:
            return f"its grad_fn is {what}"
        if held is grad:
            if isinstance(held, Tensor) and held.grad_fn is not None:
                return (f"its .grad is {what}: a gradient with a graph of its own "
                        "(backward with create_graph=True), which refers back to the leaf")
            return f"its .grad is {what}"
        if held is tensor._base:
            return f"it is a view of {what}"
    if links and links[0] is tensor.__dict__:
        return f"whose attribute '{_key_of(links[0], _first(links[1:], held))}' is {what}"
    if isinstance(held, types.FunctionType) and links and isinstance(links[0], dict):
        return f"which has the hook {what}"
    return f"which holds{_path(tensor, links, held)} {what}"


def _node_step(node, links, held, what):
    state = node._inspect()
    if not links:
        if isinstance(node, AccumulateGrad) and held is node.variable:
            return f"which accumulates into the leaf {what}"
    elif len(links) == 1 and isinstance(links[0], tuple) and held in _children(node):
        return f"whose input {_key_of(links[0], held)} comes from {what}"
    elif isinstance(links[-1], SavedTensor):
        if links[0] is state["saved"]:
            index = _key_of(links[0], links[-1])
            names = getattr(type(node), "saved_names", ())
            name = names[index] if index < len(names) else str(index)
            return f"which saved '{name}' for backward: {what}"
        if hasattr(type(node), "_forward_cls"):
            return (f"which saved tensor {_key_of(links[0], links[-1])} "
                    f"(ctx.save_for_backward) for backward: {what}")
    elif links[0] is getattr(node, "__dict__", None):
        key = _key_of(links[0], _first(links[1:], held))
        kind = "ctx attribute" if hasattr(type(node), "_forward_cls") else "attribute"
        return f"whose {kind} '{key}' is {what}"
    elif isinstance(links[0], NodeExtras) and callable(held):
        return f"which has {_hook_kind(state, links)} {what}"
    return f"which holds{_path(node, links, held)} {what}"


def _children(node):
    return [child for child, _ in node.next_functions if child is not None]


def _hook_kind(state, links):
    table = links[1] if len(links) > 1 else None
    if table is state["pre_hooks"]:
        return "the pre-hook"
    if table is state["post_hooks"]:
        return "the post-hook"
    if table is state["tensor_pre_hooks"] and len(links) > 2:
        return f"the tensor hook (on its output {_key_of(table, links[2])})"
    return "the hook"


# ------------------------------------------------------------------ the roots

# NOTE [Reading running frames' locals]
# The garbage collector does not see the local variables of running functions, so the search
# reads them from every thread's frames (``frame.f_locals``). Before Python 3.13 that call
# copies the locals into a dict kept on the frame until it returns; left there, the copy
# would keep alive the very objects asked about, even after ``del``. So the copies made here
# are emptied again (only those of functions' frames: a module's or class body's f_locals is
# its real namespace). From 3.13 on, f_locals is a view that copies nothing and must not be
# emptied (it writes through).

def _frame_roots():
    """``id(value) -> [description]`` for every local variable of every running function
    (those of this module excepted), and ``id(namespace) -> description pattern`` for the
    namespaces of running module-level code (a script, a doctest, ``exec``) and of every
    module."""
    roots, namespaces = {}, {}
    for frame in list(sys._current_frames().values()):
        while frame is not None:
            code = frame.f_code
            if not code.co_flags & inspect.CO_OPTIMIZED:
                # Module-level code: its variables live in a dict the collector sees.
                namespaces[id(frame.f_locals)] = (
                    f"global variable '{{}}' of {os.path.basename(code.co_filename)}")
            elif not _is_own_frame(frame):
                local_values = frame.f_locals
                for name, value in local_values.items():
                    roots.setdefault(id(value), []).append(
                        f"local variable '{name}' in {_where(frame)}")
                if sys.version_info < (3, 13) and type(local_values) is dict:
                    local_values.clear()            # NOTE [Reading running frames' locals]
                del local_values
            frame = frame.f_back
    for name, module in list(sys.modules.items()):
        if module is not None:
            namespaces[id(vars(module))] = f"global variable '{{}}' of module {name}"
    return roots, namespaces


# ------------------------------------------------------------------ the search

def why_alive(obj, *, max_depth=30, max_chains=5):
    """Explain what keeps ``obj`` (a Tensor, a Node, or anything else) alive: the chains of
    references from a local variable of a running function or a module's global down to it,
    the shortest first (at most ``max_chains``, of at most ``max_depth`` steps). Returns an
    :class:`AliveReport`; print it.

    >>> import autograd_cy as ag
    >>> x = ag.tensor([1.0], requires_grad=True)
    >>> def step():
    ...     y = x * 3
    ...     return str(ag.autograd.why_alive(y.grad_fn))
    >>> print(step())                                         # doctest: +ELLIPSIS
    MulBackward0 is kept alive by:
      local variable 'y' in step() at <doctest ...>:3, tensor (1,) float32 with grad_fn=...
        its grad_fn is MulBackward0
    """
    roots, namespaces = _frame_roots()
    target = describe(obj)
    objects = {id(obj): obj}          # every object reached, by id
    toward = {id(obj): None}          # id -> id of the object it refers to, towards obj
    found, dead_ends = [], []
    frontier = [obj]
    # The search's own containers refer to what it looks at: never take them for referrers.
    search_state = {id(objects), id(toward), id(found), id(dead_ends), id(roots), id(namespaces)}
    for depth in range(max_depth + 1):
        for item in frontier:
            for root in roots.get(id(item), ()):
                found.append((root, id(item)))
        if len(found) >= max_chains or depth == max_depth or not frontier:
            break
        args = tuple(frontier)
        by_id = {id(item): item for item in args}
        referrers = gc.get_referrers(*args)
        own = search_state | {id(args), id(by_id), id(frontier), id(referrers)}
        next_frontier = []
        own.add(id(next_frontier))
        for referrer in referrers:
            if id(referrer) in own or id(referrer) in objects or (
                    isinstance(referrer, types.FrameType) and _is_own_frame(referrer)):
                continue
            held = _held_by(referrer, by_id)
            if held is None:
                continue
            objects[id(referrer)] = referrer
            toward[id(referrer)] = id(held)
            if id(referrer) in namespaces:
                found.append((namespaces[id(referrer)].format(_key_of(referrer, held)),
                              id(held)))
            elif not isinstance(referrer, (type, types.ModuleType)):
                next_frontier.append(referrer)
        del next_frontier[_MAX_FRONTIER:]       # a bound on each level's scan
        del referrers, args, by_id
        frontier = next_frontier
    chains = [_words(root, start, objects, toward) for root, start in found[:max_chains]]
    if not found:
        # Reached from no root: list the objects found on the way that are not containers.
        dead_ends = [describe(item) for item in objects.values()
                     if item is not obj and not isinstance(item, _CONTAINERS)][:max_chains]
    report = AliveReport(target, chains, dead_ends)
    objects.clear()
    return report


def _is_own_frame(frame):
    return os.path.normcase(os.path.abspath(frame.f_code.co_filename)) == _THIS_FILE


def _held_by(referrer, candidates):
    """Which of ``candidates`` (by id) ``referrer`` refers to directly."""
    for referent in gc.get_referents(referrer):
        if id(referent) in candidates:
            return referent
    return None


def _words(root, start, objects, toward):
    """The chain from the root's value (``start``) down to the object, as lines."""
    chain = []
    current = start
    while current is not None:
        chain.append(objects[current])
        current = toward[current]
    lines = [root]
    holder, links = chain[0], []
    if len(chain) > 1 and not isinstance(holder, _CONTAINERS):
        lines[0] += f", {describe(holder)}"
    for item in chain[1:]:
        if isinstance(item, _CONTAINERS) and item is not chain[-1]:
            links.append(item)
            continue
        lines.append(_step(holder, links, item))
        holder, links = item, []
    return lines
