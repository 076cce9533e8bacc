"""``RAdam``, as ``torch.optim.RAdam``: Adam with its adaptive step rectified: while the
variance estimate of ``exp_avg_sq`` is still unreliable (its length of the approximated
simple moving average, ``rho_t``, at most 5) the step follows the bias-corrected momentum
alone, then the adaptive step scaled by the rectification term.

On the CPU the update runs on the NumPy arrays, op for op as torch's single-tensor path
(NOTE [Optimizer steps on the arrays]); elsewhere (a CUDA device) the same ops as Tensor
ops.
"""
import numpy as np

from autograd_cy._C.tensor import Tensor, _array_of
from autograd_cy.factories import tensor as _tensor, zeros_like
from autograd_cy.optim import _arrays, _tensor_ops
from autograd_cy.optim._groups import wants_foreach
from autograd_cy.optim.adam import _step_dtype
from autograd_cy.optim.optimizer import Optimizer

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """``RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
    differentiable=False)``."""

    _capturable_error = ("If capturable=True, params and state_steps must be on supported "
                         "devices: ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")
    _option_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                        "decoupled_weight_decay": False, "capturable": False}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_group(self, group):
        return self._gather_state(group, ("exp_avg", "exp_avg_sq", "step"), lambda p: {
            "step": _tensor(0.0, dtype=_step_dtype(), device="cpu"), "exp_avg": zeros_like(p),
            "exp_avg_sq": zeros_like(p)})

    def step(self, closure=None):
        """One RAdam update of every parameter that has a ``.grad``. Returns
        ``closure()``'s loss."""
        return self._step_groups(closure, self._update_group)

    def _update_group(self, group):
        lists = self._init_group(group)
        if not lists[0]:
            return
        beta1, beta2 = group["betas"]
        options = dict(lr=group["lr"], beta1=beta1, beta2=beta2, eps=group["eps"],
                       weight_decay=group["weight_decay"],
                       decoupled=group["decoupled_weight_decay"], maximize=group["maximize"])
        if group["differentiable"] or wants_foreach(lists):
            _radam_on_tensors(*lists, **options)
        else:
            _radam_on_arrays(*lists, self._scratch, **options)


def _rectification(beta2, step):
    """(rho_t, the rectification term): the step is adaptive only where rho_t > 5."""
    bias_correction2 = 1 - beta2 ** step
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
    if rho_t <= 5.0:
        return rho_t, None
    return rho_t, ((rho_t - 4) * (rho_t - 2) * rho_inf
                   / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5


def _radam_on_arrays(params, grads, exp_avgs, exp_avg_sqs, steps, scratch, *, lr, beta1,
                     beta2, eps, weight_decay, decoupled, maximize):
    """torch's ``_single_tensor_radam`` on the tensors' arrays (the CPU path)."""
    written = params + exp_avgs + exp_avg_sqs + steps
    _arrays.checked_writes(written)
    unsafe = _arrays.UNSAFE
    with np.errstate(all="ignore"):     # torch warns of no overflow or 0/0
        for i, param in enumerate(params):
            p, g = _arrays.real_array(param), _arrays.real_array(grads[i])
            ct = _arrays.compute_type(p)
            tmp = scratch.take(p.shape, ct, 0)
            count = _array_of(steps[i])
            np.add(count, 1, out=count)
            step = float(count)
            if maximize:
                g = np.negative(g)
            if weight_decay != 0:
                if decoupled:
                    np.multiply(p, ct(1 - lr * weight_decay), out=p, dtype=ct, casting=unsafe)
                else:
                    g = _arrays.added(g, p, weight_decay, ct, tmp)
            exp_avg = _arrays.real_array(exp_avgs[i])
            exp_avg_sq = _arrays.real_array(exp_avg_sqs[i])
            _arrays.lerp_(exp_avg, g, 1 - beta1, ct, tmp)
            np.multiply(exp_avg_sq, ct(beta2), out=exp_avg_sq, dtype=ct, casting=unsafe)
            _arrays.addcmul_(exp_avg_sq, g, g, 1 - beta2, ct, tmp)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            update = scratch.take(p.shape, p.dtype, 1)   # the bias-corrected exp_avg, then
            np.divide(exp_avg, ct(bias_correction1), out=update, dtype=ct, casting=unsafe)
            np.multiply(update, ct(lr), out=update, dtype=ct, casting=unsafe)
            _, rect = _rectification(beta2, step)
            if rect is not None:
                # the adaptive lr, bias_correction2 ** 0.5 / (sqrt(exp_avg_sq) + eps),
                # a number over a tensor: torch computes it as reciprocal, then product
                adaptive = scratch.take(p.shape, p.dtype, 2)
                np.sqrt(exp_avg_sq, out=adaptive, dtype=ct, casting=unsafe)
                _arrays.add_number_(adaptive, eps, ct)
                np.reciprocal(adaptive, out=adaptive, dtype=ct, casting=unsafe)
                np.multiply(adaptive, ct(bias_correction2 ** 0.5), out=adaptive, dtype=ct,
                            casting=unsafe)
                np.multiply(update, adaptive, out=update, dtype=ct, casting=unsafe)
                np.multiply(update, ct(rect), out=update, dtype=ct, casting=unsafe)
            _arrays.add_scaled_(p, p, update, -1.0, ct, tmp)
    _arrays.bump_versions(written)


def _radam_on_tensors(params, grads, exp_avgs, exp_avg_sqs, steps, *, lr, beta1, beta2,
                      eps, weight_decay, decoupled, maximize):
    """torch's ``_single_tensor_radam`` in Tensor ops (a CUDA device's path)."""
    real = _tensor_ops.real
    for i, param in enumerate(params):
        grad = -grads[i] if maximize else grads[i]
        param, grad = real(param), real(grad)
        exp_avg, exp_avg_sq = real(exp_avgs[i]), real(exp_avg_sqs[i])
        steps[i].add_(1)
        step = steps[i].item()
        if weight_decay != 0:
            if decoupled:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        _tensor_ops.lerp_(exp_avg, grad, 1 - beta1)
        _tensor_ops.addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        update = exp_avg / bias_correction1 * lr
        _, rect = _rectification(beta2, step)
        if rect is not None:
            adaptive = exp_avg_sq.sqrt().add(eps).reciprocal() * bias_correction2 ** 0.5
            update = update * adaptive * rect
        param.add_(update, alpha=-1.0)
