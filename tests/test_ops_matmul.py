"""Matrix products against torch: ``mm``, ``bmm``, ``mv``, ``dot`` and ``matmul`` / ``@``.

Values, dtypes, gradients and double backward through ``check_op`` (float32 and
float64, sizes of one, empty inner dims, transposed operands, function and
method forms), node names, integer operands, and the shape and dtype errors
(same exception type as torch and the same message). Where autograd_cy differs
from torch today the test asserts torch's behaviour and is a strict xfail naming
the difference. Random operand shapes for ``matmul`` are in test_properties.
"""
import glob
import os
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import LIBS, assert_same, assert_same_error, check_op, node_name, randn

DTYPES = [np.float32, np.float64]

# name -> (function form, method form, operand shapes)
PRODUCTS = {
    "mm": (lambda lib, a, b: lib.mm(a, b), lambda lib, a, b: a.mm(b),
           [((2, 3), (3, 4)), ((1, 1), (1, 1)), ((3, 1), (1, 2)), ((2, 0), (0, 3))]),
    "bmm": (lambda lib, a, b: lib.bmm(a, b), lambda lib, a, b: a.bmm(b),
            [((2, 3, 4), (2, 4, 5)), ((1, 2, 3), (1, 3, 2)), ((3, 1, 1), (3, 1, 1)),
             ((2, 3, 1), (2, 1, 4)), ((2, 2, 0), (2, 0, 3))]),
    "mv": (lambda lib, a, b: lib.mv(a, b), lambda lib, a, b: a.mv(b),
           [((2, 3), (3,)), ((1, 1), (1,)), ((4, 1), (1,)), ((3, 0), (0,))]),
    "dot": (lambda lib, a, b: lib.dot(a, b), lambda lib, a, b: a.dot(b),
            [((3,), (3,)), ((1,), (1,)), ((0,), (0,))]),
    "matmul": (lambda lib, a, b: lib.matmul(a, b), lambda lib, a, b: a @ b,
               [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)),
                ((2, 2, 3), (3,)), ((3,), (2, 3, 4)), ((2, 2, 3), (3, 4)),
                ((2, 3), (2, 3, 4)), ((2, 1, 2, 3), (3, 3, 2)), ((1, 2, 3), (4, 3, 2))]),
}
CASES = [(name, shapes) for name in PRODUCTS for shapes in PRODUCTS[name][2]]


def operands(shapes, seed=0):
    return randn(*shapes[0], seed=seed), randn(*shapes[1], seed=seed + 1)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("form", [0, 1], ids=["function", "method"])
@pytest.mark.parametrize("name, shapes", CASES, ids=[f"{n}{s}" for n, s in CASES])
def test_product(name, shapes, form, dtype):
    check_op(PRODUCTS[name][form], *operands(shapes), dtype=dtype)


