"""The manifest: every kernel instantiation the CUDA backend launches, one entry each.

A ``Kernel`` names its ``.cu`` file (in the repository's ``cuda/`` folder), its NVRTC name
expression (the template with its arguments, e.g. ``unary<float, Exp>``), and its parameter
list in NumPy's words, which the launch guards check before every launch:

- ``"Layout"``: the struct of NOTE [Layout], by value (autograd_cy/cuda/layout.py);
- ``"int64"``, ``"float32"`` ...: a scalar of exactly that type (a Python number is refused:
  CuPy passes it as 8 bytes, which a 4-byte parameter misreads);
- ``"ptr:float32"`` ...: a device array of that dtype.

This one list drives the loader (a RawModule per file, compiled with the file's name
expressions), the NVRTC compile check, and the kernel tests on the CPU emulator.
"""
from dataclasses import dataclass

from autograd_cy._C.ops.op_table import cuda_unary_functors

# The dtypes the kernels are templated over, with their C type and accumulate dtype: the two
# half types (bfloat16 is ml_dtypes' NumPy dtype) compute and accumulate in float32.
FLOAT_CTYPES = {"float16": "__half", "bfloat16": "__nv_bfloat16", "float32": "float",
                "float64": "double"}
ACCUMULATE = {"float16": "float32", "bfloat16": "float32", "float32": "float32",
              "float64": "float64"}
HALF_TYPES = ("float16", "bfloat16")
# complex64 and complex128: Complex<R> of cuda/complex.cuh (NOTE [A complex type of our own]),
# instantiated for the ops COMPLEX_* below name; each computes in its own precision.
COMPLEX_CTYPES = {"complex64": "Complex<float>", "complex128": "Complex<double>"}
REAL_OF_COMPLEX = {"complex64": "float32", "complex128": "float64"}
# Every dtype a CUDA tensor may hold, with its C type (casts and copies cover them all).
STORAGE_CTYPES = {**FLOAT_CTYPES, **COMPLEX_CTYPES, "int64": "long long", "int32": "int",
                  "int16": "short", "int8": "signed char", "uint8": "unsigned char",
                  "bool": "bool"}


@dataclass(frozen=True)
class Kernel:
    file: str
    name: str
    params: tuple

    def __repr__(self):
        return f"<kernel {self.name} in cuda/{self.file}>"


# ------------------------------------------------------------------ elementwise tables
# The host maps an op to a functor (the second template argument of its kernel family) with
# these tables: NumPy ufuncs by their ``__name__``, the ops NumPy has no ufunc for by their
# PyTorch name. ``*_DTYPES[functor]`` names the dtypes instantiated for it.
FLOATS = tuple(FLOAT_CTYPES)
COMPLEXES = tuple(COMPLEX_CTYPES)
SIGNED_INTEGERS = ("int64", "int32")
# The ops of the op table (NOTE [The op table] in pyx/ops/op_table.pyx) name their functor in
# their entry; the others are listed here.
UNARY_FUNCTORS = {
    "negative": "Neg", "square": "Square", "floor": "Floor", "ceil": "Ceil", "trunc": "Trunc",
    "gelu": "Gelu", "gelu_tanh": "GeluTanh", "silu": "Silu", "invert": "BitNot",
    "conjugate": "Conj", **cuda_unary_functors(),
}
# the unary functors with complex instantiations (Conj has only those); np.absolute of a
# complex array is the kernel complex_abs (a real result)
COMPLEX_UNARY = ("Neg", "Square", "Reciprocal", "Exp", "Exp2", "Expm1", "Log", "Log2", "Log10",
                 "Log1p", "Sqrt", "Conj", "Sign", "Sin", "Cos", "Tanh", "Sigmoid", "Tan", "Asin",
                 "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh")
# ~ & | ^ on the integer dtypes (on bools NumPy's bitwise ufuncs are the logical ops)
BITWISE_DTYPES = ("int64", "int32", "int16", "int8", "uint8")
BITWISE = ("BitNot", "BitAnd", "BitOr", "BitXor")
UNARY_DTYPES = {f: BITWISE_DTYPES if f in BITWISE else COMPLEXES if f == "Conj" else
                FLOATS + (SIGNED_INTEGERS if f in ("Neg", "Abs", "Sign", "Square") else ())
                + (COMPLEXES if f in COMPLEX_UNARY else ())
                for f in UNARY_FUNCTORS.values()}
