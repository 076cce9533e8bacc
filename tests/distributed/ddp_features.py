"""DistributedDataParallel's other behaviour on 2 ranks: unused parameters with and without
``find_unused_parameters``, the buckets' launch order and bytes, the compression hooks'
error and bytes, buffers and parameters taken from rank 0, torch's errors, and the
DistributedSampler of the default group."""
import numpy as np

from ranks import ag, dist, finish, raises, start, values

from autograd_cy.distributed.algorithms.ddp_comm_hooks import default_hooks
from autograd_cy.nn.parallel import DistributedDataParallel as DDP
from autograd_cy.utils.data import DistributedSampler

rank, size = start()
nn = ag.nn


class TwoHeads(nn.Module):
    """``head_b`` is used only where ``use_b`` says."""

    def __init__(self, use_b):
        super().__init__()
        self.body = nn.Linear(3, 4)
        self.head_a = nn.Linear(4, 2)
        self.head_b = nn.Linear(4, 2)
        self.use_b = use_b

    def forward(self, x):
        h = self.body(x).tanh()
        out = self.head_a(h)
        return out + self.head_b(h) if self.use_b else out


def local_batch(seed=7):
    rng = np.random.default_rng(seed + rank)
    return ag.tensor(rng.standard_normal((4, 3))).double()


def reference_grads(use_b_on, seed=7):
    """The average over the ranks of each rank's gradients, computed here alone."""
    total = None
    for r in range(size):
        ag.manual_seed(0)
        model = TwoHeads(use_b_on(r)).double()
        x = ag.tensor(np.random.default_rng(seed + r).standard_normal((4, 3))).double()
        model(x).pow(2).sum().backward()
        grads = [values(p.grad) if p.grad is not None else np.zeros(tuple(p.shape))
                 for p in model.parameters()]
        total = grads if total is None else [a + b for a, b in zip(total, grads)]
    return [g / size for g in total]


# -- a parameter no rank uses: its .grad stays None with find_unused_parameters -----------
ag.manual_seed(0)
model = TwoHeads(use_b=False).double()
ddp = DDP(model, find_unused_parameters=True)
ddp(local_batch()).pow(2).sum().backward()
assert model.head_b.weight.grad is None and model.head_b.bias.grad is None
for p, g in zip(model.parameters(), reference_grads(lambda r: False)):
    if p.grad is not None:
        np.testing.assert_allclose(values(p.grad), g, atol=1e-12, rtol=0)

# -- a parameter only rank 0 uses: every rank gets the average ----------------------------
ag.manual_seed(0)
model = TwoHeads(use_b=rank == 0).double()
ddp = DDP(model, find_unused_parameters=True)
for _ in range(2):  # twice: the second iteration must not wait on the first
    model.zero_grad()
    ddp(local_batch()).pow(2).sum().backward()
for p, g in zip(model.parameters(), reference_grads(lambda r: r == 0)):
    np.testing.assert_allclose(values(p.grad), g, atol=1e-12, rtol=0)

# -- without find_unused_parameters, the next forward raises as torch's -------------------
ag.manual_seed(0)
model = TwoHeads(use_b=False).double()
ddp = DDP(model)
ddp(local_batch()).pow(2).sum().backward()
raises(RuntimeError, "Expected to have finished reduction in the prior iteration", ddp,
       local_batch())

# -- two forwards before one backward are fine (torch checks at a backward's first hook) ---
ag.manual_seed(0)
model = TwoHeads(use_b=True).double()
ddp = DDP(model)
(ddp(local_batch()).pow(2).sum() + ddp(local_batch(8)).pow(2).sum()).backward()
assert all(p.grad is not None for p in model.parameters())

# -- static_graph: the unused parameter is unused every time, and that is fine --------------
ag.manual_seed(0)
model = TwoHeads(use_b=False).double()
ddp = DDP(model, static_graph=True)
for _ in range(2):
    ddp(local_batch()).pow(2).sum().backward()
assert model.head_b.weight.grad is None and model.body.weight.grad is not None

