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

# The dtypes the kernels are templated over, with their C type and accumulate dtype.
FLOAT_CTYPES = {"float16": "__half", "float32": "float", "float64": "double"}
ACCUMULATE = {"float16": "float32", "float32": "float32", "float64": "float64"}
# Every dtype a CUDA tensor may hold, with its C type (casts and copies cover them all).
STORAGE_CTYPES = {**FLOAT_CTYPES, "int64": "long long", "int32": "int", "int16": "short",
                  "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


@dataclass(frozen=True)
class Kernel:
    file: str
    name: str
    params: tuple

    def __repr__(self):
        return f"<kernel {self.name} in cuda/{self.file}>"


def _elementwise_kernels():
    """cuda/elementwise.cu: unary, binary, scalar, cast/copy, fill, where, comparisons."""
    return []


def _pointwise_backward_kernels():
    """cuda/pointwise_backward.cu: backward formulas fused into one launch each."""
    return []


# cuda/reduction.cu: the op templates of reduce<Op> and the (input, output) dtypes each is
# instantiated for. Sums and products of integers and bools give int64 as in torch; sum,
# prod and mean also widen a float input to a wider float output (their dtype= argument),
# accumulating in the output's accumulate type. max and min are the ops with an index (and
# argmax, argmin). A template of one dtype (Amax<T>) outputs its input dtype.
_WIDENING = [("float16", "float16"), ("float32", "float32"), ("float64", "float64"),
             ("float16", "float32"), ("float16", "float64"), ("float32", "float64")]
_SAME_FLOAT = [("float16", "float16"), ("float32", "float32"), ("float64", "float64")]
_SAME_FLOAT_OR_INT = _SAME_FLOAT + [("int64", "int64")]
REDUCTION_OPS = {
    # op: (template, takes the output dtype as a second parameter, [(input, output)])
    "sum": ("Sum", True, _WIDENING + [("int64", "int64"), ("bool", "int64")]),
    "prod": ("Prod", True, _WIDENING + [("int64", "int64"), ("bool", "int64")]),
    "mean": ("Mean", True, _WIDENING),
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


KERNELS = tuple(_elementwise_kernels() + _pointwise_backward_kernels() + _reduction_kernels())
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
