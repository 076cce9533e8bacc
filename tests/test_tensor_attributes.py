"""Tensor attributes and small methods (autograd_cy/tensor_attributes.py) against torch's:
itemsize, nbytes, is_cpu, get_device, storage_offset, ndimension, layout, is_sparse,
positive, ravel, the casts short/char/byte/cfloat/cdouble, H, mH, adjoint (values, nodes,
gradients, errors)."""
import numpy as np
import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_op, node_name, randn, same_warning


def test_metadata():
    def run(lib):
        x = lib.ones(3, 4)
        return [x.itemsize, x.nbytes, x[:, :2].nbytes, lib.ones(2, 3).expand(4, 2, 3).nbytes,
                lib.ones(2, dtype=lib.float64).itemsize, x.is_sparse, x.ndimension(),
                lib.ones(()).ndimension(), str(x.layout).split(".")[-1], x.layout is lib.strided]
    assert_same(run)


@pytest.mark.cpu_only
def test_device_questions():
    assert_same(lambda lib: [lib.ones(2).is_cpu, lib.ones(2).get_device()])


@pytest.mark.cpu_only
def test_storage_offset():
    def run(lib):
        x = lib.arange(12.0).reshape(3, 4)
        return [x.storage_offset(), x[1:].storage_offset(), x.t().storage_offset(),
                x[1, 2].storage_offset(), x[:, 1].storage_offset(), x[2][1:].storage_offset(),
                x.clone().storage_offset()]
    assert_same(run)


CASES = {
    "positive": lambda lib, x: x.positive() * 2,
    "torch_positive": lambda lib, x: lib.positive(x) + 1,
    "ravel": lambda lib, x: x.ravel(),
    "ravel_transposed": lambda lib, x: lib.ravel(x.t()),
    "H": lambda lib, x: x.H,
    "mH": lambda lib, x: x.mH,
    "adjoint": lambda lib, x: lib.adjoint(x),
    "cdouble": lambda lib, x: x.cdouble() * (1 + 2j),
    "mH_batched": lambda lib, x: x.reshape(2, 1, 6).mH,
}


@pytest.mark.parametrize("name", CASES)
def test_values_and_gradients(name):
    check_op(CASES[name], randn(3, 4))


@pytest.mark.parametrize("name", ["H", "mH", "adjoint"])
def test_complex_conjugate_transposes(name):
    x = randn(3, 4) + 1j * randn(3, 4, seed=5)
    check_op(CASES[name], x)
    assert_same(lambda lib: [node_name(CASES[name](lib, lib.tensor(
        x, requires_grad=True)).grad_fn), CASES[name](lib, lib.tensor(x)).is_conj()])


def test_nodes_and_casts():
    def run(lib):
        x = lib.tensor(randn(3, 4), requires_grad=True)
        casts = [x.short(), x.char(), lib.tensor([-1.5, 300.0]).byte(), x.cfloat(),
                 x.double().cdouble()]
        return [node_name(x.ravel().grad_fn), node_name(x.t().ravel().grad_fn),
                node_name(x.H.grad_fn), node_name(x.cfloat().grad_fn), x.positive() is x,
                [str(c.dtype).split(".")[-1] for c in casts], casts[0], casts[1], casts[2],
                x.cfloat().real]
    assert_same(run)


def test_zero_dim_H_warns():
    same_warning(lambda lib: lib.ones(()).H, UserWarning, "deprecated on 0-D tensors")


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(3).H,
    lambda lib: lib.ones(2, 3, 4).H,
    lambda lib: lib.ones(3).mH,
    lambda lib: lib.ones(3).adjoint(),
    lambda lib: lib.tensor([True]).positive(),
])
def test_errors(fn):
    assert_same_error(fn, exact=True)


def test_strided_is_a_layout():
    assert isinstance(ag.strided, ag.layout)
    assert repr(ag.strided) == "autograd_cy.strided"
    assert np.shape(ag.ones(2).ravel()) == (2,)
