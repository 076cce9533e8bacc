"""trace_hooks: the log of hook calls, against the order torch calls the same hooks.

The same graph gets the same hooks in both libraries; each torch hook appends its label to
torch's log when torch calls it. ``retain_grad``'s hook is no user hook in torch: where it
ran is read from torch's behaviour, each hook noting whether the retained ``.grad`` is set
yet (it is set by that hook). trace_hooks' log, mapped to the same labels, must equal it.
"""
import pytest
import torch

import autograd_cy as ag
from autograd_cy.autograd import trace_hooks
from autograd_cy._C.tracing import recording
from tests.oracle import assert_close, run_threads


def install_hooks(lib, log):
    """A graph with every kind of hook; returns (loss, leaves, retained tensor)."""
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x * w
    z = y.exp() + y                     # y feeds two nodes: its hooks still run once
    loss = z.sum()

    def hook(label):
        def record(*args):
            log.append((label, y.grad is not None))
        record.label = label
        return record

    x.register_hook(hook("x hook 1"))
    x.register_hook(hook("x hook 2"))
    x.register_post_accumulate_grad_hook(hook("x post accumulate"))
    w.register_post_accumulate_grad_hook(hook("w post accumulate"))
    y.register_hook(hook("y hook before retain_grad"))
    y.retain_grad()
    y.register_hook(hook("y hook after retain_grad"))
    y.grad_fn.register_prehook(hook("y node pre-hook"))
    y.grad_fn.register_hook(hook("y node post-hook"))
    z.grad_fn.register_hook(hook("z node post-hook"))
    loss.grad_fn.register_prehook(hook("loss node pre-hook"))
    x_accumulator = y.grad_fn.next_functions[0][0]
    x_accumulator.register_prehook(hook("x accumulator pre-hook"))
    x_accumulator.register_hook(hook("x accumulator post-hook"))
    return loss, {"x": x, "w": w}, y


def torch_log(run):
    """torch's hook labels in call order, with retain_grad's hook placed where torch ran it:
    after the last hook that saw no retained ``.grad``."""
    log = []
    loss, leaves, _ = install_hooks(torch, log)
    run(torch, loss, leaves)
    labels = [label for label, _ in log]
    seen = [retained for _, retained in log]
    if any(seen):
        labels.insert(seen.index(True), "retains_grad")
    return labels


def our_log(run):
    own_log = []
    loss, leaves, y = install_hooks(ag, own_log)
    with trace_hooks() as log:
        run(ag, loss, leaves)
    labels = [call.hook.label if call.kind != "retains_grad" else "retains_grad"
              for call in log]
    assert [label for label, _ in own_log] == [label for label in labels
                                               if label != "retains_grad"]
    return log, labels, leaves, y


def backward(lib, loss, leaves):
    loss.backward()


def backward_to_w(lib, loss, leaves):
    loss.backward(inputs=[leaves["w"]])


def grad_of_x(lib, loss, leaves):
    lib.autograd.grad(loss, [leaves["x"]])


@pytest.mark.parametrize("run", [backward, backward_to_w, grad_of_x],
                         ids=["backward", "backward-inputs", "grad"])
def test_log_order_matches_torch(run):
    log, labels, _, _ = our_log(run)
    assert labels == torch_log(run)
    assert [call.order for call in log] == list(range(len(log)))


def test_kinds_nodes_and_tensors():
    log, labels, leaves, y = our_log(backward)
    by_label = dict(zip(labels, log))
    kinds = {
        "x hook 1": "tensor pre-hook", "y hook before retain_grad": "tensor pre-hook",
        "retains_grad": "retains_grad", "y node pre-hook": "node pre-hook",
        "y node post-hook": "node post-hook", "x post accumulate": "post accumulate grad",
        "x accumulator pre-hook": "node pre-hook",
    }
    for label, kind in kinds.items():
        assert by_label[label].kind == kind
    assert by_label["x hook 1"].tensor is leaves["x"]
    assert by_label["x post accumulate"].tensor is leaves["x"]
    assert by_label["retains_grad"].tensor is y
    assert by_label["y hook before retain_grad"].tensor is None       # a non-leaf's: on
    assert by_label["y hook before retain_grad"].node is y.grad_fn    # its grad_fn, slot 0
    assert by_label["y node post-hook"].slot == -1
    assert {call.backward for call in log} == {0}


def test_gradients_are_those_of_a_plain_backward():
    _, _, leaves, y = our_log(backward)
    their_loss, their_leaves, their_y = install_hooks(torch, [])
    their_loss.backward()
    for name in leaves:
        assert_close(leaves[name].grad, their_leaves[name].grad)
    assert_close(y.grad, their_y.grad)


def test_backwards_inside_the_block_and_inside_a_hook():
    def build(lib, log):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        z = lib.tensor([3.0], requires_grad=True)
        z.register_hook(lambda grad: log.append("z hook"))

        def inner_backward(grad):
            log.append("x hook")
            with lib.enable_grad():
                (z * z).sum().backward()
        x.register_hook(inner_backward)
        return x, z

    their_log = []
    x, z = build(torch, their_log)
    (x * 2).sum().backward()
    (z * 2).sum().backward()
    x, z = build(ag, [])
    with trace_hooks() as log:
        (x * 2).sum().backward()
        (z * 2).sum().backward()
    assert [call.hook.__name__ if call.hook.__name__ != "<lambda>" else "z hook"
            for call in log] == ["inner_backward", "z hook", "z hook"]
    assert [label for label in their_log] == ["x hook", "z hook", "z hook"]
    assert [call.backward for call in log] == [0, 1, 2]


def test_the_log_prints_and_the_recorder_goes_away():
    with pytest.raises(ZeroDivisionError):
        with trace_hooks() as log:
            loss, _, _ = install_hooks(ag, [])
            loss.backward()
            1 / 0
    assert not recording()
    lines = str(log).splitlines()
    assert lines[0].split() == ["order", "kind", "node", "slot", "hook"]
    assert len(lines) == len(log) + 1
    assert "0x" not in str(log)


def test_hooks_called_on_another_thread_are_not_logged():
    calls = []
    x = ag.tensor([1.0], requires_grad=True)
    x.register_hook(lambda grad: calls.append("hook"))
    with trace_hooks() as log:
        run_threads(lambda: (x * 2).sum().backward())
    assert calls == ["hook"] and list(log) == []
