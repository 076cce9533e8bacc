"""NumPy calls on DeviceArrays, turned into kernel launches.

``ufunc`` receives every ``np.<ufunc>(...)`` whose operands include a DeviceArray (and the
arithmetic operators, which NumPy's mixin routes through ufuncs); ``array_function``
receives the NumPy functions (``np.where``, ``np.zeros_like``, ``np.sum`` ...). Both resolve
dtypes exactly as NumPy would for the same call on the CPU (``ufunc.resolve_dtypes``, so the
core's CPU and CUDA paths compute in the same dtypes), convert operands that need it with
``cast`` launches, and launch the op's kernel. Anything without a kernel raises a TypeError
naming the NumPy function and the dtypes, never a silent host round trip.
"""
import functools

import numpy as np

from autograd_cy.cuda import indexing, manifest, sorting
from autograd_cy.cuda import reduce as reductions
from autograd_cy.cuda import shape as shape_ops
from autograd_cy.cuda.launch import elementwise_config
from autograd_cy.cuda.layout import broadcast_strides, elementwise_layout
from autograd_cy.cuda.array import (
    DeviceArray, check_same_device, copy_into, fill_array, resolve_shape, view_strides, empty,
    empty_in_layout_of, empty_in_order, floating, kernel_name,
    launch_elementwise, mixed_devices_error, register_operations, require_kernel,
    scalar_operand,
)

_UNARY = getattr(manifest, "UNARY_FUNCTORS", {})
_BINARY = getattr(manifest, "BINARY_FUNCTORS", {})
_COMPARE = getattr(manifest, "COMPARE_FUNCTORS", {})
_LOGICAL = getattr(manifest, "LOGICAL_FUNCTORS", {})
_PREDICATES = {"isnan", "isinf", "isfinite"}
_REDUCE_UFUNCS = {"add": "sum", "multiply": "prod", "maximum": "amax", "minimum": "amin"}


def _is_scalar(value):
    return isinstance(value, (bool, int, float, complex, np.generic)) or (
        isinstance(value, np.ndarray) and value.ndim == 0)


def _scalar_value(value):
    return value.item() if isinstance(value, (np.ndarray, np.generic)) else value


def _dtype_or_scalar(value):
    if isinstance(value, DeviceArray):
        return value.dtype
    if isinstance(value, np.ndarray):          # a 0-d host array: a strong scalar, as on the CPU
        return value.dtype
    if isinstance(value, (np.generic, bool)):
        return np.dtype(type(value)) if isinstance(value, bool) else value.dtype
    return type(value)


def _the_device(operands):
    for a in operands:
        if isinstance(a, DeviceArray):
            return a.device
    raise TypeError("no CUDA operand")


# -------------------------------------------------------------------- ufuncs

def ufunc(func, method, inputs, out, kwargs):
    name = func.__name__
    check_same_device(*inputs, *(out or ()))
    if kwargs.pop("casting", "same_kind") not in ("same_kind", "unsafe"):
        raise TypeError(f"np.{name} on CUDA arrays: only the default casting")
    if method == "reduce":
        return _ufunc_reduce(func, inputs[0], out, **kwargs)
    if method == "at" and name == "add":
        return _add_at(*inputs)
    if method != "__call__":
        raise TypeError(f"np.{name}.{method} is not implemented for CUDA arrays")
    dtype = kwargs.pop("dtype", None)
    if kwargs:
        raise TypeError(f"np.{name} on CUDA arrays: unsupported arguments {sorted(kwargs)}")
    out = out[0] if out else None
    if name == "matmul":
        return _matmul(inputs[0], inputs[1], out)
    signature = tuple(_dtype_or_scalar(a) for a in inputs)
    if dtype is not None:
        loop = func.resolve_dtypes(signature + (np.dtype(dtype),), casting="unsafe")
    else:
        loop = func.resolve_dtypes(signature + (None,))
    in_dtypes, out_dtype = loop[:-1], loop[-1]
    device = _the_device(inputs)
    if func.nin == 1:
        return _unary(name, inputs[0], in_dtypes[0], out_dtype, out, device)
    return _binary(name, inputs, in_dtypes[0], out_dtype, out, device)


