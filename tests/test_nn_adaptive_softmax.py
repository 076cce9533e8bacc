"""nn.AdaptiveLogSoftmaxWithLoss against torch's: the seeded parameters (the same draws in
the same order), forward's ``_ASMoutput(output, loss)`` and its gradients (batched, a
single row, rows in one cluster only), ``log_prob`` (whose exp sums to one), ``predict``
(rows in the shortlist, in a cluster, both), the repr, the graph's nodes and the errors."""
import numpy as np
import pytest
import torch

from oracle import assert_same, assert_same_error, node_name, randn

TARGETS = {
    "mixed": [0, 9, 3, 5, 7, 1, 8, 2],
    "shortlist_only": [0, 1, 2, 1, 0, 2, 2, 1],
    "one_cluster": [5, 6, 5, 6, 6, 5, 5, 5],
}


def _model(lib, **kwargs):
    """The model with torch's seeded initial parameters (copied into ours, so that the
    device run compares the same model)."""
    settings = dict(in_features=8, n_classes=10, cutoffs=[3, 5, 7], div_value=2.0)
    settings.update(kwargs)
    torch.manual_seed(0)
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(dtype=torch.float64, **settings)
    if lib is torch:
        return theirs
    ours = lib.nn.AdaptiveLogSoftmaxWithLoss(dtype=lib.float64, **settings)
    ours.load_state_dict({k: lib.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours


@pytest.mark.parametrize("head_bias", [False, True])
@pytest.mark.parametrize("targets", TARGETS)
def test_forward_and_gradients(targets, head_bias):
    def run(lib):
        model = _model(lib, head_bias=head_bias)
        x = lib.tensor(randn(8, 8), requires_grad=True)
        result = model(x, lib.tensor(TARGETS[targets]))
        result.loss.backward()
        return (type(result).__name__, result._fields, result.output, result.loss,
                x.grad, [(name, p.grad) for name, p in model.named_parameters()],
                node_name(result.output.grad_fn), node_name(result.loss.grad_fn))
    assert_same(run, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("target", [1, 8])
def test_unbatched(target):
    def run(lib):
        model = _model(lib)
        x = lib.tensor(randn(8), requires_grad=True)
        output, loss = model(x, lib.tensor(target))
        output.backward()
        return output, loss, list(output.shape), x.grad
    assert_same(run, rtol=1e-10, atol=1e-12)


def test_log_prob_and_predict():
    def run(lib):
        model = _model(lib, cutoffs=[2, 6], div_value=2.0, head_bias=True)
        x = lib.tensor(randn(6, 8) * 3, requires_grad=True)
        log_prob = model.log_prob(x)
        log_prob[:, 4].sum().backward()
        predicted = model.predict(x)
        head = model.head(x).argmax(1)                # rows in the shortlist and in clusters
        with lib.no_grad():
            model.head.bias[2:] = 100                 # every row's head argmax in a cluster
            in_tails = model.predict(x)
            model.head.bias[:2] = 1000                # every row's in the shortlist
            in_shortlist = model.predict(x)
        return (log_prob, log_prob.exp().sum(1), x.grad, head, predicted, in_tails,
                in_shortlist, node_name(log_prob.grad_fn))
    assert_same(run, rtol=1e-10, atol=1e-12)


def test_repr_and_sizes():
    def run(lib):
        model = _model(lib, in_features=16, n_classes=20, cutoffs=(4, 10))
        return (repr(model), model.cutoffs, model.shortlist_size, model.n_clusters,
                model.head_size, [tuple(p.shape) for p in model.parameters()],
                list(model.state_dict()))
    assert_same(run)


@pytest.mark.cpu_only       # seeded: torch's CPU generator draws the weights
def test_reset_parameters_draws_as_torch():
    def run(lib):
        model = _model(lib)
        lib.manual_seed(9)
        model.reset_parameters()
        return list(model.parameters())
    assert_same(run)


ERRORS = {
    "no_cutoffs": lambda lib: _model(lib, cutoffs=[]),
    "unsorted": lambda lib: _model(lib, cutoffs=[5, 3]),
    "too_large": lambda lib: _model(lib, cutoffs=[3, 10]),
    "repeated": lambda lib: _model(lib, cutoffs=[3, 3]),
    "not_integer": lambda lib: _model(lib, cutoffs=[3, 4.5]),
    "batch": lambda lib: _model(lib)(lib.zeros(3, 8, dtype=lib.float64), lib.tensor([0, 1])),
    "input_rank": lambda lib: _model(lib)(lib.zeros(2, 2, 8, dtype=lib.float64),
                                          lib.tensor([0, 1])),
    "scalar_target": lambda lib: _model(lib)(lib.zeros(2, 8, dtype=lib.float64),
                                             lib.tensor(1)),
    "target_rank": lambda lib: _model(lib)(lib.zeros(2, 8, dtype=lib.float64),
                                           lib.zeros(2, 1, dtype=lib.int64)),
    "target_range": lambda lib: _model(lib)(lib.zeros(3, 8, dtype=lib.float64),
                                            lib.tensor([0, 12, -1])),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors(name):
    assert_same_error(ERRORS[name])


def test_output_is_the_target_log_prob():
    """forward's output is log_prob's entry at each target (the two paths agree)."""
    import autograd_cy as ag
    model = _model(ag)
    x = ag.tensor(randn(8, 8))
    target = ag.tensor(TARGETS["mixed"])
    full = model.log_prob(x).detach().cpu().numpy()
    np.testing.assert_allclose(model(x, target).output.detach().cpu().numpy(),
                               full[np.arange(8), TARGETS["mixed"]], rtol=1e-12)