@pytest.mark.parametrize("form", [0, 1], ids=["function", "method"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_large_products(form, dtype):
    """Products with an output past 512 KiB take np.matmul instead of ``ndarray.dot`` (NOTE
    [Small and large matrix products]): the same values and gradients as torch, the
    weight gradient (384 by 384, 576 KiB in float32) included."""
    check_op(PRODUCTS["mm"][form], *operands(((384, 16), (16, 384))), dtype=dtype)


@pytest.mark.parametrize("name, shapes", CASES, ids=[f"{n}{s}" for n, s in CASES])
def test_product_where_only_one_operand_requires_grad(name, shapes):
    check_op(PRODUCTS[name][0], *operands(shapes), requires_grad=[True, False])
    check_op(PRODUCTS[name][0], *operands(shapes), requires_grad=[False, True])


# (the operand holding nan or inf, the other operand's shape, special operand on the left)
ONE_BY_ONE_ZEROS = {
    "column_times_1x1_zero": ((3, 1), (1, 1), True),
    "1x1_zero_times_row": ((1, 3), (1, 1), False),
    "row_times_column_zero_gradient": ((1, 3), (3, 1), True),
    "column_zero_gradient_times_row": ((3, 1), (1, 3), False),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("special", [np.nan, np.inf])
@pytest.mark.parametrize("case", ONE_BY_ONE_ZEROS)
def test_zero_times_nan_through_a_one_by_one_operand_is_nan(case, special, dtype):
    """A 1-by-1 zero times an operand holding nan or inf is nan: in a product, and in the
    gradient of a 1-by-1 output whose gradient is zero (NOTE [A 1-by-1 operand of dot])."""
    special_shape, other_shape, special_left = ONE_BY_ONE_ZEROS[case]

    def run(lib):
        a = lib.full(special_shape, special, dtype=getattr(lib, np.dtype(dtype).name),
                     requires_grad=True)
        b = lib.zeros(other_shape, dtype=a.dtype, requires_grad=True)
        out = lib.mm(a, b) if special_left else lib.mm(b, a)
        (out * 0).sum().backward()
        return out, a.grad, b.grad
    assert_same(run)


def test_nan_reaches_the_gradient_through_a_product_with_a_zero_gradient():
    """The fuzzer's program: a where() that takes its other branch gives the product a zero
    gradient, and nan (the std of one element) times zero is nan in the weight's."""
    def run(lib):
        v0 = lib.tensor([[-1.97, -0.72]], requires_grad=True)
        v7 = lib.exp(v0.unbind(-1)[0].clamp(max=8)) ** 3
        with lib.no_grad():
            v27 = v7.masked_fill(v7 > 0, 0.5).std().unsqueeze(0) + 1
        v30 = lib.matmul(lib.nn.functional.gelu(lib.stack([v27, v27], dim=-1)), v0.t())
        lib.where(v30.sum(dim=(1, 0), keepdim=True) > v30, v30, -0.86).sum().backward()
        return v0.grad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)     # std of one element
        assert_same(run)


TRANSPOSED = {
    "mm": lambda lib, a, b: lib.mm(a.t(), b.t()),
    "bmm": lambda lib, a, b: lib.bmm(a.transpose(1, 2), b.transpose(1, 2)),
    "mv": lambda lib, a, b: lib.mv(a.t(), b[::2]),
    "dot": lambda lib, a, b: lib.dot(a[::2], b[1::2]),
    "matmul": lambda lib, a, b: lib.matmul(a.transpose(-1, -2), b.transpose(-1, -2)),
}
TRANSPOSED_SHAPES = {"mm": ((3, 2), (4, 3)), "bmm": ((2, 4, 3), (2, 5, 4)),
                     "mv": ((3, 2), (6,)), "dot": ((6,), (6,)),
                     "matmul": ((2, 3, 2), (4, 3))}


@pytest.mark.parametrize("name", TRANSPOSED)
def test_product_of_non_contiguous_operands(name):
    check_op(TRANSPOSED[name], *operands(TRANSPOSED_SHAPES[name]))


@pytest.mark.parametrize("name, shapes", [
    ("mm", ((2, 3), (3, 4))), ("bmm", ((2, 1, 3), (2, 3, 2))), ("mv", ((2, 3), (3,))),
    ("dot", ((3,), (3,))), ("matmul", ((2, 3), (3,))), ("matmul", ((2, 2, 3), (3, 2)))])
@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_product_of_integers(name, shapes, dtype):
    rng = np.random.default_rng(0)
    a, b = (rng.integers(-5, 5, shape).astype(dtype) for shape in shapes)
    check_op(PRODUCTS[name][0], a, b)


# ------------------------------------------------------------------ node names

@pytest.mark.parametrize("call, name", [
    (lambda lib, a, b, m, v: lib.mm(a, b), "MmBackward0"),
    (lambda lib, a, b, m, v: lib.bmm(a.unsqueeze(0), b.unsqueeze(0)), "BmmBackward0"),
    (lambda lib, a, b, m, v: lib.mv(m, v), "MvBackward0"),
    (lambda lib, a, b, m, v: lib.dot(v, v), "DotBackward0"),
    (lambda lib, a, b, m, v: a @ b, "MmBackward0"),
    (lambda lib, a, b, m, v: m @ v, "MvBackward0"),
    (lambda lib, a, b, m, v: v @ v, "DotBackward0"),
    (lambda lib, a, b, m, v: a.unsqueeze(0) @ b.unsqueeze(0), "UnsafeViewBackward0"),
    (lambda lib, a, b, m, v: v @ m.t(), "SqueezeBackward4"),
], ids=["mm", "bmm", "mv", "dot", "matrix @ matrix", "matrix @ vector", "vector @ vector",
        "batched matmul", "vector @ matrix"])
def test_product_node_name(call, name):
    names = []
    for lib in LIBS:
        a, b = lib.ones(2, 3, requires_grad=True), lib.ones(3, 4, requires_grad=True)
        m, v = lib.ones(4, 3, requires_grad=True), lib.ones(3, requires_grad=True)
        names.append(node_name(call(lib, a, b, m, v).grad_fn))
    assert names == [name, name]


GRAPH_SHAPES = [((3,), (3, 4)), ((5, 2, 3), (3,)), ((3,), (5, 3, 4)), ((5, 2, 3), (3, 4)),
                ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)), ((6, 1, 2, 3), (5, 3, 4)),
                ((5, 2, 3), (1, 3, 4)), ((1, 2, 3), (5, 3, 4)), ((1, 3), (5, 3, 4)),
                ((2, 5, 2, 3), (3,))]


