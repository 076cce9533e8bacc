"""Random ops inside vmap: its ``randomness`` flag, as torch's.

NOTE [Random ops under vmap]
Inside ``vmap(f, randomness=...)`` every random op (a factory such as ``randn``, a ``_like``
op, an op that samples from tensors such as ``bernoulli`` or ``multinomial``, an in-place
sampler such as ``uniform_``, the dropouts) obeys the innermost vmap's mode, whether or not
its inputs are batched:

- ``"error"`` (the default): it raises;
- ``"same"``: one draw, of one example's shape, shared by every example. An out-of-place op
  given a batched tensor raises (torch has no such rule); an in-place op on a batched tensor
  draws one example's numbers and writes them into every row;
- ``"different"``: each example draws its own. The op runs once on the whole batch (its
  tensor inputs expanded to every active level), so it consumes the generator as one call on
  the batched shape does, and ``manual_seed`` reproduces it outside vmap. An in-place op on
  a tensor vmap does not batch raises (its numbers could not differ).

The dropouts are random only when training with ``p > 0``. Under ``"same"`` a dropout of a
batched input is ``a * x + b`` with ``b`` the op on zeros and ``a + b`` the op on ones, one
draw (the generator reset between the two calls): every dropout is elementwise affine given
its mask. Under ``"different"`` the feature dropouts fold the batch dims into their N dim,
so that each example gets its own channel mask. ``rrelu`` and the ``out=`` forms are
refused, as in torch.
"""
import functools
import math
import warnings

from autograd_cy._C.tensor import Tensor
from autograd_cy.func.batched_tensor import (
    INPLACE_ERROR, active_levels, aligned, batched, is_batched, levels_of, logical_ndim,
    materialized,
)

__all__ = ["random_wrapper", "RANDOM_KINDS", "RANDOMNESS_ERROR"]

RANDOMNESS_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap")
SAME_BATCHED = ("Vmap does not currently support same randomness with a batched tensor "
                "input. Please file an issue with functorch")
DIFFERENT_INPLACE = (
    "vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will "
    "appear like same randomness. If this is necessary for your usage, please file an issue "
    "with functorch.")
OUT_VARIANT = ("vmap: We do not support calling out variants of random operations inside of "
               "vmap. Please use non-out variants as a workaround")

#: op name -> how vmap batches it (see the NOTE)
RANDOM_KINDS = {
    "rand": "factory", "randn": "factory", "randint": "factory", "randperm": "randperm",
    "rand_like": "like", "randn_like": "like", "randint_like": "like",
    "bernoulli": "sample", "poisson": "sample", "binomial": "sample", "normal": "sample",
    "multinomial": "multinomial",
    "bernoulli_": "inplace", "normal_": "inplace", "random_": "inplace", "cauchy_": "inplace",
    "exponential_": "inplace", "geometric_": "inplace", "log_normal_": "inplace",
    "uniform_": "inplace",
    "dropout": "dropout", "alpha_dropout": "dropout", "feature_alpha_dropout": "dropout",
    "dropout1d": "dropout", "dropout2d": "dropout", "dropout3d": "dropout",
    "rrelu": "unsupported", "rrelu_": "unsupported",
}

# training's default and, for a feature dropout, the logical ndim of its batched form
# (N, C, *spatial): a smaller input is one sample (C, *spatial). dropout2d reads a 3-D
# input as (N, C, L), as torch's does.
_DROPOUT = {"dropout": (True, None), "alpha_dropout": (False, None),
            "feature_alpha_dropout": (False, 2), "dropout1d": (True, 3),
            "dropout2d": (True, 3), "dropout3d": (True, 5)}


def _mode():
    levels = active_levels()
    return levels[-1].randomness if levels else "same"


def _tensors(args, kwargs):
    return [v for v in list(args) + list(kwargs.values()) if isinstance(v, Tensor)]


def _all_levels():
    return tuple(level.number for level in active_levels())


def _batch_shape():
    return tuple(level.size for level in active_levels())


