"""Provenance (NOTE [Provenance] in pyx/provenance.pyx): the "second time" and "modified by an
inplace operation" errors keep PyTorch's words, then name the line of this file that made the
node (and that wrote in place). Expected lines are found in the test's own source with
inspect, by a marker comment."""
import inspect
import re
import warnings

import pytest

import autograd_cy as ag
from autograd_cy.autograd import set_provenance, is_provenance_enabled, forward_location
from oracle import _torch_spelling, assert_same_error, same_warning


def line_of(function, marker):
    """The line number in this file of the line of ``function`` that holds ``marker``."""
    lines, first = inspect.getsourcelines(function)
    hits = [first + i for i, line in enumerate(lines) if line.rstrip().endswith(marker)]
    assert len(hits) == 1, (marker, hits)
    return hits[0]


def at(function, marker):
    """``file:line (in function)`` as the errors write it."""
    return f"{function.__code__.co_filename}:{line_of(function, marker)} (in {function.__name__})"


def ours_after_torchs(run, *patterns):
    """Both libraries raise RuntimeError; ours starts with torch's whole message. Returns
    what we say after it."""
    ours, theirs = assert_same_error(run, RuntimeError, *patterns)
    theirs = _torch_spelling(theirs).replace("[torch.", "[autograd_cy.")
    assert ours.startswith(theirs), (ours, theirs)
    return ours[len(theirs):]


def test_second_backward_names_the_node_and_its_forward_line():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        y = (x * w).sum()        # the product
        y.backward()
        y.backward()
    tail = ours_after_torchs(run, "backward through the graph a second time")
    assert tail == (" The node MulBackward0 was created by the forward op at "
                    f"{at(run, '# the product')}.")


def test_version_error_names_the_forward_line_and_the_inplace_line():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        y = x + 1
        z = y * w                # saves y
        y.mul_(2)                # the write
        z.sum().backward()
    tail = ours_after_torchs(run, "modified by an inplace operation")
    assert tail == (" The node MulBackward0 was created by the forward op at "
                    f"{at(run, '# saves y')}. The in-place op at {at(run, '# the write')} last "
                    "bumped its version.")


def test_version_error_names_the_last_of_several_writes_through_a_view():
    def run(lib):
        x = lib.ones(4, requires_grad=True)
        base = x * 1
        y = base.exp()           # saves its result
        y.add_(1)
        view = y[:2]
        view.zero_()             # the last write
        y.sum().backward()
    tail = ours_after_torchs(run, "modified by an inplace operation")
    assert tail.startswith(" The node ExpBackward0 was created by the forward op at "
                           f"{at(run, '# saves its result')}.")
    assert tail.endswith(f" The in-place op at {at(run, '# the last write')} last bumped its "
                         "version.")


def test_an_inplace_op_on_a_view_names_its_line_on_copyslices():
    def run(lib):
        x = lib.ones(4, requires_grad=True)
        y = x * 1
        y[:2].exp_()             # in place on a view
        loss = y.sum()
        loss.backward()
        loss.backward()
    tail = ours_after_torchs(run, "backward through the graph a second time")
    assert tail == (" The node CopySlices was created by the forward op at "
                    f"{at(run, '# in place on a view')}.")


def test_library_frames_are_skipped_for_the_users_line():
    """nn.functional is Python: the node's line is the user's call, not the library's."""
    x = ag.ones(3, requires_grad=True)
    y = ag.nn.functional.softplus(x)      # the call
    assert forward_location(y.grad_fn) == at(test_library_frames_are_skipped_for_the_users_line,
                                             "# the call")


def test_custom_function_nodes_name_the_apply_line():
    class Twice(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2

    def run():
        x = ag.ones(2, requires_grad=True)
        y = Twice.apply(x)        # apply
        return y
    y = run()
    assert forward_location(y.grad_fn) == at(run, "# apply")
    y.sum().backward()
    with pytest.raises(RuntimeError) as caught:
        y.grad_fn.saved_tensors
    assert caught.value.args[0].endswith(f"was created by the forward op at {at(run, '# apply')}.")


def test_off_the_errors_are_torchs_exactly():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()
    with set_provenance(False):
        assert not is_provenance_enabled()
        x = ag.ones(2, requires_grad=True)
        assert forward_location((x * 2).grad_fn) is None
        ours, theirs = assert_same_error(run, RuntimeError)
        assert ours == _torch_spelling(theirs)            # nothing after torch's words
    assert is_provenance_enabled()


def test_anomaly_mode_records_even_when_off():
    x = ag.ones(2, requires_grad=True)
    with set_provenance(False), ag.autograd.set_detect_anomaly(True):
        y = x * 2                 # in anomaly mode
    assert forward_location(y.grad_fn) == at(test_anomaly_mode_records_even_when_off,
                                             "# in anomaly mode")


def test_set_provenance_takes_a_bool_and_restores_on_exit():
    with pytest.raises(TypeError, match=r"^set_provenance\(\): argument 'mode' \(position 1\) "
                                        r"must be bool, not int$"):
        set_provenance(1)
    set_provenance(False)
    try:
        assert not is_provenance_enabled()
    finally:
        set_provenance(True)
    assert ag.autograd.set_provenance is set_provenance


def test_anomaly_traceback_is_formatted_as_pythons():
    """Anomaly mode keeps each node's stack as code objects and offsets; the warning
    formats it as ``traceback.format_stack`` does, this test's line included."""
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        with lib.autograd.set_detect_anomaly(True):
            z = x.exp()          # in anomaly mode
            z.add_(1)
            try:
                z.sum().backward()
            except RuntimeError:
                pass
    same_warning(run, UserWarning, r"^Error detected in ExpBackward0\. Traceback of forward "
                                   r"call that caused the error:\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run(ag)
    message = next(str(w.message) for w in caught if "Error detected" in str(w.message))
    frame = (f'  File "{__file__}", line {line_of(run, "# in anomaly mode")}, in run\n'
             "    z = x.exp()          # in anomaly mode\n")
    assert message.endswith(frame), message[-400:]
    assert re.search(r'File ".*test_provenance\.py", line \d+, in '
                     r'test_anomaly_traceback_is_formatted_as_pythons\n', message)
