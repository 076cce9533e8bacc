"""why_alive: the chain of references that keeps a graph alive, in words, for each keeper
the issue names (a variable in a frame, a ctx attribute, a hook's closure, a retained .grad
with create_graph) and for a saved tensor. Each test then checks the words against what
plain backward and reference counting do: the graph named really is alive (backward through
it gives torch's gradients), and dropping the reference named frees it."""
import gc
import weakref

import pytest
import torch

import autograd_cy as ag
from autograd_cy.autograd import why_alive
from oracle import DEVICE_NAME, assert_close, to_torch

# How the reports spell a float32 tensor's dtype (and device, off the CPU).
F32 = "float32" if DEVICE_NAME == "cpu" else f"float32 {DEVICE_NAME}"


def values():
    return ag.tensor([0.5, 1.5, -2.0], requires_grad=True)


def lines_of(report):
    return [line.strip() for line in str(report).splitlines()]


def freed(ref):
    gc.collect()
    return ref() is None


def test_a_local_variable_of_a_calling_frame():
    x = values()
    seen = {}

    def outer():
        kept = (x * 2).exp()
        node = weakref.ref(kept.grad_fn.next_functions[0][0])
        inner(node)
        kept.sum().backward()           # the graph named is the one backward runs
        return node

    def inner(node):
        seen["report"] = why_alive(node())

    node = outer()
    lines = lines_of(seen["report"])
    assert lines[0] == "MulBackward0 is kept alive by:"
    assert lines[1].startswith("local variable 'kept' in outer() at test_why_alive.py:")
    assert lines[2:] == ["its grad_fn is ExpBackward0", "whose input 0 comes from MulBackward0"]
    tx = to_torch(x)
    (tx * 2).exp().sum().backward()
    assert_close(x.grad, tx.grad)
    assert freed(node)                  # outer() returned: nothing else kept it


def test_a_ctx_attribute_of_a_custom_function():
    class KeepAround(ag.autograd.Function):
        @staticmethod
        def forward(ctx, a, holder):
            ctx.kept_graph = holder[0]      # in a list: not an input with an edge of its own
            return a * 1

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.kept_graph.detach(), None

    x = values()
    out = KeepAround.apply(x, [(x * 3).sin()])
    node = weakref.ref(out.grad_fn.kept_graph.grad_fn)
    lines = lines_of(why_alive(node()))
    assert lines[0] == "SinBackward0 is kept alive by:"
    assert lines[1].startswith("local variable 'out' in test_a_ctx_attribute_of_a_custom_function")
    assert f"whose ctx attribute 'kept_graph' is tensor (3,) {F32} with grad_fn=SinBackward0" \
        in lines
    out.sum().backward()
    tx = to_torch(x)
    (tx * (tx * 3).sin().detach()).sum().backward()
    assert_close(x.grad, tx.grad)
    assert not freed(node)              # backward does not drop ctx attributes
    del out
    assert freed(node)


def make_hook(captured):
    def scale_by_captured(grad):
        return grad * captured.detach()
    return scale_by_captured


def test_a_hooks_closure():
    x = values()
    y = x * 2
    y.register_hook(make_hook((x * 7).cos()))
    hook, = y._backward_hooks.values()
    node = weakref.ref(hook.__closure__[0].cell_contents.grad_fn)
    del hook
    lines = lines_of(why_alive(node()))
    assert lines[0] == "CosBackward0 is kept alive by:"
    assert lines[1].startswith("local variable 'y' in test_a_hooks_closure()")
    assert lines[2] == "its grad_fn is MulBackward0"
    assert lines[3].startswith("which has the tensor hook (on its output 0) scale_by_captured() "
                               "of test_why_alive.py:")
    assert lines[4] == f"whose closure variable 'captured' is tensor (3,) {F32} with " \
                       "grad_fn=CosBackward0"
    y.sum().backward()
    tx = to_torch(x)
    ty = tx * 2
    ty.register_hook(make_hook((tx * 7).cos()))
    ty.sum().backward()
    assert_close(x.grad, tx.grad)
    assert not freed(node)
    del y
    assert freed(node)


def print_after(total):
    return lambda grad_inputs, grad_outputs: print(total)


