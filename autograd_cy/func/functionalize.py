"""``functionalize`` and ``debug_unwrap``: two names of torch.func that need no machinery
here.

torch's ``functionalize(f)`` runs ``f`` with its in-place ops replaced by out-of-place ones
(for compilers that cannot trace mutation) and then writes any change of an input back into
it, so what the caller observes is what ``f`` itself gives. autograd_cy has no tracing
compiler, so the functionalized function is ``f`` run as it is: same outputs, same input
mutations. ``debug_unwrap`` gives the plain tensor under a tensor of vmap (the whole batch,
batch dims first; NOTE [The batched tensor]).
"""
import functools

from autograd_cy.func import autograd_function
from autograd_cy.func.batched_tensor import is_batched, physical_of

__all__ = ["functionalize", "debug_unwrap"]


def functionalize(func, *, remove="mutations"):
    """``func`` with its mutations removed, observably ``func`` itself (see above)."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for "
            f"remove={remove}. Valid options are:\n     remove='mutations': all inplace and "
            "out= operators will be removed from the program, and replaced with their "
            "out-of-place equivalents.\n     remove='mutations_and_views': In addition to the "
            "above, all aliasing operators {view} will be replaced with their non-aliasing "
            "counterparts, {view}_copy.\n")

    @functools.wraps(func)
    def functionalized(*args, **kwargs):
        # a transform all the same: custom Functions need torch.func's setup_context form
        from autograd_cy.func.transforms import _op_of_vmap
        autograd_function.enter_transform()
        try:
            return _op_of_vmap(func)(*args, **kwargs)
        finally:
            autograd_function.exit_transform()
    return functionalized


def debug_unwrap(tensor, *, recurse=True):
    """The tensor under a tensor of vmap (for a debugger); any other value as it is."""
    return physical_of(tensor) if is_batched(tensor) else tensor
