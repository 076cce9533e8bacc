"""``Adafactor``, as ``torch.optim.Adafactor``: Adam-like steps whose second moment of a
matrix (or a batch of matrices) is kept factored, as a row and a column running mean of the
squared gradient, so that it takes memory of the rows plus the columns, not their product.

    >>> import autograd_cy as torch
    >>> w = torch.ones(2, 3, requires_grad=True)
    >>> opt = torch.optim.Adafactor([w], lr=0.1)
    >>> w.grad = torch.ones(2, 3)
    >>> opt.step()
    >>> sorted(opt.state[w]), tuple(opt.state[w]["row_var"].shape)
    (['col_var', 'row_var', 'step'], (2, 1))
"""
from autograd_cy._C.tensor import Tensor
from autograd_cy.dtypes import finfo
from autograd_cy.factories import tensor as _tensor, zeros_like
from autograd_cy.optim.adam import _step_dtype
from autograd_cy.optim.optimizer import Optimizer

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """``Adafactor(params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
    weight_decay=0.0, *, foreach=None, maximize=False)``.

    At step ``t`` the second moment moves toward the squared gradient by ``t **
    beta2_decay``; the step is ``max(eps[1], RMS(param)) * min(lr, 1 / sqrt(t))`` along
    ``grad / sqrt(second moment)``, its RMS clipped to ``d``; ``eps[0]`` (None: the
    dtype's machine epsilon) bounds the second moment below. ``weight_decay`` shrinks the
    parameter by ``lr * weight_decay`` first (decoupled, as AdamW's). The step is torch's
    single-tensor one whatever ``foreach`` says.
    """

    _option_defaults = {"foreach": None, "maximize": False}

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One Adafactor update of every parameter that has a ``.grad``. Returns
        ``closure()``'s loss."""
        return self._step_groups(closure, self._update_group)

    def _fresh_state(self, p):
        state = {"step": _tensor(0.0, dtype=_step_dtype(), device="cpu")}
        grad = p.grad
        if grad.dim() > 1:
            state["row_var"] = grad.new_zeros((*grad.shape[:-1], 1))
            state["col_var"] = grad.new_zeros((*grad.shape[:-2], 1, grad.shape[-1]))
        else:
            state["variance"] = zeros_like(grad)
        return state

    def _update_group(self, group):
        for p in group["params"]:
            if p.grad is not None and p.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
        params, grads, steps = self._gather_state(group, ("step",), self._fresh_state)
        eps1, eps2 = group["eps"]
        for param, grad, step_t in zip(params, grads, steps):
            state = self.state[param]
            _adafactor_step(param, -grad if group["maximize"] else grad, step_t,
                            state.get("row_var"), state.get("col_var"),
                            state.get("variance"), lr=group["lr"],
                            beta2_decay=group["beta2_decay"], d=group["d"],
                            weight_decay=group["weight_decay"],
                            eps1=finfo(param.dtype).eps if eps1 is None else eps1, eps2=eps2)


def _adafactor_step(param, grad, step_t, row_var, col_var, variance, *, lr, beta2_decay, d,
                    weight_decay, eps1, eps2):
    """torch's ``_single_tensor_adafactor`` for one parameter, in Tensor ops."""
    step_t.add_(1)
    step = step_t.item()
    one_minus_beta2 = step ** beta2_decay
    rho = min(lr, 1 / (step ** 0.5))
    alpha = max(eps2, param.norm(2).item() / (param.numel() ** 0.5)) * rho
    if weight_decay != 0:
        param.mul_(1 - lr * weight_decay)
    if grad.dim() > 1:
        row_mean = grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1))
        row_var.lerp_(row_mean, one_minus_beta2)
        col_mean = grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2))
        col_var.lerp_(col_mean, one_minus_beta2)
        estimate = row_var @ col_var
        estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
    else:
        variance.lerp_(grad * grad, one_minus_beta2)
        estimate = variance.clone()
    update = estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
    denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
    param.add_(update, alpha=-alpha / denom)
