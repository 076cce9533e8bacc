"""The "nccl" backend: collectives of CUDA tensors through NCCL (CuPy's ``cupy.cuda.nccl``;
on the emulated device, its stand-in ``emulated_nccl``), each on the process group's side
stream (NOTE [NCCL's side stream]). The communicator is made from a unique id that rank 0
creates and MPI broadcasts; the agreement check, the fault channel and the timeout are the
MPI backend's, which this one extends."""
import numpy as np

from autograd_cy._C.ops.inplace import _increment_version
from autograd_cy._C.ops.split_cat import cat
from autograd_cy._C.tensor import _array_of
from autograd_cy.distributed.errors import DistBackendError
from autograd_cy.distributed.mpi_backend import MPIBackend
from autograd_cy.distributed.reduce_op import BITWISE, RedOpType
from autograd_cy.distributed.work import Work
from autograd_cy.dtypes import uint8
from autograd_cy.factories import empty, zeros
from autograd_cy.grad_mode import no_grad

__all__ = ["available", "nccl_module", "NCCLBackend"]

# NOTE [NCCL's side stream]
# NCCL runs a collective as a kernel on a CUDA stream. Each NCCL process group has a stream
# of its own: a collective first makes it wait for an event recorded on the current stream
# (so whatever produced the inputs has finished before NCCL reads them), launches there, and
# records an end event. The current stream goes on at once: in DDP, a bucket's allreduce
# runs while backward's kernels compute the gradients of the buckets after it.
# ``Work.wait()`` then makes the current stream wait for the end event, so that what reads
# the result is ordered after it. The host waits for the end event too, in the fault
# channel's loop with the group's timeout (NOTE [When a rank fails]): a rank that never
# joins makes this one raise, naming it, instead of hanging (torch's watchdog thread does
# the same in the background). On the emulated device every launch has finished when it
# returns; what a test can see there is which stream waited for which event.

# NOTE [Keeping NCCL's buffers alive]
# NCCL is given addresses, not tensors. A buffer the collective stages (the contiguous copy
# of a strided input, all_gather's receive buffer, the barrier's byte) may lose its last
# Python reference while the side stream still reads or writes it; CuPy's memory pool then
# hands its memory to the next allocation on the current stream, whose kernels would race
# with NCCL's. torch marks such tensors as used by the NCCL stream (``record_stream``) and
# stashes them in the Work; here the backend holds them, with the end event, until a query
# of that event (at a later launch, or when a Work is waited for) says the collective is
# done.


def available():
    """Whether CuPy has NCCL's library and a GPU is present."""
    try:
        import cupy
        from cupy.cuda import nccl
        return hasattr(nccl, "NcclCommunicator") and cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 (no CuPy, no NCCL, no driver: all mean "no")
        return False


def nccl_module():
    """The NCCL of the current CUDA device: CuPy's on a GPU, the stand-in on the emulated
    device."""
    from autograd_cy.cuda import devices
    from autograd_cy.cuda.seam import EmulatedSeam
    if isinstance(devices.get().seam, EmulatedSeam):
        from autograd_cy.distributed import emulated_nccl
        return emulated_nccl
    from cupy.cuda import nccl
    if not hasattr(nccl, "NcclCommunicator"):
        raise RuntimeError("The nccl backend needs NCCL's library: pip install "
                           "'autograd_cy[nccl]' (nvidia-nccl-cu13)")
    return nccl


