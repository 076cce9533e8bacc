"""``Adamax``, as ``torch.optim.Adamax``: Adam with the infinity norm in place of the root
mean square: each element's step divides the running average of the gradient
(``exp_avg``) by an exponentially weighted maximum of its magnitude (``exp_inf``).

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

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """``Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    foreach=None, *, maximize=False, differentiable=False, capturable=False)``.

    ``exp_inf = max(beta2 * exp_inf, |grad| + eps)``; the step is
    ``lr / (1 - beta1**step) * exp_avg / exp_inf``.
    """

    _capturable_error = ("If capturable=True, params and state_steps must be on supported "
                         "devices: ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")
    _option_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                        "capturable": False}

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
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
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _init_group(self, group):
        return self._gather_state(group, ("exp_avg", "exp_inf", "step"), lambda p: {
            "step": _tensor(0.0, dtype=_step_dtype(), device="cpu"), "exp_avg": zeros_like(p),
            "exp_inf": zeros_like(p)})

    def step(self, closure=None):
        """One Adamax update of every parameter that has a ``.grad``. Returns
        ``closure()``'s loss."""
        return self._step_groups(closure, self._update_group)

    def _update_group(self, group):
        lists = self._init_group(group)
        if not lists[0]:
            return
        beta1, beta2 = group["betas"]
        options = dict(lr=group["lr"], beta1=beta1, beta2=beta2, eps=group["eps"],
                       weight_decay=group["weight_decay"], maximize=group["maximize"])
        if group["differentiable"] or wants_foreach(lists):
            _adamax_on_tensors(*lists, **options)
        else:
            _adamax_on_arrays(*lists, self._scratch, **options)


def _adamax_on_arrays(params, grads, exp_avgs, exp_infs, steps, scratch, *, lr, beta1,
                      beta2, eps, weight_decay, maximize):
    """torch's ``_single_tensor_adamax`` on the tensors' arrays (the CPU path)."""
    written = params + exp_avgs + exp_infs + steps
    _arrays.checked_writes(written)
    with np.errstate(all="ignore"):     # torch warns of no overflow or 0/0
        for i, param in enumerate(params):
            p, g = _arrays.real_array(param), _arrays.real_array(grads[i])
            ct = _arrays.compute_type(p)
            tmp = scratch.take(p.shape, ct, 0)
            count = _array_of(steps[i])
            np.add(count, 1, out=count)
            if maximize:
                g = np.negative(g)
            if weight_decay != 0:
                g = _arrays.added(g, p, weight_decay, ct, tmp)
            exp_avg = _arrays.real_array(exp_avgs[i])
            exp_inf = _arrays.real_array(exp_infs[i])
            _arrays.lerp_(exp_avg, g, 1 - beta1, ct, tmp)
            np.multiply(exp_inf, ct(beta2), out=exp_inf, dtype=ct, casting=_arrays.UNSAFE)
            norm = scratch.take(p.shape, p.dtype, 1)
            np.abs(g, out=norm)
            _arrays.add_number_(norm, eps, ct)
            np.maximum(exp_inf, norm, out=exp_inf)
            clr = lr / (1 - beta1 ** float(count))
            _arrays.addcdiv_(p, exp_avg, exp_inf, -clr, ct, tmp)
    _arrays.bump_versions(written)


def _adamax_on_tensors(params, grads, exp_avgs, exp_infs, steps, *, lr, beta1, beta2, eps,
                       weight_decay, maximize):
    """torch's ``_single_tensor_adamax`` in Tensor ops (a CUDA device's path)."""
    from autograd_cy import maximum
    real = _tensor_ops.real
    for param, grad, exp_avg, exp_inf, step in zip(params, grads, exp_avgs, exp_infs, steps):
        grad = -grad if maximize else grad
        step.add_(1)
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        param, grad, exp_avg, exp_inf = real(param), real(grad), real(exp_avg), real(exp_inf)
        _tensor_ops.lerp_(exp_avg, grad, 1 - beta1)
        # of a copy: maximum's backward needs the values copy_ overwrites
        exp_inf.copy_(maximum(exp_inf.mul_(beta2).clone(), grad.abs().add_(eps)))
        clr = lr / (1 - beta1 ** step.item())
        _tensor_ops.addcdiv_(param, exp_avg, exp_inf, -clr)
