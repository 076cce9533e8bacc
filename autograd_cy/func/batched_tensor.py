"""The batched tensor of vmap: one physical tensor, read as a batch of logical ones.

NOTE [The batched tensor]
Inside ``vmap(f)(x)``, ``f`` sees a tensor of one example's shape, and every op it runs acts
on the whole batch at once. A BatchedTensor holds:

- ``_physical``: an ordinary Tensor holding every example. Its leading dims are the batch
  dims, one per vmap level that the value varies over, outermost level first (nested vmaps
  give a tensor several); after them come the logical dims, the shape ``f`` sees;
- ``_levels``: the vmap level of each leading dim, ascending.

The batch dims are kept in front (``vmap`` moves an ``in_dims`` dim there when it wraps an
input), so a batching rule never searches for them: a logical dim ``d >= 0`` is physical
dim ``d + len(levels)``; a negative dim counts from the right and is the same in both; and
the physical tensors of two operands line up once the one with fewer levels or fewer logical
dims gets size-1 dims (``aligned``).

A BatchedTensor is a Tensor (``isinstance`` holds, as in torch), but the array it holds as a
Tensor is a stand-in (``LogicalStandIn``) with the logical shape and dtype and no values:
``shape``, ``dim()``, ``dtype``, ``size()``, ``numel()`` read it as they read any array, and
anything that reads values from it (an op that was not sent to a batching rule, such as
``plain[i] = batched``, or a batched tensor kept after its vmap returned) raises instead of
computing with wrong numbers. Its autograd state (requires_grad, grad_fn) is its physical
tensor's: the graph is recorded on the physical tensors, where each example's row is
independent of the others'.
"""
import math

from autograd_cy._C.tensor import Tensor, _array_of, _hold_array

__all__ = ["BatchedTensor", "LogicalStandIn", "INPLACE_ERROR", "batched", "is_batched",
           "levels_of", "physical_of", "logical_ndim", "union_levels", "aligned",
           "materialized", "restand", "wrap_result", "level_size", "active_levels",
           "push_level", "pop_level"]

# torch's words for an in-place write of a vmapped value into a tensor vmap does not batch
# (batching_rules.py's in-place rules raise it).
INPLACE_ERROR = (
    "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a "
    "Tensor `other` in extra_args that has more elements than `self`. This happened due to "
    "`other` being vmapped over but `self` not being vmapped over in a vmap. Please try to "
    "use out-of-place operators instead of inplace arithmetic. If said operator is being "
    "called inside the PyTorch framework, please file a bug report instead.")

# What reading a stand-in's values raises. The usual way to get there is that in-place case
# (`plain += batched`, `plain[i] = batched`: Tensor's own operators, which vmap does not
# swap, read the batched value), so the message is torch's for it.
VALUES_READ = INPLACE_ERROR + (
    " (autograd_cy: an operation read the values of a BatchedTensor directly; a batched "
    "tensor used after the vmap call that made it returned does too.)")


class LogicalStandIn:
    """What a BatchedTensor holds as its array: the logical shape and dtype, no values."""
    __slots__ = ("shape", "dtype", "ndim", "size", "itemsize")

    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype
        self.ndim = len(shape)
        self.size = math.prod(shape)
        self.itemsize = dtype.itemsize

    def _refuse(self, *args, **kwargs):
        raise RuntimeError(VALUES_READ)

    __array__ = __array_ufunc__ = __array_function__ = __getitem__ = __setitem__ = _refuse
    astype = reshape = copy = view = item = _refuse


# ------------------------------------------------------------------ the vmap levels

class Level:
    """One active vmap call: its level number, batch size and randomness mode."""
    __slots__ = ("number", "size", "randomness")

    def __init__(self, number, size, randomness):
        self.number, self.size, self.randomness = number, size, randomness


_active = []     # the active vmap levels, outermost first; level n is _active[n - 1]


def active_levels():
    return _active


def push_level(size, randomness):
    level = Level(len(_active) + 1, size, randomness)
    _active.append(level)
    return level


def pop_level():
    _active.pop()


