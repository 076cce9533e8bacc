"""Values of the special functions (torch.special, igamma) computed on the host in float64
NumPy.

``host_values(function, *operands, op=name)`` promotes the operands as torch's elementwise
ops do (integers and bools give the default float dtype; complex ones are refused, as
torch's kernels refuse them), broadcasts them, evaluates ``function`` on their float64
arrays (a CUDA tensor's values go through the host) and returns the result in the
promoted dtype, on the first tensor's device. No graph is recorded: the ops that have
gradients wrap this in an ``autograd.Function``.
"""
import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import Tensor, _array_of, _wrap_array


def require_tensor(op, value, argument="input"):
    """torch's TypeError for a number where ``op`` (its ATen name) takes a tensor."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{argument}' (position 1) must be Tensor, not "
                        f"{type(value).__name__}")


def require_one_tensor(op, *operands):
    """torch's TypeError for a binary op given two numbers."""
    if not any(isinstance(o, Tensor) for o in operands):
        kinds = ", ".join(type(o).__name__ for o in operands)
        raise TypeError(f"{op}() received an invalid combination of arguments - got "
                        f"({kinds}), but expected a Tensor for one of them")


def floating_dtype(*operands, op, half=False):
    """The dtype torch's float op gives ``operands``: its CPU kernel refuses a complex one,
    and a float16 or bfloat16 one unless ``half`` (igamma has those kernels, the Bessel,
    Airy, normal-distribution, zeta and orthogonal-polynomial functions have not)."""
    if len(operands) == 1:
        dtype = operands[0].dtype
    else:
        dtype = _ag.result_type(*operands)
    if dtype.is_complex or not half and dtype in (_ag.float16, _ag.bfloat16):
        raise NotImplementedError(f"\"{op}\" not implemented for '{dtype._scalar_name}'")
    return dtype if dtype.is_floating_point else _ag.get_default_dtype()


def broadcast_shape(a, b):
    """The broadcast of two shapes, or torch's elementwise error."""
    a, b = tuple(a), tuple(b)
    size = max(len(a), len(b))
    a, b = (1,) * (size - len(a)) + a, (1,) * (size - len(b)) + b
    for dim, (m, n) in enumerate(zip(a, b)):
        if m != n and m != 1 and n != 1:
            raise RuntimeError(f"The size of tensor a ({m}) must match the size of tensor b "
                               f"({n}) at non-singleton dimension {dim}")
    return _ag.Size(max(m, n) if m != 1 and n != 1 else m * n for m, n in zip(a, b))


def host_values(function, *operands, op, half=False):
    """``function`` of the operands' float64 values, as a tensor of their promoted dtype
    (float16 and bfloat16 refused unless ``half``)."""
    dtype = floating_dtype(*operands, op=op, half=half)
    tensors = [o for o in operands if isinstance(o, Tensor)]
    shape = tensors[0].shape
    for other in tensors[1:]:
        shape = broadcast_shape(shape, other.shape)
    arrays = [np.broadcast_to(np.asarray(
        _array_of(o.detach().cpu()) if isinstance(o, Tensor) else o, dtype=np.float64), shape)
        for o in operands]
    with np.errstate(all="ignore"):
        result = np.asarray(function(*arrays), dtype=np.float64).reshape(shape)
    return _wrap_array(result).to(dtype).to(tensors[0].device)
