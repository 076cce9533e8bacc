"""``Rprop``, as ``torch.optim.Rprop``: resilient backpropagation. Only the sign of the
gradient is used: each element keeps its own step size (``step_size``), which grows by
``etaplus`` while the gradient keeps its sign and shrinks by ``etaminus`` when it flips
(then that element skips the step, and its remembered gradient, ``prev``, is zeroed).

On the CPU the update runs on the NumPy arrays, op for op as torch's single-tensor path
(NOTE [Optimizer steps on the arrays]); elsewhere (a CUDA device) the same ops as Tensor
ops.
"""
import numpy as np

from autograd_cy._C.tensor import Tensor, _array_of
from autograd_cy.factories import full_like, tensor as _tensor, zeros_like
from autograd_cy.optim import _arrays, _tensor_ops
from autograd_cy.optim._groups import wants_foreach
from autograd_cy.optim.adam import _step_dtype
from autograd_cy.optim.optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """``Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
    capturable=False, foreach=None, maximize=False, differentiable=False)``.

    ``lr`` is every element's first step size; ``step_sizes`` bound them.
    """

    _capturable_error = ("If capturable=True, params and state_steps must be on supported "
                         "devices: ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")
    _option_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                        "capturable": False}

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def _init_group(self, group):
        lr = group["lr"]
        return self._gather_state(group, ("prev", "step_size", "step"), lambda p: {
            "step": _tensor(0.0, dtype=_step_dtype(), device="cpu"), "prev": zeros_like(p),
            "step_size": full_like(p.grad, complex(lr, lr) if p.is_complex() else lr)})

    def step(self, closure=None):
        """One Rprop update of every parameter that has a ``.grad``. Returns
        ``closure()``'s loss."""
        return self._step_groups(closure, self._update_group)

    def _update_group(self, group):
        lists = self._init_group(group)
        if not lists[0]:
            return
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        options = dict(step_size_min=step_size_min, step_size_max=step_size_max,
                       etaminus=etaminus, etaplus=etaplus, maximize=group["maximize"])
        if group["differentiable"] or wants_foreach(lists):
            _rprop_on_tensors(*lists, **options)
        else:
            _rprop_on_arrays(*lists, self._scratch, **options)


def _rprop_on_arrays(params, grads, prevs, step_sizes, steps, scratch, *, step_size_min,
                     step_size_max, etaminus, etaplus, maximize):
    """torch's ``_single_tensor_rprop`` on the tensors' arrays (the CPU path)."""
    written = params + prevs + step_sizes + steps
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
            prev = _arrays.real_array(prevs[i])
            step_size = _arrays.real_array(step_sizes[i])
            factor = scratch.take(p.shape, p.dtype, 1)      # the sign, then the factor
            np.multiply(g, prev, out=factor, dtype=ct, casting=unsafe)
            np.sign(factor, out=factor)
            factor[factor > 0] = etaplus
            factor[factor < 0] = etaminus
            factor[factor == 0] = 1
            np.multiply(step_size, factor, out=step_size, dtype=ct, casting=unsafe)
            np.clip(step_size, ct(step_size_min), ct(step_size_max), out=step_size,
                    dtype=ct, casting=unsafe)
            np.copyto(prev, g)
            prev[factor == etaminus] = 0           # a flipped sign skips this step
            direction = scratch.take(p.shape, p.dtype, 2)
            np.sign(prev, out=direction)
            _arrays.addcmul_(p, direction, step_size, -1, ct, tmp)
    _arrays.bump_versions(written)


def _rprop_on_tensors(params, grads, prevs, step_sizes, steps, *, step_size_min,
                      step_size_max, etaminus, etaplus, maximize):
    """torch's ``_single_tensor_rprop`` in Tensor ops (a CUDA device's path)."""
    real = _tensor_ops.real
    for param, grad, prev, step_size, step in zip(params, grads, prevs, step_sizes, steps):
        grad = -grad if maximize else grad
        step.add_(1)
        param, grad, prev, step_size = real(param), real(grad), real(prev), real(step_size)
        sign = grad.mul(prev.clone()).sign()   # (prev is overwritten below)
        sign.masked_fill_(sign.gt(0), etaplus)
        sign.masked_fill_(sign.lt(0), etaminus)
        sign.masked_fill_(sign.eq(0), 1)
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        grad = grad.clone()
        grad.masked_fill_(sign.eq(etaminus), 0)
        _tensor_ops.addcmul_(param, grad.sign(), step_size, -1)
        prev.copy_(grad)
