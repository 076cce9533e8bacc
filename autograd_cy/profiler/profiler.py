"""``torch.profiler.profile`` and its schedule.

# NOTE [Profiler cycles]
A schedule maps each step number to an action: NONE (not profiling), WARMUP (ready, not
recording: torch's Kineto starts its tracer then, so that the first recorded step is not the
one that pays for starting it), RECORD, and RECORD_AND_SAVE (the cycle's last recorded step).
``step()`` moves from the previous step's action to the next one's and runs what that
transition needs: a new ``autograd.profiler.profile`` when a cycle is prepared, its
``__enter__`` when recording starts, its ``__exit__`` and ``on_trace_ready`` when a cycle ends.
The table of transitions is torch's, including the warnings for schedules that stop
recording without saving. With ``acc_events`` the cycles share one profile, so
``key_averages`` covers all of them; otherwise each cycle starts empty.
"""
import enum
import gzip
import os
import shutil
import socket
import tempfile
import time
import warnings
from functools import partial

from autograd_cy.autograd import profiler as _autograd_profiler
from autograd_cy.autograd.profiler import kineto_available  # noqa: F401  (in __all__)

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler",
           "ProfilerAction", "ProfilerActivity", "kineto_available"]


class ProfilerActivity(enum.Enum):
    """What a profile records: the CPU's ops, or a device's (CUDA...)."""
    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5

    def __repr__(self):
        return f"<ProfilerActivity.{self.name}: {self.value}>"

    def __str__(self):
        return f"ProfilerActivity.{self.name}"


