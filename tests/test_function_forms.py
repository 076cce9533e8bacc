"""torch.detach, torch.detach_, torch.get_device, torch.put (autograd_cy/function_forms.py)
and torch.typename (autograd_cy/tensor_type.py) against torch's."""
import pytest

from oracle import assert_same, assert_same_error, check_op, randn


def test_detach_and_detach_():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        d = lib.detach(y)
        lib.detach_(y)
        return [d.requires_grad, d.grad_fn is None, d is y, y.requires_grad, y.is_leaf,
                y.grad_fn is None, lib.detach_(y) is y, d.data_ptr() == y.data_ptr()]
    assert_same(run)
    assert_same_error(lambda lib: lib.detach_((lib.ones(2, requires_grad=True) * 2).view(2)),
                      RuntimeError, "Can't detach views in-place")


@pytest.mark.cpu_only          # get_device of a CUDA tensor is its index
def test_get_device_and_put():
    assert_same(lambda lib: [lib.get_device(lib.zeros(2)),
                             lib.put(lib.zeros(3), lib.tensor([1, -1]), lib.tensor([2.0, 3.0])),
                             lib.put(lib.ones(2, 2), index=lib.tensor([1, 1]),
                                     source=lib.tensor([2.0, 3.0]), accumulate=True)])
    check_op(lambda lib, x, s: lib.put(x, lib.tensor([0, 2]), s, True), randn(2, 2), randn(2))


@pytest.mark.parametrize("name", ["detach", "detach_", "get_device"])
def test_a_non_tensor_is_refused(name):
    assert_same_error(lambda lib: getattr(lib, name)(3), TypeError, exact=True)


def test_put_refuses_a_non_tensor():
    assert_same_error(lambda lib: lib.put([1.0], lib.tensor([0]), lib.tensor([1.0])),
                      TypeError, exact=True)


@pytest.mark.cpu_only          # a CUDA tensor's type string names cuda
def test_typename():
    class Local:
        pass

    def run(lib):
        return [lib.typename(lib.zeros(2)), lib.typename(lib.zeros(2, dtype=lib.int64)),
                lib.typename(lib.zeros(2, dtype=lib.float64)), lib.typename(3),
                lib.typename(len), lib.typename(Local), lib.typename(Local())]
    assert_same(run)
