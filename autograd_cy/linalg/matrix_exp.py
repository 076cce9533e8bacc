"""``linalg.matrix_exp``: ``exp(A) = sum_k A^k / k!`` of each square matrix.

The forward scales ``A`` by ``2^-s`` until its norm is below 1/2, sums the Taylor series
there (to float64 precision in 18 terms) and squares the result ``s`` times.

# NOTE [The matrix exponential's backward]
The Fréchet derivative of ``exp`` at ``A`` in direction ``E`` is the upper-right block of
``exp([[A, E], [0, A]])``, and the gradient is that derivative at ``A^H`` in the direction
``g`` (torch's formula): one matrix exponential of twice the size, itself differentiable,
so double backward is the same op again. The node is ``LinalgMatrixExpBackward0``.

# NOTE [matrix_exp in the half types]
torch 2.13's kernel has no float16/bfloat16 branch: those take the float64 one, its
thresholds and coefficients, but compute in the half type itself. Its coefficients are
float64 constants handed over as raw memory read in the tensor's dtype, so each one is two
bytes of a float64's bit pattern (the blob ``[1/2, 1/6, 1/24]`` reads as the first three
2-byte words of ``1/2``: zeros). A 1x1 matrix is ``exp`` of its entry. Otherwise, by the
1-norm (the largest column sum of ``|A|``, in the dtype): at most the degree-1 threshold
``I + A``; then ``I + A + A^2/2``; then the degree-4, 8 and 12 polynomials (torch's
product forms, their coefficients reread as above); at and above the degree-12 threshold,
and for every matrix of a batch of more than one, the degree-18 form on ``A / 2^s``
(``s = ceil(log2(norm / theta18))``, at least 0) squared ``s`` times; a NaN norm is a NaN
matrix. The thresholds are compared in the dtype (float16 rounds the first two to 0). Each
product of matrices accumulates in float32 and rounds once, each step of a linear
combination rounds (``out += c_i * A_i``), as torch's kernels do. The results are mostly
NaN, inf or huge: that is torch's answer, and this follows it. The gradient (the exponential
of the block matrix) goes through the same path.

>>> import autograd_cy as ag
>>> ag.linalg.matrix_exp(ag.zeros(2, 2))
tensor([[1., 0.],
        [0., 1.]])
"""
import math

import ml_dtypes
import numpy as np

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import array_of, check_matrix, mH, tensor_like

__all__ = ["matrix_exp"]

TAYLOR_TERMS = 18


def _expm(a):
    """``exp`` of each matrix of the array ``a`` by scaling and squaring; a 1x1 matrix is
    ``exp`` of its entry, a matrix with an infinite or NaN 1-norm all NaN, as torch's."""
    if a.shape[-1] == 1:
        with np.errstate(all="ignore"):
            return np.exp(a)
    with np.errstate(all="ignore"):
        norms = np.abs(a).sum(-2).max(-1) if a.size else np.zeros(a.shape[:-2])
    broken = ~np.isfinite(norms)
    if broken.any():
        out = _expm(np.where(broken[..., None, None], 0, a))
        out[broken] = complex(np.nan, np.nan) if out.dtype.kind == "c" else np.nan
        return out
    norm = norms.max() if a.size else 0.0
    squarings = max(0, int(math.ceil(math.log2(norm / 0.5)))) if norm > 0.5 else 0
    x = a / (2.0 ** squarings)
    term = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape).copy()
    total = term.copy()
    for k in range(1, TAYLOR_TERMS + 1):
        term = term @ x / k
        total += term
    for _ in range(squarings):
        total = total @ total
    return total


# torch's threshold of the 1-norm for each degree 1, 2, 4, 8, 12, 18 (its float64 set)
_THETAS = (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
           4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00)
_SQRT_177 = 0.1330413469565007072504e+2
_X3 = 2. / 3.
_T8 = dict(x1=_X3 * ((1. + _SQRT_177) / 88.), x2=_X3 * ((1. + _SQRT_177) / 352.),
           x4=(-271. + 29. * _SQRT_177) / (315. * _X3),
           x5=(-11. + 11. * _SQRT_177) / (1260. * _X3),
           x6=(-99. + 11. * _SQRT_177) / (5040. * _X3), x7=(89. - _SQRT_177) / (5040. * _X3),
           y2=(857. - 58. * _SQRT_177) / 630.)
