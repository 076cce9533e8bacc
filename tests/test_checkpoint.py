"""autograd_cy.utils.checkpoint against torch.utils.checkpoint (torch 2.13 is the oracle).

Each test runs the same snippet ``fn(lib)`` on both libraries: gradients, warnings, errors
and the bytes kept for backward must agree. Randomness (dropout) cannot be compared across
libraries, so there the oracle is the same library without checkpointing, and torch shows
the property holds for it too.
"""
import numpy as np
import pytest
import torch
import torch.utils.checkpoint

import autograd_cy as ag
from tests.oracle import (
    LIBS, assert_close, assert_same_error, no_warning, randn, same_warning, to_numpy,
)


def module(lib):
    """``lib.utils.checkpoint``."""
    return lib.utils.checkpoint


def leaf(lib, array):
    return lib.tensor(array, requires_grad=True)


def two_input_function(lib):
    def function(x, w):
        return ((x * w).tanh() * x).sin().sum(0)
    return function


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_gradients_equal_the_plain_ones_and_torchs(use_reentrant):
    x_array, w_array = randn(3, 4, seed=1), randn(3, 4, seed=2)
    grads = {}
    for lib in LIBS:
        for checkpointed in (False, True):
            x, w = leaf(lib, x_array), leaf(lib, w_array)
            function = two_input_function(lib)
            if checkpointed:
                y = module(lib).checkpoint(function, x, w, use_reentrant=use_reentrant)
            else:
                y = function(x, w)
            (y * y).sum().backward()
            grads[lib.__name__, checkpointed] = (x.grad, w.grad)
    assert_close(grads["autograd_cy", True], grads["autograd_cy", False], what="vs plain")
    assert_close(grads["autograd_cy", True], grads["torch", True], what="vs torch")


def test_non_reentrant_works_with_grad_and_backward_inputs():
    def run(lib):
        x, w = leaf(lib, randn(4, seed=3)), leaf(lib, randn(4, seed=4))
        y = module(lib).checkpoint(two_input_function(lib), x, w, use_reentrant=False)
        gx, = lib.autograd.grad(y.sum(), x, retain_graph=True)
        y.sum().backward(inputs=[w])
        return gx, x.grad, w.grad
    ours, theirs = run(ag), run(torch)
    assert_close(ours, theirs)


@pytest.mark.parametrize("call", ["grad", "backward_inputs"])
def test_reentrant_refuses_grad_and_backward_inputs(call):
    def run(lib):
        x = leaf(lib, randn(4, seed=3))
        y = module(lib).checkpoint(lambda t: t.sin(), x, use_reentrant=True).sum()
        if call == "grad":
            lib.autograd.grad(y, x)
        else:
            y.backward(inputs=[x])
    assert_same_error(run, RuntimeError)


def test_keyword_arguments():
    def run(lib):
        x, w = leaf(lib, randn(4, seed=5)), leaf(lib, randn(4, seed=6))
        y = module(lib).checkpoint(lambda a, *, scale: (a * scale).sin(), x, scale=w,
                                   use_reentrant=False)
        y.sum().backward()
        return x.grad, w.grad
    assert_close(run(ag), run(torch))
    assert_same_error(lambda lib: module(lib).checkpoint(
        lambda a, scale: a * scale, leaf(lib, randn(2)), scale=2, use_reentrant=True),
        ValueError)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_non_tensor_arguments_and_outputs(use_reentrant):
    def run(lib):
        x = leaf(lib, randn(3, seed=7))
        out = module(lib).checkpoint(lambda t, k, s: (t * k, k, s, t.exp().sum()), x, 3,
                                     "name", use_reentrant=use_reentrant)
        (out[0].sum() + out[3]).backward()
        return out[1], out[2], out[0].requires_grad, out[3].requires_grad, x.grad
    ours, theirs = run(ag), run(torch)
    assert ours[:4] == theirs[:4]
    assert_close(ours[4], theirs[4])


