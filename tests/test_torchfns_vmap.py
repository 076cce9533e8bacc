"""The torch-level functions added with functional_aliases.py, grids.py, combinatorics.py,
integration.py, nn/bilinear.py and block_diag, gradient under vmap, against torch.vmap:
values and gradients through the batched ops they are composed of; isin and histogram once
per example."""
import numpy as np
import pytest

from oracle import assert_same, check_op, randn

CASES = {
    "conv1d": lambda lib, t: lib.conv1d(t.unsqueeze(0), lib.ones(2, 4, 3, dtype=t.dtype)),
    "max_pool1d": lambda lib, t: lib.max_pool1d(t, 2),
    "max_pool1d_with_indices": lambda lib, t: lib.max_pool1d_with_indices(t, 2)[0],
    "adaptive_max_pool1d": lambda lib, t: lib.adaptive_max_pool1d(t, 2)[0],
    "layer_norm": lambda lib, t: lib.layer_norm(t, [5]),
    "group_norm": lambda lib, t: lib.group_norm(t.unsqueeze(0), 2),
    "embedding": lambda lib, t: lib.embedding(t, lib.tensor([0, 2, 2])),
    "constant_pad_nd": lambda lib, t: lib.constant_pad_nd(t, [1, 2], 0.5),
    "bilinear": lambda lib, t: lib.bilinear(t, t, lib.ones(2, 5, 5, dtype=t.dtype)),
    "meshgrid": lambda lib, t: lib.meshgrid(t[0], t[1], indexing="xy")[1],
    "cartesian_prod": lambda lib, t: lib.cartesian_prod(t[0], t[1]),
    "combinations": lambda lib, t: lib.combinations(t[0], 3),
    "block_diag": lambda lib, t: lib.block_diag(t, t[0], lib.tensor(2.0, dtype=t.dtype)),
    "trapezoid": lambda lib, t: lib.trapezoid(t, dx=0.5),
    "trapezoid_x": lambda lib, t: lib.trapezoid(t, t[0].detach().exp(), dim=1),
    "gradient": lambda lib, t: lib.gradient(t, spacing=2.0, edge_order=2)[1],
}


@pytest.mark.filterwarnings("ignore:There is a performance drop")  # torch's bilinear
@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_matches_torch(name):
    fn = CASES[name]
    check_op(lambda lib, x: lib.vmap(lambda t: fn(lib, t))(x), randn(3, 4, 5), double=False)


INTEGERS = np.random.default_rng(0).integers(0, 5, (3, 4))


@pytest.mark.filterwarnings("ignore:There is a performance drop")
@pytest.mark.parametrize("call", [
    lambda lib, t: lib.isin(t, lib.tensor([1, 2])),
    lambda lib, t: lib.isin(lib.tensor([1, 2, 7]), t, invert=True),
    lambda lib, t: tuple(lib.histogram(t.float(), 2)),
    lambda lib, t: lib.histogram(t.double(), 3, weight=t.double(), density=True)[0],
])
def test_host_functions_run_per_example(call):
    """isin and histogram have no batching rule in torch either: once per example."""
    assert_same(lambda lib: lib.vmap(lambda r: call(lib, r))(lib.tensor(INTEGERS)))
