"""Activation checkpointing, as ``torch.utils.checkpoint``: trade compute for memory.

``checkpoint(function, *args, use_reentrant=...)`` runs ``function`` without keeping the
tensors its backward formulas need; the backward reruns it to get them back. Only the
inputs of a checkpointed region stay alive between forward and backward.

# NOTE [Two ways to checkpoint]
``use_reentrant=True`` (CheckpointFunction): a custom Function whose forward runs
``function`` under no_grad (records nothing, saves nothing but the inputs) and whose
backward reruns it with grad mode on from detached copies of the inputs and calls
``autograd.backward`` on that fresh graph: a backward inside the backward (reentrant). It
needs a plain ``backward()``: under ``grad()`` or ``inputs=`` the inner backward cannot know
which gradients are wanted, so it refuses (``autograd._is_checkpoint_valid``).

``use_reentrant=False``: ``function`` runs once, recorded as usual, under a pair of
saved_tensors_hooks (autograd/graph.py). The pack hook keeps, instead of each saved tensor,
an empty *holder*; the first unpack in a backward reruns ``function`` under a second pair
of hooks that fills the holders of that backward with the recomputed tensors (detached),
and stops the rerun by an exception as soon as the last holder is filled (early stop).
Each holder gives its tensor out once and forgets it, so recomputed tensors die as the
backward consumes them, even with ``retain_graph=True``; a second backward (another graph
task id) recomputes again. The inputs are kept as SavedTensors made while the enclosing
hooks apply, so a checkpoint inside a checkpoint hands its inputs to its parent, which
recomputes them when needed (nesting works to any depth). The hooks run once per saved
tensor, so they are written in C (pyx/checkpoint_hooks.pyx) and saving calls them without a
Python call (NOTE [Native saved-tensor hooks] in pyx/saved_tensor.pyx); what happens once
per region (recomputing, checking, raising) stays here, in ``_CheckpointFrame``, which
nothing it owns refers back to, so a region's graph dies by reference counting.

# NOTE [Checkpoint RNG state]
A region that draws random numbers (dropout) must draw the same ones when rerun. With
``preserve_rng_state=True`` the CPU generator's state, and that of every CUDA device an
input lives on, is taken before the forward; the recomputation runs from those states and
the states of the surrounding program are restored afterwards, so checkpointing does not
change what later code draws. A forward that drew nothing leaves the states as it found
them (compared after it): its rerun draws nothing either and skips the replay. The CPU
generator's state is taken lazily (with no CUDA input): the region waits on the generator,
which hands it the state just before its next draw or change; a region still waiting when
its forward ends drew nothing, and reading the state was never paid for.
"""
import contextlib
import enum
import traceback
import uuid
import warnings

import numpy as np

import autograd_cy as _ag
from autograd_cy._C import checkpoint_hooks as _hooks
from autograd_cy._C.grad_mode import _is_grad_enabled, _set_grad_enabled
from autograd_cy._C.graph_task import _is_checkpoint_valid
from autograd_cy._C.saved_tensor import (
    SavedTensor, _make_saved_tensor, _pop_saved_tensors_hooks, _push_saved_tensors_hooks,
)
from autograd_cy._C.tensor import Size, Tensor, _wrap_array
from autograd_cy.autograd.function import Function

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "get_device_states",
           "set_device_states", "noop_context_fn", "set_checkpoint_early_stop",
           "DefaultDeviceType", "set_checkpoint_debug_enabled", "CheckpointPolicy",
           "SelectiveCheckpointContext", "create_selective_checkpoint_contexts"]

_DEFAULT_DETERMINISM_MODE = "default"

_checkpoint_debug_enabled = None
_enable_checkpoint_early_stop = None


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Within this context, override every checkpoint's ``debug`` flag (None: leave it)."""
    global _checkpoint_debug_enabled
    previous = _checkpoint_debug_enabled
    _checkpoint_debug_enabled = enabled
    try:
        yield
    finally:
        _checkpoint_debug_enabled = previous


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Within this context, non-reentrant checkpoints made here stop (or do not stop) their
    recomputation as soon as every tensor the backward needs is back. Only the forward needs
    to run inside it."""
    global _enable_checkpoint_early_stop
    previous = _enable_checkpoint_early_stop
    _enable_checkpoint_early_stop = enable
    try:
        yield
    finally:
        _enable_checkpoint_early_stop = previous


class CheckpointError(RuntimeError):
    """Recomputation differed from the original forward (non-reentrant checkpoint)."""


def detach_variable(inputs):
    """Detach each tensor of the tuple ``inputs``, keeping its requires_grad flag."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    detached = []
    for value in inputs:
        if isinstance(value, Tensor):
            copy = value.detach()
            copy.requires_grad = value.requires_grad
            value = copy
        detached.append(value)
    return tuple(detached)


