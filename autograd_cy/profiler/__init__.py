"""``torch.profiler``: the profiler with activities, a step schedule and trace handlers.

``profile`` drives ``autograd.profiler.profile`` (which records the ops and the backward
nodes) through the cycles a ``schedule`` gives: steps to wait, to warm up, and to record,
after which ``on_trace_ready`` receives the profiler. Without a schedule it records from
``__enter__`` to ``__exit__``. There is no Kineto here: activities name what to record (the
CPU; CUDA where a device is available) and traces are written by our own exporter.

>>> import autograd_cy
>>> from autograd_cy.profiler import profile, ProfilerActivity
>>> x = autograd_cy.ones(3, requires_grad=True)
>>> with profile(activities=[ProfilerActivity.CPU]) as prof:
...     (x * 2).sum().backward()
>>> [row.key for row in prof.key_averages()][:2]
['aten::mul', 'aten::sum']
"""
from autograd_cy.autograd.profiler import record_function
from autograd_cy.profiler.profiler import (
    ProfilerAction, ProfilerActivity, kineto_available, profile, schedule,
    supported_activities, tensorboard_trace_handler,
)

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler",
           "ProfilerAction", "ProfilerActivity", "kineto_available", "record_function"]
