"""Tensors as the contiguous host arrays the MPI backend moves, and back: a CPU tensor whose
array already is one is used in place (its version bumped once written, as an in-place op
bumps it); any other (a strided view, a lazily conjugated one, a CUDA tensor) is copied to
the host and written back with ``copy_``."""
import numpy as np

from autograd_cy._C.ops.inplace import _increment_version
from autograd_cy._C.tensor import _array_of
from autograd_cy.grad_mode import no_grad

__all__ = ["host_values", "host_target", "assign"]


def _own_array(t):
    """``t``'s array when it holds ``t``'s values contiguously on the host, else None."""
    array = _array_of(t)
    if (isinstance(array, np.ndarray) and array.flags.c_contiguous and array.flags.writeable
            and not t.is_conj() and not t.is_neg()):
        return array
    return None


def host_values(t):
    """``t``'s values as a C-contiguous NumPy array (to read, not to write)."""
    array = _own_array(t)
    if array is not None:
        return array
    return np.ascontiguousarray(t.detach().resolve_conj().resolve_neg().cpu().numpy())


def host_target(t):
    """(a C-contiguous NumPy array holding ``t``'s values, ``commit()`` which makes ``t``
    hold the array's values once a collective has written them)."""
    array = _own_array(t)
    if array is not None:
        return array, lambda: _increment_version(t)
    host = host_values(t).copy()
    return host, lambda: assign(t, host)


def assign(t, values):
    """Write the array ``values`` (``t``'s shape and dtype) into ``t``."""
    array = _own_array(t)
    if array is not None:
        array[...] = values.reshape(array.shape)
        _increment_version(t)
        return
    from autograd_cy.factories import from_numpy
    with no_grad():
        t.copy_(from_numpy(np.ascontiguousarray(values).reshape(tuple(t.shape))).to(t.device))