@pytest.mark.parametrize("use_reentrant", [True, False])
@pytest.mark.filterwarnings("ignore:None of the inputs")  # the inner forward runs in no_grad
def test_nested_checkpoints(use_reentrant):
    def run(lib):
        checkpoint = module(lib).checkpoint
        x = leaf(lib, randn(5, seed=8))

        def inner(t):
            return (t.sin() * t).cos()

        def outer(t):
            return checkpoint(inner, t.exp(), use_reentrant=use_reentrant).tanh() * t

        checkpoint(outer, x, use_reentrant=use_reentrant).sum().backward()
        return x.grad
    assert_close(run(ag), run(torch))


@pytest.mark.parametrize("use_reentrant", [True, False])
@pytest.mark.parametrize("segments", [1, 2, 3, 5])
def test_checkpoint_sequential(use_reentrant, segments):
    def run(lib):
        x = leaf(lib, randn(2, 3, seed=9))
        functions = [lib.sin, lib.tanh, lambda t: t * 2, lib.cos, lib.exp]
        y = module(lib).checkpoint_sequential(functions, segments, x,
                                              use_reentrant=use_reentrant)
        y.sum().backward()
        return y, x.grad
    assert_close(run(ag), run(torch))


def test_double_backward_through_a_non_reentrant_checkpoint():
    def run(lib):
        x = leaf(lib, randn(3, seed=12))
        y = module(lib).checkpoint(lambda t: (t.sin() * t).exp(), x, use_reentrant=False)
        g, = lib.autograd.grad(y.sum(), x, create_graph=True)
        return g, lib.autograd.grad(g.sum(), x)[0]
    assert_close(run(ag), run(torch))


def test_backward_twice_with_retain_graph_recomputes_each_time():
    def run(lib):
        x = leaf(lib, randn(4, seed=10))
        y = module(lib).checkpoint(lambda t: t.sin().exp(), x, use_reentrant=False).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad
    assert_close(run(ag), run(torch))


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_backward_twice_without_retain_graph(use_reentrant):
    def run(lib):
        x = leaf(lib, randn(4, seed=10))
        y = module(lib).checkpoint(lambda t: t.sin().exp(), x,
                                   use_reentrant=use_reentrant).sum()
        y.backward()
        y.backward()
    assert_same_error(run, RuntimeError)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_input_modified_in_place_after_the_forward(use_reentrant):
    def run(lib):
        x = leaf(lib, randn(3, seed=11)) * 1
        y = module(lib).checkpoint(lambda t: t.sin(), x, use_reentrant=use_reentrant)
        x.mul_(2)
        y.sum().backward()
    assert_same_error(run, RuntimeError, "modified by an inplace operation")


# ------------------------------------------------------------------ RNG state

def dropout_function(lib):
    def function(t):
        return lib.nn.functional.dropout(t.sin(), 0.5) * t
    return function


def dropout_run(lib, checkpointed, use_reentrant, preserve=True):
    """Gradient of a region with dropout, and what the generator draws after backward."""
    lib.manual_seed(3)
    x = leaf(lib, np.linspace(-1.0, 1.0, 24))
    function = dropout_function(lib)
    if checkpointed:
        y = module(lib).checkpoint(function, x, use_reentrant=use_reentrant,
                                   preserve_rng_state=preserve)
    else:
        y = function(x)
    y.sum().backward()
    return to_numpy(x.grad), to_numpy(lib.rand(4))


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_dropout_without_preserve_rng_state_draws_a_new_mask(use_reentrant):
    for lib in LIBS:
        plain_grad, _ = dropout_run(lib, False, use_reentrant)
        grad, _ = dropout_run(lib, True, use_reentrant, preserve=False)
        assert not np.array_equal(grad, plain_grad), lib.__name__


