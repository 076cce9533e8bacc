"""Grad modes, inference mode, anomaly mode and backward in threads against torch."""
import contextlib
import threading
import warnings

import pytest
import torch

import autograd_cy as ag
from oracle import (
    PROVENANCE_TAIL, LIBS, assert_same, assert_same_error, plain, run_threads, same_warning,
)


def anomaly_flags(lib):
    """``(is_anomaly_enabled(), is_anomaly_check_nan_enabled())``; torch has them top-level."""
    module = torch if lib is torch else ag.autograd
    return module.is_anomaly_enabled(), module.is_anomaly_check_nan_enabled()


def records(lib):
    """Does an op record a graph right now?"""
    return (lib.ones(1, requires_grad=True) * 2).requires_grad


# ------------------------------------------------------------------ the four grad modes

def test_grad_mode_context_managers_nest_and_restore():
    def run(lib):
        trace = [lib.is_grad_enabled()]
        with lib.no_grad():
            trace.append((lib.is_grad_enabled(), records(lib)))
            with lib.enable_grad():
                trace.append((lib.is_grad_enabled(), records(lib)))
            with lib.set_grad_enabled(True):
                trace.append(lib.is_grad_enabled())
            trace.append(lib.is_grad_enabled())
        with lib.set_grad_enabled(False):
            trace.append(records(lib))
        trace.append(lib.is_grad_enabled())
        return trace
    assert_same(run)


def test_set_grad_enabled_as_a_function_call():
    def run(lib):
        lib.set_grad_enabled(False)
        off = (lib.is_grad_enabled(), records(lib))
        lib.set_grad_enabled(True)
        return off, lib.is_grad_enabled()
    assert_same(run)
    assert_same_error(
        lambda lib: lib.set_grad_enabled(1), TypeError,
        r"^set_grad_enabled\(\): argument 'enabled' \(position 1\) must be bool, not int$")


def test_grad_mode_decorators_with_and_without_parentheses():
    def run(lib):
        @lib.no_grad
        def bare_no_grad():
            return lib.is_grad_enabled()

        @lib.no_grad()
        def called_no_grad():
            return lib.is_grad_enabled()

        @lib.enable_grad
        def bare_enable_grad():
            return lib.is_grad_enabled()

        @lib.inference_mode
        def bare_inference():
            return lib.is_inference_mode_enabled(), lib.is_grad_enabled()

        @lib.inference_mode(False)
        def no_inference():
            return lib.is_inference_mode_enabled(), lib.is_grad_enabled()

        @lib.set_grad_enabled(False)
        def grad_off():
            return lib.is_grad_enabled()

        decorated_state = lib.is_grad_enabled()       # decorating did not switch it off
        with lib.no_grad():
            inside = (bare_enable_grad(), no_inference())
        with lib.inference_mode():
            inside_inference = no_inference()
        return (bare_no_grad(), called_no_grad(), bare_inference(), grad_off(),
                decorated_state, inside, inside_inference, lib.is_grad_enabled(),
                bare_no_grad.__name__)
    assert_same(run)

    def bare_set_grad_enabled(lib):
        @lib.set_grad_enabled
        def f():
            return None
    assert_same_error(bare_set_grad_enabled, TypeError,
                      r"^set_grad_enabled\(\): argument 'enabled' \(position 1\) must be bool, not "
                      r"function$")


def test_decorated_generators_run_each_step_in_the_mode():
    def run(lib):
        @lib.no_grad()
        def steps():
            received = yield lib.is_grad_enabled()
            yield (received, lib.is_grad_enabled())
            return "done"

        trace = []
        gen = steps()
        trace.append(next(gen))
        trace.append(lib.is_grad_enabled())          # restored between yields
        trace.append(gen.send("sent"))
        try:
            next(gen)
        except StopIteration as stop:
            trace.append(stop.value)

        @lib.enable_grad()
        def catcher():
            try:
                yield 1
            except ValueError:
                yield ("caught", lib.is_grad_enabled())
        with lib.no_grad():
            gen = catcher()
            next(gen)
            trace.append(gen.throw(ValueError("x")))
            trace.append(lib.is_grad_enabled())
        return trace
    assert_same(run)


# ------------------------------------------------------------------ grad mode per thread

