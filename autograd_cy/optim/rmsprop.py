"""``RMSprop``, as ``torch.optim.RMSprop``: each element's step is the gradient divided by
the root of a running average of its square (``square_avg``), optionally centred by the
running average of the gradient itself (``grad_avg``) and smoothed by momentum
(``momentum_buffer``).

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

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """``RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
    centered=False, capturable=False, foreach=None, maximize=False,
    differentiable=False)``.

    ``square_avg = alpha * square_avg + (1 - alpha) * grad**2``; the step is
    ``lr * grad / (sqrt(square_avg) + eps)`` (with ``centered``, ``square_avg - grad_avg**2``
    under the root), or with momentum ``lr * buf`` where ``buf = momentum * buf`` plus that
    ratio.
    """

    _capturable_error = ("If capturable=True, params and state_steps must be on supported "
                         "devices: ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")
    _option_defaults = {"momentum": 0, "centered": False, "foreach": None,
                        "maximize": False, "differentiable": False, "capturable": False}

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_group(self, group):
        """The group's parameters that have a gradient, their gradients and state (created
        at a parameter's first step)."""
        momentum, centered = group["momentum"] > 0, group["centered"]

        def fresh(p):
            state = {"step": _tensor(0.0, dtype=_step_dtype(), device="cpu"),
                     "square_avg": zeros_like(p)}
            if momentum:
                state["momentum_buffer"] = zeros_like(p)
            if centered:
                state["grad_avg"] = zeros_like(p)
            return state
        return self._gather_state(group, ("square_avg", "grad_avg" if centered else None,
                                          "momentum_buffer" if momentum else None, "step"),
                                  fresh)

    def step(self, closure=None):
        """One RMSprop update of every parameter that has a ``.grad``. Returns
        ``closure()``'s loss."""
        return self._step_groups(closure, self._update_group)

    def _update_group(self, group):
        lists = self._init_group(group)
        if not lists[0]:
            return
        options = dict(lr=group["lr"], alpha=group["alpha"], eps=group["eps"],
                       weight_decay=group["weight_decay"], momentum=group["momentum"],
                       centered=group["centered"], maximize=group["maximize"])
        if group["differentiable"] or wants_foreach(lists):
            _rmsprop_on_tensors(*lists, **options)
        else:
            _rmsprop_on_arrays(*lists, self._scratch, **options)


def _rmsprop_on_arrays(params, grads, square_avgs, grad_avgs, buffers, steps, scratch, *,
                       lr, alpha, eps, weight_decay, momentum, centered, maximize):
    """torch's ``_single_tensor_rmsprop`` on the tensors' arrays (the CPU path)."""
    written = params + square_avgs + grad_avgs + buffers + steps
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
            square_avg = _arrays.real_array(square_avgs[i])
            np.multiply(square_avg, ct(alpha), out=square_avg, dtype=ct,
                        casting=_arrays.UNSAFE)
            _arrays.addcmul_(square_avg, g, g, 1 - alpha, ct, tmp)
            avg = scratch.take(p.shape, p.dtype, 1)
            if centered:
                grad_avg = _arrays.real_array(grad_avgs[i])
                _arrays.lerp_(grad_avg, g, 1 - alpha, ct, tmp)
                np.copyto(avg, square_avg)
                _arrays.addcmul_(avg, grad_avg, grad_avg, -1, ct, tmp)
                np.sqrt(avg, out=avg, dtype=ct, casting=_arrays.UNSAFE)
            else:
                np.sqrt(square_avg, out=avg, dtype=ct, casting=_arrays.UNSAFE)
            _arrays.add_number_(avg, eps, ct)
            if momentum > 0:
                buf = _arrays.real_array(buffers[i])
                np.multiply(buf, ct(momentum), out=buf, dtype=ct, casting=_arrays.UNSAFE)
                _arrays.addcdiv_(buf, g, avg, 1, ct, tmp)
                _arrays.add_scaled_(p, p, buf, -lr, ct, tmp)
            else:
                _arrays.addcdiv_(p, g, avg, -lr, ct, tmp)
    _arrays.bump_versions(written)


def _rmsprop_on_tensors(params, grads, square_avgs, grad_avgs, buffers, steps, *, lr,
                        alpha, eps, weight_decay, momentum, centered, maximize):
    """torch's ``_single_tensor_rmsprop`` in Tensor ops (a CUDA device's path)."""
    real = _tensor_ops.real
    for i, param in enumerate(params):
        grad = -grads[i] if maximize else grads[i]
        steps[i].add_(1)
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        param, grad, square_avg = real(param), real(grad), real(square_avgs[i])
        _tensor_ops.addcmul_(square_avg.mul_(alpha), grad, grad, 1 - alpha)
        if centered:
            grad_avg = _tensor_ops.lerp_(real(grad_avgs[i]), grad, 1 - alpha)
            avg = _tensor_ops.addcmul_(square_avg.clone(), grad_avg, grad_avg, -1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add(eps)                    # (sqrt's result is saved)
        if momentum > 0:
            buf = _tensor_ops.addcdiv_(real(buffers[i]).mul_(momentum), grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            _tensor_ops.addcdiv_(param, grad, avg, -lr)
