"""``optim.swa_utils`` against torch's: ``AveragedModel`` (equal weights, EMA through
``avg_fn`` and ``multi_avg_fn``, with and without ``use_buffers``), ``update_bn``'s
statistics, ``SWALR``'s rates per epoch and its ``state_dict``, and the errors. Also
``lr_scheduler.EPOCH_DEPRECATION_WARNING``, the public text of the ``step(epoch)`` warning."""
import pickle
import warnings

import numpy as np
import pytest

from tests.oracle import LIBS, assert_same, assert_same_error


def _net(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 2))


def _load_values(lib, model, step):
    """Give ``model`` deterministic parameter and buffer values for ``step``."""
    with lib.no_grad():
        for i, t in enumerate(list(model.parameters()) + list(model.buffers())):
            if t.dtype == lib.long:
                t.fill_(3 * step + i)
            else:
                n = t.numel()
                values = np.sin(np.arange(n) * (i + 1.0) + step).reshape(tuple(t.shape))
                t.copy_(lib.tensor(values, dtype=t.dtype))


def _averaged(lib, make_fns, use_buffers=False, steps=4):
    swa_utils = lib.optim.swa_utils
    model = _net(lib)
    avg = swa_utils.AveragedModel(model, use_buffers=use_buffers, **make_fns(swa_utils))
    for step in range(steps):
        _load_values(lib, model, step)
        avg.update_parameters(model)
    state = avg.state_dict()
    return {k: v.detach().tolist() for k, v in state.items()}


@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("fns", [
    lambda s: {},
    lambda s: {"avg_fn": s.get_ema_avg_fn(0.7)},
    lambda s: {"multi_avg_fn": s.get_ema_multi_avg_fn(0.7)},
    lambda s: {"multi_avg_fn": s.get_swa_multi_avg_fn()},
    lambda s: {"avg_fn": s.get_swa_avg_fn()},
], ids=["swa", "ema", "ema_multi", "swa_multi", "swa_fn"])
def test_averaged_model_values(request, fns, use_buffers):
    if use_buffers and "swa_multi" in request.node.name:
        # the integer buffer (num_batches_tracked) goes through addcdiv_, which refuses it
        assert_same_error(lambda lib: _averaged(lib, fns, use_buffers), RuntimeError,
                          "Integer division with addcdiv is no longer supported")
        return
    assert_same(lambda lib: _averaged(lib, fns, use_buffers), rtol=1e-6, atol=1e-7)


def test_averaged_model_forward_and_count():
    def run(lib):
        model = _net(lib).eval()
        _load_values(lib, model, 0)
        avg = lib.optim.swa_utils.AveragedModel(model)
        counts = [avg.n_averaged.item(), str(avg.n_averaged.dtype).split(".")[-1]]
        avg.update_parameters(model)
        avg.update_parameters(model)
        counts.append(avg.n_averaged.item())
        x = lib.tensor(np.linspace(-1, 1, 6).reshape(2, 3), dtype=lib.float32)
        return counts, avg.eval()(x).detach().tolist(), sorted(avg.state_dict())
    assert_same(run)


def test_update_bn():
    def run(lib):
        model = _net(lib)
        _load_values(lib, model, 0)
        model.eval()
        data = [lib.tensor(np.cos(np.arange(15.0) * (k + 1)).reshape(5, 3), dtype=lib.float32)
                for k in range(3)]
        loader = [(x, 0) for x in data[:2]] + [data[2]]
        lib.optim.swa_utils.update_bn(loader, model)
        bn = model[1]
        return (bn.running_mean.tolist(), bn.running_var.tolist(),
                bn.num_batches_tracked.item(), bn.momentum, model.training)
    assert_same(run, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kwargs", [
    {"swa_lr": 0.05},
    {"swa_lr": [0.05, 1.0], "anneal_epochs": 3, "anneal_strategy": "linear"},
    {"swa_lr": 0.2, "anneal_epochs": 0},
])
def test_swalr_rates(kwargs):
    def run(lib):
        w, b = lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)
        opt = lib.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1)
        sched = lib.optim.swa_utils.SWALR(opt, **kwargs)
        lrs = [sched.get_last_lr()]
        for _ in range(12):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr())
        return lrs, [g["swa_lr"] for g in opt.param_groups]
    assert_same(run, rtol=1e-12, atol=1e-15)


def test_swalr_state_dict_round_trip():
    def run(lib):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
        sched = lib.optim.swa_utils.SWALR(opt, swa_lr=0.01, anneal_strategy="linear")
        state = sched.state_dict()
        other = lib.optim.swa_utils.SWALR(opt, swa_lr=0.5)
        other.load_state_dict(pickle.loads(pickle.dumps(state)))
        opt.step()
        other.step()
        return sorted(state), other.anneal_func(0.25), other.get_last_lr()
    assert_same(run)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.optim.swa_utils.SWALR(
        lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1), 0.1, anneal_strategy="x"),
    lambda lib: lib.optim.swa_utils.SWALR(
        lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1), 0.1, anneal_epochs=-1),
    lambda lib: lib.optim.swa_utils.SWALR(
        lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1), [0.1, 0.2]),
    lambda lib: lib.optim.swa_utils.get_ema_multi_avg_fn(1.5),
    lambda lib: lib.optim.swa_utils.get_ema_avg_fn(-0.1),
    lambda lib: lib.optim.swa_utils.AveragedModel(
        lib.nn.Linear(1, 1), avg_fn=lambda *a: a[0], multi_avg_fn=lambda *a: None),
])
def test_errors(fn):
    assert_same_error(fn, exact=True)


def test_epoch_deprecation_warning_text():
    texts = []
    for lib in LIBS:
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        opt.step()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step(2)
        assert [w.message.args for w in caught] == [
            (lib.optim.lr_scheduler.EPOCH_DEPRECATION_WARNING,)]
        texts.append(lib.optim.lr_scheduler.EPOCH_DEPRECATION_WARNING)
    assert texts[0] == texts[1]
    assert "EPOCH_DEPRECATION_WARNING" not in LIBS[0].optim.lr_scheduler.__all__