class NCCLBackend(MPIBackend):
    """The NCCL transport of one process group; tensors stay on the device."""

    name = "nccl"

    def __init__(self, MPI, comm, channel, timeout):
        super().__init__(MPI, comm, channel, timeout)
        from autograd_cy import cuda
        self.cuda = cuda
        self.nccl = nccl_module()
        unique_id = self.nccl.get_unique_id() if self.rank == 0 else None
        unique_id = comm.bcast(unique_id, root=0)
        if getattr(self.nccl, "EMULATED", False):
            self.nccl.attach(unique_id, comm)
        self.communicator = self.nccl.NcclCommunicator(self.size, unique_id, self.rank)
        self.stream = cuda.Stream()
        #: (end event, tensors) of the collectives that may still be running
        self._in_flight = []
        nccl = self.nccl
        self._types = {np.dtype(np.int8): nccl.NCCL_INT8, np.dtype(np.uint8): nccl.NCCL_UINT8,
                       np.dtype(np.int32): nccl.NCCL_INT32, np.dtype(np.int64): nccl.NCCL_INT64,
                       np.dtype(np.float16): nccl.NCCL_FLOAT16,
                       np.dtype(np.float32): nccl.NCCL_FLOAT32,
                       np.dtype(np.float64): nccl.NCCL_FLOAT64}
        if hasattr(nccl, "NCCL_BFLOAT16"):
            import ml_dtypes
            self._types[np.dtype(ml_dtypes.bfloat16)] = nccl.NCCL_BFLOAT16
        self._ops = {RedOpType.SUM: nccl.NCCL_SUM, RedOpType.AVG: nccl.NCCL_AVG,
                     RedOpType.PRODUCT: nccl.NCCL_PROD, RedOpType.MIN: nccl.NCCL_MIN,
                     RedOpType.MAX: nccl.NCCL_MAX}

    # -- tensors in and out: contiguous tensors on the device ---------------------------

    def check_device(self, t):
        if not t.is_cuda:
            raise RuntimeError(f"No backend type associated with device type {t.device.type}")

    @staticmethod
    def values(t):
        return t.detach().resolve_conj().resolve_neg().contiguous()

    def target(self, t):
        if t.is_contiguous() and not t.is_conj() and not t.is_neg():
            return t.detach(), lambda: _increment_version(t)
        staged = self.values(t).clone()
        return staged, lambda: self.assign(t, staged)

    @staticmethod
    def empty(shape, dtype):
        return empty(shape, dtype=dtype, device="cuda")

    @staticmethod
    def assign(t, values):
        with no_grad():
            t.copy_(values.reshape(tuple(t.shape)))

    @staticmethod
    def concatenated(tensors):
        return cat([t.reshape(-1) for t in tensors])

    # -- launching on the side stream -----------------------------------------------------

    def _launch(self, what, run, buffers, then=None):
        """Run ``run(stream_handle)`` on the side stream after the current stream's work;
        a Work whose wait orders the current stream after it. ``buffers``, the tensors NCCL
        reads or writes, live until the end event has completed
        (NOTE [Keeping NCCL's buffers alive])."""
        current = self.cuda.current_stream()
        self.stream.wait_event(current.record_event())
        run(self.stream.cuda_stream)
        end = self.stream.record_event()
        self._keep_alive(end, buffers)

        def wait_for(events, timeout):
            seconds = self.timeout if timeout is None else timeout.total_seconds()
            try:
                self.channel.wait(end.query, f"{what} on rank {self.rank}", seconds)
            except DistBackendError:
                self.communicator.abort()  # NCCL's kernel would wait for the peer forever
                raise
            self.cuda.current_stream().wait_event(end)
            self._keep_alive()
        return Work([end], lambda events: all(e.query() for e in events), wait_for, then)

    def _keep_alive(self, end=None, buffers=()):
        """Drop the buffers of the collectives that have completed; hold ``buffers`` until
        ``end`` has."""
        self._in_flight = [(e, b) for e, b in self._in_flight if not e.query()]
        if end is not None and buffers:
            self._in_flight.append((end, tuple(b for b in buffers if b is not None)))

    @staticmethod
    def _address(t):
        return _array_of(t).data_ptr()

    def _reduction(self, t, op, function_name):
        """(the element count NCCL sees, NCCL's type, NCCL's op) for reducing ``t``."""
        numpy_dtype = t.dtype.numpy
        if op is RedOpType.PREMUL_SUM or op in BITWISE:
            raise RuntimeError(f"{function_name}: the nccl backend cannot reduce with {op}")
        count = t.numel()
        if numpy_dtype.kind == "c":        # SUM and AVG, componentwise on the floats
            numpy_dtype = np.dtype(np.float32 if numpy_dtype.itemsize == 8 else np.float64)
            count *= 2
        nccl_op = self._ops[op]
        if numpy_dtype == np.bool_:        # as bytes: SUM is OR, PRODUCT is AND
            numpy_dtype = np.dtype(np.uint8)
            nccl_op = {RedOpType.SUM: self.nccl.NCCL_MAX, RedOpType.AVG: self.nccl.NCCL_MAX,
                       RedOpType.PRODUCT: self.nccl.NCCL_MIN}.get(op, nccl_op)
        if numpy_dtype not in self._types:
            raise RuntimeError(f"{function_name}: NCCL cannot reduce {t.dtype} tensors")
        return count, self._types[numpy_dtype], nccl_op

    def _bytes(self, t):
        return t.numel() * t.element_size(), self.nccl.NCCL_UINT8

    # -- the collectives ------------------------------------------------------------------

    def allreduce(self, t, op, what, then=None):
        count, datatype, nccl_op = self._reduction(t, op, "all_reduce")
        self.reduced_bytes += t.numel() * t.element_size()
        address = self._address(t)
        return self._launch(what, lambda stream: self.communicator.allReduce(
            address, address, count, datatype, nccl_op, stream), (t,), then)

    def reduce(self, t, root, op, what, then=None):
        count, datatype, nccl_op = self._reduction(t, op, "reduce")
        address = self._address(t)
        return self._launch(what, lambda stream: self.communicator.reduce(
            address, address, count, datatype, nccl_op, root, stream), (t,),
            then if self.rank == root else None)

    def reduce_scatter(self, send, receive, op, what, then=None):
        count, datatype, nccl_op = self._reduction(receive, op, "reduce_scatter")
        source, target = self._address(send), self._address(receive)
        return self._launch(what, lambda stream: self.communicator.reduceScatter(
            source, target, count, datatype, nccl_op, stream), (send, receive), then)

    def broadcast(self, t, root, what, then=None):
        count, datatype = self._bytes(t)
        address = self._address(t)
        return self._launch(what, lambda stream: self.communicator.bcast(
            address, count, datatype, root, stream), (t,), then)

    def allgather(self, send, receive, what, then=None):
        count, datatype = self._bytes(send)
        source, target = self._address(send), self._address(receive)
        return self._launch(what, lambda stream: self.communicator.allGather(
            source, target, count, datatype, stream), (send, receive), then)

    def gather(self, send, receive, root, what, then=None):
        """NCCL has no gather: sends to the root, which receives from every rank (its own
        block copied), in one group of calls."""
        count, datatype = self._bytes(send)
        source = self._address(send)

        def run(stream):
            self.nccl.groupStart()
            self.communicator.send(source, count, datatype, root, stream)
            if self.rank == root:
                target = self._address(receive)
                for r in range(self.size):
                    self.communicator.recv(target + r * count, count, datatype, r, stream)
            self.nccl.groupEnd()
        return self._launch(what, run, (send, receive), then)

    def scatter(self, send, receive, root, what, then=None):
        """NCCL has no scatter: the root sends each rank its block, in one group of
        calls."""
        count, datatype = self._bytes(receive)
        target = self._address(receive)

        def run(stream):
            self.nccl.groupStart()
            if self.rank == root:
                source = self._address(send)
                for r in range(self.size):
                    self.communicator.send(source + r * count, count, datatype, r, stream)
            self.communicator.recv(target, count, datatype, root, stream)
            self.nccl.groupEnd()
        return self._launch(what, run, (send, receive), then)

    def send(self, t, dst, tag, what):
        count, datatype = self._bytes(t)
        address = self._address(t)

        def run(stream):
            self.nccl.groupStart()
            self.communicator.send(address, count, datatype, dst, stream)
            self.nccl.groupEnd()
        return self._launch(what, run, (t,))

    def recv(self, t, src, tag, what, then=None):
        if src is None:
            raise ValueError("the nccl backend receives from a given rank only: pass src")
        count, datatype = self._bytes(t)
        address = self._address(t)

        def run(stream):
            self.nccl.groupStart()
            self.communicator.recv(address, count, datatype, src, stream)
            self.nccl.groupEnd()

        def finish():
            work.source = src
            if then is not None:
                then()
        work = self._launch(what, run, (t,), finish)
        return work

    def barrier(self, what):
        """An allreduce of one byte on the device, as torch's NCCL barrier."""
        token = zeros(1, dtype=uint8, device="cuda")
        address = self._address(token)
        return self._launch(what, lambda stream: self.communicator.allReduce(
            address, address, 1, self.nccl.NCCL_UINT8, self.nccl.NCCL_SUM, stream),
            (token,))

    def close(self):
        self.communicator.destroy()
        super().close()

