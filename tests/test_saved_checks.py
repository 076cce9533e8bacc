"""What a node saves and when it checks it, against torch 2.13: every saved value is checked
before a built-in node runs (needed or not), index tensors are saved, an in-place op keeps
``self`` as its saved result, CopySlices refuses a second backward; and the view corners
that decide whether a grad_fn is read at all (is_leaf after detach_ / requires_grad_,
F.linear's view result).

Each case runs on both libraries and compares the outcome: the exception type (and a word of
its message), or the value."""
import pytest
import torch

import autograd_cy as ag

MODIFIED = "modified by an inplace operation"
FREED = "backward through the graph a second time"


class Raised(tuple):
    """What ``outcome`` gives for a call that raised: (exception type name, message)."""


def outcome(fn, lib):
    """``fn(lib)``'s result, or a Raised if it raised."""
    try:
        return fn(lib)
    except Exception as error:      # noqa: BLE001 - compared below
        return Raised((type(error).__name__, str(error)))


def same_outcome(fn, word=None):
    """``fn`` does the same on both libraries; ``word``: both raise, with it in the message."""
    ours, theirs = outcome(fn, ag), outcome(fn, torch)
    if word is not None:
        assert isinstance(theirs, Raised) and word in theirs[1], theirs
        assert isinstance(ours, Raised) and word in ours[1], ours
    if isinstance(theirs, Raised) or isinstance(ours, Raised):
        assert type(ours) is type(theirs) and ours[0] == theirs[0], (ours, theirs)
    else:
        assert ours == theirs, (ours, theirs)


# ------------------------------------------------------------ every saved value is checked

def test_a_saved_value_is_checked_even_when_its_gradient_is_not_asked_for():
    def fn(lib):
        a = lib.ones(3, requires_grad=True) * 1
        b = lib.ones(3, requires_grad=True) * 2
        out = (a * b).sum()             # MulBackward0 saves a (for b's gradient) and b
        with lib.no_grad():
            a.add_(1)
        return lib.autograd.grad(out, a)
    same_outcome(fn, MODIFIED)


