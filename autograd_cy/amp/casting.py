"""The ops autocast casts the inputs of, swapped in while some thread has autocast on.

NOTE [How autocast reaches the ops]
torch casts in its dispatcher (the Autocast key). Our ops are called directly, so autocast
swaps them as the profiler and vmap do (autograd_cy/op_swap.py): while any thread has
autocast enabled, each op of a list (policies.py) is a wrapper, in ``autograd_cy``,
``nn.functional``, ``linalg``, ``fft`` and Tensor's methods; ``@`` and ``**`` are wrapped in
Tensor's operator table (NOTE [Autocast's operators]). Between regions every op is exactly
the function it was. A wrapper reads its thread's state: with autocast off for the device
type of its first tensor argument, or inside another autocast op (torch runs an op's own
insides below the Autocast key), it calls the op as is; otherwise it casts the eligible
inputs (floating, on the device, not float64) by its policy, recording ``ToCopyBackward0`` so
that gradients reach the parameters in their own dtype, and runs the op. An op on no list
is not wrapped at all: it runs in its inputs' dtype, and a Python op built of listed ones
(``multi_head_attention_forward`` of ``linear``s) reaches their wrappers through the
namespaces. As with the profiler, a function looked up before the region (``f = ag.mm``)
is the original and does not cast. The swaps stack when nested (a profile or a vmap inside
a region, or a region inside them); a profile started inside a region and stopped after it
ends would put the wrappers back (they then only cost a state read per op).

NOTE [The cast cache]
With ``cache_enabled`` (the default), a float32 leaf that requires grad (a parameter) and is
not a view is cast to the autocast dtype once per thread and region: later ops reuse the
same cast tensor (so its ``ToCopyBackward0`` node is shared, as torch's is), and the outermost
autocast's exit forgets them (``clear_autocast_cache``).
"""
import functools

from autograd_cy import dtypes as _dtypes
from autograd_cy._C import profiling as _profiling
from autograd_cy._C.tensor import Tensor
from autograd_cy.amp.policies import BANNED_MESSAGE, POLICIES
from autograd_cy.amp.state import state
from autograd_cy.op_swap import unswapped

__all__ = ["install", "uninstall", "cast_inputs"]


def _namespaces():
    import autograd_cy
    import autograd_cy.nn.functional as functional
    return {"torch": autograd_cy, "F": functional, "linalg": autograd_cy.linalg,
            "fft": autograd_cy.fft}


def _policies_by_function():
    """``{id(function): (function, {device type: policy})}`` for every listed op."""
    found = {}
    namespaces = _namespaces()
    for device_type, lists in POLICIES.items():
        for policy, names_by_namespace in lists:
            for key, names in names_by_namespace.items():
                for name in names:
                    function = unswapped(getattr(namespaces[key], name, None))
                    if callable(function) and not isinstance(function, type):
                        entry = found.setdefault(id(function), (function, {}))
                        entry[1][device_type] = policy
    return found


def _device_type(args, kwargs):
    """The device type of the first tensor among the arguments (lists included), or None."""
    for value in args if not kwargs else args + tuple(kwargs.values()):
        if isinstance(value, Tensor):
            return value.device.type
        if isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, Tensor):
                    return item.device.type
    return None


def _eligible(value, device_type):
    return (isinstance(value, Tensor) and value.is_floating_point()
            and value.dtype != _dtypes.float64 and value.device.type == device_type)


def _cast(value, dtype, device_type):
    """``value`` in ``dtype`` when it is an eligible tensor (lists: each item), else as is."""
    if isinstance(value, Tensor):
        if value.dtype == dtype or not _eligible(value, device_type):
            return value
        if (state.cache_enabled and value.dtype == _dtypes.float32 and value.is_leaf
                and value.requires_grad and value._base is None
                and dtype == state.dtypes[device_type]):
            hit = state.cache.get(id(value))
            if hit is not None and hit[0] is value:
                return hit[1]
            cast = value.to(dtype)
            state.cache[id(value)] = (value, cast)
            return cast
        return value.to(dtype)
    if isinstance(value, (list, tuple)) and any(isinstance(item, Tensor) for item in value):
        return type(value)(_cast(item, dtype, device_type) for item in value)
    return value


