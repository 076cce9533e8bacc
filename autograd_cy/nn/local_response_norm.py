"""``local_response_norm``: each value divided by a power of the mean square of its
neighbours across channels (AlexNet's normalization).

``input / (k + alpha * mean(x^2 over size channels around c)) ** beta``: the window is
centred on the channel (``size // 2`` before, ``(size - 1) // 2`` after) and zero-padded at
the ends, and the mean always divides by ``size``, as torch's does. It is composed of
recorded ops (the squares, a zero-padded ``unfold`` over the channel dim, ``mean``, ``pow``):
the gradient, double backward and forward AD are theirs.
"""
import autograd_cy as _ag
from autograd_cy.nn.pooling import refuse_avg_pool_dtype

__all__ = ["local_response_norm"]


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Normalise ``input`` (N, C, ...) over ``size`` neighbouring channels."""
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.dim()} "
                         f"dimensions)")
    if input.numel() == 0:
        return input
    # torch averages the squares with avg_pool2d (a 3-D input) or avg_pool3d
    refuse_avg_pool_dtype("avg_pool2d" if input.dim() == 3 else "avg_pool3d", input.dtype)
    squares = input * input
    before, after = size // 2, (size - 1) // 2
    shape = list(squares.shape)
    parts = []
    for count in (before, None, after):
        if count is None:
            parts.append(squares)
        elif count:
            shape[1] = count
            parts.append(_ag.zeros(shape, dtype=squares.dtype, device=squares.device))
    padded = _ag.cat(parts, dim=1) if len(parts) > 1 else squares
    window_mean = padded.unfold(1, size, 1).mean(-1)
    return input / (window_mean * alpha + k) ** beta