def check_backward_validity(inputs):
    """Warn when no tensor of ``inputs`` requires grad: the checkpoint's result has no
    gradient to give (reentrant checkpoint)."""
    if not any(value.requires_grad for value in inputs if isinstance(value, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)


_NO_CONTEXT = contextlib.nullcontext()     # stateless: one serves every region


def noop_context_fn():
    """The default ``context_fn``: no context around the forward or its recomputation."""
    return _NO_CONTEXT, _NO_CONTEXT


# ------------------------------------------------------------------ RNG state of devices

class DefaultDeviceType:
    """The device type whose RNG state checkpoint keeps when no input is on a device."""

    _default_device_type = "cuda"

    @staticmethod
    def set_device_type(device="cuda"):
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type():
        return DefaultDeviceType._default_device_type


def _tensors_in(args):
    """The tensors of ``args``, looking into lists, tuples and dicts (torch's tree_map)."""
    for value in args:
        if isinstance(value, Tensor):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from _tensors_in(value)
        elif isinstance(value, dict):
            yield from _tensors_in(value.values())


def get_device_states(*args):
    """(device indices, RNG states) of the CUDA devices the tensors of ``args`` live on."""
    indices = []
    for value in _tensors_in(args):
        if value.is_cuda and value.device.index not in indices:
            indices.append(value.device.index)
    return indices, [_ag.cuda.get_rng_state(index) for index in indices]


def set_device_states(devices, states, *, device_type=None):
    """Restore the RNG state of each CUDA device in ``devices`` (see ``get_device_states``)."""
    for index, state in zip(devices, states):
        _ag.cuda.set_rng_state(state, index)


class _RngStates:
    """The RNG states a checkpointed forward started from (NOTE [Checkpoint RNG state])."""

    def __init__(self, args):
        self.devices = get_device_states(*args)[0] if _ag.cuda.is_available() else []
        if self.devices:
            self.states = self._take()
        else:                   # the CPU generator hands its state over at its next draw
            self.states = None
            _ag.default_generator._wait_for_state(self)

    def _take(self):
        """The raw states (CPU generator, then each device's), cheap to take and compare."""
        states = [_ag.default_generator._raw_state()]
        if self.devices:
            states += [_ag.cuda.devices.get(index).rng_state for index in self.devices]
        return states

    def _restore(self, states):
        _ag.default_generator._set_raw_state(states[0])
        for index, state in zip(self.devices, states[1:]):
            _ag.cuda.devices.get(index).rng_state = state

    def drew_nothing(self):
        """Nothing random was drawn since the states were taken: a rerun draws nothing
        either, and needs no replay."""
        if self.devices:
            return self._take() == self.states
        _ag.default_generator._stop_waiting(self)
        return self.states is None

    @contextlib.contextmanager
    def replay(self):
        """Run the body from the saved states; restore the current ones afterwards."""
        current = self._take()
        self._restore(self.states)
        try:
            yield
        finally:
            self._restore(current)


def _replay(rng_states):
    """The context a recomputation runs in: replaying ``rng_states``, if any."""
    return rng_states.replay() if rng_states is not None else _NO_CONTEXT


def _autocast_state():
    """The autocast state of the checkpointed forward (CUDA's and the CPU's), which its
    recomputation runs in, as torch's checkpoint does; None when autocast is off."""
    from autograd_cy.amp import state
    if not state.state.enabled:
        return None
    cache = state.is_autocast_cache_enabled()
    return [(device_type, {"enabled": state.is_autocast_enabled(device_type),
                           "dtype": state.get_autocast_dtype(device_type),
                           "cache_enabled": cache}) for device_type in ("cuda", "cpu")]


def _in_autocast_state(saved):
    """The context that puts ``saved`` (``_autocast_state()``) back for a recomputation."""
    from autograd_cy.amp import autocast, state
    if saved is None and not state.state.enabled:
        return _NO_CONTEXT
    stack = contextlib.ExitStack()
    for device_type, kwargs in saved or [(t, {"enabled": False}) for t in ("cuda", "cpu")]:
        stack.enter_context(autocast(device_type, **kwargs))
    return stack


# ------------------------------------------------------------------ reentrant checkpoint

class CheckpointFunction(Function):
    """``checkpoint(..., use_reentrant=True)`` (NOTE [Two ways to checkpoint])."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng_states = _RngStates(args) if preserve_rng_state else None
        ctx.autocast_state = _autocast_state()
        # Tensors are saved (version-checked); anything else is kept as it is.
        ctx.inputs = [None if isinstance(value, Tensor) else value for value in args]
        ctx.tensor_indices = [i for i, value in enumerate(args) if isinstance(value, Tensor)]
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_indices))
        with _ag.no_grad():
            outputs = run_function(*args)
        if ctx.rng_states is not None and ctx.rng_states.drew_nothing():
            ctx.rng_states = None
        return outputs

    @staticmethod
    def backward(ctx, *grads):
        if not _is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(). To resolve this error, you "
                "can either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        inputs = list(ctx.inputs)
        for index, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[index] = tensor
        with _replay(ctx.rng_states), _in_autocast_state(ctx.autocast_state):
            detached = detach_variable(tuple(inputs))
            with _ag.enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(output, grad) for output, grad in zip(outputs, grads)
                 if isinstance(output, Tensor) and output.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        _ag.autograd.backward([output for output, _ in pairs], [grad for _, grad in pairs])
        return (None, None) + tuple(value.grad if isinstance(value, Tensor) else None
                                    for value in detached)


# -------------------------------------------------------------- non-reentrant checkpoint

_DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint\u2011debug mode globally.
"""


def _as_dict(metadata):
    """Metadata as the determinism check takes it (pyx/checkpoint_hooks.pyx: the array's
    shape, dtype and device), shown as PyTorch shows it."""
    shape, dtype, device = metadata
    return {"shape": Size(shape), "dtype": _wrap_array(np.empty(0, dtype)).dtype,
            "device": _ag.device("cpu" if device == "cpu" else f"cuda:{device.id}")}


_allowed_determinism_checks_to_fns = {
    _DEFAULT_DETERMINISM_MODE: _hooks.metadata,
    "none": None,
}


class _CheckpointFrame:
    """The state of one non-reentrant checkpointed region. Its saved_tensors_hooks
    (pyx/checkpoint_hooks.pyx) fill ``weak_holders`` in the forward and
    call ``recompute`` on the first unpack of each backward."""

    def __init__(self, recompute_fn, early_stop, metadata_fn):
        self.recompute_fn = recompute_fn
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn     # None: determinism_check="none"
        self.debug = False                 # debug=True: errors show the logs below
        self.saved_args = []
        self.weak_holders = []             # one per tensor saved in the forward, in order
        self.recomputed_for = set()        # graph task ids whose backward has recomputed
        self.forward_completed = False
        self.ignore_saved_mismatch = False
        self.forward_log = self.recompute_log = None   # debug=True: _SaveLog each
        self.rng_states = None             # what the recomputation replays, if anything

    def save_inputs(self, *args):
        self.saved_args = [_make_saved_tensor(value) if isinstance(value, Tensor) else value
                           for value in args]

    def get_inputs(self):
        return [value.unpack() if type(value) is SavedTensor else value
                for value in self.saved_args]

    def hooks(self):
        """The (pack, unpack) saved_tensors_hooks of the forward."""
        unpack = _hooks.Unpack(self)
        if self.debug:
            def unpack_with_error_cb(holder):
                try:
                    return unpack(holder)
                except CheckpointError as error:
                    _raise_with_logs(self, error)
            return _hooks.ForwardPack(self), unpack_with_error_cb
        return _hooks.ForwardPack(self), unpack

    def recompute(self, gid):
        """Rerun the forward for the backward ``gid``, filling the holders that are still
        alive; then check it saved what the forward saved (NOTE [Two ways to checkpoint])."""
        args = self.get_inputs()
        if self.recompute_log is not None:
            self.recompute_log.entries = []
        pack = _hooks.RecomputePack(self, gid)
        # saved_tensors_hooks(pack, _identity) and enable_grad(), without their frames.
        _push_saved_tensors_hooks(pack, _identity)
        grad_was_enabled = _is_grad_enabled()
        _set_grad_enabled(True)
        try:
            self.recompute_fn(self.rng_states, *args)
        except _hooks.StopRecomputation:
            pass
        finally:
            _set_grad_enabled(grad_was_enabled)
            _pop_saved_tensors_hooks()
        self.recomputed_for.add(gid)
        if self.ignore_saved_mismatch:
            return
        if len(self.weak_holders) != pack.count:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.weak_holders)}\n"
                f"Number of tensors saved during recomputation: {pack.count}.\n{_DEBUG_TIP}")
        if pack.mismatches:
            described = "".join(
                f"tensor at position {index}:\nsaved metadata: {_as_dict(saved)}\n"
                f"recomputed metadata: {_as_dict(recomputed)}\n"
                for index, saved, recomputed in pack.mismatches)
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{described}.\n{_DEBUG_TIP}")

    def saved_more(self, x):
        """The recomputation saves more tensors than the forward did."""
        if not self.forward_completed:
            # A backward inside the checkpointed forward, without early stop: the rerun goes
            # past what the forward has saved so far.
            self.ignore_saved_mismatch = True
            return x
        raise CheckpointError(
            "torch.utils.checkpoint: trying to save more tensors during recomputation than "
            f"during the original forward pass.\n{_DEBUG_TIP}")

    @staticmethod
    def new_gid():
        """An id for an unpack outside any backward (each such unpack recomputes)."""
        return uuid.uuid4().int

    @staticmethod
    def unpacked_twice():
        raise CheckpointError(
            "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already "
            "unpacked once. If you are calling ctx.saved_tensors in backward, make sure to do "
            "so only once. Otherwise please open an issue with details on your use case.")


