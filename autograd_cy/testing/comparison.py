"""``assert_close(actual, expected)``: tensors, numbers and nested sequences or mappings of
them compared as torch.testing does, with its default tolerances and its messages."""
import cmath
import collections.abc
import numbers
import warnings

import numpy as np

import autograd_cy as torch

__all__ = ["assert_close", "assert_allclose"]

# (rtol, atol) by dtype; every other dtype compares exactly
_DTYPE_PRECISIONS = {
    "float16": (0.001, 1e-5), "bfloat16": (0.016, 1e-5), "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7), "complex32": (0.001, 1e-5), "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7)}


class _Mismatch(Exception):
    """A failed comparison: the exception type to raise, its message, and the item path
    where it happened."""

    def __init__(self, kind, message, path=()):
        super().__init__(message)
        self.kind, self.message, self.path = kind, message, path

    def error(self, msg):
        if isinstance(msg, str):
            return self.kind(msg)
        message = self.message
        if self.path:
            message += "\n\nThe failure occurred for item " + "".join(
                str([item]) for item in self.path)
        return self.kind(msg(message) if callable(msg) else message)


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


def _tolerances(*dtype_names, rtol=None, atol=None):
    """The given tolerances, or the largest defaults of the dtypes."""
    if (rtol is None) ^ (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, "
                         f"but got no {'rtol' if rtol is None else 'atol'}.")
    if rtol is not None:
        return rtol, atol
    defaults = [_DTYPE_PRECISIONS.get(name, (0.0, 0.0)) for name in dtype_names]
    return max(r for r, _ in defaults), max(a for _, a in defaults)


def _diff_line(kind, diff, index, tolerance, equality):
    line = (f"{kind.title()} difference: {diff}" if index is None
            else f"Greatest {kind} difference: {diff} at index {index}")
    return line + ("" if equality else f" (up to {tolerance} allowed)") + "\n"


def _mismatch_message(default_identifier, extra, abs_diff, abs_index, atol, rel_diff,
                      rel_index, rtol):
    equality = rtol == 0 and atol == 0
    message = f"{default_identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        message += f"{extra.strip()}\n"
    message += _diff_line("absolute", abs_diff, abs_index, atol, equality)
    message += _diff_line("relative", rel_diff, rel_index, rtol, equality)
    return message.strip()


def _scalar_message(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message("Scalars", f"Expected {expected} but got {actual}.", abs_diff,
                             None, atol, rel_diff, None, rtol)


def _unravel(flat_index, shape):
    index = []
    for size in reversed(shape):
        flat_index, rest = divmod(flat_index, size)
        index.append(rest)
    return tuple(reversed(index))


def _tensor_message(actual, expected, matches, rtol, atol):
    """Mismatched elements, and the greatest absolute and relative differences among them
    (computed in the compared dtype; integers and booleans in int64, their relative
    difference in float32, as torch's true division of integers gives)."""
    total = matches.size
    mismatches = total - int(matches.sum())
    extra = f"Mismatched elements: {mismatches} / {total} ({mismatches / total:.1%})"
    a, e, hits = actual.ravel(), expected.ravel(), matches.ravel()
    if a.dtype.kind not in "fc":
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[hits] = 0
        if a.dtype.kind in "fc":
            rel_diff = abs_diff / np.abs(e)
        else:
            rel_diff = abs_diff.astype(np.float32) / np.abs(e).astype(np.float32)
    rel_diff[hits] = 0
    abs_at, rel_at = int(np.argmax(abs_diff)), int(np.argmax(rel_diff))
    return _mismatch_message("Tensor-likes", extra, abs_diff[abs_at].item(),
                             _unravel(abs_at, matches.shape), atol, rel_diff[rel_at].item(),
                             _unravel(rel_at, matches.shape), rtol)


def _attribute_mismatch(name, actual, expected):
    raise _Mismatch(AssertionError, f"The values for attribute '{name}' do not match: "
                    f"{actual} != {expected}.")


def _isclose(actual, expected, rtol, atol, equal_nan):
    with np.errstate(all="ignore"):
        close = (actual == expected)
        if rtol or atol:
            close = close | np.isfinite(actual) & np.isfinite(expected) & (
                np.abs(actual - expected) <= atol + rtol * np.abs(expected))
        if equal_nan:
            close = close | (np.isnan(actual) & np.isnan(expected))
    return np.asarray(close)


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype,
                     check_layout, check_stride):
    if actual.shape != expected.shape:
        _attribute_mismatch("shape", actual.shape, expected.shape)
    if check_layout and actual.layout != expected.layout:
        _attribute_mismatch("layout", actual.layout, expected.layout)
    if check_stride and actual.stride() != expected.stride():
        _attribute_mismatch("stride()", actual.stride(), expected.stride())
    if check_device and actual.device != expected.device:
        _attribute_mismatch("device", actual.device, expected.device)
    if check_dtype and actual.dtype != expected.dtype:
        _attribute_mismatch("dtype", actual.dtype, expected.dtype)
    rtol, atol = _tolerances(_dtype_name(actual.dtype), _dtype_name(expected.dtype),
                             rtol=rtol, atol=atol)
    if actual.dtype != expected.dtype:
        common = torch.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    a = actual.detach().cpu().resolve_conj().numpy()
    e = expected.detach().cpu().resolve_conj().numpy()
    if a.dtype.kind == "V" or str(a.dtype) == "bfloat16":      # compared in float32
        a, e = a.astype(np.float32), e.astype(np.float32)
    matches = _isclose(a, e, rtol, atol, equal_nan)
    if matches.all():
        return
    if a.ndim == 0:
        message = _scalar_message(a.item(), e.item(), rtol, atol)
    else:
        message = _tensor_message(a, e, matches, rtol, atol)
    raise _Mismatch(AssertionError, message)


