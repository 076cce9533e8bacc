"""``Adadelta``, as ``torch.optim.Adadelta``: a step whose size needs no learning rate of
its own, the ratio of two running root-mean-squares: of past updates (``acc_delta``) over
past gradients (``square_avg``), times the gradient (``lr`` scales the result, 1.0 by
default).

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

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """``Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
    capturable=False, maximize=False, differentiable=False)``.

    ``square_avg = rho * square_avg + (1 - rho) * grad**2``,
    ``delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * grad``,
    ``acc_delta = rho * acc_delta + (1 - rho) * delta**2``, and ``param -= lr * delta``.
    """

    _capturable_error = ("If capturable=True, params and state_steps must be on supported "
                         "devices: ['cuda', 'xpu', 'hpu', 'privateuseone'].")
    _option_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                        "capturable": False}

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_group(self, group):
        return self._gather_state(group, ("square_avg", "acc_delta", "step"), lambda p: {
            "step": _tensor(0.0, dtype=_step_dtype(), device="cpu"), "square_avg": zeros_like(p),
            "acc_delta": zeros_like(p)})

    def step(self, closure=None):
        """One Adadelta update of every parameter that has a ``.grad``. Returns
        ``closure()``'s loss."""
        return self._step_groups(closure, self._update_group)

    def _update_group(self, group):
        lists = self._init_group(group)
        if not lists[0]:
            return
        options = dict(lr=group["lr"], rho=group["rho"], eps=group["eps"],
                       weight_decay=group["weight_decay"], maximize=group["maximize"])
        if group["differentiable"] or wants_foreach(lists):
            _adadelta_on_tensors(*lists, **options)
        else:
            _adadelta_on_arrays(*lists, self._scratch, **options)


def _adadelta_on_arrays(params, grads, square_avgs, acc_deltas, steps, scratch, *, lr, rho,
                        eps, weight_decay, maximize):
    """torch's ``_single_tensor_adadelta`` on the tensors' arrays (the CPU path)."""
    written = params + square_avgs + acc_deltas + steps
    _arrays.checked_writes(written)
    unsafe = _arrays.UNSAFE
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
            square_avg = _arrays.real_array(square_avgs[i])
            acc_delta = _arrays.real_array(acc_deltas[i])
            np.multiply(square_avg, ct(rho), out=square_avg, dtype=ct, casting=unsafe)
            _arrays.addcmul_(square_avg, g, g, 1 - rho, ct, tmp)
            std = scratch.take(p.shape, p.dtype, 1)
            np.copyto(std, square_avg)
            _arrays.add_number_(std, eps, ct)
            np.sqrt(std, out=std, dtype=ct, casting=unsafe)
            delta = scratch.take(p.shape, p.dtype, 2)
            np.copyto(delta, acc_delta)
            _arrays.add_number_(delta, eps, ct)
            np.sqrt(delta, out=delta, dtype=ct, casting=unsafe)
            np.divide(delta, std, out=delta, dtype=ct, casting=unsafe)
            np.multiply(delta, g, out=delta, dtype=ct, casting=unsafe)
            np.multiply(acc_delta, ct(rho), out=acc_delta, dtype=ct, casting=unsafe)
            _arrays.addcmul_(acc_delta, delta, delta, 1 - rho, ct, tmp)
            _arrays.add_scaled_(p, p, delta, -lr, ct, tmp)
    _arrays.bump_versions(written)


def _adadelta_on_tensors(params, grads, square_avgs, acc_deltas, steps, *, lr, rho, eps,
                         weight_decay, maximize):
    """torch's ``_single_tensor_adadelta`` in Tensor ops (a CUDA device's path)."""
    real = _tensor_ops.real
    for param, grad, square_avg, acc_delta, step in zip(params, grads, square_avgs,
                                                        acc_deltas, steps):
        step.add_(1)
        grad = -grad if maximize else grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        param, grad = real(param), real(grad)
        square_avg, acc_delta = real(square_avg), real(acc_delta)
        _tensor_ops.addcmul_(square_avg.mul_(rho), grad, grad, 1 - rho)
        std = square_avg.add(eps).sqrt_()
        # a copy: sqrt_'s backward needs its result
        delta = acc_delta.add(eps).sqrt_().clone().div_(std).mul_(grad)
        _tensor_ops.addcmul_(acc_delta.mul_(rho), delta, delta, 1 - rho)
        param.add_(delta, alpha=-lr)
