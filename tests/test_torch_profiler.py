"""torch.profiler against torch's: the schedule's actions, when on_trace_ready runs and what
each cycle recorded (its ProfilerStep#N ranges), activities, warnings and errors."""
import gzip
import json
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same_error

pytestmark = pytest.mark.cpu_only


@pytest.mark.parametrize("kwargs", [
    dict(wait=1, warmup=1, active=2),
    dict(wait=0, warmup=2, active=1, repeat=2),
    dict(wait=2, warmup=1, active=3, repeat=1, skip_first=3),
    dict(wait=5, warmup=1, active=2, skip_first=2, skip_first_wait=1),
])
def test_schedule_actions(kwargs):
    ours, theirs = ag.profiler.schedule(**kwargs), torch.profiler.schedule(**kwargs)
    assert [ours(step).name for step in range(30)] == [theirs(step).name for step in range(30)]


def test_schedule_errors_and_warning():
    assert_same_error(lambda lib: lib.profiler.schedule(wait=0, warmup=1, active=0),
                      AssertionError, "Invalid profiler schedule arguments")
    for lib in (torch, ag):
        with pytest.warns(UserWarning, match="won't be using warmup"):
            lib.profiler.schedule(wait=1, warmup=0, active=1)
    assert_same_error(lambda lib: lib.profiler.schedule(wait=0, warmup=1, active=1)(-1),
                      AssertionError, "Step must be non-negative")


def _cycles(lib, steps, schedule=None, acc_events=False):
    """Per on_trace_ready call: the step it ran after and the ProfilerStep ranges recorded."""
    seen = []
    x = lib.tensor(np.ones(4, np.float32), requires_grad=True)

    def ready(prof):
        names = [e.name for e in prof.events()]
        seen.append((prof.step_num, names.count("ProfilerStep*"), names.count("MulBackward0")))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU],
                                  schedule=schedule, on_trace_ready=ready,
                                  acc_events=acc_events) as prof:
            for _ in range(steps):
                (x * 2).sum().backward()
                prof.step()
    return seen


@pytest.mark.parametrize("kwargs, steps", [
    (dict(wait=1, warmup=1, active=2), 9),
    (dict(wait=1, warmup=1, active=2, repeat=1), 9),
    (dict(wait=0, warmup=1, active=1, repeat=2, skip_first=1), 7),
])
@pytest.mark.parametrize("acc_events", [False, True])
def test_cycles_as_torch(kwargs, steps, acc_events):
    ours = _cycles(ag, steps, ag.profiler.schedule(**kwargs), acc_events)
    theirs = _cycles(torch, steps, torch.profiler.schedule(**kwargs), acc_events)
    assert ours == theirs and ours


def test_without_a_schedule_records_everything_once():
    assert _cycles(ag, 3) == _cycles(torch, 3) == [(3, 0, 3)]


def test_key_averages_and_events():
    x = ag.ones(3, requires_grad=True)
    with ag.profiler.profile(record_shapes=True) as prof:
        with ag.profiler.record_function("my_block"):
            (x * 2).sum().backward()
    keys = [row.key for row in prof.key_averages()]
    assert keys[:3] == ["my_block", "aten::mul", "aten::sum"]
    assert any(e.name == "MulBackward0" for e in prof.events())
    assert "Self CPU" in prof.key_averages().table(sort_by="cpu_time_total")


def test_trace_handler_writes_gzip_trace(tmp_path):
    handler = ag.profiler.tensorboard_trace_handler(str(tmp_path / "logs"), worker_name="w",
                                                    use_gzip=True)
    x = ag.ones(3, requires_grad=True)
    with ag.profiler.profile(schedule=ag.profiler.schedule(wait=0, warmup=1, active=1),
                             on_trace_ready=handler) as prof:
        for _ in range(2):
            (x * 2).sum().backward()
            prof.step()
    files = sorted((tmp_path / "logs").iterdir())
    assert len(files) == 1 and files[0].name.startswith("w.")
    assert files[0].name.endswith(".pt.trace.json.gz")
    trace = json.loads(gzip.open(files[0]).read())
    assert any(event.get("name") == "aten::mul" for event in trace["traceEvents"])


def test_activities():
    activity = ag.profiler.ProfilerActivity
    assert ag.profiler.supported_activities() == (
        {activity.CPU, activity.CUDA} if ag.cuda.is_available() else {activity.CPU})
    assert repr(ag.profiler.ProfilerActivity.CUDA) == repr(torch.profiler.ProfilerActivity.CUDA)
    assert str(ag.profiler.ProfilerActivity.CPU) == str(torch.profiler.ProfilerActivity.CPU)
    assert {a.name: a.value for a in ag.profiler.ProfilerActivity} == {
        name: a.value for name, a in torch.profiler.ProfilerActivity.__members__.items()}
    cpu = [ag.profiler.ProfilerActivity.CPU]
    with pytest.raises(ValueError, match="specified more than once"):
        ag.profiler.profile(activities=cpu * 2)
    with pytest.raises(ValueError, match="specified more than once"):
        torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU] * 2)
    for lib in (torch, ag):
        with pytest.warns(FutureWarning, match="use_cuda"):
            lib.profiler.profile(use_cuda=False)
    assert set(ag.profiler.__all__) <= set(torch.profiler.__all__)


def test_a_schedule_must_not_return_device_stopped():
    assert_same_error(
        lambda lib: lib.profiler.profile(
            schedule=lambda step: lib.profiler.ProfilerAction.DEVICE_STOPPED),
        ValueError, "must not be returned by a user-provided schedule")