def _launch(kernel, result, operands, scalars=()):
    """One launch of the elementwise ``kernel`` writing ``result``: its vectorized twin
    (``unary_vec4<...>``: float4 loads and stores) when the manifest has one and every
    operand is a contiguous float32 array of the result's shape, 16-byte aligned; else the
    strided kernel (NOTE [Layout])."""
    vectorized = kernel.replace("<", "_vec4<", 1)
    if (vectorized in _VEC4 and result.size >= 4 and result.flags.c_contiguous
            and all(a.dtype == result.dtype and a.shape == result.shape
                    and a.flags.c_contiguous for a in operands)
            and all(a.data_ptr() % 16 == 0 for a in (result,) + tuple(operands))):
        seam = result.device.seam
        grid, block = elementwise_config((result.size + 3) // 4, seam)
        seam.launch(vectorized, grid, block, (np.int64(result.size), result.raw)
                    + tuple(a.raw for a in operands) + tuple(scalars))
        return result
    return launch_elementwise(kernel, result, operands, scalars)


_VEC4 = {k.name for k in manifest.KERNELS if "_vec4<" in k.name}


def _output(out, shape, dtype, device, operands=()):
    """``out``, checked, or a new result in the operands' memory order (empty_in_order)."""
    if out is None:     # in the operands' memory order, as NumPy's ufuncs (order="K")
        return empty_in_order(shape, dtype, device,
                              [a for a in operands if a.shape == tuple(shape)])
    if not isinstance(out, DeviceArray):
        raise mixed_devices_error(f"cuda:{device.id}", "cpu")
    if out.shape != tuple(shape):
        raise ValueError(f"non-broadcastable output operand with shape {out.shape} doesn't "
                         f"match the broadcast shape {tuple(shape)}")
    return out


def _finish(result, out):
    """Write ``result`` into ``out`` when its dtype differed from the kernel's."""
    if out is not None and result is not out:
        copy_into(out, result)
        return out
    return result


def _unary(name, x, in_dtype, out_dtype, out, device):
    if in_dtype.kind == "c" and name == "absolute":
        return _finish(_complex_abs(x.astype(in_dtype, copy=False), out_dtype, out), out)
    if name == "conjugate" and in_dtype.kind != "c":
        return _finish(x.astype(out_dtype), out)  # a real number is its own conjugate
    if name == "invert" and in_dtype == np.dtype(bool):
        name = "logical_not"                    # ~ on bools is logical not
    if name == "logical_not":
        in_dtype = np.dtype(bool)               # the kernel reads bools: x != 0 first
    elif name in _UNARY and _needs_widening("unary", in_dtype, _UNARY[name]):
        in_dtype = np.dtype(np.int64)           # computed exactly in int64, cast back below
    x = x.astype(in_dtype, copy=False)
    if name in _PREDICATES:
        template, functor_args = name, (in_dtype,)
    elif name in _LOGICAL or name == "logical_not":
        template, functor_args = "logical_not", ()
    elif name in _UNARY:
        template, functor_args = "unary", (in_dtype, _UNARY[name])
    else:
        raise TypeError(f"np.{name} is not implemented for CUDA arrays")
    kernel = kernel_name(template, *functor_args) if functor_args else template
    require_kernel(kernel, f"np.{name} of {in_dtype}")
    target_dtype = np.dtype(bool) if name in _PREDICATES or template == "logical_not" else in_dtype
    result = _output(out if out is not None and out.dtype == target_dtype else None,
                     x.shape, target_dtype, device, (x,))
    _launch(kernel, result, (x,))
    if target_dtype != out_dtype:
        result = result.astype(out_dtype)
    return _finish(result, out)


def _complex_abs(x, out_dtype, out):
    """|z| of a complex array: ``complex_abs``, a real result (float32 for complex64)."""
    kernel = kernel_name("complex_abs", x.dtype)
    require_kernel(kernel, f"np.absolute of {x.dtype}")
    real = np.dtype(manifest.REAL_OF_COMPLEX[x.dtype.name])
    result = _output(out if out is not None and out.dtype == real else None, x.shape, real,
                     x.device, (x,))
    launch_elementwise(kernel, result, (x,))
    return result if result.dtype == out_dtype else result.astype(out_dtype)


_BITWISE_ON_BOOL = {"bitwise_and": "logical_and", "bitwise_or": "logical_or",
                    "bitwise_xor": "logical_xor"}


def _binary(name, inputs, in_dtype, out_dtype, out, device):
    a, b = inputs
    if name in _BITWISE_ON_BOOL and in_dtype == np.dtype(bool):
        name = _BITWISE_ON_BOOL[name]           # on bools, & | ^ are the logical ops
    if name in _EXTREMUM_ON_BOOL and in_dtype == np.dtype(bool):
        name = _EXTREMUM_ON_BOOL[name]          # the larger of two bools: either is True
    if name in _COMPARE:
        template, functor = "compare", _COMPARE[name]
    elif name in _LOGICAL:
        template, functor = "logical", _LOGICAL[name]
        # like NumPy's ufunc, non-bool operands count as their truth (x != 0; NaN is True)
        a, b = (_truth(v, device) for v in (a, b))
        in_dtype = np.dtype(bool)
    elif name in _BINARY:
        template, functor = "binary", _BINARY[name]
    else:
        raise TypeError(f"np.{name} is not implemented for CUDA arrays")
    if _needs_widening(template, in_dtype, functor):
        in_dtype = np.dtype(np.int64)           # computed exactly in int64, cast back below
    kernel_dtype_out = np.dtype(bool) if template in ("compare", "logical") else in_dtype
    scalar_a, scalar_b = _is_scalar(a), _is_scalar(b)
    if scalar_a and scalar_b:
        raise TypeError(f"np.{name} of two host scalars reached the CUDA backend")
    if scalar_a or scalar_b:
        array = (b if scalar_a else a).astype(in_dtype, copy=False)
        value = _scalar_value(a if scalar_a else b)
        if in_dtype.name in manifest.HALF_TYPES:
            # NumPy's loop reads the number in its own dtype: rounded to the half type, then
            # widened to the kernel's float parameter (x - 0.7 subtracts float16(0.7))
            value = in_dtype.type(value)
        shape = array.shape
        if template == "compare":       # s < b  is  b > s
            kernel = kernel_name("compare_scalar", in_dtype,
                                 _FLIPPED[functor] if scalar_a else functor)
        else:                           # s + x is x + s; s - x needs scalar_binary
            reversed_ = scalar_a and functor in manifest.REVERSED_SCALAR_FUNCTORS
            kernel = kernel_name("scalar_binary" if reversed_ else "binary_scalar",
                                 in_dtype, functor)
        require_kernel(kernel, f"np.{name} of {in_dtype} and a scalar")
        result = _output(out if out is not None and out.dtype == kernel_dtype_out else None,
                         shape, kernel_dtype_out, device, (array,))
        _launch(kernel, result, (array,), (scalar_operand(value, in_dtype),))
    else:
        a, b = a.astype(in_dtype, copy=False), b.astype(in_dtype, copy=False)
        shape = np.broadcast_shapes(a.shape, b.shape)
        kernel = (kernel_name(template, functor) if template == "logical"
                  else kernel_name(template, in_dtype, functor))
        require_kernel(kernel, f"np.{name} of {in_dtype}")
        result = _output(out if out is not None and out.dtype == kernel_dtype_out else None,
                         shape, kernel_dtype_out, device, (a, b))
        _launch(kernel, result, (a, b))
    if result.dtype != out_dtype:
        result = result.astype(out_dtype)
    return _finish(result, out)


_EXTREMUM_ON_BOOL = {"maximum": "logical_or", "minimum": "logical_and"}
_KERNEL_NAMES = {k.name for k in manifest.KERNELS}


def _needs_widening(template, dtype, functor):
    """Whether an op on a narrow integer dtype (int8, int16, uint8, and bool for the
    comparisons) has no kernel of its own and runs in int64: exact for comparisons, and
    for arithmetic the cast back wraps around as the narrow type itself would."""
    if dtype.kind not in "biu" or dtype == np.int64 or template not in (
            "unary", "binary", "compare"):
        return False
    return kernel_name(template, dtype, functor) not in _KERNEL_NAMES


def _truth(value, device):
    """A logical op's operand as bools: a DeviceArray through a cast (x != 0), a number
    through bool() into a 0-d bool array on the same device."""
    if isinstance(value, DeviceArray):
        return value.astype(np.dtype(bool), copy=False)
    result = empty((), np.dtype(bool), device)
    fill_array(result, bool(_scalar_value(value)))
    return result


_FLIPPED = {"Eq": "Eq", "Ne": "Ne", "Lt": "Gt", "Gt": "Lt", "Le": "Ge", "Ge": "Le"}


def _matmul(a, b, out):
    check_same_device(a, b)
    if not (isinstance(a, DeviceArray) and isinstance(b, DeviceArray)):
        raise TypeError("np.matmul on CUDA arrays takes two CUDA arrays")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {a.dtype} "
                           f"!= {b.dtype}")
    shape = _matmul_shape(a.shape, b.shape)
    result = _output(out, shape, a.dtype, a.device)
    if result.size:
        a.device.seam.matmul(a.raw, b.raw, result.raw)
    return result


