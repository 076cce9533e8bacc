"""``Adagrad``, as ``torch.optim.Adagrad``: each element's step is the gradient divided by
the root of the sum of all its past squares (``sum``), so that often-updated elements slow
down; the learning rate may decay with the step count (``lr_decay``).

Unlike the other optimizers, Adagrad creates every parameter's state when it is built (the
sum starts at ``initial_accumulator_value``), so a fresh ``state_dict()`` already holds it.
On the CPU the update runs on the NumPy arrays, op for op as torch's single-tensor path
(NOTE [Optimizer steps on the arrays]); elsewhere (a CUDA device) the same ops as Tensor
ops.
"""
import numpy as np

from autograd_cy._C.tensor import Tensor, _array_of
from autograd_cy.dtypes import float32
from autograd_cy.factories import full_like, tensor as _tensor
from autograd_cy.optim import _arrays, _tensor_ops
from autograd_cy.optim._groups import wants_foreach
from autograd_cy.optim.adam import _step_dtype
from autograd_cy.optim.optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """``Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
    eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None)``.

    ``sum += grad**2``; the step is ``clr * grad / (sqrt(sum) + eps)`` with
    ``clr = lr / (1 + (step - 1) * lr_decay)``.
    """

    _option_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                        "fused": None}

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: "
                             f"{initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p].update(self._fresh_state(p, group["fused"]))

    def _fresh_state(self, p, fused):
        """A parameter's state before its first step. The step counter is torch's: a CPU
        scalar of the default dtype (NOTE [The step counter]), but with ``fused`` a
        float32 one on the parameter's device, as torch's fused kernel keeps it."""
        value = self.defaults["initial_accumulator_value"]
        step = _tensor(0.0, dtype=float32, device=p.device) if fused else \
            _tensor(0.0, dtype=_step_dtype(), device="cpu")
        return {"step": step,
                "sum": full_like(p, complex(value, value) if p.is_complex() else value)}

    def _init_group(self, group):
        # a group added after construction gets its state at its first step
        return self._gather_state(group, ("sum", "step"),
                                  lambda p: self._fresh_state(p, group["fused"]))

    def step(self, closure=None):
        """One Adagrad update of every parameter that has a ``.grad``. Returns
        ``closure()``'s loss."""
        return self._step_groups(closure, self._update_group)

    def _update_group(self, group):
        lists = self._init_group(group)
        if not lists[0]:
            return
        options = dict(lr=group["lr"], weight_decay=group["weight_decay"],
                       lr_decay=group["lr_decay"], eps=group["eps"],
                       maximize=group["maximize"])
        if group["differentiable"] or wants_foreach(lists):
            _adagrad_on_tensors(*lists, **options)
        else:
            _adagrad_on_arrays(*lists, self._scratch, **options)


def _adagrad_on_arrays(params, grads, sums, steps, scratch, *, lr, weight_decay, lr_decay,
                       eps, maximize):
    """torch's ``_single_tensor_adagrad`` on the tensors' arrays (the CPU path)."""
    written = params + sums + steps
    _arrays.checked_writes(written)
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
                g = _arrays.added(g, p, weight_decay, ct, tmp)
            clr = lr / (1 + (step - 1) * lr_decay)
            state_sum = _arrays.real_array(sums[i])
            _arrays.addcmul_(state_sum, g, g, 1, ct, tmp)
            std = scratch.take(p.shape, p.dtype, 1)
            np.sqrt(state_sum, out=std, dtype=ct, casting=_arrays.UNSAFE)
            _arrays.add_number_(std, eps, ct)
            _arrays.addcdiv_(p, g, std, -clr, ct, tmp)
    _arrays.bump_versions(written)


def _adagrad_on_tensors(params, grads, sums, steps, *, lr, weight_decay, lr_decay, eps,
                        maximize):
    """torch's ``_single_tensor_adagrad`` in Tensor ops (a CUDA device's path)."""
    real = _tensor_ops.real
    for param, grad, state_sum, step_t in zip(params, grads, sums, steps):
        step_t.add_(1)
        step = step_t.item()
        grad = -grad if maximize else grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        param, grad, state_sum = real(param), real(grad), real(state_sum)
        _tensor_ops.addcmul_(state_sum, grad, grad, 1)
        std = state_sum.sqrt().add(eps)        # (sqrt's result is saved)
        _tensor_ops.addcdiv_(param, grad, std, -clr)
