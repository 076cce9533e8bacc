"""Householder reflections as LAPACK stores them: ``torch.geqrf``,
``linalg.householder_product`` (``torch.orgqr``) and ``torch.ormqr``.

``geqrf(A)`` gives ``(a, tau)``: ``R`` in ``a``'s upper triangle and, below its diagonal,
the reflectors ``v_i`` (column ``i``, an implicit 1 at row ``i``, zeros above), with
``H_i = I - tau_i v_i v_i^H`` and ``A = H_1 ... H_k R``. It is NumPy's ``qr(mode='raw')``
(LAPACK's geqrf, its output transposed) and, as in torch, not differentiable.
``householder_product(A, tau)`` is the first ``n`` columns of ``H_1 ... H_k`` (k =
``tau.shape[-1]``); ``ormqr(A, tau, C)`` multiplies ``C`` by the whole ``m x m`` product
``Q`` (or ``Q^H`` with ``transpose``), from the left or the right.

# NOTE [The Householder product's backward]
``Q = H_1 ... H_k E`` (``E`` the first columns of the identity). With ``gQ`` the gradient
of ``Q``, that of ``H_i`` is ``gH_i = L_i^H gQ R_i^H``, ``L_i = H_1 ... H_{i-1}`` and
``R_i = H_{i+1} ... H_k E``; from ``dH_i = -dtau_i v v^H - tau_i (dv v^H + v dv^H)``:

    gtau_i = -v^H gH_i v,    gv_i = -(conj(tau_i) gH_i + tau_i gH_i^H) v

and ``gv_i`` below row ``i`` is the gradient of ``A[i+1:, i]``. The products are recorded
ops on ``A`` and ``tau``, so the gradient differentiates again (torch's
``LinalgHouseholderProductBackward0`` and ``OrmqrBackward0``).

>>> import autograd_cy as ag
>>> A = ag.tensor([[3.0, 1.0], [4.0, 2.0]])
>>> a, tau = ag.geqrf(A)
>>> Q = ag.linalg.householder_product(a, tau)
>>> ag.allclose(Q @ a.triu(), A)
True
"""
from collections import namedtuple

import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import _register_methods
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import array_of, mH, scalar_type, tensor_like

__all__ = ["geqrf", "householder_product", "orgqr", "ormqr"]

geqrf_result = namedtuple("geqrf", ["a", "tau"])


def _apply_reflectors(a, tau, c, conjugate_transpose=False):
    """``Q c`` (``Q^H c``) for the array ``c``, ``Q = H_1 ... H_k`` from the reflectors in
    ``a``'s columns below the diagonal and ``tau``, batched."""
    k = tau.shape[-1]
    out = np.array(c, dtype=np.result_type(a, c), copy=True)
    order = range(k) if conjugate_transpose else reversed(range(k))
    for i in order:
        v = a[..., :, i].copy()
        v[..., :i] = 0
        v[..., i] = 1
        scale = tau[..., i].conj() if conjugate_transpose else tau[..., i]
        w = np.einsum("...m,...mn->...n", v.conj(), out)
        out -= scale[..., None, None] * v[..., :, None] * w[..., None, :]
    return out


def _reflectors(A, k):
    """The reflectors ``v_i`` of ``A``'s first ``k`` columns as a matrix, recorded."""
    m = A.shape[-2]
    return A[..., :, :k].tril(-1) + _ag.eye(m, k, dtype=A.dtype, device=A.device)


def _householder_vjp(A, tau, E, gQ):
    """``(gA, gtau)`` of ``Q = H_1 ... H_k E`` from ``gQ`` (NOTE [The Householder product's
    backward]), in recorded ops."""
    m, k = A.shape[-2], tau.shape[-1]
    V = _reflectors(A, k)
    eye = _ag.eye(m, dtype=A.dtype, device=A.device)
    H = [eye - tau[..., i, None, None] * _ag.matmul(V[..., :, i:i + 1], mH(V[..., :, i:i + 1]))
         for i in range(k)]
    suffix = [E] * (k + 1)                                   # suffix[i] = H_{i+1} ... H_k E
    for i in reversed(range(k)):
        suffix[i] = _ag.matmul(H[i], suffix[i + 1])
    prefix_h = gQ                                            # L_i^H gQ, L_0 = I
    g_tau, g_v = [], []
    for i in range(k):
        gH = _ag.matmul(prefix_h, mH(suffix[i + 1]))
        v = V[..., :, i:i + 1]
        t = tau[..., i, None, None]
        gHv = _ag.matmul(gH, v)
        g_tau.append(-_ag.matmul(mH(v), gHv)[..., 0, 0])
        gv = -(t.conj() * gHv + t * _ag.matmul(mH(gH), v)) if A.is_complex() else \
            -(t * (gHv + _ag.matmul(mH(gH), v)))
        g_v.append(gv)
        prefix_h = _ag.matmul(mH(H[i]), prefix_h)
    gV = _ag.cat(g_v, -1).tril(-1)
    n = A.shape[-1]
    if n > k:
        gV = _ag.cat([gV, _ag.zeros(gV.shape[:-1] + (n - k,), dtype=A.dtype,
                                    device=A.device)], -1)
    return gV, _ag.stack(g_tau, -1)


