"""autograd.profiler against torch.autograd.profiler: the events one program records (names,
nesting, sequence numbers linking backward nodes to forward ops), key_averages, the table's
columns, the Chrome trace, record_function, and the API's errors."""
import json
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from autograd_cy.autograd import profiler
from oracle import DEVICE, assert_same_error, same_warning

EVALUATE = "autograd::engine::evaluate_function: "


def lib_profiler(lib):
    return lib.autograd.profiler


def program(lib, **options):
    """x * w, tanh (labelled "blk"), sum, backward, under a profile of ``lib``."""
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    w = lib.tensor(rng.standard_normal((3, 4)))
    with lib_profiler(lib).profile(**options) as prof:
        with lib_profiler(lib).record_function("blk"):
            y = (x * w).tanh()
        y.sum().backward()
    return prof


def top_level(events):
    """(name, child names) of the events without a parent, or whose parent is a label."""
    return [(e.name, [c.name for c in e.cpu_children]) for e in events
            if e.cpu_parent is None or e.cpu_parent.is_user_annotation]


def comparable(events):
    """What both libraries record alike: labels, ops called by the program, backward nodes
    (torch also records the ops its C++ backward() and AccumulateGrad run internally)."""
    keep = []
    for name, children in top_level(events):
        if name.startswith(EVALUATE):
            keep.append((name, children))
        elif name == "blk" or (name.startswith("aten::") and name != "aten::ones_like"):
            keep.append((name, children if name == "blk" else []))
    return keep


def test_events_named_and_nested_as_torch():
    ours, theirs = program(ag), program(torch)
    assert comparable(ours.function_events) == comparable(theirs.function_events)


def test_backward_events_link_to_their_forward_op_by_sequence_nr():
    def links(prof):
        events = prof.function_events
        forward = {e.sequence_nr: e.name for e in events
                   if e.name.startswith("aten::") and e.sequence_nr >= 0}
        result = []
        for e in events:
            if e.scope == 1 and e.sequence_nr >= 0:                  # a backward node
                parent = e.cpu_parent
                assert parent.name == EVALUATE + e.name
                assert parent.sequence_nr == e.sequence_nr
                assert e.fwd_thread == parent.fwd_thread == e.thread
                result.append((e.name, forward[e.sequence_nr]))
        return result
    assert links(program(ag)) == links(program(torch))


def test_key_averages_counts_as_torch():
    # Not aten::mul: torch also counts the one MulBackward0 runs; a built-in formula here
    # computes with the arrays directly, its work the node's own time.
    names = ("blk", "aten::tanh", "aten::sum", "MulBackward0", "TanhBackward0",
             "SumBackward0", EVALUATE + "MulBackward0", "torch::autograd::AccumulateGrad")

    def counts(prof):
        rows = {row.key: row.count for row in prof.key_averages()}
        return [rows.get(name) for name in names]
    ours, theirs = program(ag), program(torch)
    assert counts(ours) == counts(theirs)
    total = ours.total_average()
    assert total.key == "Total" and total.count == len(ours.function_events)
    assert ours.self_cpu_time_total == pytest.approx(
        sum(e.self_cpu_time_total for e in ours.function_events))


@pytest.mark.parametrize("options", [{}, {"profile_memory": True}])
def test_table_columns_as_torch(options):
    def header(prof):
        lines = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=3)
        lines = lines.splitlines()
        return lines[0], lines[1], lines[2], len(lines), lines[-1].split(":")[0]
    assert header(program(ag, **options)) == header(program(torch, **options))


def test_input_shapes_and_memory_as_torch():
    def ops(prof, memory):
        return [(e.name, e.input_shapes, getattr(e, memory)) for e in prof.function_events
                if e.name in ("aten::mul", "aten::tanh") and e.cpu_parent.name == "blk"]
    memory = "device_memory_usage" if DEVICE.startswith("cuda") else "cpu_memory_usage"
    ours = ops(program(ag, record_shapes=True, profile_memory=True), memory)
    theirs = ops(program(torch, record_shapes=True, profile_memory=True), "cpu_memory_usage")
    assert ours == theirs
    grouped = program(ag, record_shapes=True).key_averages(group_by_input_shape=True)
    assert {(row.key, str(row.input_shapes)) for row in grouped} >= {
        ("aten::mul", "[[3, 4], [3, 4]]"), ("aten::tanh", "[[3, 4]]")}


