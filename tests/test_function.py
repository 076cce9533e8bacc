"""Custom autograd Functions (including mark_dirty for inputs modified in place), pinned
against torch.

Each Function is written once as a *builder* ``build(lib)`` that defines the class
with ``lib.autograd.Function``; ``pair(build)`` returns the autograd_cy class and
the torch class, which share the class name, so node names can be compared too.
"""
import gc
import sys
import weakref

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import LIBS, assert_same_error, check_op, randn, to_numpy


def pair(build):
    return build(ag), build(torch)


def by_lib(build):
    """``{autograd_cy: build(autograd_cy), torch: build(torch)}``."""
    return dict(zip(LIBS, pair(build)))


def leaf(lib, array, requires_grad=True):
    return lib.tensor(np.array(array, dtype=np.float64), requires_grad=requires_grad)


def close(ours, theirs):
    np.testing.assert_allclose(to_numpy(ours), to_numpy(theirs), rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ builders

def build_mul_save(lib):
    class MulSave(lib.autograd.Function):
        """x * y * k, saving an input and the output."""

        @staticmethod
        def forward(ctx, x, y, k):
            ctx.k = k
            out = x * y * k
            ctx.save_for_backward(x, y, out)
            return out

        @staticmethod
        def backward(ctx, grad):
            x, y, out = ctx.saved_tensors
            return grad * y * ctx.k, grad * x * ctx.k, None
    return MulSave


def build_exp_setup(lib):
    class ExpSetup(lib.autograd.Function):
        """forward without ctx + setup_context; ``scale`` has a default."""

        @staticmethod
        def forward(x, scale=2.0):
            return (x * scale).exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.inputs_seen = len(inputs)
            ctx.scale = inputs[1]
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, grad):
            out, = ctx.saved_tensors
            return grad * out * ctx.scale, None
    return ExpSetup


def build_two_outputs(lib):
    class TwoOut(lib.autograd.Function):
        """Two float outputs, a Python number and an integer tensor output."""

        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y, x + y, 5, x.long()

        @staticmethod
        def backward(ctx, g_prod, g_sum, g_number, g_long):
            ctx.seen = (g_prod, g_sum, g_number, g_long)
            x, y = ctx.saved_tensors
            return g_prod * y + g_sum, g_prod * x + g_sum
    return TwoOut


def build_ident(lib):
    class Ident(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 3
    return Ident


def build_needs(lib):
    class Needs(lib.autograd.Function):
        """Records needs_input_grad at forward time and during each backward."""
        log = []

        @staticmethod
        def forward(ctx, a, b, k):
            Needs.log.append(("forward", ctx.needs_input_grad))
            return a * b * k

        @staticmethod
        def backward(ctx, grad):
            Needs.log.append(("backward", ctx.needs_input_grad))
            a_grad = grad * 2 if ctx.needs_input_grad[0] else None
            b_grad = grad * 5 if ctx.needs_input_grad[1] else None
            return a_grad, b_grad, None
    return Needs


def build_dirty(lib):
    class Dirty(lib.autograd.Function):
        """Doubles x in place, marks it dirty and returns it."""

        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2
    return Dirty


# ------------------------------------------------------------------ apply and values

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_gradients_and_double_backward_match_torch(dtype):
    ours, theirs = pair(build_mul_save)
    check_op(lambda lib, x, y: (ours if lib is ag else theirs).apply(x, y, 3.0),
             randn(2, 3), randn(2, 3), dtype=dtype)


def test_setup_context_style_with_default_and_keyword_arguments():
    ours, theirs = pair(build_exp_setup)
    check_op(lambda lib, x: (ours if lib is ag else theirs).apply(x), randn(4))
    check_op(lambda lib, x: (ours if lib is ag else theirs).apply(x, scale=0.5), randn(4))
    for cls, lib in ((ours, ag), (theirs, torch)):
        out = cls.apply(leaf(lib, [1.0, 2.0]))
        assert out.grad_fn.inputs_seen == 2          # the default was bound
        assert out.grad_fn.scale == 2.0


def test_keyword_argument_binds_to_positional_forward_argument():
    ours, theirs = pair(build_mul_save)
    results = []
    for cls, lib in ((ours, ag), (theirs, torch)):
        x, y = leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 4.0])
        out = cls.apply(x, y=y, k=2.0)
        out.sum().backward()
        results.append((out, x.grad, y.grad))
    for a, b in zip(*results):
        close(a, b)