def _householder_jvp(A, tau, E, A_t, tau_t):
    """The tangent of ``Q = H_1 ... H_k E``: ``sum_i L_i dH_i R_i`` (NOTE [The Householder
    product's backward]), ``dH_i = -dtau_i v v^H - tau_i (dv v^H + v dv^H)``."""
    m, k = A.shape[-2], tau.shape[-1]
    V = _reflectors(A, k)
    dV = _ag.zeros_like(V) if A_t is None else A_t[..., :, :k].tril(-1)
    eye = _ag.eye(m, dtype=A.dtype, device=A.device)
    H = [eye - tau[..., i, None, None] * _ag.matmul(V[..., :, i:i + 1], mH(V[..., :, i:i + 1]))
         for i in range(k)]
    suffix = [E] * (k + 1)
    for i in reversed(range(k)):
        suffix[i] = _ag.matmul(H[i], suffix[i + 1])
    prefix, out = eye, None
    for i in range(k):
        v, dv = V[..., :, i:i + 1], dV[..., :, i:i + 1]
        dH = -tau[..., i, None, None] * (_ag.matmul(dv, mH(v)) + _ag.matmul(v, mH(dv)))
        if tau_t is not None:
            dH = dH - tau_t[..., i, None, None] * _ag.matmul(v, mH(v))
        term = _ag.matmul(prefix, _ag.matmul(dH, suffix[i + 1]))
        out = term if out is None else out + term
        prefix = _ag.matmul(prefix, H[i])
    return out


class LinalgHouseholderProduct(Function):
    """``householder_product``'s op."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A, tau):
        a, t = array_of(A), array_of(tau)
        m, n = a.shape[-2:]
        Q = _apply_reflectors(a, t, np.broadcast_to(np.eye(m, n, dtype=a.dtype),
                                                    a.shape[:-2] + (m, n)))
        ctx.save_for_backward(A, tau)
        ctx.save_for_forward(A, tau)
        return tensor_like(Q, A)

    @staticmethod
    def jvp(ctx, A_t, tau_t):
        A, tau = ctx.saved_tensors
        m, n = A.shape[-2:]
        if tau.shape[-1] == 0 or (A_t is None and tau_t is None):
            return _ag.zeros(A.shape, dtype=A.dtype, device=A.device)
        return _householder_jvp(A, tau, _ag.eye(m, n, dtype=A.dtype, device=A.device), A_t,
                                tau_t)

    @staticmethod
    def backward(ctx, gQ):
        A, tau = ctx.saved_tensors
        m, n = A.shape[-2:]
        if tau.shape[-1] == 0:
            return _ag.zeros_like(A), _ag.zeros_like(tau)
        return _householder_vjp(A, tau, _ag.eye(m, n, dtype=A.dtype, device=A.device), gQ)


LinalgHouseholderProduct._backward_cls.__name__ = "LinalgHouseholderProductBackward0"


class Ormqr(Function):
    """``ormqr``'s op: ``op(Q) C`` or ``C op(Q)``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A, tau, C, left, transpose):
        a, t, c = array_of(A), array_of(tau), array_of(C)
        if not left:                 # C Q = (Q^H C^H)^H
            c = np.swapaxes(c, -1, -2).conj()
        out = _apply_reflectors(a, t, c, conjugate_transpose=left == transpose)
        if not left:
            out = np.swapaxes(out, -1, -2).conj()
        ctx.save_for_backward(A, tau, C)
        ctx.options = (left, transpose)
        ctx.set_materialize_grads(False)
        return tensor_like(out, A)

    @staticmethod
    def backward(ctx, g):
        A, tau, C = ctx.saved_tensors
        left, transpose = ctx.options
        if g is None:
            return None, None, None, None, None
        gA = gtau = gC = None
        if ctx.needs_input_grad[2]:
            # the adjoint of op(Q) on the same side
            gC = Ormqr.apply(A, tau, g, left, not transpose)
        if ctx.needs_input_grad[0] or ctx.needs_input_grad[1]:
            if left:
                gQ = _ag.matmul(C, mH(g)) if transpose else _ag.matmul(g, mH(C))
            else:
                gQ = _ag.matmul(mH(g), C) if transpose else _ag.matmul(mH(C), g)
            m = A.shape[-2]
            if tau.shape[-1] == 0:
                gA, gtau = _ag.zeros_like(A), _ag.zeros_like(tau)
            else:
                gA, gtau = _householder_vjp(A, tau, _ag.eye(m, dtype=A.dtype, device=A.device),
                                            gQ)
        return gA, gtau, gC, None, None