def test_chrome_trace_is_valid_trace_event_json(tmp_path):
    prof = program(ag)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(complete) == len(prof.function_events)
    for event in complete:
        assert isinstance(event["name"], str) and isinstance(event["pid"], int)
        assert isinstance(event["tid"], int)
        assert isinstance(event["ts"], float) and event["dur"] >= 0
    by_name = {e["name"]: e for e in complete}
    label, mul = by_name["blk"], by_name["aten::mul"]
    assert label["cat"] == "user_annotation" and mul["cat"] == "cpu_op"
    assert label["ts"] <= mul["ts"] and mul["ts"] + mul["dur"] <= label["ts"] + label["dur"]
    node = by_name["MulBackward0"]
    assert node["args"]["Sequence number"] == mul["args"]["Sequence number"]


def test_record_function_nests_and_decorates():
    def run(lib):
        x = lib.ones(2)

        @lib_profiler(lib).record_function("decorated")
        def inner():
            return x.exp()
        with lib_profiler(lib).profile() as prof:
            with lib_profiler(lib).record_function("outer"):
                inner()
            x.exp()
        return [(e.name, e.cpu_parent.name if e.cpu_parent else None)
                for e in prof.function_events if e.name in ("outer", "decorated", "aten::exp")]
    assert run(ag) == run(torch)


def test_ops_are_restored_and_nothing_recorded_after_the_profile():
    mul, tanh_method = ag.mul, ag.Tensor.__dict__["tanh"]
    with pytest.raises(ValueError):
        with profiler.profile():
            assert ag.mul is not mul and profiler._is_profiler_enabled()
            raise ValueError
    assert ag.mul is mul and ag.Tensor.__dict__["tanh"] is tanh_method
    assert not ag.autograd.profiler._is_profiler_enabled()
    with profiler.record_function("outside"):       # no profile: nothing to record into
        ag.ones(2).exp()


def test_nested_profile_takes_over_as_torch():
    def run(lib):
        x = lib.ones(2)
        with lib_profiler(lib).profile() as outer:
            x.exp()
            with lib_profiler(lib).profile() as inner:
                x.sin()
            x.cos()
        return [e.name for e in outer.function_events], [e.name for e in inner.function_events]
    assert run(ag) == run(torch)


def test_errors_as_torch():
    def reenter(lib):
        prof = lib_profiler(lib).profile()
        with prof:
            pass
        with prof:
            pass
    assert_same_error(reenter, RuntimeError, exact=True)
    assert_same_error(lambda lib: lib_profiler(lib).profile(use_cpu=False), AssertionError,
                      exact=True)

    def twice(lib):
        unique = lib_profiler(lib).EnforceUnique()
        unique.see(1, "a")
        unique.see(1, "a")
    assert_same_error(twice, RuntimeError, exact=True)

    def itt_twice(lib):
        itt = lib_profiler(lib).emit_itt()
        with itt:
            with itt:
                pass
    assert_same_error(itt_twice, RuntimeError, exact=True)
    same_warning(lambda lib: lib_profiler(lib).profile(use_device="foo"), UserWarning,
                 "The foo is not a valid device option.")
    same_warning(lambda lib: lib_profiler(lib).profile(use_cuda=True), FutureWarning,
                 "use_cuda")


def test_emit_nvtx_without_a_real_gpu_does_nothing():
    nvtx = profiler.emit_nvtx()
    with nvtx:
        y = ag.ones(2).exp()
        assert not profiler._is_profiler_enabled()
    assert y.shape == (2,)
    with pytest.raises(RuntimeError, match="NVTX annotation context manager is not reentrant"):
        with nvtx:
            pass