def test_grad_mode_is_thread_local():
    def run(lib):
        seen = {}

        def worker():
            seen["grad"] = lib.is_grad_enabled()
            seen["records"] = records(lib)
            with lib.no_grad():
                seen["inner"] = lib.is_grad_enabled()
        with lib.no_grad():
            run_threads(worker)
            seen["main"] = lib.is_grad_enabled()
        with lib.inference_mode():
            run_threads(lambda: seen.update(inference=lib.is_inference_mode_enabled()))
        return seen
    assert_same(run)


# ------------------------------------------------------------------ explicit flags

def test_no_grad_does_not_stop_explicit_requires_grad():
    def run(lib):
        with lib.no_grad():
            a = lib.ones(2, requires_grad=True)
            b = lib.zeros(2).requires_grad_()
            c = a * 2
        return (a.requires_grad, a.is_leaf, b.requires_grad, b.is_leaf, c.requires_grad)
    assert_same(run)


# ------------------------------------------------------------------ inference mode

def test_inference_mode_makes_inference_tensors():
    def run(lib):
        normal = lib.ones(2)
        with lib.inference_mode():
            t = lib.ones(2)
            view = normal.transpose(0, 0)
            with lib.enable_grad():
                x = lib.ones(2, requires_grad=True)
                y = x * 2
                flag = lib.is_grad_enabled()
            normal.add_(1)
            inner = (lib.is_inference_mode_enabled(), lib.is_grad_enabled(), t.is_inference())
            with lib.inference_mode(False):
                off = (lib.is_inference_mode_enabled(), lib.is_grad_enabled(),
                       lib.ones(1).is_inference())
        return (inner, off, flag, y.requires_grad, y.grad_fn is None, x.is_inference(),
                view.is_inference(), normal._version, t.clone().is_inference(),
                normal.is_inference(), lib.is_inference_mode_enabled())
    assert_same(run)


def test_inference_tensor_errors_outside_inference_mode():
    def make(lib):
        with lib.inference_mode():
            return lib.ones(2)
    assert_same_error(
        lambda lib: make(lib).add_(1), RuntimeError,
        r"^Inplace update to inference tensor outside InferenceMode is not allowed\.You "
        r"can make a clone to get a normal tensor before doing inplace update\.See "
        r"https://github\.com/pytorch/rfcs/pull/17 for more details\.$")
    assert_same_error(
        lambda lib: make(lib).requires_grad_(), RuntimeError,
        r"^Setting requires_grad=True on inference tensor outside InferenceMode is not "
        r"allowed\.$")
    assert_same_error(
        lambda lib: lib.ones(2, requires_grad=True) * make(lib), RuntimeError,
        r"^Inference tensors cannot be saved for backward\. Please do not use Tensors "
        r"created in inference mode in computation tracked by autograd\.")

    def unsaved_use(lib):
        y = lib.ones(2, requires_grad=True) + make(lib)   # add saves nothing: allowed
        y.sum().backward()
        return y.requires_grad, type(y.grad_fn).__name__

    def clone_is_normal(lib):
        c = make(lib).clone()
        c.add_(1)
        return c.is_inference(), c.requires_grad_().requires_grad
    assert_same(unsaved_use)
    assert_same(clone_is_normal)


# ------------------------------------------------------------------ anomaly mode

