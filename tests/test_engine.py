"""The backward engine against torch, one behaviour per test: graph construction,
backward() and grad() arguments, execution order and pruning, saved tensors, and
accumulation into .grad.

Each test runs the same snippet on autograd_cy and on torch and compares what a
user can observe: values, ``.grad``, execution traces (which nodes ran, in which
order), graph structure, error types and key words, warnings.
"""
import collections.abc
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from autograd_cy.autograd.graph import Node
from oracle import (
    PROVENANCE_TAIL, assert_same, assert_same_error, both, graph_structure, node_name, plain,
    run_threads, same_warning, set_history, to_numpy,
)


def will_execute(lib):
    """``torch._C._will_engine_execute_node`` and its autograd_cy twin."""
    if lib is torch:
        return torch._C._will_engine_execute_node
    return ag.autograd.graph._will_engine_execute_node


def graph_task_id(lib):
    if lib is torch:
        return torch._C._current_graph_task_id()
    return ag.autograd.graph._current_graph_task_id()


def queue_callback(lib, fn):
    lib.autograd.Variable._execution_engine.queue_callback(fn)


def trace_nodes(lib, log, **tensors):
    """A node pre-hook on each tensor's grad_fn (or AccumulateGrad) that logs its label."""
    handles = []
    for label, t in tensors.items():
        node = lib.autograd.graph.get_gradient_edge(t).node
        handles.append(node.register_prehook(lambda grads, label=label: log.append(label)))
    return handles


# ------------------------------------------------------------------ graph construction

def test_ops_record_only_in_grad_mode_with_an_input_requiring_grad():
    def flags(lib):
        x = lib.ones(2, requires_grad=True)
        c = lib.ones(2)
        with lib.no_grad():
            a = x * 2
        with lib.inference_mode():
            b = x * 2
        d = c * 2
        return [(t.requires_grad, t.grad_fn is None, t.is_leaf) for t in (a, b, d)]
    assert_same(flags)


def test_output_gets_grad_fn_and_output_nr():
    def run(lib):
        y = lib.ones(2, requires_grad=True) * 3
        return node_name(y.grad_fn), y.output_nr, y.requires_grad, y.is_leaf
    assert_same(run)


def test_next_functions_follow_argument_order():
    def structure(lib):
        x = lib.ones(2, requires_grad=True)
        w = lib.ones(2, requires_grad=True)
        c = lib.ones(2)
        graphs = [x * c, c * x, x * 2, (x * w).exp() + x, (x + 1).sum(), x.tanh() * w.exp()]
        return [graph_structure(g.grad_fn) for g in graphs]
    assert_same(structure)


def test_edges_name_which_output_of_the_producer():
    # input_nr is stored apart from the node it refers to (NOTE [Edges as two tuples]):
    # pin the non-zero ones, from a multi-output node and from an in-place op on a view.
    def structure(lib):
        x = lib.ones(3, 2, requires_grad=True)
        w = lib.ones(2, requires_grad=True)
        first, second, third = x.split(1)
        mixed = third * first + second
        base = x.clone()
        base[1].mul_(w)
        return [graph_structure(mixed.grad_fn), graph_structure(base.grad_fn),
                [nr for _, nr in mixed.grad_fn.next_functions[0][0].next_functions]]
    assert_same(structure)


def test_accumulate_grad_is_one_per_leaf_and_weakly_cached():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        a, b = x * 2, x * 3
        acc_a, acc_b = a.grad_fn.next_functions[0][0], b.grad_fn.next_functions[0][0]
        same = acc_a is acc_b
        hooked = []
        acc_a.register_prehook(lambda grads: hooked.append("node hook"))
        x.register_hook(lambda grad: hooked.append("tensor hook"))
        del a, b, acc_a, acc_b
        c = x * 4                           # a new AccumulateGrad: the node hook is gone
        c.sum().backward()
        return same, node_name(c.grad_fn.next_functions[0][0]), hooked
    ours, theirs = assert_same(run)
    assert ours[2] == ["tensor hook"]


def test_sequence_nr_increases_and_accumulate_grad_takes_the_maximum():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        a = x * 2
        with lib.no_grad():
            x * 5                           # records nothing, takes no number
        b = a.exp()
        c = b + a
        numbers = [t.grad_fn._sequence_nr() for t in (a, b, c)]
        acc = a.grad_fn.next_functions[0][0]
        return ([n - numbers[0] for n in numbers], acc._sequence_nr(),
                node_name(acc))
    assert_same(run)


def test_sequence_nr_is_thread_local():
    def run(lib):
        found = []

        def worker():
            x = lib.ones(1, requires_grad=True)
            found.append((x * 2).grad_fn._sequence_nr())
            found.append((x * 2).grad_fn._sequence_nr())
        run_threads(worker)
        return found
    assert_same(run)


# ------------------------------------------------------------------ backward() / grad()

def _parameters(fn):
    import inspect
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]


def test_backward_and_grad_take_pytorchs_arguments():
    for name in ("backward", "grad"):
        assert _parameters(getattr(ag.autograd, name)) == _parameters(
            getattr(torch.autograd, name))
    assert _parameters(ag.Tensor.backward) == _parameters(torch.Tensor.backward)


def test_inputs_as_a_dict_but_not_other_mappings():
    def as_dict(lib):
        x = lib.ones(2, requires_grad=True)
        w = lib.ones(2, requires_grad=True)
        return lib.autograd.grad((x * w * 3).sum(), {"x": x, "w": w})
    ours, _ = assert_same(as_dict)
    assert isinstance(ours, dict)

    class Inputs(collections.abc.Mapping):
        def __init__(self, t):
            self.t = t

        def __getitem__(self, key):
            return self.t

        def __len__(self):
            return 1

        def __iter__(self):
            return iter(["a"])

    def with_mapping(call):
        def run(lib):
            x = lib.ones(2, requires_grad=True)
            if call == "grad":
                lib.autograd.grad((x * 2).sum(), Inputs(x))
            else:
                lib.autograd.backward((x * 2).sum(), inputs=Inputs(x))
        return run
    for call in ("grad", "backward"):
        assert_same_error(with_mapping(call), TypeError,
                          rf"^`inputs` argument to `{call}\(\)` must be a dict, not Inputs\. Other "
                          r"Mapping types are not supported\.$")


