"""The collectives of ``torch.distributed``, on autograd_cy tensors: each checks its
arguments as torch does, stages its tensors for the group's backend, and runs (or, with
``async_op=True``, starts and returns a ``Work``)."""
import warnings

from autograd_cy._C.tensor import Tensor
from autograd_cy.distributed.mpi_backend import Call
from autograd_cy.distributed.process_group import (
    GroupMember, default_group)
from autograd_cy.distributed.reduce_op import ReduceOp, as_red_op_type, supports_complex

__all__ = ["all_reduce", "broadcast", "all_gather", "all_gather_into_tensor", "reduce",
           "reduce_scatter", "reduce_scatter_tensor", "gather", "scatter", "barrier"]


# -- argument checks, as torch words them -------------------------------------------------

def _check_single_tensor(param, param_name):
    if not isinstance(param, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{param_name}` of "
                        f"type torch.Tensor\n             but got {type(param)} instead.")


def _check_tensor_list(param, param_name):
    if not isinstance(param, list):
        raise TypeError(f"Invalid function argument. Expected parameter `{param_name}` of "
                        f"type List[torch.Tensor]\n             but got {type(param)} "
                        "instead.")
    if not all(isinstance(p, Tensor) for p in param):
        raise TypeError(f"Invalid function argument. Expected parameter `{param_name}` of "
                        f"type List[torch.Tensor]\n             but got {type(param)} with "
                        f"elements of type {[type(p) for p in param]}.")


def _group(group, function_name):
    """The process group to run on, or None (with torch's warning) when this rank is not
    in it."""
    if group is GroupMember.NON_GROUP_MEMBER:
        warnings.warn(f"Running {function_name} on global rank {default_group().rank()} "
                      "which does not belong to the given group.", stacklevel=3)
        return None
    return default_group() if group is None or group is GroupMember.WORLD else group


def _group_rank(pg, global_rank, group_rank, name):
    """The group rank of a root given as a global rank (``src``/``dst``) or a group rank
    (``group_src``/``group_dst``), 0 when neither is given."""
    if global_rank is not None and group_rank is not None:
        raise ValueError(f"Can only specify one of {name} or group_{name}")
    if group_rank is None:
        if global_rank is None:
            return 0
        if global_rank not in pg.global_ranks:
            raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
        return pg.global_ranks.index(global_rank)
    if not 0 <= group_rank < pg.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {pg}")
    return group_rank


def _same_as(tensors, reference, function_name, what):
    """torch's checks of a list of outputs (or inputs) against the one tensor."""
    for i, t in enumerate(tensors):
        if t.dtype != reference.dtype:
            raise TypeError(f"{function_name}: invalid tensor type at index {i} of {what} "
                            f"(expected {reference.dtype}, got {t.dtype})")
        if tuple(t.shape) != tuple(reference.shape):
            raise ValueError(f"{function_name}: invalid tensor size at index {i} of {what} "
                             f"(expected {list(reference.shape)}, got {list(t.shape)})")


def _length(tensors, size, function_name, what):
    if len(tensors) != size:
        raise ValueError(f"{function_name}: {what} must have one tensor per rank (the "
                         f"group has {size}), but has {len(tensors)}")


def _finished(work, async_op):
    if async_op:
        return work
    work.wait()
    return None


def _on_device(pg, tensors):
    """torch's error for a tensor on a device the group's backend does not serve."""
    for t in tensors:
        pg.backend.check_device(t)


def _call(name, t, **details):
    """What this rank asks of the collective (for the agreement check), from ``t``."""
    return Call(name, t.dtype.numpy, t.numel(), **details)


def _run(pg, call, start, async_op, outputs):
    """Agree with the other ranks, start, and wait unless ``async_op``. The Work's
    ``result()`` is ``outputs``."""
    backend = pg.backend
    what = backend.start(call)
    work = start(backend, what)
    work._outputs = list(outputs)
    return _finished(work, async_op)


# -- the collectives ----------------------------------------------------------------------

def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` across the group's ranks in place: every rank ends with the sum
    (or the ``op``) of all ranks' values."""
    _check_single_tensor(tensor, "tensor")
    pg = _group(group, "all_reduce")
    if pg is None:
        return None
    op = as_red_op_type(op, "all_reduce")
    if tensor.is_complex() and not supports_complex(op):
        raise ValueError(f"all_reduce does not support {op} on complex tensors")
    _on_device(pg, [tensor])
    target, commit = pg.backend.target(tensor)
    return _run(pg, _call("all_reduce", tensor, op=op),
                lambda b, what: b.allreduce(target, op, what, then=commit), async_op, [tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduce ``tensor`` across the ranks into rank ``dst``'s ``tensor`` (0 by default);
    the others' are left as they were."""
    _check_single_tensor(tensor, "tensor")
    pg = _group(group, "reduce")
    if pg is None:
        return None
    root = _group_rank(pg, dst, group_dst, "dst")
    op = as_red_op_type(op, "reduce")
    if tensor.is_complex() and not supports_complex(op):
        raise ValueError(f"reduce does not support {op} on complex tensors")
    _on_device(pg, [tensor])
    target, commit = pg.backend.target(tensor)
    return _run(pg, _call("reduce", tensor, root=root, op=op),
                lambda b, what: b.reduce(target, root, op, what, then=commit), async_op,
                [tensor])


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copy rank ``src``'s ``tensor`` into every rank's ``tensor``."""
    _check_single_tensor(tensor, "tensor")
    pg = _group(group, "broadcast")
    if pg is None:
        return None
    root = _group_rank(pg, src, group_src, "src")
    _on_device(pg, [tensor])
    target, commit = pg.backend.target(tensor)
    return _run(pg, _call("broadcast", tensor, root=root),
                lambda b, what: b.broadcast(target, root, what, then=commit), async_op,
                [tensor])


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every rank's ``tensor`` into ``tensor_list`` (one tensor per rank, in rank order)."""
    _check_tensor_list(tensor_list, "tensor_list")
    _check_single_tensor(tensor, "tensor")
    pg = _group(group, "all_gather")
    if pg is None:
        return None
    _length(tensor_list, pg.size(), "all_gather", "tensor_list")
    _same_as(tensor_list, tensor, "all_gather", "tensor_list")
    _on_device(pg, tensor_list + [tensor])
    backend = pg.backend
    send = backend.values(tensor)
    receive = backend.empty((pg.size(),) + tuple(send.shape), send.dtype)

    def write_outputs():
        for t, values in zip(tensor_list, receive):
            backend.assign(t, values)
    return _run(pg, _call("all_gather", tensor),
                lambda b, what: b.allgather(send, receive, what, then=write_outputs),
                async_op, tensor_list)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every rank's ``input_tensor``, concatenated (or stacked) in rank order, into
    ``output_tensor`` (``world_size`` times the input's size)."""
    _check_single_tensor(input_tensor, "input_tensor")
    _check_single_tensor(output_tensor, "output_tensor")
    pg = _group(group, "all_gather_into_tensor")
    if pg is None:
        return None
    _sized(output_tensor, input_tensor, pg.size(), "all_gather_into_tensor",
           "output_tensor", "input_tensor")
    _on_device(pg, [output_tensor, input_tensor])
    backend = pg.backend
    send = backend.values(input_tensor)
    receive, commit = backend.target(output_tensor)
    return _run(pg, _call("all_gather_into_tensor", input_tensor),
                lambda b, what: b.allgather(send, receive, what, then=commit), async_op,
                [output_tensor])


def _sized(big, small, size, function_name, big_name, small_name):
    if big.dtype != small.dtype:
        raise TypeError(f"{function_name}: {big_name} and {small_name} must have the same "
                        f"dtype, but got {big.dtype} and {small.dtype}")
    if big.numel() != size * small.numel():
        raise ValueError(f"{function_name}: {big_name} must have world_size ({size}) times "
                         f"the elements of {small_name}, but has {big.numel()} for "
                         f"{small.numel()}")


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input_list`` (one tensor per rank) across the ranks; rank r receives the
    reduction of everyone's ``input_list[r]`` into ``output``."""
    _check_single_tensor(output, "output")
    _check_tensor_list(input_list, "input_list")
    pg = _group(group, "reduce_scatter")
    if pg is None:
        return None
    op = as_red_op_type(op, "reduce_scatter")
    _length(input_list, pg.size(), "reduce_scatter", "input_list")
    _same_as(input_list, output, "reduce_scatter", "input_list")
    if output.is_complex() and not supports_complex(op):
        raise ValueError(f"reduce_scatter does not support {op} on complex tensors")
    _on_device(pg, input_list + [output])
    backend = pg.backend
    send = backend.concatenated([backend.values(t) for t in input_list])
    receive, commit = backend.target(output)
    return _run(pg, _call("reduce_scatter", output, op=op),
                lambda b, what: b.reduce_scatter(send, receive, op, what, then=commit),
                async_op, [output])


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """``reduce_scatter`` with the inputs as one tensor of ``world_size`` blocks."""
    _check_single_tensor(output, "output")
    _check_single_tensor(input, "input")
    pg = _group(group, "reduce_scatter_tensor")
    if pg is None:
        return None
    op = as_red_op_type(op, "reduce_scatter_tensor")
    _sized(input, output, pg.size(), "reduce_scatter_tensor", "input", "output")
    if output.is_complex() and not supports_complex(op):
        raise ValueError(f"reduce_scatter_tensor does not support {op} on complex tensors")
    _on_device(pg, [input, output])
    backend = pg.backend
    send = backend.values(input)
    receive, commit = backend.target(output)
    return _run(pg, _call("reduce_scatter_tensor", output, op=op),
                lambda b, what: b.reduce_scatter(send, receive, op, what, then=commit),
                async_op, [output])


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Every rank's ``tensor`` into rank ``dst``'s ``gather_list`` (given on ``dst``
    only)."""
    _check_single_tensor(tensor, "tensor")
    if gather_list:
        _check_tensor_list(gather_list, "gather_list")
    else:
        gather_list = []
    pg = _group(group, "gather")
    if pg is None:
        return None
    root = _group_rank(pg, dst, group_dst, "dst")
    if pg.rank() == root:
        if not gather_list:
            raise ValueError("Argument ``gather_list`` must be specified on destination "
                             "rank.")
        _length(gather_list, pg.size(), "gather", "gather_list")
        _same_as(gather_list, tensor, "gather", "gather_list")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on "
                         "non-destination ranks.")
    _on_device(pg, gather_list + [tensor])
    backend = pg.backend
    send = backend.values(tensor)
    receive = backend.empty((pg.size(),) + tuple(send.shape), send.dtype) \
        if gather_list else None

    def write_outputs():
        for t, values in zip(gather_list, receive):
            backend.assign(t, values)
    return _run(pg, _call("gather", tensor, root=root), lambda b, what: b.gather(
        send, receive, root, what, then=write_outputs if gather_list else None),
        async_op, gather_list)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False,
            group_src=None):
    """Rank ``src``'s ``scatter_list[r]`` into rank r's ``tensor``."""
    _check_single_tensor(tensor, "tensor")
    if scatter_list:
        _check_tensor_list(scatter_list, "scatter_list")
    else:
        scatter_list = []
    pg = _group(group, "scatter")
    if pg is None:
        return None
    root = _group_rank(pg, src, group_src, "src")
    if pg.rank() == root:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _length(scatter_list, pg.size(), "scatter", "scatter_list")
        _same_as(scatter_list, tensor, "scatter", "scatter_list")
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source "
                         "ranks.")
    _on_device(pg, scatter_list + [tensor])
    backend = pg.backend
    send = backend.concatenated([backend.values(t) for t in scatter_list]) \
        if scatter_list else None
    receive, commit = backend.target(tensor)
    return _run(pg, _call("scatter", tensor, root=root),
                lambda b, what: b.scatter(send, receive, root, what, then=commit), async_op,
                [tensor])


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank of the group has reached the barrier."""
    pg = _group(group, "barrier")
    if pg is None:
        return None
    return _run(pg, Call("barrier"), lambda b, what: b.barrier(what), async_op, [])


