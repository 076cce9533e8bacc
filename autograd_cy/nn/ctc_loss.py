"""``ctc_loss``: the connectionist temporal classification loss, as torch's.

# NOTE [CTC's alpha-beta recursion]
For one sequence, the target ``l`` of length S is extended with blanks between and around
its labels, ``l'`` of length 2S + 1. A path through the T time steps emits one symbol of
``l'`` per step, staying, moving one place, or (to a label unlike the one two places back)
skipping a blank. In log space, the forward variable ``alpha[t, s]`` (every path prefix
ending at ``l'[s]`` at step t) is the logsumexp of ``alpha[t - 1]`` at s, s - 1 and, when
the skip is allowed, s - 2, plus ``log_probs[t, l'[s]]``; the backward variable ``beta`` is
the same recursion from the end. The loss is ``-logsumexp(alpha[T-1, 2S], alpha[T-1, 2S-1])``
and the gradient of the loss with respect to ``log_probs[t, c]`` is, as torch computes it,
``exp(log_probs[t, c]) - exp(logsumexp_{s: l'[s] = c}(alpha[t, s] + beta[t, s]) + loss -
log_probs[t, c])``: zero past a sequence's length, and zero for an infinite loss with
``zero_infinity``. Both recursions run in NumPy over the whole batch, one step a time step
(a CUDA tensor's values are brought to the CPU and the results taken back). torch's node
(``CtcLossBackward0``) has no derivative of its own; nor has this one.
"""
import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import _array_of, _wrap_array
from autograd_cy.autograd.function import Function, once_differentiable

__all__ = ["ctc_loss", "torch_ctc_loss"]


def _logaddexp(*terms):
    with np.errstate(invalid="ignore"):
        total = terms[0]
        for term in terms[1:]:
            total = np.logaddexp(total, term)
    return total


def _shifted(values, places, fill):
    """``values`` moved ``places`` steps along the last axis, ``fill`` coming in."""
    out = np.full_like(values, fill)
    out[..., places:] = values[..., :values.shape[-1] - places]
    return out


def _extended(targets, target_lengths, blank, batch):
    """The targets with blanks around and between their labels, ``(N, 2 S + 1)``, and
    whether each place may be reached by skipping a blank."""
    longest = int(max(target_lengths)) if len(target_lengths) else 0
    labels = np.full((batch, longest), blank, np.int64)
    for n in range(batch):
        labels[n, :target_lengths[n]] = targets[n][:target_lengths[n]]
    extended = np.full((batch, 2 * longest + 1), blank, np.int64)
    extended[:, 1::2] = labels
    skip = np.zeros(extended.shape, bool)
    skip[:, 3::2] = labels[:, 1:] != labels[:, :-1]
    return extended, skip


def _alphas_betas(log_probs, extended, skip, input_lengths, target_lengths):
    """The forward and backward variables ``(T, N, 2 S + 1)`` and each loss ``(N,)``."""
    steps, batch = log_probs.shape[:2]
    places = extended.shape[1]
    emit = np.take_along_axis(log_probs, np.broadcast_to(extended, (steps,) + extended.shape),
                              axis=2)
    lengths = 2 * np.asarray(target_lengths) + 1
    valid = np.arange(places)[None, :] < lengths[:, None]
    alpha = np.full((steps, batch, places), -np.inf, log_probs.dtype)
    alpha[0, :, 0] = emit[0, :, 0]
    alpha[0, :, 1] = np.where(lengths > 1, emit[0, :, 1], -np.inf)
    for t in range(1, steps):
        previous = alpha[t - 1]
        total = _logaddexp(previous, _shifted(previous, 1, -np.inf),
                           np.where(skip, _shifted(previous, 2, -np.inf), -np.inf))
        alpha[t] = np.where(valid, total + emit[t], -np.inf)
    beta = np.full((steps, batch, places), -np.inf, log_probs.dtype)
    last = np.asarray(input_lengths) - 1
    rows = np.arange(batch)
    end = lengths - 1
    beta[last, rows, end] = emit[last, rows, end]
    has_label = lengths > 1
    beta[last[has_label], rows[has_label], end[has_label] - 1] = \
        emit[last[has_label], rows[has_label], end[has_label] - 1]
    skip_from = np.zeros_like(skip)      # s may skip to s + 2
    skip_from[:, :-2] = skip[:, 2:]
    for t in range(steps - 2, -1, -1):
        following = beta[t + 1]
        total = _logaddexp(following, _shifted(following[..., ::-1], 1, -np.inf)[..., ::-1],
                           np.where(skip_from, _shifted(following[..., ::-1], 2,
                                                        -np.inf)[..., ::-1], -np.inf))
        inside = (t < last)[:, None] & valid
        beta[t] = np.where(inside, total + emit[t], beta[t])
    final = alpha[last, rows]
    loss = -_logaddexp(np.take_along_axis(final, end[:, None], 1)[:, 0],
                       np.where(has_label, np.take_along_axis(
                           final, np.maximum(end - 1, 0)[:, None], 1)[:, 0], -np.inf))
    return alpha, beta, loss


