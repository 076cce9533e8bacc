"""The "mpi" backend: the collectives of one process group over mpi4py, on contiguous NumPy
arrays (``collectives.py`` stages tensors into them). Every collective is nonblocking in MPI
and completes through the fault channel's wait loop (NOTE [When a rank fails]); before a
user's collective the ranks check that they all called the same one with the same sizes
(NOTE [Checking that the ranks agree])."""
import contextlib

import numpy as np

from autograd_cy._C.half_cast import float16_to_float32, float32_to_float16
from autograd_cy.distributed import staging
from autograd_cy.distributed.errors import DistBackendError
from autograd_cy.distributed.reduce_op import BITWISE, RedOpType
from autograd_cy.distributed.work import Work

__all__ = ["MPIBackend", "Call"]

# NOTE [Checking that the ranks agree]
# MPI trusts its caller: if rank 0 reduces 12 floats while rank 1 reduces 8, or broadcasts
# instead, the result is undefined (garbage, a truncation error, or a hang). So a user's
# collective first gathers from every rank a few integers that describe the call (its
# sequence number in the group, which collective, the dtype, the element count, the root
# and the reduction) and compares them; on a mismatch every rank raises the same error,
# naming each rank's call. This costs one small allgather per collective. DDP checks its
# buckets' layout once, when it builds them, and then skips the check for each bucket.

#: the collectives, numbered for the agreement check
COLLECTIVES = ("barrier", "all_reduce", "broadcast", "all_gather", "all_gather_into_tensor",
               "reduce", "reduce_scatter", "reduce_scatter_tensor", "gather", "scatter")


class Call:
    """What one rank asked of a collective, as the agreement check compares it."""

    def __init__(self, name, dtype=None, numel=0, root=-1, op=None):
        self.name = name
        self.dtype = dtype
        self.numel = numel
        self.root = root
        self.op = op

    def header(self, sequence):
        dtype_code = -1 if self.dtype is None else _dtype_code(self.dtype)
        op_code = -1 if self.op is None else self.op.value
        return [sequence, COLLECTIVES.index(self.name), dtype_code, self.numel, self.root,
                op_code]

    @staticmethod
    def describe(header):
        sequence, name, dtype_code, numel, root, op_code = (int(v) for v in header)
        text = f"{COLLECTIVES[name]} (#{sequence})"
        if op_code >= 0:
            text += f" with {RedOpType(op_code)}"
        if dtype_code >= 0:
            text += f" of {numel} {_DTYPE_NAMES[dtype_code]} elements"
        if root >= 0:
            text += f" from/to rank {root}"
        return text


def _dtype_code(numpy_dtype):
    """The dtype's number in the header: its place in a list every rank has alike."""
    return _DTYPE_NAMES.index(np.dtype(numpy_dtype).name)


_DTYPE_NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                "float32", "float64", "complex64", "complex128")