def node_names(node):
    """The names of a graph's nodes, depth first, ``None`` for an input without a node;
    views through reshape are named alike (torch's _reshape_alias is our view)."""
    if node is None:
        return [None]
    name = node_name(node).replace("ReshapeAliasBackward0", "ViewBackward0")
    return [name] + [n for child, _ in node.next_functions for n in node_names(child)]


@pytest.mark.parametrize("requires_grad", [(True, True), (True, False), (False, True)],
                         ids=["both", "left", "right"])
@pytest.mark.parametrize("shapes", GRAPH_SHAPES, ids=[f"{a}@{b}" for a, b in GRAPH_SHAPES])
def test_matmul_records_the_graph_torch_records(shapes, requires_grad):
    # torch builds matmul from mm, mv and bmm, folding a batch into mm's rows when it can;
    # which it does depends on the ranks and on which operand requires grad.
    graphs = []
    for lib in LIBS:
        a = lib.tensor(randn(*shapes[0], seed=0), requires_grad=requires_grad[0])
        b = lib.tensor(randn(*shapes[1], seed=1), requires_grad=requires_grad[1])
        out = a @ b
        graphs.append((node_names(out.grad_fn), out.is_contiguous(), out._version))
    assert graphs[0] == graphs[1]


# ------------------------------------------------------------------ errors

