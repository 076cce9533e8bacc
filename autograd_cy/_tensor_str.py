"""``repr(tensor)`` in PyTorch's format: ``tensor([1., 2.], requires_grad=True)``."""
import numpy as np

__all__ = ["tensor_repr"]

_DEFAULT_DTYPES = ("float32", "int64", "bool")


def _format_floats(array):
    finite = array[np.isfinite(array)]
    if finite.size and np.all(finite == np.round(finite)) and np.abs(finite).max() < 1e8:
        return lambda v: (f"{v:.0f}." if np.isfinite(v) else _special(v))
    largest = np.abs(finite).max() if finite.size else 0
    smallest = np.abs(finite[finite != 0]).min() if np.any(finite != 0) else 1
    if largest >= 1e8 or smallest < 1e-4 or (smallest and largest / smallest > 1000 and
                                             largest > 1000):
        return lambda v: (f"{v:.4e}" if np.isfinite(v) else _special(v))
    return lambda v: (f"{v:.4f}" if np.isfinite(v) else _special(v))


def _special(v):
    return "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")


def tensor_repr(t):
    array = t.numpy(force=True)
    if array.dtype.kind == "f":
        formatter = {"float_kind": _format_floats(array.astype(np.float64))}
    elif array.dtype.kind == "b":
        formatter = {"bool": lambda v: "True" if v else "False"}
    else:
        formatter = None
    body = np.array2string(array, separator=", ", prefix="tensor(", formatter=formatter,
                           threshold=1000, edgeitems=3, max_line_width=80)
    suffixes = []
    if array.dtype.name not in _DEFAULT_DTYPES or array.size == 0 and array.dtype.kind != "f":
        if array.dtype.name not in _DEFAULT_DTYPES:
            suffixes.append(f"dtype=autograd_cy.{array.dtype.name}")
    if array.size == 0 and array.ndim != 1:
        suffixes.insert(0, f"size={tuple(array.shape)}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return "tensor(" + ", ".join([body] + suffixes) + ")"