def _function_dropping_its_gradient(lib):
    class Drop(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            return None
    return Drop


@pytest.mark.parametrize("second", [False, True], ids=["modified", "second_backward"])
def test_a_node_that_receives_no_gradient_still_checks_what_it_saved(second):
    def fn(lib):
        x = lib.ones(3, requires_grad=True)
        y = x.exp()                     # ExpBackward0 saves its result
        z = _function_dropping_its_gradient(lib).apply(y)
        if second:
            z.sum().backward()
        else:
            with lib.no_grad():
                y.add_(1)
        z.sum().backward()
    same_outcome(fn, FREED if second else MODIFIED)


@pytest.mark.parametrize("wants", [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize("op", ["mul", "mm", "mv", "addmm"])
def test_what_is_saved_only_for_a_gradient_not_wanted_is_not_checked(op, wants):
    """``y = a * b`` with only ``b`` requiring grad saves ``a`` alone: changing ``b`` in
    place is fine, changing ``a`` is not (both orders)."""
    shapes = {"mul": ((3,), (3,)), "mm": ((2, 3), (3, 2)), "mv": ((2, 3), (3,)),
              "addmm": ((2, 3), (3, 2))}[op]

    def run(lib, change):
        a, b = [lib.ones(*shape, dtype=lib.float64, requires_grad=w) * 1 if w
                else lib.ones(*shape, dtype=lib.float64) for shape, w in zip(shapes, wants)]
        if op == "addmm":
            y = lib.addmm(lib.ones(2, 2, dtype=lib.float64), a, b)
        else:
            y = getattr(lib, op)(a, b)
        with lib.no_grad():
            (a, b)[change].add_(1)
        y.sum().backward()
        return "ran"
    for change in (0, 1):
        same_outcome(lambda lib: run(lib, change))


@pytest.mark.parametrize("op", ["mul", "div", "mm", "addmm", "bmm"])
def test_an_operand_that_gets_no_gradient_edge_keeps_the_other_unsaved(op):
    """A view made under no_grad of a tensor that requires grad requires grad, yet gets no
    gradient: what only its gradient would read is not saved, so a second backward runs."""
    def fn(lib):
        base = lib.ones(1, 2, 2, requires_grad=True) * 1
        with lib.no_grad():
            view = base.transpose(1, 2)
        other = lib.full((1, 2, 2), 2.0)
        if op == "bmm":
            out = lib.bmm(view, other)
        elif op == "mm":
            out = lib.mm(view[0], other[0])
        elif op == "addmm":
            out = lib.addmm(lib.ones(2, 2), view[0], other[0])
        else:
            out = getattr(lib, op)(2.0 * lib.ones(1, 2, 2), view)
        out.sum().backward()
        out.sum().backward()
        return view.requires_grad, view.grad_fn is None
    same_outcome(fn)


# ------------------------------------------------------------ index tensors are saved

INDEXING = {
    "getitem": lambda lib, x, y, i: x[i],
    "getitem_after_slice": lambda lib, x, y, i: x[:, i],
    "getitem_mask": lambda lib, x, y, i: x[lib.tensor([True, False, True])],
    "index_put": lambda lib, x, y, i: x.index_put((i,), y[:2]),
    "setitem": lambda lib, x, y, i: _setitem(x * 1, i, y[:2]),
    "index_select": lambda lib, x, y, i: x.index_select(1, i),
    "index_add_source": lambda lib, x, y, i: x.detach().index_add(0, i, y[:2]),
    "index_add_self": lambda lib, x, y, i: x.index_add(0, i, y[:2].detach()),
    "gather": lambda lib, x, y, i: x.gather(1, i.reshape(1, 2).expand(3, 2)),
    "scatter_add_src": lambda lib, x, y, i: x.detach().scatter_add(
        0, i.reshape(2, 1).expand(2, 3), y[:2]),
    "scatter_add_self": lambda lib, x, y, i: x.scatter_add(
        0, i.reshape(2, 1).expand(2, 3), y[:2].detach()),
}


def _setitem(t, index, value):
    t[index] = value
    return t


@pytest.mark.parametrize("op", INDEXING.values(), ids=INDEXING.keys())
def test_index_tensors_are_saved_and_freed(op):
    """A second backward through an op that saved its index raises; where only self needs
    a gradient, index_add and scatter_add save nothing and it runs again."""
    def fn(lib):
        x = lib.ones(3, 3, dtype=lib.float64, requires_grad=True)
        y = lib.ones(3, 3, dtype=lib.float64, requires_grad=True)
        out = op(lib, x, y, lib.tensor([0, 2])).sum()
        out.backward()
        out.backward()
        return "ran twice"
    same_outcome(fn)


def test_an_index_tensor_changed_in_place_is_detected():
    def fn(lib):
        x = lib.ones(3, 3, dtype=lib.float64, requires_grad=True)
        index = lib.tensor([0, 2])
        out = x.index_select(0, index)
        index.add_(0)
        out.sum().backward()
    same_outcome(fn, MODIFIED)


# ------------------------------------------------------------ in-place results are self

INPLACE_SAVING_RESULT = {
    "pow_tensor": lambda lib, t: t.pow_(lib.tensor(2.0, dtype=lib.float64,
                                                   requires_grad=True)),
    "exp_": lambda lib, t: t.exp_(),
    "tanh_": lambda lib, t: t.tanh_(),
    "sigmoid_": lambda lib, t: t.sigmoid_(),
    "leaky_relu_": lambda lib, t: lib.nn.functional.leaky_relu(t, 0.5, inplace=True),
}


@pytest.mark.parametrize("where", ["tensor", "view", "base_of_view"])
@pytest.mark.parametrize("op", INPLACE_SAVING_RESULT.values(), ids=INPLACE_SAVING_RESULT.keys())
def test_the_result_an_in_place_op_saves_is_self(op, where):
    """Changing it again (itself, or its base for a view) is caught at backward."""
    def fn(lib):
        leaf = lib.tensor([[0.5, 1.5], [2.0, 0.25]], dtype=lib.float64, requires_grad=True)
        base = leaf * 1
        target = base if where == "tensor" else base[0]
        op(lib, target)
        out = target.sum()
        with lib.no_grad():
            (base if where == "base_of_view" else target).mul_(2)
        out.backward()
    same_outcome(fn, MODIFIED)


def test_pow_in_place_into_a_plain_tensor_then_overwritten():
    def fn(lib):
        exponent = lib.tensor(2.5, requires_grad=True)
        x = lib.tensor([0.375])
        y = x.pow_(exponent)
        y.copy_(lib.tensor(0.625))
        y.backward()
    same_outcome(fn, MODIFIED)


# ------------------------------------------------------------ CopySlices

@pytest.mark.parametrize("write", ["add_", "copy_", "neg_", "mul_"])
def test_a_second_backward_through_an_in_place_op_on_a_view_raises(write):
    def fn(lib):
        other = lib.tensor(2.5, dtype=lib.float64, requires_grad=True)
        base = lib.tensor([[-2.25, 1.0]], dtype=lib.float64)
        view = base[0, :1]
        if write == "neg_":
            base = base + other
            view = base[0, :1]
            view.neg_()
        else:
            getattr(view, write)(other)
        base.sum().backward()
        base.sum().backward()
    same_outcome(fn, FREED)


def test_a_retained_graph_through_copy_slices_runs_again():
    def fn(lib):
        other = lib.tensor(2.5, dtype=lib.float64, requires_grad=True)
        base = lib.zeros(2, 2, dtype=lib.float64)
        base[0].add_(other)
        base.sum().backward(retain_graph=True)
        base.sum().backward()
        return other.grad.item()
    same_outcome(fn)


# ------------------------------------------------------------ when a view's grad_fn is read

def test_a_stale_multi_output_view_of_a_detached_base_still_refuses():
    def fn(lib):
        base = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True) * 1
        first, _ = base.unbind(0)
        base.div_(2)
        base.detach_()
        return first.is_leaf
    same_outcome(fn)


def test_a_view_changed_before_its_base_required_grad_gets_a_grad_fn():
    def fn(lib):
        leaf = lib.tensor([[1.0, 2.0, 3.0]], dtype=lib.float64)
        view = leaf.movedim(-1, 0)
        view.mul_(2)
        before = view.is_leaf
        leaf.requires_grad_()
        return before, view.is_leaf, view.requires_grad
    same_outcome(fn)


def test_a_view_of_a_detached_base_is_rebuilt_without_an_edge():
    def fn(lib):
        base = lib.tensor([1.0, 2.0], requires_grad=True) * 1
        view = base[0]
        base.detach_()
        with lib.no_grad():
            base.add_(1)
        return type(view.grad_fn).__name__, view.grad_fn.next_functions[0][0] is None
    same_outcome(fn)


# ------------------------------------------------------------ F.linear's view result

@pytest.mark.parametrize("shapes", [((4,), (3, 4), (3,)), ((2, 3, 4), (3, 4), (3,)),
                                    ((2, 3, 4), (3, 4), (1, 3)), ((2, 3, 4), (3, 4), (3, 3)),
                                    ((4,), (3, 4), ()), ((5, 0, 4), (3, 4), (3,)),
                                    ((2, 3, 4), (3, 4), (1, 1, 3)), ((4,), (4,), (1,))])
def test_linear_with_a_bias_is_a_view_where_torch_flattens(shapes):
    def fn(lib):
        x, w, b = (lib.ones(shape, dtype=lib.float64, requires_grad=True) for shape in shapes)
        y = lib.nn.functional.linear(x, w, b)
        name = type(y.grad_fn).__name__
        detached = outcome(lambda _: y.detach_() is y, lib)
        return name, tuple(y.shape), detached if detached is True else detached[0]
    same_outcome(fn)


def test_linear_with_a_non_contiguous_bias_adds_it():
    def fn(lib):
        x = lib.ones(2, 3, 4, requires_grad=True)
        w = lib.ones(3, 4, requires_grad=True)
        bias = lib.ones(3, 2)[:, 0].requires_grad_()
        y = lib.nn.functional.linear(x, w, bias)
        return type(y.grad_fn).__name__, y._base is None
    same_outcome(fn)