# the first rows of torch's coefficient tables of degrees 12 (4x4) and 18 (5x5): the only
# float64 bytes that a 4x4 (5x5) table of 2-byte words covers
_T12_HEAD = (9.0198e-16, 0.46932117595418237389, -0.20099424927047284052,
             -0.04623946134063071740)
_T18_HEAD = (0., -1.00365581030144618291e-01, -8.02924648241156932449e-03,
             -8.92138498045729985177e-04, 0., 0., 3.97849749499645077844e-01)


class _HalfExp:
    """torch's ``matrix_exp`` of a batch ``(b, n, n)`` of float16 or bfloat16 matrices
    (NOTE [matrix_exp in the half types])."""

    def __init__(self, dtype):
        self.dtype = dtype

    def round(self, x):
        return np.asarray(x, dtype=np.float32).astype(self.dtype)

    def words(self, doubles, count):
        """``count`` values of the dtype read from the bytes of the float64 ``doubles``."""
        raw = np.asarray(doubles, dtype=np.float64).tobytes()
        return np.frombuffer(raw, dtype=self.dtype)[:count].astype(np.float32)

    def mm(self, x, y):
        """The product in float32, rounded once: einsum's plain loops, whose sums overflow
        as torch's do (a BLAS ``sgemm`` may scale, so that ``inf - inf`` comes out inf)."""
        return self.round(np.einsum("...ij,...jk->...ik", x.astype(np.float32),
                                    y.astype(np.float32)))

    def combine(self, powers, coefficients):
        """``out[i] = sum_j c[i, j] powers[j]``, each product and each sum rounded."""
        coefficients = np.atleast_2d(coefficients)
        out = np.zeros((coefficients.shape[0],) + powers[0].shape, dtype=self.dtype)
        for j, power in enumerate(powers[:coefficients.shape[1]]):
            term = self.round(power.astype(np.float32) * coefficients[:, j, None, None, None])
            out = self.round(out.astype(np.float32) + term.astype(np.float32))
        return out

    def powers(self, a, count):
        """``[I, A, A^2, A^3, A^6][:count]``."""
        eye = np.broadcast_to(np.eye(a.shape[-1], dtype=self.dtype), a.shape)
        out = [eye, a]
        if count > 2:
            out.append(self.mm(a, a))
        if count > 3:
            out.append(self.mm(a, out[2]))
        if count > 4:
            out.append(self.mm(out[3], out[3]))
        return out[:count]

    def degree(self, i, a):
        if i == 0:
            return self.round(sum(p.astype(np.float32) for p in self.powers(a, 2)))
        if i == 1:
            eye, a1, a2 = self.powers(a, 3)
            a2 = self.round(a2.astype(np.float32) / 2)
            return self.round(eye.astype(np.float32) + a1 + a2.astype(np.float32))
        if i == 2:
            p = self.powers(a, 3)
            p.append(self.mm(p[2], self.combine(p, self.words([1 / 2.0, 1 / 6.0, 1 / 24.0],
                                                              3))[0]))
            return self.combine(p, self.words([1.0, 1.0, 0.0, 1.0], 4))[0]
        if i == 3:
            t = _T8
            p = self.powers(a, 3)
            p.append(self.mm(p[2], self.combine(p[1:], self.words([t["x1"], t["x2"]], 2))[0]))
            left = self.combine(p[2:], self.words([_X3, 1.0], 2))[0]
            right = self.combine(p, self.words([t["x4"], t["x5"], t["x6"], t["x7"]], 4))[0]
            p.append(self.mm(left, right))
            return self.combine(p, self.words([1.0, 1.0, t["y2"], 0.0, 1.0], 5))[0]
        if i == 4:
            b = self.combine(self.powers(a, 4), self.words(_T12_HEAD, 16).reshape(4, 4))
            b2 = self.add(b[2], self.mm(b[3], b[3]))
            return self.add(b[0], self.mm(self.add(b[1], b2), b2))
        b = self.combine(self.powers(a, 5), self.words(_T18_HEAD, 25).reshape(5, 5))
        b3 = self.add(b[3], self.mm(b[0], b[4]))
        return self.add(b[1], self.mm(self.add(b[2], b3), b3))

    def add(self, x, y):
        return self.round(x.astype(np.float32) + y.astype(np.float32))

    def scaled_squared(self, a, norm):
        """The degree-18 form of ``A / 2^s``, squared ``s`` times (a NaN or infinite ``s``
        is squared as often as the largest finite one of the batch, as torch's grouped
        squaring leaves it)."""
        with np.errstate(all="ignore"):
            ratio = self.round(norm.astype(np.float32) / np.float32(_THETAS[5]))
            s = np.ceil(self.round(np.log2(ratio.astype(np.float32))).astype(np.float32))
            s = np.where(s < 0, np.float32(0), s)          # NaN stays NaN
            scaled = self.round(a.astype(np.float32)
                                * np.exp2(-s).astype(self.dtype).astype(np.float32)[:, None, None])
            out = self.degree(5, scaled)
            finite = np.isfinite(s)
            most = int(s[finite].max()) if finite.any() else 0
            times = np.where(finite, np.where(finite, s, 0), most).astype(np.int64)
            for step in range(int(times.max()) if times.size else 0):
                chosen = times > step
                out[chosen] = self.mm(out[chosen], out[chosen])
        return out

    def __call__(self, a):
        with np.errstate(all="ignore"):
            norm = self.round(np.abs(a.astype(np.float32)).sum(-2)).astype(np.float32).max(-1)
            if a.shape[0] > 1:
                return self.scaled_squared(a, norm)
            out = np.full(a.shape, np.nan, dtype=self.dtype)
            thetas = self.round(np.array(_THETAS)).astype(np.float32)
            low = np.float32(-1)
            for i in range(5):
                chosen = (low < norm) & (norm <= thetas[i])
                if chosen.any():
                    out[chosen] = self.degree(i, a[chosen])
                low = thetas[i]
            large = norm >= thetas[4]
            if large.any():
                out[large] = self.scaled_squared(a[large], norm[large])
        return out


