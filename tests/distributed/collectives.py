"""Every collective of autograd_cy.distributed against NumPy, on every dtype, under
``mpiexec -n 2``: each rank can compute every rank's inputs (they are seeded by rank), so
each checks the collective's result against NumPy's reduction of them."""
import warnings

import ml_dtypes
import numpy as np

from ranks import ag, assert_close, dist, finish, raises, start, values

rank, size = start()
ReduceOp = dist.ReduceOp
MPI = dist.get_backend() == "mpi"     # else NCCL (on the emulated device in the tests)

DTYPES = [ag.float32, ag.float64, ag.float16, ag.bfloat16, ag.int64, ag.int32, ag.uint8,
          ag.bool, ag.complex64, ag.complex128]


def data(r, dtype, shape=(2, 3)):
    """Rank r's input of ``dtype``."""
    rng = np.random.default_rng(100 + r)
    numpy_dtype = dtype.numpy
    if dtype is ag.bool:
        return rng.random(shape) < 0.5
    if numpy_dtype.kind in "iu":
        return rng.integers(1, 5, shape).astype(numpy_dtype)
    if dtype.is_complex:
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(
            numpy_dtype)
    return rng.standard_normal(shape).astype(numpy_dtype)


def reduced(dtype, op, inputs):
    """NumPy's reduction of the ranks' inputs, as the backend computes it (half types in
    float32, rounded once per pair; AVG as the sum divided)."""
    numpy_dtype = dtype.numpy
    half = numpy_dtype.itemsize == 2 and numpy_dtype.kind in "fV"
    combine = {ReduceOp.SUM: np.add, ReduceOp.AVG: np.add, ReduceOp.PRODUCT: np.multiply,
               ReduceOp.MIN: np.minimum, ReduceOp.MAX: np.maximum,
               ReduceOp.BAND: np.bitwise_and, ReduceOp.BOR: np.bitwise_or,
               ReduceOp.BXOR: np.bitwise_xor}[op]
    if dtype is ag.bool:
        combine = {ReduceOp.SUM: np.logical_or, ReduceOp.AVG: np.logical_or,
                   ReduceOp.MAX: np.logical_or, ReduceOp.BOR: np.logical_or,
                   ReduceOp.PRODUCT: np.logical_and, ReduceOp.MIN: np.logical_and,
                   ReduceOp.BAND: np.logical_and, ReduceOp.BXOR: np.logical_xor}[op]
    result = inputs[0]
    for x in inputs[1:]:
        result = (combine(result.astype(np.float32), x.astype(np.float32)).astype(numpy_dtype)
                  if half else combine(result, x).astype(numpy_dtype))
    if op is ReduceOp.AVG and dtype is not ag.bool:
        result = np.divide(result, size, casting="unsafe",
                           out=np.empty_like(result)) if numpy_dtype.kind in "iu" \
            else (result / size).astype(numpy_dtype)
    return result


def tensor_of(array, dtype):
    return ag.tensor(array.astype(np.float32) if dtype is ag.bfloat16 else array, dtype=dtype)


everyone = {d: [data(r, d) for r in range(size)] for d in DTYPES}

# -- all_reduce and reduce: every dtype, every reduction it supports ----------------------
for dtype in DTYPES:
    numpy_dtype = dtype.numpy
    for op in (ReduceOp.SUM, ReduceOp.AVG, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX,
               ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR):
        t = tensor_of(everyone[dtype][rank], dtype)
        bitwise = op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR)
        if dtype.is_complex and op not in (ReduceOp.SUM, ReduceOp.AVG):
            raises(ValueError, f"all_reduce does not support {op} on complex tensors",
                   dist.all_reduce, t, op=op)
            continue
        if bitwise and (dtype.is_floating_point or dtype.is_complex):
            raises(RuntimeError, "non-integral dtype" if MPI else "cannot reduce with",
                   dist.all_reduce, t, op=op)
            continue
        if bitwise and not MPI:
            raises(RuntimeError, "the nccl backend cannot reduce with", dist.all_reduce, t,
                   op=op)
            continue
        if op is ReduceOp.AVG and numpy_dtype.kind in "iu":
            continue  # torch's backends differ on an integer average; not checked
        version = t._version
        dist.all_reduce(t, op=op)
        assert_close(t, reduced(dtype, op, everyone[dtype]), f"all_reduce {op} {dtype}")
        assert t._version == version + 1, "all_reduce bumps the version once"
        t = tensor_of(everyone[dtype][rank], dtype)
        dist.reduce(t, dst=1, op=op)
        expected = reduced(dtype, op, everyone[dtype]) if rank == 1 else everyone[dtype][rank]
        assert_close(t, expected, f"reduce {op} {dtype}")

