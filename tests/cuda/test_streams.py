"""Streams and events (``autograd_cy.cuda.Stream``, ``Event``, ``stream(s)``) and the stream
semantics of backward (the core's NOTE [Streams of backward]), on the emulated device.

Every emulated launch finishes before the call returns, so nothing can race here; what the
device shows, and what these tests check, is the stream each launch was issued to (the
seam's ``launch_log``) and the events each stream waited on (``waited``): the same calls a
GPU receives. Gradients are checked against torch on the CPU.
"""
import numpy as np
import pytest
import torch

import autograd_cy as ag

cuda = ag.cuda


@pytest.fixture
def seam():
    seam = cuda.devices.get(0).seam
    seam.launch_log.clear()
    return seam


def launches(seam):
    """(kernel, stream number) of the launches since the fixture cleared the log."""
    return list(seam.launch_log)


def waits(stream):
    """(stream number, launches it had seen) of each event ``stream`` waited on."""
    return [(event.stream.number, event.launches) for event in stream._raw.waited]


def leaf(values):
    return ag.tensor(values, device="cuda", requires_grad=True)


def test_the_stream_context_makes_a_stream_current_and_restores_the_previous_one():
    default = cuda.current_stream()
    assert default == cuda.default_stream() and default.cuda_stream == 0
    outer, inner = cuda.Stream(), cuda.Stream()
    assert outer != inner and outer.device == ag.device("cuda", 0)
    with cuda.stream(outer) as entered:
        assert entered is outer and cuda.current_stream() == outer
        with inner:
            assert cuda.current_stream() == inner
        assert cuda.current_stream() == outer
        with cuda.stream(None):             # stream(None) changes nothing, as in torch
            assert cuda.current_stream() == outer
    assert cuda.current_stream() == default


def test_launches_go_to_the_current_stream(seam):
    side = cuda.Stream()
    x = ag.ones(3, device="cuda")
    with cuda.stream(side):
        x * 2
    x * 3
    assert [stream for _, stream in launches(seam)] == [side.cuda_stream, 0]


def test_events_order_streams_and_time_them():
    side = cuda.Stream()
    event = side.record_event()
    cuda.current_stream().wait_event(event)
    assert event.query() and side.query()
    assert cuda.default_stream()._raw.waited[-1] is event._raw
    cuda.Event().wait()                     # never recorded: waiting is a no-op
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        event.elapsed_time(side.record_event())
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    start.record()
    ag.ones(8, device="cuda").exp()
    end.record()
    end.synchronize()
    # what elapsed_time measures between: itself none, and the same span either way round
    assert end.query() and start.elapsed_time(start) == 0.0
    assert end.elapsed_time(start) == -start.elapsed_time(end)
    with pytest.raises(RuntimeError, match="must be recorded"):
        start.elapsed_time(cuda.Event(enable_timing=True))


def test_backward_ops_run_on_the_streams_of_their_forward_ops(seam):
    side = cuda.Stream()
    x = leaf([0.5, -1.0, 2.0])
    with cuda.stream(side):
        y = (x * 2).exp().sum()
    default = cuda.default_stream()
    waited_before = len(default._raw.waited)
    seam.launch_log.clear()
    y.backward()
    log = launches(seam)
    # the root gradient is made on the caller's stream; every formula runs on `side`
    assert log[0] == ("fill<float>", 0)
    assert {stream for _, stream in log[1:]} == {side.cuda_stream}
    # the side stream waited for the root gradient, and the caller's stream for the result
    assert waits(side) == [(0, default._raw.launches)]
    assert waits(default)[waited_before:] == [(side.cuda_stream, side._raw.launches)]
    t = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    (t * 2).exp().sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-6)


def test_gradients_that_cross_streams_wait_for_an_event_and_sum_on_the_consumer(seam):
    first, second = cuda.Stream(), cuda.Stream()
    x = leaf([1.0, 2.0, 3.0])
    with cuda.stream(first):
        a = x * 2            # x's AccumulateGrad is made here: it runs on `first`
    with cuda.stream(second):
        b = x * 3
    y = (a + b).sum()        # on the default stream
    default = cuda.default_stream()
    seam.launch_log.clear()
    y.backward()
    # each branch waits for the default stream, which made its gradient
    assert waits(first)[0][0] == 0 and waits(second)[0][0] == 0
    # the gradient made on `second` reaches AccumulateGrad(x), which runs on `first`:
    # `first` waits for `second`, and the two gradients are summed on `first`
    assert (second.cuda_stream, second._raw.launches) in waits(first)
    adds = [stream for kernel, stream in launches(seam) if "Add" in kernel]
    assert adds == [first.cuda_stream]
    # the caller's stream waits for the stream that wrote x.grad
    assert waits(default)[-1] == (first.cuda_stream, first._raw.launches)
    np.testing.assert_allclose(x.grad.cpu().numpy(), [5.0, 5.0, 5.0])


def test_the_callers_current_stream_waits_for_the_results(seam):
    side, caller = cuda.Stream(), cuda.Stream()
    x = leaf([1.0, 2.0])
    with cuda.stream(side):
        y = (x * x).sum()
    with cuda.stream(caller):
        y.backward()
        assert waits(caller) == [(side.cuda_stream, side._raw.launches)]
        # grad()'s capture at x counts as a result, read on AccumulateGrad(x)'s stream
        (gx,) = ag.autograd.grad((x * 4).sum(), x)
        assert waits(caller)[1:] == [(side.cuda_stream, side._raw.launches)]
    assert waits(side)[-1][0] == caller.cuda_stream  # x*4's gradient was made on `caller`
    np.testing.assert_allclose(x.grad.cpu().numpy(), [2.0, 4.0])
    np.testing.assert_allclose(gx.cpu().numpy(), [4.0, 4.0])


def test_several_roots_count_as_made_on_the_default_stream(seam):
    side = cuda.Stream()
    x = leaf([1.0, 2.0])
    with cuda.stream(side):
        a, b = (x * 2).sum(), (x * 3).sum()
    ag.autograd.backward([a, b])
    # a GraphRoot has no stream: its consumers wait for the device's default stream
    assert all(stream == 0 for stream, _ in waits(side))
    np.testing.assert_allclose(x.grad.cpu().numpy(), [5.0, 5.0])


def test_a_cpu_backward_records_no_stream_work(seam):
    cuda.Stream()
    before = [len(s.waited) for s in seam._streams]
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    assert [len(s.waited) for s in seam._streams] == before and not launches(seam)
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])