class MPIBackend:
    """The MPI transport of one process group: ``comm`` its communicator, ``channel`` the
    world's fault channel, ``timeout`` in seconds."""

    name = "mpi"

    def __init__(self, MPI, comm, channel, timeout):
        self.MPI = MPI
        self.comm = comm
        self.channel = channel
        self.timeout = timeout
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.sequence = 0
        self._mpi_ops = {RedOpType.SUM: MPI.SUM, RedOpType.AVG: MPI.SUM,
                         RedOpType.PRODUCT: MPI.PROD, RedOpType.MIN: MPI.MIN,
                         RedOpType.MAX: MPI.MAX, RedOpType.BAND: MPI.BAND,
                         RedOpType.BOR: MPI.BOR, RedOpType.BXOR: MPI.BXOR}
        self._half_ops = {}
        #: False inside ``unchecked()``: the agreement check is skipped
        self.checking = True
        #: the bytes of every reduction's payload since the group was made (DDP's
        #: statistics and the benchmark read it)
        self.reduced_bytes = 0

    # -- tensors in and out: host arrays (a CUDA tensor goes through the host) -----------

    def check_device(self, t):
        """Every device's tensors can go through MPI (CUDA ones by way of the host)."""

    values = staticmethod(staging.host_values)
    target = staticmethod(staging.host_target)
    assign = staticmethod(staging.assign)

    @staticmethod
    def empty(shape, dtype):
        return np.empty(shape, dtype=dtype)

    @staticmethod
    def concatenated(arrays):
        return np.concatenate([a.reshape(-1) for a in arrays])

    # -- the wait loop and the agreement check -----------------------------------------

    def wait_for(self, requests, what, timeout=None, test_all=None):
        """Wait for ``requests`` (``test_all(requests)`` says when: MPI's Testall unless
        given) in the fault channel's loop, with the group's timeout unless given."""
        seconds = self.timeout if timeout is None else timeout.total_seconds()
        test_all = self.MPI.Request.Testall if test_all is None else test_all
        self.channel.wait(lambda: test_all(requests), f"{what} on rank {self.rank}", seconds)

    def _work(self, requests, what, finish=None, outputs=()):
        return Work(requests, self.MPI.Request.Testall,
                    lambda requests, timeout: self.wait_for(requests, what, timeout),
                    finish, outputs)

    def start(self, call, check=True):
        """Number the next collective and, with ``check``, make sure every rank called the
        same one (NOTE [Checking that the ranks agree]). Returns its name for messages."""
        self.sequence += 1
        sequence = self.sequence
        header = np.array(call.header(sequence), dtype=np.int64)
        if check and self.checking and self.size > 1:
            everyone = np.empty((self.size, header.size), dtype=np.int64)
            request = self.comm.Iallgather(header, everyone)
            self.wait_for([request], Call.describe(header))
            if (everyone != header).any():
                calls = ", ".join(f"rank {r} is running collective: {Call.describe(h)}"
                                  for r, h in enumerate(everyone))
                raise DistBackendError("Detected mismatch between collectives on ranks: "
                                       + calls)
        return Call.describe(header)

    @contextlib.contextmanager
    def unchecked(self):
        """Skip the agreement check of the collectives started inside: DDP's buckets, whose
        layout the ranks agreed on once."""
        previous, self.checking = self.checking, False
        try:
            yield
        finally:
            self.checking = previous

    # -- reductions ----------------------------------------------------------------------

    def _reduction(self, array, op, function_name):
        """(the buffer MPI reduces, MPI's op, what to do once reduced) for ``array``: bool
        reduces as bytes (SUM is OR, PRODUCT is AND), float16 and bfloat16 through an op of
        ours (MPI has no such types: NOTE [Half-precision reductions over MPI]), AVG as a
        SUM divided afterwards."""
        kind = "f" if array.dtype.kind == "V" else array.dtype.kind
        if op is RedOpType.PREMUL_SUM:
            raise ValueError(f"{function_name}: ReduceOp.PREMUL_SUM is not supported by "
                             "the mpi backend")
        if op in BITWISE and kind not in "iub":
            raise RuntimeError(f"Cannot use {op} with non-integral dtype {array.dtype}")
        mpi_op = self._mpi_ops[op]
        wire = array
        if kind == "b":
            wire = array.view(np.uint8)
            if op in (RedOpType.SUM, RedOpType.AVG):
                mpi_op = self.MPI.MAX
            elif op is RedOpType.PRODUCT:
                mpi_op = self.MPI.MIN
        elif array.dtype.itemsize == 2 and kind == "f":
            wire = [array.view(np.uint16), self.MPI.UINT16_T]
            mpi_op = self._half_op(array.dtype, op)
        size = self.size

        def finish():
            if op is RedOpType.AVG and kind != "b":
                np.divide(array, size, out=array, casting="unsafe")
        return wire, mpi_op, finish

    def _half_op(self, dtype, op):
        """The MPI op of our own that reduces ``dtype`` (float16 or bfloat16) values."""
        key = (dtype.name, op)
        if key not in self._half_ops:
            self._half_ops[key] = self.MPI.Op.Create(_half_reduction(dtype, op), commute=True)
        return self._half_ops[key]

    def allreduce(self, array, op, what, then=None):
        """Reduce ``array`` (contiguous) in place across the ranks."""
        wire, mpi_op, finish = self._reduction(array, op, "all_reduce")
        self.reduced_bytes += array.nbytes
        request = self.comm.Iallreduce(self.MPI.IN_PLACE, wire, mpi_op)
        return self._work([request], what, _chain(finish, then))

    def reduce(self, array, root, op, what, then=None):
        """Reduce ``array`` into rank ``root``'s copy (the others' arrays are left as
        they were)."""
        wire, mpi_op, finish = self._reduction(array, op, "reduce")
        if self.rank == root:
            request = self.comm.Ireduce(self.MPI.IN_PLACE, wire, mpi_op, root=root)
            return self._work([request], what, _chain(finish, then))
        request = self.comm.Ireduce(wire, None, mpi_op, root=root)
        return self._work([request], what)

    def reduce_scatter(self, send, receive, op, what, then=None):
        """Reduce ``send`` (``size`` equal blocks) across the ranks; rank r receives block
        r of the result into ``receive``."""
        wire_send, mpi_op, _ = self._reduction(send, op, "reduce_scatter")
        wire_receive, _, finish = self._reduction(receive, op, "reduce_scatter")
        request = self.comm.Ireduce_scatter_block(wire_send, wire_receive, mpi_op)
        return self._work([request], what, _chain(finish, then))

    # -- data movement (as bytes: exact for every dtype) ------------------------------

    def broadcast(self, array, root, what, then=None):
        request = self.comm.Ibcast(_bytes(array), root=root)
        return self._work([request], what, then)

    def allgather(self, send, receive, what, then=None):
        """``receive`` (``size`` blocks of ``send``'s bytes) gets every rank's ``send``."""
        request = self.comm.Iallgather(_bytes(send), _bytes(receive))
        return self._work([request], what, then)

    def gather(self, send, receive, root, what, then=None):
        request = self.comm.Igather(_bytes(send), None if receive is None else
                                    _bytes(receive), root=root)
        return self._work([request], what, then)

    def scatter(self, send, receive, root, what, then=None):
        request = self.comm.Iscatter(None if send is None else _bytes(send), _bytes(receive),
                                     root=root)
        return self._work([request], what, then)

    def barrier(self, what):
        return self._work([self.comm.Ibarrier()], what)

    # -- point to point (no agreement check: only two ranks take part) ----------------------

    def send(self, array, dst, tag, what):
        return self._work([self.comm.Isend(_bytes(array), dest=dst, tag=tag)], what)

    def recv(self, array, src, tag, what, then=None):
        """Receive into ``array`` from group rank ``src`` (any rank for None); the Work's
        ``source`` is the sender's group rank once it has completed."""
        MPI = self.MPI
        status = MPI.Status()
        request = self.comm.Irecv(_bytes(array), source=MPI.ANY_SOURCE if src is None else src,
                                  tag=tag)

        def test_all(requests):         # keeps the status: who sent
            return MPI.Request.Testall(requests, [status])

        def finish():
            work.source = status.Get_source()
            if then is not None:
                then()
        work = Work([request], test_all,
                    lambda requests, timeout: self.wait_for(requests, what, timeout,
                                                            test_all), finish)
        return work

    def close(self):
        for op in self._half_ops.values():
            op.Free()
        self.comm.Free()


