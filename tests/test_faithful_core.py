"""Core autograd behaviours checked against torch 2.13: concurrent accumulation, in-place
ops whose backward ignores the old value, in-place ops on views, and API corners.

Each test runs the same code on autograd_cy and on torch (``lib``) and compares."""
import os
import threading

import pytest
import torch

import autograd_cy as ag
from oracle import assert_close, to_numpy

LIBS = [pytest.param(ag, id="ours"), pytest.param(torch, id="torch")]


def both(fn):
    """``fn(lib)`` on both libraries; the results must match (values, None-ness)."""
    ours, theirs = fn(ag), fn(torch)
    assert_close(ours, theirs)
    return ours, theirs


def raises_like(fn, *words):
    """``fn(lib)`` raises on both libraries, with the same exception type and ``words``."""
    errors = []
    for lib in (ag, torch):
        with pytest.raises(Exception) as info:
            fn(lib)
        errors.append(info.value)
    ours, theirs = errors
    assert type(ours) is type(theirs), (ours, theirs)
    for word in words:
        assert word in str(theirs), (word, theirs)
        assert word in str(ours), (word, ours)


# ------------------------------------------------------------ concurrent accumulation

@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("fresh_grad", [True, False])
def test_threads_accumulating_into_one_leaf_lose_no_update(lib, fresh_grad):
    # Eight threads backpropagate into one 512x512 parameter at once; NumPy releases the GIL
    # inside large in-place adds, so accumulation must be serialised per leaf.
    threads, steps, rounds = 8, 5, 4
    p = lib.zeros(512, 512, requires_grad=True)
    for _ in range(rounds):
        if fresh_grad:
            p.grad = None               # the race for the first gradient, too
        errors = []
        barrier = threading.Barrier(threads)

        def work(seed):
            try:
                y = (p * float(seed + 1)).sum()
                barrier.wait()
                for _ in range(steps):
                    y.backward(retain_graph=True)
            except BaseException as error:      # noqa: BLE001 - reported below
                errors.append(error)

        workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert not errors, errors
        expected = steps * sum(range(1, threads + 1))
        if not fresh_grad:
            expected *= _ + 1
        grad = to_numpy(p.grad)
        assert grad.min() == grad.max() == expected


# ------------------------------------- in-place ops whose backward ignores the old value

OVERWRITES = {
    "zero_": lambda lib, y: y.zero_(),
    "fill_number": lambda lib, y: y.fill_(3.0),
    "fill_tensor": lambda lib, y: y.fill_(lib.tensor(3.0)),
    "copy_": lambda lib, y: y.copy_(lib.ones(2)),
    "copy_broadcast": lambda lib, y: y.copy_(lib.tensor(4.0)),
}