def nested_dropout_run(lib, checkpointed, use_reentrant):
    """An outer region that draws after an inner checkpointed region that draws, and a
    region that reseeds: the states each replays are the ones its forward started from."""
    lib.manual_seed(5)
    x = leaf(lib, np.linspace(-1.0, 1.0, 24))
    dropout = lib.nn.functional.dropout
    run = ((lambda f, *a: module(lib).checkpoint(f, *a, use_reentrant=use_reentrant))
           if checkpointed else (lambda f, *a: f(*a)))

    def inner(t):
        return dropout(t.cos(), 0.5) * t

    def outer(t):
        u = t.exp()                               # draws nothing before the inner region
        return dropout(run(inner, u), 0.3) + t

    def reseeding(t):
        lib.manual_seed(11)
        return dropout(t.sin(), 0.5)

    y = run(outer, x) * run(reseeding, x)
    y.sum().backward()
    return to_numpy(x.grad), to_numpy(lib.rand(4))


@pytest.mark.parametrize("use_reentrant", [True, False])
@pytest.mark.parametrize("run, tolerance", [(dropout_run, 0.0), (nested_dropout_run, 1e-12)],
                         ids=["one_region", "nested_and_reseeding_regions"])
def test_dropout_recomputes_the_same_mask(run, tolerance, use_reentrant):
    """The recomputation replays the generator state its region's forward started from
    (nested regions each their own); the surrounding program draws what it would have
    drawn without checkpointing."""
    for lib in LIBS:
        plain_grad, plain_after = run(lib, False, use_reentrant)
        grad, after = run(lib, True, use_reentrant)
        np.testing.assert_allclose(grad, plain_grad, rtol=tolerance, atol=tolerance)
        np.testing.assert_array_equal(after, plain_after)


def test_rng_state_round_trip_and_errors():
    def draws(lib):     # the CPU generator's state: draws on the CPU
        state = lib.get_rng_state()
        first = to_numpy(lib.rand(5, device="cpu"))
        lib.rand(3, device="cpu")
        lib.set_rng_state(state)
        again = to_numpy(lib.rand(5, device="cpu"))
        return state.dtype == lib.uint8, bool(np.array_equal(first, again))
    assert draws(ag) == draws(torch) == (True, True)
    assert_same_error(lambda lib: lib.set_rng_state(lib.zeros(3, device="cpu")))
    assert_same_error(lambda lib: lib.set_rng_state([1, 2]))
    assert_same_error(lambda lib: lib.set_rng_state(lib.zeros(3, dtype=lib.uint8,
                                                              device="cpu")),
                      RuntimeError, r"^Expected a CPUGeneratorImplState of size \d+ but found "
                      r"the input RNG state size to be 3$")


def test_cuda_rng_state_round_trip():
    # torch here has no CUDA device: the oracle is replaying the same draws.
    state = ag.cuda.get_rng_state()
    first = ag.rand(6, device="cuda").cpu().numpy()
    ag.rand(2, device="cuda")
    ag.cuda.set_rng_state(state)
    np.testing.assert_array_equal(ag.rand(6, device="cuda").cpu().numpy(), first)
    assert state.device.type == "cpu" and state.dtype == ag.uint8
    assert len(ag.cuda.get_rng_state_all()) == ag.cuda.device_count()


# ------------------------------------------------------------------ warnings

@pytest.mark.parametrize("entry", ["checkpoint", "checkpoint_sequential"])
def test_warning_when_use_reentrant_is_not_passed(entry):
    def run(lib):
        x = leaf(lib, randn(3))
        if entry == "checkpoint":
            return module(lib).checkpoint(lib.sin, x)
        return module(lib).checkpoint_sequential([lib.sin, lib.cos], 2, x)
    same_warning(run, UserWarning, r"^torch\.utils\.checkpoint.*: the use_reentrant "
                 "parameter should be passed explicitly")
    no_warning(lambda lib: module(lib).checkpoint(lib.sin, leaf(lib, randn(3)),
                                                  use_reentrant=False), "use_reentrant")


