"""The process groups, as torch.distributed's: ``init_process_group`` makes the default
group of every rank that ``mpiexec`` started, ``new_group`` a group of some of them, and
``destroy_process_group`` ends them. A ``ProcessGroup`` is the ranks of a group and the
backend that moves their data (``mpi_backend.py``, ``nccl_backend.py``)."""
import datetime
import os
import sys

from autograd_cy.distributed import faults

__all__ = ["Backend", "ProcessGroup", "GroupMember", "group", "init_process_group",
           "destroy_process_group", "is_initialized", "is_available", "is_mpi_available",
           "is_nccl_available", "is_gloo_available", "is_torchelastic_launched", "new_group",
           "get_rank", "get_world_size", "get_backend", "get_process_group_ranks",
           "get_global_rank", "get_group_rank", "default_group"]

#: torch's default timeout of a process group's collectives
default_pg_timeout = datetime.timedelta(minutes=30)


class Backend(str):
    """A backend's name: ``Backend.MPI == "mpi"``, ``Backend.NCCL``, ``Backend.GLOO``;
    ``Backend("MPI")`` is ``"mpi"``. "gloo", torch's CPU backend, runs on MPI here."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError("Backend constructor parameter must be string-ish")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        return name.lower() if value == Backend.UNDEFINED else value


class ProcessGroup:
    """Some of the ranks, and the backend their collectives run on: ``rank()`` is this
    process's rank in the group, ``size()`` the group's size."""

    def __init__(self, backend_name, backend, global_ranks):
        self._backend_name = backend_name
        self.backend = backend
        self.global_ranks = list(global_ranks)

    def rank(self):
        """This process's rank within the group."""
        return self.backend.rank

    def size(self):
        """The number of ranks in the group."""
        return self.backend.size

    def name(self):
        """The backend's name."""
        return self._backend_name

    def __repr__(self):
        return (f"<ProcessGroup {self._backend_name} rank={self.rank()} "
                f"size={self.size()}>")


class GroupMember:
    """``GroupMember.WORLD`` is the default group once initialized; ``NON_GROUP_MEMBER``
    is what ``new_group`` returns to ranks outside the new group."""
    WORLD = None
    NON_GROUP_MEMBER = object()


class _WorldGroup:
    """``dist.group.WORLD``: the default group."""
    WORLD = None


group = _WorldGroup


class _World:
    """The state of this process's distributed package."""
    MPI = None
    channel = None
    groups = []
    previous_excepthook = None


def is_available():
    """True: the distributed package is part of autograd_cy (its backends need the `mpi`
    extra, or the `cuda` extra for NCCL)."""
    return True


def is_mpi_available():
    """Whether mpi4py (and an MPI library) can be imported."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def is_gloo_available():
    """Whether the "gloo" backend can be used: here it runs on MPI."""
    return is_mpi_available()


def is_nccl_available():
    """Whether NCCL can be used: CuPy built with NCCL, and a GPU."""
    from autograd_cy.distributed import nccl_backend
    return nccl_backend.available()


def is_torchelastic_launched():
    """False: ranks are launched by mpiexec, not torchrun."""
    return False


def is_initialized():
    """Whether the default process group has been initialized."""
    return GroupMember.WORLD is not None


def default_group():
    """The default group, or torch's error when there is none."""
    if GroupMember.WORLD is None:
        raise ValueError("Default process group has not been initialized, please make sure "
                         "to call init_process_group.")
    return GroupMember.WORLD