# -- data movement: exact for every dtype --------------------------------------------------
for dtype in DTYPES:
    inputs = [tensor_of(x, dtype) for x in everyone[dtype]]
    mine = inputs[rank]
    t = mine.clone()
    dist.broadcast(t, src=1)
    assert_close(t, values(inputs[1]), f"broadcast {dtype}")
    outputs = [ag.zeros(2, 3, dtype=dtype) for _ in range(size)]
    dist.all_gather(outputs, mine)
    for r in range(size):
        assert_close(outputs[r], values(inputs[r]), f"all_gather {dtype} from rank {r}")
    stacked = ag.zeros(size * 2, 3, dtype=dtype)
    dist.all_gather_into_tensor(stacked, mine)
    assert_close(stacked, np.concatenate([values(x) for x in inputs]),
                 f"all_gather_into_tensor {dtype}")
    gathered = [ag.zeros(2, 3, dtype=dtype) for _ in range(size)] if rank == 0 else None
    dist.gather(mine, gathered, dst=0)
    if rank == 0:
        for r in range(size):
            assert_close(gathered[r], values(inputs[r]), f"gather {dtype}")
    received = ag.zeros(2, 3, dtype=dtype)
    dist.scatter(received, [x * 1 if dtype is not ag.bool else x for x in inputs]
                 if rank == 1 else None, src=1)
    assert_close(received, values(inputs[rank]), f"scatter {dtype}")

# -- reduce_scatter: block r of the reduction to rank r ------------------------------------
for dtype in (ag.float32, ag.float64, ag.int64, ag.float16):
    blocks = [[data(10 * r + b, dtype) for b in range(size)] for r in range(size)]
    output = ag.zeros(2, 3, dtype=dtype)
    dist.reduce_scatter(output, [tensor_of(x, dtype) for x in blocks[rank]])
    assert_close(output, reduced(dtype, ReduceOp.SUM, [blocks[r][rank] for r in range(size)]),
                 f"reduce_scatter {dtype}")
    output = ag.zeros(2, 3, dtype=dtype)
    dist.reduce_scatter_tensor(output, tensor_of(np.concatenate(blocks[rank]), dtype),
                               op=ReduceOp.MAX)
    assert_close(output, reduced(dtype, ReduceOp.MAX, [blocks[r][rank] for r in range(size)]),
                 f"reduce_scatter_tensor {dtype}")

# -- strided, conjugated and requires-grad tensors are written in place --------------------
base = ag.tensor(everyone[ag.float64][rank])
view = base.t()
dist.all_reduce(view)
assert_close(base, reduced(ag.float64, ReduceOp.SUM, everyone[ag.float64]), "a strided view")
z = ag.tensor(everyone[ag.complex64][rank]).conj()
dist.all_reduce(z)
assert_close(z, np.conj(reduced(ag.complex64, ReduceOp.SUM, everyone[ag.complex64])),
             "a lazily conjugated tensor")
leaf = ag.tensor(everyone[ag.float32][rank], requires_grad=True)
dist.broadcast(leaf, src=0)
assert leaf.requires_grad and leaf.is_leaf

# -- async_op: a Work, then the values ------------------------------------------------------
t = ag.full((1000,), float(rank + 1))
work = dist.all_reduce(t, async_op=True)
assert isinstance(work, dist.Work)
assert work.wait() is True and work.is_completed() and work.is_success()
assert work.result()[0] is t
assert_close(t, np.full(1000, float(sum(range(1, size + 1))), np.float32), "async all_reduce")
future = dist.all_reduce(ag.ones(3), async_op=True).get_future().then(
    lambda f: f.value()[0] * 2)
assert_close(future.wait(), np.full(3, 2.0 * size, np.float32), "Future.then")
assert dist.barrier() is None
dist.barrier(async_op=True).wait()

# -- Python objects --------------------------------------------------------------------------
objects = [None] * size
dist.all_gather_object(objects, {"rank": rank, "text": "x" * (rank * 50)})
assert objects == [{"rank": r, "text": "x" * (r * 50)} for r in range(size)]
listed = [rank, "from rank 0", {1: 2}] if rank == 0 else [None, None, None]
dist.broadcast_object_list(listed, src=0)
assert listed == [0, "from rank 0", {1: 2}]
out = [None]
dist.scatter_object_list(out, [f"for {r}" for r in range(size)] if rank == 0 else None, src=0)
assert out == [f"for {rank}"]
collected = [None] * size if rank == 1 else None
dist.gather_object(rank * 10, collected, dst=1)
assert collected is None or collected == [r * 10 for r in range(size)]

