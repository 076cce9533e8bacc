"""F.ctc_loss, nn.CTCLoss and torch.ctc_loss against torch: the losses and the gradients of
the log-probabilities for padded and concatenated targets, every reduction, repeated
labels, impossible alignments (inf, and zero_infinity), another blank, unbatched input, the
nodes, and errors (NOTE [CTC's alpha-beta recursion])."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_close, assert_same_error, node_name, to_numpy

RNG = np.random.default_rng(0)
T, N, C, S = 12, 3, 5, 4
SCORES = RNG.standard_normal((T, N, C))
TARGETS = RNG.integers(1, C, (N, S))
TARGETS[0, 1] = TARGETS[0, 0]          # a repeated label: the path must pass a blank
TARGET_LENGTHS, INPUT_LENGTHS = [4, 2, 3], [12, 9, 10]


def run(lib, dtype, reduction, concatenated, scores=SCORES, input_lengths=INPUT_LENGTHS,
        **options):
    leaf = lib.tensor(scores.astype(dtype), requires_grad=True)
    targets = (np.concatenate([TARGETS[n, :TARGET_LENGTHS[n]] for n in range(N)])
               if concatenated else TARGETS)
    loss = lib.nn.functional.ctc_loss(leaf.log_softmax(2), lib.tensor(targets),
                                      lib.tensor(input_lengths), lib.tensor(TARGET_LENGTHS),
                                      reduction=reduction, **options)
    (loss.sum() if reduction == "none" else loss).backward()
    return loss, leaf.grad


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("concatenated", [False, True])
def test_ctc_loss_values_and_gradients(dtype, reduction, concatenated):
    ours = run(ag, dtype, reduction, concatenated)
    theirs = run(torch, dtype, reduction, concatenated)
    assert node_name(ours[0].grad_fn) == node_name(theirs[0].grad_fn)
    tolerance = {"rtol": 1e-5, "atol": 1e-6} if dtype == np.float32 else {}
    assert_close(ours, theirs, **tolerance)


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_impossible_alignments(zero_infinity):
    """Three steps cannot emit four labels: an infinite loss, nan gradients, or zeros for
    both with zero_infinity."""
    results = [run(lib, np.float64, "none", False, SCORES[:3], [3, 3, 3],
                   zero_infinity=zero_infinity) for lib in (ag, torch)]
    np.testing.assert_array_equal(to_numpy(results[0][0]), to_numpy(results[1][0]))
    np.testing.assert_array_equal(np.isnan(to_numpy(results[0][1])),
                                  np.isnan(to_numpy(results[1][1])))
    assert_close(np.nan_to_num(to_numpy(results[0][1])), np.nan_to_num(to_numpy(results[1][1])))


def test_unbatched_input_another_blank_module_and_torch_level():
    results = []
    for lib in (ag, torch):
        leaf = lib.tensor(SCORES[:, 0], requires_grad=True)
        loss = lib.nn.CTCLoss(blank=2)(leaf.log_softmax(1), lib.tensor([1, 3, 3]),
                                       lib.tensor(12), lib.tensor(3))
        loss.backward()
        aten = lib.ctc_loss(lib.tensor(SCORES).log_softmax(2), lib.tensor(TARGETS),
                            INPUT_LENGTHS, TARGET_LENGTHS, 0, 0, False)
        results.append((loss, leaf.grad, aten))
    assert_close(results[0], results[1])
    assert repr(ag.nn.CTCLoss()) == repr(torch.nn.CTCLoss()) == "CTCLoss()"


def test_ctc_loss_errors():
    def too_long(lib):
        return lib.nn.functional.ctc_loss(lib.tensor(SCORES).log_softmax(2), lib.tensor(TARGETS),
                                          [13, 9, 10], TARGET_LENGTHS)
    assert_same_error(too_long, RuntimeError, "Expected input_lengths to have value at most 12")

    def short_targets(lib):
        return lib.nn.functional.ctc_loss(lib.tensor(SCORES).log_softmax(2),
                                          lib.tensor(TARGETS[:, :2]), INPUT_LENGTHS,
                                          TARGET_LENGTHS)
    assert_same_error(short_targets, RuntimeError, "Expected tensor to have size at least 4")
