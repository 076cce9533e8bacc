"""DistributedDataParallel on 2 ranks against one process with the whole batch (float64,
the same seed): each rank takes half the batch, and after every step the gradients and the
parameters must equal the single process's to 1e-12, and be bit-identical across ranks."""
import numpy as np

from ranks import ag, dist, finish, start, values

from autograd_cy.distributed.algorithms.ddp_comm_hooks import default_hooks
from autograd_cy.nn.parallel import DistributedDataParallel as DDP

rank, size = start()
BATCH, STEPS = 8, 3
rng = np.random.default_rng(0)
X = ag.tensor(rng.standard_normal((BATCH, 6)))
Y = ag.tensor(rng.standard_normal((BATCH, 4)))
mine = slice(rank * BATCH // size, (rank + 1) * BATCH // size)


def make_model(seed):
    ag.manual_seed(seed)
    return ag.nn.Sequential(ag.nn.Linear(6, 16), ag.nn.Tanh(), ag.nn.Linear(16, 16),
                            ag.nn.ReLU(), ag.nn.Linear(16, 4)).double()


def loss_of(model, x, y):
    return ag.nn.functional.mse_loss(model(x), y)


def single_process(make_optimizer):
    """Each step's gradients and parameters of one process with the whole batch."""
    model = make_model(0)
    optimizer = make_optimizer(model.parameters())
    history = []
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss_of(model, X, Y).backward()
        grads = [values(p.grad).copy() for p in model.parameters()]
        optimizer.step()
        history.append((grads, [values(p).copy() for p in model.parameters()]))
    return history


def check_against(history, ddp, optimizer, step_fn, what):
    for step, (grads, params) in enumerate(history):
        optimizer.zero_grad()
        step_fn(ddp)
        for i, p in enumerate(ddp.module.parameters()):
            np.testing.assert_allclose(values(p.grad), grads[i], rtol=0, atol=1e-12,
                                       err_msg=f"{what}: step {step} grad {i}")
        optimizer.step()
        for i, p in enumerate(ddp.module.parameters()):
            np.testing.assert_allclose(values(p), params[i], rtol=0, atol=1e-12,
                                       err_msg=f"{what}: step {step} param {i}")
    # the same bits on every rank
    flat = ag.cat([p.detach().reshape(-1) for p in ddp.module.parameters()])
    everyone = [ag.zeros_like(flat) for _ in range(size)]
    dist.all_gather(everyone, flat)
    for r in range(size):
        assert values(everyone[r]).tobytes() == values(flat).tobytes(), \
            f"{what}: rank {r}'s parameters differ in their bits"


def plain_step(ddp):
    loss_of(ddp, X[mine], Y[mine]).backward()


def accumulated_step(ddp):
    """Half of this rank's batch under no_sync, the other half synchronised."""
    local_x, local_y = X[mine], Y[mine]
    half = local_x.shape[0] // 2
    with ddp.no_sync():
        (loss_of(ddp, local_x[:half], local_y[:half]) / 2).backward()
    (loss_of(ddp, local_x[half:], local_y[half:]) / 2).backward()


def sgd(params):
    return ag.optim.SGD(params, lr=0.1, momentum=0.9)


def adam(params):
    return ag.optim.Adam(params, lr=0.01)


for what, make_optimizer, options, step_fn in [
        ("default buckets, SGD", sgd, {}, plain_step),
        ("a bucket per parameter, rebuilt", sgd, {"bucket_cap_mb": 1e-6}, plain_step),
        ("gradient_as_bucket_view, Adam", adam, {"gradient_as_bucket_view": True},
         plain_step),
        ("no_sync accumulation", sgd, {"bucket_cap_mb": 1e-3}, accumulated_step),
        ("the allreduce comm hook", sgd, {"hook": default_hooks.allreduce_hook},
         plain_step)]:
    history = single_process(make_optimizer)
    model = make_model(rank)  # each rank starts elsewhere: DDP takes rank 0's parameters
    hook = options.pop("hook", None)
    ddp = DDP(model, **options)
    if hook is not None:
        ddp.register_comm_hook(None, hook)
    check_against(history, ddp, make_optimizer(ddp.parameters()), step_fn, what)
    if options.get("gradient_as_bucket_view"):
        bucket_buffers = {id(b.buffer) for b in ddp.reducer.buckets}
        assert all(p.grad._base is not None and id(p.grad._base) in bucket_buffers
                   for p in model.parameters()), "the gradients are views of the buckets"

finish()
