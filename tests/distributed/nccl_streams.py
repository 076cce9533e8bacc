"""The nccl backend on the emulated CUDA device, under ``mpiexec -n 2``: what only it does
(the values of every collective are checked by collectives.py run on it): a CPU tensor is
refused with torch's words, and each collective runs on the group's side stream after an
event recorded on the current stream, which waits for its end when the Work is waited for
(NOTE [NCCL's side stream]); the buffers it uses live until it is done; a failure seen
while waiting aborts the communicator."""
import os

import numpy as np

os.environ["AUTOGRAD_CY_TEST_BACKEND"] = "nccl"
os.environ["AUTOGRAD_CY_TEST_DEVICE"] = "cuda"

from ranks import ag, dist, finish, raises, start, values  # noqa: E402

from autograd_cy.nn.parallel import DistributedDataParallel as DDP  # noqa: E402

rank, size = start()
assert dist.get_backend() == "nccl"
backend = dist.group.WORLD.backend
side = backend.stream._raw

raises(RuntimeError, "No backend type associated with device type cpu", dist.all_reduce,
       ag.ones(3, device="cpu"))

# ordered after the producer, on the side stream; the current stream waits for its end
current = ag.cuda.current_stream()._raw
x = ag.ones(1000) * (rank + 1)          # a kernel on the current stream
launches_before = current.launches
waited_before = len(side.waited)
work = dist.all_reduce(x, async_op=True)
ready = side.waited[-1]
assert len(side.waited) == waited_before + 1
assert ready.stream is current and ready.launches == launches_before, \
    "the side stream waits for what the current stream queued before the collective"
work.wait()
end = current.waited[-1]
assert end.stream is side, "the current stream waits for the collective's end"
assert np.array_equal(values(x), np.full(1000, 3.0, np.float32))

# on a stream of the user's: the side stream waits for that stream, which (current when
# the Work is waited for) then waits for the end; the default stream is not involved
mine = ag.cuda.Stream()
with ag.cuda.stream(mine):
    y = ag.ones(8) * (rank + 2)
    before = mine._raw.launches
    work = dist.broadcast(y, src=1, async_op=True)
    ready = side.waited[-1]
    assert ready.stream is mine._raw and ready.launches == before
    waited_by_default = len(current.waited)
    work.wait()
    assert mine._raw.waited[-1].stream is side and len(current.waited) == waited_by_default
assert np.array_equal(values(y), np.full(8, 3.0, np.float32))

# the staged copy of a strided input lives until the collective is known to be done
# (NOTE [Keeping NCCL's buffers alive])
strided = (ag.arange(12.0) + rank).reshape(3, 4).t()
outputs = [ag.zeros(4, 3) for _ in range(size)]
work = dist.all_gather(outputs, strided, async_op=True)
(end, (send, receive)), = backend._in_flight
assert end is work._requests[0] and send.is_contiguous() and tuple(send.shape) == (4, 3)
work.wait()
assert backend._in_flight == []
for r in range(size):
    assert np.array_equal(values(outputs[r]), (np.arange(12.0, dtype=np.float32) + r)
                          .reshape(3, 4).T)

# DDP: one collective on the side stream for each bucket of a backward
ag.manual_seed(0)
model = ag.nn.Sequential(*[ag.nn.Linear(16, 16) for _ in range(3)])
ddp = DDP(model, bucket_cap_mb=(16 * 16 + 16) * 4 / 2 ** 20)
waited_before = len(side.waited)
ddp(ag.ones(2, 16)).sum().backward()
assert len(side.waited) - waited_before == len(ddp.reducer.buckets) == 3

# a failure seen while waiting for the end event (a timeout, a failed peer) aborts the
# communicator: NCCL's kernel would otherwise wait for the missing rank forever
channel = backend.channel


def failing(done, what, timeout):
    raise dist.DistBackendError(f"{what}: timed out")


channel.wait = failing
with backend.unchecked():     # the agreement check waits in the same loop
    work = dist.all_reduce(ag.ones(2), async_op=True)
raises(dist.DistBackendError, "timed out", work.wait)
del channel.wait
assert backend.communicator.aborted and not work.is_success()
raises(RuntimeError, "aborted", dist.barrier)    # NCCL's barrier is an allreduce
finish()
