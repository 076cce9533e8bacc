"""The ``*_copy`` forms of the view ops (``t_copy``, ``view_copy``, ``diagonal_copy`` ...),
``narrow_copy``, and ``unsafe_split`` / ``unsafe_chunk``.

A ``*_copy`` op computes what its view op computes, into a fresh contiguous tensor that
shares no memory with its input, as torch's functionalized programs need. Its gradient is
the view op's: a view is linear in its input, so backward runs the view op on a zero input
that requires grad and asks autograd for the vector-Jacobian product with the incoming
gradient (recorded, so double backward works). The node is named as torch names it: the
view's node with ``_copy`` after it (``TBackward0_copy``). (Not a ``ComposedOp``, NOTE [An
op that differentiates its composition]: a view is linear, so this backward needs neither
the saved input nor a second forward, and the ops here may have several outputs.)

``unsafe_split`` / ``unsafe_chunk`` are ``split`` / ``chunk`` whose outputs share the
input's memory but are not tracked as its views (no ``_base``, no view checks on in-place
writes: the "unsafe"), under torch's node name, with the same gradient.

>>> import autograd_cy as ag
>>> x = ag.ones(2, 3, requires_grad=True)
>>> y = ag.t_copy(x)
>>> y.grad_fn.name(), y.is_contiguous()
('TBackward0_copy', True)
"""
import autograd_cy as _ag
from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function

__all__ = ["alias_copy", "as_strided_copy", "diagonal_copy", "expand_copy", "permute_copy",
           "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy", "unfold_copy",
           "unsqueeze_copy", "view_copy", "split_with_sizes_copy", "split_copy",
           "narrow_copy", "unsafe_split", "unsafe_chunk", "unsafe_split_with_sizes"]
__tensor_methods__ = ["narrow_copy", "unsafe_split", "unsafe_chunk", "unsafe_split_with_sizes"]


def _fresh(value):
    """A contiguous copy of a view (or of each view of a tuple)."""
    if isinstance(value, (tuple, list)):
        return tuple(_fresh(item) for item in value)
    return value.clone(memory_format=_ag.contiguous_format)


def _untracked(value):
    """The same memory as a view (or each view of a tuple), as a tensor that is no view."""
    if isinstance(value, (tuple, list)):
        return tuple(_untracked(item) for item in value)
    return _wrap_array(_array_of(value))


