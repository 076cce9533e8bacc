"""Hooks against torch: kinds and handles, where they live, their order, when they fire,
validation of their results, retained grads, in-place ops, AccumulateGrad and
multi-grad hooks.

Every test records a trace of hook calls (what ran, in which order, what it saw)
on autograd_cy and on torch and compares the two.
"""
import functools

import pytest

from oracle import assert_same, node_name, plain, assert_same_error


def acc_node(lib, leaf):
    return lib.autograd.graph.get_gradient_edge(leaf).node


# ------------------------------------------------------------------ kinds and handles

def test_every_hook_kind_returns_a_removable_handle():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        log = []
        handles = [
            y.register_hook(lambda g: log.append("tensor")),
            x.register_post_accumulate_grad_hook(lambda t: log.append("post accumulate")),
            y.grad_fn.register_prehook(lambda go: log.append("pre")),
            y.grad_fn.register_hook(lambda gi, go: log.append("post")),
        ]
        y.sum().backward(retain_graph=True)
        first = list(log)
        for handle in handles:
            handle.remove()
        log.clear()
        y.sum().backward()
        return first, log, x.grad
    ours, _ = assert_same(run)
    assert ours[1] == []


def test_same_kind_hooks_chain_in_registration_order():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        seen = []
        y.register_hook(lambda g: seen.append(("first", plain(g))) or g + 1)
        y.register_hook(lambda g: seen.append(("second", plain(g))) or g * 10)
        y.register_hook(lambda g: seen.append(("third", plain(g))))
        y.grad_fn.register_prehook(lambda go: seen.append(("pre 1", plain(go))) or (go[0] * 2,))
        y.grad_fn.register_prehook(lambda go: seen.append(("pre 2", plain(go))))
        y.grad_fn.register_hook(lambda gi, go: seen.append(("post 1", plain(gi))) or (gi[0] + 1,
                                                                                      None))
        y.grad_fn.register_hook(lambda gi, go: seen.append(("post 2", plain(gi), plain(go))))
        y.sum().backward()
        return seen, x.grad
    assert_same(run)


def test_grad_mode_inside_hooks_is_create_graph():
    def run(lib):
        modes = []
        for create_graph in (False, True):
            x = lib.ones(2, requires_grad=True)
            y = x * x
            y.register_hook(lambda g: modes.append(("tensor", lib.is_grad_enabled())))
            y.grad_fn.register_prehook(lambda go: modes.append(("pre", lib.is_grad_enabled())))
            y.grad_fn.register_hook(lambda gi, go: modes.append(("post",
                                                                 lib.is_grad_enabled())))
            out = y.sum()
            with lib.no_grad():
                lib.autograd.grad(out, x, create_graph=create_graph)
        return modes
    assert_same(run)


# ------------------------------------------------------------------ where hooks live

def test_non_leaf_hook_binds_to_the_current_grad_fn():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        log = []
        y.register_hook(lambda g: log.append(("y", plain(g))))
        z = y.exp()
        z.register_hook(lambda g: log.append(("z", plain(g))))
        (z * 3).sum().backward()
        return log
    assert_same(run, rtol=1e-5)


# ------------------------------------------------------------------ order in one node

def test_order_tensor_hooks_retain_grad_pre_hooks():
    """``y=x*2``: hook1 returns ``g*10``; hook2, retain_grad and the pre-hook all see 10g."""
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        log = []
        y.retain_grad()                          # registered first, still runs after hooks
        y.register_hook(lambda g: log.append(("hook1", plain(g))) or g * 10)
        y.register_hook(lambda g: log.append(("hook2", plain(g))))
        y.grad_fn.register_prehook(lambda go: log.append(("pre", plain(go))))
        y.grad_fn.register_hook(lambda gi, go: log.append(("post", plain(gi), plain(go))))
        y.sum().backward()
        return log, y.grad, x.grad
    ours, _ = assert_same(run)
    assert plain(ours[1]) == [10.0, 10.0] and plain(ours[2]) == [20.0, 20.0]


def test_hook_order_at_a_leaf():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        acc = acc_node(lib, x)
        y = x * 2
        log = []
        acc.register_hook(lambda gi, go: log.append(("acc post", plain(gi), plain(go),
                                                     plain(x.grad))))
        acc.register_prehook(lambda go: log.append(("acc pre", plain(go))))
        x.register_post_accumulate_grad_hook(lambda t: log.append(("post accumulate",
                                                                   plain(t.grad))))
        x.register_hook(lambda g: log.append(("tensor", plain(g))) or g + 1)
        y.sum().backward()
        return log
    assert_same(run)


# ------------------------------------------------------------------ when hooks fire