def _identity(x):
    return x


# ------------------------------------------------------------------ debug=True

_DEBUG_TEMPLATE = """ \
An error happened while unpacking tensors; dumping logs of latest computation
because you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.

Tensors saved during the original forward, with where each was saved:

{forward_log}
Tensors saved during recomputation, with where each was saved:

{recompute_log}
 ERROR: Detected non-determinism while running activation checkpointing

 You are seeing this error because you passed `debug=True` to checkpoint and
 tensors to be saved during the original forward and differ between those saved
 during recomputation. Compare the two lists above to see where they part.
"""


class _SaveLog:
    """debug=True: the metadata and the stack of each tensor saved, in the forward or in a
    recomputation (an op has no dispatcher log here: what is saved is what the
    determinism check compares)."""

    def __init__(self):
        self.entries = []

    def add(self, tensor):
        stack = [frame for frame in traceback.extract_stack()
                 if not frame.filename.endswith(("checkpoint.py", "graph.py"))]
        where = "".join(f"{frame.filename}:{frame.lineno}:{frame.name}\n"
                        for frame in stack[-3:])
        self.entries.append(f"{_as_dict(_hooks.metadata(tensor))}\n{where}")

    def text(self):
        return "".join(f"({i + 1} of {len(self.entries)}) {entry}\n"
                       for i, entry in enumerate(self.entries))