def test_empty_inputs_are_an_error():
    assert_same_error(
        lambda lib: lib.autograd.grad((lib.ones(2, requires_grad=True) * 2).sum(), []),
        RuntimeError, r"^`inputs` argument to `grad\(\)` cannot be empty\.$")
    assert_same_error(lambda lib: (lib.ones(2, requires_grad=True) * 2).sum().backward(inputs=[]),
                      RuntimeError, r"^`inputs` argument to `backward\(\)` cannot be empty\.$")

    def zero_dim_input(lib):
        x = lib.tensor(2.0, requires_grad=True)
        first = lib.autograd.grad(x * 3, inputs=x)
        (x * 5).backward(inputs=x)
        return first, x.grad
    assert_same(zero_dim_input)


def test_implicit_gradient_only_for_scalars():
    assert_same_error(lambda lib: (lib.ones(2, requires_grad=True) * 2).backward(), RuntimeError,
                      r"^grad can be implicitly created only for scalar outputs$")
    assert_same_error(
        lambda lib: lib.autograd.grad(lib.ones(2, requires_grad=True) * 2,
                                      lib.ones(1)), RuntimeError,
        r"grad can be implicitly created only for scalar outputs|does not require grad")

    def one_element(lib):
        x = lib.ones(1, 1, requires_grad=True)
        (x * 3).backward()                  # numel 1 is enough, any shape
        return x.grad
    assert_same(one_element)


def test_explicit_gradient_shape_must_match():
    assert_same_error(lambda lib: lib.autograd.grad(lib.ones(3, requires_grad=True) * 2,
                                                    lib.ones(3), lib.ones(2)),
                      RuntimeError, "does not require grad|Mismatch in shape")

    def mismatch(lib):
        x = lib.ones(3, requires_grad=True)
        (x * 2).backward(lib.ones(2))
    assert_same_error(mismatch, RuntimeError,
                      r"^Mismatch in shape: grad_output\[0\] has a shape of \w+\.Size\(\[2\]\) and "
                      r"output\[0\] has a shape of \w+\.Size\(\[3\]\)\.$")

    def broadcastable_is_not_enough(lib):
        x = lib.ones(2, 3, requires_grad=True)
        (x * 2).backward(lib.ones(3))
    assert_same_error(
        broadcastable_is_not_enough, RuntimeError, r"^Mismatch in shape: grad_output\[0\]")

    # torch finds the index with grads.index(grad), which compares tensors elementwise and
    # fails for most shapes; autograd_cy prints the position.
    x = ag.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^Mismatch in shape: grad_output\[1\]"):
        ag.autograd.backward([x * 2, x * 3], [ag.ones(3), ag.ones(1)])


def test_output_gradient_is_cast_to_the_output_dtype():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        (g,) = lib.autograd.grad((x * 2).sum(), x, lib.tensor(1.5, dtype=lib.float64))
        w = lib.ones(2, dtype=lib.float64, requires_grad=True)
        (w * 2).backward(lib.ones(2, dtype=lib.float32))
        return g, str(g.dtype).split(".")[-1], str(w.grad.dtype).split(".")[-1], w.grad
    assert_same(run)


def test_output_gradient_type_and_count_errors():
    assert_same_error(lambda lib: lib.autograd.grad((lib.ones(2, requires_grad=True) * 2).sum(),
                                                    lib.ones(1, requires_grad=True), [1.0]),
                      TypeError, r"^gradients can be either Tensors or None, but got float$")

    def too_few(lib):
        x = lib.ones(2, requires_grad=True)
        lib.autograd.backward([(x * 2).sum(), (x * 3).sum()], [lib.tensor(1.0)])
    assert_same_error(too_few, RuntimeError, r"^got 2 tensors and 1 gradients$")

    def extra_ignored(lib):
        x = lib.ones(2, requires_grad=True)
        return lib.autograd.grad([(x * 2).sum()], x, [lib.tensor(1.0), lib.tensor(2.0)])
    assert_same(extra_ignored)


def test_roots_must_require_grad():
    def second_root(lib):
        x = lib.ones(2, requires_grad=True)
        lib.autograd.backward([(x * 2).sum(), lib.ones(2)])
    assert_same_error(second_root, RuntimeError,
                      r"^element 1 of tensors does not require grad and does not have a grad_fn$")
    assert_same_error(lambda lib: lib.ones(2).sum().backward(), RuntimeError,
                      r"^element 0 of tensors does not require grad and does not have a grad_fn$")


def test_leaf_and_same_tensor_as_roots_and_inputs():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        g = lib.tensor([5.0, 6.0])
        x.backward(g)
        leaf_grad = lib.autograd.grad(x, x, g)
        b = x * 2
        non_leaf = lib.autograd.grad(b, b, g)
        return x.grad, leaf_grad, non_leaf, x.grad is g
    assert_same(run)


def test_inputs_must_require_grad():
    def in_grad(lib):
        x = lib.ones(2, requires_grad=True)
        lib.autograd.grad((x * 2).sum(), [x, lib.ones(2)])
    assert_same_error(
        in_grad, RuntimeError, r"^One of the differentiated Tensors does not require grad$")

    def in_backward(lib):
        x = lib.ones(2, requires_grad=True)
        (x * 2).sum().backward(inputs=[x, lib.ones(2)])
    assert_same_error(in_backward, RuntimeError,
                      r"^can't retain_grad on Tensor that has requires_grad=False$")


def test_leaf_never_used_gets_no_gradient():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        unused = lib.ones(3, requires_grad=True)     # no AccumulateGrad exists yet
        grads = lib.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
        (x * 2).sum().backward(inputs=[unused])
        return grads, unused.grad, x.grad
    assert_same(run)