def _matmul_shape(sa, sb):
    if not sa or not sb:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    a2 = sa if len(sa) > 1 else (1,) + sa
    b2 = sb if len(sb) > 1 else sb + (1,)
    if a2[-1] != b2[-2]:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0, "
                         f"with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {b2[-2]} is "
                         f"different from {a2[-1]})")
    batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    shape = batch + (a2[-2], b2[-1])
    if len(sa) == 1:
        shape = shape[:-2] + shape[-1:]
    if len(sb) == 1:
        shape = shape[:-1]
    return shape


# -------------------------------------------------------------------- reductions

def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axis = (axis,)
    result = []
    for a in axis:
        a = int(a)
        if not -ndim <= a < max(ndim, 1):
            raise np.exceptions.AxisError(a, ndim)
        result.append(a % ndim if ndim else 0)
    return tuple(sorted(set(result)))


def _reduce_dtype(op, x, dtype):
    """The result dtype NumPy gives for this reduction (so CPU and CUDA agree)."""
    return np.dtype(dtype) if dtype is not None else _numpy_reduce_dtype(op, x.dtype)


@functools.cache
def _numpy_reduce_dtype(op, dtype):
    """What NumPy's ``op`` (sum, prod, mean, var, std, amax, amin) makes of ``dtype``, asked
    of NumPy itself on one element, once per pair: its rules are not written again here."""
    return getattr(np, op)(np.ones(1, dtype)).dtype