def test_node_name_edges_and_ctx_identity():
    ours, theirs = pair(build_mul_save)
    for cls, lib in ((ours, ag), (theirs, torch)):
        x, y = leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 4.0], requires_grad=False)
        out = cls.apply(x, y, 2.0)
        assert out.grad_fn.name() == "MulSaveBackward"
        assert type(out.grad_fn).__name__ == "MulSaveBackward"
        assert out.grad_fn.k == 2.0                      # ctx attributes live on the node
        # One edge per *tensor* argument, in order; y needs none.
        edges = out.grad_fn.next_functions
        assert len(edges) == 2
        assert edges[0][0].name().endswith("AccumulateGrad") and edges[1] == (None, 0)
        assert isinstance(out.grad_fn, lib.autograd.function.BackwardCFunction)
        assert isinstance(out.grad_fn, lib.autograd.function.FunctionCtx)


def test_forward_runs_with_grad_mode_off_and_backward_with_create_graph():
    for lib in LIBS:
        modes = []

        class Mode(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                modes.append(lib.is_grad_enabled())
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                modes.append(lib.is_grad_enabled())
                return grad * 2

        x = leaf(lib, [1.0])
        lib.autograd.grad(Mode.apply(x), x)
        lib.autograd.grad(Mode.apply(x), x, create_graph=True)
        with lib.no_grad():
            Mode.apply(x)
        assert modes == [False, False, False, True, False]


def test_no_node_without_grad_mode_or_without_inputs_requiring_grad():
    ours, theirs = pair(build_mul_save)
    for cls, lib in ((ours, ag), (theirs, torch)):
        x = leaf(lib, [1.0, 2.0])
        with lib.no_grad():
            out = cls.apply(x, x, 1.0)
        assert out.grad_fn is None and not out.requires_grad and out.is_leaf
        plain = cls.apply(leaf(lib, [1.0], False), leaf(lib, [2.0], False), 1.0)
        assert plain.grad_fn is None and not plain.requires_grad


def test_sequence_number_is_taken_before_forward_even_without_a_graph():
    for lib in LIBS:
        inner = []

        class Inner(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                if not inner:
                    with lib.enable_grad():
                        inner.append(x.exp().grad_fn)    # recorded inside forward
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                return grad

        x = leaf(lib, [1.0])
        out = Inner.apply(x)
        assert inner[0]._sequence_nr() == out.grad_fn._sequence_nr() + 1
        before = x.exp().grad_fn._sequence_nr()
        with lib.no_grad():
            Inner.apply(x)                          # consumes a number, records nothing
        assert x.exp().grad_fn._sequence_nr() == before + 2


# ------------------------------------------------------------------ outputs

def test_several_outputs_share_one_node_and_non_tensor_outputs_pass_through():
    ours, theirs = pair(build_two_outputs)
    results = []
    for cls, lib in ((ours, ag), (theirs, torch)):
        x, y = leaf(lib, [1.0, -2.0]), leaf(lib, [3.0, 4.0])
        prod, total, number, integer = cls.apply(x, y)
        assert prod.grad_fn is total.grad_fn
        assert (prod.output_nr, total.output_nr) == (0, 1)
        assert number == 5
        assert integer.grad_fn is None and not integer.requires_grad
        node = total.grad_fn
        total.sum().backward()
        g_prod, g_sum, g_number, g_long = node.seen
        # Missing gradients of tensor outputs arrive as zeros of their shape and dtype,
        # the non-tensor output's as None.
        assert g_number is None
        assert str(g_long.dtype).endswith("int64") and not to_numpy(g_long).any()
        assert not to_numpy(g_prod).any()
        results.append((x.grad, y.grad, g_sum))
    for a, b in zip(*results):
        close(a, b)


def test_input_returned_as_is_comes_back_as_a_view_with_the_function_grad_fn():
    ours, theirs = pair(build_ident)
    results = []
    for cls, lib in ((ours, ag), (theirs, torch)):
        x = leaf(lib, [1.0, 2.0])
        y = cls.apply(x)
        assert y is not x and y._is_view() and y._base is x
        assert y.grad_fn.name() == "IdentBackward"
        y.sum().backward()
        results.append(x.grad)
        with lib.no_grad():
            z = cls.apply(x)
        assert z is not x and not z.requires_grad
        plain = lib.tensor([1.0])
        w = cls.apply(plain)
        assert w is not plain and w._is_view() and not w.requires_grad
    close(*results)


def test_inplace_on_an_output_of_a_custom_function_is_forbidden():
    classes = by_lib(build_ident)
    words = "Output 0 of Ident is a view and is being modified inplace. This view was created "
    assert_same_error(lambda lib: classes[lib].apply(leaf(lib, [1.0]) * 1).mul_(2),
                      RuntimeError, words)


def test_input_returned_twice_gives_views_of_a_multi_output_node():
    def build(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x, x

            @staticmethod
            def backward(ctx, g1, g2):
                return g1 + 2 * g2
        return Twice
    ours, theirs = pair(build)
    results = []
    for cls, lib in ((ours, ag), (theirs, torch)):
        x = leaf(lib, [1.0, 2.0])
        a, b = cls.apply(x * 1)
        assert a is not b and (a.output_nr, b.output_nr) == (0, 1)
        with pytest.raises(RuntimeError, match="This view is the output of a function that "
                                               "returns multiple views"):
            a.mul_(2)
        a, b = cls.apply(x)
        (a.sum() + b.sum()).backward()
        results.append(x.grad)
    close(*results)


def test_mark_non_differentiable():
    def build(lib):
        class Sorted(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                doubled, marker = x * 2, x * 0
                ctx.mark_non_differentiable(marker)
                return doubled, marker

            @staticmethod
            def backward(ctx, g_doubled, g_marker):
                ctx.marker_grad = g_marker
                return g_doubled * 2
        return Sorted
    ours, theirs = pair(build)
    for cls, lib in ((ours, ag), (theirs, torch)):
        x = leaf(lib, [1.0, 2.0, 3.0])
        doubled, marker = cls.apply(x)
        assert doubled.requires_grad and not marker.requires_grad and marker.grad_fn is None
        node = doubled.grad_fn
        doubled.sum().backward()
        assert tuple(node.marker_grad.shape) == (3,) and not to_numpy(node.marker_grad).any()
        assert x.grad.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("materialize", [True, False])
def test_set_materialize_grads(materialize):
    def build(lib):
        class Pair(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                ctx.received = (g1, g2)
                return g1 * 2 if g1 is not None else None
        return Pair
    ours, theirs = pair(build)
    seen = []
    for cls, lib in ((ours, ag), (theirs, torch)):
        x = leaf(lib, [1.0, 2.0])
        first, _ = cls.apply(x)
        node = first.grad_fn
        first.sum().backward()
        g1, g2 = node.received
        if materialize:
            assert g2 is not None and tuple(g2.shape) == (2,) and not to_numpy(g2).any()
        else:
            assert g2 is None
        seen.append(x.grad)
    close(*seen)


def test_non_differentiable_dtype_outputs_only_make_no_graph():
    def build(lib):
        class Floor(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.long()

            @staticmethod
            def backward(ctx, grad):
                return None
        return Floor
    for cls, lib in zip(pair(build), LIBS):
        out = cls.apply(leaf(lib, [1.5, 2.5]))
        assert out.grad_fn is None and not out.requires_grad


def test_output_made_requiring_grad_in_forward_is_detached_without_a_graph():
    for lib in LIBS:
        class Fresh(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return lib.ones(3, requires_grad=True)

            @staticmethod
            def backward(ctx, grad):
                return grad

        out = Fresh.apply(lib.zeros(3))
        assert not out.requires_grad and out.is_leaf


# ------------------------------------------------------------------ ctx and saved tensors

def test_save_for_backward_rejects_non_tensors():
    def build(lib):
        class SaveInt(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                return grad
        return SaveInt
    classes = by_lib(build)
    assert_same_error(lambda lib: classes[lib].apply(leaf(lib, [1.0])), TypeError,
                      "save_for_backward can only save variables, but argument 1 is of type int")
    with ag.no_grad():
        classes[ag].apply(leaf(ag, [1.0]))                 # not checked when nothing is recorded


def test_saved_none_and_saved_intermediate():
    for lib in LIBS:
        class Mid(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                doubled = x * 2
                ctx.save_for_backward(None, doubled)
                return doubled + 1

            @staticmethod
            def backward(ctx, grad):
                nothing, doubled = ctx.saved_tensors
                assert nothing is None
                assert not doubled.requires_grad and doubled.grad_fn is None
                return grad * doubled

        x = leaf(lib, [1.0, 2.0])
        Mid.apply(x).sum().backward()
        assert x.grad.tolist() == [2.0, 4.0]


def test_saved_input_is_the_object_and_saved_output_is_rewrapped():
    ours, theirs = pair(build_mul_save)
    for cls, lib in ((ours, ag), (theirs, torch)):
        x, y = leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 4.0])
        out = cls.apply(x, y, 1.0)
        saved_x, saved_y, saved_out = out.grad_fn.saved_tensors
        assert saved_x is x and saved_y is y
        assert saved_out is not out and saved_out.grad_fn is out.grad_fn
        assert saved_out.tolist() == out.tolist()
        raw = out.grad_fn._raw_saved_tensors
        assert len(raw) == 3 and "SavedTensor" in type(raw[0]).__name__
    # Ours also answers ``_saved_tensors``, the spelling of built-in nodes' fields.
    out = ours.apply(leaf(ag, [1.0]), leaf(ag, [2.0]), 1.0)
    assert out.grad_fn._saved_tensors[2].tolist() == [2.0]


def test_saving_an_output_makes_no_reference_cycle():
    ours, theirs = pair(build_mul_save)
    for cls, lib in ((ours, ag), (theirs, torch)):
        gc.collect()
        gc.disable()
        try:
            out = cls.apply(leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 4.0]), 1.0)
            node = weakref.ref(out.grad_fn)
            del out
            assert node() is None          # freed by reference counting alone
        finally:
            gc.enable()


def test_saved_tensors_after_free_and_with_retain_graph():
    ours, theirs = pair(build_mul_save)
    message = "Trying to backward through the graph a second time"
    for cls, lib in ((ours, ag), (theirs, torch)):
        x, y = leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 4.0])
        out = cls.apply(x, y, 1.0)
        out.sum().backward(retain_graph=True)
        out.sum().backward()                       # retained: a second backward works
        assert x.grad.tolist() == [6.0, 8.0]
        with pytest.raises(RuntimeError, match=message):
            out.grad_fn.saved_tensors
        with pytest.raises(RuntimeError, match=message):
            out.sum().backward()
        assert out.grad_fn.k == 1.0                # plain ctx attributes survive freeing
        assert out.grad_fn.needs_input_grad == (True, True, False)


def test_saved_tensor_modified_in_place_is_detected_at_unpack():
    def build(lib):
        class SaveOut(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = x * 2
                ctx.save_for_backward(out)
                return out

            @staticmethod
            def backward(ctx, grad):
                out, = ctx.saved_tensors
                return grad * out
        return SaveOut

    def run(cls, lib):
        out = cls.apply(leaf(lib, [1.0, 2.0]))
        with lib.no_grad():
            out.add_(1)
        out.sum().backward()
    classes = by_lib(build)
    assert_same_error(lambda lib: run(classes[lib], lib), RuntimeError,
                      "which is output 0 of SaveOut, is at version 1; expected version 0")


def test_needs_input_grad_at_forward_time_is_static():
    ours, theirs = pair(build_needs)
    logs = []
    for cls, lib in ((ours, ag), (theirs, torch)):
        cls.log.clear()
        a, b = leaf(lib, [1.0]), leaf(lib, [2.0], requires_grad=False)
        cls.apply(a, b, 3)
        with lib.no_grad():
            cls.apply(a, b, 3)                     # still from requires_grad under no_grad
        out = cls.apply(a, b, 3)
        out.sum().backward()
        assert out.grad_fn.needs_input_grad == (True, False, False)
        logs.append(list(cls.log))
    assert logs[0] == logs[1] == [("forward", (True, False, False))] * 3 + [
        ("backward", (True, False, False))]


@pytest.mark.parametrize("call", ["backward_inputs", "grad"])
def test_needs_input_grad_in_backward_follows_the_requested_inputs(call):
    """Our documented extension (pytorch issue 56500): during a backward pruned by
    ``inputs=``, needs_input_grad is False for arguments nobody asked about."""
    Needs = build_needs(ag)
    a, b = leaf(ag, [1.0, 2.0]), leaf(ag, [3.0, 4.0])
    out = Needs.apply(a, b, 2.0)
    Needs.log.clear()
    if call == "grad":
        (a_grad,) = ag.autograd.grad(out.sum(), a)
    else:
        out.sum().backward(inputs=[a])
        a_grad = a.grad
        assert b.grad is None
    assert Needs.log == [("backward", (True, False, False))]
    assert a_grad.tolist() == [2.0, 2.0]
    # Outside backward, and in an unpruned backward, the static tuple again.
    assert out.grad_fn.needs_input_grad == (True, True, False)
    Needs.apply(a, b, 2.0).sum().backward()
    assert Needs.log[-1] == ("backward", (True, True, False))
    ag.autograd.grad(Needs.apply(a, b, 2.0).sum(), b)
    assert Needs.log[-1] == ("backward", (False, True, False))


def test_needs_input_grad_in_torch_213_stays_static():
    # The torch side of the extension above: torch 2.13 reports both as needed.
    Needs = build_needs(torch)
    a, b = leaf(torch, [1.0, 2.0]), leaf(torch, [3.0, 4.0])
    Needs.log.clear()
    torch.autograd.grad(Needs.apply(a, b, 2.0).sum(), a)
    assert Needs.log[-1] == ("backward", (True, True, False))


def test_save_for_forward_takes_tensors_only():
    for lib in LIBS:
        class Fwd(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_forward(x, 3)
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                return grad
        with pytest.raises(AssertionError, match="save_for_forward expects all arguments to "
                                                 "be tensors"):
            Fwd.apply(leaf(lib, [1.0]))


# ------------------------------------------------------------------ backward results

def build_backward_returning(result_fn, name, inputs=2):
    def build(lib):
        def forward(ctx, *args):
            return args[0] * 1

        def backward(ctx, grad):
            return result_fn(grad)
        return type(lib.autograd.Function)(name, (lib.autograd.Function,), {
            "forward": staticmethod(forward), "backward": staticmethod(backward)})
    return build


@pytest.mark.parametrize("result_fn, args, words", [
    (lambda g: g, 2, r"function WrongNumBackward returned an incorrect number of gradients "
                     r"\(expected 2, got 1\)"),
    (lambda g: (g, g, g), 2, r"function WrongNumBackward returned an incorrect number of "
                             r"gradients \(expected 2, got 3\)"),
    (lambda g: [g, None], 2, r"incorrect number of gradients \(expected 2, got 1\)"),
    (lambda g: (g, 1.5), 2, r"expected Variable or None \(got float\)"),
    (lambda g: (g, g, g), 3, "function WrongNumBackward returned a gradient different than "
                             "None at position 3, but the corresponding forward input was not "
                             "a Variable"),
])
def test_backward_result_errors(result_fn, args, words):
    classes = by_lib(build_backward_returning(result_fn, "WrongNum"))

    def run(lib):
        extra = (leaf(lib, [1.0]),) if args == 2 else (leaf(lib, [1.0]), 7)
        classes[lib].apply(leaf(lib, [1.0]), *extra).sum().backward()
    assert_same_error(run, RuntimeError, words)


def test_extra_trailing_nones_and_grads_for_inputs_not_requiring_grad_are_dropped():
    # An extra None is fine; a (wrongly shaped) grad for an input without grad is ignored.
    ours, theirs = pair(build_backward_returning(
        lambda g: (g * 2, g.new_ones(7), None, None), "Lenient"))
    results = []
    for cls, lib in ((ours, ag), (theirs, torch)):
        x = leaf(lib, [1.0, 2.0])
        cls.apply(x, leaf(lib, [5.0], requires_grad=False)).sum().backward()
        results.append(x.grad)
    close(*results)


def test_engine_reduces_and_casts_custom_gradients():
    def build(lib):
        class Wide(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.expand(2, 3) * 1

            @staticmethod
            def backward(ctx, grad):
                return grad.double()          # shape [2, 3] for an input of shape [3]
        return Wide
    results = []
    for cls, lib in zip(pair(build), LIBS):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        cls.apply(x).sum().backward()
        assert str(x.grad.dtype).endswith("float32")
        results.append(x.grad)
    close(*results)


def test_wrong_gradient_shape_is_reported_by_the_engine():
    classes = by_lib(build_backward_returning(lambda g: (g.new_ones(5), None), "BadShape"))

    def run(lib):
        classes[lib].apply(leaf(lib, [1.0, 2.0, 3.0]), 1).sum().backward()
    assert_same_error(run, RuntimeError,
                      r"Function BadShapeBackward returned an invalid gradient at index 0 - got "
                      r"\[5\] but expected shape compatible with \[3\]")


# ------------------------------------------------------------------ mark_dirty: in-place inputs

def test_mark_dirty_returns_the_same_object_with_version_bumped_and_history_rebased():
    ours, theirs = pair(build_dirty)
    results = []
    for cls, lib in ((ours, ag), (theirs, torch)):
        x = leaf(lib, [1.0, 2.0, 3.0])
        a = x * 1
        old_fn = a.grad_fn
        b = cls.apply(a)
        assert b is a and a._version == 2       # mul_ + mark_dirty
        assert a.grad_fn.name() == "DirtyBackward"
        assert a.grad_fn.next_functions[0][0] is old_fn
        b.sum().backward()
        results.append(x.grad)
    close(*results)


def test_mark_dirty_on_a_view_of_a_non_leaf_rebases_the_base_through_copyslices():
    ours, theirs = pair(build_dirty)
    results = []
    for cls, lib in ((ours, ag), (theirs, torch)):
        x = leaf(lib, [1.0, 2.0, 3.0, 4.0])
        base = x * 1
        view = base.view(2, 2)
        out = cls.apply(view)
        assert out is view
        assert type(base.grad_fn).__name__ == "CopySlices"
        assert out.grad_fn.name() == "AsStridedBackward0"
        (base * lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64)).sum().backward()
        results.append((x.grad, base))
    for a, b in zip(*results):
        close(a, b)


def test_mark_dirty_on_tensors_outside_the_graph():
    ours, theirs = pair(build_dirty)
    for cls, lib in ((ours, ag), (theirs, torch)):
        plain = lib.tensor([1.0, 2.0])
        out = cls.apply(plain)
        assert out is plain and not out.requires_grad and plain._version == 2
        with lib.no_grad():
            x = leaf(lib, [1.0])
            out = cls.apply(x)                      # no graph: the leaf check does not apply
        # ... and an input requiring grad comes back detached (same memory and version).
        assert out is not x and not out.requires_grad and not out._is_view()
        assert out._version == x._version == 2 and out.tolist() == [2.0]


def test_mark_dirty_of_a_non_leaf_input_that_did_not_require_grad():
    def build(lib):
        class AddInto(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                x.add_(y)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad, grad
        return AddInto
    for cls, lib in zip(pair(build), LIBS):
        target, y = lib.zeros(2, dtype=lib.float64), leaf(lib, [1.0, 2.0])
        out = cls.apply(target, y)
        assert out is target and not target.is_leaf and target.requires_grad
        assert target.grad_fn.name() == "AddIntoBackward"


@pytest.mark.parametrize("case, words", [
    ("not_returned", "Some elements marked as dirty during the forward method were not "
                     "returned as output. The inputs that are modified inplace must all be "
                     "outputs of the Function."),
    ("leaf", "a leaf Variable that requires grad has been used in an in-place operation."),
    ("view_of_leaf", "a view of a leaf Variable that requires grad is being used in an "
                     "in-place operation."),
    ("view_of_intermediate", r"ctx.mark_dirty\(\) received a tensor that was not an input. "
                             r"Only input Tensors that have been mutated should be passed to "
                             r"ctx.mark_dirty\(\)."),
    ("view_two_outputs", "If your Function modifies inplace an input that is a view of another "
                         "Tensor, your Function cannot return more than one Tensor."),
])
def test_mark_dirty_errors(case, words):
    def build(lib):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                if case == "view_of_intermediate":
                    view = (x * 1).view(-1)
                    ctx.mark_dirty(view)
                    return view
                x.mul_(2)
                ctx.mark_dirty(x)
                if case == "not_returned":
                    return x * 1
                if case == "view_two_outputs":
                    return x, x * 2
                return x

            @staticmethod
            def backward(ctx, *grads):
                return grads[0]
        return Bad

    def run(cls, lib):
        x = leaf(lib, [1.0, 2.0])
        argument = {"leaf": x, "view_of_leaf": x.view(2, 1),
                    "view_two_outputs": (x * 1).view(2, 1)}.get(case, x * 1)
        cls.apply(argument)
    classes = by_lib(build)
    assert_same_error(lambda lib: run(classes[lib], lib), RuntimeError, words)


def test_mark_dirty_of_a_non_input_that_is_not_a_view_only_warns():
    def build(lib):
        class Other(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                fresh = x * 1
                ctx.mark_dirty(fresh)
                return fresh

            @staticmethod
            def backward(ctx, grad):
                return grad
        return Other
    for cls, lib in zip(pair(build), LIBS):
        with pytest.warns(UserWarning, match="received a tensor that was not an input"):
            out = cls.apply(leaf(lib, [1.0]))
        assert out.grad_fn.name() == "OtherBackward"


def test_mark_dirty_and_mark_non_differentiable_take_tensors_only():
    for lib in LIBS:
        class Dirty3(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x, 3)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad

        class NonDiff3(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_non_differentiable(3)
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                return grad

        with pytest.raises(RuntimeError, match="mark_dirty can only accept variables"):
            Dirty3.apply(leaf(lib, [1.0]) * 1)
        with pytest.raises(RuntimeError, match="mark_non_differentiable only accepts variable "
                                               "arguments"):
            NonDiff3.apply(leaf(lib, [1.0]))


def test_setup_context_may_not_save_an_input_returned_as_is():
    def build(lib):
        class SaveReturned(lib.autograd.Function):
            @staticmethod
            def forward(x):
                return x

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(output)

            @staticmethod
            def backward(ctx, grad):
                return grad
        return SaveReturned
    classes = by_lib(build)
    assert_same_error(lambda lib: classes[lib].apply(leaf(lib, [1.0])),
                      RuntimeError, "An input that has been returned as-is as output is being "
                                    "saved for backward. This is not supported if you override "
                                    "setup_context.")


# ------------------------------------------------------------------ once_differentiable

def build_once(lib):
    from importlib import import_module
    once_differentiable = import_module(lib.__name__ + ".autograd.function").once_differentiable

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            ctx.grad_mode = lib.is_grad_enabled()
            return 2 * x * grad
    return Square


def test_once_differentiable_runs_under_no_grad_and_returns_plain_gradients():
    results = []
    for cls, lib in zip(pair(build_once), LIBS):
        x = leaf(lib, [1.0, 3.0])
        out = cls.apply(x)
        node = out.grad_fn
        (g,) = lib.autograd.grad(out.sum(), x, create_graph=True)
        assert node.grad_mode is False
        # The implicit grad_output does not require grad: nothing to guard.
        assert g.grad_fn is None and not g.requires_grad
        results.append(g)
    close(*results)


def test_once_differentiable_double_backward_raises():
    for cls, lib in zip(pair(build_once), LIBS):
        x = leaf(lib, [1.0, 3.0])
        grad_output = lib.ones(2, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(cls.apply(x), x, grad_output, create_graph=True)
        assert g.requires_grad and g.grad_fn.name() == "torch::autograd::Error"
        assert g.tolist() == [2.0, 6.0]
        with pytest.raises(RuntimeError, match="trying to differentiate twice a function that "
                                               "was marked with @once_differentiable"):
            g.sum().backward()


# ------------------------------------------------------------------ definitions

def test_missing_backward_and_both_backward_and_vjp():
    for lib in LIBS:
        class NoBackward(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

        class Both(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                return grad

            @staticmethod
            def vjp(ctx, grad):
                return grad

        class VjpOnly(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def vjp(ctx, grad):
                return grad * 4

        with pytest.raises(NotImplementedError, match="You must implement either the backward "
                                                      "or vjp method for your custom "
                                                      "autograd.Function to use it with "
                                                      "backward mode AD."):
            NoBackward.apply(leaf(lib, [1.0])).sum().backward()
        with pytest.raises(RuntimeError, match="Implementing both 'backward' and 'vjp'"):
            Both.apply(leaf(lib, [1.0])).sum().backward()
        x = leaf(lib, [1.0])
        VjpOnly.apply(x).sum().backward()
        assert x.grad.tolist() == [4.0]


def test_legacy_non_static_forward():
    words = ("Legacy autograd function with non-static forward method is deprecated. Please "
             "use new-style autograd function with static forward method.")
    for lib in LIBS:
        class Legacy(lib.autograd.Function):
            def forward(self, x):
                return x * 1

            def backward(self, grad):
                return grad

        with pytest.warns(DeprecationWarning, match="should not be instantiated"):
            instance = Legacy()
        with pytest.raises(RuntimeError, match=words):
            instance(leaf(lib, [1.0]))


def test_hooks_on_a_custom_node():
    ours, theirs = pair(build_mul_save)
    seen = []
    for cls, lib in ((ours, ag), (theirs, torch)):
        log = []
        x, y = leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 4.0])
        out = cls.apply(x, y, 1.0)
        out.grad_fn.register_prehook(lambda grads: log.append(("pre", grads[0].tolist())))
        out.grad_fn.register_hook(
            lambda grad_inputs, grad_outputs: log.append(
                ("post", [g.tolist() for g in grad_inputs])))
        out.sum().backward()
        seen.append(log)
    assert seen[0] == seen[1]


def test_ten_thousand_chained_functions_run_backward_without_recursion():
    def build(lib):
        class Step(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 1.0001

            @staticmethod
            def backward(ctx, grad):
                x, = ctx.saved_tensors
                return grad * 1.0001
        return Step
    Step = build(ag)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        x = leaf(ag, [1.0, 2.0])
        y = x
        for _ in range(10_000):
            y = Step.apply(y)
        y.sum().backward()
        np.testing.assert_allclose(to_numpy(x.grad), [1.0001 ** 10_000] * 2, rtol=1e-9)
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None                          # freed without overflowing the stack
    finally:
        sys.setrecursionlimit(limit)


def test_a_bfloat16_output_joins_the_graph():
    """ml_dtypes' bfloat16 is floating to autograd (NumPy does not call it a float): a
    Function's bfloat16 output requires grad and differentiates, as torch's."""
    def run(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * 2
        x = lib.ones(3, dtype=lib.bfloat16, requires_grad=True)
        y = Double.apply(x)
        y.sum().backward()
        return y.requires_grad, x.grad.float().tolist()
    assert run(ag) == run(torch)


@pytest.mark.parametrize("view", ["unbind", "split"])
def test_mark_dirty_on_a_view_of_a_multi_output_op_is_refused(view):
    """PyTorch's handle_view_on_rebase: a Function that writes a view of a multi-output op
    in place (mark_dirty) is refused with the view's words, as an in-place op on it is; the
    library's in-place activations are such Functions (fuzz seed 953001942)."""
    def fn(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad * 2
        x = lib.tensor([[1.5], [2.0]], requires_grad=True) * 1
        part = x.unbind(0)[1] if view == "unbind" else x.split(1)[1]
        return Double.apply(part)
    assert_same_error(fn, "is a view and is being modified inplace")
    assert_same_error(lambda lib: lib.nn.functional.selu(
        (lib.tensor([[1.5], [2.0]], requires_grad=True) * 1).unbind(0)[1], inplace=True),
        "Output 1 of Unbind is a view and is being modified inplace")