def _compare_numbers(actual, expected, rtol, atol, equal_nan, check_dtype):
    if check_dtype and type(actual) is not type(expected):
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != "
                        f"{type(expected)}.")
    names = [("complex128" if isinstance(v, complex) else "float64" if isinstance(v, float)
              else "int64") for v in (actual, expected)]
    rtol, atol = _tolerances(*names, rtol=rtol, atol=atol)
    if actual == expected:
        return
    if equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
        return
    abs_diff = abs(actual - expected)
    if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(expected):
        return
    raise _Mismatch(AssertionError, _scalar_message(actual, expected, rtol, atol))


def _is_number(value):
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def _is_sequence(value):
    return (isinstance(value, collections.abc.Sequence)
            and not isinstance(value, (str, bytes)))


def _compare(actual, expected, path, options):
    """Walk ``actual`` and ``expected`` together; raise a _Mismatch (with its path) at the
    first difference."""
    try:
        if _is_sequence(actual) and _is_sequence(expected):
            if len(actual) != len(expected):
                raise _Mismatch(AssertionError, f"The length of the sequences mismatch: "
                                f"{len(actual)} != {len(expected)}")
            for index, (a, e) in enumerate(zip(actual, expected)):
                _compare(a, e, path + (index,), options)
            return
        if (isinstance(actual, collections.abc.Mapping)
                and isinstance(expected, collections.abc.Mapping)):
            actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
            if actual_keys != expected_keys:
                missing = sorted(expected_keys - actual_keys)
                additional = sorted(actual_keys - expected_keys)
                raise _Mismatch(AssertionError,
                                "The keys of the mappings do not match:\n"
                                f"Missing keys in the actual mapping: {missing}\n"
                                f"Additional keys in the actual mapping: {additional}")
            for key in sorted(actual_keys):
                _compare(actual[key], expected[key], path + (key,), options)
            return
        _compare_leaves(actual, expected, options)
    except _Mismatch as mismatch:
        if not mismatch.path:
            mismatch.path = path
        raise


def _compare_leaves(actual, expected, options):
    rtol, atol, equal_nan = options["rtol"], options["atol"], options["equal_nan"]
    if actual is None or expected is None:
        if actual is None and expected is None:
            return
        raise _Mismatch(AssertionError, f"None mismatch: {actual} is not {expected}")
    if isinstance(actual, (bool, np.bool_)) and isinstance(expected, (bool, np.bool_)):
        if actual is not expected and bool(actual) != bool(expected):
            raise _Mismatch(AssertionError, f"Booleans mismatch: {actual} is not {expected}")
        return
    tensor_types = torch.Tensor if options["allow_subclasses"] else None
    if (isinstance(actual, torch.Tensor) and isinstance(expected, torch.Tensor)
            and (tensor_types or (type(actual) is type(expected)))):
        _compare_tensors(actual, expected, rtol, atol, equal_nan, options["check_device"],
                         options["check_dtype"], options["check_layout"],
                         options["check_stride"])
        return
    if isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray):
        _compare_tensors(torch.as_tensor(actual), torch.as_tensor(expected), rtol, atol,
                         equal_nan, options["check_device"], options["check_dtype"],
                         options["check_layout"], options["check_stride"])
        return
    if _is_number(actual) and _is_number(expected):
        _compare_numbers(actual, expected, rtol, atol, equal_nan, options["check_dtype"])
        return
    raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type "
                    f"{type(actual)} and {type(expected)}.")


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Assert that ``actual`` and ``expected`` are close: ``|actual - expected| <= atol +
    rtol * |expected|`` elementwise, with the same shape, dtype and device (as checked).

    Tensors, Python numbers, NumPy arrays, and sequences or mappings of them (compared
    item by item) are accepted. Without ``rtol`` and ``atol``, the defaults of the dtype
    are used (float32: 1.3e-6 and 1e-5; float64: 1e-7 and 1e-7; integers and booleans:
    exact). A failure raises AssertionError with torch's message ("Tensor-likes are not
    close!", the mismatched elements, the greatest differences and where); ``msg``
    replaces that message, or (a callable) maps it.
    """
    options = {"allow_subclasses": allow_subclasses, "rtol": rtol, "atol": atol,
               "equal_nan": equal_nan, "check_device": check_device,
               "check_dtype": check_dtype, "check_layout": check_layout,
               "check_stride": check_stride}
    try:
        _compare(actual, expected, (), options)
    except _Mismatch as mismatch:
        raise mismatch.error(msg) from None


# assert_allclose's own defaults (before assert_close existed), by dtype
_ALLCLOSE_PRECISIONS = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5),
                        "float64": (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated (FutureWarning, as torch's): ``assert_close`` with NaNs equal, dtypes not
    checked, numbers made tensors, and the older default tolerances."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning, stacklevel=2)
    if not isinstance(actual, torch.Tensor):
        actual = torch.tensor(actual)
    if not isinstance(expected, torch.Tensor):
        expected = torch.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        defaults = [_ALLCLOSE_PRECISIONS.get(_dtype_name(t.dtype), (0.0, 0.0))
                    for t in (actual, expected)]
        rtol, atol = max(r for r, _ in defaults), max(a for _, a in defaults)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)