Ormqr._backward_cls.__name__ = "OrmqrBackward0"


def _not_implemented(kernel, dtype):
    """torch's LAPACK kernels: float32, float64 and the complex dtypes only."""
    if not (dtype.is_floating_point or dtype.is_complex) or dtype.itemsize == 2:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type(dtype)}\'')


class Geqrf(Function):
    """``geqrf``'s op; its backward raises torch's error."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input):
        h, tau = np.linalg.qr(array_of(input), mode="raw")
        return tensor_like(np.swapaxes(h, -1, -2), input), tensor_like(tau, input)

    @staticmethod
    def backward(ctx, ga, gtau):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


Geqrf._backward_cls.__name__ = "GeqrfBackward0"


def geqrf(input, *, out=None):
    """``(a, tau)``: LAPACK's geqrf of each matrix of ``input``, ``R`` and the Householder
    reflectors packed in ``a`` (not differentiable, as in torch)."""
    if input.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _not_implemented("geqrf_cpu", input.dtype)
    if input.is_complex() and _ag.is_grad_enabled() and input.requires_grad:
        raise RuntimeError("geqrf does not support automatic differentiation for outputs with "
                           "complex dtype.")
    result = geqrf_result(*Geqrf.apply(input))
    if out is not None:
        for target, value in zip(out, result):
            target.resize_(value.shape).copy_(value.detach())
        return geqrf_result(*out)
    return result


def householder_product(A, tau, *, out=None):
    """The first ``n`` columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H`` with the
    reflectors ``v_i`` below ``A``'s diagonal (as ``geqrf`` packs them)."""
    name = "torch.linalg.householder_product"
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if tau.dim() == 0 or A.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if A.dim() - tau.dim() != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but "
                           f"got tau.ndim equal to {tau.dim()} and input.ndim is equal to "
                           f"{A.dim()}")
    if A.dim() > 2 and tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau.shape[:-1])}")
    if tau.dtype != A.dtype:
        raise RuntimeError(f"{name}: tau dtype {scalar_type(tau.dtype)} does not match input "
                           f"dtype {scalar_type(A.dtype)}")
    _not_implemented("orgqr_cpu", A.dtype)
    result = LinalgHouseholderProduct.apply(A, tau)
    if out is not None:
        return out.resize_(result.shape).copy_(result)
    return result


orgqr = householder_product


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """``Q other`` (``other Q`` when not ``left``; ``Q^H`` with ``transpose``), ``Q`` the
    ``m x m`` product of the reflectors packed in ``input`` (as ``geqrf`` gives them)."""
    name = "torch.ormqr"
    if input.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if other.dim() < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.dim() == 0 or tau.shape[-1] != min(other.shape[side], input.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], "
                           "input.shape[-1])")
    if input.dim() - tau.dim() != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but "
                           f"got tau.ndim equal to {tau.dim()} and input.ndim is equal to "
                           f"{input.dim()}")
    if input.dim() != other.dim():
        raise RuntimeError(f"{name}: Expected other to have the same number of dimensions as "
                           f"input, but got other.ndim equal to {other.dim()} and input.ndim is "
                           f"equal to {input.dim()}")
    if input.dim() > 2:
        if tuple(tau.shape[:-1]) != tuple(input.shape[:-2]):
            raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to "
                               f"input.shape[:-2], but got {list(tau.shape[:-1])}")
        if tuple(other.shape[:-2]) != tuple(input.shape[:-2]):
            raise RuntimeError(f"{name}: Expected batch dimensions of other to be equal to "
                               f"input.shape[:-2], but got {list(other.shape[:-2])}")
    for label, x in (("tau", tau), ("other", other)):
        if x.dtype != input.dtype:
            raise RuntimeError(f"{name}: Expected input and {label} to have the same dtype, "
                               f"but input has dtype{scalar_type(input.dtype)} and {label} has "
                               f"dtype {scalar_type(x.dtype)}")
    _not_implemented("ormqr_cpu", input.dtype)
    result = Ormqr.apply(input, tau, other, left, transpose)
    if out is not None:
        return out.resize_(result.shape).copy_(result)
    return result


_register_methods({"geqrf": geqrf, "orgqr": orgqr, "ormqr": ormqr})