# -- buckets: reverse order, launched in index order, the bytes of the gradients ----------
ag.manual_seed(0)
layers = nn.Sequential(*[nn.Linear(32, 32) for _ in range(5)])
ddp = DDP(layers, bucket_cap_mb=4224 / 2**20)  # a Linear(32, 32)'s weight and bias
params = list(layers.parameters())
gradient_bytes = sum(p.numel() * p.element_size() for p in params)
first = ddp.reducer.buckets[0]
assert first.params[0] is params[-1], "bucket 0 starts with the last parameter"
for step in range(3):
    layers.zero_grad()
    ddp(ag.ones(2, 32)).sum().backward()
    record = ddp.reducer.last_step
    launched = [index for index, *_ in record.launches]
    assert launched == list(range(len(ddp.reducer.buckets))), launched
    assert record.bytes == gradient_bytes, (record.bytes, gradient_bytes)
    ready_counts = [ready for _, _, ready, _ in record.launches]
    assert ready_counts == sorted(ready_counts) and ready_counts[0] < len(params), \
        "the first bucket starts before backward has all gradients"
logging = ddp._get_ddp_logging_data()
assert logging["has_rebuilt_buckets"] == 1
assert sum(logging["bucket_sizes"]) == sum(logging["rebuilt_bucket_sizes"]) == gradient_bytes

# -- compression hooks: half the bytes, within the half type's rounding -------------------
for hook, dtype, unit in [(default_hooks.fp16_compress_hook, ag.float16, 2.0 ** -11),
                          (default_hooks.bf16_compress_hook, ag.bfloat16, 2.0 ** -8)]:
    ag.manual_seed(0)
    model = TwoHeads(use_b=True)
    ddp = DDP(model)
    ddp.register_comm_hook(None, hook)
    raises(RuntimeError, "can only be called once", ddp.register_comm_hook, None, hook)
    ddp(local_batch().float()).pow(2).sum().backward()
    exact = reference_grads(lambda r: True)
    for p, g in zip(model.parameters(), exact):
        error = np.abs(values(p.grad).astype(np.float64) - g).max()
        bound = 4 * unit * np.abs(g).max() + 1e-7
        assert error <= bound, (hook.__name__, error, bound)
    sent = ddp.reducer.last_step.bytes
    full = sum(p.numel() * 4 for p in model.parameters())
    assert sent == full // 2, (hook.__name__, sent, full)

# -- rank 0's parameters and buffers -------------------------------------------------------
ag.manual_seed(rank)
norm = nn.BatchNorm1d(3)
norm.running_mean.fill_(float(rank))
ddp = DDP(nn.Sequential(nn.Linear(3, 3), norm))
assert float(norm.running_mean.sum()) == 0.0, "buffers come from rank 0 at construction"
ag.manual_seed(0)
assert np.array_equal(values(ddp.module[0].weight), values(nn.Linear(3, 3).weight))
ddp.eval()
norm.running_mean.fill_(float(rank + 5))
ddp(ag.ones(2, 3))
assert float(norm.running_mean[0]) == 5.0, "broadcast_buffers: rank 0's at each forward"
quiet = DDP(nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3)), broadcast_buffers=False).eval()
quiet.module[1].running_mean.fill_(float(rank))
quiet(ag.ones(2, 3))
assert float(quiet.module[1].running_mean[0]) == rank

# -- torch's errors --------------------------------------------------------------------------
raises(RuntimeError, "DDP expects same model across all ranks", DDP,
       nn.Linear(3, 3 + rank))
raises(RuntimeError, "doesn't have any parameter that requires a gradient", DDP,
       nn.Linear(3, 3).requires_grad_(False))

# -- the DistributedSampler of the default group ---------------------------------------------
sampler = DistributedSampler(list(range(11)), shuffle=True, seed=3)
assert list(sampler) == list(DistributedSampler(list(range(11)), size, rank, seed=3))
everyone = [None] * size
dist.all_gather_object(everyone, list(sampler))
assert set(sum(everyone, [])) == set(range(11)) and len(sampler) == 6

finish()