def _widest(args, kwargs, device_type):
    """The promote policy's dtype: float32 if any eligible input is, else the autocast
    dtype (float64 inputs are not counted; another lower precision first refused, as
    torch's ``prioritize``)."""
    widest = state.dtypes[device_type]
    for value in args + tuple(kwargs.values()):
        items = value if isinstance(value, (list, tuple)) else (value,)
        for item in items:
            if not _eligible(item, device_type) or widest == _dtypes.float32:
                continue
            if item.dtype == _dtypes.float32:
                widest = _dtypes.float32
            elif item.dtype != widest:
                raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return widest


def _has_dtype(args, kwargs):
    return kwargs.get("dtype") is not None or any(isinstance(a, _dtypes.dtype) for a in args)


def cast_inputs(policy, device_type, args, kwargs):
    """``(args, kwargs)`` as the op of ``policy`` runs them on ``device_type``."""
    if policy == "lower":
        dtype = state.dtypes[device_type]
    elif policy == "fp32":
        dtype = _dtypes.float32
    elif policy == "promote":
        dtype = _widest(args, kwargs, device_type)
    elif policy == "fp32_opt_dtype":
        if args and _eligible(args[0], device_type) and not _has_dtype(args, kwargs):
            kwargs = dict(kwargs, dtype=_dtypes.float32)
        return args, kwargs
    else:
        raise RuntimeError(BANNED_MESSAGE)
    return (tuple(_cast(a, dtype, device_type) for a in args),
            {k: _cast(v, dtype, device_type) for k, v in kwargs.items()})


def _pad_policy(args, kwargs):
    """F.pad is on the CPU's float32 list in its reflection (1d, 2d) and replication modes."""
    mode = args[2] if len(args) > 2 else kwargs.get("mode", "constant")
    pad = args[1] if len(args) > 1 else kwargs.get("pad", ())
    return "fp32" if mode == "replicate" or (mode == "reflect" and len(pad) <= 4) else None


def _interpolate_policy(args, kwargs):
    """CUDA's upsample kernels are on its float32 list; ``area`` is adaptive pooling."""
    mode = args[3] if len(args) > 3 else kwargs.get("mode", "nearest")
    return "native" if mode == "area" else "fp32"


def _local_response_norm_policy(args, kwargs):
    """torch's local_response_norm averages a 4-d or larger input with avg_pool3d, which is
    on the CPU's float32 list."""
    return "fp32" if args[0].dim() > 3 else None


def _inner_policy(args, kwargs):
    """torch's inner of vectors (or with a scalar) is a dot or a product, on no list; of
    matrices, a matmul."""
    a, b = (list(args) + list(kwargs.values()))[:2]
    return "native" if min(a.dim(), b.dim()) == 0 or max(a.dim(), b.dim()) == 1 else None


def _tensordot_policy(args, kwargs):
    """torch's tensordot contracting every dimension is a dot, on no list."""
    a, b = args[:2]
    dims = args[2] if len(args) > 2 else kwargs.get("dims", 2)
    count = dims if isinstance(dims, int) else len(dims[0]) if len(dims) else 0
    return "native" if count == a.dim() == b.dim() else None


# ops whose policy depends on their arguments: {name: {device type: policy(args, kwargs)}}
_BY_ARGUMENTS = {"pad": {"cpu": _pad_policy},
                 "local_response_norm": {"cpu": _local_response_norm_policy},
                 "inner": {"cpu": _inner_policy, "cuda": _inner_policy},
                 "tensordot": {"cpu": _tensordot_policy},
                 "interpolate": {"cuda": _interpolate_policy},
                 "upsample": {"cuda": _interpolate_policy}}


def _autocast_op(function, policies):
    @functools.wraps(function)
    def autocast_op(*args, **kwargs):
        if state.inside or not state.enabled or "out" in kwargs:   # out=: not autocast
            return function(*args, **kwargs)
        device_type = _device_type(args, kwargs)
        policy = policies.get(device_type)
        if callable(policy):
            policy = policy(args, kwargs)
        if policy is None or device_type not in state.enabled:
            return function(*args, **kwargs)
        if policy != "native":
            args, kwargs = cast_inputs(policy, device_type, args, kwargs)
        state.inside = True
        try:
            return function(*args, **kwargs)
        finally:
            state.inside = False
    return autocast_op


_OPERATOR_POLICIES = {}