@pytest.mark.parametrize("overwrite", OVERWRITES.values(), ids=OVERWRITES.keys())
def test_overwritten_value_gets_zero_gradient_not_none(overwrite):
    # The old value's gradient is zeros: the edge stays, grad() says it was used.
    def fn(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        overwrite(lib, y)
        return lib.autograd.grad(y.sum(), [x])
    ours, _ = both(fn)
    assert ours[0] is not None


@pytest.mark.parametrize("overwrite", OVERWRITES.values(), ids=OVERWRITES.keys())
def test_leaf_hook_behind_an_overwrite_sees_zeros(overwrite):
    def fn(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        x.register_hook(lambda g: seen.append(g) or g * 2)
        y = x * 2
        overwrite(lib, y)
        y.sum().backward()
        assert len(seen) == 1 and seen[0] is not None
        return seen[0], x.grad
    both(fn)


@pytest.mark.parametrize("overwrite", OVERWRITES.values(), ids=OVERWRITES.keys())
def test_overwriting_a_saved_result_is_detected(overwrite):
    # exp saves its result; zeroing it means ExpBackward0 runs and refuses to unpack.
    def fn(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        overwrite(lib, y)
        y.sum().backward()
    raises_like(fn, "modified by an inplace operation", "output 0 of Exp",
                "is at version 1; expected version 0")


def test_overwrite_keeps_its_value_operand_gradients():
    def fn(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        v = lib.tensor(3.0, requires_grad=True)
        w = lib.tensor([5.0, 6.0], requires_grad=True)
        y = x * 2
        y.fill_(v)
        first = lib.autograd.grad(y.sum(), [x, v])
        z = x * 2
        z.copy_(w)
        z.sum().backward()
        return first, x.grad, w.grad, lib.autograd.grad((x * 2).zero_().sum(), [x],
                                                         create_graph=True)
    both(fn)


def test_overwrite_node_names():
    for lib in (ag, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        names = [(x * 2).zero_().grad_fn.name(), (x * 2).fill_(1.0).grad_fn.name(),
                 (x * 2).fill_(lib.tensor(1.0)).grad_fn.name(),
                 (x * 2).copy_(lib.ones(2)).grad_fn.name()]
        assert names == ["ZeroBackward0", "FillBackward2", "FillBackward3",
                         "torch::autograd::CopyBackwards"]


# -------------------------------------------------- views whose base requires grad later

def test_inplace_with_a_grad_operand_brings_a_plain_base_into_the_graph():
    def fn(lib):
        base = lib.ones(3)
        v = base[:2]
        w = lib.tensor([2.0, 3.0], requires_grad=True)
        v.mul_(w)
        flags = (v.requires_grad, base.requires_grad, v.is_leaf, base.is_leaf,
                 v.grad_fn is not None, base.grad_fn.name().split("::")[-1])
        o = lib.ones(2, requires_grad=True)
        (v * o).sum().backward(retain_graph=True)
        other = base[1:]            # a view made after the base joined the graph
        (other * o).sum().backward()
        return flags, (w.grad, o.grad)
    ours, theirs = fn(ag), fn(torch)
    assert ours[0] == theirs[0] == (True, True, False, False, True, "CopySlices")
    assert_close(ours[1], theirs[1])


@pytest.mark.parametrize("op", ["add_", "mul_", "copy_"])
def test_base_gradient_after_inplace_on_a_plain_view(op):
    def fn(lib):
        base = lib.ones(2, 3)
        w = lib.tensor([2.0, 3.0, 4.0], requires_grad=True)
        getattr(base[0], op)(w)
        (base * lib.arange(6.0).reshape(2, 3)).sum().backward()
        return w.grad, base.requires_grad
    both(fn)


VIEW_MAKERS = {
    "slice": lambda a: a[1:],
    "view_of_view": lambda a: a[1:][1:],
    "view": lambda a: a.view(3),
    "unbind": lambda a: a.unbind()[0],
}


@pytest.mark.parametrize("make", VIEW_MAKERS.values(), ids=VIEW_MAKERS.keys())
def test_view_requires_grad_when_its_base_does(make):
    def fn(lib):
        a = lib.ones(3)
        v = make(a)
        before = v.requires_grad
        a.requires_grad_()
        w = v * 2
        (w * 1).sum().backward()        # v has no edge: nothing flows, nothing raises
        return (before, v.requires_grad, v.is_leaf, v.grad_fn is None, w.requires_grad,
                a.grad is None, a.detach().requires_grad)
    ours, theirs = fn(ag), fn(torch)
    assert ours == theirs == (False, True, True, True, True, True, False)


def test_view_made_in_no_grad_of_a_grad_leaf_requires_grad():
    def fn(lib):
        x = lib.ones(3, requires_grad=True)
        with lib.no_grad():
            v = x[:2]
        return v.requires_grad, v.is_leaf, (v * 2).requires_grad, x.data.requires_grad
    assert fn(ag) == fn(torch) == (True, True, True, False)


# ------------------------------------------------ retained grads and captures, hook order

VIEW_WRITES = {
    "base_in_place": lambda b: b.mul_(2),
    "sibling_view": lambda b: b[:1].mul_(2),
}


@pytest.mark.parametrize("write", VIEW_WRITES.values(), ids=VIEW_WRITES.keys())
def test_retain_grad_follows_a_view_whose_grad_fn_is_rebuilt(write):
    def fn(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = x * 1
        v = b[1:]
        v.retain_grad()
        seen = []
        v.register_hook(lambda g: seen.append(g))   # stays on the old grad_fn: never fires
        write(b)
        (v * 3).sum().backward()
        assert v.retains_grad and not seen
        return v.grad, x.grad
    both(fn)


def test_retain_grad_on_a_full_view_after_base_changed():
    def fn(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        b = x * 1
        v = b[...]
        v.retain_grad()
        b.mul_(2)
        v.sum().backward()
        return v.grad, x.grad
    ours, _ = both(fn)
    assert ours[0] is not None


@pytest.mark.parametrize("inputs", ["x,y", "y,x", "y"])
def test_grad_captures_a_running_node_before_its_tensor_hooks(inputs):
    # y's node runs anyway when x is asked for: y's gradient is captured before the hook;
    # asked for alone, the hook runs first and its edit is captured.
    def fn(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: g + 1)
        names = {"x": x, "y": y}
        result = lib.autograd.grad(y.sum(), [names[n] for n in inputs.split(",")])
        return result, y.grad
    both(fn)


# ----------------------------------------------------- multi-output views after in-place

MULTI_OUTPUT = {
    "split": lambda b: b.split(2)[0],
    "chunk": lambda b: b.chunk(2)[0],
    "unbind": lambda b: b.reshape(2, 2).unbind()[0],
}
READS = {
    "is_leaf": lambda p: p.is_leaf,
    "grad_fn": lambda p: p.grad_fn,
    "op": lambda p: p * 2,
    "view": lambda p: p[0],
    "register_hook": lambda p: p.register_hook(lambda g: g),
}


@pytest.mark.parametrize("read", READS.values(), ids=READS.keys())
@pytest.mark.parametrize("make", MULTI_OUTPUT.values(), ids=MULTI_OUTPUT.keys())
@pytest.mark.parametrize("grad_base", [True, False], ids=["graph_base", "plain_base"])
def test_multi_output_view_refuses_use_after_its_base_changed(grad_base, make, read):
    def fn(lib):
        x = lib.ones(4, requires_grad=grad_base)
        b = x * 1
        p = make(b)
        b.mul_(lib.ones(4, requires_grad=True))     # a plain base joins the graph here
        return read(p)
    words = ["its base or another view of its base has been modified inplace",
             "This view is the output of a function that returns multiple views."]
    if grad_base:
        words.append("is a view and")
    else:
        words.append("A view was created in no_grad mode")
    raises_like(fn, *words)


@pytest.mark.parametrize("make", MULTI_OUTPUT.values(), ids=MULTI_OUTPUT.keys())
def test_retain_grad_on_a_stale_multi_output_view(make):
    # retain_grad reads the grad_fn as stored: a graph view refuses, a plain one was a leaf.
    def fn(lib, grad_base):
        x = lib.ones(4, requires_grad=grad_base)
        b = x * 1
        p = make(b)
        b.mul_(lib.ones(4, requires_grad=True))
        p.retain_grad()
        return p.retains_grad
    assert fn(ag, False) == fn(torch, False) is False
    raises_like(lambda lib: fn(lib, True), "This view is the output of a function that "
                "returns multiple views.")


def test_multi_output_view_still_reads_its_data_after_its_base_changed():
    def fn(lib):
        x = lib.ones(4, requires_grad=True)
        b = x * 1
        p, q = b.split(2)
        b.mul_(2)
        return p.detach(), p.data, p.requires_grad, p.output_nr, p._version
    ours, theirs = fn(ag), fn(torch)
    assert ours[2:] == theirs[2:] == (True, 0, 1)
    assert_close(ours[:2], theirs[:2])


# -------------------------------------------------------- writes into expanded tensors

EXPANDED_WRITES = {
    "mul_single_row": lambda lib: lib.ones(1, 3).expand(1, -1).mul_(3),
    "exp_single_row": lambda lib: lib.ones(1, 3).expand(1, 3).exp_(),
    "copy_single_row": lambda lib: lib.ones(1, 3).expand(1, 3).copy_(lib.arange(3.0)),
    "fill_": lambda lib: lib.ones(3, 1).expand(3, 4).fill_(2.0),
    "zero_": lambda lib: lib.ones(3, 1).expand(3, 4).zero_(),
    "setitem_element": lambda lib: _setitem(lib.ones(1, 3).expand(1, 3), (0, 1), 7.0),
    "setitem_select": lambda lib: _setitem(lib.ones(1).expand(3), 0, 5.0),
    "empty_relu_": lambda lib: (lib.ones(0, 3) * 1).relu_(),
    "empty_add_": lambda lib: lib.ones(0, 3).add_(1),
    "empty_expanded": lambda lib: lib.ones(3, 0).expand(3, 0).mul_(2),
}


def _setitem(t, index, value):
    t[index] = value
    return t


@pytest.mark.parametrize("write", EXPANDED_WRITES.values(), ids=EXPANDED_WRITES.keys())
def test_writes_into_expanded_or_empty_tensors(write):
    both(write)


def test_fill_through_expand_writes_the_base_and_records():
    def fn(lib):
        x = lib.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
        base = x * 1
        view = base.expand(3, 4)
        view.fill_(2.0)
        assert base.grad_fn.name().split("::")[-1] == "CopySlices"
        assert view.grad_fn.name() == "AsStridedBackward0"
        return base, view
    both(fn)


ELEMENTWISE_INTO_EXPANDED = {
    "mul_": lambda t, lib: t.mul_(2),
    "add_": lambda t, lib: t.add_(1),
    "relu_": lambda t, lib: t.relu_(),
    "copy_": lambda t, lib: t.copy_(lib.ones(3, 4)),
}


@pytest.mark.parametrize("op", ELEMENTWISE_INTO_EXPANDED.values(),
                         ids=ELEMENTWISE_INTO_EXPANDED.keys())
def test_elementwise_write_into_shared_elements_is_refused(op):
    raises_like(lambda lib: op(lib.ones(3, 1).expand(3, 4), lib),
                "more than one element of the written-to tensor refers to a single memory "
                "location")


# ------------------------------------------------------------------------ API corners

def test_variable_returns_a_new_leaf_and_leaves_its_argument_alone():
    def fn(lib):
        x = lib.ones(2)
        v = lib.autograd.Variable(x, requires_grad=True)
        with lib.no_grad():
            v.mul_(3)           # same memory
        return (v is x, x.requires_grad, v.requires_grad, v.is_leaf, v._base is None,
                x.tolist())
    assert fn(ag) == fn(torch) == (False, False, True, True, True, [3.0, 3.0])


def test_deepcopy_of_a_leaf_copies_memory_flag_and_grad():
    import copy

    def fn(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        x.grad = lib.ones(2)
        pair = copy.deepcopy([x, x])
        y = pair[0]
        with lib.no_grad():
            y.add_(1)
        return (pair[0] is pair[1], y is x, y.requires_grad, y.is_leaf, y.grad is x.grad,
                x.tolist(), y.tolist(), y.grad.tolist(), copy.deepcopy(lib.ones(2).view(2))._base)
    assert fn(ag) == fn(torch)
    raises_like(lambda lib: copy.deepcopy(lib.ones(2, requires_grad=True) * 2),
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol")


def test_assigning_grad_and_data_is_checked():
    def own_grad(lib):
        x = lib.ones(2, requires_grad=True)
        x.grad = x
    raises_like(own_grad, "can't assign Variable as its own grad")

    def int_data(lib):
        x = lib.ones(2, requires_grad=True)
        x.data = lib.ones(2, dtype=lib.int64)
    raises_like(int_data, "data set to a tensor that requires gradients must be floating "
                "point or complex dtype")

    def plain_int_data(lib):
        x = lib.ones(2)
        x.data = lib.ones(2, dtype=lib.int64)
        return str(x.dtype).split(".")[-1]
    assert plain_int_data(ag) == plain_int_data(torch) == "int64"


@pytest.mark.parametrize("returned, error, words", [
    (lambda t: t * 2, RuntimeError, "Tensor post accumulate grad hooks should return None."),
    (lambda t: 5, TypeError, "expected Variable, but hook returned 'int'"),
])
def test_post_accumulate_grad_hook_must_return_none(returned, error, words):
    def fn(lib):
        x = lib.ones(2, requires_grad=True)
        x.register_post_accumulate_grad_hook(returned)
        (x * 2).sum().backward()
    raises_like(fn, words)
    with pytest.raises(error):
        fn(ag)


def test_post_accumulate_grad_hook_may_return_its_tensor():
    def fn(lib):
        x = lib.ones(2, requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda t: t)
        (x * 2).sum().backward()
        return x.grad
    both(fn)


@pytest.mark.parametrize("count", [0, 2])
def test_calling_a_grad_fn_with_the_wrong_number_of_gradients(count):
    def fn(lib):
        x = lib.ones(2, requires_grad=True)
        (x * 2).grad_fn(*[lib.ones(2)] * count)
    raises_like(fn, f"expected 1 arguments, got {count} instead")


def test_batched_grad_of_a_scalar_output():
    def fn(lib):
        x = lib.ones(3, requires_grad=True)
        return (lib.autograd.grad((x * 2).sum(), x, lib.arange(4.0), is_grads_batched=True),
                lib.autograd.grad(x * 2, x, lib.eye(3), is_grads_batched=True))
    both(fn)


def test_anomaly_report_does_not_replace_the_error_when_warnings_are_errors():
    import warnings

    def fn(lib):
        class Warns(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 1

            @staticmethod
            def backward(ctx, g):
                warnings.warn("in backward", DeprecationWarning)
                return g
        x = lib.ones(2, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with lib.autograd.set_detect_anomaly(True):
                Warns.apply(x).sum().backward()
    raises_like(fn, "in backward")


DETACH_VIEWS = {
    "of_plain": lambda lib: lib.ones(2)[:1],
    "of_detached": lambda lib: lib.ones(2, requires_grad=True).detach()[:1],
    "of_graph": lambda lib: (lib.ones(2, requires_grad=True) * 1)[:1],
}


@pytest.mark.parametrize("make", DETACH_VIEWS.values(), ids=DETACH_VIEWS.keys())
def test_detach_in_place_refuses_every_view(make):
    raises_like(lambda lib: make(lib).detach_(), "Can't detach views in-place. Use detach() "
                "instead.")


def test_saved_input_detached_in_place_refuses_to_unpack():
    def fn(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 1
        z = y.sin()
        y.detach_()
        z.sum().backward()
    raises_like(fn, "Trying to use a saved tensor that has been detached in-place")

    def leaf(lib):              # a saved leaf detached in place: nothing to refuse
        x = lib.ones(2, requires_grad=True)
        z = x.sin()
        x.detach_()
        z.sum().backward()
        return x.grad, x.requires_grad
    assert leaf(ag) == leaf(torch) == (None, False)


def test_unpacked_tensor_shares_the_version_of_what_the_unpack_hook_returned():
    def fn(lib):
        x = lib.ones(2, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
            z = x.exp()
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = x * 1
            w = y.sin()
        copied, kept = z.grad_fn._saved_result, w.grad_fn._saved_self
        with lib.no_grad():
            copied.add_(1)
            y.mul_(2)
        return copied._version, z._version, kept._version, y._version
    assert fn(ag) == fn(torch) == (1, 0, 1, 1)


def test_saved_tensor_hooks_skip_python_scalar_operands():
    def fn(lib):
        packed = []

        def pack(t):
            packed.append(tuple(t.shape))
            return t
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            x = lib.ones(2, requires_grad=True)
            out = (x * 2 + 3.0 * x + x / 2 + x.pow(2) + (2 - x) * 1.5).sum()
        out.backward()
        return packed, x.grad.tolist()
    assert fn(ag) == fn(torch)


# ----------------------------------------------------------- custom Function options

def _function_classes(lib):
    class Saves(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            with pytest.warns(DeprecationWarning, match="'saved_variables' is deprecated"):
                saved = ctx.saved_variables
            assert isinstance(saved, tuple)
            return g * saved[0]

    class ClearsOnAccess(lib.autograd.Function):
        clear_saved_tensors_on_access = True

        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            with pytest.raises(RuntimeError, match="saved_tensors can only be accessed once"):
                ctx.saved_tensors
            return g * a

    class NonDiff(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, materialize):
            ctx._materialize_non_diff_grads = materialize
            b = a.clone()
            ctx.mark_non_differentiable(b)
            return a * 2, b

        @staticmethod
        def backward(ctx, g, g_b):
            ctx.seen = g_b
            return g, None
    return Saves, ClearsOnAccess, NonDiff


def test_custom_function_saved_variables_and_clear_on_access():
    def fn(lib):
        saves, clears, _ = _function_classes(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        saves.apply(x).sum().backward()
        first = x.grad.clone()
        y = clears.apply(x)
        y.sum().backward(retain_graph=True)
        with pytest.raises(RuntimeError, match="saved_tensors can only be accessed once"):
            y.sum().backward()
        return first, x.grad
    both(fn)


@pytest.mark.parametrize("materialize", [True, False])
def test_materialize_non_diff_grads(materialize):
    def fn(lib):
        non_diff = _function_classes(lib)[2]
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y, _ = non_diff.apply(x, materialize)
        y.sum().backward()
        return y.grad_fn.seen, x.grad
    ours, theirs = both(fn)
    assert (ours[0] is None) == (theirs[0] is None) == (not materialize)


# ------------------------------------------------------------------ reentrant backward

def _deep_reentrant(lib, failing_at=None):
    class DeepReentrant(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with lib.enable_grad():
                ctx.x = lib.autograd.Variable(x.detach(), requires_grad=True) - 1
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, g):
            if ctx.x < 0:
                return g
            if failing_at is not None and float(ctx.x) == failing_at:
                raise KeyError("deep failure")
            assert lib.is_grad_enabled() is False
            with lib.enable_grad():
                DeepReentrant.apply(ctx.x).sum().backward()
                # The nested backward leaves the caller's grad mode as it found it, also
                # when it ran on a fresh thread (past 40 levels).
                assert lib.is_grad_enabled() is True
            return g
    return DeepReentrant


def test_reentrant_backward_two_thousand_levels_deep():
    def fn(lib):
        v = lib.tensor(2000.0, requires_grad=True)
        _deep_reentrant(lib).apply(v).sum().backward()
        return v.grad
    both(fn)


def test_an_error_deep_in_reentrant_backward_keeps_its_type():
    def fn(lib):
        v = lib.tensor(300.0, requires_grad=True)
        _deep_reentrant(lib, failing_at=5.0).apply(v).sum().backward()
    raises_like(fn, "deep failure")


def test_saved_tensor_hooks_reach_a_reentrant_backward_on_a_fresh_thread():
    """Past 40 nested levels the nested backward runs on a new thread; the caller's
    saved_tensors_hooks go with it, so every level's forward packs what it saves."""
    def fn(lib):
        class Nested(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                with lib.enable_grad():
                    ctx.x = lib.autograd.Variable(x.detach(), requires_grad=True).exp().log() - 1
                return ctx.x.detach()

            @staticmethod
            def backward(ctx, g):
                if ctx.x >= 0:
                    with lib.enable_grad():
                        Nested.apply(ctx.x).sum().backward()
                return g
        packed = []
        v = lib.tensor(60.0, dtype=lib.float64, requires_grad=True)
        y = Nested.apply(v)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t,
                                                    lambda t: t):
            y.sum().backward()
        return len(packed), v.grad
    ours, theirs = both(fn)
    assert ours[0] > 40


PACKS = {"identity": lambda t: t, "scaled": lambda t: t * 2, "detached": lambda t: t.detach()}
FORMULAS = {"pow": lambda a: a ** 3, "exp": lambda a: a.exp(), "mul_sin": lambda a: (a * a).sin()}


@pytest.mark.parametrize("formula", FORMULAS.values(), ids=FORMULAS.keys())
@pytest.mark.parametrize("pack", PACKS.values(), ids=PACKS.keys())
def test_double_backward_under_saved_tensor_hooks(pack, formula):
    def fn(lib):
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            a = lib.tensor([1.0, 2.0], requires_grad=True)
            g, = lib.autograd.grad(formula(a).sum(), (a,), create_graph=True)
            g.sum().backward()
        return g, a.grad
    ours, _ = both(fn)
    assert ours[1] is not None


def test_grad_through_an_in_place_op_on_a_view_of_a_plain_base_asks_only_for_the_operand():
    """grad() prunes the graph: CopySlices must not ask the in-place op's node for the view's
    gradient when the base needs none (the node did not save for it; this crashed)."""
    results = []
    for lib in (torch, ag):
        base = lib.ones(2, 3, dtype=lib.float64)
        w = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        view = base.transpose(0, 1)
        view *= w
        (grad,) = lib.autograd.grad((view * 3).sum(), [w])
        results.append(grad.item())
    assert results[0] == results[1] == 18.0


def test_float_of_a_tensor_that_requires_grad_warns_once_as_torch():
    """torch warns (once a process) when float() or complex() takes a tensor that requires
    grad; int(), bool(), item() and tolist() do not. Each library in a fresh process."""
    import subprocess
    import sys
    source = """
import warnings
import {lib} as lib
x = lib.tensor(1.5, requires_grad=True)
counts = []
for convert in (int, bool, lambda t: t.item(), lambda t: t.tolist(), float, float, complex):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        convert(x)
    counts.append([str(w.message).split(chr(10))[0] for w in caught])
print(counts)
"""
    outputs = [subprocess.run([sys.executable, "-c", source.format(lib=lib)], check=True,
                              capture_output=True, text=True,
                              cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                              ).stdout for lib in ("autograd_cy", "torch")]
    assert outputs[0] == outputs[1]
    assert "Converting a tensor with requires_grad=True to a scalar" in outputs[0]


def test_float_of_a_tensor_that_requires_grad_is_silent_under_no_grad():
    """torch's warning checks grad mode: float() under no_grad (as LBFGS's step takes its
    closure's loss) stays silent and leaves the one warning for a later float() with grad
    mode on. Each library in a fresh process."""
    import subprocess
    import sys
    source = """
import warnings
import {lib} as lib
x = lib.tensor(1.5, requires_grad=True)
counts = []
for mode in (lib.no_grad, lib.inference_mode, lib.enable_grad, lib.enable_grad):
    with warnings.catch_warnings(record=True) as caught, mode():
        warnings.simplefilter("always")
        float(x)
    counts.append(len(caught))
print(counts)
"""
    outputs = [subprocess.run([sys.executable, "-c", source.format(lib=lib)], check=True,
                              capture_output=True, text=True,
                              cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                              ).stdout for lib in ("autograd_cy", "torch")]
    assert outputs[0] == outputs[1] == "[0, 0, 1, 0]\n"