class ProfilerAction(enum.Enum):
    """What the profiler does at a step (NOTE [Profiler cycles])."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities():
    """The activities a profile can record here: the CPU, and CUDA where a device is."""
    from autograd_cy import cuda
    activities = {ProfilerActivity.CPU}
    if cuda.is_available():
        activities.add(ProfilerActivity.CUDA)
    return activities


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A step -> ProfilerAction function: skip ``skip_first`` steps, then cycles of
    ``wait`` idle steps, ``warmup`` steps and ``active`` recorded steps, ``repeat`` times
    (0: until the profile ends). ``skip_first_wait`` drops the first cycle's wait."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)
    cycle = wait + warmup + active

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait            # the first cycle starts at its warmup
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return schedule_fn


_warned_clearing = False


def _record_every_step(step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False,
                              use_python_export=False):
    """An ``on_trace_ready`` that writes each cycle's trace into ``dir_name`` as
    ``<worker_name>.<ns>.pt.trace.json[.gz]`` (worker_name: ``<host>_<pid>``)."""
    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as exc:
                raise RuntimeError("Can't create directory: " + dir_name) from exc
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, file_name))
    return handler_fn


def _parse_activities(activities):
    """The set of activities, each named once (an item may be a dict activity -> names)."""
    parsed = set()
    for item in activities:
        keys = item.keys() if isinstance(item, dict) else [item]
        if not isinstance(item, (dict, ProfilerActivity)):
            raise TypeError(f"Expected ProfilerActivity or dict, got {type(item)}")
        for key in keys:
            if key in parsed:
                raise ValueError(f"Activity {key} specified more than once")
            parsed.add(key)
    return parsed


class profile:
    """Profiler context manager, as ``torch.profiler.profile``: ``activities``, a
    ``schedule`` stepped by ``step()``, ``on_trace_ready`` at the end of each recorded
    cycle, and the results of the last cycle through ``key_averages()``, ``events()`` and
    ``export_chrome_trace()`` (NOTE [Profiler cycles])."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None,
                 execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        activities = (_parse_activities(activities) if activities is not None
                      else supported_activities())
        if use_cuda is not None:
            warnings.warn("`use_cuda` is deprecated, use `activities` argument instead",
                          FutureWarning, stacklevel=2)
            if use_cuda:
                activities.add(ProfilerActivity.CUDA)
            else:
                activities.discard(ProfilerActivity.CUDA)
        if not activities:
            raise AssertionError("No valid profiler activities found")
        self.activities = activities
        self.use_device = "cuda" if ProfilerActivity.CUDA in activities else None
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.with_stack, self.with_flops, self.with_modules = with_stack, with_flops, with_modules
        self.experimental_config = experimental_config
        self.execution_trace_observer = execution_trace_observer
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.post_processing_timeout_s = post_processing_timeout_s
        self.profiler = None            # the current cycle's autograd.profiler.profile
        self.schedule = schedule or _record_every_step
        self.record_steps = schedule is not None
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        self.current_action = self._scheduled(self.step_num)
        A = ProfilerAction
        prepare, start, stop, ready = (self.prepare_trace, self.start_trace,
                                       self.stop_trace, self._trace_ready)
        self.action_map = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [prepare],
            (A.NONE, A.RECORD): [prepare, start],
            (A.NONE, A.RECORD_AND_SAVE): [prepare, start],
            (A.WARMUP, A.NONE): [partial(warnings.warn,
                                         "Incorrect schedule: WARMUP followed by NONE"),
                                 start, stop],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [start],
            (A.WARMUP, A.RECORD_AND_SAVE): [start],
            (A.RECORD, A.NONE): [partial(warnings.warn,
                                         "Incorrect schedule: RECORD followed by NONE"), stop],
            (A.RECORD, A.WARMUP): [partial(warnings.warn,
                                           "Incorrect schedule: RECORD followed by WARMUP"),
                                   stop],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [stop, ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [stop, ready, prepare],
            (A.RECORD_AND_SAVE, A.RECORD): [stop, ready, prepare, start],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [stop, ready, prepare, start],
            # at stop()
            (A.WARMUP, None): [start, stop],
            (A.RECORD, None): [stop, ready],
            (A.RECORD_AND_SAVE, None): [stop, ready],
        }

    def _scheduled(self, step):
        action = self.schedule(step)
        if action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler "
                             "and must not be returned by a user-provided schedule")
        return action

    # ------------------------------------------------------------ the cycle's profile
    def prepare_trace(self):
        """A new autograd profile for the next cycle (the same one with ``acc_events``)."""
        global _warned_clearing
        if self.profiler is not None and not self.acc_events and not _warned_clearing:
            _warned_clearing = True        # once per process, as torch's
            warnings.warn("Warning: Profiler clears events at the end of each cycle. Only "
                          "events from the current cycle will be reported. To keep events "
                          "across cycles, set acc_events=True.", stacklevel=2)
        if self.profiler is None or not self.acc_events:
            self.profiler = _autograd_profiler.profile(
                use_cpu=ProfilerActivity.CPU in self.activities, use_device=self.use_device,
                record_shapes=self.record_shapes, with_flops=self.with_flops,
                profile_memory=self.profile_memory, with_stack=self.with_stack,
                with_modules=self.with_modules, use_kineto=True,
                experimental_config=self.experimental_config, acc_events=self.acc_events,
                custom_trace_id_callback=self.custom_trace_id_callback,
                post_processing_timeout_s=self.post_processing_timeout_s)

    def start_trace(self):
        if self.execution_trace_observer:
            self.execution_trace_observer.start()
        self.profiler._start_trace()

    def stop_trace(self):
        if self.execution_trace_observer:
            self.execution_trace_observer.stop()
        self.profiler.__exit__(None, None, None)

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, previous, current):
        for action in self.action_map.get((previous, current), ()):
            action()

    # ------------------------------------------------------------ the user's side
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self):
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = _autograd_profiler.record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def stop(self):
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self):
        """The next step begins: move to the schedule's action for it."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        previous = self.current_action
        self.current_action = self._scheduled(self.step_num + 1)
        self.step_num += 1
        self._transit_action(previous, self.current_action)
        if self.record_steps:
            self.step_rec_fn = _autograd_profiler.record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def _profile(self, what):
        if self.profiler is None:
            raise AssertionError(f"Profiler must be initialized before {what}")
        return self.profiler

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """The last cycle's events averaged by name (and input shapes, stack, overload)."""
        return self._profile("getting key averages").key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def events(self):
        """The last cycle's events, not aggregated: a list of FunctionEvents."""
        return self._profile("accessing events").function_events

    def export_chrome_trace(self, path, use_python_export=False):
        """Write the last cycle's events as a Chrome trace (gzipped if ``path`` ends in
        ``.gz``)."""
        profiler = self._profile("exporting chrome trace")
        if not path.endswith(".gz"):
            return profiler.export_chrome_trace(path)
        handle, plain = tempfile.mkstemp(suffix=".json")
        os.close(handle)
        try:
            result = profiler.export_chrome_trace(plain)
            with open(plain, "rb") as source, gzip.open(path, "wb") as target:
                shutil.copyfileobj(source, target)
        finally:
            os.remove(plain)
        return result

    def export_stacks(self, path, metric="self_cpu_time_total"):
        return self._profile("exporting stacks").export_stacks(path, metric)

    def add_metadata(self, key, value):
        """Accepted for torch's API; our traces carry no metadata section."""

    def add_metadata_json(self, key, value):
        """Accepted for torch's API; our traces carry no metadata section."""

    def set_custom_trace_id_callback(self, callback):
        self.custom_trace_id_callback = callback

    def get_trace_id(self):
        return None