def _expm_half(a):
    """torch's ``matrix_exp`` of float16 or bfloat16 matrices, in that dtype (NOTE
    [matrix_exp in the half types])."""
    n = a.shape[-1]
    if n == 0:
        return a.copy()
    if n == 1:
        with np.errstate(all="ignore"):
            return np.exp(a.astype(np.float32)).astype(a.dtype)
    flat = a.reshape((-1, n, n))
    return _HalfExp(a.dtype)(flat).reshape(a.shape)


def _frechet(A, E):
    """The derivative of ``exp`` at ``A`` in direction ``E``: the upper-right block of the
    exponential of ``[[A, E], [0, A]]`` (NOTE [The matrix exponential's backward])."""
    n = A.shape[-1]
    top = _ag.cat([A, E], -1)
    bottom = _ag.cat([_ag.zeros_like(A), A], -1)
    return matrix_exp(_ag.cat([top, bottom], -2))[..., :n, n:]


class LinalgMatrixExp(Function):
    """``matrix_exp``'s op."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        ctx.save_for_forward(A)
        a = array_of(A)
        if a.dtype in (np.float16, ml_dtypes.bfloat16):
            return tensor_like(_expm_half(a), A)
        return tensor_like(_expm(a), A)

    @staticmethod
    def backward(ctx, grad):
        (A,) = ctx.saved_tensors
        return _frechet(mH(A), grad)

    @staticmethod
    def jvp(ctx, A_t):
        (A,) = ctx.saved_tensors
        return _frechet(A, A_t)


LinalgMatrixExp._backward_cls.__name__ = "LinalgMatrixExpBackward0"


def matrix_exp(A):
    """The matrix exponential of each square matrix of ``A``."""
    check_matrix(A, "linalg.matrix_exp", low_precision=True)
    return LinalgMatrixExp.apply(A)