def level_size(number):
    return _active[number - 1].size


# ------------------------------------------------------------------ the tensor

def _of_physical(name):
    """A read-only attribute that is the physical tensor's."""
    return property(lambda self: getattr(self._physical, name),
                    doc=f"The physical tensor's ``{name}``.")


class BatchedTensor(Tensor):
    """A tensor vmap batches over (NOTE [The batched tensor]); ``f`` sees its logical shape.

    Its operators and the ops it is given go to batching rules (autograd_cy/func/
    dispatch.py adds the operators to this class)."""

    def __repr__(self):
        # torch nests one BatchedTensor per level, the outer levels inside
        inner = repr(batched(self._physical, self._levels[:-1]))
        inner = "\n".join("    " + line if line else line for line in inner.split("\n"))
        return f"BatchedTensor(lvl={self._levels[-1]}, bdim=0, value=\n{inner}\n)"

    # autograd state: the physical tensor's
    @property
    def requires_grad(self):
        return self._physical.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._physical.requires_grad = value

    def requires_grad_(self, requires_grad=True):
        # torch refuses it inside a transform: requires_grad_ on a batched tensor, only
        # there, always is (autograd.functional's inside a transform too, functional.py)
        from autograd_cy.autograd.functional import _INSIDE_TRANSFORM
        raise RuntimeError(_INSIDE_TRANSFORM)

    is_leaf = _of_physical("is_leaf")
    grad_fn = _of_physical("grad_fn")
    _version = _of_physical("_version")
    output_nr = _of_physical("output_nr")
    device = _of_physical("device")
    is_cuda = _of_physical("is_cuda")

    @property
    def grad(self):
        grad = self._physical.grad
        return None if grad is None else batched(grad, self._levels)

    @property
    def data(self):
        return batched(self._physical.data, self._levels)

    def stride(self, dim=None):
        strides = self._physical.stride()[len(self._levels):]
        return strides if dim is None else strides[dim]

    def is_contiguous(self, memory_format=None):
        if memory_format is not None and str(memory_format).rsplit(".", 1)[-1] != \
                "contiguous_format":
            raise RuntimeError("NYI: querying is_contiguous inside of vmap for memory_format "
                               "other than torch.contiguous_format")
        return self._physical[(0,) * len(self._levels)].is_contiguous()

    def detach(self):
        return batched(self._physical.detach(), self._levels)

    def detach_(self):
        self._physical.detach_()
        return self

    def retain_grad(self):
        self._physical.retain_grad()

    def backward(self, *args, **kwargs):
        raise RuntimeError(
            "backward() called inside a functorch transform. This is not supported, please "
            "use functorch.grad or functorch.vjp instead or call backward() outside of "
            "functorch transforms.")

    def register_hook(self, hook):
        levels = self._levels
        return self._physical.register_hook(
            lambda grad: _physical_or_none(hook(batched(grad, levels))))

    # reading a value: data-dependent, which vmap cannot batch
    def item(self):
        raise RuntimeError(
            "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap "
            "over calling .item() on a Tensor, please try to rewrite what you're doing with "
            "other operations. If error is occurring somewhere inside PyTorch internals, "
            "please file a bug report.")

    def _data_dependent(self, *args):
        raise RuntimeError(
            "vmap: It looks like you're attempting to use a Tensor in some data-dependent "
            "control flow. We don't support that yet, please file an issue at "
            "https://github.com/pytorch/pytorch/issues .")

    __bool__ = __float__ = __int__ = __complex__ = __index__ = _data_dependent
    is_nonzero = tolist = numpy = data_ptr = _data_dependent

    # factories of the same dtype and device: batched over this tensor's levels (one new
    # tensor per example, as torch's rules make them, so an in-place copy of a batched value
    # into one works); new_tensor copies its data and is an ordinary tensor, as torch's
    def _new_batched(self, method, size, *args, **kwargs):
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            size = size[0]
        physical = self._physical
        batch = tuple(physical.shape)[:len(self._levels)]
        return batched(getattr(physical, method)(batch + tuple(size), *args, **kwargs),
                       self._levels)

    def new_zeros(self, *size, **kwargs):
        return self._new_batched("new_zeros", kwargs.pop("size", size), **kwargs)

    def new_ones(self, *size, **kwargs):
        return self._new_batched("new_ones", kwargs.pop("size", size), **kwargs)

    def new_empty(self, *size, **kwargs):
        return self._new_batched("new_empty", kwargs.pop("size", size), **kwargs)

    def new_full(self, size, fill_value, **kwargs):
        return self._new_batched("new_full", (size,), fill_value, **kwargs)

    def new_tensor(self, *args, **kwargs):
        return self._physical.new_tensor(*args, **kwargs)