def random_wrapper(name, function, dispatched_call):
    """``function`` as vmap swaps it in (NOTE [Random ops under vmap]); ``dispatched_call``
    runs an op through its rule (a dropout that is not random)."""
    kind = RANDOM_KINDS[name]
    run = _KINDS[kind]

    @functools.wraps(function)
    def dispatched(*args, **kwargs):
        if _running:            # a random op's own use of another (normal's normal_)
            return function(*args, **kwargs)
        if kwargs.get("out") is not None:
            raise RuntimeError(OUT_VARIANT)
        if kind == "unsupported":
            raise RuntimeError(f"vmap: we do not yet support aten::{name.rstrip('_')}. "
                               "Please file an issue")
        if kind == "dropout" and not _dropout_is_random(name, args, kwargs):
            return dispatched_call(name, function, args, kwargs)
        mode = _mode()
        if mode == "error":
            raise RuntimeError(RANDOMNESS_ERROR)
        _running.append(name)
        try:
            return run(name, function, mode, args, kwargs)
        finally:
            _running.pop()
    return dispatched


_running = []    # the random op being batched, while it runs


# ------------------------------------------------------------------ each kind

def _with_batch_size(args, kwargs, position):
    """``args``/``kwargs`` with the batch shape in front of the size at ``position`` (or
    given as ``size=``, or as the trailing ints of ``args`` when ``position`` is 0)."""
    batch = _batch_shape()
    if "size" in kwargs:
        return args, dict(kwargs, size=batch + tuple(kwargs["size"]))
    if position == 0 and not (len(args) == 1 and isinstance(args[0], (tuple, list))):
        return (batch + tuple(args),), kwargs
    size = args[position]
    return args[:position] + (batch + tuple(size),) + tuple(args[position + 1:]), kwargs


def _factory(name, function, mode, args, kwargs):
    """rand, randn, randint: 'different' draws with the batch dims in front."""
    if mode == "same":
        return function(*args, **kwargs)
    position = len(args) - 1 if name == "randint" else 0
    args, kwargs = _with_batch_size(args, kwargs, position)
    return batched(function(*args, **kwargs), _all_levels())


def _randperm(name, function, mode, args, kwargs):
    """randperm has no batch size: 'different' draws one permutation per example."""
    if mode == "same":
        return function(*args, **kwargs)
    from autograd_cy._C.ops.split_cat import stack
    batch = _batch_shape()
    rows = [function(*args, **kwargs) for _ in range(math.prod(batch))]
    result = stack(rows, 0).reshape(batch + tuple(rows[0].shape))
    return batched(result, _all_levels())


def _like(name, function, mode, args, kwargs):
    """rand_like, randn_like, randint_like: 'same' draws one example's shape (which
    broadcasts over the batch); 'different' draws for every example of every level."""
    x = args[0]
    if mode == "same":
        if not is_batched(x):
            return function(*args, **kwargs)
        return function(x._physical.new_empty(tuple(x.shape)), *args[1:], **kwargs)
    levels = _all_levels()
    return batched(function(materialized(x, levels), *args[1:], **kwargs), levels)


def _sample(name, function, mode, args, kwargs):
    """bernoulli, poisson, binomial, normal: samples with parameters from tensors (normal
    of two numbers and a size is a factory)."""
    tensors = _tensors(args, kwargs)
    if not tensors:        # normal(mean, std, size)
        if mode == "same":
            return function(*args, **kwargs)
        args, kwargs = _with_batch_size(args, kwargs, 2)
        return batched(function(*args, **kwargs), _all_levels())
    if mode == "same":
        if any(is_batched(t) for t in tensors):
            raise RuntimeError(SAME_BATCHED)
        return function(*args, **kwargs)
    levels = _all_levels()
    expand = _expander(levels, max(logical_ndim(t) for t in tensors))
    result = function(*[expand(a) for a in args], **{k: expand(v) for k, v in kwargs.items()})
    return batched(result, levels)