BINARY_FUNCTORS = {
    "add": "Add", "subtract": "Sub", "multiply": "Mul", "divide": "Div", "power": "Pow",
    "arctan2": "Atan2", "hypot": "Hypot", "maximum": "Maximum", "minimum": "Minimum",
    "floor_divide": "FloorDivide", "remainder": "Remainder", "fmod": "Fmod",
    "bitwise_and": "BitAnd", "bitwise_or": "BitOr", "bitwise_xor": "BitXor",
}
COMPLEX_BINARY = ("Add", "Sub", "Mul", "Div", "Pow")
BINARY_DTYPES = {f: BITWISE_DTYPES if f in BITWISE else
                 FLOATS + (() if f in ("Div", "Atan2", "Hypot") else SIGNED_INTEGERS)
                 + (COMPLEXES if f in COMPLEX_BINARY else ())
                 for f in BINARY_FUNCTORS.values()}
# scalar_binary<T, F> computes F(s, x): the operand orders a number can take on the left
# that differ from F(x, s) (rsub, rdiv, rpow, 2 // x, 2 % x).
REVERSED_SCALAR_FUNCTORS = ("Sub", "Div", "Pow", "FloorDivide", "Remainder", "Fmod")
COMPARE_FUNCTORS = {"equal": "Eq", "not_equal": "Ne", "less": "Lt", "less_equal": "Le",
                    "greater": "Gt", "greater_equal": "Ge"}
COMPARE_DTYPES = {f: FLOATS + SIGNED_INTEGERS + (("bool",) + COMPLEXES if f in ("Eq", "Ne")
                                                  else ())
                  for f in COMPARE_FUNCTORS.values()}
LOGICAL_FUNCTORS = {"logical_and": "LogicalAnd", "logical_or": "LogicalOr",
                    "logical_xor": "LogicalXor"}
CLASSIFY_KERNELS = ("isnan", "isinf", "isfinite")   # kernel templates over FLOATS, bool out
WHERE_DTYPES = FLOATS + SIGNED_INTEGERS + ("bool",) + COMPLEXES
CLAMP_DTYPES = FLOATS + ("int64",)
# The vectorized fast path (NOTE [Vectorized contiguous path] in cuda/elementwise.cu), for
# float32 and every unary and binary functor: unary_vec4<float, F>(n, out, x),
# binary_vec4<float, F>(n, out, a, b), binary_scalar_vec4<float, F>(n, out, a, s). No
# Layout: the host picks them when the Layout merged to one dim of unit strides in every
# operand and every pointer is 16-byte aligned; any n (the kernels finish the n % 4 tail).
VEC4_DTYPE = "float32"


def scalar_param(dtype):
    """The parameter word of a number operand of a ``dtype`` kernel: the accumulate type for
    floats (float32 for float16 and bfloat16), the dtype itself otherwise."""
    return ACCUMULATE.get(dtype, dtype)