def restand(t):
    """A new stand-in for ``t`` after an in-place op changed its physical tensor's shape."""
    shape = tuple(t._physical.shape)[len(t._levels):]
    _hold_array(t, LogicalStandIn(shape, _array_of(t._physical).dtype))


def _physical_or_none(value):
    return value._physical if isinstance(value, BatchedTensor) else value


def batched(physical, levels):
    """A BatchedTensor over ``physical``, whose leading dims are the batch dims of
    ``levels`` (ascending); ``physical`` itself when ``levels`` is empty."""
    if not levels:
        return physical
    t = BatchedTensor.__new__(BatchedTensor)
    shape = tuple(physical.shape)
    _hold_array(t, LogicalStandIn(shape[len(levels):], _array_of(physical).dtype))
    t._physical = physical
    t._levels = levels
    return t


# ------------------------------------------------------------------ reading and lining up

def is_batched(value):
    return type(value) is BatchedTensor


def levels_of(value):
    return value._levels if type(value) is BatchedTensor else ()


def physical_of(value):
    return value._physical if type(value) is BatchedTensor else value


def logical_ndim(value):
    if type(value) is BatchedTensor:
        return value._physical.dim() - len(value._levels)
    return value.dim()


def union_levels(values):
    """The levels any of ``values`` is batched over, ascending."""
    levels = set()
    for value in values:
        if type(value) is BatchedTensor:
            levels.update(value._levels)
    return tuple(sorted(levels))


def aligned(value, levels, ndim):
    """The physical tensor of ``value`` laid out for broadcasting with others batched over
    ``levels``: one leading dim per level (size 1 where ``value`` does not vary over it),
    then its logical dims padded on the left with size-1 dims to ``ndim``. A tensor that is
    not batched broadcasts from the right as it is, and is returned unchanged."""
    if type(value) is not BatchedTensor:
        return value
    physical = value._physical
    own = value._levels
    logical = tuple(physical.shape)[len(own):]
    if own == levels and len(logical) == ndim:
        return physical
    sizes = iter(tuple(physical.shape)[:len(own)])
    batch = tuple(next(sizes) if level in own else 1 for level in levels)
    return physical.reshape(batch + (1,) * (ndim - len(logical)) + logical)


def materialized(value, levels):
    """The physical tensor of ``value`` with one full-size leading dim per level of
    ``levels`` (expanded where ``value`` does not vary over a level): for ops that need
    every operand to carry the batch (cat, gather, the inputs of a gradient)."""
    own = levels_of(value)
    physical = physical_of(value)
    if own == levels:
        return physical
    logical = tuple(physical.shape)[len(own):]
    sizes = iter(tuple(physical.shape)[:len(own)])
    batch = tuple(next(sizes) if level in own else 1 for level in levels)
    full = tuple(level_size(level) for level in levels)
    return physical.reshape(batch + logical).expand(full + logical)


def wrap_result(result, levels):
    """An op's physical result (a tensor, or a tuple, list or named tuple of them) as
    BatchedTensors over ``levels``; anything else as it is."""
    if isinstance(result, Tensor):
        return batched(result, levels)
    if isinstance(result, tuple):
        items = [wrap_result(item, levels) for item in result]
        return type(result)(*items) if hasattr(result, "_fields") else tuple(items)
    if isinstance(result, list):
        return [wrap_result(item, levels) for item in result]
    return result