def test_warning_when_no_input_requires_grad():
    def run(lib, use_reentrant=True):
        y = module(lib).checkpoint(lib.sin, lib.tensor(randn(3)), use_reentrant=use_reentrant)
        return y.requires_grad
    assert same_warning(run, UserWarning,
                        "^None of the inputs have requires_grad=True. Gradients will be None$"
                        ) == (False, False)
    no_warning(lambda lib: run(lib, use_reentrant=False), "requires_grad")


# ------------------------------------------------------------------ errors

def test_argument_errors():
    def context_fn():
        return module(torch).noop_context_fn()
    for kwargs in ({"context_fn": context_fn}, {"debug": True}):
        assert_same_error(lambda lib: module(lib).checkpoint(
            lib.sin, leaf(lib, randn(2)), use_reentrant=True, **kwargs), ValueError)
    assert_same_error(lambda lib: module(lib).checkpoint(
        lib.sin, leaf(lib, randn(2)), use_reentrant=False, determinism_check="strict"),
        ValueError)
    assert_same_error(lambda lib: module(lib).checkpoint_sequential(
        [lib.sin], 1, leaf(lib, randn(2)), use_reentrant=False, extra=1), ValueError)


def test_reentrant_with_no_output_requiring_grad():
    def run(lib):
        x = leaf(lib, randn(3))
        y = module(lib).checkpoint(lambda t: t.detach() * 2, x, use_reentrant=True)
        y.sum().backward()
    assert_same_error(run, RuntimeError)


def assert_same_checkpoint_error(run, message):
    """``run(lib)`` raises ``lib``'s CheckpointError (a RuntimeError) matching ``message``."""
    for lib in LIBS:
        with pytest.raises(module(lib).CheckpointError, match=message):
            run(lib)
    assert issubclass(module(ag).CheckpointError, RuntimeError)


def flaky_function(changes):
    """A function whose recomputation differs from its forward in the way ``changes`` says."""
    calls = [0]

    def function(t):
        calls[0] += 1
        first = calls[0] == 1
        if changes == "shape":
            return t[:calls[0]].exp()
        if changes == "dtype":
            return t.exp() if first else t.half().exp()
        if changes == "fewer":
            return t.exp().exp() if first else t.exp()
        return t.exp() if first else t.exp().exp()
    return function


@pytest.mark.parametrize("changes, message", [
    ("shape", r"^torch\.utils\.checkpoint: Recomputed values for the following tensors have "
              r"different metadata than during the forward pass\.\ntensor at position 0:\n"
              r"saved metadata: \{'shape': \w+\.Size\(\[1\]\)"),
    ("dtype", r"^torch\.utils\.checkpoint: Recomputed values for the following tensors have "
              r"different metadata than during the forward pass\.\ntensor at position 0:\n"
              r"saved metadata: \{'shape': \w+\.Size\(\[3\]\), 'dtype': \w+\.float64"),
    ("fewer", r"^torch\.utils\.checkpoint: A different number of tensors was saved during the "
              r"original forward and recomputation\.\nNumber of tensors saved during forward: "
              r"2\nNumber of tensors saved during recomputation: 1\.\n"),
    ("more", r"^torch\.utils\.checkpoint: trying to save more tensors during recomputation "
             r"than during the original forward pass\.\n"),
])
def test_determinism_check(changes, message):
    def run(lib, determinism_check="default"):
        C = module(lib)
        x = leaf(lib, randn(3))
        with C.set_checkpoint_early_stop(False):
            y = C.checkpoint(flaky_function(changes), x, use_reentrant=False,
                             determinism_check=determinism_check)
        y.sum().backward()
        return x.grad
    assert_same_checkpoint_error(run, message)
    if changes == "shape":
        # determinism_check="none" lets the recomputation through, whatever comes of it.
        assert_close(run(ag, "none"), run(torch, "none"))


