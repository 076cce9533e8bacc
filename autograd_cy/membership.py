"""``isin``: which elements occur among a set of test elements.

Both are compared in their promoted dtype (``result_type``, as torch compares them); NaN is
in no set. Either, not both, may be a Python number. The result is a bool tensor of the
elements' shape, on their device, computed on the host (NumPy's ``isin``) and recording
nothing for autograd; under vmap it runs once per example, as torch's (which has no
batching rule for it either).

>>> import autograd_cy as ag
>>> ag.isin(ag.tensor([[1, 2], [3, 4]]), ag.tensor([2, 3]))
tensor([[False,  True],
        [ True, False]])
"""
import numbers

import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import Tensor

__all__ = ["isin"]


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """For each of ``elements``, whether it is in ``test_elements`` (not in, with
    ``invert``)."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError(f"isin() received an invalid combination of arguments - got "
                        f"({type(elements).__name__}, {type(test_elements).__name__}), but "
                        "expected one of: (Tensor elements, Tensor test_elements), (Number "
                        "element, Tensor test_elements), (Tensor elements, Number "
                        "test_element)")
    for value in (elements, test_elements):
        if not isinstance(value, (Tensor, numbers.Number)):
            raise TypeError(f"isin(): argument must be Tensor or Number, not "
                            f"{type(value).__name__}")
    dtype = _ag.result_type(elements, test_elements)
    for value in (elements, test_elements):
        kind = value.dtype if isinstance(value, Tensor) else dtype
        if kind == _ag.bool or kind.is_complex:
            raise RuntimeError(f"Unsupported input type encountered for isin(): "
                               f"{kind._scalar_name}")
    from autograd_cy.func.fallback import fallback, has_batched
    if has_batched((elements, test_elements), {}):
        return fallback("isin", isin, (elements, test_elements),
                        {"assume_unique": assume_unique, "invert": invert})
    device = (elements if isinstance(elements, Tensor) else test_elements).device

    def host(value):
        if isinstance(value, Tensor):
            return value.detach().to(dtype).cpu().numpy()
        return np.asarray(value, dtype=dtype.numpy)
    found = np.isin(host(elements), host(test_elements), assume_unique=assume_unique,
                    invert=invert)
    return _ag.tensor(found, device=device)