def test_kineto_step_tracker_as_torch():
    def steps(lib):
        tracker = lib_profiler(lib).KinetoStepTracker
        start = tracker.current_step()
        tracker.init_step_count("opt_a")
        tracker.init_step_count("opt_b")
        seen = [tracker.increment_step("opt_a") - start, tracker.increment_step("opt_b") - start,
                tracker.increment_step("opt_a") - start]
        seen += [tracker.erase_step_count("opt_a"), tracker.erase_step_count("opt_a"),
                 tracker.erase_step_count("opt_b")]
        return seen
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert steps(ag) == steps(torch)


def test_op_names_of_functions_methods_and_operators_as_torch():
    def names(lib):
        x, w = lib.ones(2, 3), lib.ones(3, 2)
        with lib_profiler(lib).profile() as prof:
            lib.mul(x, x)
            x.exp()
            x @ w
            x[0]
            x[:, 1:]
            x[None]
            x[..., 0]
            x.double()
            lib.nn.functional.softmax(x, dim=1)
            -x
            x.sum(0)
            lib.nn.functional.relu(x)
            y = x.clone()
            y += 1
        return [e.name for e in prof.function_events if e.cpu_parent is None]
    assert names(ag) == names(torch)


def test_parse_nvprof_trace_as_torch(tmp_path):
    """An nvprof SQLite trace with two NVTX ranges, one of which launched a kernel."""
    import sqlite3
    path = str(tmp_path / "trace.sqlite")
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE StringTable (_id_ INTEGER, value TEXT);
        CREATE TABLE CUPTI_ACTIVITY_KIND_MARKER (id INTEGER, name INTEGER, timestamp INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (_id_ INTEGER, cbid INTEGER, start INTEGER,
                                                  "end" INTEGER, correlationId INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL (start INTEGER, "end" INTEGER,
                                                            name TEXT, correlationId INTEGER);
        INSERT INTO StringTable VALUES (1, 'aten::mul, seq = 0'), (2, 'MulBackward0, seq = 0');
        INSERT INTO CUPTI_ACTIVITY_KIND_MARKER VALUES
            (7, 2, 500), (7, 0, 900), (3, 1, 100), (3, 0, 400);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1, 211, 150, 200, 42);
        INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL VALUES (210, 260, 'mul_kernel', 42);
    """)
    db.commit()
    db.close()

    def parsed(lib):
        return [(e.id, e.name, e.time_range.start, e.time_range.end, e.kernels)
                for e in lib_profiler(lib).parse_nvprof_trace(path)]
    ours, theirs = parsed(ag), parsed(torch)
    assert [tuple(k) for e in ours for k in e[4]] == [tuple(k) for e in theirs for k in e[4]]
    assert [e[:4] for e in ours] == [e[:4] for e in theirs]


def test_flops_as_torch():
    def flops(lib):
        x, w = lib.ones(3, 4), lib.ones(4, 5)
        with lib_profiler(lib).profile(with_flops=True) as prof:
            lib.mm(x, w)
            x * x
            x + 1
        averages = prof.key_averages()
        counted = [(row.key, row.flops) for row in averages if row.flops]
        return counted, averages.table().splitlines()[1].split("  ")[-6:]
    assert flops(ag) == flops(torch)


def test_a_profile_records_only_the_thread_that_started_it():
    """As torch's: ops another thread runs during the profile (through the same swapped
    functions and operators) are not recorded, and still compute right."""
    import threading

    def run(lib):
        x = lib.ones(3, requires_grad=True)
        results, done = [], threading.Event()

        def worker():
            while not done.is_set():
                results.append((lib.tanh(x) * 2).sum())
                results[-1].backward()
        thread = threading.Thread(target=worker)
        thread.start()
        try:
            with lib_profiler(lib).profile() as prof:
                for _ in range(3):
                    lib.exp(x).sum()
        finally:
            done.set()
            thread.join()
        assert results and float(results[-1]) == pytest.approx(2 * 3 * np.tanh(1.0), rel=1e-6)
        names = {event.name for event in prof.function_events}
        return ("aten::exp" in names, "aten::sum" in names, "aten::tanh" in names,
                "aten::mul" in names, any("TanhBackward0" in name for name in names))
    assert run(ag) == run(torch) == (True, True, False, False, False)