def test_backward_inputs_may_be_non_leaf_tensors():
    def run(lib):
        a = lib.ones(2, requires_grad=True)
        t = a * 3
        log = []
        t.grad_fn.register_hook(lambda grad_inputs, grad_outputs: log.append(
            [g is None for g in grad_inputs]))
        (t.exp() * 2).sum().backward(inputs=[t])
        return t.retains_grad, t.grad, a.grad, log
    ours, _ = assert_same(run, rtol=1e-5)
    assert ours[3] == [[True, True]]   # t.grad_fn ran, but computed nothing for `a`


def test_unused_inputs_and_materialize_grads():
    def unused(lib):
        x = lib.ones(3, requires_grad=True)
        u = lib.ones(2, requires_grad=True)
        u * 1                                   # u has an AccumulateGrad, unreachable
        lib.autograd.grad((x * 2).sum(), [x, u])
    assert_same_error(unused, RuntimeError,
                      r"^The differentiated Tensor at index 1 appears to not have been used in the "
                      r"graph\. Set allow_unused=True if this is the desired behavior\.$")

    def allowed(lib):
        x = lib.ones(3, requires_grad=True)
        u = lib.ones(2, requires_grad=True)
        loose = lib.autograd.grad((x * 2).sum(), [x, u], allow_unused=True)
        zeros = lib.autograd.grad((x * 2).sum(), [x, u], materialize_grads=True)
        graph = lib.autograd.grad((x * 2).sum(), [x, u], materialize_grads=True,
                                  create_graph=True)
        return loose, zeros, graph[1].requires_grad, graph[1].is_leaf
    assert_same(allowed)

    assert_same_error(lambda lib: lib.autograd.grad((lib.ones(2, requires_grad=True) * 2).sum(),
                                                    lib.ones(1, requires_grad=True),
                                                    materialize_grads=True, allow_unused=False),
                      ValueError, r"^Expected allow_unused to be True or not passed when "
                      r"materialize_grads=True, but got: allow_unused=False\.$")