# -- torch's errors -------------------------------------------------------------------------
raises(TypeError, "Expected parameter `tensor` of type torch.Tensor", dist.all_reduce,
       [1.0, 2.0])
raises(TypeError, "Expected parameter `tensor_list` of type List[torch.Tensor]",
       dist.all_gather, ag.ones(2), ag.ones(2))
raises(ValueError, "one tensor per rank", dist.all_gather, [ag.ones(2)], ag.ones(2))
raises(ValueError, "invalid tensor size", dist.all_gather, [ag.ones(3)] * size, ag.ones(2))
raises(TypeError, "invalid tensor type", dist.all_gather,
       [ag.ones(2, dtype=ag.float64)] * size, ag.ones(2))
if rank == 0:
    raises(ValueError, "must be specified on destination rank", dist.gather, ag.ones(2),
           None, dst=0)
else:
    raises(ValueError, "must NOT be specified on non-destination ranks", dist.gather,
           ag.ones(2), [ag.ones(2)] * size, dst=0)
    raises(ValueError, "must NOT be specified on non-source ranks", dist.scatter,
           ag.ones(2), [ag.ones(2)] * size, src=0)
raises(ValueError, "is not part of group", dist.broadcast, ag.ones(2), src=size)
raises(ValueError, "twice", dist.init_process_group, "mpi")
assert dist.get_backend() in ("mpi", "nccl")
assert dist.get_process_group_ranks(None) == list(range(size))

# -- point to point, as the distributed tutorial uses it ----------------------------------
other = 1 - rank
t = ag.zeros(3)
if rank == 0:
    t += 1
    dist.send(tensor=t, dst=1)
else:
    dist.recv(tensor=t, src=0)
assert_close(t, np.ones(3, np.float32), "send/recv")
out, back = ag.arange(4.0) * (rank + 1), ag.zeros(4)
if MPI:      # both ranks send, then receive (on NCCL a send may wait for its receive)
    sending = dist.isend(out, dst=other, tag=7)
    receiving = dist.irecv(back, src=other, tag=7)
    sending.wait()
    receiving.wait()
elif rank == 0:
    dist.isend(out, dst=other).wait()
    dist.irecv(back, src=other).wait()
else:
    dist.irecv(back, src=other).wait()
    dist.isend(out, dst=other).wait()
assert_close(back, np.arange(4.0, dtype=np.float32) * (other + 1), "isend/irecv")
if MPI:      # NCCL receives from a named rank only
    if rank == 1:
        dist.send(ag.full((2,), 5.0), dst=0, tag=3)
    else:
        anyone = ag.zeros(2)
        assert dist.recv(anyone, tag=3) == 1
        assert_close(anyone, np.full(2, 5.0, np.float32), "recv from any rank")
raises(ValueError, "dst rank should not be the same as the rank of the current process",
       dist.send, ag.ones(1), dst=rank)

# -- a group of some ranks ------------------------------------------------------------------
solo = dist.new_group([0])
if rank == 0:
    assert dist.get_world_size(solo) == 1 and dist.get_rank(solo) == 0
    t = ag.ones(2)
    dist.all_reduce(t, group=solo)
    assert_close(t, np.ones(2, np.float32), "a group of one")
else:
    assert solo is dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(solo) == -1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert dist.all_reduce(ag.ones(2), group=solo) is None
    assert any("does not belong to the given group" in str(w.message) for w in caught)

# -- init_process_group's checks, and a second default group after the first ----------------
dist.destroy_process_group()
assert not dist.is_initialized()
raises(ValueError, "world_size=3, but MPI started 2 process(es)", dist.init_process_group,
       "mpi", world_size=3)
raises(ValueError, "rank=5, but MPI numbered this process", dist.init_process_group, "mpi",
       rank=5)
raises(ValueError, "Invalid backend: 'ucc'", dist.init_process_group, "ucc")
start()
t = ag.ones(2)
dist.all_reduce(t)
assert_close(t, np.full(2, float(size), np.float32), "after a new init_process_group")

ml_dtypes  # noqa: B018 (bfloat16's NumPy dtype, which the inputs of DTYPES use)
finish()
