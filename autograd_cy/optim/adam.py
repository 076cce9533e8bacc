"""``Adam``, as ``torch.optim.Adam``: per-element step sizes from running averages of the
gradient (``exp_avg``) and of its square (``exp_avg_sq``), bias-corrected by the step count.

On the CPU the update runs on the NumPy arrays, op for op as torch's single-tensor path
(NOTE [Optimizer steps on the arrays]); elsewhere (a CUDA device) as torch's multi-tensor
path, through the ``_foreach_*`` ops, one launch per op per dtype where a kernel exists.
"""
import numpy as np

from autograd_cy import foreach
from autograd_cy._C.optim_steps import adam_step
from autograd_cy._C.tensor import Tensor, _array_of
from autograd_cy.dtypes import float32, float64, get_default_dtype
from autograd_cy.factories import tensor as _tensor, zeros_like
from autograd_cy.grad_mode import is_grad_enabled
from autograd_cy.optim import _arrays
from autograd_cy.optim._groups import by_device_and_dtype, real_views, wants_foreach
from autograd_cy.optim.optimizer import Optimizer, _host_scalar

__all__ = ["Adam"]

# NOTE [The step counter]
# Adam keeps each parameter's step count as state["step"], a 0-dim float32 tensor on the
# CPU (float64 when that is the default dtype), as torch does outside its capturable and
# fused modes: the bias corrections 1 - beta ** step are computed in Python from its
# value, so it costs no device synchronisation. load_state_dict casts every other state
# tensor to its parameter's dtype and device but leaves "step" as it is.


def _step_dtype():
    return float64 if get_default_dtype() == float64 else float32