def _elementwise_kernels():
    """cuda/elementwise.cu: unary, binary, scalar, cast/copy, fill, where, comparisons."""
    file = "elementwise.cu"
    kernels = []

    def add(name, *params):
        kernels.append(Kernel(file, name, ("Layout", "int64") + params))

    def ptr(dtype):
        return "ptr:" + dtype

    for functor, dtypes in UNARY_DTYPES.items():
        for dt in dtypes:
            add(f"unary<{STORAGE_CTYPES[dt]}, {functor}>", ptr(dt), ptr(dt))
    for functor, dtypes in BINARY_DTYPES.items():
        for dt in dtypes:
            c = STORAGE_CTYPES[dt]
            add(f"binary<{c}, {functor}>", ptr(dt), ptr(dt), ptr(dt))
            add(f"binary_scalar<{c}, {functor}>", ptr(dt), ptr(dt), scalar_param(dt))
            if functor in REVERSED_SCALAR_FUNCTORS:
                add(f"scalar_binary<{c}, {functor}>", ptr(dt), ptr(dt), scalar_param(dt))
    for functor, dtypes in COMPARE_DTYPES.items():
        for dt in dtypes:
            c = STORAGE_CTYPES[dt]
            add(f"compare<{c}, {functor}>", ptr("bool"), ptr(dt), ptr(dt))
            add(f"compare_scalar<{c}, {functor}>", ptr("bool"), ptr(dt), scalar_param(dt))
    for functor in LOGICAL_FUNCTORS.values():
        add(f"logical<{functor}>", ptr("bool"), ptr("bool"), ptr("bool"))
    add("logical_not", ptr("bool"), ptr("bool"))
    for name in CLASSIFY_KERNELS:
        for dt in FLOATS + COMPLEXES:
            add(f"{name}<{STORAGE_CTYPES[dt]}>", ptr("bool"), ptr(dt))
    for dt in COMPLEXES:
        add(f"complex_abs<{STORAGE_CTYPES[dt]}>", ptr(REAL_OF_COMPLEX[dt]), ptr(dt))
    for dt in CLAMP_DTYPES:
        add(f"clamp_scalar<{STORAGE_CTYPES[dt]}>", ptr(dt), ptr(dt),
            scalar_param(dt), scalar_param(dt), "int32", "int32")
    for dt in WHERE_DTYPES:
        add(f"where<{STORAGE_CTYPES[dt]}>", ptr(dt), ptr("bool"), ptr(dt), ptr(dt))
    for dt, c in STORAGE_CTYPES.items():
        # fill's value: float32 for the half types (half-precision scalars travel as float)
        add(f"fill<{c}>", ptr(dt), scalar_param(dt) if dt in HALF_TYPES else dt)
    for src, c_src in STORAGE_CTYPES.items():
        for dst, c_dst in STORAGE_CTYPES.items():
            add(f"cast<{c_src}, {c_dst}>", ptr(dst), ptr(src))

    # the vectorized float32 kernels take no Layout
    f32, c32 = VEC4_DTYPE, STORAGE_CTYPES[VEC4_DTYPE]
    for functor in UNARY_FUNCTORS.values():
        if f32 in UNARY_DTYPES[functor]:
            kernels.append(Kernel(file, f"unary_vec4<{c32}, {functor}>",
                                  ("int64", ptr(f32), ptr(f32))))
    for functor in BINARY_FUNCTORS.values():
        if f32 not in BINARY_DTYPES[functor]:
            continue
        kernels.append(Kernel(file, f"binary_vec4<{c32}, {functor}>",
                              ("int64", ptr(f32), ptr(f32), ptr(f32))))
        kernels.append(Kernel(file, f"binary_scalar_vec4<{c32}, {functor}>",
                              ("int64", ptr(f32), ptr(f32), f32)))
    return kernels


# ------------------------------------------------------------------ pointwise backward tables
# kernel template (over FLOATS): (pointer parameters, number parameters). The pointers are
# the outputs then the inputs, e.g. tanh_backward(grad_in, grad_out, result); the numbers
# are of the accumulate type (threshold; beta, threshold; the exponent). The two-output
# kernels (grad_a, grad_b, grad, a, b) share one Layout slot for both outputs: see NOTE
# [Two gradients in one pass] in cuda/pointwise_backward.cu.
POINTWISE_BACKWARD_SIGNATURES = {
    "tanh_backward": (3, 0), "sigmoid_backward": (3, 0), "threshold_backward": (3, 1),
    "gelu_backward": (3, 0), "gelu_tanh_backward": (3, 0), "silu_backward": (3, 0),
    "softplus_backward": (3, 2), "mul_backward": (5, 0), "div_backward": (5, 0),
    "pow_backward": (5, 0), "pow_scalar_backward": (3, 1),
}


# the fused formulas with complex instantiations: the core hands them the conjugated operands
# (NOTE [Complex gradients] in pyx/ops/conjugate.pyx), so the real formula is the complex one
COMPLEX_POINTWISE_BACKWARD = ("mul_backward", "div_backward")


def _pointwise_backward_kernels():
    """cuda/pointwise_backward.cu: backward formulas fused into one launch each."""
    return [Kernel("pointwise_backward.cu", f"{name}<{STORAGE_CTYPES[dt]}>",
                   ("Layout", "int64") + ("ptr:" + dt,) * pointers + (scalar_param(dt),) * numbers)
            for name, (pointers, numbers) in POINTWISE_BACKWARD_SIGNATURES.items()
            for dt in FLOATS + (COMPLEXES if name in COMPLEX_POINTWISE_BACKWARD else ())]