SHAPE_ERRORS = [
    # mm
    ("mm (2, 3) (4, 5)", lambda lib: lib.mm(lib.ones(2, 3), lib.ones(4, 5)), None),
    ("mm of a vector", lambda lib: lib.mm(lib.ones(3), lib.ones(3, 5)), None),
    ("mm of a batch", lambda lib: lib.mm(lib.ones(2, 3, 4), lib.ones(4, 5)), None),
    ("mm by a vector", lambda lib: lib.mm(lib.ones(2, 3), lib.ones(3)), None),
    # bmm
    ("bmm inner sizes", lambda lib: lib.bmm(lib.ones(2, 3, 4), lib.ones(2, 5, 6)), None),
    ("bmm batch sizes", lambda lib: lib.bmm(lib.ones(2, 3, 4), lib.ones(3, 4, 6)), None),
    ("bmm batch of one", lambda lib: lib.bmm(lib.ones(1, 3, 4), lib.ones(2, 4, 5)), None),
    ("bmm of a matrix", lambda lib: lib.bmm(lib.ones(3, 4), lib.ones(4, 5)), None),
    ("bmm by a matrix", lambda lib: lib.bmm(lib.ones(2, 3, 4), lib.ones(2, 4)), None),
    # mv
    ("mv sizes", lambda lib: lib.mv(lib.ones(2, 3), lib.ones(4)), None),
    ("mv of a vector", lambda lib: lib.mv(lib.ones(3), lib.ones(3)), None),
    ("mv by a matrix", lambda lib: lib.mv(lib.ones(2, 3), lib.ones(2, 3)), None),
    ("mv of a batch", lambda lib: lib.mv(lib.ones(2, 3, 4), lib.ones(4)), None),
    # dot
    ("dot sizes", lambda lib: lib.dot(lib.ones(3), lib.ones(4)), None),
    ("dot of a matrix", lambda lib: lib.dot(lib.ones(2, 3), lib.ones(3)), None),
    ("dot by a matrix", lambda lib: lib.dot(lib.ones(3), lib.ones(2, 3)), None),
    ("dot of a 0-dim", lambda lib: lib.dot(lib.tensor(1.0), lib.ones(3)), None),
    # matmul
    ("matmul vectors", lambda lib: lib.matmul(lib.ones(3), lib.ones(4)), None),
    ("matmul matrices", lambda lib: lib.ones(2, 3) @ lib.ones(4, 5), None),
    ("matmul vector, matrix", lambda lib: lib.ones(3) @ lib.ones(4, 5), None),
    ("matmul matrix, vector", lambda lib: lib.ones(2, 3) @ lib.ones(4), None),
    ("matmul batch, vector", lambda lib: lib.ones(4, 2, 3) @ lib.ones(4), None),
    ("matmul batch of one, matrix", lambda lib: lib.ones(1, 2, 3) @ lib.ones(4, 5), None),
    ("matmul batch, matrix", lambda lib: lib.ones(4, 2, 3) @ lib.ones(4, 5), None),
    ("matmul batch, batch", lambda lib: lib.ones(4, 2, 3) @ lib.ones(4, 4, 5), None),
    ("matmul matrix, batch", lambda lib: lib.ones(2, 3) @ lib.ones(4, 4, 5), None),
    ("matmul batch, matrix (folded)", lambda lib: lib.ones(2, 2, 3) @ lib.ones(2, 4), None),
    ("matmul vector, batch", lambda lib: lib.ones(3) @ lib.ones(4, 5, 6), None),
    ("matmul batches that do not broadcast", lambda lib: lib.ones(2, 2, 3) @ lib.ones(3, 3, 4),
     None),
    ("matmul 4-D batches that do not broadcast",
     lambda lib: lib.ones(4, 2, 2, 3) @ lib.ones(3, 3, 4), None),
    ("matmul 0-dim", lambda lib: lib.matmul(lib.tensor(1.0), lib.ones(3)), None),
    ("matmul 0-dims", lambda lib: lib.tensor(1.0) @ lib.tensor(2.0), None),
]
DTYPE_ERRORS = [
    ("mm dtypes", lambda lib: lib.mm(lib.ones(2, 3), lib.ones(3, 4, dtype=lib.float64)), None),
    ("matmul dtypes", lambda lib: lib.ones(2, 3) @ lib.ones(3, 4, dtype=lib.float64), None),
    ("bmm dtypes", lambda lib: lib.bmm(lib.ones(2, 2, 3), lib.ones(2, 3, 4, dtype=lib.float64)),
     None),
    ("bmm of bools and floats", lambda lib: lib.bmm(lib.ones(2, 2, 3, dtype=lib.bool),
                                                    lib.ones(2, 3, 4)), None),
    ("bmm of floats and bools", lambda lib: lib.bmm(lib.ones(2, 2, 3),
                                                    lib.ones(2, 3, 4, dtype=lib.bool)), None),
    ("mv of ints and floats", lambda lib: lib.mv(lib.ones(2, 3, dtype=lib.int64), lib.ones(3)),
     None),
    ("matmul batch, vector dtypes", lambda lib: lib.ones(2, 2, 3) @ lib.ones(3, dtype=lib.float64),
     None),
    ("matmul vector, matrix dtypes", lambda lib: lib.ones(3) @ lib.ones(3, 4, dtype=lib.float64),
     None),
    ("matmul batch, batch dtypes",
     lambda lib: lib.ones(2, 2, 3) @ lib.ones(2, 3, 4, dtype=lib.float64), None),
    ("matmul bool batches", lambda lib: lib.ones(2, 2, 3, dtype=lib.bool)
     @ lib.ones(2, 3, 4, dtype=lib.bool), None),
    ("matmul bool batch, vector", lambda lib: lib.ones(2, 3, 4, dtype=lib.bool)
     @ lib.ones(4, dtype=lib.bool), None),
    ("mm dtypes and sizes", lambda lib: lib.mm(lib.ones(2, 3), lib.ones(4, 5, dtype=lib.float64)),
     None),
    ("mm of bools", lambda lib: lib.mm(lib.ones(2, 3, dtype=lib.bool),
                                       lib.ones(3, 4, dtype=lib.bool)), None),
    ("dot dtypes before sizes", lambda lib: lib.dot(lib.ones(3, dtype=lib.int64), lib.ones(4)),
     None),
    ("mv dtypes", lambda lib: lib.mv(lib.ones(2, 3), lib.ones(3, dtype=lib.float64)), None),
    ("dot dtypes", lambda lib: lib.dot(lib.ones(3), lib.ones(3, dtype=lib.float64)), None),
    ("mm int and float", lambda lib: lib.mm(lib.ones(1, 3, dtype=lib.int64), lib.ones(3, 1)), None),
    ("dot of bools", lambda lib: lib.dot(lib.tensor([True]), lib.tensor([True])), None),
]


