"""Weight normalization's op: ``w = v * g / ||v||``, the norm taken over every dim but
``dim`` (torch's ``norm_except_dim`` and ``_weight_norm``), which both forms of
``nn.utils.weight_norm`` compute the weight with.

For ``dim`` the first or the last dim torch runs one fused op, whose node is
``WeightNormInterfaceBackward0``; that is ``WeightNormInterface`` here, its backward written
in Tensor ops (so it differentiates again). Other dims (and ``dim=-1``, one norm of the
whole tensor) are composed of ordinary ops, as torch composes them.
"""
import autograd_cy as _ag
from autograd_cy.linalg._lapack import scalar_type
from autograd_cy.nn.activations import _named

__all__ = []


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dim but ``dim``, shaped to broadcast against
    ``v`` (size 1 in the other dims); ``dim=-1`` is the norm of all of ``v``."""
    if dim == -1:
        return v.norm(pow)
    last = v.dim() - 1
    if dim == 0:
        return v.contiguous().view(v.shape[0], -1).norm(pow, 1).view(
            v.shape[0], *[1] * last)
    if dim == last:
        return v.contiguous().view(-1, v.shape[last]).norm(pow, 0).view(
            *[1] * last, v.shape[last])
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _sum_except(x, dim):
    """``x`` summed over every dim but ``dim``, keeping them."""
    others = [d for d in range(x.dim()) if d != dim]
    return x.sum(others, keepdim=True) if others else x


class WeightNormInterface(_ag.autograd.Function):
    """``v * (g / norm_except_dim(v, 2, dim))`` for ``dim`` the first or last dim."""
    builtin_op = True

    @staticmethod
    def forward(ctx, v, g, dim):
        ctx.dim = dim
        ctx.save_for_backward(v, g)
        ctx.save_for_forward(v, g)
        return v * (g / norm_except_dim(v, 2, dim))

    @staticmethod
    def backward(ctx, grad):
        v, g = ctx.saved_tensors
        norm = norm_except_dim(v, 2, ctx.dim)
        projection = _sum_except(grad * v, ctx.dim)          # <grad, v> per slice
        grad_g = (projection / norm).to(g.dtype)
        grad_v = (g / norm) * (grad - v * (projection / (norm * norm)))
        return grad_v, grad_g.reshape(g.shape), None

    @staticmethod
    def jvp(ctx, v_t, g_t, dim_t):
        """Forward AD: ``w' = (g' v + g v') / n - g v <v, v'> / n^3``."""
        v, g = ctx.saved_tensors
        norm = norm_except_dim(v, 2, ctx.dim)
        tangent = 0.0
        if v_t is not None:
            tangent = g / norm * (v_t - v * (_sum_except(v * v_t, ctx.dim) / (norm * norm)))
        if g_t is not None:
            tangent = tangent + v * (g_t / norm)
        return tangent


_named("WeightNormInterfaceBackward0", WeightNormInterface)


def _weight_norm(v, g, dim=0):
    """``v * (g / norm_except_dim(v, 2, dim))``: the weight of weight normalization."""
    v, g = v.contiguous(), g.contiguous()
    half = (_ag.float16, _ag.bfloat16)
    if v.dtype not in half and g.dtype not in half and dim in (0, v.dim() - 1):
        if v.dtype != g.dtype:          # the fused kernel takes one dtype
            raise RuntimeError(f"expected scalar type {scalar_type(v.dtype)} but found "
                               f"{scalar_type(g.dtype)}")
        return WeightNormInterface.apply(v, g, dim)
    return v * (g / norm_except_dim(v, 2, dim))