# cuda/reduction.cu: the op templates of reduce<Op> and the (input, output) dtypes each is
# instantiated for. Sums and products of integers and bools give int64 as in torch; sum,
# prod and mean also widen a float input to a wider float output (their dtype= argument),
# accumulating in the output's accumulate type. max and min are the ops with an index (and
# argmax, argmin). A template of one dtype (Amax<T>) outputs its input dtype.
_SAME_FLOAT = [(dt, dt) for dt in FLOATS]
_COMPLEX = [("complex64", "complex64"), ("complex128", "complex128"),
            ("complex64", "complex128")]
_WIDENING = _SAME_FLOAT + [("float16", "float32"), ("float16", "float64"),
                           ("bfloat16", "float32"), ("bfloat16", "float64"),
                           ("float32", "float64")]
_SAME_FLOAT_OR_INT = _SAME_FLOAT + [("int64", "int64")]
REDUCTION_OPS = {
    # op: (template, takes the output dtype as a second parameter, [(input, output)])
    "sum": ("Sum", True, _WIDENING + _COMPLEX + [("int64", "int64"), ("bool", "int64")]),
    "prod": ("Prod", True, _WIDENING + _COMPLEX + [("int64", "int64"), ("bool", "int64")]),
    "mean": ("Mean", True, _WIDENING + _COMPLEX),
    "amax": ("Amax", False, _SAME_FLOAT_OR_INT),
    "amin": ("Amin", False, _SAME_FLOAT_OR_INT),
    "var": ("Var", False, _SAME_FLOAT),
    "std": ("Std", False, _SAME_FLOAT),
    "norm": ("Norm", False, _SAME_FLOAT),
    "logsumexp": ("LogSumExp", False, _SAME_FLOAT),
    "max": ("MaxWithIndex", False, _SAME_FLOAT_OR_INT),
    "min": ("MinWithIndex", False, _SAME_FLOAT_OR_INT),
}


def reduction_name(op, in_dtype, out_dtype):
    """The name expression of ``reduce<Op>`` for an op of REDUCTION_OPS and its dtypes,
    e.g. ``reduce<Sum<__half, float>>`` (KeyError when not instantiated)."""
    template, takes_out, pairs = REDUCTION_OPS[op]
    if (in_dtype, out_dtype) not in pairs:
        raise KeyError(f"reduction {op} has no kernel from {in_dtype} to {out_dtype}")
    ctypes = [STORAGE_CTYPES[in_dtype]] + ([STORAGE_CTYPES[out_dtype]] if takes_out else [])
    return f"reduce<{template}<{', '.join(ctypes)}>>"


def _reduction_kernels():
    """cuda/reduction.cu: reduce<Op>(x, out, index, partials, ReduceLayout) for every op
    and dtype pair of REDUCTION_OPS (NOTE [ReduceLayout] in cuda/reduce.cuh)."""
    return [Kernel("reduction.cu", reduction_name(op, i, o),
                   (f"ptr:{i}", f"ptr:{o}", "ptr:int64", "ptr:float64", "ReduceLayout"))
            for op, (_, _, pairs) in REDUCTION_OPS.items() for i, o in pairs]


#: dtypes with an atomicAdd on every GPU compiled for (cuda/indexing.cu, add_along_axis; complex:
#: one per part, NOTE [Scatter-add of complex numbers] in cuda/complex.cuh)
ATOMIC_ADD_DTYPES = ("float16", "bfloat16", "float32", "float64", "int64", "complex64",
                     "complex128")


def _indexing_kernels():
    """cuda/indexing.cu: elements read, written or accumulated at the positions of an
    index tensor."""
    kernels = []
    for dt, ctype in STORAGE_CTYPES.items():
        kernels.append(Kernel("indexing.cu", f"take_along_axis<{ctype}>",
                              ("Layout", "int64", f"ptr:{dt}", f"ptr:{dt}", "ptr:int64", "int64",
                               "int64")))
        kernels.append(Kernel("indexing.cu", f"put_along_axis<{ctype}>",
                              ("Layout", "int64", f"ptr:{dt}", "ptr:int64", f"ptr:{dt}", "int64",
                               "int64")))
    # the accumulating scatter: the dtypes CUDA has an atomicAdd for
    for dt in ATOMIC_ADD_DTYPES:
        kernels.append(Kernel("indexing.cu", f"add_along_axis<{STORAGE_CTYPES[dt]}>",
                              ("Layout", "int64", f"ptr:{dt}", "ptr:int64", f"ptr:{dt}", "int64",
                               "int64")))
    return kernels