def test_debug_lists_what_was_saved():
    def run(lib):
        y = module(lib).checkpoint(flaky_function("fewer"), leaf(lib, randn(3)),
                                   use_reentrant=False, debug=True)
        y.sum().backward()
    assert_same_checkpoint_error(run, r"^ An error happened while unpacking tensors; dumping "
                                      r"logs of latest computation\nbecause you passed "
                                      r"`debug=True`")


@pytest.mark.parametrize("where", ["inside", "outside", "both"])
def test_user_saved_tensors_hooks_and_a_non_reentrant_checkpoint(where):
    """Hooks inside the region take what is saved under them (in the forward and again in
    the recomputation); hooks around the region pack its inputs."""
    def run(lib):
        packed, unpacked = [], []

        def pack(t):
            packed.append(tuple(t.shape))
            return t

        def unpack(t):
            unpacked.append(tuple(t.shape))
            return t

        def function(t):
            if where != "outside":
                with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
                    a = t.sin()
            else:
                a = t.sin()
            return (a * t[:2].sum()).exp()
        x = leaf(lib, randn(3, seed=7))
        h = x * 2
        if where != "inside":
            with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
                y = module(lib).checkpoint(function, h, use_reentrant=False)
        else:
            y = module(lib).checkpoint(function, h, use_reentrant=False)
        y.sum().backward()
        return x.grad, packed, unpacked
    ours, theirs = run(ag), run(torch)
    assert_close(ours[0], theirs[0])
    assert ours[1:] == theirs[1:]


def test_backward_inside_a_backward_while_the_region_is_half_unpacked():
    """A grad() run from a hook inside the region, after the outer backward recomputed it but
    before it unpacked everything: each backward gets its own recomputed tensors (NOTE
    [Holder slots] in pyx/checkpoint_hooks.pyx)."""
    def run(lib):
        x = leaf(lib, randn(3, seed=5))
        inner = []

        def function(t):
            a = t.sin()
            if not inner:
                def hook(grad):
                    if len(inner) == 1:
                        inner.append("running")
                        inner.append(lib.autograd.grad(s, x, retain_graph=True)[0])
                    return grad
                a.register_hook(hook)
                inner.append("registered")
            return (a * t).exp().cos()
        s = module(lib).checkpoint(function, x, use_reentrant=False).sum()
        s.backward(retain_graph=True)
        return x.grad, inner[-1]
    assert_close(run(ag), run(torch))


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("backward", [False, True])
def test_non_reentrant_graph_dies_by_reference_counting(debug, backward):
    """A checkpointed region's state makes no reference cycle: once its result is gone, its
    input (and the graph behind it) is freed at once, as without checkpointing, with the
    garbage collector off. (The oracle is the plain graph: torch's checkpoint keeps a cycle
    when no backward ran.)"""
    import gc
    import weakref

    def input_dies(checkpointed):
        x = leaf(ag, randn(3))
        h = x * 2
        function = lambda t: (t.sin() * t).exp()  # noqa: E731
        if checkpointed:
            y = module(ag).checkpoint(function, h, use_reentrant=False, debug=debug)
        else:
            y = function(h)
        if backward:
            y.sum().backward()
        alive = weakref.ref(h)
        del y, h
        return alive() is None
    gc.collect()
    gc.disable()
    try:
        assert input_dies(checkpointed=True) == input_dies(checkpointed=False)
    finally:
        gc.enable()


def test_early_stop():
    """The recomputation stops at the last saved tensor the forward had, unless told not to."""
    def steps_run(lib, early_stop):
        log = []

        def function(t):
            log.append("sin")
            a = t.sin()
            log.append("exp")
            b = a.exp()
            log.append("scale")
            return b * 2
        C = module(lib)
        with C.set_checkpoint_early_stop(early_stop):
            y = C.checkpoint(function, leaf(lib, randn(3)), use_reentrant=False)
        y.sum().backward()
        return log
    for early_stop in (True, False):
        assert steps_run(ag, early_stop) == steps_run(torch, early_stop)


