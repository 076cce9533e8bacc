"""The smaller names of torch.autograd against torch: the grad_mode module and its engine
switches, anomaly_mode, variable, increment_version, allow_mutation_on_saved_tensors,
NestedIOFunction and gradcheck's options."""
import importlib
import sys
import warnings

import pytest
import torch

import autograd_cy as ag
from oracle import LIBS, assert_same, assert_same_error, plain, run_threads


def module(lib, name):
    """``torch.autograd.<name>`` or ours (``torch.autograd.variable`` is shadowed by the
    deprecated function of that name, hence sys.modules)."""
    importlib.import_module(f"{lib.__name__}.autograd.{name}")
    return sys.modules[f"{lib.__name__}.autograd.{name}"]


def public(names):
    return {n for n in names if not n.startswith("_")}


# ------------------------------------------------------------------ namespaces

@pytest.mark.parametrize("name", ["grad_mode", "graph", "function", "anomaly_mode"])
def test_modules_export_torchs_public_names(name):
    theirs = module(torch, name)
    ours = module(ag, name)
    assert set(theirs.__all__) <= set(ours.__all__), set(theirs.__all__) - set(ours.__all__)
    for attribute in theirs.__all__:
        assert hasattr(ours, attribute)


def test_autograd_exports_torchs_names_of_these_modules():
    expected = set(torch.autograd.__all__) - {"functional", "forward_ad"}
    assert expected <= set(dir(ag.autograd)), expected - set(dir(ag.autograd))
    for name in ("is_multithreading_enabled", "is_view_replay_enabled", "SavedTensor",
                 "_force_original_view_tracking", "_unsafe_preserve_version_counter"):
        assert hasattr(ag.autograd, name)
    assert module(ag, "grad_mode").no_grad is ag.no_grad
    assert public(dir(module(ag, "variable"))) >= public(dir(module(torch, "variable"))) - {
        "torch"}


# ------------------------------------------------------------------ grad_mode switches

def test_set_multithreading_enabled_as_a_call_a_context_and_per_thread():
    def run(lib):
        A = lib.autograd
        trace = [A.is_multithreading_enabled()]
        switch = A.set_multithreading_enabled(False)
        trace += [A.is_multithreading_enabled(), switch.mode, switch.prev]
        seen = []
        run_threads(lambda: seen.append(A.is_multithreading_enabled()))
        with switch:
            trace.append(A.is_multithreading_enabled())
        trace += [A.is_multithreading_enabled(), seen]
        with A.grad_mode.set_multithreading_enabled(False):
            trace.append(A.is_multithreading_enabled())
        trace.append(A.is_multithreading_enabled())

        # Decorating leaves the flag off, as torch's does (no __call__ undoing it).
        @A.set_multithreading_enabled(False)
        def inside():
            return A.is_multithreading_enabled()
        trace += [A.is_multithreading_enabled(), inside()]
        A.set_multithreading_enabled(True)
        return trace
    assert_same(run)
    assert_same_error(lambda lib: lib.autograd.set_multithreading_enabled(1), TypeError)


def test_grad_layout_and_view_replay_switches():
    def run(lib):
        A = lib.autograd
        policy = A.enforce_grad_layout_policy(False)
        trace = [policy.prev, policy.mode]
        with policy:
            pass
        trace.append(A.enforce_grad_layout_policy().prev)
        with A.grad_mode._force_original_view_tracking(True):
            trace.append(A.is_view_replay_enabled())
        trace.append(A.is_view_replay_enabled())

        @A.grad_mode._force_original_view_tracking(True)
        def replaying():
            return A.is_view_replay_enabled()
        trace += [A.is_view_replay_enabled(), replaying(), A.is_view_replay_enabled()]
        return trace
    assert_same(run)
    assert_same_error(lambda lib: lib.autograd.enforce_grad_layout_policy(1), TypeError)
    assert_same_error(lambda lib: lib.autograd.grad_mode._force_original_view_tracking(1),
                      TypeError, r"^set_view_replay_enabled\(\): argument 'enabled'")


