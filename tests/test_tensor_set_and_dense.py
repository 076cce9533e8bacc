"""Tensor.set_ and is_set_to (autograd_cy/storage_sharing.py), to_dense and record_stream
(tensor_attributes.py) and the Tensor.as_strided_scatter method, against torch's: shared
memory, metadata, versions, the autograd rules and errors."""
import warnings

import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, both, check_op, node_name, randn


def test_set_shares_memory_shape_and_bumps_the_version():
    def run(lib):
        a, b = lib.arange(6.0).reshape(2, 3), lib.zeros(2)
        version = b._version
        returned = b.set_(a)
        a.add_(1)          # seen through b
        return (returned is b, b.tolist(), tuple(b.shape), b.stride(), b._version - version,
                b.is_set_to(a), a.is_set_to(b), b.data_ptr() == a.data_ptr())
    assert_same(run)


def test_set_with_a_window_and_empty():
    def run(lib):
        a = lib.arange(6.0)
        c = lib.zeros(3).set_(a, 1, (2, 2), (1, 2))
        d = lib.zeros(3).set_(a, 2, (3,))
        e = lib.zeros(3).set_(a[1:], 1, (2,), (2,))
        f = lib.zeros(3)
        f.set_()
        return c.tolist(), d.tolist(), e.tolist(), tuple(f.shape), f._version
    assert_same(run)


def test_set_under_no_grad_keeps_requires_grad():
    def run(lib):
        leaf = lib.zeros(2, requires_grad=True)
        with lib.no_grad():
            leaf.set_(lib.arange(3.0))
        return leaf.requires_grad, leaf.is_leaf, leaf.tolist()
    assert_same(run)


def test_set_records_a_node_without_a_derivative():
    def run(lib):
        n = lib.zeros(2, requires_grad=True) * 1
        n.set_(lib.arange(6.0))
        return n.sum().backward()
    assert_same_error(run, RuntimeError, exact=True)

    def source_requires_grad(lib):
        b = lib.zeros(2)
        b.set_(lib.arange(4.0, requires_grad=True))
        return b.requires_grad, node_name(b.grad_fn), b.tolist()
    assert_same(source_requires_grad)


SET_ERRORS = {
    "leaf_requires_grad": lambda lib: lib.zeros(2, requires_grad=True).set_(lib.zeros(3)),
    "dtype": lambda lib: lib.zeros(2).set_(lib.zeros(2, dtype=lib.int64)),
    "dtype_double": lambda lib: lib.zeros(2, dtype=lib.float64).set_(lib.zeros(2)),
}


@pytest.mark.parametrize("case", SET_ERRORS)
def test_set_errors(case):
    assert_same_error(SET_ERRORS[case], RuntimeError, exact=True)


def test_set_argument_errors():
    assert_same_error(lambda lib: lib.zeros(2).set_(3), TypeError,
                      r"^set_\(\) received an invalid combination of arguments - got \(int\)")
    assert_same_error(lambda lib: lib.zeros(2).is_set_to(3), TypeError, exact=True)


def test_set_on_an_inference_tensor_outside_inference_mode():
    def run(lib):
        with lib.inference_mode():
            t = lib.zeros(2)
        t.set_(lib.zeros(3))
    assert_same_error(run, RuntimeError, "Inplace update to inference tensor")


def test_is_set_to():
    def run(lib):
        a = lib.arange(6.0)
        return (lib.zeros(2).is_set_to(lib.zeros(2)), a.is_set_to(a), a.is_set_to(a[:]),
                a[1:].is_set_to(a[1:]), a.view(2, 3).is_set_to(a), a[1:].is_set_to(a[2:]),
                lib.empty(0).is_set_to(lib.empty(0)))
    assert_same(run)


def test_to_dense_is_self():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        z = x.to_dense(lib.float64)
        return (x.to_dense() is x, y.to_dense() is y, x.to_dense(lib.float32) is x,
                x.to_dense(masked_grad=False) is x, str(z.dtype).split(".")[1],
                node_name(z.grad_fn))
    assert_same(run)
    check_op(lambda lib, x: x.to_dense(lib.float32), randn(2, 3))


def test_to_dense_argument_errors():
    assert_same_error(lambda lib: lib.ones(1).to_dense(1), TypeError, "must be torch.dtype")
    assert_same_error(lambda lib: lib.ones(1).to_dense(masked_grad=3), TypeError, exact=True)


@pytest.mark.cpu_only
def test_record_stream_on_the_cpu():
    assert_same_error(lambda lib: lib.ones(2).record_stream(None), RuntimeError, exact=True)
    assert_same_error(lambda lib: lib.ones(2).record_stream(1), RuntimeError, exact=True)


def test_record_stream_on_the_emulated_cuda_device():
    t = ag.ones(2, device="cuda")
    stream = ag.cuda.Stream()
    assert t.record_stream(stream) is None
    assert t._recorded_streams == [stream]
    with pytest.raises(RuntimeError, match="unknown parameter type"):
        t.record_stream(None)


def test_as_strided_scatter_method():
    def run(lib):
        out = lib.arange(6.0).as_strided_scatter(lib.ones(2), (2,), (2,), 1)
        return out.tolist()
    assert_same(run)
    ours, theirs = both(lambda lib: lib.Tensor.as_strided_scatter.__name__)
    assert ours == theirs
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_op(lambda lib, x, s: x.detach().as_strided_scatter(s, (2,), (3,)),
                 randn(6), randn(2), requires_grad=(False, True))


def test_set_on_views():
    assert_same_error(lambda lib: lib.zeros(3, requires_grad=True)[:2].set_(lib.arange(4.0)),
                      RuntimeError, exact=True)

    def view_of_a_non_leaf(lib):
        base = lib.zeros(3, requires_grad=True) * 1
        view = base[:2]
        view.set_(lib.arange(4.0))
        return node_name(view.grad_fn), node_name(base.grad_fn), tuple(view.shape)
    assert_same(view_of_a_non_leaf)