def reduce(op, x, axis, keepdims, dtype, out, **options):
    dims = _axes(axis, x.ndim)
    result_dtype = _reduce_dtype(op, x, dtype)
    if op in ("amax", "amin"):
        # the extrema kernels cover the floats and int64; smaller ints and bools go through
        # int64 (exact), and come back in their own dtype below
        source = x if floating(x.dtype) or x.dtype == np.int64 else x.astype(np.int64)
    else:
        source = x if x.dtype == result_dtype else x.astype(result_dtype)
    raw = reductions.reduce(x.device.seam, source.raw, dims, bool(keepdims), op, **options)
    result = DeviceArray(raw, x.device)
    if result.dtype != result_dtype:
        result = result.astype(result_dtype)
    return _finish(result, out)


def _ufunc_reduce(func, x, out, axis=0, dtype=None, keepdims=False, initial=np._NoValue,
                  where=True):
    name = func.__name__
    if name in ("logical_and", "logical_or") and initial is np._NoValue and where is True:
        every = _all if name == "logical_and" else _any
        return _finish(every(x, axis, keepdims=keepdims), out[0] if out else None)
    if name not in _REDUCE_UFUNCS or initial is not np._NoValue or where is not True:
        raise TypeError(f"np.{name}.reduce is not implemented for CUDA arrays")
    return reduce(_REDUCE_UFUNCS[name], x, axis, keepdims, dtype, out[0] if out else None)