def as_params(cases):
    return [pytest.param(call, id=name, marks=() if mark is None else mark)
            for name, call, mark in cases]


@pytest.mark.parametrize("call", as_params(SHAPE_ERRORS))
def test_shape_errors_match_torch(call):
    assert_same_error(call, RuntimeError)


@pytest.mark.parametrize("call", as_params(DTYPE_ERRORS))
def test_dtype_errors_match_torch(call):
    assert_same_error(call, RuntimeError)


@pytest.mark.parametrize("complex_operands", [False, True], ids=["real", "complex"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shapes", [((5, 7, 1), (5, 1, 3)), ((2, 5, 4, 1), (1, 3)),
                                    ((6, 1), (2, 1, 4))])
def test_batches_of_outer_products(shapes, dtype, complex_operands):
    """Batched products with an inner dim of 1 take einsum (NOTE [Batches of outer
    products]): the same values, gradients and errors as torch's."""
    a, b = randn(*shapes[0], seed=1), randn(*shapes[1], seed=2)
    if complex_operands:
        a, b = a + 1j * randn(*shapes[0], seed=3), b - 1j * randn(*shapes[1], seed=4)
    check_op(lambda lib, x, y: lib.matmul(x, y), a, b, dtype=dtype)


def test_an_outer_product_shape_error_is_torchs():
    assert_same_error(lambda lib: lib.matmul(lib.ones(4, 3, 1), lib.ones(4, 2, 5)))


# Every layout a 2-D operand can reach gemm in (NOTE [Calling NumPy's BLAS directly]):
# row-major, transposed, a row or column of a bigger matrix, every other row or column (a
# leading dimension longer than the row), a single element; and one BLAS cannot read as it
# is (a stride-0 expansion), which takes NumPy's path.
LAYOUTS = {
    "rows": lambda lib, x: x,
    "transposed": lambda lib, x: x.t().contiguous().t(),
    "every other row": lambda lib, x: lib.stack([x, x], 1).reshape(-1, x.shape[1])[::2],
    "every other column": lambda lib, x: lib.stack([x, x], 2).reshape(x.shape[0], -1)[:, ::2],
    "expanded": lambda lib, x: x[:1].expand(x.shape[0], -1) if x.shape[0] > 1 else x,
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shapes", [((8, 32), (32, 16)), ((8, 32), (32, 1)), ((1, 32), (32, 8)),
                                    ((5, 1), (1, 7)), ((1, 1), (1, 1))], ids=str)
@pytest.mark.parametrize("layout_b", LAYOUTS)
@pytest.mark.parametrize("layout_a", LAYOUTS)
def test_product_layouts(layout_a, layout_b, shapes, dtype):
    a, b = operands(shapes)
    check_op(lambda lib, x, y: lib.mm(LAYOUTS[layout_a](lib, x), LAYOUTS[layout_b](lib, y)),
             a, b, dtype=dtype)


@pytest.mark.cpu_only
def test_products_call_numpys_gemm():
    # NumPy's wheels ship OpenBLAS; with another BLAS the products take NumPy's own path
    from autograd_cy._C import blas
    if np.__config__.CONFIG["Build Dependencies"]["blas"]["name"] != "scipy-openblas":
        pytest.skip("this NumPy is built against another BLAS")
    assert blas.found()