def _firing(lib, call):
    x = lib.ones(2, requires_grad=True)
    w = lib.ones(2, requires_grad=True)
    t = x * 3
    out = (t * w).sum()
    log = []
    t.register_hook(lambda g: log.append("t tensor hook"))
    t.retain_grad()
    t.grad_fn.register_prehook(lambda go: log.append("t node pre"))
    t.grad_fn.register_hook(lambda gi, go: log.append("t node post"))
    x.register_hook(lambda g: log.append("x tensor hook"))
    acc_node(lib, x).register_prehook(lambda go: log.append("x acc pre"))
    x.register_post_accumulate_grad_hook(lambda v: log.append("x post accumulate"))
    w.register_hook(lambda g: log.append("w tensor hook (pruned branch)"))
    if call == "plain":
        out.backward()
    elif call == "backward(inputs=t)":
        out.backward(inputs=[t])
    elif call == "grad(t)":
        lib.autograd.grad(out, t)
    elif call == "backward(inputs=x)":
        out.backward(inputs=[x])
    else:
        lib.autograd.grad(out, x)
    return log, t.grad, x.grad


@pytest.mark.parametrize("call", ["plain", "backward(inputs=t)", "grad(t)",
                                  "backward(inputs=x)", "grad(x)"])
def test_which_hooks_fire_depends_on_the_entry_point(call):
    ours, _ = assert_same(lambda lib: _firing(lib, call))
    log = ours[0]
    if call == "grad(t)":
        assert log == ["t tensor hook"]
    if call == "grad(x)":
        assert "x acc pre" not in log and "x post accumulate" not in log


# ------------------------------------------------------------------ validation

def _with_hook(install):
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        install(lib, x, y)
        y.sum().backward()
        return x.grad
    return run


def named_hook(grad):
    return grad.double()


class CallableHook:
    def __call__(self, grad):
        return grad.double()


@pytest.mark.parametrize("install, exception, message", [
    (lambda lib, x, y: y.register_hook(lambda g: 1), TypeError,
     r"^expected Variable, but hook returned 'int'$"),
    (lambda lib, x, y: y.register_hook(lambda g: lib.ones(3)), RuntimeError,
     r"^hook '<lambda>' has changed the size of value$"),
    (lambda lib, x, y: y.register_hook(lambda g: g.double()), RuntimeError,
     r"^hook '<lambda>' has changed the type of value \(was \w+\.FloatTensor got "
     r"\w+\.DoubleTensor\)$"),
    (lambda lib, x, y: x.register_hook(lambda g: g.double()), RuntimeError,
     r"^hook '<lambda>' has changed the type of value"),
    (lambda lib, x, y: y.register_hook(named_hook), RuntimeError,
     r"^hook 'named_hook' has changed the type of value"),
    (lambda lib, x, y: y.register_hook(CallableHook()), RuntimeError,
     r"^hook '<unknown>' has changed the type of value"),
    (lambda lib, x, y: y.register_hook(functools.partial(named_hook)), RuntimeError,
     r"^hook '<unknown>' has changed the type of value"),
    (lambda lib, x, y: y.grad_fn.register_prehook(lambda go: (go[0], go[0])), RuntimeError,
     r"^hook '<lambda>' has returned an incorrect number of values \(got 2, but expected 1\)$"),
    (lambda lib, x, y: y.grad_fn.register_hook(lambda gi, go: (gi[0],)), RuntimeError,
     r"^hook '<lambda>' has returned an incorrect number of values \(got 1, but expected 2\)$"),
    (lambda lib, x, y: y.grad_fn.register_hook(lambda gi, go: 5), TypeError,
     r"^expected tuple, but hook returned 'int'$"),
    (lambda lib, x, y: y.grad_fn.register_prehook(lambda go: [go[0]]), TypeError,
     r"^expected tuple, but hook returned 'list'$"),
    (lambda lib, x, y: y.grad_fn.register_prehook(lambda go: (lib.zeros(3),)), RuntimeError,
     r"^hook '<lambda>' has changed the size of value$"),
    (lambda lib, x, y: y.grad_fn.register_hook(lambda gi, go: (lib.zeros(3), None)),
     RuntimeError, r"^hook '<lambda>' has changed the size of value$"),
    (lambda lib, x, y: x.register_post_accumulate_grad_hook(lambda t: 5), TypeError,
     r"^expected Variable, but hook returned 'int'$"),
])
def test_hook_return_values_are_validated(install, exception, message):
    assert_same_error(_with_hook(install), exception, message)


def test_post_hook_may_replace_grad_inputs():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        w = lib.ones(2, requires_grad=True)
        y = x * w
        y.grad_fn.register_hook(lambda gi, go: (lib.zeros(2), None))
        y.sum().backward()
        return x.grad, w.grad
    assert_same(run)


# ------------------------------------------------------------------ retained grads

def test_retained_grad_is_a_new_object_each_time():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.sum().backward(retain_graph=True)
        first = y.grad
        y.sum().backward(retain_graph=True)
        x_grad = x.grad
        (y * 3).sum().backward()
        return (first is y.grad, plain(first), plain(y.grad), x.grad is x_grad,
                y.grad.is_contiguous())
    assert_same(run)


def test_retained_grad_is_also_set_during_autograd_grad():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        y.retain_grad()
        out = (y * y).sum()
        lib.autograd.grad(out, x, retain_graph=True)
        after_grad_x = plain(y.grad)
        lib.autograd.grad(out, y)
        return after_grad_x, plain(y.grad), x.grad
    assert_same(run)