def _cast_operands(name, a, b):
    """The operands of ``a @ b`` / ``a ** b`` under autocast (NOTE [Autocast's operators])."""
    if state.inside or not state.enabled:
        return a, b
    device_type = _device_type((a, b), {})
    policy = _OPERATOR_POLICIES[name].get(device_type)
    if policy is None or device_type not in state.enabled:
        return a, b
    return cast_inputs(policy, device_type, (a, b), {})[0]


def _recurrent(kind_of, policies, at):
    """A recurrent module's run (``RNNBase._run`` or ``RNNCellBase._step``, its input the
    argument ``at``, its states the last) under autocast: torch's fused kernels are listed
    whole (mkldnn_rnn on the CPU, cuDNN's and the cells on CUDA), so their input and states
    are cast to the autocast dtype first ("lower"); an unlisted native one (the CPU's GRU
    and LSTM/GRU cells) runs in its inputs' dtype, its inner products not cast ("native");
    others reach ``linear``'s wrapper ("composite")."""
    def wrap(run):
        @functools.wraps(run)
        def autocast_run(module, *args):
            device_type = args[at].device.type
            if state.inside or device_type not in state.enabled:
                return run(module, *args)
            policy = policies[device_type].get(kind_of(module), "composite")
            if policy == "composite":
                return run(module, *args)
            if policy == "lower":
                dtype = state.dtypes[device_type]
                args = list(args)
                args[at] = _cast(args[at], dtype, device_type)
                args[-1] = _cast(tuple(args[-1]), dtype, device_type)
                return run(module, *args)
            state.inside = True
            try:
                return run(module, *args)
            finally:
                state.inside = False
        return autocast_run
    return wrap


_RNN_POLICIES = {"cpu": {"LSTM": "lower", "RNN_TANH": "lower", "RNN_RELU": "lower",
                         "GRU": "native"},
                 "cuda": {"LSTM": "lower", "RNN_TANH": "lower", "RNN_RELU": "lower",
                          "GRU": "lower"}}
_CELL_POLICIES = {"cpu": {"LSTMCell": "native", "GRUCell": "native"},
                  "cuda": {"LSTMCell": "lower", "GRUCell": "lower", "RNNCell": "lower"}}


def _recurrent_swaps():
    """``[(class, name, original, wrapper)]`` for the recurrent modules' runs."""
    from autograd_cy.nn.modules.rnn import RNNBase, RNNCellBase
    run, step = vars(RNNBase)["_run"], vars(RNNCellBase)["_step"]
    return [(RNNBase, "_run", run,
             _recurrent(lambda module: module.mode, _RNN_POLICIES, 0)(run)),
            (RNNCellBase, "_step", step,
             _recurrent(lambda module: type(module).__name__, _CELL_POLICIES, 1)(step))]


_swap = None
_recurrent_swap = None


def _make_swap():
    from autograd_cy.op_swap import OpSwap
    import autograd_cy
    listed = _policies_by_function()
    for name in ("matmul", "pow"):
        _OPERATOR_POLICIES[name] = listed.get(id(unswapped(getattr(autograd_cy, name))),
                                              (None, {}))[1]

    def make_wrapper(name, function):        # function: an op, or another swap's wrapper
        base = unswapped(function)
        policies = listed[id(base)][1] if id(base) in listed else {}
        policies = dict(policies, **_BY_ARGUMENTS.get(name, {}))
        return _autocast_op(function, policies)
    functions = {key: function for key, (function, _) in listed.items()}
    import autograd_cy.nn.functional as functional
    for name in _BY_ARGUMENTS:
        for namespace in (autograd_cy, functional):
            function = unswapped(getattr(namespace, name, None))
            if callable(function):
                functions[id(function)] = function
    namespaces = _namespaces()
    return OpSwap(make_wrapper, functions,
                  extra_namespaces=(namespaces["linalg"], namespaces["fft"]))


def install():
    """The listed ops become their autocast wrappers (the first thread to enable autocast)."""
    global _swap, _recurrent_swap
    if _swap is None:
        _swap, _recurrent_swap = _make_swap(), _recurrent_swaps()
    _swap.install()
    for owner, name, _, wrapper in _recurrent_swap:
        setattr(owner, name, wrapper)
    _profiling.set_autocast_operators(_cast_operands)


def uninstall():
    """Every op is its original again (the last thread to disable autocast)."""
    _profiling.set_autocast_operators(None)
    _swap.uninstall()
    for owner, name, original, _ in _recurrent_swap:
        setattr(owner, name, original)