def argreduce(op, x, axis, keepdims):
    if not floating(x.dtype) and x.dtype != np.int64:
        x = x.astype(np.int64)      # exact for the smaller ints and bools
    raw = reductions.argreduce(x.device.seam, x.raw,
                               None if axis is None else _axes(axis, x.ndim)[0], bool(keepdims), op)
    return DeviceArray(raw, x.device)


# -------------------------------------------------------------------- NumPy functions

def _like(prototype, dtype, shape, fill, order):
    """np.*_like: with order "K" and the prototype's shape, in its dim order (NOTE [Layout
    of empty_like] in array.py); otherwise row-major."""
    dtype = prototype.dtype if dtype is None else dtype
    if shape is None and order == "K":
        result = empty_in_layout_of(prototype, dtype)
    else:
        result = empty(prototype.shape if shape is None else shape, dtype, prototype.device)
    if fill is not None:
        fill_array(result, fill)
    return result


def _where(condition, a, b):
    operands = (condition, a, b)
    check_same_device(*operands)
    device = _the_device(operands)
    if not isinstance(condition, DeviceArray):
        raise TypeError("np.where on CUDA arrays takes a CUDA condition")
    # Python numbers as values: NumPy treats them as weak (a float32 array and 0 stay float32)
    dtype = np.result_type(*[v.dtype if isinstance(v, (DeviceArray, np.ndarray, np.generic))
                             else v for v in (a, b)])
    def operand(v):
        if isinstance(v, DeviceArray):
            return v.astype(dtype, copy=False)
        result = empty((), dtype, device)
        fill_array(result, _scalar_value(v))
        return result
    a, b = operand(a), operand(b)
    condition = condition.astype(np.dtype(bool), copy=False)
    shape = np.broadcast_shapes(condition.shape, a.shape, b.shape)
    kernel = kernel_name("where", dtype)
    require_kernel(kernel, f"np.where of {dtype}")
    return launch_elementwise(kernel, empty_in_order(shape, dtype, device, (condition, a, b)),
                              (condition, a, b))


def _all(a, axis=None, out=None, keepdims=False, *, where=True):
    """np.all: no element compares equal to zero (a sum of the zero mask is 0)."""
    return reduce("sum", np.equal(a, 0), axis, keepdims, None, None) == 0


def _any(a, axis=None, out=None, keepdims=False, *, where=True):
    return reduce("sum", np.not_equal(a, 0), axis, keepdims, None, None) != 0


def _count_nonzero(a, axis=None, *, keepdims=False):
    return reduce("sum", np.not_equal(a, 0), axis, keepdims, None, None)


def _along_axis(arr, indices, axis):
    """What take_along_axis and put_along_axis share: the iteration shape (indices' along
    ``axis``, broadcast elsewhere), ``arr`` with its step along ``axis`` taken out (the
    kernel adds index * step), that step, and the indices as int64 on the device."""
    check_same_device(arr, indices)
    axis = _axes(axis, arr.ndim)[0]
    if indices.ndim != arr.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    shape = tuple(indices.shape[d] if d == axis else np.broadcast_shapes(
        (arr.shape[d],), (indices.shape[d],))[0] for d in range(arr.ndim))
    strides = list(arr.element_strides)
    axis_stride, strides[axis] = strides[axis], 0
    pinned = arr.device.seam.as_strided(
        arr.raw, tuple(1 if d == axis else n for d, n in enumerate(arr.shape)),
        tuple(s * arr.itemsize for s in strides))
    pinned_strides = broadcast_strides(shape, pinned.shape, strides)
    index = indices.astype(np.dtype(np.int64), copy=False)
    return shape, pinned, pinned_strides, axis_stride, index


def _launch_along_axis(template, arr, shape, operands, strides, axis_stride, axis):
    seam = arr.device.seam
    name = kernel_name(template, arr.dtype)
    require_kernel(name, f"np.{template} of {arr.dtype}")
    n = int(np.prod(shape, dtype=np.int64))
    grid, block = elementwise_config(n, seam)
    seam.launch(name, grid, block, (elementwise_layout(shape, strides), np.int64(n))
                + tuple(operands) + (np.int64(axis_stride), np.int64(arr.shape[axis])))