def test_gradient_edges_as_inputs():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        edge = lib.autograd.graph.get_gradient_edge(y)
        leaf_edge = lib.autograd.graph.get_gradient_edge(x)
        out = (y * y).sum()
        by_edge = lib.autograd.grad(out, edge, retain_graph=True)
        by_leaf_edge = lib.autograd.grad(out, leaf_edge, retain_graph=True)
        materialized = lib.autograd.grad(out, edge, materialize_grads=True, retain_graph=True)
        return (by_edge, by_leaf_edge, materialized, node_name(edge.node), edge.output_nr,
                node_name(leaf_edge.node))
    assert_same(run)

    def unused_edge(lib):
        x = lib.ones(3, requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        edge = lib.autograd.graph.get_gradient_edge(w * 1)
        lib.autograd.grad((x * 2).sum(), edge, materialize_grads=True)
    assert_same_error(unused_edge, RuntimeError,
                      r"^materialize_grads cannot be used when the given input is a GradientEdge$")


def test_retain_graph_defaults_to_create_graph():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = (x.exp() * x).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        again = lib.autograd.grad(y, x)          # graph was retained by create_graph
        return g, again, g.requires_grad
    assert_same(run, rtol=1e-5)


def test_backward_with_create_graph_warns_of_a_reference_cycle():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        (x * x).sum().backward(create_graph=True)
        return x.grad
    # torch warns once per process (TORCH_WARN_ONCE), so check it in a fresh one.
    script = ("import torch, warnings\n"
              "warnings.simplefilter('always')\n"
              "x = torch.ones(2, requires_grad=True)\n"
              "with warnings.catch_warnings(record=True) as w:\n"
              "    warnings.simplefilter('always')\n"
              "    (x * x).sum().backward(create_graph=True)\n"
              "print([str(m.message) for m in w])\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True).stdout
    assert "Using backward() with create_graph=True will create a reference cycle" in out
    ag.set_warn_always(True)        # a warning given once per process: give it again
    try:
        with pytest.warns(UserWarning, match=r"^Using backward\(\) with create_graph=True "
                          r"will create a reference cycle between the parameter and its "
                          r"gradient which can cause a memory leak\."):
            grad = run(ag)
    finally:
        ag.set_warn_always(False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert plain(grad) == plain(run(torch))


def test_is_grads_batched_adds_a_leading_batch_dimension():
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * x
        (jacobian,) = lib.autograd.grad(y, x, lib.eye(3), is_grads_batched=True)
        return jacobian
    assert_same(run)

    def mismatch(lib):
        x = lib.ones(3, requires_grad=True)
        lib.autograd.grad(x * 2, x, lib.ones(2, 4), is_grads_batched=True)
    assert_same_error(mismatch, RuntimeError,
                      r"^If `is_grads_batched=True`, we interpret the first dimension of each "
                      r"grad_output as the batch dimension\. .* If you only want some tensors in "
                      r"`grad_output` to be considered batched, consider using vmap\.$")


def test_deprecated_arguments_warn():
    def only_inputs(lib):
        x = lib.ones(2, requires_grad=True)
        return lib.autograd.grad((x * 2).sum(), x, only_inputs=False)
    same_warning(only_inputs, FutureWarning,
                 r"^only_inputs argument is deprecated and is ignored now \(defaults to True\)\. "
                 r"To accumulate gradient for other parts of the graph, please use "
                 r"torch\.autograd\.backward\.$")

    def grad_variables(lib):
        x = lib.ones(2, requires_grad=True)
        lib.autograd.backward((x * 2).sum(), grad_variables=lib.tensor(3.0))
        return x.grad
    ours, theirs = same_warning(grad_variables, FutureWarning,
                                r"^`grad_variables` is deprecated\. Use `grad_tensors` instead\.$")
    assert plain(ours) == plain(theirs) == [6.0, 6.0]


def test_ambient_grad_modes_do_not_leak_into_the_engine():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = (x * x).sum()
        with lib.no_grad():
            (plain_grad,) = lib.autograd.grad(y, x, retain_graph=True)
            (graph_grad,) = lib.autograd.grad(y, x, create_graph=True)
        z = (x * 3).sum()
        with lib.inference_mode():
            (inference_grad,) = lib.autograd.grad(z, x)
        return (plain_grad, plain_grad.requires_grad, graph_grad.requires_grad,
                node_name(graph_grad.grad_fn), inference_grad, inference_grad.is_inference(),
                lib.is_grad_enabled())
    assert_same(run)


# ------------------------------------------------------------------ execution

def test_same_root_twice_gets_the_sum():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 3
        log = []
        y.register_hook(lambda g: log.append(plain(g)))
        lib.autograd.backward([y, y], [lib.tensor([1.0, 2.0]), lib.tensor([10.0, 20.0])])
        return x.grad, log
    assert_same(run)


def test_multiple_roots_newer_root_runs_first():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        log = []
        first = (x * 2).sum()
        second = (x * 3).sum()
        trace_nodes(lib, log, first=first, second=second, x=x)
        lib.autograd.backward([first, second])
        return log, x.grad
    ours, _ = assert_same(run)
    assert ours[0] == ["second", "first", "x"]


def test_ready_queue_order_is_by_sequence_nr():
    """``e, d, c, Acc(w), b, a, Acc(x)``: newest forward op first, AccumulateGrad when ready."""
    def run(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        w = lib.tensor([2.0, 3.0], requires_grad=True)
        a = x.exp()
        b = x.tanh()
        c = a * w
        d = b.exp()
        e = c + d
        log = []
        for label, t in dict(x=x, w=w, a=a, b=b, c=c, d=d, e=e).items():
            t.register_hook(lambda g, label=label: log.append(label))
        e.sum().backward()
        return log, x.grad, w.grad
    ours, _ = assert_same(run, rtol=1e-5)
    assert ours[0] == ["e", "d", "c", "w", "b", "a", "x"]


@pytest.mark.parametrize("leaves", [3, 5, 8, 9])
def test_leaves_of_one_node_accumulate_in_torchs_heap_order(leaves):
    """Every AccumulateGrad has one sequence_nr; ties leave the ready queue as they leave
    PyTorch's std::priority_queue (five leaves of a cat: 0, 2, 4, 1, 3)."""
    def run(lib):
        tensors = [lib.ones(2, requires_grad=True) for _ in range(leaves)]
        log = []
        for i, t in enumerate(tensors):
            t.register_post_accumulate_grad_hook(lambda t, i=i: log.append(i))
        lib.cat(tensors).sum().backward()
        return log
    ours, theirs = assert_same(run)
    assert ours == theirs


def test_independent_branch_created_later_runs_first():
    def run(lib):
        x = lib.tensor([0.1, 0.2], requires_grad=True)
        p = x * 2
        q = p.exp()
        r1 = x * 3
        r2 = r1.exp()
        s = q + r2
        log = []
        trace_nodes(lib, log, s=s, r2=r2, r1=r1, q=q, p=p, x=x)
        s.sum().backward()
        return log
    ours, _ = assert_same(run)
    assert ours == ["s", "r2", "r1", "q", "p", "x"]


def test_incoming_gradients_are_summed_before_the_node_runs():
    """The hook of a tensor used three times runs once, with the sum of the gradients."""
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        seen = []
        y.register_hook(lambda g: seen.append(plain(g)))
        y.grad_fn.register_prehook(lambda grads: seen.append(("pre", plain(grads))))
        (y * 3 + y * 5 + y.exp()).sum().backward()
        return seen, x.grad
    assert_same(run, rtol=1e-5)


def test_gradient_is_summed_to_the_input_shape_and_cast():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        m = lib.ones(2, 3, dtype=lib.float64)
        y = x * m                                  # float64 output, float32 input
        y.sum().backward()
        return x.grad, str(x.grad.dtype).split(".")[-1]
    assert_same(run)


class WrongShape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return torch.ones(5)


def _wrong_shape_ours(x):
    """An autograd_cy node whose backward returns a [5] gradient for a [3] input."""
    class WrongShapeBackward(Node):
        def apply(self, grads):
            return (ag.ones(5),)
    out = ag.ones(3)
    set_history(WrongShapeBackward(), (x,), (out,))
    return out


class IntGradient(torch.autograd.Function):
    """Backward returns int64 [2, 3] for a float [3] input and a gradient for a constant."""

    @staticmethod
    def forward(ctx, x, constant):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return torch.full((2, 3), 2, dtype=torch.int64), torch.ones(3)


def _int_gradient_ours(x, constant):
    class IntGradientBackward(Node):
        def apply(self, grads):
            return ag.full((2, 3), 2, dtype=ag.int64), ag.ones(3)
    out = ag.ones(3)
    set_history(IntGradientBackward(), (x, constant), (out,))
    return out


def test_other_dtypes_are_cast_and_gradients_for_constants_dropped():
    """An int64 [2, 3] gradient for a float [3] input is summed to [3] and cast; a gradient
    returned for an input that does not require grad is dropped."""
    x = torch.ones(3, requires_grad=True)
    IntGradient.apply(x, torch.ones(3)).sum().backward()
    ours = ag.ones(3, requires_grad=True)
    _int_gradient_ours(ours, ag.ones(3)).sum().backward()
    assert plain(ours.grad) == plain(x.grad) == [4.0, 4.0, 4.0]
    assert str(ours.grad.dtype) == "autograd_cy.float32"


def test_node_returning_the_wrong_number_of_gradients_is_an_error():
    class TwoGradsBackward(Node):
        def apply(self, grads):
            return (grads[0], grads[0])
    x = ag.ones(3, requires_grad=True)
    out = ag.ones(3)
    set_history(TwoGradsBackward(), (x,), (out,))
    with pytest.raises(RuntimeError, match=r"^Function TwoGradsBackward returned an invalid "
                       r"number of gradients - expected 1, but got 2$"):
        out.sum().backward()


def test_node_returning_an_incompatible_gradient_shape_is_an_error():
    message = (r"^Function WrongShapeBackward returned an invalid gradient at index 0 - got "
               r"\[5\] but expected shape compatible with \[3\]$")
    with pytest.raises(RuntimeError, match=message):
        WrongShape.apply(torch.ones(3, requires_grad=True)).sum().backward()
    with pytest.raises(RuntimeError, match=message):
        _wrong_shape_ours(ag.ones(3, requires_grad=True)).sum().backward()


def test_pruning_runs_only_nodes_on_a_path_to_the_inputs():
    """``s = (exp(x) * exp(y)).sum()``: grad(s, x) never runs exp(y)'s node."""
    def run(lib, how):
        x = lib.tensor([0.1, 0.2], requires_grad=True)
        y = lib.tensor([0.3, 0.4], requires_grad=True)
        p = x.exp()
        q = y.exp()
        r = p * q
        s = r.sum()
        log = []
        trace_nodes(lib, log, s=s, r=r, p=p, q=q, x=x, y=y)
        if how == "grad":
            result = lib.autograd.grad(s, x)
        elif how == "backward":
            s.backward(inputs=[x])
            result = (x.grad, y.grad)
        else:
            s.backward()
            result = (x.grad, y.grad)
        return log, result
    for how, expected in (("grad", ["s", "r", "p"]), ("backward", ["s", "r", "p", "x"]),
                          ("plain", ["s", "r", "q", "y", "p", "x"])):
        ours, _ = assert_same(lambda lib: run(lib, how), rtol=1e-5)
        assert ours[0] == expected, how


def test_built_in_nodes_skip_unneeded_edges():
    def run(lib):
        a = lib.ones(2, 3, requires_grad=True)
        b = lib.ones(3, 4, requires_grad=True)
        out = a @ b
        log = []
        out.grad_fn.register_hook(lambda gi, go: log.append([g is None for g in gi]))
        out.sum().backward(inputs=[a])
        return a.grad, b.grad, log
    ours, _ = assert_same(run)
    assert ours[2] == [[False, True]]


def test_captured_gradient_includes_tensor_hook_edits():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        log = []
        x.register_hook(lambda g: g * 100)
        acc = lib.autograd.graph.get_gradient_edge(x).node
        y = x * 2
        acc.register_prehook(lambda grads: log.append("acc pre"))
        acc.register_hook(lambda gi, go: log.append("acc post"))
        x.register_post_accumulate_grad_hook(lambda t: log.append("post accumulate"))
        (g,) = lib.autograd.grad(y.sum(), x)
        return g, x.grad, log
    ours, _ = assert_same(run)
    assert ours[2] == []


def test_captured_non_leaf_runs_tensor_hooks_but_not_node_hooks():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        log = []
        y.register_hook(lambda g: log.append("tensor hook") or g + 1)
        y.retain_grad()
        y.grad_fn.register_prehook(lambda grads: log.append("node pre"))
        y.grad_fn.register_hook(lambda gi, go: log.append("node post"))
        (g,) = lib.autograd.grad((y * 3).sum(), y)
        return g, y.grad, log
    assert_same(run)


def test_will_engine_execute_node_reports_needed_or_captured_nodes():
    assert_same_error(lambda lib: will_execute(lib)((lib.ones(1, requires_grad=True) * 2).grad_fn),
                      RuntimeError, r"^_get_should_execute_nodes should only be called during the "
                      r"backward pass$")

    def answers(lib, call):
        x = lib.ones(2, requires_grad=True)
        w = lib.ones(2, requires_grad=True)
        a = x * 2
        b = w.exp()
        c = a * b
        other = (x * 7).grad_fn                 # a node of another graph
        acc_x = lib.autograd.graph.get_gradient_edge(x).node
        found = {}

        def query(grad):
            ask = will_execute(lib)
            found.update(a=ask(a.grad_fn), b=ask(b.grad_fn), c=ask(c.grad_fn),
                         other=ask(other))
            if call != "grad_x":
                found["acc_x"] = ask(acc_x)
        c.register_hook(query)
        out = c.sum()
        if call == "plain":
            out.backward()
        elif call == "backward_x":
            out.backward(inputs=[x])
        elif call == "grad_a":
            lib.autograd.grad(out, a)
        else:
            lib.autograd.grad(out, x)
        return found
    for call in ("plain", "backward_x", "grad_a", "grad_x"):
        assert_same(lambda lib: answers(lib, call))

    def leaf_in_grad(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        acc = lib.autograd.graph.get_gradient_edge(x).node
        y.register_hook(lambda g: will_execute(lib)(acc))
        lib.autograd.grad(y.sum(), x)
    assert_same_error(leaf_in_grad, RuntimeError,
                      r"^A leaf node was passed to _will_engine_execute_node but we are currently "
                      r"running autograd\.grad\(\)\. This is currently not supported\.")
    assert_same_error(lambda lib: will_execute(lib)(1), RuntimeError,
                      r"_will_engine_execute_node expects an grad_fn")


def test_current_graph_task_id_is_set_during_backward_only():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        ids = []
        y = x * 2
        y.register_hook(lambda g: ids.append(graph_task_id(lib)))
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        return graph_task_id(lib), ids[0] >= 0, ids[0] != ids[1]
    assert_same(run)


def test_second_backward_fails_lazily_per_saved_tensor():
    def twice(make):
        def run(lib):
            x = lib.ones(2, requires_grad=True)
            w = lib.ones(2, requires_grad=True)
            out = make(x, w)
            out.backward()
            out.backward()
            return x.grad
        return run
    for make in (lambda x, w: x.sum(), lambda x, w: x.neg().sum(),
                 lambda x, w: (x + 1).sum(), lambda x, w: (x + w).sum()):
        assert_same(twice(make))
    for make in (lambda x, w: (x * w).sum(), lambda x, w: x.exp().sum(),
                 lambda x, w: (x ** 2).sum(), lambda x, w: (x * 2).sum(),
                 lambda x, w: (x / 2).sum()):
        assert_same_error(
            twice(make), RuntimeError,
            r"^Trying to backward through the graph a second time \(or directly access "
            r"saved tensors after they have already been freed\)\. Saved intermediate "
            r"values of the graph are freed when you call \.backward\(\) or "
            r"autograd\.grad\(\)\. Specify retain_graph=True if you need to backward "
            r"through the graph a second time or if you need to access saved tensors "
            r"after calling backward\." + PROVENANCE_TAIL)


def test_pruned_nodes_keep_their_saved_tensors():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        w = lib.full((2,), 0.5, requires_grad=True)
        a = x.exp()
        b = w.tanh()
        out = (a * b).sum()
        lib.autograd.grad(out, x)
        return b.grad_fn._saved_result, (a * 1).sum().requires_grad
    assert_same(run, rtol=1e-5)

    def freed(lib):
        x = lib.ones(2, requires_grad=True)
        a = x.exp()
        a.sum().backward()
        return a.grad_fn._saved_result
    assert_same_error(freed, RuntimeError, r"^Trying to backward through the graph a second time")


def test_error_stops_the_task_and_keeps_its_type():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        w = lib.ones(2, requires_grad=True)
        a = x * 2
        b = w * 3                     # newer: runs first, then AccumulateGrad(w)
        log = []
        trace_nodes(lib, log, a=a, b=b, x=x, w=w)

        def fail(grad):
            raise KeyError("boom")
        a.register_hook(fail)
        try:
            (a + b).sum().backward()
        except KeyError as error:
            log.append(("KeyError", str(error)))
        return log, x.grad, w.grad
    ours, _ = assert_same(run)
    assert ours[0] == ["b", "w", ("KeyError", "'boom'")]


def test_undefined_gradients_still_flow():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        log = []
        y.grad_fn.register_prehook(lambda grads: (None,))
        x.register_hook(lambda g: log.append(("hook", g)))
        x.register_post_accumulate_grad_hook(lambda t: log.append("post accumulate"))
        y.sum().backward()
        return x.grad, log
    ours, _ = assert_same(run)
    assert ours[1] == [("hook", None), "post accumulate"]


def _unbind_ours(x):
    """A two-output node standing in for ``x.unbind()`` (rows of a [2, n] tensor)."""
    class UnbindBackward0(Node):
        def apply(self, grads):
            rows = [to_numpy(g) if g is not None else np.zeros(x.shape[1], np.float32)
                    for g in grads]
            return (ag.tensor(np.stack(rows), device=x.device),)
    first, second = x.detach()[0].clone(), x.detach()[1].clone()
    set_history(UnbindBackward0(), (x,), (first, second))
    return first, second


def test_sibling_output_that_got_nothing_sees_none():
    def run(lib):
        x = lib.ones(2, 3, requires_grad=True)
        a, b = x.unbind() if lib is torch else _unbind_ours(x)
        log = []
        a.register_hook(lambda g: log.append(("a", g)))
        b.register_hook(lambda g: log.append(("b", plain(g))))
        b.grad_fn.register_prehook(lambda grads: log.append([g is None for g in grads]))
        (b * 2).sum().backward()
        return log, x.grad
    ours, _ = assert_same(run)
    assert ours[0][0] == ("a", None)


def test_final_callbacks_run_after_all_nodes():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        log = []

        def second():
            log.append(("second", plain(x.grad)))

        def first():
            log.append(("first", plain(x.grad)))
            queue_callback(lib, second)

        y.register_hook(lambda g: queue_callback(lib, first))
        y.sum().backward()
        log.append("returned")
        return log
    ours, _ = assert_same(run)
    assert ours == [("first", [2.0, 2.0]), ("second", [2.0, 2.0]), "returned"]
    assert_same_error(lambda lib: queue_callback(lib, lambda: None), RuntimeError,
                      r"^Final callbacks can only be installed during backward pass\.$")


# ------------------------------------------------------------------ saved tensors

def test_saved_inputs_are_the_object_saved_outputs_are_rewrapped():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        y = x.pow(2)
        h = x * 1
        k = h.tanh()
        z = x.exp()
        saved = z.grad_fn._saved_result
        m = x * 2
        return (y.grad_fn._saved_self is x, y.grad_fn._saved_exponent,
                plain(m.grad_fn._saved_other), str(m.grad_fn._saved_other.dtype)[-5:],
                m.grad_fn._saved_self, str((x * 2.0).grad_fn._saved_other.dtype)[-7:],
                k.grad_fn._saved_result is k, k.grad_fn._saved_result.grad_fn is k.grad_fn,
                saved is z, plain(saved) == plain(z), saved.grad_fn is z.grad_fn,
                saved.requires_grad, saved.is_leaf, saved._version == z._version,
                type(y.grad_fn._raw_saved_self).__name__)
    assert_same(run)


def test_version_check_at_unpack_names_the_forward_op():
    template = (r"^one of the variables needed for gradient computation has been modified by "
                r"an inplace operation: \[\w+\.FloatTensor \[3\]\]{where} is at version 1; "
                r"expected version 0 instead\. Hint: enable anomaly detection to find the "
                r"operation that failed to compute its gradient, with "
                r"torch\.autograd\.set_detect_anomaly\(True, check_nan=False\)\." + PROVENANCE_TAIL)

    def non_leaf(lib):
        x = lib.ones(3, requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        y = x + 1
        z = y * w
        y.add_(1)                     # no error here ...
        z.sum().backward()            # ... but at unpack
    assert_same_error(non_leaf, RuntimeError, template.format(where=", which is output 0 of Add,"))

    def under_no_grad(lib):
        x = lib.ones(3, requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        y = x + 1
        z = y * w
        with lib.no_grad():
            y.add_(1)
        z.sum().backward()
    assert_same_error(
        under_no_grad, RuntimeError, template.format(where=", which is output 0 of Add,"))

    def current_grad_fn(lib):
        x = lib.ones(3, requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        y = x.exp()
        z = y * w
        y.mul_(2)
        z.sum().backward()
    assert_same_error(
        current_grad_fn, RuntimeError, template.format(where=", which is output 0 of Mul,"))

    def leaf(lib):
        x = lib.ones(3)
        w = lib.ones(3, requires_grad=True)
        z = x * w
        x.add_(1)
        z.sum().backward()
    assert_same_error(leaf, RuntimeError, template.format(where=""))

    def saved_output(lib):
        x = lib.ones(3, requires_grad=True)
        y = x.exp()
        y.add_(1)
        y.grad_fn.next_functions[0][0]._saved_result
    assert_same_error(
        saved_output, RuntimeError, template.format(where=", which is output 0 of Exp,"))


def test_hooks_registered_on_a_raw_saved_tensor():
    def after_free(lib):
        x = lib.ones(2, requires_grad=True)
        y = x.exp()
        raw = y.grad_fn._raw_saved_result
        y.sum().backward()
        raw.register_hooks(lambda t: t, lambda t: t)
    assert_same_error(after_free, RuntimeError,
                      r"^Calling register_hooks on a saved tensor after it has been freed\.")

    # torch 2.13 corrupts its process's memory when it refuses the second pair (a later
    # allocation or GC pass crashes), so its side of this one runs in a fresh interpreter.
    twice = """
        def run(lib):
            x = lib.ones(2, requires_grad=True)
            raw = x.exp().grad_fn._raw_saved_result
            raw.register_hooks(lambda t: t, lambda t: t)
            raw.register_hooks(lambda t: t, lambda t: t)
        """
    assert_same_error(twice, RuntimeError,
                      r"^Calling register_hooks on a saved tensor whose hooks have already been "
                      r"set\. Hint: only one pair of hooks is allowed at a time\.$")

    def pack_now_unpack_on_access(lib):
        x = lib.ones(2, requires_grad=True)
        y = x.pow(2)
        log = []
        raw = y.grad_fn._raw_saved_self
        raw.register_hooks(lambda t: log.append("pack") or t * 1,
                           lambda t: log.append("unpack") or t)
        log.append("registered")
        y.grad_fn._saved_self
        y.sum().backward()
        return log, x.grad
    assert_same(pack_now_unpack_on_access)


def test_saved_tensors_hooks_pack_once_and_unpack_on_every_access():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        log = []

        def pack(t):
            log.append(("pack", lib.is_grad_enabled(), t is x, t.grad_fn is not None))
            return t

        def unpack(t):
            log.append("unpack")
            return t
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = x * x
            z = y.exp()
            with lib.no_grad():
                x * x                        # nothing recorded, nothing packed
        z.sum().backward()
        return log, x.grad
    assert_same(run, rtol=1e-5)

    def bad_unpack(lib):
        x = lib.ones(2, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 1):
            y = x.exp()
        y.sum().backward()
    assert_same_error(
        bad_unpack, TypeError, r"^Output of saved tensor unpack_hook expected to be a "
        r"Tensor but got result of type int$")


def test_no_version_check_with_saved_tensors_hooks():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = x.exp()
        y.add_(1)                               # would trip the version check without hooks
        z = (y * 1).sum()
        z.backward()
        return x.grad
    assert_same(run, rtol=1e-5)


def test_pack_hook_must_not_modify_its_input():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 1
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.add_(1), lambda t: t):
            y.exp() * y
    assert_same_error(
        run, RuntimeError, r"^A saved tensor pack hook is modifying its input in place\. "
        r"Tensors provided as input to pack hook cannot be modified by in-place "
        r"operations as this can lead to unexpected side-effects\.")


def test_disable_saved_tensors_hooks_refuses_hooks():
    def run(lib):
        with lib.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                raise AssertionError("saved_tensors_hooks was entered")
    assert_same_error(run, RuntimeError, r"^no hooks here$")

    def while_active(lib):
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            with lib.autograd.graph.disable_saved_tensors_hooks("already active"):
                raise AssertionError("disable_saved_tensors_hooks was entered")
    assert_same_error(while_active, RuntimeError, r"^already active$")


def test_inference_tensors_cannot_be_saved():
    def run(lib):
        with lib.inference_mode():
            t = lib.ones(2)
        x = lib.ones(2, requires_grad=True)
        x * t
    assert_same_error(run, RuntimeError, r"^Inference tensors cannot be saved for backward\.")


# ------------------------------------------------------------------ leaf accumulation

def test_fresh_grad_layout_follows_a_dense_leaf():
    def strides(lib):
        transposed = lib.zeros(3, 4).transpose(0, 1).requires_grad_()
        expanded = lib.zeros(4, 1).expand(4, 3).requires_grad_()
        results = []
        for leaf in (transposed, expanded):
            (leaf * 2).sum().backward()
            results.append((leaf.stride(), leaf.grad.stride(), leaf.grad.is_contiguous()))
        return results
    assert_same(strides)


def test_first_gradient_is_stolen_when_solely_owned():
    def run(lib):
        result = {}
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        produced = []
        y.grad_fn.register_hook(lambda gi, go: produced.append(gi[0].data_ptr()))
        y.sum().backward()
        result["fresh gradient stolen"] = x.grad.data_ptr() == produced[0]

        x = lib.zeros(4, 1).expand(4, 3).requires_grad_()
        y = x * 2
        produced = []
        y.grad_fn.register_hook(lambda gi, go: produced.append(gi[0].data_ptr()))
        y.sum().backward()
        result["contiguous gradient of an expanded leaf stolen"] = (
            x.grad.data_ptr() == produced[0])

        x = lib.ones(3, requires_grad=True)
        g = lib.ones(3)
        x.backward(g)
        result["leaf.backward(g) copies"] = x.grad.data_ptr() != g.data_ptr()

        x = lib.ones(3, requires_grad=True)
        g = lib.ones(3)
        x.clone().backward(g)
        result["passed-through user grad copied"] = x.grad.data_ptr() != g.data_ptr()

        x = lib.ones(3, requires_grad=True)
        kept = []
        x.register_hook(lambda grad: kept.append(grad))
        (x * 2).sum().backward()
        result["grad also held by a hook copied"] = x.grad is not kept[0] and (
            x.grad.data_ptr() != kept[0].data_ptr())

        x = lib.ones(3, requires_grad=True)
        replaced = []
        x.register_hook(lambda grad: replaced.append((grad * 5).data_ptr()) or None)
        made = []

        def fresh(grad):
            out = grad * 5
            made.append(out.data_ptr())
            return out
        w = lib.ones(3, requires_grad=True)
        w.register_hook(fresh)
        (w * 2).sum().backward()
        result["hook result stolen"] = w.grad.data_ptr() == made[0]

        for x_shape, w_shape in (((4, 3), (3,)), ((4, 3), (1, 3)), ((2, 4, 3), (4, 1))):
            # The gradient summed down to a broadcast input's shape: a view of the sum when
            # leading dims went, and the view is stolen as the sum would be.
            w = lib.ones(*w_shape, requires_grad=True)
            y = lib.ones(*x_shape) * w
            produced = []
            y.grad_fn.register_hook(lambda gi, go: produced.append(gi[1].data_ptr()))
            y.sum().backward()
            result[f"summed gradient for {w_shape} stolen"] = (
                w.grad.data_ptr() == produced[0], w.grad._base is None)
        return result
    ours, theirs = both(run)
    assert ours == theirs


def test_leaf_that_stopped_requiring_grad_gets_no_gradient():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        y = x * w
        x.requires_grad_(False)
        y.sum().backward()
        return x.grad, w.grad
    assert_same(run)


def test_accumulation_in_place_keeps_the_grad_object():
    def run(lib):
        x = lib.ones(2, 3, requires_grad=True)
        user_grad = lib.zeros(3, 2).transpose(0, 1)
        x.grad = user_grad
        (x * 2).sum().backward()
        (x * 3).sum().backward()
        return (x.grad is user_grad, x.grad.stride(), x.grad, user_grad._version > 0)
    assert_same(run)


def test_grad_breaking_the_layout_contract_warns_once():
    """A .grad whose strides differ from a dense param's: one warning per process."""
    script = textwrap.dedent("""
        import warnings
        import torch, autograd_cy
        for lib in (autograd_cy, torch):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                for _ in range(2):
                    x = lib.ones(2, 3, requires_grad=True)
                    x.grad = lib.zeros(3, 2).transpose(0, 1)
                    (x * 2).sum().backward()
                    y = lib.ones(2, 3, requires_grad=True)
                    y.grad = lib.zeros(2, 3)
                    (y * 2).sum().backward()          # obeys the contract: no warning
            print(repr([str(w.message).split(" (Triggered")[0] for w in caught]))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={"PYTHONPATH": ag.__path__[0].rsplit("/", 1)[0]})
    ours, theirs = out.stdout.splitlines()
    assert ours == theirs
    assert "grad and param do not obey the gradient layout contract. This is not an error, " \
        "but may impair performance.\\ngrad.sizes() = [2, 3], strides() = [1, 2]\\n" \
        "param.sizes() = [2, 3], strides() = [3, 1]" in ours


def test_create_graph_accumulates_out_of_place():
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = lib.ones(3, requires_grad=True)
            (a * a).sum().backward(create_graph=True)
            first = a.grad
            first_name = node_name(first.grad_fn)
            (a * a).sum().backward(create_graph=True)
            b = lib.ones(3, requires_grad=True)
            (b * 2).sum().backward(create_graph=True)
        return (first_name, a.grad is first, node_name(a.grad.grad_fn), a.grad,
                graph_structure(first.grad_fn)[0], b.grad.requires_grad)
    assert_same(run)


def test_a_gradient_edge_as_the_output_of_grad_and_backward():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        graph = lib.autograd.graph
        edge = graph.get_gradient_edge(x.sin().sum())
        implicit, = lib.autograd.grad(edge, (x,), retain_graph=True)
        given, = lib.autograd.grad(edge, (x,), grad_outputs=lib.tensor(2.0), retain_graph=True)
        lib.autograd.backward(edge)
        return implicit, given, x.grad
    assert_same(run)
    def not_scalar(lib):
        x = lib.ones(2, requires_grad=True)
        lib.autograd.grad(lib.autograd.graph.get_gradient_edge(x.sin()), (x,))
    assert_same_error(not_scalar, RuntimeError,
                      "grad can be implicitly created only for scalar outputs")

    def mismatch(lib):
        x = lib.ones(2, requires_grad=True)
        edge = lib.autograd.graph.get_gradient_edge(x.sin().sum())
        lib.autograd.grad(edge, (x,), grad_outputs=lib.ones(4))
    assert_same_error(mismatch, RuntimeError, "Mismatch in shape")


def test_a_read_only_view_gradient_is_copied_not_taken_as_grad():
    """A gradient that is a read-only view (nll_loss's double backward through a sum) is
    copied into .grad, so a second backward can accumulate into it, as in torch (found by
    the fuzzer, seed 57313428)."""
    def run(lib):
        x = lib.tensor([[2.0, -0.875]], dtype=lib.float64, requires_grad=True)
        summed = lib.sum(x, dim=0)
        loss = lib.nn.functional.nll_loss(summed, lib.tensor(0))
        g, = lib.autograd.grad(loss, [summed], create_graph=True)
        v = lib.tensor([-2.875, -1.875], dtype=lib.float64)
        g.backward(gradient=v, retain_graph=True)
        g.backward(gradient=v)
        return x.grad.tolist()
    assert_same(run)


def test_builtin_function_node_passes_undefined_through():
    """A node of the library's ops written as a Function (cumsum's) given no gradient at
    all gives none, as torch's generated nodes: vector_norm's ord 0 has no gradient, so
    the leaf's .grad stays None (fuzz seed 985000858)."""
    def run(lib):
        x = lib.tensor([[2.25 + 0.75j]], requires_grad=True)
        lib.linalg.vector_norm(x.cumsum(-2), 0).backward()
        return x.grad
    assert both(run) == (None, None)
