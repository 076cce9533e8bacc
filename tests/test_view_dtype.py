"""``Tensor.view(dtype)``: the same bytes read as another dtype, against torch: the shape
(the last dim scaled by the ratio of the element sizes), the values bit for bit, the shared
memory and version counter, no history, and torch's errors for what cannot be viewed."""
import pytest

from oracle import assert_same, assert_same_error


@pytest.mark.parametrize("source, target", [
    ("float32", "int32"), ("float32", "uint8"), ("float32", "float16"), ("float32", "bool"),
    ("float64", "float32"), ("float32", "float64"), ("float32", "complex64"),
    ("complex64", "float32"), ("bfloat16", "int16"), ("int16", "float16"), ("float32", "float32"),
])
def test_view_as_dtype_reads_the_same_bytes(source, target):
    def run(lib):
        x = lib.arange(8.0).reshape(2, 4).to(getattr(lib, source))
        y = x.view(getattr(lib, target))
        return y, list(y.shape), y.stride(), str(y.dtype).split(".")[-1]
    assert_same(run)


def test_view_as_dtype_shares_memory_and_version_but_no_history():
    def run(lib):
        x = lib.ones(2, 2, requires_grad=True)
        y = x.view(lib.int32)
        same = x.view(dtype=lib.float32)
        with lib.no_grad():
            x.mul_(2)
        return [y.tolist(), y.requires_grad, same.requires_grad, same.grad_fn is None,
                y._version == x._version, x[:, 1:].view(lib.int32).storage_offset()]
    assert_same(run)


@pytest.mark.parametrize("make, target, words", [
    (lambda lib: lib.ones(2, 3), "float64", "self.size\\(-1\\) must be divisible by 2 to view "
     "Float as Double \\(different element sizes\\), but got 3"),
    (lambda lib: lib.ones(2, 3).t(), "int16", "self.stride\\(-1\\) must be 1 to view Float "
     "as Short"),
    (lambda lib: lib.tensor(1.0), "int16", "self.dim\\(\\) cannot be 0 to view Float as "
     "Short"),
    (lambda lib: lib.ones(2, 3)[:, 1:], "float64", "self.storage_offset\\(\\) must be "
     "divisible by 2 to view Float as Double"),
    (lambda lib: lib.ones(2, 1).t(), "float64", "self.stride\\(0\\) must be divisible by 2"),
    (lambda lib: lib.ones(2, dtype=lib.complex64).conj(), "float32", "not supported for "
     "conjugate view tensors"),
])
def test_view_as_dtype_errors(make, target, words):
    assert_same_error(lambda lib: make(lib).view(getattr(lib, target)), RuntimeError, words)


def test_view_as_dtype_under_vmap():
    def run(lib):
        x = lib.arange(12.0).reshape(3, 4)
        return [lib.vmap(lambda row: row.view(lib.float64))(x).view(lib.float32),
                lib.vmap(lambda part: part.view(dtype=lib.int16), in_dims=1)(
                    lib.arange(24.0).reshape(2, 3, 4))]
    assert_same(run)
    assert_same_error(lambda lib: lib.vmap(lambda v: v.view(lib.float16))(lib.ones(3)),
                      RuntimeError, "self.dim\\(\\) cannot be 0 to view Float as Half")
    # a batch dim that is the physical last: torch's stride error
    assert_same_error(lambda lib: lib.vmap(lambda row: row.view(lib.int16), in_dims=1)(
        lib.arange(12.0).reshape(3, 4)), RuntimeError, "self.stride\\(-1\\) must be 1")
