"""``SGD``, as ``torch.optim.SGD``: ``param -= lr * grad``, optionally with momentum (a
running buffer of gradients, state["momentum_buffer"]), dampening, Nesterov's look-ahead,
L2 weight decay, and ``maximize``.

On the CPU the update runs on the NumPy arrays, op for op as torch's single-tensor path
(NOTE [Optimizer steps on the arrays]); on a CUDA device as torch's multi-tensor path.
"""
import numpy as np

from autograd_cy import foreach
from autograd_cy._C.tensor import Tensor, _array_of, _wrap_array
from autograd_cy.optim import _arrays
from autograd_cy.optim._groups import by_device_and_dtype, wants_foreach
from autograd_cy.optim.optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """``SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
    maximize=False, foreach=None, differentiable=False, fused=None)``.

    With momentum, ``buf = momentum * buf + (1 - dampening) * grad`` (the first step's
    buffer is the gradient itself) and the step follows ``buf``, or with ``nesterov``
    ``grad + momentum * buf``.
    """

    _foreach_differentiable = True
    _option_defaults = {"nesterov": False, "maximize": False, "foreach": None,
                        "differentiable": False, "fused": False}

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov,
                    "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One SGD update of every parameter that has a ``.grad``. Returns
        ``closure()``'s loss."""
        return self._step_groups(closure, self._update_group)

    def _update_group(self, group):
        params = [p for p in group["params"] if p.grad is not None]
        if not params:
            return
        grads = [p.grad for p in params]
        buffers = [self.state[p].get("momentum_buffer") for p in params] \
            if group["momentum"] != 0 else []
        options = dict(weight_decay=group["weight_decay"], momentum=group["momentum"],
                       lr=group["lr"], dampening=group["dampening"],
                       nesterov=group["nesterov"], maximize=group["maximize"])
        if group["differentiable"] or wants_foreach(
                [params, grads, [b for b in buffers if b is not None]]):
            _sgd_foreach(params, grads, buffers, **options)
        else:
            _sgd_on_arrays(params, grads, buffers, self._scratch, **options)
        for p, buffer in zip(params, buffers):
            self.state[p]["momentum_buffer"] = buffer


def _sgd_on_arrays(params, grads, buffers, scratch, *, weight_decay, momentum, lr,
                   dampening, nesterov, maximize):
    """torch's ``_single_tensor_sgd`` on the tensors' arrays (the CPU path); a first
    step's momentum buffer is created into ``buffers``."""
    written = params + [b for b in buffers if b is not None]
    _arrays.checked_writes(written)
    with np.errstate(all="ignore"):     # torch warns of no overflow or 0/0
        for i, param in enumerate(params):
            p, g = _arrays.real_array(param), _arrays.real_array(grads[i])
            ct = _arrays.compute_type(p)
            tmp = scratch.take(p.shape, ct, 0)
            if maximize:
                g = np.negative(g)
            if weight_decay != 0:
                g = _arrays.added(g, p, weight_decay, ct, tmp)
            if momentum != 0:
                if buffers[i] is None:
                    buffers[i] = _buffer_like(param, g)
                    buf = g
                else:
                    buf = _arrays.real_array(buffers[i])
                    np.multiply(buf, ct(momentum), out=buf, dtype=ct, casting=_arrays.UNSAFE)
                    _arrays.add_scaled_(buf, buf, g, 1 - dampening, ct, tmp)
                if nesterov:
                    g = _arrays.added(g, buf, momentum, ct, tmp)
                else:
                    g = buf
            _arrays.add_scaled_(p, p, g, -lr, ct, tmp)
    _arrays.bump_versions(written)


def _buffer_like(param, values):
    """A new momentum buffer for ``param`` holding ``values`` (its real view's array)."""
    array = np.array(values, copy=True)
    if param.is_complex():
        array = array.view(_array_of(param).dtype).reshape(tuple(param.shape))
    return _wrap_array(array)


def _sgd_foreach(params, grads, buffers, *, weight_decay, momentum, lr, dampening,
                 nesterov, maximize):
    """torch's ``_multi_tensor_sgd`` (its default on CUDA), per device and dtype."""
    for indices in by_device_and_dtype(params):
        p = [params[i] for i in indices]
        g = [grads[i] for i in indices]
        if maximize:
            g = list(foreach._foreach_neg(g))
        if weight_decay != 0:
            if maximize:
                foreach._foreach_add_(g, p, alpha=weight_decay)
            else:
                g = list(foreach._foreach_add(g, p, alpha=weight_decay))
        if momentum != 0:
            bufs = [buffers[i] for i in indices]
            if all(b is not None for b in bufs):
                foreach._foreach_mul_(bufs, momentum)
                foreach._foreach_add_(bufs, g, alpha=1 - dampening)
            else:
                for k, i in enumerate(indices):
                    if buffers[i] is None:
                        buffers[i] = g[k].clone().detach()
                    else:
                        buffers[i].mul_(momentum).add_(g[k], alpha=1 - dampening)
                bufs = [buffers[i] for i in indices]
            if nesterov:
                foreach._foreach_add_(g, bufs, alpha=momentum)
            else:
                g = bufs
        foreach._foreach_add_(p, g, alpha=-lr)
