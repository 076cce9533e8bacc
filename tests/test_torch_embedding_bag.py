"""torch.embedding_bag, ATen's form (autograd_cy/nn/embedding_bag.py), against torch's: the
output, its gradient and node, and the auxiliary outputs offset2bag, bag_size and
max_indices (NOTE [torch.embedding_bag's auxiliary outputs]) for every mode, with
padding_idx, per_sample_weights, include_last_offset, empty bags, float32 and float64
weights, with and without a weight that requires grad."""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error, check_op, node_name, randn

INDICES = [0, 2, 4, 1, 1, 3]
OFFSETS = [0, 2, 2, 5]
# with include_last_offset the last offset ends the indices: where it does not, torch's
# float32 fast path sums up to it but divides by the count to the end (its float64 path,
# and ours, read to the end)
OFFSETS_WITH_LAST = [0, 2, 2, 6]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("options", [
    {"mode": 0}, {"mode": 1}, {"mode": 2}, {"mode": 0, "padding_idx": 1},
    {"mode": 1, "padding_idx": -4}, {"mode": 2, "padding_idx": 1},
    {"mode": 0, "per_sample_weights": True}, {"mode": 1, "include_last_offset": True},
    {"mode": 2, "include_last_offset": True, "padding_idx": 2},
    {"mode": 0, "per_sample_weights": True, "padding_idx": 3},
])
def test_outputs(dtype, requires_grad, options):
    def run(lib):
        kind = getattr(lib, dtype)
        weight = lib.tensor(randn(5, 3), dtype=kind, requires_grad=requires_grad)
        samples = None
        if options.get("per_sample_weights"):
            samples = lib.tensor(randn(6, seed=4), dtype=kind)
        # torch's binding takes them by position only
        last = options.get("include_last_offset", False)
        out = lib.embedding_bag(weight, lib.tensor(INDICES),
                                lib.tensor(OFFSETS_WITH_LAST if last else OFFSETS), False,
                                options["mode"], False, samples, last,
                                options.get("padding_idx"))
        return [out[0], out[1], out[2], out[3], node_name(out[0].grad_fn),
                [str(t.dtype).split(".")[-1] for t in out]]
    assert_same(run, rtol=1e-5, atol=1e-6)


def test_int32_indices_and_gradient():
    assert_same(lambda lib: [t.dtype == lib.int32 for t in lib.embedding_bag(
        lib.ones(4, 2), lib.tensor([0, 3], dtype=lib.int32),
        lib.tensor([0, 1], dtype=lib.int32), False, 1)[1:]])
    check_op(lambda lib, w: lib.embedding_bag(w, lib.tensor(INDICES), lib.tensor(OFFSETS),
                                              False, 1)[0], randn(5, 3))
    check_op(lambda lib, w: lib.embedding_bag(w, lib.tensor(INDICES), lib.tensor(OFFSETS),
                                              False, 2, False, None, False, 1)[0],
             np.arange(15.0).reshape(5, 3) % 7, double=False)


def test_errors():
    assert_same_error(lambda lib: lib.embedding_bag(lib.ones(4, 2), lib.tensor([0, 5]),
                                                    lib.tensor([0]), False, 0), RuntimeError)