@pytest.mark.cpu_only
def test_skylakex_kernels_where_openblas_chose_avx2_on_an_avx512_cpu():
    # NOTE [OpenBLAS's AVX-512 kernels on AMD CPUs]: used exactly where the CPU has AVX-512
    # and OpenBLAS picked its Haswell/Zen kernels; their products are cblas's to rounding
    import ctypes
    from autograd_cy._C import blas
    if not blas.found():
        pytest.skip("this NumPy is built against another BLAS")
    flags = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""
    avx512 = all(f" {flag} " in flags for flag in ("avx512f", "avx512dq", "avx512bw",
                                                   "avx512vl"))
    folder = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    library = ctypes.CDLL(glob.glob(os.path.join(folder, "libscipy_openblas64_*.so"))[0])
    library.scipy_openblas_get_corename64_.restype = ctypes.c_char_p
    core = library.scipy_openblas_get_corename64_().decode()
    assert blas.uses_skylakex_kernels() == (avx512 and core in ("Haswell", "Zen"))
    rng = np.random.default_rng(5)
    for dtype in (np.float32, np.float64):
        for a_t in (False, True):
            for b_t in (False, True):
                a = rng.standard_normal((300, 64) if a_t else (64, 300)).astype(dtype)
                b = rng.standard_normal((48, 300) if b_t else (300, 48)).astype(dtype)
                a, b = (a.T if a_t else a), (b.T if b_t else b)
                ours = (ag.tensor(a) @ ag.tensor(b)).numpy()
                np.testing.assert_allclose(ours, a.astype(np.float64) @ b.astype(np.float64),
                                           rtol=1e-4 if dtype == np.float32 else 1e-12,
                                           atol=1e-3 if dtype == np.float32 else 1e-10)
        # nan and inf reach every output they touch, 0 * nan included
        a = np.zeros((64, 300), dtype)
        b = rng.standard_normal((300, 48)).astype(dtype)
        a[3, 7], a[5, 9], b[11, 2] = np.nan, np.inf, np.nan
        ours = (ag.tensor(a) @ ag.tensor(b)).numpy()
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(np.isnan(ours), np.isnan(a @ b))
            np.testing.assert_array_equal(np.isinf(ours), np.isinf(a @ b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values_through_gemm(dtype):
    # nan and inf in an operand reach every output they touch (0 * nan is nan); -0.0 stays
    a = np.array([[0.0, np.nan, 1.0], [-0.0, 0.0, np.inf], [1.0, 2.0, 3.0]], dtype=dtype)
    b = np.array([[0.0, 1.0], [0.0, -0.0], [2.0, 0.0]], dtype=dtype)
    results = {lib: np.asarray((lib.tensor(a) @ lib.tensor(b)).tolist()) for lib in LIBS}
    np.testing.assert_array_equal(results[ag], results[torch])


# NOTE [Gradients in their operand's layout]: a column-major operand of mm and addmm gets its
# gradient column-major, as PyTorch's mm_mat1_backward and mm_mat2_backward compute it; the
# gradients below are those of the products' operands (the transposed views) and of the leaves
GRADIENT_LAYOUT_CASES = {
    "mm, mat2 = w.t()": lambda lib, x, w, b, wt, xt: lib.mm(x, wt),
    "mm, mat1 column-major": lambda lib, x, w, b, wt, xt: lib.mm(xt, wt.contiguous()),
    "addmm, mat2 = w.t()": lambda lib, x, w, b, wt, xt: lib.addmm(b, x, wt),
    "addmm, both column-major": lambda lib, x, w, b, wt, xt: lib.addmm(b, xt, wt),
    "matmul folded": lambda lib, x, w, b, wt, xt: lib.matmul(lib.stack([x, xt]), wt),
    "row-major operands": lambda lib, x, w, b, wt, xt: lib.mm(x, wt.contiguous()),
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("case", GRADIENT_LAYOUT_CASES)
def test_gradients_take_their_operands_layout(case, create_graph):
    def gradients(lib):
        x = lib.tensor(randn(4, 3, seed=1), requires_grad=True)
        w = lib.tensor(randn(5, 3, seed=2), requires_grad=True)
        b = lib.tensor(randn(5, seed=3), requires_grad=True)
        wt, xt = w.t(), x.t().contiguous().t()
        out = GRADIENT_LAYOUT_CASES[case](lib, x, w, b, wt, xt)
        grads = lib.autograd.grad((out * out).sum(), [x, w, wt, xt], allow_unused=True,
                                  create_graph=create_graph)
        return [None if g is None else (list(g.stride()), g.tolist()) for g in grads]
    assert_same(gradients, rtol=1e-5, atol=1e-6)



def test_tensor_times_parameter():
    """``x @ parameter``: Python asks the subclass's reflected ``__rmatmul__`` first, which
    once took ``x`` for an array (an error when ``x`` requires grad or is on a device)."""
    def run(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        weight = lib.nn.Parameter(lib.tensor([[0.5, -1.0], [2.0, 0.0]]))
        y = (x * 2) @ weight
        y.sum().backward()
        return y, y.grad_fn.name(), x.grad, weight.grad
    assert_same(run)

