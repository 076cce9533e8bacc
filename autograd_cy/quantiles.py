"""``quantile`` and ``nanquantile``: the q-th quantiles of ``input``, over all elements or
along ``dim``, as torch computes them.

The values are sorted (NaN last); the quantile ``q`` sits at rank ``q * (n - 1)`` (``n``
counting only the non-NaN values for ``nanquantile``, a row with a NaN giving NaN for
``quantile``), between two sorted values that ``interpolation`` combines: ``linear``
(``lerp`` by the rank's fraction), ``lower``, ``higher``, ``nearest`` (the rank rounded,
half to even), ``midpoint``. A scalar ``q`` is a 0-d tensor of ``input``'s dtype (so the
ranks are computed in that dtype, as torch's); a 1-D ``q`` puts its quantiles in a new
first dim. Sort, gather and lerp are recorded ops, so the gradient goes to the sorted
entries used (weighted by the interpolation), with double backward and tangents.

>>> import autograd_cy as ag
>>> ag.tensor([1.0, 2.0, 3.0, 4.0]).quantile(0.5)
tensor(2.5000)
"""
import autograd_cy as _ag
from autograd_cy._C.tensor import Tensor, _register_methods
from autograd_cy.reorder import _wrap

__all__ = ["quantile", "nanquantile"]

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _checks(input, q, interpolation):
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input.dtype not in (_ag.float32, _ag.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q.dtype is not input.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if q.numel() and not bool(((q >= 0) & (q <= 1)).all()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")


def _output_shape(input, dim, keepdim, q):
    if dim is not None and input.dim() > 0:
        shape = list(input.shape)
        if keepdim:
            shape[dim] = 1
        else:
            del shape[dim]
    else:
        shape = [1] * input.dim() if keepdim else []
    return ([q.numel()] if q.dim() > 0 else []) + shape


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    if not isinstance(q, Tensor):
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
        q = _ag.full((), q, dtype=input.dtype, device=input.device)
    _checks(input, q, interpolation)
    if dim is not None:
        dim = _wrap(dim, input.dim())
    out_shape = _output_shape(input, dim, keepdim, q)
    if dim is None:
        ordered = input.flatten().sort().values
    elif dim == input.dim() - 1:
        ordered = input.sort().values
    else:
        ordered = input.unsqueeze(-1).transpose(dim, -1).sort().values
    inner = out_shape[1:] if q.dim() > 0 else out_shape
    ordered = ordered.reshape(tuple(inner) + (ordered.shape[-1],))
    q_rows = q.reshape(-1)
    if ignore_nan:
        present = _ag.logical_not(ordered.isnan()).sum(-1, keepdim=True)
        ranks = q_rows * (present - 1)
        ranks = _ag.where(ranks < 0, _ag.zeros((), dtype=ranks.dtype, device=ranks.device),
                          ranks)
    else:
        last = ordered.shape[-1] - 1
        has_nan = ordered.isnan().any(-1, keepdim=True)
        ranks = _ag.where(has_nan, _ag.full((), last, dtype=q.dtype, device=q.device),
                          q_rows * last)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.long()
    values = ordered.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        if interpolation == "midpoint":
            weights = _ag.where(ranks == below, _ag.zeros((), dtype=ranks.dtype,
                                                          device=ranks.device),
                                _ag.full((), 0.5, dtype=ranks.dtype, device=ranks.device))
        else:
            weights = ranks - below
        values = _ag.lerp(values, ordered.gather(-1, ranks.ceil().long()), weights)
    if q.dim() == 0:
        return values.squeeze(-1)
    return values.movedim(-1, 0)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-th quantiles of ``input`` (a row with a NaN gives NaN)."""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-th quantiles of the values of ``input`` that are not NaN."""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=True)


_register_methods({"quantile": quantile, "nanquantile": nanquantile})