class CtcLoss(Function):
    """The per-sequence negative log likelihoods (NOTE [CTC's alpha-beta recursion])."""
    builtin_op = True

    @staticmethod
    def forward(ctx, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
        values = _array_of(log_probs.detach().cpu())
        extended, skip = _extended(targets, target_lengths, blank, values.shape[1])
        alpha, beta, loss = _alphas_betas(values, extended, skip, input_lengths,
                                          target_lengths)
        ctx.arrays = values, extended, alpha, beta, loss
        ctx.input_lengths, ctx.zero_infinity = input_lengths, zero_infinity
        result = loss.copy()
        if zero_infinity:
            result[np.isinf(result)] = 0
        return _wrap_array(result).to(log_probs.device)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        values, extended, alpha, beta, loss = ctx.arrays
        steps, batch, classes = values.shape
        products = alpha + beta
        gathered = np.full(values.shape, -np.inf, values.dtype)
        for n in range(batch):      # logsumexp over the places of each class
            for s in range(extended.shape[1]):
                c = extended[n, s]
                gathered[:, n, c] = _logaddexp(gathered[:, n, c], products[:, n, s])
        with np.errstate(invalid="ignore", over="ignore"):
            result = np.exp(values) - np.exp(gathered + loss[None, :, None] - values)
        inside = np.arange(steps)[:, None] < np.asarray(ctx.input_lengths)[None, :]
        result = np.where(inside[..., None], result, 0)
        if ctx.zero_infinity:
            result = np.where(np.isinf(loss)[None, :, None], 0, result)
        upstream = _array_of(grad.detach().cpu()).astype(values.dtype, copy=False)
        result = (result * upstream[None, :, None]).astype(values.dtype, copy=False)
        return _wrap_array(result).to(grad.device), None, None, None, None, None


CtcLoss._backward_cls.__name__ = "CtcLossBackward0"


def _lengths(lengths, name):
    if isinstance(lengths, _ag.Tensor):
        return [int(v) for v in _array_of(lengths.detach().cpu()).reshape(-1)]
    return [int(v) for v in lengths]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """The CTC loss of ``log_probs`` ``(T, N, C)`` (or ``(T, C)``, one sequence) against
    ``targets`` (``(N, S)`` padded, or the targets concatenated), each sequence its own
    length; ``'mean'`` divides each loss by its target length, then averages."""
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.dim() == 1 else targets
    inputs = _lengths(input_lengths, "input_lengths")
    lengths = _lengths(target_lengths, "target_lengths")
    labels = _array_of(targets.detach().cpu()).astype(np.int64)
    if labels.ndim == 1:        # concatenated: cut into the sequences' targets
        starts = np.cumsum([0] + lengths[:-1])
        rows = [labels[s:s + n] for s, n in zip(starts, lengths)]
    else:
        rows = list(labels)
    for n, (steps, length) in enumerate(zip(inputs, lengths)):
        if steps > log_probs.shape[0]:
            raise RuntimeError(f"Expected input_lengths to have value at most "
                               f"{log_probs.shape[0]}, but got value {steps} (while checking "
                               f"arguments for ctc_loss_cpu)")
        if labels.ndim == 2 and length > labels.shape[1]:
            raise RuntimeError(f"Expected tensor to have size at least {length} at dimension "
                               f"1, but got size {labels.shape[1]} for argument #2 'targets' "
                               f"(while checking arguments for ctc_loss_cpu)")
    loss = CtcLoss.apply(log_probs, rows, inputs, lengths, blank, zero_infinity)
    if unbatched:
        loss = loss.squeeze(0)
    if reduction == "mean":
        divisor = _ag.tensor(lengths, dtype=loss.dtype, device=loss.device).clamp_min(1)
        return (loss / (divisor.squeeze(0) if unbatched else divisor)).mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def torch_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
                   zero_infinity=False):
    """``torch.ctc_loss``: ATen's form, the reduction an int (0 none, 1 mean, 2 sum)."""
    return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                    ("none", "mean", "sum")[reduction], zero_infinity)


torch_ctc_loss.__name__ = "ctc_loss"