def _softmax_kernels():
    """cuda/softmax.cu: softmax and log_softmax along any dim (NOTE [RowLayout]), forward
    (y, x) and backward (grad_in, g, y); the last int32 is 1 for log_softmax."""
    kernels = []
    for dt, ctype in FLOAT_CTYPES.items():
        p = "ptr:" + dt
        kernels.append(Kernel("softmax.cu", f"softmax_forward<{ctype}>",
                              (p, p, "RowLayout", "int32")))
        kernels.append(Kernel("softmax.cu", f"softmax_backward<{ctype}>",
                              (p, p, p, "RowLayout", "int32")))
    return kernels


#: the functors of pointwise_loss<T, F> (cuda/loss.cu), by the loss's name
POINTWISE_LOSS_FUNCTORS = {"mse_loss": "MseLoss", "l1_loss": "L1Loss",
                           "binary_cross_entropy": "BceLoss",
                           "binary_cross_entropy_with_logits": "BceWithLogitsLoss"}


def _loss_kernels():
    """cuda/loss.cu: nll_loss forward (out, total_weight, x, target, weight, error word) and
    backward (grad_in, grad_out, target, weight, total_weight, error word) over an
    NllLayout; the pointwise losses fused into their reduction (out, x, target, weight,
    error word, reduction) and their backward formulas (grad_in, x, target, grad, divisor)."""
    kernels = []
    for dt, ctype in FLOAT_CTYPES.items():
        p = "ptr:" + dt
        kernels.append(Kernel("loss.cu", f"nll_loss_forward<{ctype}>",
                              (p, p, p, "ptr:int64", p, "ptr:int64", "NllLayout")))
        kernels.append(Kernel("loss.cu", f"nll_loss_backward<{ctype}>",
                              (p, p, "ptr:int64", p, p, "ptr:int64", "NllLayout")))
        for loss, functor in POINTWISE_LOSS_FUNCTORS.items():
            kernels.append(Kernel("loss.cu", f"pointwise_loss<{ctype}, {functor}>",
                                  ("Layout", "int64", p, p, p, p, "ptr:int64", "int32")))
            kernels.append(Kernel("loss.cu", f"{loss}_backward<{ctype}>",
                                  ("Layout", "int64", p, p, p, p, scalar_param(dt))))
    return kernels


def _advanced_indexing_kernels():
    """cuda/advanced_indexing.cu: several index arrays folded into one offset array, the
    gather/scatter/scatter-add at those offsets, and np.nonzero's three passes."""
    file = "advanced_indexing.cu"
    kernels = [Kernel(file, "index_offsets", ("Layout", "int64", "ptr:int64", "ptr:int64",
                                              "int64", "int64", "int32")),
               Kernel(file, "exclusive_scan", ("int64", "ptr:int64"))]
    for dt, ctype in STORAGE_CTYPES.items():
        kernels += [
            Kernel(file, f"take_at_offsets<{ctype}>",
                   ("Layout", "int64", f"ptr:{dt}", f"ptr:{dt}", "ptr:int64")),
            Kernel(file, f"put_at_offsets<{ctype}>",
                   ("Layout", "int64", f"ptr:{dt}", "ptr:int64", f"ptr:{dt}")),
            Kernel(file, f"nonzero_count<{ctype}>",
                   ("Layout", "int64", f"ptr:{dt}", "ptr:int64", "int64")),
            Kernel(file, f"nonzero_scatter<{ctype}>",
                   ("Layout", "int64", f"ptr:{dt}", "ptr:int64", "ptr:int64", "int64")),
        ]
    for dt in ATOMIC_ADD_DTYPES:
        kernels.append(Kernel(file, f"add_at_offsets<{STORAGE_CTYPES[dt]}>",
                              ("Layout", "int64", f"ptr:{dt}", "ptr:int64", f"ptr:{dt}")))
    return kernels