def test_unsafe_preserve_version_counter_hides_a_mutation_from_backward():
    def run(lib):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        y = x * 1
        out = (y * y).sum()
        before = y._version
        with lib.autograd.grad_mode._unsafe_preserve_version_counter(y):
            y.mul_(2)
            inside = y._version
        out.backward()
        return before, inside, y._version, x.grad
    assert_same(run)
    assert_same_error(
        lambda lib: lib.autograd.grad_mode._unsafe_preserve_version_counter([lib.ones(1)]),
        AssertionError)


def test_enter_and_exit_inference_mode_and_set_grad_enabled_repr():
    def run(lib):
        grad_mode = lib.autograd.grad_mode
        context = grad_mode._enter_inference_mode(True)
        inside = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())
        grad_mode._exit_inference_mode(context)
        return inside, lib.is_inference_mode_enabled(), lib.is_grad_enabled()
    assert_same(run)
    for lib in LIBS:
        assert repr(lib.autograd.grad_mode.set_grad_enabled(True)).endswith(
            ".set_grad_enabled(mode=True)")


def test_no_param_decorator_context_managers():
    def run(lib):
        @lib.no_grad
        def off():
            return lib.is_grad_enabled()

        with lib.no_grad():
            @lib.enable_grad
            def on():
                return lib.is_grad_enabled()
            inside = on()
        return off(), inside, isinstance(lib.no_grad(), lib.autograd.grad_mode.no_grad)
    assert_same(run)


# ------------------------------------------------------------------ anomaly_mode