class Adam(Optimizer):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    amsgrad=False, *, foreach=None, maximize=False, capturable=False,
    differentiable=False, fused=None, decoupled_weight_decay=False)``.

    ``weight_decay`` adds ``weight_decay * param`` to the gradient (L2), or with
    ``decoupled_weight_decay`` (AdamW) shrinks the parameter by ``lr * weight_decay``
    first. ``amsgrad`` normalises by the running maximum of ``exp_avg_sq``.
    """

    _capturable_error = ("If capturable=True, params and state_steps must be on supported "
                         "devices: ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")
    _option_defaults = {"amsgrad": False, "maximize": False, "foreach": None,
                        "capturable": False, "differentiable": False,
                        "decoupled_weight_decay": False, "fused": None}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False "
                                 "and foreach=True")
            if lr.numel() != 1:
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
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        for i, beta in enumerate(betas[:2]):
            if isinstance(beta, Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for "
                                     f"capturable=False and foreach=True")
                if beta.numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(b.squeeze() if isinstance(b, Tensor) and b.dim() != 0 else b
                      for b in betas)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps,
                    "weight_decay": weight_decay, "amsgrad": amsgrad, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def _init_group(self, group):
        """The group's parameters that have a gradient, with their gradients and state
        (created, zeroed, at a parameter's first step)."""
        amsgrad = group["amsgrad"]

        def fresh(p):
            state = {"step": _tensor(0.0, dtype=_step_dtype(), device="cpu"),
                     "exp_avg": zeros_like(p),
                     "exp_avg_sq": zeros_like(p)}
            if amsgrad:
                state["max_exp_avg_sq"] = zeros_like(p)
            return state
        return self._gather_state(group, ("exp_avg", "exp_avg_sq",
                                          "max_exp_avg_sq" if amsgrad else None, "step"), fresh)

    def step(self, closure=None):
        """One Adam update of every parameter that has a ``.grad`` (a parameter whose
        ``.grad`` is None is skipped, its state untouched). Returns ``closure()``'s loss."""
        return self._step_groups(closure, self._update_group)

    def _update_group(self, group):
        lists = self._init_group(group)
        if not lists[0]:
            return
        # Tensor betas are read as NumPy scalars of their dtype, as a Tensor lr is
        # (NOTE [A Tensor lr])
        beta1, beta2 = (_host_scalar(b) if isinstance(b, Tensor) else b
                        for b in group["betas"])
        options = dict(amsgrad=group["amsgrad"], beta1=beta1, beta2=beta2, lr=group["lr"],
                       weight_decay=group["weight_decay"], eps=group["eps"],
                       maximize=group["maximize"], decoupled=group["decoupled_weight_decay"])
        if group["differentiable"] or wants_foreach(lists):
            _adam_foreach(*lists, **options)
        else:
            _adam_on_arrays(*lists, self._scratch, **options)


def _adam_on_arrays(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, scratch,
                    *, amsgrad, beta1, beta2, lr, weight_decay, eps, maximize, decoupled):
    """torch's ``_single_tensor_adam`` on the tensors' arrays (the CPU path)."""
    written = params + exp_avgs + exp_avg_sqs + max_exp_avg_sqs + steps
    _arrays.checked_writes(written)
    with np.errstate(all="ignore"):     # torch warns of no overflow or 0/0
        for i, param in enumerate(params):
            p, g = _arrays.real_array(param), _arrays.real_array(grads[i])
            m, v = _arrays.real_array(exp_avgs[i]), _arrays.real_array(exp_avg_sqs[i])
            ct = _arrays.compute_type(p)
            tmp = scratch.take(p.shape, ct, 0)
            count = _array_of(steps[i])
            np.add(count, 1, out=count)
            step = float(count)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2 ** 0.5
            # the one-loop step computes in double; a Tensor lr's arithmetic is in its dtype
            if not amsgrad and not isinstance(lr, np.generic) and not isinstance(
                    beta1, np.generic) and not isinstance(beta2, np.generic) and adam_step(
                    p, g, m, v, beta1, beta2, step_size, bias_correction2_sqrt, eps,
                    weight_decay, lr, decoupled, maximize):
                continue                # NOTE [Fused optimizer steps]: the same ops below
            if maximize:
                g = np.negative(g)
            if weight_decay != 0:
                if decoupled:
                    np.multiply(p, ct(1 - lr * weight_decay), out=p, dtype=ct,
                                casting=_arrays.UNSAFE)
                else:
                    g = _arrays.added(g, p, weight_decay, ct, tmp)
            _arrays.lerp_(m, g, 1 - beta1, ct, tmp)
            np.multiply(v, ct(beta2), out=v, dtype=ct, casting=_arrays.UNSAFE)
            _arrays.addcmul_(v, g, g, 1 - beta2, ct, tmp)
            if amsgrad:
                v_max = _arrays.real_array(max_exp_avg_sqs[i])
                np.maximum(v_max, v, out=v_max)
                v = v_max
            denom = scratch.take(p.shape, p.dtype, 1)
            np.sqrt(v, out=denom, dtype=ct, casting=_arrays.UNSAFE)
            np.divide(denom, ct(bias_correction2_sqrt), out=denom, dtype=ct,
                      casting=_arrays.UNSAFE)
            _arrays.add_number_(denom, eps, ct)
            _arrays.addcdiv_(p, m, denom, -step_size, ct, tmp)
    _arrays.bump_versions(written)


def _adam_foreach(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, *, amsgrad,
                  beta1, beta2, lr, weight_decay, eps, maximize, decoupled):
    """torch's ``_multi_tensor_adam`` (its default on CUDA): each op once over the list of
    each device and dtype."""
    lists = [params, grads, exp_avgs, exp_avg_sqs] + ([max_exp_avg_sqs] if amsgrad else [])
    for indices in by_device_and_dtype(params):
        p, g, m, v, *v_max = real_views([[t[i] for i in indices] for t in lists])
        counts = [steps[i] for i in indices]
        if _adam_in_one_launch(p, g, m, v, counts, amsgrad=amsgrad, beta1=beta1,
                               beta2=beta2, lr=lr, weight_decay=weight_decay, eps=eps,
                               maximize=maximize, decoupled=decoupled):
            continue
        if maximize:
            g = list(foreach._foreach_neg(g))
        foreach._foreach_add_(counts, 1)
        if weight_decay != 0:
            if decoupled:
                foreach._foreach_mul_(p, 1 - lr * weight_decay)
            elif maximize:
                foreach._foreach_add_(g, p, alpha=weight_decay)
            else:
                g = list(foreach._foreach_add(g, p, alpha=weight_decay))
        foreach._foreach_lerp_(m, g, 1 - beta1)
        foreach._foreach_mul_(v, beta2)
        foreach._foreach_addcmul_(v, g, g, 1 - beta2)
        values = [c.item() for c in counts]
        step_sizes = [(lr / (1 - beta1 ** s)) * -1 for s in values]
        bias_correction2_sqrts = [(1 - beta2 ** s) ** 0.5 for s in values]
        if amsgrad:
            if is_grad_enabled():       # differentiable: maximum's backward needs the old
                foreach._foreach_copy_(v_max[0], foreach._foreach_maximum(
                    [t.clone() for t in v_max[0]], v))
            else:
                foreach._foreach_maximum_(v_max[0], v)
            v = v_max[0]
        # out of place: sqrt's backward needs its result (a differentiable step records)
        denoms = list(foreach._foreach_div(foreach._foreach_sqrt(v), bias_correction2_sqrts))
        foreach._foreach_add_(denoms, eps)
        foreach._foreach_addcdiv_(p, m, denoms, step_sizes)


def _adam_in_one_launch(p, g, m, v, counts, *, amsgrad, beta1, beta2, lr, weight_decay,
                        eps, maximize, decoupled):
    """The multi-tensor step as one launch on a CUDA device (NOTE [Adam in one launch]):
    for contiguous float32 and float64 parameters without amsgrad; False, touching nothing,
    otherwise."""
    from autograd_cy.cuda import foreach as cuda_foreach
    if amsgrad or is_grad_enabled() or not p[0].is_cuda or \
            p[0].dtype not in (float32, float64):
        return False            # (grad mode: a differentiable step, recorded op by op)
    arrays = [[_array_of(t) for t in ts] for ts in (p, g, m, v)]
    if not all(a.flags.c_contiguous for ts in arrays for a in ts):
        return False
    _arrays.checked_writes(p + m + v)
    foreach._foreach_add_(counts, 1)
    values = [c.item() for c in counts]
    cuda_foreach.launch_adam(
        *arrays, [lr / (1 - beta1 ** s) for s in values],
        [(1 - beta2 ** s) ** 0.5 for s in values], beta2=beta2, one_minus_beta1=1 - beta1,
        one_minus_beta2=1 - beta2, eps=eps, weight_decay=weight_decay,
        decay_factor=1 - lr * weight_decay, maximize=maximize,
        coupled_decay=weight_decay != 0 and not decoupled,
        decoupled_decay=weight_decay != 0 and decoupled)
    _arrays.bump_versions(p + m + v)
    return True