def _raise_with_logs(frame, error):
    """debug=True: turn ``error`` into a CheckpointError that shows the frame's two logs."""
    raise CheckpointError(_DEBUG_TEMPLATE.format(
        forward_log=frame.forward_log.text(),
        recompute_log=frame.recompute_log.text())) from error


def _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, determinism_check,
                                  debug, early_stop, args, kwargs):
    """Run ``function`` under the checkpoint's saved_tensors_hooks (NOTE [Two ways to
    checkpoint])."""
    if determinism_check not in _allowed_determinism_checks_to_fns:
        raise ValueError("determinism_check should be one of "
                         f"{list(_allowed_determinism_checks_to_fns)}, but got "
                         f"{determinism_check}")
    metadata_fn = _allowed_determinism_checks_to_fns[determinism_check]
    debug = _checkpoint_debug_enabled if _checkpoint_debug_enabled is not None else debug
    if debug and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    forward_context, recompute_context = context_fn()
    rng_states = _RngStates(args) if preserve_rng_state else None
    autocast_state = _autocast_state()

    def recompute_fn(rng_states, *inputs):
        with _replay(rng_states), _in_autocast_state(autocast_state), recompute_context:
            function(*inputs, **kwargs)

    frame = _CheckpointFrame(
        recompute_fn,
        early_stop if _enable_checkpoint_early_stop is None else _enable_checkpoint_early_stop,
        metadata_fn)
    if debug:
        frame.debug = True
        frame.forward_log, frame.recompute_log = _SaveLog(), _SaveLog()
    if not _ag.is_grad_enabled():
        return function(*args, **kwargs)
    frame.save_inputs(*args)
    suppressed = True
    _push_saved_tensors_hooks(*frame.hooks())     # saved_tensors_hooks, without its frames
    try:
        with forward_context:
            result = function(*args, **kwargs)
            suppressed = False
    finally:
        _pop_saved_tensors_hooks()
    if suppressed:
        raise RuntimeError(
            "torch.utils.checkpoint: the forward context provided by context_fn suppressed an "
            "exception raised during the checkpointed forward. This is not supported because "
            "checkpoint cannot return a value for a failed forward.")
    frame.forward_completed = True
    if rng_states is not None and not rng_states.drew_nothing():
        frame.rng_states = rng_states
    return result


