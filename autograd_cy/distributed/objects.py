"""The collectives of picklable Python objects, as torch.distributed's: each object is
pickled into a uint8 tensor, and the tensors go through the tensor collectives (sizes
first, then the bytes padded to the longest)."""
import io
import pickle

import numpy as np

from autograd_cy.distributed import collectives

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object",
           "scatter_object_list"]


def _to_bytes(obj):
    buffer = io.BytesIO()
    pickle.Pickler(buffer).dump(obj)
    return np.frombuffer(buffer.getvalue(), dtype=np.uint8)


def _from_bytes(array, size):
    return pickle.loads(array[:size].tobytes())


def _tensor(array, pg):
    """A tensor of ``array`` where ``pg``'s backend moves data: the host for MPI (whatever
    the default device), the current CUDA device for NCCL."""
    from autograd_cy.factories import tensor
    return tensor(array, device="cuda" if pg.name() == "nccl" else "cpu")


def _host(t):
    return t.cpu().numpy()


def all_gather_object(object_list, obj, group=None):
    """Every rank's ``obj`` into ``object_list`` (of world_size entries), in rank order."""
    pg = collectives._group(group, "all_gather_object")
    if pg is None:
        return
    data = _to_bytes(obj)
    size = _tensor(np.array([data.size], dtype=np.int64), pg)
    sizes = [_tensor(np.zeros(1, dtype=np.int64), pg) for _ in range(pg.size())]
    collectives.all_gather(sizes, size, group=group)
    longest = max(int(s.item()) for s in sizes)
    padded = np.zeros(longest, dtype=np.uint8)
    padded[:data.size] = data
    gathered = [_tensor(np.zeros(longest, dtype=np.uint8), pg) for _ in range(pg.size())]
    collectives.all_gather(gathered, _tensor(padded, pg), group=group)
    for i, (t, s) in enumerate(zip(gathered, sizes)):
        object_list[i] = _from_bytes(_host(t), int(s.item()))


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Every rank's ``obj`` into rank ``dst``'s ``object_gather_list``."""
    pg = collectives._group(group, "gather_object")
    if pg is None:
        return
    root = collectives._group_rank(pg, dst, group_dst, "dst")
    everyone = [None] * pg.size()
    all_gather_object(everyone, obj, group=group)
    if pg.rank() == root:
        if object_gather_list is None:
            raise ValueError("Argument ``object_gather_list`` must be specified on "
                             "destination rank.")
        object_gather_list[:len(everyone)] = everyone
    elif object_gather_list is not None:
        raise ValueError("Argument ``object_gather_list`` must NOT be specified on "
                         "non-destination ranks.")


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Rank ``src``'s ``object_list`` into every rank's ``object_list`` (in place; the
    lists have the same length on every rank)."""
    pg = collectives._group(group, "broadcast_object_list")
    if pg is None:
        return
    root = collectives._group_rank(pg, src, group_src, "src")
    me = pg.rank()
    pieces = [_to_bytes(o) for o in object_list] if me == root else []
    sizes = _tensor(np.array([p.size for p in pieces] if me == root
                             else [0] * len(object_list), dtype=np.int64), pg)
    collectives.broadcast(sizes, group_src=root, group=group)
    counts = [int(v) for v in _host(sizes)]
    data = _tensor(np.concatenate(pieces) if me == root and pieces
                   else np.zeros(sum(counts), dtype=np.uint8), pg)
    collectives.broadcast(data, group_src=root, group=group)
    if me != root:
        flat, offset = _host(data), 0
        for i, count in enumerate(counts):
            object_list[i] = _from_bytes(flat[offset:offset + count], count)
            offset += count


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None,
                        src=None, group=None, group_src=None):
    """Rank ``src``'s ``scatter_object_input_list[r]`` into rank r's
    ``scatter_object_output_list[0]``."""
    pg = collectives._group(group, "scatter_object_list")
    if pg is None:
        return
    root = collectives._group_rank(pg, src, group_src, "src")
    if not isinstance(scatter_object_output_list, list) or not scatter_object_output_list:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size "
                         "at least 1.")
    objects = list(scatter_object_input_list) if pg.rank() == root else [None] * pg.size()
    broadcast_object_list(objects, group_src=root, group=group)
    scatter_object_output_list[0] = objects[pg.rank()]