# NOTE [Half-precision reductions over MPI]
# MPI has no float16 or bfloat16 datatype. Rather than widen them to float32 on the wire
# (twice the bytes, which is what a half-precision gradient hook exists to save), they travel
# as 16-bit words and are reduced by an MPI op of ours, a Python function MPI calls on pairs
# of buffers: it reads both as the half dtype, combines them in float32 and rounds once, as
# torch's CPU kernels compute half values ("opmath"); float16 rounds in one C loop (NOTE
# [Rounding to float16]).

_HALF_COMBINE = {RedOpType.SUM: np.add, RedOpType.AVG: np.add,
                 RedOpType.PRODUCT: np.multiply, RedOpType.MIN: np.minimum,
                 RedOpType.MAX: np.maximum}


def _half_reduction(dtype, op):
    combine = _HALF_COMBINE[op]
    if dtype == np.float16:
        def widen(values):
            return float16_to_float32(values)

        def narrow(values, out):
            if float32_to_float16(values, out=out) is None:
                out[...] = values.astype(dtype)
    else:
        def widen(values):
            return values.astype(np.float32)

        def narrow(values, out):
            out[...] = values.astype(dtype)

    def reduce_into(inbuf, inoutbuf, datatype):
        accumulated = np.frombuffer(inoutbuf, dtype=dtype)
        widened = widen(accumulated)
        combine(widen(np.frombuffer(inbuf, dtype=dtype)), widened, out=widened)
        narrow(widened, accumulated)
    return reduce_into


def _bytes(array):
    """``array``'s memory as MPI bytes."""
    return array.reshape(-1).view(np.uint8)


def _chain(first, second):
    if second is None:
        return first

    def both():
        first()
        second()
    return both
