"""Differences from torch that running PyTorch's own autograd test suite over autograd_cy
found (README, "PyTorch's test suite"): each test here is the smallest case of one, written
here and checked against torch."""
import subprocess
import sys
import textwrap

import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, same_warning


# ------------------------------------------------------------------ torch.inf, torch.nan ...

def test_numeric_constants():
    def run(lib):
        x = lib.tensor([1.0, -2.0])
        return [repr(lib.inf), repr(lib.nan), lib.e, lib.pi, lib.newaxis,
                list(x[:, lib.newaxis].shape), (x ** -lib.inf).tolist()]
    assert_same(run)


# ------------------------------------------------------------------ set_warn_always

@pytest.mark.cpu_only
def test_set_warn_always_and_its_argument_check():
    def run(lib):
        before = lib.is_warn_always_enabled()
        lib.set_warn_always(True)
        during = lib.is_warn_always_enabled()
        lib.set_warn_always(False)
        return [before, during, lib.is_warn_always_enabled()]
    assert_same(run)
    assert_same_error(lambda lib: lib.set_warn_always(1), RuntimeError,
                      "expects a bool, but got int")


_COUNT_WARNINGS = textwrap.dedent("""
    import sys, warnings
    lib = __import__(sys.argv[1])
    counts = []
    def backward():
        x = lib.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            (x * x).sum().backward(create_graph=True)
        counts.append(sum("create_graph=True" in str(w.message) for w in caught))
    backward(); backward()
    lib.set_warn_always(True)
    backward(); backward()
    print(counts)
""")


@pytest.mark.cpu_only
def test_create_graph_warning_is_given_once_per_process_unless_warn_always():
    """torch's TORCH_WARN_ONCE: the reference-cycle warning of backward(create_graph=True)
    comes the first time only, and every time under set_warn_always(True)."""
    def counts(name):
        return subprocess.run([sys.executable, "-c", _COUNT_WARNINGS, name], check=True,
                              capture_output=True, text=True).stdout.strip()
    assert counts("autograd_cy") == counts("torch") == "[1, 0, 1, 1]"


# ------------------------------------------------------------------ profiler

def test_kineto_available_in_autograd_and_profiler():
    """torch.autograd.kineto_available is a name torch's profiler scripts call; here it is
    False (no Kineto), and the profile it configures still records."""
    assert ag.autograd.kineto_available() is False
    assert ag.profiler.kineto_available is ag.autograd.kineto_available
    x = ag.ones(2, requires_grad=True)
    with ag.autograd.profiler.profile(use_kineto=ag.autograd.kineto_available()) as prof:
        (x * 2).sum().backward()
    assert any(event.name == "aten::mul" for event in prof.function_events)


# ------------------------------------------------------------------ Tensor.volatile, dir()

def test_volatile_is_always_false_with_torchs_warnings():
    def read(lib):
        return lib.ones(2).volatile
    assert same_warning(read, UserWarning,
                        r"^volatile was removed \(Variable.volatile is always False\)$") == (
        False, False)

    def write(lib):
        x = lib.ones(2, requires_grad=True)
        x.volatile = True
        return [x.requires_grad, x.volatile]
    ours, theirs = same_warning(write, UserWarning, r"^volatile was removed and now has no "
                                r"effect. Use `with torch.no_grad\(\):` instead.$")
    assert ours == theirs == [True, False]


@pytest.mark.cpu_only     # a CUDA tensor prints (and lists) its device's attributes
def test_dir_lists_only_what_getattr_finds():
    """torch's Tensor.__dir__ leaves out the removed ``volatile`` and, off CUDA,
    ``__cuda_array_interface__`` (whose getter raises there)."""
    def run(lib):
        keys = dir(lib.ones(2, 2))
        return ["volatile" in keys, "__cuda_array_interface__" in keys, "shape" in keys,
                "grad_fn" in keys, keys == sorted(keys)]
    assert_same(run)
    x = ag.ones(2, 2)     # imag raises on a real tensor, in torch too
    assert [key for key in dir(x) if key != "imag" and not hasattr(x, key)] == []
    from autograd_cy import tensor_attributes
    assert "positive" in dir(tensor_attributes)      # the method is no module __dir__


