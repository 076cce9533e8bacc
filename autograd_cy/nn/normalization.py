"""``layer_norm``, ``batch_norm`` and ``group_norm``: normalise over some dims, then scale and
shift. The first two are ops with their own nodes (``NativeLayerNormBackward0``,
``NativeBatchNormBackward0``, as torch names them), forward, backward and tangent side by
side; ``group_norm`` is composed of ops.

Both backwards are the standard closed form: with ``xhat = (x - mean) * rstd`` over ``m``
normalised elements and ``g = grad * weight``,
``grad_x = rstd * (g - mean(g) - xhat * mean(g * xhat))``; the weight's gradient is
``sum(grad * xhat)`` and the bias's ``sum(grad)`` over the other dims. They are written with
Tensor ops, so they record under ``create_graph`` and differentiate again.
"""
from autograd_cy.autograd.function import Function
from autograd_cy.grad_mode import no_grad

__all__ = ["layer_norm", "batch_norm", "group_norm"]


def _normalized(x, dims, eps):
    """``(xhat, rstd, mean, variance)`` of ``x`` over ``dims`` (the biased variance, as
    torch normalises with)."""
    mean = x.mean(dims, keepdim=True)
    centred = x - mean
    variance = (centred * centred).mean(dims, keepdim=True)
    rstd = (variance + eps).rsqrt()
    return centred * rstd, rstd, mean, variance


def _input_gradient(g, xhat, rstd, dims):
    return rstd * (g - g.mean(dims, keepdim=True)
                   - xhat * (g * xhat).mean(dims, keepdim=True))


class LayerNorm(Function):
    """Normalisation over the last ``len(normalized_shape)`` dims of each example."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, normalized_dims, weight, bias, eps):
        dims = tuple(range(input.dim() - normalized_dims, input.dim()))
        xhat, rstd, _, _ = _normalized(input, dims, eps)
        output = xhat
        if weight is not None:
            output = output * weight
        if bias is not None:
            output = output + bias
        ctx.save_for_backward(input, weight)
        ctx.save_for_forward(input, weight)
        ctx.settings = (dims, eps, bias is not None)
        return output

    @staticmethod
    def backward(ctx, grad):
        input, weight = ctx.saved_tensors
        dims, eps, has_bias = ctx.settings
        xhat, rstd, _, _ = _normalized(input, dims, eps)
        outer = tuple(range(input.dim() - len(dims)))
        g = grad * weight if weight is not None else grad
        grad_input = _input_gradient(g, xhat, rstd, dims) if ctx.needs_input_grad[0] else None
        grad_weight = (grad * xhat).sum(outer) if (weight is not None
                                                   and ctx.needs_input_grad[2]) else None
        grad_bias = grad.sum(outer) if has_bias and ctx.needs_input_grad[3] else None
        return grad_input, None, grad_weight, grad_bias, None

    @staticmethod
    def jvp(ctx, input_t, _, weight_t, bias_t, eps_t):
        """``d(xhat) = rstd * (dx - mean(dx) - xhat * mean(dx * xhat))``, then the affine
        part's product rule."""
        input, weight = ctx.saved_tensors
        dims, eps, _ = ctx.settings
        xhat, rstd, _, _ = _normalized(input, dims, eps)
        tangent = _input_gradient(input_t, xhat, rstd, dims) if input_t is not None else \
            xhat * 0
        if weight is not None:
            tangent = tangent * weight
            if weight_t is not None:
                tangent = tangent + xhat * weight_t
        if bias_t is not None:
            tangent = tangent + bias_t
        return tangent


LayerNorm._backward_cls.__name__ = "NativeLayerNormBackward0"


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the trailing
    ``normalized_shape`` of ``input``."""
    normalized_shape = tuple(normalized_shape) if hasattr(normalized_shape, "__len__") \
        else (normalized_shape,)
    count = len(normalized_shape)
    if tuple(input.shape[input.dim() - count:]) != normalized_shape or count > input.dim():
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(map(str, normalized_shape))}], but got input of size"
            f"{list(input.shape)}")
    for name, value in (("weight", weight), ("bias", bias)):
        if value is not None and tuple(value.shape) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(value.shape)} and normalized_shape "
                               f"= {list(normalized_shape)}")
    return LayerNorm.apply(input, count, weight, bias, eps)


class BatchNorm(Function):
    """Normalisation of each channel (dim 1) over the batch and the spatial dims, with the
    batch's statistics (``training``) or the running ones."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, running_mean, running_var, weight, bias, training, momentum, eps):
        dims = (0,) + tuple(range(2, input.dim()))
        shape = (1, -1) + (1,) * (input.dim() - 2)
        if training:
            xhat, rstd, mean, variance = _normalized(input, dims, eps)
            if running_mean is not None:
                count = input.numel() // input.shape[1]
                with no_grad():
                    variance = variance.reshape(-1)
                    running_mean.mul_(1 - momentum).add_(mean.reshape(-1) * momentum)
                    running_var.mul_(1 - momentum).add_(
                        variance * (momentum * count / max(count - 1, 1)))
        else:
            rstd = (running_var + eps).rsqrt().reshape(shape)
            xhat = (input - running_mean.reshape(shape)) * rstd
        output = xhat
        if weight is not None:
            output = output * weight.reshape(shape)
        if bias is not None:
            output = output + bias.reshape(shape)
        ctx.save_for_backward(input, weight)
        ctx.settings = (dims, shape, eps, training, bias is not None)
        ctx.running = (running_mean, running_var) if not training else None
        return output

    @staticmethod
    def backward(ctx, grad):
        input, weight = ctx.saved_tensors
        dims, shape, eps, training, has_bias = ctx.settings
        if training:
            xhat, rstd, _, _ = _normalized(input, dims, eps)
        else:
            running_mean, running_var = ctx.running
            rstd = (running_var + eps).rsqrt().reshape(shape)
            xhat = (input - running_mean.reshape(shape)) * rstd
        g = grad * weight.reshape(shape) if weight is not None else grad
        grad_input = None
        if ctx.needs_input_grad[0]:
            grad_input = _input_gradient(g, xhat, rstd, dims) if training else g * rstd
        grad_weight = (grad * xhat).sum(dims) if (weight is not None
                                                  and ctx.needs_input_grad[3]) else None
        grad_bias = grad.sum(dims) if has_bias and ctx.needs_input_grad[4] else None
        return grad_input, None, None, grad_weight, grad_bias, None, None, None


BatchNorm._backward_cls.__name__ = "NativeBatchNormBackward0"


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalisation of ``(N, C, ...)``: the batch's statistics while ``training``
    (and the running ones updated in place: ``(1 - momentum) * running + momentum * batch``,
    the variance unbiased), the running statistics otherwise."""
    if training:
        per_channel = input.numel() // input.shape[1] if input.dim() > 1 else input.numel()
        if per_channel <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got "
                             f"input size {input.shape}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    return BatchNorm.apply(input, running_mean, running_var, weight, bias, training,
                           momentum, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Layer normalisation of each group of ``C / num_groups`` channels of each example."""
    n, channels = input.shape[0], input.shape[1]
    if channels % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {input.shape} and num_groups="
                           f"{num_groups}")
    grouped = input.reshape(n, num_groups, -1)
    xhat = _normalized(grouped, (2,), eps)[0].reshape(input.shape)
    shape = (1, -1) + (1,) * (input.dim() - 2)
    if weight is not None:
        xhat = xhat * weight.reshape(shape)
    if bias is not None:
        xhat = xhat + bias.reshape(shape)
    return xhat