def _take_along_axis(arr, indices, axis):
    """np.take_along_axis: one ``take_along_axis`` launch (a gather along ``axis``)."""
    if axis is None:
        arr, axis = arr.reshape(-1), 0
    shape, pinned, pinned_strides, axis_stride, index = _along_axis(arr, indices, axis)
    out = empty(shape, arr.dtype, arr.device)
    if out.size:
        _launch_along_axis("take_along_axis", arr, shape, (out.raw, pinned, index.raw),
                           [out.element_strides, pinned_strides,
                            broadcast_strides(shape, index.shape, index.element_strides)],
                           axis_stride, _axes(axis, arr.ndim)[0])
    return out


def _put_along_axis(arr, indices, values, axis):
    """np.put_along_axis, in place: one ``put_along_axis`` launch (a scatter)."""
    shape, pinned, pinned_strides, axis_stride, index = _along_axis(arr, indices, axis)
    if isinstance(values, DeviceArray):
        values = values.astype(arr.dtype, copy=False)
    else:
        value = _scalar_value(values)
        values = empty((), arr.dtype, arr.device)
        fill_array(values, value)
    if int(np.prod(shape, dtype=np.int64)):
        _launch_along_axis("put_along_axis", arr, shape, (pinned, index.raw, values.raw),
                           [pinned_strides,
                            broadcast_strides(shape, index.shape, index.element_strides),
                            broadcast_strides(shape, values.shape, values.element_strides)],
                           axis_stride, _axes(axis, arr.ndim)[0])


def _add_at(array, index, values=None):
    """np.add.at(array, index, values): a scatter-add, duplicates summed (atomics)."""
    indexing.add_at(array, index, values)


def _take(a, indices, axis=None, out=None, mode="raise"):
    """np.take: a gather along ``axis`` (of the flattened array when None)."""
    if mode != "raise" or out is not None:
        raise TypeError("np.take on CUDA arrays: only mode='raise', no out=")
    if axis is None:
        a, axis = a.reshape(-1), 0
    return indexing.take(a, (slice(None),) * _axes(axis, a.ndim)[0] + (indices,))


def _copyto(dst, src, casting="same_kind", where=True):
    """np.copyto; with a mask, only the selected elements are written (a masked scatter, not
    a where() over all of ``dst``: in an expand's shared memory an unselected element would
    write its old value back over a selected one)."""
    if where is True:
        dst[...] = src
        return
    mask = where.broadcast_to(dst.shape)
    dst[mask] = src.broadcast_to(dst.shape)[mask] if isinstance(src, DeviceArray) else src


def _sum_like(op):
    def implementation(a, axis=None, dtype=None, out=None, keepdims=False, **kw):
        return reduce(op, a, axis, keepdims, dtype, out, **kw)
    return implementation


def _angle(z, deg=False):
    """np.angle: arctan2 of the imaginary and real parts (views of a complex array: NOTE
    [Parts of a complex array] in array.py); a real array's is 0 or pi, from its sign."""
    if z.dtype.kind != "c":
        z = z if floating(z.dtype) else z.astype(np.float64)
        angle = np.arctan2(np.zeros_like(z), z)
    else:
        angle = np.arctan2(z.imag, z.real)
    return angle * (180 / np.pi) if deg else angle


