"""``nn.utils.parametrizations``: ``orthogonal``, ``weight_norm`` and ``spectral_norm`` as
parametrizations (``nn.utils.parametrize``), as ``torch.nn.utils.parametrizations``.

# NOTE [Orthogonal parametrization]
``orthogonal`` maps an unconstrained matrix ``X`` (n x k, n >= k; a wide one is
transposed) to one with orthonormal columns: ``matrix_exp`` and ``cayley`` take the
skew-symmetric (skew-Hermitian) ``A = L - L^H`` of its lower triangle ``L`` (padded to
n x n) to ``exp(A)`` or ``(I - A/2)^{-1} (I + A/2)`` and keep k columns; ``householder``
takes the product of the reflections stored below the diagonal. With
``use_trivialization`` (the default) the result is multiplied by a buffer ``base``, an
orthogonal matrix that assignment sets to the value assigned (made orthogonal by a QR
with a positive diagonal of R, a rectangular one completed with random columns), while
the original becomes ``-I``-like: zero, so that the map starts at the identity.
"""

import autograd_cy as _ag
from autograd_cy._C.tensor import Tensor
from autograd_cy.grad_mode import no_grad
from autograd_cy.nn.distance import normalize
from autograd_cy.nn.modules.module import Module
from autograd_cy.nn.utils import parametrize
from autograd_cy.nn.weight_normalization import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]

_MAPS = ("matrix_exp", "cayley", "householder")


def _is_orthogonal(Q):
    n, k = Q.shape[-2], Q.shape[-1]
    identity = _ag.eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * _ag.finfo(Q.dtype).eps
    return _ag.allclose(Q.mH @ Q, identity, atol=eps)


def _make_orthogonal(A):
    """The Q of ``A``'s QR, its columns' signs those of R's diagonal (so R's is positive)."""
    Q, R = _ag.linalg.qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _Orthogonal(Module):
    """The orthogonal parametrization (NOTE [Orthogonal parametrization])."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                X = _ag.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == "matrix_exp":
                Q = _ag.matrix_exp(A)
            else:
                identity = _ag.eye(n, dtype=A.dtype, device=A.device)
                Q = _ag.linalg.solve(_ag.add(identity, A, alpha=-0.5),
                                     _ag.add(identity, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _ag.linalg.householder_product(A, tau)
            # the diagonal of X (1s and -1s) picks the columns' signs, without a gradient
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        given = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transposed = n < k
        if transposed:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in ("matrix_exp", "cayley"):
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential or the Cayley "
                    "parametrizations when use_trivialization=False.")
            A, tau = _ag.geqrf(Q)
            diagonal = A.diagonal(dim1=-2, dim2=-1)
            diagonal.sign_()
            diagonal.mul_(_ag.where(tau == 0.0, -1.0, 1.0).to(A.dtype))
            return A.mT if transposed else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:           # completed to n x n with random columns
            extra = _ag.randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype,
                              device=Q.device)
            Q = _make_orthogonal(_ag.cat([Q, extra], dim=-1))
        self.base = Q
        negative_identity = _ag.zeros_like(given)
        negative_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return negative_identity


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrain the matrix (or batch of matrices) ``module.<name>`` to be orthogonal
    (unitary), its columns or rows orthonormal (NOTE [Orthogonal parametrization]).
    ``orthogonal_map`` defaults to ``"matrix_exp"`` for a square or complex matrix, else
    ``"householder"``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    parametrization = _Orthogonal(weight, orthogonal_map,
                                  use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, parametrization, unsafe=True)
    return module


class _WeightNorm(Module):
    """``g * v / ||v||`` from ``original0 = g`` and ``original1 = v``."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as its magnitude ``g`` (``original0``) times its
    direction ``v / ||v||`` (``v``: ``original1``), the norm over every dim but ``dim``
    (all of them for ``dim=None``). A state dict of the older ``nn.utils.weight_norm``
    (``<name>_g``, ``<name>_v``) loads into it."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def load_older_names(state_dict, prefix, local_metadata, strict, missing_keys,
                         unexpected_keys, error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(load_older_names)
    return module


class _SpectralNorm(Module):
    """``weight / sigma``, ``sigma`` the largest singular value of the weight as a matrix
    (``dim`` first, the rest flattened) from power iteration on the buffers ``_u``, ``_v``
    (an iteration per forward in training mode; none in eval). A vector is normalized."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            matrix = self._reshape_weight_to_matrix(weight)
            rows, cols = matrix.shape
            u = matrix.new_empty(rows).normal_(0, 1)
            v = matrix.new_empty(cols).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            self._power_method(matrix, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim,
                                    *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, matrix, iterations):
        """``iterations`` steps of power iteration, written into ``_u`` and ``_v`` in place
        (a replica that shares them updates the module's)."""
        with no_grad():
            for _ in range(iterations):
                self._u.copy_(normalize(_ag.mv(matrix, self._v), dim=0, eps=self.eps))
                self._v.copy_(normalize(_ag.mv(matrix.mH, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        matrix = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        # copies: a later forward's in-place update must not change what this one saved
        u, v = self._u.clone(), self._v.clone()
        sigma = _ag.vdot(u, _ag.mv(matrix, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm, estimated by power iteration
    (``n_power_iterations`` per forward in training mode). ``dim`` defaults to 1 for the
    transposed convolutions, else 0."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if _is_conv_transpose(module) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


def _is_conv_transpose(module):
    from autograd_cy.nn.modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
    return isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d))