def _import_mpi():
    try:
        import mpi4py
    except ImportError:
        raise RuntimeError("Distributed package doesn't have MPI available: the mpi backend "
                           "needs mpi4py and an MPI library (pip install "
                           "'autograd_cy[mpi]')") from None
    if "mpi4py.MPI" not in sys.modules:
        # Collectives are called from one thread at a time (the engine calls DDP's hooks
        # on the thread that runs backward).
        mpi4py.rc.thread_level = "serialized"
    from mpi4py import MPI
    return MPI


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1,
                       rank=-1, store=None, group_name="", pg_options=None, device_id=None):
    """Make the default process group of every rank ``mpiexec`` started.

    Rank and world size come from MPI; ``world_size``/``rank`` (or the ``WORLD_SIZE``/
    ``RANK`` environment torch's launchers set) are checked against them. ``backend`` is
    "mpi" (the default; "gloo" is taken as "mpi") or "nccl" (CUDA tensors, with NCCL's unique
    id sent over MPI). ``timeout`` (a timedelta, 30 minutes by default) bounds how long a
    collective waits for the others before it raises, naming them."""
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = Backend(backend if backend is not None else "mpi")
    if name not in (Backend.MPI, Backend.GLOO, Backend.NCCL):
        raise ValueError(f"Invalid backend: '{backend}': autograd_cy.distributed has the "
                         "'mpi' backend (which also serves 'gloo') and 'nccl'")
    if timeout is None:
        timeout = default_pg_timeout
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got "
                        f"{type(timeout)}")
    MPI = _import_mpi()
    world = MPI.COMM_WORLD
    size, me = world.Get_size(), world.Get_rank()
    _check_launch(size, me, world_size, rank)
    _World.MPI = MPI
    _World.channel = faults.FaultChannel(MPI, world)
    pg = _make_group(name, world.Dup(), list(range(size)), timeout)
    GroupMember.WORLD = _WorldGroup.WORLD = pg
    _World.previous_excepthook = faults.install_exception_hook(lambda: _World.channel)


def _check_launch(size, me, world_size, rank):
    """torch's arguments, or its launchers' environment, against what mpiexec started."""
    if world_size == -1 and "WORLD_SIZE" in os.environ and "PMI_SIZE" not in os.environ:
        world_size = int(os.environ["WORLD_SIZE"])
    if world_size not in (-1, size):
        raise ValueError(f"world_size={world_size}, but MPI started {size} process(es): "
                         f"launch the program with `mpiexec -n {world_size} python ...`")
    if rank not in (-1, me):
        raise ValueError(f"rank={rank}, but MPI numbered this process {me}: under mpiexec "
                         "the ranks come from MPI")


def _make_group(name, comm, global_ranks, timeout):
    seconds = timeout.total_seconds()
    if name == Backend.NCCL:
        from autograd_cy.distributed.nccl_backend import NCCLBackend
        backend = NCCLBackend(_World.MPI, comm, _World.channel, seconds)
    else:
        from autograd_cy.distributed.mpi_backend import MPIBackend
        backend = MPIBackend(_World.MPI, comm, _World.channel, seconds)
    pg = ProcessGroup(name, backend, global_ranks)
    _World.groups.append(pg)
    return pg


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None):
    """A group of the given global ranks (all by default). Every rank of the default group
    must call it, members or not; non-members get ``GroupMember.NON_GROUP_MEMBER``."""
    world = default_group()
    size = world.size()
    members = sorted(range(size) if ranks is None else ranks)
    for r in members:
        if not 0 <= r < size:
            raise ValueError(f"The new group's rank {r} is not a rank of the world (its "
                             f"size is {size})")
    me = world.rank()
    comm = world.backend.comm.Split(0 if me in members else _World.MPI.UNDEFINED, me)
    if me not in members:
        return GroupMember.NON_GROUP_MEMBER
    name = Backend(backend) if backend is not None else world.name()
    return _make_group(name, comm, members,
                       timeout or datetime.timedelta(seconds=world.backend.timeout))


def destroy_process_group(group=None):
    """End ``group``, or every group (and the package's state) when None."""
    if group is None or group is GroupMember.WORLD:
        default_group()
        for pg in _World.groups:
            pg.backend.close()
        _World.groups = []
        _World.channel.close()
        _World.channel = None
        GroupMember.WORLD = _WorldGroup.WORLD = None
        sys.excepthook = _World.previous_excepthook
        return
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    group.backend.close()
    _World.groups.remove(group)


def _group_or_default(pg):
    return default_group() if pg is None or pg is GroupMember.WORLD else pg


def get_rank(group=None):
    """This process's rank in ``group`` (the default group by default); -1 outside it."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group_or_default(group).rank()


def get_world_size(group=None):
    """The number of ranks in ``group``; -1 for a group this process is not in."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group_or_default(group).size()


def get_backend(group=None):
    """The backend's name of ``group``."""
    return Backend(_group_or_default(group).name())


def get_process_group_ranks(group):
    """The global ranks of ``group``, in group-rank order."""
    return list(_group_or_default(group).global_ranks)


def get_global_rank(group, group_rank):
    """The global rank of ``group``'s rank ``group_rank``."""
    ranks = _group_or_default(group).global_ranks
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return ranks[group_rank]


def get_group_rank(group, global_rank):
    """``global_rank``'s rank within ``group``."""
    ranks = _group_or_default(group).global_ranks
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks.index(global_rank)