def test_detect_anomaly_warns_set_detect_anomaly_does_not():
    def run(lib):
        with lib.autograd.detect_anomaly(check_nan=False):
            inside = anomaly_flags(lib)
        return inside, anomaly_flags(lib)
    ours, theirs = same_warning(run, UserWarning, r"^Anomaly Detection has been enabled\. This "
                                r"mode will increase the runtime and should only be enabled for "
                                r"debugging\.$")
    assert ours == theirs == ((True, False), (False, True))

    def quiet(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with lib.autograd.set_detect_anomaly(True, check_nan=False):
                inside = anomaly_flags(lib)
            lib.autograd.set_detect_anomaly(True)
            on = anomaly_flags(lib)
            lib.autograd.set_detect_anomaly(False)
        return inside, on, anomaly_flags(lib)
    assert_same(quiet)


def test_anomaly_nan_check_names_the_node_and_output():
    def log_nan(lib):
        x = lib.zeros(1, requires_grad=True)
        with lib.autograd.set_detect_anomaly(True):
            (x.log() * 0).sum().backward()

    def div_nan(lib):
        a = lib.zeros(1, requires_grad=True)
        b = lib.zeros(1, requires_grad=True)
        with lib.autograd.set_detect_anomaly(True):
            (a / b).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(log_nan, RuntimeError,
                          r"^Function 'LogBackward0' returned nan values in its 0th output\."
                          + PROVENANCE_TAIL)
        assert_same_error(div_nan, RuntimeError,
                          r"^Function 'DivBackward0' returned nan values in its 1th output\."
                          + PROVENANCE_TAIL)

    def unchecked(lib):
        a = lib.zeros(1, requires_grad=True)
        b = lib.zeros(1, requires_grad=True)
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            (a / b).sum().backward()
        return str(a.grad.tolist()), str(b.grad.tolist())
    assert_same(unchecked)


def test_anomaly_mode_warns_which_node_failed_with_the_forward_trace():
    def with_trace(lib):
        a = lib.zeros(1, requires_grad=True)
        b = lib.zeros(1, requires_grad=True)
        with lib.autograd.set_detect_anomaly(True):
            y = (a / b).sum()
            with contextlib.suppress(RuntimeError):
                y.backward()
    same_warning(with_trace, UserWarning, r"^Error detected in DivBackward0\. Traceback of "
                 r"forward call that caused the error:\n(.|\n)*test_grad_mode\.py")

    def without_trace(lib):
        a = lib.zeros(1, requires_grad=True)
        b = lib.zeros(1, requires_grad=True)
        y = (a / b).sum()
        with lib.autograd.set_detect_anomaly(True):
            with contextlib.suppress(RuntimeError):
                y.backward()
    same_warning(without_trace, UserWarning,
                 r"^Error detected in DivBackward0\. No forward pass information available\. "
                 r"Enable detect anomaly during forward pass for more information\.")


def test_version_check_hint_under_anomaly_mode():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        with lib.autograd.set_detect_anomaly(True):
            y = x + 1
            z = y * w
            y.add_(1)
            z.sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(
            run, RuntimeError,
            r"expected version 0 instead\. Hint: the backtrace further above shows the "
            r"operation that failed to compute its gradient\. The variable in question "
            r"was changed in there or anywhere later\. Good luck!" + PROVENANCE_TAIL)


# ------------------------------------------------------------------ backward and threads

def test_backward_runs_on_the_calling_thread():
    def run(lib):
        seen = []
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: seen.append(threading.get_ident()))
        y.sum().backward()
        return seen == [threading.get_ident()]
    assert_same(run)


def test_concurrent_backwards_in_two_threads():
    """Independent graphs in two threads at once: each gets its own, correct gradients."""
    def run(lib):
        results = {}
        start = threading.Barrier(2, timeout=60)

        def worker(name, scale):
            x = lib.full((3,), float(scale), requires_grad=True)
            start.wait()
            total = []
            for _ in range(300):
                x.grad = None
                y = x
                for _ in range(5):
                    y = (y * scale).tanh() + y
                y.sum().backward()
                total.append(plain(x.grad))
            results[name] = total
        run_threads(lambda: worker("a", 0.5), lambda: worker("b", 0.25))
        assert results["a"] == results["a"][:1] * 300
        assert results["b"] == results["b"][:1] * 300
        return results["a"][0], results["b"][0]
    assert_same(run, rtol=1e-5)


def test_second_backward_of_a_shared_graph_in_another_thread_fails():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = (x.exp() * x).sum()
        errors = []

        def worker():
            try:
                y.backward()
            except RuntimeError as error:
                errors.append(str(error)[:40])
        for _ in range(2):          # one after the other; anything but a RuntimeError fails
            run_threads(worker)
        return errors
    assert_same(run)


def test_reentrant_backward_inside_a_hook():
    def run(lib):
        x = lib.full((2,), 0.5, requires_grad=True)
        inner = lib.ones(2, requires_grad=True)
        y = x * 3
        found = []

        def hook(grad):
            with lib.enable_grad():             # hooks run in grad mode == create_graph
                (g,) = lib.autograd.grad((inner.exp() * 2).sum(), inner)
                found.append(plain(g))
                (inner * 5).sum().backward()
            return grad * 2
        y.register_hook(hook)
        y.sum().backward()
        return found, x.grad, inner.grad
    assert_same(run, rtol=1e-5)


def test_deeply_nested_reentrant_backward():
    """A chain of backward calls, each started from a hook of the previous one."""
    def run(lib, depth=100):
        leaves = [lib.full((1,), float(i), requires_grad=True) for i in range(depth)]

        def start(level):
            with lib.enable_grad():
                y = leaves[level] * 2
                out = y.sum()
            if level + 1 < depth:
                y.register_hook(lambda g: start(level + 1))
            out.backward()
        start(0)
        return [leaf.grad.item() for leaf in leaves[::10]]
    assert_same(run)


