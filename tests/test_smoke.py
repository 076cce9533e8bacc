"""A first end-to-end check of the core: forward, backward and double backward vs torch."""
import numpy as np
import pytest

from oracle import check_op, randn


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mlp_layer(dtype):
    check_op(lambda lib, x, w, b: (x @ w + b).tanh().exp().mean(),
             randn(4, 3), randn(3, 5), randn(5), dtype=dtype)


def test_broadcast_mul_div_pow():
    check_op(lambda lib, a, b: (a * b / (b * b + 1)) ** 2, randn(2, 3), randn(3))