def test_selective_checkpoint_names():
    assert ([(p.name, p.value) for p in module(ag).CheckpointPolicy]
            == [(p.name, p.value) for p in module(torch).CheckpointPolicy])
    assert_same_error(lambda lib: module(lib).create_selective_checkpoint_contexts(3),
                      TypeError)


# ------------------------------------------------------------------ memory

def saved_bytes(lib, run):
    """Bytes of the distinct storages saved for backward while ``run()`` records."""
    storages = {}

    def pack(t):
        key = t.data_ptr() if lib is ag else t.untyped_storage().data_ptr()
        storages[key] = t.numel() * t.element_size()
        return t
    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        output = run()
    return sum(storages.values()), output


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_saved_bytes_fall_as_the_segment_count_says(use_reentrant):
    layers, size = 12, 8
    measured = {}
    for lib in LIBS:
        x = leaf(lib, np.linspace(-1.0, 1.0, size))
        c, d = lib.tensor(np.full(size, 0.9)), lib.tensor(np.full(size, 0.1))
        functions = [lambda y: (y * c + d).tanh()] * layers
        for segments in (0, 1, 2, 3, 4, 6, 12):
            def run():
                if segments == 0:       # not checkpointed
                    y = x
                    for function in functions:
                        y = function(y)
                    return y
                return module(lib).checkpoint_sequential(functions, segments, x,
                                                         use_reentrant=use_reentrant)
            measured[lib.__name__, segments], y = saved_bytes(lib, run)
            y.sum().backward()
    for segments in (0, 1, 2, 3, 4, 6, 12):
        assert measured["autograd_cy", segments] == measured["torch", segments], segments
        # What stays: c, each checkpointed segment's input, the last segment's outputs.
        kept = 1 + layers if segments == 0 else (
            1 + (segments - 1) + layers - (segments - 1) * (layers // segments))
        assert measured["autograd_cy", segments] == kept * size * 8, segments


# ------------------------------------------------------------------ the documented usage

TUTORIAL = """
import torch
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(0)
w1 = torch.randn(4, 4, requires_grad=True)
w2 = torch.randn(4, 4, requires_grad=True)

def block(x, w):
    return torch.nn.functional.relu(x @ w).tanh()

def model(x):
    x = checkpoint(block, x, w1, use_reentrant=False)
    return checkpoint(block, x, w2, use_reentrant=False)

x = torch.randn(2, 4, requires_grad=True)
loss = model(x).pow(2).sum()
loss.backward()

layers = [lambda t: block(t, w1), lambda t: block(t, w2), torch.sigmoid]
out = checkpoint_sequential(layers, 2, x, use_reentrant=False)
out.sum().backward()
result = (loss.detach(), x.grad, w1.grad, w2.grad, out.detach())
"""


def test_tutorial_usage_runs_unchanged_but_for_the_import():
    ours = TUTORIAL.replace("import torch\nfrom torch.utils",
                            "import autograd_cy as torch\nfrom autograd_cy.utils")
    namespace = {}
    exec(ours, namespace)
    result = namespace["result"]
    # torch reruns the program from our random inputs (the two generators differ).
    inputs = {name: to_numpy(namespace[name]) for name in ("w1", "w2", "x")}
    oracle = TUTORIAL
    for name, shape in (("w1", "4, 4"), ("w2", "4, 4"), ("x", "2, 4")):
        oracle = oracle.replace(f"{name} = torch.randn({shape}, requires_grad=True)",
                                f"{name} = torch.tensor(inputs['{name}'], requires_grad=True)")
    namespace = {"inputs": inputs}
    exec(oracle, namespace)
    assert_close(result, namespace["result"])
