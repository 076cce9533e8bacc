"""``Tensor.unfold(dimension, size, step)``: every slice of ``size`` entries along
``dimension``, ``step`` apart, as a new last dim of a view of the tensor (no copy), recorded
as torch records it (``UnfoldBackward0``).

The view is ``as_strided``: ``dimension`` keeps ``(length - size) // step + 1`` slices
whose starts are ``step`` strides apart, and the new last dim walks one stride. Its
backward adds each slice's gradient back where the slice came from (slices overlap when
``step < size``): one ``index_add`` along ``dimension`` of the gradient with each slice's
entries laid out in a row, an op itself, so a double backward records.

>>> import autograd_cy as ag
>>> ag.arange(5.).unfold(0, 2, 2)
tensor([[0., 1.],
        [2., 3.]])
"""
from autograd_cy import factories
from autograd_cy._C.tensor import _register_methods
from autograd_cy.autograd.function import Function

__all__ = []


def _windows(input, dimension, size, step):
    """The strided view of ``input``'s slices along ``dimension``."""
    shape, strides = list(input.shape), list(input.stride())
    if input.dim() == 0:                    # a scalar is a one-entry dim
        return input.as_strided((1,), (1,))
    count = (shape[dimension] - size) // step + 1
    stride = strides[dimension]
    shape[dimension], strides[dimension] = count, stride * step
    return input.as_strided((*shape, size), (*strides, stride))


def _unfold_backward(grad, input_shape, dimension, size, step):
    """The slices' gradients added back onto ``input_shape`` along ``dimension``."""
    if not input_shape:
        return grad.reshape(())
    count = grad.shape[dimension]
    entries = (factories.arange(count, device=grad.device).reshape(-1, 1) * step
               + factories.arange(size, device=grad.device)).reshape(-1)
    rows = grad.movedim(-1, dimension + 1)
    rows = rows.reshape(*rows.shape[:dimension], count * size, *rows.shape[dimension + 2:])
    zeros = factories.zeros(input_shape, dtype=grad.dtype, device=grad.device)
    return zeros.index_add(dimension, entries, rows)


# NOTE [Unfold's view from a Function]
# torch's unfold is a view op whose result may be written in place (the base then takes a
# CopySlices node). Here the view leaves a Python Function, so it shares the input's memory
# and is recorded as UnfoldBackward0, but, as any view a custom Function returns, writing
# into it in place while it requires grad raises instead of rebasing the history.


class Unfold(Function):
    """``_windows`` as an op with ``_unfold_backward`` as its backward."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, dimension, size, step):
        ctx.settings = (tuple(input.shape), dimension, size, step)
        return _windows(input, dimension, size, step)

    @staticmethod
    def backward(ctx, grad):
        return _unfold_backward(grad, *ctx.settings), None, None, None

    @staticmethod
    def jvp(ctx, input_t, *settings):
        return _windows(input_t, *ctx.settings[1:])


Unfold._backward_cls.__name__ = "UnfoldBackward0"


def unfold(self, dimension, size, step):
    """A view with every ``size``-long slice along ``dimension``, ``step`` apart, in a new
    last dim (torch's checks, in its order)."""
    rank = max(self.dim(), 1)
    if not -rank <= dimension < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, "
                         f"{rank - 1}], but got {dimension})")
    dimension %= rank
    length = self.shape[dimension] if self.dim() else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {dimension} is {length} but "
                           f"size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    return Unfold.apply(self, dimension, size, step)


_register_methods({"unfold": unfold})
