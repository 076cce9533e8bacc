"""``NAdam``, as ``torch.optim.NAdam``: Adam with Nesterov momentum, the step looking
ahead along the running average of the gradient, with a momentum coefficient that warms up
over the steps (``momentum_decay``); the product of those coefficients is kept as
state["mu_product"], a 0-dim tensor like the step counter (NOTE [The step counter]).

On the CPU the update runs on the NumPy arrays, op for op as torch's single-tensor path
(NOTE [Optimizer steps on the arrays]); elsewhere (a CUDA device) the same ops as Tensor
ops.
"""
import numpy as np

from autograd_cy._C.tensor import Tensor, _array_of
from autograd_cy.factories import tensor as _tensor, zeros_like
from autograd_cy.grad_mode import is_grad_enabled
from autograd_cy.optim import _arrays, _tensor_ops
from autograd_cy.optim._groups import wants_foreach
from autograd_cy.optim.adam import _step_dtype
from autograd_cy.optim.optimizer import Optimizer

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """``NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None, maximize=False,
    capturable=False, differentiable=False)``.

    ``mu_t = beta1 * (1 - 0.96 ** (t * momentum_decay) / 2)``; the step is the gradient
    weighted by ``(1 - mu_t) / (1 - prod mu)`` plus ``exp_avg`` weighted by
    ``mu_{t+1} / (1 - prod mu * mu_{t+1})``, both over ``sqrt(exp_avg_sq / bias) + eps``.
    ``decoupled_weight_decay`` shrinks the parameter (as AdamW) instead of adding L2.
    """

    _scalar_state = ("step", "mu_product")
    _capturable_error = ("If capturable=True, params, mu_products and state_steps must be on "
                         "supported devices: ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")
    _option_defaults = {"maximize": False, "foreach": None, "capturable": False,
                        "differentiable": False, "decoupled_weight_decay": False}

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
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
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_group(self, group):
        return self._gather_state(
            group, ("exp_avg", "exp_avg_sq", "mu_product", "step"), lambda p: {
                "step": _tensor(0.0, dtype=_step_dtype(), device="cpu"),
                "mu_product": _tensor(1.0, dtype=_step_dtype(), device="cpu"),
                "exp_avg": zeros_like(p), "exp_avg_sq": zeros_like(p)})

    def step(self, closure=None):
        """One NAdam update of every parameter that has a ``.grad``. Returns
        ``closure()``'s loss."""
        return self._step_groups(closure, self._update_group)

    def _update_group(self, group):
        lists = self._init_group(group)
        if not lists[0]:
            return
        beta1, beta2 = group["betas"]
        options = dict(lr=group["lr"], beta1=beta1, beta2=beta2, eps=group["eps"],
                       weight_decay=group["weight_decay"],
                       momentum_decay=group["momentum_decay"],
                       decoupled=group["decoupled_weight_decay"], maximize=group["maximize"])
        if group["differentiable"] or wants_foreach(lists):
            _nadam_on_tensors(*lists, **options)
        else:
            _nadam_on_arrays(*lists, self._scratch, **options)


def _momentum_coefficients(beta1, momentum_decay, step):
    """(mu_t, mu_{t+1}): the momentum of this step and of the next."""
    mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
    return mu, mu_next


def _nadam_on_arrays(params, grads, exp_avgs, exp_avg_sqs, mu_products, steps, scratch, *,
                     lr, beta1, beta2, eps, weight_decay, momentum_decay, decoupled,
                     maximize):
    """torch's ``_single_tensor_nadam`` on the tensors' arrays (the CPU path)."""
    written = params + exp_avgs + exp_avg_sqs + mu_products + steps
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
            bias_correction2 = 1 - beta2 ** step
            if maximize:
                g = np.negative(g)
            if weight_decay != 0:
                if decoupled:
                    np.multiply(p, ct(1 - lr * weight_decay), out=p, dtype=ct, casting=unsafe)
                else:
                    g = _arrays.added(g, p, weight_decay, ct, tmp)
            mu, mu_next = _momentum_coefficients(beta1, momentum_decay, step)
            mu_product = _array_of(mu_products[i])
            np.multiply(mu_product, mu, out=mu_product)
            exp_avg = _arrays.real_array(exp_avgs[i])
            exp_avg_sq = _arrays.real_array(exp_avg_sqs[i])
            _arrays.lerp_(exp_avg, g, 1 - beta1, ct, tmp)
            np.multiply(exp_avg_sq, ct(beta2), out=exp_avg_sq, dtype=ct, casting=unsafe)
            _arrays.addcmul_(exp_avg_sq, g, g, 1 - beta2, ct, tmp)
            denom = scratch.take(p.shape, p.dtype, 1)
            np.divide(exp_avg_sq, ct(bias_correction2), out=denom, dtype=ct, casting=unsafe)
            np.sqrt(denom, out=denom, dtype=ct, casting=unsafe)
            _arrays.add_number_(denom, eps, ct)
            product = float(mu_product)
            mu_product_next = product * mu_next
            _arrays.addcdiv_(p, g, denom, -lr * (1.0 - mu) / (1.0 - product), ct, tmp)
            _arrays.addcdiv_(p, exp_avg, denom, (-lr * mu_next) / (1.0 - mu_product_next),
                             ct, tmp)
    _arrays.bump_versions(written)


def _nadam_on_tensors(params, grads, exp_avgs, exp_avg_sqs, mu_products, steps, *, lr,
                      beta1, beta2, eps, weight_decay, momentum_decay, decoupled, maximize):
    """torch's ``_single_tensor_nadam`` in Tensor ops (a CUDA device's path)."""
    real = _tensor_ops.real
    for i, param in enumerate(params):
        grad = -grads[i] if maximize else grads[i]
        param, grad = real(param), real(grad)
        exp_avg, exp_avg_sq = real(exp_avgs[i]), real(exp_avg_sqs[i])
        steps[i].add_(1)
        step = steps[i].item()
        bias_correction2 = 1 - beta2 ** step
        if weight_decay != 0:
            if decoupled:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        mu, mu_next = _momentum_coefficients(beta1, momentum_decay, step)
        mu_products[i].mul_(mu)
        _tensor_ops.lerp_(exp_avg, grad, 1 - beta1)
        _tensor_ops.addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt().add(eps)   # (sqrt's result is saved)
        if is_grad_enabled():
            # differentiable: the coefficients are tensors of mu_product, recorded
            product = mu_products[i]
            _tensor_ops.addcdiv_(param, grad * (-lr * (1.0 - mu) / (1.0 - product)), denom)
            _tensor_ops.addcdiv_(param, exp_avg * (-lr * mu_next / (1.0 - product * mu_next)),
                                 denom)
            continue
        product = mu_products[i].item()
        mu_product_next = product * mu_next
        _tensor_ops.addcdiv_(param, grad, denom, -lr * (1.0 - mu) / (1.0 - product))
        _tensor_ops.addcdiv_(param, exp_avg, denom, (-lr * mu_next) / (1.0 - mu_product_next))
