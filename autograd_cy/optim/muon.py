"""``Muon``, as ``torch.optim.Muon``: SGD with (Nesterov) momentum for 2-D parameters whose
update is orthogonalized, ``U S V^T`` brought near ``U V^T`` by a few quintic Newton-Schulz
iterations in bfloat16, then scaled for the matrix's shape.

    >>> import autograd_cy as torch
    >>> w = torch.zeros(2, 3, requires_grad=True)
    >>> opt = torch.optim.Muon([w], lr=0.1)
    >>> w.grad = torch.ones(2, 3)
    >>> opt.step()
    >>> list(opt.state[w])
    ['momentum_buffer']
"""
import math

from autograd_cy._C.tensor import Tensor
from autograd_cy.factories import zeros_like
from autograd_cy.optim.optimizer import Optimizer

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


class Muon(Optimizer):
    """``Muon(params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
    ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5, adjust_lr_fn=None)``.

    Every parameter must be 2-D. ``buf = lerp(buf, grad, 1 - momentum)``; the update is
    ``lerp(grad, buf, momentum)`` (``nesterov``) or ``buf``, orthogonalized by
    ``ns_steps`` Newton-Schulz iterations with coefficients ``(a, b, c)``; the parameter
    shrinks by ``lr * weight_decay`` and moves by ``-lr * ratio`` times the update, where
    ``ratio`` is ``sqrt(max(1, rows / cols))`` (``adjust_lr_fn`` None or ``"original"``) or
    ``0.2 * sqrt(max(rows, cols))`` (``"match_rms_adamw"``).
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS,
                 ns_steps=DEFAULT_NS_STEPS, adjust_lr_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum,
                    "nesterov": nesterov, "ns_coefficients": ns_coefficients, "eps": eps,
                    "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def step(self, closure=None):
        """One Muon update of every parameter that has a ``.grad``. Returns
        ``closure()``'s loss."""
        return self._step_groups(closure, self._update_group)

    def _update_group(self, group):
        for p in group["params"]:
            if p.grad is not None and p.is_complex():
                raise RuntimeError("Muon does not support complex parameters")
        params, grads, bufs = self._gather_state(
            group, ("momentum_buffer",), lambda p: {"momentum_buffer": zeros_like(p.grad)})
        lr, momentum = group["lr"], group["momentum"]
        for param, grad, buf in zip(params, grads, bufs):
            if grad.ndim != 2:
                raise ValueError("Param gradient must be a 2D matrix")
            buf.lerp_(grad, 1 - momentum)
            update = grad.lerp(buf, momentum) if group["nesterov"] else buf
            update = _newton_schulz(update, group["ns_coefficients"], group["ns_steps"],
                                    group["eps"])
            param.mul_(1 - lr * group["weight_decay"])
            param.add_(update, alpha=-_adjusted_lr(lr, group["adjust_lr_fn"], param.shape))


def _newton_schulz(grad, ns_coefficients, ns_steps, eps):
    """``grad`` (2-D) orthogonalized, in bfloat16: normalized, then ``ns_steps`` times
    ``X = a X + (b A + c A A) X`` with ``A = X X^T`` (on the wide orientation)."""
    from autograd_cy import addmm
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = grad.size(0) > grad.size(1)
    x = grad.bfloat16()
    if tall:
        x = x.T
    x.div_(x.norm().clamp(min=eps))
    for _ in range(ns_steps):
        gram = x @ x.T
        x = addmm(x, addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


def _adjusted_lr(lr, adjust_lr_fn, shape):
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio
