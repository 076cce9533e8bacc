"""Workloads of ``autograd_cy.optim`` against ``torch.optim``.

- ``optim_adam_step``: ``Adam.step()`` alone, over the parameters of a 784-256-256-10 MLP
  (two weights of 200,704 and 65,536 elements, 269,322 in all) whose ``.grad`` are fixed,
  against torch's single-tensor path (``foreach=False``, its CPU default). Issue 29's target:
  at most 0.5x torch. The NumPy floor is the same update written by hand: the ufuncs of
  NOTE [Optimizer steps on the arrays] on preallocated scratch arrays, without the Tensor
  bookkeeping (state lookups, version bumps, hooks).
"""
import numpy as np

from benchmarks import workloads
from benchmarks.workloads import Workload, constant, library

SIZES = (784, 256, 256, 10)


class AdamStep(Workload):
    name = "optim_adam_step"
    description = "Adam.step() alone, 784-256-256-10 MLP parameters, fixed grads"
    lr, betas, eps = 1e-3, (0.9, 0.999), 1e-8

    def __init__(self):
        rng = np.random.default_rng(5)
        shapes = [s for n_in, n_out in zip(SIZES[:-1], SIZES[1:])
                  for s in ((n_out, n_in), (n_out,))]
        self.values = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        self.grads = [rng.standard_normal(s).astype(np.float32) for s in shapes]

    def build(self, impl):
        if impl == "numpy":
            return self._numpy_step()
        lib = library(impl)
        params = [constant(impl, v, requires_grad=True) for v in self.values]
        for p, g in zip(params, self.grads):
            p.grad = constant(impl, g)
        options = {"foreach": workloads.DEVICE != "cpu"} if impl == "torch" else {}
        optimizer = lib.optim.Adam(params, lr=self.lr, betas=self.betas, eps=self.eps,
                                   **options)
        return optimizer.step

    def _numpy_step(self):
        params = [v.copy() for v in self.values]
        update = numpy_adam(params, self.lr, self.betas, self.eps)
        return lambda: update(self.grads)


def numpy_adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
    """Adam by hand on the float32 arrays ``params``: ``update(grads)`` is one step, the
    ufuncs of NOTE [Optimizer steps on the arrays] on preallocated scratch arrays (the floor
    of ``optim_adam_step`` and of ``train_mlp``'s update)."""
    moments = [(np.zeros_like(v), np.zeros_like(v)) for v in params]
    scratch = [(np.empty_like(v), np.empty_like(v)) for v in params]
    beta1, beta2 = betas
    f32 = np.float32
    count = [0]

    def update(grads):
        count[0] += 1
        k = count[0]
        step_size = f32(-lr / (1 - beta1 ** k))
        bias_correction2_sqrt = f32((1 - beta2 ** k) ** 0.5)
        for p, g, (m, v), (a, b) in zip(params, grads, moments, scratch):
            np.subtract(g, m, out=a)                    # m.lerp_(g, 1 - beta1)
            np.multiply(a, f32(1 - beta1), out=a)
            np.add(m, a, out=m)
            np.multiply(v, f32(beta2), out=v)           # v.mul_(beta2).addcmul_(g, g)
            np.multiply(g, f32(1 - beta2), out=a)
            np.multiply(a, g, out=a)
            np.add(v, a, out=v)
            np.sqrt(v, out=a)                           # denom
            np.divide(a, bias_correction2_sqrt, out=a)
            np.add(a, f32(eps), out=a)
            np.multiply(m, step_size, out=b)            # p.addcdiv_(m, denom)
            np.divide(b, a, out=b)
            np.add(p, b, out=p)
    return update


def optim_workloads():
    return [AdamStep()]