def test_retained_grad_of_transposed_tensor_is_contiguous():
    def run(lib):
        x = lib.ones(2, 3, requires_grad=True)
        y = x.transpose(0, 1)
        y.retain_grad()
        (y * y.detach()).sum().backward()
        return y.grad.is_contiguous(), y.grad.stride()
    assert_same(run)


# ------------------------------------------------------------------ hooks and in-place

def test_hooks_registered_before_an_in_place_op_stay_on_the_old_grad_fn():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        a = x.clone()
        log = []
        a.register_hook(lambda g: log.append(("hook1", plain(g))))
        a.retain_grad()
        a.mul_(2)
        a.register_hook(lambda g: log.append(("hook2", plain(g))))
        (a * 3).sum().backward()
        return log, a.grad, x.grad, node_name(a.grad_fn)
    ours, _ = assert_same(run)
    assert ours[0] == [("hook2", [3.0, 3.0]), ("hook1", [6.0, 6.0])]


# ------------------------------------------------------------------ AccumulateGrad hooks

def test_accumulate_grad_node_hooks_see_the_incoming_gradient():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        acc = acc_node(lib, x)
        log = []
        acc.register_prehook(lambda go: log.append(("pre", plain(go))))
        acc.register_hook(lambda gi, go: log.append(("post", plain(gi), plain(go))))
        x.register_post_accumulate_grad_hook(lambda t: log.append("post accumulate"))
        (x * 4).sum().backward()
        return log, node_name(acc), acc.next_functions
    assert_same(run)


# ------------------------------------------------------------------ multi-grad hooks

def test_multi_grad_hook_all_fires_once_with_every_gradient():
    """The docs example: ``[True, True, True, False]``, then with inputs=(a,)."""
    def run(lib):
        a = lib.rand(2, 3, requires_grad=True)
        b = lib.rand(2, 3, requires_grad=True)
        c = a * b
        d = a * b
        calls = []
        lib.autograd.graph.register_multi_grad_hook(
            (a, b, c, d), lambda grads: calls.append([g is not None for g in grads]))
        c.sum().backward(retain_graph=True)
        c.sum().backward(inputs=(a,), retain_graph=True)
        return calls
    ours, _ = assert_same(run)
    assert ours == [[True, True, True, False], [True, False, True, False]]


def test_multi_grad_hook_runs_inside_the_last_tensor_hook():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        p = x * 2
        q = x * 3
        log = []
        q.register_hook(lambda g: log.append("q before"))
        handle = lib.autograd.graph.register_multi_grad_hook(
            (p, q), lambda grads: log.append(("multi", plain(grads))))
        p.register_hook(lambda g: log.append("p after"))
        (p + q).sum().backward(retain_graph=True)
        handle.remove()
        (p + q).sum().backward()
        return log
    assert_same(run)


def test_multi_grad_hook_any_and_its_errors():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        p = x * 2
        q = x * 3
        calls = []
        lib.autograd.graph.register_multi_grad_hook(
            (p, q, lib.ones(2)), lambda g: calls.append(plain(g)), mode="any")
        (p * 5 + q).sum().backward(retain_graph=True)
        (p * 5 + q).sum().backward()
        return calls
    assert_same(run)

    assert_same_error(lambda lib: lib.autograd.graph.register_multi_grad_hook(
               (lib.ones(2, requires_grad=True),), print, mode="bad"), ValueError,
               r"^Expects mode to be one of \('all', 'any'\) but got bad$")
    assert_same_error(lambda lib: lib.autograd.graph.register_multi_grad_hook(
               (lib.ones(2, requires_grad=True), lib.ones(2)), print), AssertionError,
               r"Expected gradient function to be set")

    def leaf_with_grad(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        lib.autograd.graph.register_multi_grad_hook((x, y), print)
        lib.autograd.grad(y.sum(), x)
    assert_same_error(leaf_with_grad, RuntimeError,
                      r"^A leaf node was passed to _will_engine_execute_node but we are currently "
                      r"running autograd\.grad\(\)")


def test_grad_fn_input_metadata_describes_each_output():
    def run(lib):
        x = lib.ones(2, 3, requires_grad=True, dtype=lib.float64)
        metadata, = (x * 2).grad_fn._input_metadata
        # torch runs on the CPU; ours on the test device: the metadata names the tensor's
        return (tuple(metadata.shape), str(metadata.dtype).split(".")[-1],
                str(metadata.device) == str(x.device))
    assert_same(run)


def test_saved_tensors_hooks_entered_or_exited_during_backward_leave_no_trace():
    """Backward runs with a copy of the caller's saved_tensors_hooks stack."""
    def run(lib):
        packed = []
        counting = lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t,
                                                          lambda t: t)

        def unpack(t):
            counting.__enter__()
            return t
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
            y = lib.ones(2, requires_grad=True).sin()
        y.sum().backward()
        lib.ones(2, requires_grad=True).exp()       # would pack if the hook had leaked
        return len(packed)
    assert_same(run)