def test_warnings_raised_in_backward_reach_the_caller():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: warnings.warn("from a hook", UserWarning))
        y.sum().backward()
        return x.grad
    same_warning(run, UserWarning, "^from a hook$")

    for lib in LIBS:
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: warnings.warn("as error", DeprecationWarning))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(DeprecationWarning, match="as error"):
                y.sum().backward()


# ------------------------------------------------------------------ inference tensors

def _inference_ones(lib, *shape, **kwargs):
    with lib.inference_mode():
        return lib.ones(*shape, **kwargs)


VIEW_OPS = {
    "view": lambda t: t.view(-1),
    "index": lambda t: t[0],
    "t": lambda t: t.t(),
    "unbind": lambda t: t.unbind(0)[0],
    "split": lambda t: t.split(1)[0],
    "diagonal": lambda t: t.diagonal(),
    "expand": lambda t: t.expand(2, 2, 3),
    "as_strided": lambda t: t.as_strided((2,), (1,)),
}


@pytest.mark.parametrize("op", VIEW_OPS.values(), ids=VIEW_OPS.keys())
@pytest.mark.parametrize("inside", [True, False], ids=["in inference mode", "outside"])
def test_a_view_of_an_inference_tensor_is_a_plain_inference_tensor(op, inside):
    """Inference tensors track no views: a view op on one records nothing, in or out of
    inference mode, even when the inference tensor requires grad."""
    def run(lib):
        c = _inference_ones(lib, 2, 3, requires_grad=True)
        context = lib.inference_mode() if inside else contextlib.nullcontext()
        with context:
            v = op(c)
        return v.requires_grad, v._is_view(), v.is_leaf, v.is_inference(), v.grad_fn is None
    assert_same(run)


def test_a_view_made_in_inference_mode_of_a_normal_tensor_is_normal():
    def run(lib):
        d = lib.ones(2, 3, requires_grad=True)
        with lib.inference_mode():
            v, m = d.view(-1), d * 2
        return v.requires_grad, v._is_view(), v.is_inference(), m.requires_grad, m.is_inference()
    assert_same(run)


INPLACE_VIEW_OPS = {
    "transpose_": lambda t: t.transpose_(0, 1),
    "as_strided_": lambda t: t.as_strided_((3,), (1,)),
    "resize_": lambda t: t.resize_(4),
    "mul out=": lambda t: ag_or_torch(t).mul(ag_or_torch(t).ones(2, 3), 2, out=t),
}


def ag_or_torch(t):
    return torch if isinstance(t, torch.Tensor) else ag


@pytest.mark.parametrize("op", INPLACE_VIEW_OPS.values(), ids=INPLACE_VIEW_OPS.keys())
def test_every_write_to_an_inference_tensor_outside_inference_mode_is_refused(op):
    assert_same_error(lambda lib: op(_inference_ones(lib, 2, 3)), RuntimeError,
                      r"^Inplace update to inference tensor outside InferenceMode is not allowed")


def test_out_checks_requires_grad_before_the_inference_tensor():
    assert_same_error(
        lambda lib: lib.mul(lib.ones(2, requires_grad=True), 2, out=_inference_ones(lib, 2)),
        RuntimeError, r"out=\.\.\. arguments don't support automatic differentiation")


def test_resize_of_a_tensor_that_requires_grad_inside_inference_mode():
    """Inference mode skips autograd's kernels, so resize_ no longer refuses."""
    def run(lib):
        shapes = []
        for make in (lambda: _inference_ones(lib, 2, requires_grad=True),
                     lambda: lib.ones(2, requires_grad=True)):
            t = make()
            with lib.inference_mode():
                t.resize_(3)
            shapes.append(tuple(t.shape))
        return shapes
    assert_same(run)
    assert_same_error(lambda lib: lib.ones(2, requires_grad=True).resize_(3), RuntimeError,
                      "cannot resize variables that require grad")


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
@pytest.mark.parametrize("op", [lambda v: v.transpose_(0, 0),
                                lambda v: v.as_strided_((2, 3), (3, 1)),
                                lambda v: v.mul_(2)], ids=["transpose_", "as_strided_", "mul_"])
def test_inplace_view_ops_on_a_view_made_in_a_no_grad_mode(mode, op):
    def run(lib):
        base = lib.ones(2, 3, requires_grad=True).clone()
        with getattr(lib, mode)():
            v = base.view_as(base)
        op(v)
    assert_same_error(run, RuntimeError, "is being modified inplace")