def test_set_detect_anomaly_is_a_call_and_a_context():
    def flags(lib):
        return lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()

    def run(lib):
        setter = lib.autograd.set_detect_anomaly(True, check_nan=False)
        trace = [flags(lib), setter.prev, setter.prev_check_nan]
        with setter:
            trace.append(flags(lib))
        trace.append(flags(lib))
        with lib.autograd.set_detect_anomaly(True):
            trace.append(flags(lib))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            detector = lib.autograd.detect_anomaly(check_nan=False)
        with detector:
            trace.append(flags(lib))
        trace += [flags(lib), vars(detector)]
        return trace
    assert_same(run)
    assert_same_error(lambda lib: lib.autograd.set_detect_anomaly(1), TypeError)
    assert_same_error(lambda lib: lib.autograd.set_detect_anomaly(True, 1), TypeError)
    def decorate(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            detector = lib.autograd.detect_anomaly()
        detector(lambda: 0)
    # detect_anomaly is a context manager only.
    assert_same_error(decorate, TypeError, r"object is not callable")


# ------------------------------------------------------------------ variable

def test_deprecated_variable_function_and_module():
    assert_same_error(lambda lib: lib.autograd.variable(lib.ones(1)), RuntimeError)
    for lib in LIBS:
        variable = module(lib, "variable")
        assert lib.autograd.variable.Variable is variable.Variable is lib.autograd.Variable
        assert type(variable.Variable) is variable.VariableMeta
        assert isinstance(variable.Variable._execution_engine, variable.ImperativeEngine)
        assert isinstance(lib.ones(1), variable.Variable)


# ------------------------------------------------------------------ graph

def test_increment_version_of_a_tensor_or_an_iterable():
    def run(lib):
        x, y = lib.ones(2), lib.ones(3)[1:]
        increment = lib.autograd.graph.increment_version
        increment(x)
        increment([x, y])
        increment(t for t in (y,))
        with lib.inference_mode():
            frozen = lib.ones(1)
        increment(frozen)           # no version counter: skipped
        return x._version, y._version, y._base._version
    assert_same(run)
    assert_same_error(lambda lib: lib.autograd.graph.increment_version(3), RuntimeError)
    assert_same_error(lambda lib: lib.autograd.graph.increment_version([lib.ones(1), 3]),
                      RuntimeError)


def test_increment_version_makes_backward_refuse_the_saved_tensor():
    def run(lib):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        y = x * 1
        out = (y * y).sum()
        lib.autograd.graph.increment_version([y])
        out.backward()
    assert_same_error(run, RuntimeError, "modified by an inplace operation")


def test_push_and_pop_saved_tensors_default_hooks():
    def run(lib):
        packed = []
        lib.autograd._push_saved_tensors_default_hooks(
            lambda t: packed.append(tuple(t.shape)) or t * 2, lambda t: t)
        try:
            x = lib.tensor([1.0, 2.0], requires_grad=True)
            (x * x).sum().backward()
        finally:
            lib.autograd._pop_saved_tensors_default_hooks()
        (x * x).sum().backward()
        return packed, x.grad
    assert_same(run)


def test_compiler_and_stream_knobs():
    for bad in (True, "a", 2, -0.5, 0.5):
        assert_same_error(lambda lib: module(lib, "graph").region_activation_memory_budget(bad))
    assert_same(lambda lib: (module(lib, "graph").set_override_stale_capture_stream(False),
                             module(lib, "graph").set_warn_on_accumulate_grad_stream_mismatch(
                                 True)))
    assert_same_error(lambda lib: module(lib, "graph").set_override_stale_capture_stream(1))


# ------------------------------------------------------------------ allow_mutation_on_saved_tensors

def allow_mutation(lib):
    return lib.autograd.graph.allow_mutation_on_saved_tensors()


def test_mutating_a_saved_input_clones_its_value_for_backward():
    def run(lib):
        with allow_mutation(lib) as ctx:
            a = lib.tensor([[0.5, 1.0, 2.0]], requires_grad=True)
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
            cloned = len(ctx.cloned)
            out.backward()
        return a.grad, b, cloned, type(ctx).__name__, len(ctx.original)
    assert_same(run)


def test_mutating_a_saved_output_and_through_views_and_out_arguments():
    def run(lib):
        with allow_mutation(lib):
            a = lib.tensor([0.5, 1.0, 1.5], requires_grad=True)
            y = a.exp()                 # exp saves its result
            y.mul_(3)
            b = a * 1
            out = (b * b).sum()
            b[:2].mul_(3)               # a view at b's own address: seen
            c = lib.tensor([1.0, 2.0, 3.0])
            total = (a * c).sum()       # saves c
            lib.add(c, 1, out=c)
            b2 = a * 1
            s = (b2 * b2).sum()
            b2[0] = 7.0                 # setitem
            (y.sum() + out + total + s).backward()
        return a.grad, y, b, c, b2
    assert_same(run)


def test_mutation_seen_by_a_custom_function_and_under_inner_hooks():
    def run(lib):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                x, = ctx.saved_tensors
                return grad * x

        with allow_mutation(lib):
            a = lib.tensor([0.5, 1.0], requires_grad=True)
            b = a * 1
            out = Scale.apply(b).sum()
            b.zero_()
            c = a * 1
            with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                inner = (c * c).sum()     # the inner hooks take over: not cloned
            c.add_(1)
            (out + inner).backward()
        return a.grad
    assert_same(run)


def test_a_saved_tensor_freed_by_backward_is_not_cloned():
    def run(lib):
        with allow_mutation(lib) as ctx:
            a = lib.tensor([0.5, 1.0], requires_grad=True)
            b = a * 1
            (b ** 2).sum().backward()
            b.sin_()
            return a.grad, len(ctx.cloned)
    assert_same(run)


def test_mutations_by_an_optimizer_step_through_data_and_metadata():
    def run(lib):
        with allow_mutation(lib):
            w = lib.tensor([[0.5, -1.0], [2.0, 3.0]], requires_grad=True)
            x = lib.tensor([[2.0, 3.0], [1.0, -1.0]])
            step = (w * x).sum() + (w * w).sum()
            with lib.no_grad():
                w.sub_(0.1)                     # an optimizer step between forward and backward
            b = w * 1
            first = (b * b).sum()
            b.mul_(2)
            second = (b * b).sum()
            b.data.mul_(10)                     # .data and detach() alias b's memory
            b.detach().add_(1)
            c = w * 1
            third = (c * x).sum() + (c * c).sum()
            c.transpose_(0, 1)                  # a metadata change
            e = w * 1
            fourth = e.exp().sum()
            e.copy_(x)
            e.zero_()
            e.fill_(2.0)
            step.backward()
            grads = [w.grad.clone()]
            for out in (first, second, third, fourth):
                w.grad = None
                out.backward(retain_graph=True)
                grads.append(w.grad.clone())
        return grads, w, b, c, e
    assert_same(run)


def test_without_the_context_the_mutation_is_refused():
    def run(lib):
        a = lib.tensor([0.5, 1.0], requires_grad=True)
        b = a.clone()
        out = (b ** 2).sum()
        b.sin_()
        out.backward()
    assert_same_error(run, RuntimeError, "modified by an inplace operation")


@pytest.mark.parametrize("mutated", [False, True])
def test_backward_outside_the_context_is_refused(mutated):
    def run(lib):
        with allow_mutation(lib):
            a = lib.tensor([0.5, 1.0], requires_grad=True)
            b = a * 1
            out = (b * b).sum()
            if mutated:
                b.add_(1)
        out.backward()
    assert_same_error(run, AssertionError)

    def in_another_context(lib):
        with allow_mutation(lib):
            a = lib.tensor([0.5, 1.0], requires_grad=True)
            out = a.exp().sum()
        with allow_mutation(lib):
            out.backward()
    assert_same_error(in_another_context, AssertionError)


def test_contexts_do_not_nest():
    def run(lib):
        with allow_mutation(lib):
            with allow_mutation(lib):
                pass
    assert_same_error(run, RuntimeError)

    def after_the_refusal(lib):
        # torch's refusal also ends the outer context (its flag is reset on the way out).
        with allow_mutation(lib):
            try:
                with allow_mutation(lib):
                    pass
            except RuntimeError:
                pass
            a = lib.tensor([0.5, 1.0], requires_grad=True)
            a.exp().sum().backward()
    assert_same_error(after_the_refusal, AssertionError)

    def afterwards(lib):
        a = lib.tensor([0.5, 1.0], requires_grad=True)
        b = a * 1
        out = (b * b).sum()
        b.add_(1)
        return out.backward()
    assert_same_error(afterwards, RuntimeError, "modified by an inplace operation")


# ------------------------------------------------------------------ NestedIOFunction

def nested_function(lib):
    NestedIOFunction = module(lib, "function").NestedIOFunction

    class Nested(NestedIOFunction):
        def forward_extended(self, x, pair):
            self.save_for_backward(x, [pair[0], None])
            return x * 2, [pair[0] + 1, pair[1] * 3]

        def backward_extended(self, grad_x, grad_list):
            return grad_x * 2, [grad_list[0], None]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return Nested, Nested()


def test_nested_io_function_flattens_and_nests():
    def run(lib):
        _, function = nested_function(lib)
        x, y = lib.ones(2, requires_grad=True), lib.zeros(2)
        function._nested_input = (x, (y, y))
        flat = function.forward()
        grads = function.backward(lib.ones(2), lib.ones(2), lib.ones(2))
        function.mark_dirty(x, a=[y])
        dirty = function.dirty_tensors
        function.mark_non_differentiable([x], b=(y,))
        return (flat, function._nested_output, function.to_save, function._to_save_nested,
                grads, dirty, function.non_differentiable)
    assert_same(run)


def test_nested_io_function_errors_as_torchs():
    def call(lib):
        Nested, function = nested_function(lib)
        return function(lib.ones(2, requires_grad=True))

    def apply(lib):
        Nested, _ = nested_function(lib)
        return Nested.apply(lib.ones(2, requires_grad=True))

    def saved(lib):
        _, function = nested_function(lib)
        function.save_for_backward(lib.ones(1))
        return function.saved_tensors

    assert_same_error(call, AttributeError, exact=True)
    assert_same_error(apply, AttributeError, r"object has no attribute '_nested_input'$")
    assert_same_error(saved, IndexError, exact=True)
    assert_same_error(lambda lib: nested_function(lib)[1].mark_dirty(3), ValueError,
                      exact=True)
    def unimplemented(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            function = module(lib, "function").NestedIOFunction()
        function.forward_extended(1)
    assert_same_error(unimplemented, NotImplementedError)


# ------------------------------------------------------------------ gradcheck options

def gradcheck_inputs(lib):
    x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
    y = lib.tensor([[0.1, 0.2], [0.3, -0.4]], dtype=lib.float64, requires_grad=True)
    return x, y


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_check_batched_grad(fast_mode):
    def run(lib):
        x, y = gradcheck_inputs(lib)
        passes = lib.autograd.gradcheck(
            lambda a, b: ((a * b).sum(0) + a.exp(), b.sin()), (x, y),
            check_batched_grad=True, fast_mode=fast_mode)
        unused = lib.autograd.gradcheck(lambda a, b: a * 2, (x, y), check_batched_grad=True,
                                        fast_mode=fast_mode)
        twice = lib.autograd.gradgradcheck(lambda a: a.exp() * a, (x,),
                                           check_batched_grad=True, fast_mode=fast_mode)
        return passes, unused, twice
    assert_same(run)


def test_gradcheck_masked_checks_zero_grad_outputs_within_tolerance():
    def run(lib, masked, offset):
        class Leaky(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * 2 + offset

        x, _ = gradcheck_inputs(lib)
        return lib.autograd.gradcheck(Leaky.apply, (x,), masked=masked, atol=1e-3,
                                      check_undefined_grad=False, raise_exception=False)
    for masked in (False, True):
        for offset in (1e-10, 1e-6):
            assert run(ag, masked, offset) == run(torch, masked, offset), (masked, offset)


@pytest.mark.parametrize("options", [
    dict(check_backward_ad=False),
    dict(check_batched_forward_grad=True),
    dict(check_backward_ad=False, check_forward_ad=True, check_batched_grad=True),
])
def test_gradcheck_argument_assertions(options):
    def run(lib):
        x, _ = gradcheck_inputs(lib)
        return lib.autograd.gradcheck(lambda a: a.exp(), (x,), **options)
    assert_same_error(run, AssertionError, exact=True)


@pytest.mark.parametrize("options", [
    dict(check_rev_over_rev=False),
    dict(check_rev_over_rev=False, check_fwd_over_rev=True),
    dict(check_rev_over_rev=False, check_fwd_over_rev=True, check_undefined_grad=False,
         check_batched_grad=True),
])
def test_gradgradcheck_argument_assertions(options):
    def run(lib):
        x, _ = gradcheck_inputs(lib)
        return lib.autograd.gradgradcheck(lambda a: a.exp(), (x,), **options)
    assert_same_error(run, AssertionError, exact=True)



def test_deprecated_jacobian_functions():
    def run(lib):
        gradcheck = module(lib, "gradcheck")
        x, y = gradcheck_inputs(lib)
        z = lib.tensor([2.0], dtype=lib.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            numerical = gradcheck.get_numerical_jacobian(lambda t: t[0] * t[1], (x, z))
            wrt_z = gradcheck.get_numerical_jacobian(lambda t: t[0] * t[1], (x, z), target=(z,))
            one = gradcheck.get_numerical_jacobian(lambda t: t[0].exp(), x)
            analytical = gradcheck.get_analytical_jacobian((x, y, z), (x * z).sin())
        outputs = (x * z, x.exp())
        specific = gradcheck.get_numerical_jacobian_wrt_specific_input(
            lambda a, b: (a * b, a.exp()), 0, (x, z), outputs, 1e-6)
        instead = gradcheck.get_numerical_jacobian_wrt_specific_input(
            lambda a, b: (a * b, a.exp()), 0, (x, z), outputs, 1e-6, input=z)
        return numerical, wrt_z, one, analytical, specific, instead
    assert_same(run, rtol=1e-6, atol=1e-6)
    for lib in LIBS:
        x, _ = gradcheck_inputs(lib)
        with pytest.warns(FutureWarning, match=r"^`get_analytical_jacobian` was part of "
                          "PyTorch's private API and not meant to be exposed"):
            module(lib, "gradcheck").get_analytical_jacobian((x,), x * 2)
    assert_same(lambda lib: [module(lib, "gradcheck").is_tensor_like(v)
                             for v in (lib.ones(1), 1.0, [lib.ones(1)])])

    def wrong_grad_out(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            module(lib, "gradcheck").get_numerical_jacobian(
                lambda t: t[0], (lib.ones(1, requires_grad=True),), grad_out=2.0)
    assert_same_error(wrong_grad_out, ValueError, exact=True)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_forward_mode_checks(fast_mode):
    def run(lib):
        x, y = gradcheck_inputs(lib)
        z = lib.tensor([-0.3, 0.8], dtype=lib.float64, requires_grad=True)
        gradcheck, gradgradcheck = lib.autograd.gradcheck, lib.autograd.gradgradcheck
        return (
            gradcheck(lambda a, b: (a * b + a.exp(), b.sin()), (x, y), check_forward_ad=True,
                      fast_mode=fast_mode),
            gradcheck(lambda a, b: a * b + a.exp(), (x, y), check_forward_ad=True,
                      check_backward_ad=False, check_undefined_grad=False,
                      fast_mode=fast_mode),
            gradgradcheck(lambda a: a.exp() * a, (x,), check_fwd_over_rev=True,
                          fast_mode=fast_mode),
            gradgradcheck(lambda a, b: a.exp() * b, (x, z), check_fwd_over_rev=True,
                          check_rev_over_rev=False, check_undefined_grad=False,
                          fast_mode=fast_mode))
    assert_same(run)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_forward_mode_finds_a_wrong_tangent(fast_mode):
    def message(lib):
        x, _ = gradcheck_inputs(lib)
        fwAD = module(lib, "forward_ad")

        def wrong_tangent(a):
            # The value of a * 2, with the tangent of a * 3 (a dual rebuilt by hand).
            primal, tangent = fwAD.unpack_dual(a)
            if tangent is None:
                return a * 2
            return fwAD.make_dual(primal * 2, tangent * 3)
        with pytest.raises(module(lib, "gradcheck").GradcheckError) as error:
            lib.autograd.gradcheck(wrong_tangent, (x,), check_forward_ad=True,
                                   check_backward_ad=False, check_undefined_grad=False,
                                   fast_mode=fast_mode)
        # On the CUDA test device our Jacobians print their device; torch's are on the CPU.
        return str(error.value).replace(lib.__name__ + ".", "").replace(
            "device='cuda:0', ", "")
    ours, theirs = message(ag), message(torch)
    header = "Jacobian computed with forward mode mismatch for output 0 with respect to input 0,"
    assert ours.startswith(header) and theirs.startswith(header)
    if fast_mode:
        # J u for a random u (each library its own), then the Jacobians in slow mode.
        slow = "Below, we recompute numerical and analytical jacobians in slow mode:"
        assert ours.split(slow)[1] == theirs.split(slow)[1]
    else:
        assert ours == theirs


def test_gradcheck_forward_mode_checks_undefined_tangents():
    def message(lib):
        x, _ = gradcheck_inputs(lib)
        z = lib.tensor([-0.3, 0.8], dtype=lib.float64, requires_grad=True)
        fwAD = module(lib, "forward_ad")

        def product(a, b):
            # b without a tangent is taken as moving along ones: not as a zero tangent.
            primal_a, tangent_a = fwAD.unpack_dual(a)
            primal_b, tangent_b = fwAD.unpack_dual(b)
            if tangent_a is None:
                return a * primal_b
            return fwAD.make_dual(primal_a * primal_b, tangent_a * primal_b + (
                tangent_b * primal_a if tangent_b is not None else primal_a))
        with pytest.raises(module(lib, "gradcheck").GradcheckError) as error:
            lib.autograd.gradcheck(product, (x, z), check_forward_ad=True,
                                   check_backward_ad=False)
        # The tangents printed depend on each library's random directions.
        return error.value.args[:5]
    ours, theirs = message(ag), message(torch)
    assert ours[0] == theirs[0] == "Mismatch in tangent values for output with index: "
    assert ours[1:3] == theirs[1:3] and ours[4] == theirs[4]
    assert plain(ours[3]) == plain(theirs[3])
