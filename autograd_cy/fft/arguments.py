"""What the transforms of ``autograd_cy.fft`` share before and after their primitive: the
argument checks with torch's errors, the dtype a transform computes in, the dims and
signal sizes of an n-dim transform, the trimming and zero-padding of the input to those
sizes, and ``out=``.
"""
import operator
import warnings

import autograd_cy as _ag
from autograd_cy._C.ops.arguments import is_int
from autograd_cy._C.tensor import Tensor
from autograd_cy.autograd import forward_ad as _fwad
from autograd_cy.fft.kernels import BY_N, BY_ROOT_N, NONE

__all__ = ["check_tensor", "int_or_none", "ints_or_none", "normalization", "promoted",
           "wrap_dim", "check_size", "shape_and_dims", "c2r_shape_and_dims", "resized",
           "check_out", "write_out"]


def check_tensor(name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"fft_{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def int_or_none(name, argument, value):
    """An ``int?`` argument as torch's parser reads it (a bool is not an int)."""
    if value is None:
        return None
    if not is_int(value) or isinstance(value, bool):
        raise TypeError(f"fft_{name}(): argument '{argument}' must be int, not "
                        f"{type(value).__name__}")
    return operator.index(value)


def ints_or_none(name, argument, value):
    """An ``int[]?`` argument: None, an int (one entry) or a sequence of ints."""
    if value is None:
        return None
    if is_int(value) and not isinstance(value, bool):
        return (operator.index(value),)
    if not isinstance(value, (tuple, list, _ag.Size)) or not all(
            is_int(v) and not isinstance(v, bool) for v in value):
        raise TypeError(f"fft_{name}(): argument '{argument}' must be tuple of ints, not "
                        f"{type(value).__name__}")
    return tuple(operator.index(v) for v in value)


def normalization(name, norm, forward):
    """torch's normalization mode of ``norm`` for a forward or an inverse transform:
    "backward" (the default) scales the inverse by 1/n, "forward" the forward one, "ortho"
    both by 1/sqrt(n)."""
    if norm is not None and not isinstance(norm, str):
        raise TypeError(f"fft_{name}(): argument 'norm' must be str, not "
                        f"{type(norm).__name__}")
    if norm is None or norm == "backward":
        return NONE if forward else BY_N
    if norm == "forward":
        return BY_N if forward else NONE
    if norm == "ortho":
        return BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def promoted(input, require_complex):
    """``input`` in the dtype a transform computes in (torch's promote_tensor_fft): integers
    and bools in the default dtype; float16 and bfloat16 refused, as torch's CPU build
    refuses them (its CUDA build's complex32 is not a dtype here); complex where
    ``require_complex``."""
    dtype = input.dtype
    if dtype.is_complex:
        return input
    if not dtype.is_floating_point:
        dtype = _ag.get_default_dtype()
    if dtype not in (_ag.float32, _ag.float64):
        raise RuntimeError(f"Unsupported dtype {dtype._scalar_name}")
    if require_complex:
        dtype = _ag.complex64 if dtype == _ag.float32 else _ag.complex128
    return input.to(dtype)


def wrap_dim(dim, ndim):
    """``dim`` made non-negative; a 0-d tensor has no dim to transform."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {dim})")
    return dim % ndim


def check_size(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def shape_and_dims(input, s, dim):
    """The signal sizes and the dims of an n-dim transform (torch's
    canonicalize_fft_shape_and_dim_args): every dim, or the last ``len(s)`` ones, or those
    given; a size of -1 keeps the input's."""
    ndim, sizes = input.dim(), tuple(input.shape)
    dims = None
    if dim is not None:
        dims = tuple(wrap_dim(d, ndim) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{ndim} dimensions.")
        if dims is None:
            dims = tuple(range(ndim - len(s), ndim))
        shape = [sizes[d] if n == -1 else n for n, d in zip(s, dims)]
    elif dims is None:
        dims, shape = tuple(range(ndim)), list(sizes)
    else:
        shape = [sizes[d] for d in dims]
    for n in shape:
        check_size(n)
    return shape, dims


def c2r_shape_and_dims(name, input, s, dim):
    """shape_and_dims for a transform to a real (Hermitian) result: the last dim's sizes in
    and out (``2 * (m - 1)`` from an input of m entries, unless ``s`` says)."""
    shape, dims = shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    if s is None or s[-1] == -1:
        last_dim_size = 2 * (input.shape[dims[-1]] - 1)
    else:
        last_dim_size = shape[-1]
    check_size(last_dim_size)
    shape[-1] = last_dim_size // 2 + 1
    return shape, dims, last_dim_size


def resized(input, dims, sizes):
    """``input`` trimmed or padded with zeros at the end of each of ``dims`` to ``sizes``
    (torch's resize_fft_input: a slice, then one constant pad)."""
    padding = [0] * (2 * input.dim())
    pad = False
    for d, n in zip(dims, sizes):
        have = input.shape[d]
        if have > n:
            input = input.narrow(d, 0, n)
        elif have < n:
            padding[2 * (input.dim() - 1 - d) + 1] = n - have
            pad = True
    return _ag.nn.functional.pad(input, padding) if pad else input


def check_out(name, out, real):
    """``out``'s dtype must be of the result's kind (complex, or real where ``real``)."""
    if not isinstance(out, Tensor):
        raise TypeError(f"fft_{name}(): argument 'out' must be Tensor, not "
                        f"{type(out).__name__}")
    if not (out.dtype.is_floating_point if real else out.dtype.is_complex):
        kind = "floating point" if real else "complex"
        raise RuntimeError(f"{name} expects a {kind} output tensor, but got "
                           f"{out.dtype._scalar_name}")


def write_out(name, primitive, out, result, input, real):
    """``result`` written into ``out`` (torch's out= variant), whose dtype may be narrower
    (``check_out``). Refused under grad mode when ``input`` or ``out`` requires grad, and in
    forward AD when either has a tangent, naming the primitive as torch does."""
    check_out(name, out, real)
    if any(_fwad.unpack_dual(t).tangent is not None for t in (input, out)):
        raise NotImplementedError(f"Trying to use forward AD with {primitive}_out that does "
                                  "not support it because it is an out= function")
    if _ag.is_grad_enabled() and (input.requires_grad or out.requires_grad):
        raise RuntimeError(
            f"{primitive}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad.")
    with _ag.no_grad():
        if tuple(out.shape) != tuple(result.shape):
            if out.numel():
                warnings.warn(
                    f"An output with one or more elements was resized since it had shape "
                    f"{list(out.shape)}, which does not match the required output shape "
                    f"{list(result.shape)}. This behavior is deprecated, and in a future "
                    "PyTorch release outputs will not be resized unless they have zero "
                    "elements. You can explicitly reuse an out tensor t by resizing it, "
                    "inplace, to zero elements with t.resize_(0).", UserWarning, stacklevel=4)
            out.resize_(tuple(result.shape))
        out.copy_(result)
    return out