class _ViewCopy(Function):
    """``view(input, *arguments)`` copied; the view's gradient."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, view, arguments, untracked):
        ctx.view, ctx.arguments = view, arguments
        ctx.input_shape, ctx.input_dtype = input.shape, input.dtype
        ctx.input_device = input.device
        return (_untracked if untracked else _fresh)(view(input, *arguments))

    @staticmethod
    def backward(ctx, *grads):
        with _ag.enable_grad():
            zero = _ag.zeros(ctx.input_shape, dtype=ctx.input_dtype, device=ctx.input_device,
                             requires_grad=True)
            viewed = ctx.view(zero, *ctx.arguments)
            outputs = viewed if isinstance(viewed, (tuple, list)) else (viewed,)
            pairs = [(out, grad) for out, grad in zip(outputs, grads) if grad is not None]
            if not pairs:
                return None, None, None, None
            grad_input, = _ag.autograd.grad(
                [out for out, _ in pairs], zero, [grad for _, grad in pairs],
                create_graph=any(grad.requires_grad for _, grad in pairs),
                allow_unused=True)
        return grad_input, None, None, None

    @staticmethod
    def jvp(ctx, input_t, view_t, arguments_t, untracked_t):
        return _fresh(ctx.view(input_t, *ctx.arguments))


_CLASSES = {}


def _copying(node_name, view, input, *arguments, untracked=False):
    """``view(input, *arguments)`` as a fresh tensor recorded as ``node_name`` (with
    ``untracked``: the view's memory, not tracked as a view)."""
    op = _CLASSES.get(node_name)
    if op is None:
        op = _CLASSES[node_name] = type(node_name.replace("Backward", "Op"), (_ViewCopy,), {})
        op._backward_cls.__name__ = node_name
    return op.apply(input, view, arguments, untracked)


def alias_copy(input):
    """A copy of ``input`` (``alias``'s copying form)."""
    return _copying("AliasBackward0_copy", lambda tensor: tensor.view_as(tensor), input)


def as_strided_copy(input, size, stride, storage_offset=None):
    """``as_strided``, copied."""
    return _copying("AsStridedBackward0_copy", _ag.as_strided, input, size, stride,
                    storage_offset)


def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    """``diagonal``, copied."""
    return _copying("DiagonalBackward0_copy", _ag.diagonal, input, offset, dim1, dim2)


def expand_copy(input, size, *, implicit=False):
    """``expand``, copied."""
    return _copying("ExpandBackward0_copy", lambda tensor, shape: tensor.expand(shape),
                    input, tuple(size))


def permute_copy(input, dims):
    """``permute``, copied."""
    return _copying("PermuteBackward0_copy", _ag.permute, input, tuple(dims))


def squeeze_copy(input, dim=None):
    """``squeeze``, copied."""
    if dim is None:
        return _copying("SqueezeBackward0_copy", _ag.squeeze, input)
    return _copying("SqueezeBackward1_copy" if isinstance(dim, int) else "SqueezeBackward2_copy",
                    _ag.squeeze, input, dim)


def t_copy(input):
    """``t``, copied."""
    return _copying("TBackward0_copy", _ag.t, input)


def transpose_copy(input, dim0, dim1):
    """``transpose``, copied."""
    return _copying("TransposeBackward0_copy", _ag.transpose, input, dim0, dim1)


def unbind_copy(input, dim=0):
    """``unbind``, each slice copied."""
    return _copying("UnbindBackward0_copy", _ag.unbind, input, dim)


def unfold_copy(input, dimension, size, step):
    """``Tensor.unfold``, copied."""
    return _copying("UnfoldBackward0_copy", lambda tensor, *args: tensor.unfold(*args), input,
                    dimension, size, step)


def unsqueeze_copy(input, dim):
    """``unsqueeze``, copied."""
    return _copying("UnsqueezeBackward0_copy", _ag.unsqueeze, input, dim)


def view_copy(input, size):
    """``view`` to a shape, copied."""
    return _copying("ViewBackward0_copy", lambda tensor, shape: tensor.view(shape), input,
                    tuple(size))


def split_with_sizes_copy(input, split_sizes, dim=0):
    """``split_with_sizes``, each part copied."""
    return _copying("SplitWithSizesBackward0_copy", _ag.split_with_sizes, input,
                    list(split_sizes), dim)


def split_copy(input, split_size, dim=0):
    """``split`` by a size, each part copied."""
    return _copying("SplitBackward0_copy", _ag.split, input, split_size, dim)


def narrow_copy(input, dim, start, length):
    """``narrow``, copied (``NarrowCopyBackward0``, as torch names it)."""
    return _copying("NarrowCopyBackward0", _ag.narrow, input, dim, start, length)


def unsafe_split(input, split_size, dim=0):
    """``split`` whose parts are not views of ``input`` (``UnsafeSplitBackward0``)."""
    return _copying("UnsafeSplitBackward0", _ag.split, input, split_size, dim, untracked=True)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """``split_with_sizes`` whose parts are not views (``UnsafeSplitWithSizesBackward0``)."""
    return _copying("UnsafeSplitWithSizesBackward0", _ag.split_with_sizes, input,
                    list(split_sizes), dim, untracked=True)


def unsafe_chunk(input, chunks, dim=0):
    """``chunk`` whose parts are not views of ``input``."""
    return _copying("UnsafeSplitBackward0", _ag.chunk, input, chunks, dim, untracked=True)


_register_methods({name: globals()[name] for name in __tensor_methods__})
