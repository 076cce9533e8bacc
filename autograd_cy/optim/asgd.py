"""``ASGD``, as ``torch.optim.ASGD``: averaged stochastic gradient descent. The parameter
takes SGD steps of a decaying size (``eta``) while ``ax`` keeps a running average of its
values (the plain copy until step ``t0``, then an average with weight ``mu``); the average
is what the method returns as its estimate.

``eta`` and ``mu`` are 0-dim tensors of the step counter's dtype on the parameter's device,
as torch keeps them. On the CPU the update runs on the NumPy arrays, op for op as torch's
single-tensor path (NOTE [Optimizer steps on the arrays]); elsewhere (a CUDA device) the
same ops as Tensor ops.
"""
import numpy as np

from autograd_cy._C.tensor import Tensor, _array_of
from autograd_cy.factories import tensor as _tensor, zeros_like
from autograd_cy.optim import _arrays, _tensor_ops
from autograd_cy.optim._groups import wants_foreach
from autograd_cy.optim.adam import _step_dtype
from autograd_cy.optim.optimizer import Optimizer

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """``ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
    foreach=None, maximize=False, differentiable=False, capturable=False)``.

    ``param = param * (1 - lambd * eta) - eta * grad``; after each step
    ``eta = lr / (1 + lambd * lr * step) ** alpha`` and ``mu = 1 / max(1, step - t0)``.
    """

    _scalar_state = ("step", "eta", "mu")
    _scalar_state_on_device = True
    _capturable_error = ("If capturable=True, params, mus, etas, and state_steps must be on "
                         "supported devices: ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")
    _option_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                        "capturable": False}

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _init_group(self, group):
        return self._gather_state(group, ("mu", "ax", "eta", "step"), lambda p: {
            "step": _tensor(0.0, dtype=_step_dtype(), device=p.device),
            "eta": _tensor(group["lr"], dtype=_step_dtype(), device=p.device),
            "mu": _tensor(1.0, dtype=_step_dtype(), device=p.device),
            "ax": zeros_like(p)})

    def step(self, closure=None):
        """One ASGD update of every parameter that has a ``.grad``. Returns
        ``closure()``'s loss."""
        return self._step_groups(closure, self._update_group)

    def _update_group(self, group):
        lists = self._init_group(group)
        if not lists[0]:
            return
        options = dict(lr=group["lr"], lambd=group["lambd"], alpha=group["alpha"],
                       t0=group["t0"], weight_decay=group["weight_decay"],
                       maximize=group["maximize"])
        if group["differentiable"] or wants_foreach(lists):
            _asgd_on_tensors(*lists, **options)
        else:
            _asgd_on_arrays(*lists, self._scratch, **options)


def _next_eta_and_mu(lr, lambd, alpha, t0, step, device):
    """The next eta and mu as torch computes them: Python floats made tensors of the
    default dtype (float32: rounded so even where the state is float64, as after a
    ``load_state_dict`` has cast it to a float64 parameter's dtype)."""
    return (_tensor(lr / ((1 + lambd * lr * step) ** alpha), device=device),
            _tensor(1 / max(1, step - t0), device=device))


def _asgd_on_arrays(params, grads, mus, axs, etas, steps, scratch, *, lr, lambd, alpha,
                    t0, weight_decay, maximize):
    """torch's ``_single_tensor_asgd`` on the tensors' arrays (the CPU path)."""
    written = params + axs + mus + etas + steps
    _arrays.checked_writes(written)
    unsafe = _arrays.UNSAFE
    with np.errstate(all="ignore"):     # torch warns of no overflow or 0/0
        for i, param in enumerate(params):
            p, g = _arrays.real_array(param), _arrays.real_array(grads[i])
            ct = _arrays.compute_type(p)
            tmp = scratch.take(p.shape, ct, 0)
            if maximize:
                g = np.negative(g)
            count = _array_of(steps[i])
            np.add(count, 1, out=count)
            if weight_decay != 0:
                g = _arrays.added(g, p, weight_decay, ct, tmp)
            eta, mu = _array_of(etas[i]), _array_of(mus[i])
            eta_value = float(eta)
            np.multiply(p, ct(1 - lambd * eta_value), out=p, dtype=ct, casting=unsafe)
            _arrays.add_scaled_(p, p, g, -eta_value, ct, tmp)
            ax = _arrays.real_array(axs[i])
            if float(mu) != 1:
                # ax.add_(param.sub(ax).mul_(mu)): mu, a 0-dim tensor, multiplies as a
                # number of the parameter's dtype
                moved = scratch.take(p.shape, p.dtype, 1)
                np.subtract(p, ax, out=moved, dtype=ct, casting=unsafe)
                np.multiply(moved, ct(float(mu)), out=moved, dtype=ct, casting=unsafe)
                np.add(ax, moved, out=ax, dtype=ct, casting=unsafe)
            else:
                np.copyto(ax, p)
            next_eta, next_mu = _next_eta_and_mu(lr, lambd, alpha, t0, float(count), "cpu")
            eta[...], mu[...] = _array_of(next_eta), _array_of(next_mu)
    _arrays.bump_versions(written)


def _asgd_on_tensors(params, grads, mus, axs, etas, steps, *, lr, lambd, alpha, t0,
                     weight_decay, maximize):
    """torch's ``_single_tensor_asgd`` in Tensor ops (a CUDA device's path)."""
    real = _tensor_ops.real
    for param, grad, mu, ax, eta, step in zip(params, grads, mus, axs, etas, steps):
        grad = -grad if maximize else grad
        param, grad, ax = real(param), real(grad), real(ax)
        step.add_(1)
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        eta_value = eta.item()
        param.mul_(1 - lambd * eta_value)
        param.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu.item()))
        else:
            ax.copy_(param)
        next_eta, next_mu = _next_eta_and_mu(lr, lambd, alpha, t0, step.item(), eta.device)
        eta.copy_(next_eta)
        mu.copy_(next_mu)