def test_a_node_post_hooks_closure():
    x = values()
    y = x.exp()
    y.grad_fn.register_hook(print_after((x * 4).sum()))
    post_hook, = y.grad_fn._inspect()["post_hooks"].values()
    node = weakref.ref(post_hook.__closure__[0].cell_contents.grad_fn)
    del post_hook
    lines = lines_of(why_alive(node()))
    assert lines[2] == "its grad_fn is ExpBackward0"
    assert lines[3].startswith("which has the post-hook <lambda>() of test_why_alive.py:")
    assert lines[4] == f"whose closure variable 'total' is tensor () {F32} with " \
                       "grad_fn=SumBackward0"


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_a_retained_grad_with_create_graph():
    def run(lib):
        w = lib.tensor([0.5, 1.5, -2.0], requires_grad=True)
        (w ** 3).sum().backward(create_graph=True)
        return w
    w = run(ag)
    node = weakref.ref(w.grad.grad_fn)
    lines = lines_of(why_alive(node()))
    assert lines[1].startswith("local variable 'w' in test_a_retained_grad_with_create_graph()")
    assert lines[2].startswith(f"its .grad is tensor (3,) {F32} with grad_fn=")
    assert "(backward with create_graph=True)" in lines[2]
    # That graph is real: the second derivative through it is torch's.
    tw = run(torch)
    second, = ag.autograd.grad(w.grad.sum(), w)
    their_second, = torch.autograd.grad(tw.grad.sum(), tw)
    assert_close(second, their_second)
    w.grad = None
    assert freed(node)


def test_a_saved_tensor():
    x = values()
    temporary = x.exp()
    product = temporary * x
    ref = weakref.ref(temporary)
    del temporary
    lines = lines_of(why_alive(ref()))
    assert lines[0] == f"tensor (3,) {F32} with grad_fn=ExpBackward0 is kept alive by:"
    assert lines[1].startswith("local variable 'product' in test_a_saved_tensor()")
    assert lines[2:] == ["its grad_fn is MulBackward0",
                         f"which saved 'self' for backward: tensor (3,) {F32} with "
                         "grad_fn=ExpBackward0"]
    product.sum().backward()            # frees what MulBackward0 saved
    assert freed(ref)


GLOBAL_KEEPER = []


def test_a_module_global_and_what_keeps_nothing():
    x = values()
    GLOBAL_KEEPER.append((x * 5).tanh())
    node = weakref.ref(GLOBAL_KEEPER[0].grad_fn)
    try:
        lines = lines_of(why_alive(node()))
        assert lines[1] == (f"global variable 'GLOBAL_KEEPER' of module {__name__}")
        assert lines[2:] == [f"which holds [0] tensor (3,) {F32} with grad_fn=TanhBackward0",
                             "its grad_fn is TanhBackward0"]
    finally:
        GLOBAL_KEEPER.clear()
    assert freed(node)
    lonely = lines_of(why_alive(object()))
    assert lonely == ["a object: nothing the garbage collector sees refers to it"]


def test_the_report_keeps_nothing_alive():
    x = values()
    y = x.sin()
    node = weakref.ref(y.grad_fn)
    report = why_alive(node())
    del y
    assert freed(node)
    assert "SinBackward0" in str(report)


def raise_with_a_graph(x):
    inside = (x * 3).exp()
    raise ValueError(f"failed with {inside.shape}")


def test_a_caught_exception_keeps_the_failed_call():
    x = values()
    try:
        raise_with_a_graph(x)
    except ValueError as error:
        caught = error
    node = weakref.ref(caught.__traceback__.tb_next.tb_frame.f_locals["inside"].grad_fn)
    lines = lines_of(why_alive(node()))
    assert lines[1].startswith("local variable 'caught' in "
                               "test_a_caught_exception_keeps_the_failed_call()")
    assert lines[2].startswith("whose traceback holds the finished call raise_with_a_graph() at")
    assert lines[3:] == [f"whose local variable 'inside' is tensor (3,) {F32} with "
                         "grad_fn=ExpBackward0", "its grad_fn is ExpBackward0"]
    del caught
    assert freed(node)
