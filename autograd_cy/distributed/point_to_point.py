"""Point-to-point communication, as torch.distributed's: ``send``/``recv`` and their
asynchronous forms ``isend``/``irecv`` (a ``Work``), between two ranks of a group, matched by
``tag``. No agreement check: only the two ranks take part, and a ``recv`` may accept any
sender."""
from autograd_cy.distributed.collectives import (
    _check_single_tensor, _group, _group_rank, _on_device)

__all__ = ["send", "recv", "isend", "irecv"]


def _peer(pg, global_rank, group_rank, name):
    rank = _group_rank(pg, global_rank, group_rank, name)
    if pg.rank() == rank:
        raise ValueError(f"Invalid {name} rank: {name} rank should not be the same as the "
                         "rank of the current process.")
    return rank


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Start sending ``tensor`` to rank ``dst``; a Work (do not modify ``tensor`` until it
    completes)."""
    _check_single_tensor(tensor, "tensor")
    pg = _group(group, "isend")
    if pg is None:
        return None
    peer = _peer(pg, dst, group_dst, "dst")
    _on_device(pg, [tensor])
    backend = pg.backend
    return backend.send(backend.values(tensor), peer, tag, f"send to rank {peer}")


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Start receiving into ``tensor`` from rank ``src`` (any rank when None); a Work."""
    _check_single_tensor(tensor, "tensor")
    pg = _group(group, "irecv")
    if pg is None:
        return None
    peer = None if src is None and group_src is None else _peer(pg, src, group_src, "src")
    _on_device(pg, [tensor])
    backend = pg.backend
    target, commit = backend.target(tensor)
    work = backend.recv(target, peer, tag, "recv from "
                        + ("any rank" if peer is None else f"rank {peer}"), then=commit)
    work._outputs = [tensor]
    work._group = pg
    return work


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to rank ``dst``, and wait until it has gone."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from rank ``src`` (any rank when None); returns the sender's
    global rank (-1 outside the group)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work._group.global_ranks[work.source]