_FUNCTIONS = {
    np.zeros_like: lambda a, dtype=None, order="K", subok=True, shape=None, **kw:
        _like(a, dtype, shape, 0, order),
    np.ones_like: lambda a, dtype=None, order="K", subok=True, shape=None, **kw:
        _like(a, dtype, shape, 1, order),
    np.empty_like: lambda a, dtype=None, order="K", subok=True, shape=None, **kw:
        _like(a, dtype, shape, None, order),
    np.full_like: lambda a, fill_value, dtype=None, order="K", subok=True, shape=None, **kw:
        _like(a, dtype, shape, fill_value, order),
    np.where: _where,
    np.take_along_axis: _take_along_axis,
    np.take: _take,
    np.nonzero: indexing.nonzero,
    np.concatenate: shape_ops.concatenate,
    np.stack: shape_ops.stack,
    np.tile: shape_ops.tile,
    np.put_along_axis: _put_along_axis,
    np.sort: sorting.sort,
    np.argsort: sorting.argsort,
    np.partition: sorting.partition,
    np.broadcast_arrays: lambda *arrays, subok=False: _broadcast_arrays(arrays),
    np.all: _all,
    np.any: _any,
    np.count_nonzero: _count_nonzero,
    np.copyto: _copyto,
    np.sum: _sum_like("sum"),
    np.prod: _sum_like("prod"),
    np.mean: _sum_like("mean"),
    np.amax: lambda a, axis=None, out=None, keepdims=False:
        reduce("amax", a, axis, keepdims, None, out),
    np.amin: lambda a, axis=None, out=None, keepdims=False:
        reduce("amin", a, axis, keepdims, None, out),
    np.max: lambda a, axis=None, out=None, keepdims=False:
        reduce("amax", a, axis, keepdims, None, out),
    np.min: lambda a, axis=None, out=None, keepdims=False:
        reduce("amin", a, axis, keepdims, None, out),
    np.argmax: lambda a, axis=None, out=None, keepdims=False:
        argreduce("argmax", a, axis, keepdims),
    np.argmin: lambda a, axis=None, out=None, keepdims=False:
        argreduce("argmin", a, axis, keepdims),
    np.var: lambda a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw:
        reduce("var", a, axis, keepdims, dtype, out, correction=kw.get("correction", ddof)),
    np.std: lambda a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw:
        reduce("std", a, axis, keepdims, dtype, out, correction=kw.get("correction", ddof)),
    np.broadcast_to: lambda a, shape, subok=False: a.broadcast_to(
        (shape,) if isinstance(shape, int) else shape),
    np.reshape: lambda a, shape=None, order="C", *, newshape=None, copy=None: _reshape(
        a, newshape if shape is None else shape, copy),
    np.transpose: lambda a, axes=None: a.transpose(*(() if axes is None else (axes,))),
    np.swapaxes: lambda a, axis1, axis2: a.swapaxes(axis1, axis2),
    np.squeeze: lambda a, axis=None: a.squeeze(axis),
    np.expand_dims: lambda a, axis: a.reshape(_expanded_shape(a.shape, axis)),
    np.shape: lambda a: a.shape,
    np.ndim: lambda a: a.ndim,
    np.size: lambda a, axis=None: a.size if axis is None else a.shape[axis],
    np.iscomplexobj: lambda x: x.dtype.kind == "c",
    np.angle: _angle,
    np.result_type: lambda *args: np.result_type(*[
        a.dtype if isinstance(a, DeviceArray) else a for a in args]),
}


def _reshape(a, shape, copy):
    """np.reshape; ``copy=False`` raises NumPy's ValueError where only a copy would do
    (the core's ``view`` and ``reshape`` tell views from copies by it)."""
    if copy is False:
        shape = resolve_shape(tuple(shape) if isinstance(shape, (tuple, list)) else (shape,),
                               a.size)
        if view_strides(a.shape, a.element_strides, shape) is None:
            raise ValueError("Unable to avoid creating a copy while reshaping.")
    return (a.copy() if copy else a).reshape(shape)


def _broadcast_arrays(arrays):
    shape = np.broadcast_shapes(*[a.shape for a in arrays])
    return tuple(a.broadcast_to(shape) if isinstance(a, DeviceArray) else np.broadcast_to(a, shape)
                 for a in arrays)


def _expanded_shape(shape, axis):
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    ndim = len(shape) + len(axes)
    axes = sorted(a % ndim for a in axes)
    shape = list(shape)
    for a in axes:
        shape.insert(a, 1)
    return tuple(shape)


def array_function(func, args, kwargs):
    implementation = _FUNCTIONS.get(func)
    if implementation is None:
        raise TypeError(f"np.{func.__name__} is not implemented for CUDA arrays "
                        "(autograd_cy/cuda/dispatch.py)")
    return implementation(*args, **kwargs)


register_operations(ufunc=ufunc, array_function=array_function, reduce=reduce,
                    argreduce=argreduce)