# ------------------------------------------------------------------ custom Functions' jvp

def _inplace_double(lib, modify_tangent):
    class InplaceDouble(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.mul_(2)

        @staticmethod
        def jvp(ctx, x_t):
            return x_t.mul_(2) if modify_tangent else x_t
    return InplaceDouble


def test_jvp_of_a_dirty_input_must_modify_its_tangent_in_place():
    """Returning the input's tangent object unchanged is refused (torch compares its
    version before and after jvp); modifying it in place is accepted."""
    def run(lib, modify_tangent):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            x = fwAD.make_dual(lib.tensor(1.0), lib.tensor(1.0))
            out = _inplace_double(lib, modify_tangent).apply(x)
            return [out is x, fwAD.unpack_dual(out).tangent.item()]
    assert_same(lambda lib: run(lib, True))
    assert_same_error(lambda lib: run(lib, False), RuntimeError,
                      "the jvp function must modify the corresponding gradient inplace")


def _two_outputs(lib, mark, wrong, seen=None):
    class TwoOutputs(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            out = y.clone()
            if mark:
                ctx.mark_non_differentiable(out)
            return x.clone(), out

        @staticmethod
        def jvp(ctx, x_t, y_t):
            if seen is not None:
                seen.append(None if y_t is None else y_t.tolist())
            return x_t, (x_t.clone() if wrong else None)
    return TwoOutputs


@pytest.mark.parametrize("y_dtype", ["float64", "int64"])
def test_jvp_sees_none_for_an_integer_input_without_a_tangent(y_dtype):
    """Tangents are materialized as zeros for floating inputs only: jvp gets None for an
    integer one (and a non-differentiable output's tangent stays None)."""
    def run(lib):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            x = fwAD.make_dual(lib.tensor(2.0), lib.tensor(1.0))
            y = lib.tensor(3, dtype=getattr(lib, y_dtype))
            seen = []
            first, second = _two_outputs(lib, y_dtype == "float64", False, seen).apply(x, y)
            return [seen, fwAD.unpack_dual(first).tangent.item(),
                    fwAD.unpack_dual(second).tangent]
    assert_same(run)


@pytest.mark.parametrize("y_dtype", ["float64", "int64"])
def test_jvp_giving_a_tangent_to_a_non_differentiable_output_is_refused(y_dtype):
    def run(lib):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            x = fwAD.make_dual(lib.tensor(2.0), lib.tensor(1.0))
            y = lib.tensor(3, dtype=getattr(lib, y_dtype))
            _two_outputs(lib, True, True).apply(x, y)
    assert_same_error(run, RuntimeError, exact=True)


# ------------------------------------------------------------------ gradcheck

@pytest.mark.parametrize("fast_mode", [True, False])
@pytest.mark.parametrize("change", ["shape", "dtype"])
def test_gradcheck_refuses_outputs_whose_shape_or_dtype_depends_on_the_values(change,
                                                                              fast_mode):
    """At x = 1, x - eps and x + eps give outputs of different shapes (or dtypes): no finite
    difference exists, and gradcheck says so rather than broadcasting one against the other."""
    def run(lib):
        def fn(x):
            if lib.all(x >= 1):
                return lib.cat([x, x]) if change == "shape" else x.to(lib.float32)
            return x
        x = lib.ones(1, dtype=lib.float64, requires_grad=True)
        lib.autograd.gradcheck(fn, (x,), fast_mode=fast_mode)
    assert_same_error(run, AssertionError,
                      f"^Expected `func` to return outputs with the same {change} when inputs "
                      "are perturbed")


# ------------------------------------------------------------------ saved tensors under hooks

def _saves_its_second_input(lib, seen):
    class SaveY(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(y)
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            seen.append(ctx.saved_tensors[0])
            return grad, None
    return SaveY


@pytest.mark.parametrize("how", ["checkpoint", "hooks"])
def test_a_saved_tensor_without_grad_unpacks_as_the_hooks_object(how):
    """Unpacking through saved_tensors_hooks gives back what the unpack hook returned,
    itself, when nothing requires grad (PyTorch skips the detach): a non-reentrant
    checkpoint's backward sees the very input tensor."""
    def run(lib):
        seen = []
        a = lib.tensor(1.0, requires_grad=True)
        b = lib.tensor(2.0)
        fn = _saves_its_second_input(lib, seen).apply
        if how == "checkpoint":
            lib.utils.checkpoint.checkpoint(fn, a, b, use_reentrant=False).backward()
        else:
            with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                out = fn(a, b)
            out.backward()
        return [seen[0] is b, a.grad.item()]
    assert_same(run)


def test_creating_a_saved_tensor_from_python_is_refused():
    assert_same_error(lambda lib: lib.autograd.SavedTensor(), RuntimeError, exact=True)


# ------------------------------------------------------------------ forward AD: dual tensors

@pytest.mark.cpu_only     # a CUDA tensor prints (and lists) its device's attributes
def test_a_dual_tensor_prints_its_tangent_at_the_current_level():
    def run(lib):
        fwAD = lib.autograd.forward_ad
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) * 1
        with fwAD.dual_level():
            dual = fwAD.make_dual(x, lib.full((2, 2), 0.5))
            primal, tangent = fwAD.unpack_dual(dual)
            inside = [str(dual), "tangent=" in str(tangent), "tangent=" in str(x)]
        return inside + [str(dual)]
    assert_same(run)


def test_a_tangent_with_its_own_tangent_at_the_same_level_is_refused():
    def run(lib):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            dual = fwAD.make_dual(lib.zeros(2), lib.ones(2))
            fwAD.make_dual(lib.zeros(2), dual)
    assert_same_error(run, RuntimeError, exact=True)


def _narrowing(lib, jvp_kind):
    class Narrow(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.narrow(0, 0, 2)

        @staticmethod
        def jvp(ctx, x_t):
            out = x_t.narrow(0, 0, 2)
            if jvp_kind == "copy":
                return out.clone()
            if jvp_kind == "view_of_copy":
                return out.clone().view_as(out)
            return out
    return Narrow


@pytest.mark.parametrize("jvp_kind", ["view", "copy", "view_of_copy"])
@pytest.mark.parametrize("input_is_view", [False, True])
def test_jvp_of_a_view_must_return_the_same_view_of_the_tangent(jvp_kind, input_is_view):
    """A forward that returns a view of its input needs a jvp that returns a view of the
    input's tangent (of its base, when the input is itself a view)."""
    def run(lib):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            x = fwAD.make_dual(lib.ones(4, 3), lib.full((4, 3), 2.0))
            if input_is_view:
                x = x.view_as(x)
            out = _narrowing(lib, jvp_kind).apply(x)
            return fwAD.unpack_dual(out).tangent.tolist()
    if jvp_kind == "view":
        assert_same(run)
    else:
        assert_same_error(run, RuntimeError, exact=True)


@pytest.mark.parametrize("jvp_kind", ["view_as", "self", "times_two"])
def test_jvp_of_an_input_returned_as_is_must_return_a_view_of_its_tangent(jvp_kind):
    def run(lib):
        class PassThrough(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x + y, x

            @staticmethod
            def jvp(ctx, x_t, y_t):
                second = {"view_as": lambda t: t.view_as(t), "self": lambda t: t,
                          "times_two": lambda t: t * 2}[jvp_kind](x_t)
                return x_t + y_t, second
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            t = lib.tensor(1.0, dtype=lib.float64)
            a = fwAD.make_dual(lib.tensor(1.0, dtype=lib.float64), t)
            _, out = PassThrough.apply(a, lib.tensor(1.0, dtype=lib.float64))
            return fwAD.unpack_dual(out).tangent._base is t
    if jvp_kind == "view_as":
        assert_same(run)
    else:
        assert_same_error(run, RuntimeError, exact=True)


# ------------------------------------------------------------------ out= of the unary ops

UNARY_WITH_OUT = ["exp", "sin", "tanh", "sigmoid", "abs", "sqrt", "log1p", "erf", "angle"]


@pytest.mark.parametrize("name", UNARY_WITH_OUT)
def test_unary_ops_write_into_out(name):
    """torch.sin(x, out=y) and the other unary ops' out= (test_autograd's
    allow_mutation_on_saved_tensors test writes a saved tensor this way)."""
    def run(lib):
        x = lib.tensor([0.25, 0.5, 2.0])
        out = lib.zeros(3)
        version = out._version
        result = getattr(lib, name)(x, out=out)
        return [result is out, out.tolist(), out._version > version]
    assert_same(run)


@pytest.mark.parametrize("case", ["integer_out", "requires_grad", "relu"])
def test_unary_out_refusals(case):
    def run(lib):
        x = lib.tensor([0.25, 0.5], requires_grad=case == "requires_grad")
        if case == "relu":
            return lib.relu(x, out=lib.zeros(2))
        out = lib.zeros(2, dtype=lib.int64 if case == "integer_out" else lib.float32)
        return lib.sin(x, out=out)
    assert_same_error(run, exact=True)


def test_unary_out_into_a_saved_tensor_under_allow_mutation_on_saved_tensors():
    def run(lib):
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            a = lib.tensor([1.0], requires_grad=True)
            b = lib.tensor([1.0])
            out = a * b
            lib.sin(lib.tensor([2.0]), out=b)
            out.backward()
        return [a.grad.tolist(), b.tolist()]
    assert_same(run)


# ------------------------------------------------------------------ resize_ bumps the version

def test_resize_bumps_the_version_only_when_the_shape_changes():
    def run(lib):
        x, y = lib.zeros(1), lib.zeros(3)
        versions = []
        for resize in (lambda: x.resize_((1, 2)), lambda: x.resize_as_(y),
                       lambda: x.resize_((3,)), lambda: x.resize_as_(y)):
            resize()
            versions.append(x._version)
        return versions
    assert_same(run)        # [1, 2, 2, 2]


# ------------------------------------------------------------------ prod's double backward

@pytest.mark.parametrize("op, name", [("scatter_reduce", "src"), ("index_reduce", "source")])
def test_prod_with_two_zeros_in_one_place_refuses_double_backward(op, name):
    def grads(lib, values):
        input_ = lib.tensor([1.0], dtype=lib.float64, requires_grad=True)
        src = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        out = getattr(lib, op)(input_, 0, lib.tensor([0, 0]), src, "prod")
        return src, lib.autograd.grad(out.sum(), (input_, src), create_graph=True)

    def second_order(lib, values):
        src, (_, grad_src) = grads(lib, values)
        return lib.autograd.grad(grad_src.sum(), src)[0].tolist()

    # the first-order gradients are computed; src's is the Error node's output
    assert_same(lambda lib: [g.tolist() for g in grads(lib, [0.0, 0.0])[1]])
    assert_same(lambda lib: grads(lib, [0.0, 0.0])[1][1].grad_fn.name())
    # differentiating it again raises torch's words (the formula's derivative would be 0)
    assert_same_error(lambda lib: second_order(lib, [0.0, 0.0]), RuntimeError,
                      f"{op}\\(\\): Double backward is unsupported for {name} when >1 "
                      f"zeros in {name} are scattered to the same position in self")
    # one zero in the place: differentiable twice
    assert_same(lambda lib: second_order(lib, [0.0, 2.0]))


# ------------------------------------------------------------------ a node's repr

def test_node_repr_names_the_class_as_torch_does():
    def run(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * 2
        x = lib.ones(2, requires_grad=True)
        nodes = [(x * 2).grad_fn, (x * 2).grad_fn.next_functions[0][0], Double.apply(x).grad_fn]
        return [repr(node).split(" object at ")[0].replace("torch.", "autograd_cy.")
                for node in nodes]
    assert_same(run)


# ------------------------------------------------------------------ set_ and the accumulator

def test_set_gives_the_leaf_a_new_accumulator():
    def run(lib):
        x = lib.rand(2, requires_grad=True)
        edge = lib.autograd.graph.get_gradient_edge(x)
        out = x.clone()
        with lib.no_grad():
            x.set_(lib.ones(2))
        through_edge = lib.autograd.grad(out.sum(), edge, retain_graph=True)[0]
        out.sum().backward()            # the old node still accumulates into x.grad
        (x * 2).sum().backward()
        return [through_edge, x.grad]
    assert_same(run)
    assert_same_error(lambda lib: _grad_after_set(lib), RuntimeError,
                      "appears to not have been used in the graph")


def _grad_after_set(lib):
    x = lib.rand(2, requires_grad=True)
    out = x.clone()
    with lib.no_grad():
        x.set_(lib.ones(2))
    return lib.autograd.grad(out.sum(), x)


# ------------------------------------------------------------------ as_strided's storage

def test_as_strided_reads_the_whole_allocation_of_a_detached_slice():
    def run(lib):
        x = lib.arange(5.0)
        leaf = x.detach()[2:].requires_grad_()
        window = leaf.as_strided((3,), (1,), 1)
        window.sum().backward()
        return [x[:4].detach().as_strided((5,), (1,), 0), x[3:].as_strided((2,), (1,), 0),
                window, leaf.grad,
                lib.zeros(1).set_(x[2:], 1, (2,), (1,)),
                lib.zeros(1).set_(x[1:], 1, (2,), (2,))]
    assert_same(run)


# ------------------------------------------------------------------ detach_ and forward AD

def test_detach_in_place_drops_the_tangent():
    def run(lib):
        forward_ad = lib.autograd.forward_ad
        with forward_ad.dual_level():
            dual = forward_ad.make_dual(lib.ones(2), lib.ones(2)).clone()
            dual.detach_()
            return [forward_ad.unpack_dual(dual).tangent is None,
                    forward_ad.unpack_dual(dual * 2).tangent is None]
    assert_same(run)


# ------------------------------------------------------------------ deleting and setting flags

@pytest.mark.parametrize("name, words", [
    ("data", "Deleting tensor data is not allowed. Delete tensor instead!"),
    ("requires_grad", "requires_grad must be a bool"),
    ("_grad_fn", "Deletion of _grad_fn not allowed. Detach tensor instead!"),
    ("_backward_hooks", "Deletion of _backwards_hooks not allowed!"),
])
def test_deleting_autograd_attributes_is_refused(name, words):
    assert_same_error(lambda lib: delattr(lib.ones(2, requires_grad=True), name),
                      RuntimeError, words, exact=True)


@pytest.mark.parametrize("value", [1, None, 0.0])
def test_requires_grad_takes_only_a_bool(value):
    assert_same_error(lambda lib: setattr(lib.ones(2), "requires_grad", value), RuntimeError,
                      "requires_grad must be a bool", exact=True)
    # the same words: requires_grad_(): argument 'requires_grad' (position 1) must be bool
    assert_same_error(lambda lib: lib.ones(2).requires_grad_(value), TypeError)


def test_assigning_none_to_the_private_grad_fn_detaches():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        before = [y._grad_fn.name(), x._grad_fn]
        y._grad_fn = None
        return before + [y.grad_fn, y.requires_grad, y.is_leaf]
    assert_same(run)
    assert_same_error(lambda lib: setattr(lib.ones(2, requires_grad=True) * 2, "_grad_fn", 3),
                      RuntimeError, "_grad_fn can be only set to None", exact=True)