# ------------------------------------------------------------------ the public entry points

def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check=_DEFAULT_DETERMINISM_MODE, debug=False, early_stop=True,
               **kwargs):
    """Checkpoint a model or part of the model: run ``function(*args, **kwargs)`` without
    keeping its intermediate activations; its backward recomputes them.

    Only the inputs are kept between forward and backward; the backward reruns
    ``function`` (in full with ``use_reentrant=True``, up to the last tensor needed with
    ``use_reentrant=False``). Pass ``use_reentrant`` explicitly (a warning says so
    otherwise; the default is still True); ``use_reentrant=False`` is recommended: it
    works with ``autograd.grad``, ``backward(inputs=...)``, keyword arguments, inputs that
    do not require grad, and nesting.

    Keyword args:
        preserve_rng_state (bool): replay the RNG state of the forward in the
            recomputation, so that dropout draws the same mask. Default: ``True``.
        use_reentrant (bool): which implementation to use (NOTE [Two ways to checkpoint]).
        context_fn: returns two context managers, for the forward and for the
            recomputation (``use_reentrant=False`` only).
        determinism_check (str): ``"default"`` compares the shape, dtype and device of
            every recomputed tensor with the saved one; ``"none"`` does not.
        debug (bool): on a determinism error, list where every tensor was saved in the
            forward and in the recomputation (``use_reentrant=False`` only).
        early_stop (bool): stop the recomputation once every needed tensor is back
            (``use_reentrant=False``; see ``set_checkpoint_early_stop``).

    >>> import autograd_cy as torch
    >>> from autograd_cy.utils.checkpoint import checkpoint
    >>> x = torch.ones(3, requires_grad=True)
    >>> y = checkpoint(lambda t: (t * 2).sin(), x, use_reentrant=False)
    >>> y.sum().backward()
    >>> bool(torch.allclose(x.grad, 2 * (x * 2).cos()))
    True
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check,
                                         debug, early_stop, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Checkpoint a sequential model: split ``functions`` (a list of callables, or an
    ``nn.Sequential``) into ``segments`` runs of consecutive functions and checkpoint every
    run but the last, so only each segment's input is kept between forward and backward.

    ``input`` is one tensor, as each function takes and returns one.
    ``preserve_rng_state`` (keyword) as in ``checkpoint``.

    >>> import autograd_cy as torch
    >>> from autograd_cy.utils.checkpoint import checkpoint_sequential
    >>> x = torch.ones(3, requires_grad=True)
    >>> layers = [torch.sin, torch.cos, torch.tanh, torch.exp]
    >>> y = checkpoint_sequential(layers, 2, x, use_reentrant=False)
    >>> y.sum().backward()
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should "
            "be passed explicitly. In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is recommended, but if you need to preserve "
            "the current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run_segment(start, end):
        def forward(value):
            for j in range(start, end + 1):
                value = functions[j](value)
            return value
        return forward

    children = getattr(functions, "children", None)
    if children is not None:
        functions = list(children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_segment(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_segment(end + 1, len(functions) - 1)(input)


# ------------------------------------------------------------------ selective checkpointing

class CheckpointPolicy(enum.Enum):
    """Whether selective checkpointing keeps an op's output or recomputes it (names as in
    PyTorch; see ``create_selective_checkpoint_contexts``)."""
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


class SelectiveCheckpointContext:
    """What a selective-checkpoint policy function receives as ``ctx``."""

    def __init__(self, *, is_recompute, op_output=None):
        self.is_recompute = is_recompute
        self.op_output = op_output


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """Selective activation checkpointing: a ``context_fn`` that would keep the outputs of
    chosen ops. PyTorch decides per ATen op through its dispatcher; autograd_cy's ops are
    not dispatched, so there is no op to choose, and this raises NotImplementedError after
    checking its argument as PyTorch does."""
    if not isinstance(policy_fn_or_list, list) and not callable(policy_fn_or_list):
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    raise NotImplementedError(
        "selective activation checkpointing needs PyTorch's op dispatcher; autograd_cy "
        "records ops without one. Checkpoint a smaller region instead.")