# cuda/foreach.cu: foreach_apply<T, Op>(ForeachTable, scalar) (NOTE [Multi-tensor launch]),
# the functors by the _foreach op they serve, and the dtypes each is instantiated for.
FOREACH_FUNCTORS = ("AddScaled", "MulList", "AddScalar", "MulScalar", "CopyList", "Fill")
FOREACH_DTYPES = FLOATS + ("int64",) + COMPLEXES
# the optimizers' division, square root and maximum: real floating dtypes only
FOREACH_REAL_FUNCTORS = ("DivList", "DivScalar", "SqrtList", "MaxList", "MaxScalar")


def _foreach_kernels():
    """cuda/foreach.cu: one launch over a table of up to 64 tensors of one dtype."""
    pairs = [(functor, dt) for functor in FOREACH_FUNCTORS for dt in FOREACH_DTYPES]
    pairs += [(functor, dt) for functor in FOREACH_REAL_FUNCTORS for dt in FLOATS]
    kernels = [Kernel("foreach.cu", f"foreach_apply<{STORAGE_CTYPES[dt]}, {functor}>",
                      ("ForeachTable", scalar_param(dt))) for functor, dt in pairs]
    # Adam's whole step (NOTE [Adam in one launch]): float32 and float64
    kernels += [Kernel("foreach.cu", f"adam_apply<{STORAGE_CTYPES[dt]}>",
                       ("AdamTable",) + ("float64",) * 6 + ("int32",))
                for dt in ("float32", "float64")]
    return kernels


# cuda/random.cu: the Philox4x32-10 stream (NOTE [Philox4x32-10]); every kernel takes the
# seed and the stream offset in words as uint64.
def _random_kernels():
    """cuda/random.cu: raw words, uniform and normal samples, dropout's two passes."""
    file, stream = "random.cu", ("uint64", "uint64")
    kernels = [Kernel(file, "philox_bits", ("ptr:uint32", "int64") + stream)]
    for dt in FLOATS:
        c, p, acc = FLOAT_CTYPES[dt], "ptr:" + dt, scalar_param(dt)
        kernels += [
            Kernel(file, f"philox_uniform<{c}>", (p, "int64") + stream),
            Kernel(file, f"philox_normal<{c}>", (p, "int64") + stream),
            Kernel(file, f"dropout_forward<{c}>",
                   (p, "ptr:bool", p, "int64", "float32", acc) + stream),
            Kernel(file, f"dropout_backward<{c}>",
                   ("Layout", "int64", p, p, "ptr:bool", acc)),
        ]
    return kernels


#: the dtypes cuda/sort.cu sorts (NOTE [Sorting by rank]); bools sort as uint8
SORT_DTYPES = FLOATS + ("int64", "int32", "int16", "int8", "uint8")


def _sort_kernels():
    """cuda/sort.cu: sort_rows<T>(x, values, indices, rows, length), a stable sort of
    contiguous rows (np.sort, np.argsort, np.partition along the last axis)."""
    return [Kernel("sort.cu", f"sort_rows<{STORAGE_CTYPES[dt]}>",
                   ("ptr:" + dt, "ptr:" + dt, "ptr:int64", "int64", "int64"))
            for dt in SORT_DTYPES]


def _gemm_kernels():
    """cuda/gemm.cu: gemm<T>(out, column_sums, a, b, bias, GemmLayout, alpha, beta), the
    tiled product with addmm's epilogues (NOTE [GEMM epilogues])."""
    return [Kernel("gemm.cu", f"gemm<{ctype}>", ("ptr:" + dt,) * 5 + ("GemmLayout",)
                   + (scalar_param(dt),) * 2)
            for dt, ctype in {**FLOAT_CTYPES, **COMPLEX_CTYPES}.items()]


KERNELS = tuple(_elementwise_kernels() + _pointwise_backward_kernels() + _reduction_kernels()
                + _indexing_kernels() + _advanced_indexing_kernels() + _softmax_kernels()
                + _loss_kernels() + _foreach_kernels() + _random_kernels()
                + _sort_kernels() + _gemm_kernels())
_BY_NAME = {k.name: k for k in KERNELS}


def lookup(name):
    """The manifest entry of a name expression (KeyError names what is missing)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"kernel {name!r} is not in the manifest "
                       f"(autograd_cy/cuda/manifest.py)") from None


def name_expressions_by_file():
    """{file: [name expressions]}, in manifest order: what each RawModule compiles."""
    files = {}
    for k in KERNELS:
        files.setdefault(k.file, []).append(k.name)
    return files
