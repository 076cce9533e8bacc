"""What stands in for CuPy's ``cupy.cuda.nccl`` on the emulated CUDA device
(``AUTOGRAD_CY_CUDA=emulate``): the same names and call signatures (a unique id, an
``NcclCommunicator`` with ``allReduce``, ``bcast``, ``reduce``, ``allGather``,
``reduceScatter``, ``send``/``recv`` in ``groupStart``/``groupEnd``), carried out over MPI on
the emulated device's memory, which is host memory, at the addresses NCCL would be given.

An emulated launch completes before it returns (NOTE [Streams on the emulated device]), so
each call here completes too: the stream argument only has to be a handle. What the
emulation checks is the NCCL backend's code: the pointers, counts, types and roots it passes,
and the events that order its side stream (NOTE [NCCL's side stream]).
"""
import ctypes
import os

import ml_dtypes
import numpy as np

__all__ = ["EMULATED", "get_unique_id", "NcclCommunicator", "groupStart", "groupEnd"]

#: read by the NCCL backend, which then hands the communicator its MPI communicator
EMULATED = True

# NCCL's numbering of its types and reductions
NCCL_INT8, NCCL_UINT8, NCCL_INT32, NCCL_UINT32, NCCL_INT64, NCCL_UINT64 = 0, 1, 2, 3, 4, 5
NCCL_FLOAT16, NCCL_FLOAT32, NCCL_FLOAT64, NCCL_BFLOAT16 = 6, 7, 8, 9
NCCL_SUM, NCCL_PROD, NCCL_MAX, NCCL_MIN, NCCL_AVG = 0, 1, 2, 3, 4

_TYPES = {NCCL_INT8: np.int8, NCCL_UINT8: np.uint8, NCCL_INT32: np.int32,
          NCCL_UINT32: np.uint32, NCCL_INT64: np.int64, NCCL_UINT64: np.uint64,
          NCCL_FLOAT16: np.float16, NCCL_FLOAT32: np.float32, NCCL_FLOAT64: np.float64,
          NCCL_BFLOAT16: ml_dtypes.bfloat16}

#: the MPI communicator of each unique id, attached by the backend before it builds the
#: NcclCommunicator (a real NCCL finds its peers through the id itself)
_communicators = {}
#: the sends and receives between groupStart and groupEnd, run at groupEnd
_group = None


def get_unique_id():
    """128 bytes naming a new communicator, as NCCL's ids are."""
    return tuple(int(b) - 128 for b in os.urandom(128))


def attach(unique_id, mpi_comm):
    """Say which MPI communicator the ranks of ``unique_id`` share."""
    _communicators[unique_id] = mpi_comm


def groupStart():
    global _group
    _group = []


def groupEnd():
    global _group
    calls, _group = _group, None
    requests = [call() for call in calls]
    from mpi4py import MPI
    MPI.Request.Waitall(requests)


def _at(address, count, datatype):
    """The ``count`` values of ``datatype`` at ``address`` (host memory), as an array."""
    dtype = np.dtype(_TYPES[datatype])
    buffer = (ctypes.c_char * (count * dtype.itemsize)).from_address(address)
    return np.frombuffer(buffer, dtype=dtype)


class NcclCommunicator:
    """``NcclCommunicator(ndev, commId, rank)``: one rank's end of a communicator."""

    def __init__(self, ndev, commId, rank):
        self.comm = _communicators.pop(tuple(commId))
        if self.comm.Get_size() != ndev or self.comm.Get_rank() != rank:
            raise RuntimeError("NCCL error: invalid argument (the ranks of the unique id "
                               "do not match)")
        from mpi4py import MPI
        self.MPI = MPI
        self.aborted = False

    def _reduce(self, values, op):
        MPI = self.MPI
        if values.dtype.itemsize == 2 and values.dtype.kind in "fV":
            widened = values.astype(np.float32)
        else:
            widened = values.copy()
        mpi_op = {NCCL_SUM: MPI.SUM, NCCL_AVG: MPI.SUM, NCCL_PROD: MPI.PROD,
                  NCCL_MAX: MPI.MAX, NCCL_MIN: MPI.MIN}[op]
        return widened, mpi_op

    def allReduce(self, sendbuf, recvbuf, count, datatype, op, stream):
        self._usable()
        widened, mpi_op = self._reduce(_at(sendbuf, count, datatype), op)
        self.comm.Allreduce(self.MPI.IN_PLACE, widened, mpi_op)
        if op == NCCL_AVG:
            widened = widened / self.comm.Get_size()
        _at(recvbuf, count, datatype)[...] = widened

    def reduce(self, sendbuf, recvbuf, count, datatype, op, root, stream):
        self._usable()
        widened, mpi_op = self._reduce(_at(sendbuf, count, datatype), op)
        self.comm.Allreduce(self.MPI.IN_PLACE, widened, mpi_op)
        if self.comm.Get_rank() == root:
            if op == NCCL_AVG:
                widened = widened / self.comm.Get_size()
            _at(recvbuf, count, datatype)[...] = widened

    def bcast(self, buff, count, datatype, root, stream):
        self._usable()
        self.comm.Bcast(_at(buff, count, datatype).view(np.uint8), root=root)

    def broadcast(self, sendbuff, recvbuff, count, datatype, root, stream):
        if self.comm.Get_rank() == root and sendbuff != recvbuff:
            _at(recvbuff, count, datatype)[...] = _at(sendbuff, count, datatype)
        self.bcast(recvbuff, count, datatype, root, stream)

    def allGather(self, sendbuf, recvbuf, count, datatype, stream):
        self._usable()
        self.comm.Allgather(_at(sendbuf, count, datatype).view(np.uint8),
                            _at(recvbuf, count * self.comm.Get_size(), datatype).view(np.uint8))

    def reduceScatter(self, sendbuf, recvbuf, recvcount, datatype, op, stream):
        self._usable()
        size = self.comm.Get_size()
        widened, mpi_op = self._reduce(_at(sendbuf, recvcount * size, datatype), op)
        self.comm.Allreduce(self.MPI.IN_PLACE, widened, mpi_op)
        if op == NCCL_AVG:
            widened = widened / size
        rank = self.comm.Get_rank()
        _at(recvbuf, recvcount, datatype)[...] = widened[rank * recvcount:
                                                         (rank + 1) * recvcount]

    def send(self, sendbuf, count, datatype, peer, stream):
        self._usable()
        values = _at(sendbuf, count, datatype).view(np.uint8)
        _group.append(lambda: self.comm.Isend(values, dest=peer))

    def recv(self, recvbuf, count, datatype, peer, stream):
        self._usable()
        values = _at(recvbuf, count, datatype).view(np.uint8)
        _group.append(lambda: self.comm.Irecv(values, source=peer))

    def _usable(self):
        """NCCL refuses a communicator that was aborted (its ranks may be out of step)."""
        if self.aborted:
            raise RuntimeError("NCCL error: invalid usage (the communicator was aborted)")

    def abort(self):
        self.aborted = True

    def destroy(self):
        pass
