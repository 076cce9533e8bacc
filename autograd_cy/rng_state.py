"""The uint8 tensors ``get_rng_state`` and ``set_rng_state`` exchange, for every generator.

A state is a CPU ``torch.ByteTensor`` of a generator-specific layout: the CPU generator's
(factories.py) and each CUDA device's Philox generator (autograd_cy/cuda) pack and unpack
their own fields, and share the tensor and torch's checks here, below both of them.
"""
import numpy as np

from autograd_cy import dtypes as _dtypes
from autograd_cy._C.tensor import Tensor, _array_of, _wrap_array


def state_tensor(packed):
    """The state tensor holding the bytes ``packed`` (a copy)."""
    return _wrap_array(np.frombuffer(packed, np.uint8).copy())


def state_bytes(state, size, kind):
    """The bytes of a state tensor, with torch's checks of its type and size (``kind`` names
    the generator's state in the size error)."""
    if not isinstance(state, Tensor):
        raise TypeError(f"expected a torch.ByteTensor, but got {type(state).__name__}")
    if state.dtype != _dtypes.uint8 or state.is_cuda:
        raise TypeError("RNG state must be a torch.ByteTensor")
    if state.numel() != size:
        raise RuntimeError(f"Expected a {kind} of size {size} but found the input RNG state "
                           f"size to be {state.numel()}")
    return np.ascontiguousarray(_array_of(state)).tobytes()