def _expander(levels, ndim):
    """A tensor argument with every level of ``levels`` as a full-size leading dim, its
    logical dims padded on the left to ``ndim``; other arguments as they are."""
    def expand(value):
        if not isinstance(value, Tensor):
            return value
        physical = materialized(value, levels)
        own = logical_ndim(value)
        if own < ndim:
            shape = tuple(physical.shape)
            k = len(levels)
            physical = physical.reshape(shape[:k] + (1,) * (ndim - own) + shape[k:])
        return physical
    return expand


def _multinomial(name, function, mode, args, kwargs):
    """multinomial takes at most 2-D input: 'different' folds the batch dims into rows."""
    x = args[0]
    if mode == "same":
        if is_batched(x):
            raise RuntimeError(SAME_BATCHED)
        return function(*args, **kwargs)
    levels = _all_levels()
    physical = materialized(x, levels)
    shape = tuple(physical.shape)
    rows = function(physical.reshape(-1, shape[-1]), *args[1:], **kwargs)
    return batched(rows.reshape(shape[:-1] + (rows.shape[-1],)), levels)


def _inplace(name, function, mode, args, kwargs):
    """uniform_, normal_, bernoulli_ ...: the draw goes into the tensor itself."""
    self, others = args[0], _tensors(args[1:], kwargs)
    if mode == "same" and any(is_batched(t) for t in others):
        raise RuntimeError(SAME_BATCHED)
    own = levels_of(self)
    if any(not set(levels_of(t)) <= set(own) for t in others):    # torch names the op
        raise RuntimeError(INPLACE_ERROR.replace("arithmetic", name.rstrip("_")))
    if not own:
        if mode == "different":
            raise RuntimeError(DIFFERENT_INPLACE)
        return function(*args, **kwargs)
    physical = self._physical
    if mode == "same":
        one = physical.new_empty(tuple(self.shape))
        function(one, *args[1:], **kwargs)
        physical.copy_(one.expand(tuple(physical.shape)))
        return self
    ndim = logical_ndim(self)

    def align(value):
        return aligned(value, own, ndim) if isinstance(value, Tensor) else value
    function(physical, *[align(a) for a in args[1:]], **{k: align(v) for k, v in kwargs.items()})
    return self


def _dropout_is_random(name, args, kwargs):
    training_default, _ = _DROPOUT[name]
    p = args[1] if len(args) > 1 else kwargs.get("p", 0.5)
    training = args[2] if len(args) > 2 else kwargs.get("training", training_default)
    return bool(training) and p != 0


def _dropout(name, function, mode, args, kwargs):
    x = args[0]
    if mode == "same":
        if not is_batched(x):
            return function(*args, **kwargs)
        return _same_dropout(function, x, args, kwargs)
    levels = _all_levels()
    physical = materialized(x, levels)
    _, feature_ndim = _DROPOUT[name]
    if feature_ndim is None:       # elementwise: the batch is more elements
        return batched(function(physical, *args[1:], **kwargs), levels)
    shape = tuple(physical.shape)
    logical = shape[len(levels):]
    if len(logical) >= feature_ndim or name == "feature_alpha_dropout":
        folded = physical.reshape((-1,) + logical[1:])     # batch dims into N
    else:
        folded = physical.reshape((-1,) + logical)         # one sample each: the batch is N
    return batched(function(folded, *args[1:], **kwargs).reshape(shape), levels)


def _same_dropout(function, x, args, kwargs):
    """One dropout draw for every example: ``a * x + b`` (NOTE [Random ops under vmap])."""
    from autograd_cy.factories import get_rng_state, set_rng_state
    shape = tuple(x.shape)
    physical = x._physical
    state = get_rng_state()
    b = function(physical.new_zeros(shape), *args[1:], **kwargs)
    set_rng_state(state)
    with warnings.catch_warnings():       # the op's own warnings were given once
        warnings.simplefilter("ignore")
        a = function(physical.new_ones(shape), *args[1:], **kwargs) - b
    return batched(physical * a + b, x._levels)    # a, b broadcast over the batch dims


_KINDS = {"factory": _factory, "randperm": _randperm, "like": _like, "sample": _sample,
          "multinomial": _multinomial, "inplace": _inplace, "dropout": _dropout,
          "unsupported": None}
