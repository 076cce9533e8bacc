"""The test oracle: run the same code on autograd_cy and on PyTorch, compare everything.

Every test file compares against torch through this module:

* ``LIBS``: the two libraries, ``(autograd_cy, torch)``, for tests that loop over both.
* ``check_op(fn, *arrays)`` calls ``fn(lib, *tensors)`` with ``lib`` = autograd_cy and
  with ``lib`` = torch, on the same input values, and compares (1) the forward
  values, dtypes and shapes, (2) ``requires_grad`` and whether a ``grad_fn`` exists
  on every output, (3) the gradients for a random output gradient, (4) the
  second-order gradients (double backward through ``create_graph=True``). Op tests
  are then one line of data each.
* ``both`` / ``assert_same``: run a snippet ``fn(lib)`` on both libraries and compare
  the results as plain Python data (numbers, lists, strings, traces).
* ``assert_same_error``: ``fn(lib)`` raises in torch, and raises the same exception
  type with the same key words (or the same message) in autograd_cy.
* ``same_warning`` / ``no_warning``: both libraries warn (or neither does).
* ``run_threads``: run workers in threads and re-raise what any of them raised.

``DEVICE`` (environment variable ``AUTOGRAD_CY_TEST_DEVICE``, default ``cpu``) is where
``check_op`` puts autograd_cy's tensors: with ``cuda`` (and ``AUTOGRAD_CY_CUDA=emulate``
on a machine without a GPU) the op suites run through the CUDA kernels, against torch on
the CPU (``make test`` does both).
"""
import os
import importlib
import json
import re
import subprocess
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag

LIBS = (ag, torch)

DEVICE = os.environ.get("AUTOGRAD_CY_TEST_DEVICE", "cpu")
# how ``str(tensor.device)`` spells DEVICE (a bare "cuda" means the current device, cuda:0)
DEVICE_NAME = "cuda:0" if DEVICE.startswith("cuda") else "cpu"

TOLERANCES = {np.float32: (1e-4, 1e-5), np.float64: (1e-7, 1e-9)}
# the complex dtype whose parts are a float dtype: complex arrays given to check_op take it
COMPLEX_OF = {np.float32: np.complex64, np.float64: np.complex128}


# ------------------------------------------------------------------ conversions

def to_torch(value):
    if isinstance(value, ag.Tensor):
        result = torch.from_numpy(value.detach().cpu().numpy(force=True).copy())
        return result.requires_grad_(value.requires_grad)
    return value


def to_numpy(value):
    if isinstance(value, ag.Tensor):
        return value.detach().cpu().numpy(force=True)   # force: a conjugate view resolved
    if isinstance(value, torch.Tensor):
        return value.detach().numpy(force=True)     # force: torch's ZeroTensor gradients
    return np.asarray(value)


def plain(value):
    """Tensors (of either library) as nested lists; tuples/lists/dicts converted inside."""
    if isinstance(value, (ag.Tensor, torch.Tensor)):
        return value.detach().cpu().numpy().tolist()
    if isinstance(value, (tuple, list)):
        return type(value)(plain(v) for v in value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def randn(*shape, seed=None, positive=False):
    rng = np.random.default_rng(seed if seed is not None else sum(shape) + len(shape))
    array = rng.standard_normal(shape)
    return np.abs(array) + 0.5 if positive else array


# ------------------------------------------------------------------ tensor comparison

def assert_close(ours, theirs, rtol=1e-5, atol=1e-6, what="value"):
    """Same structure, shape, dtype and values (None matches None or zeros)."""
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), what
        for index, (a, b) in enumerate(zip(ours, theirs)):
            assert_close(a, b, rtol, atol, f"{what}[{index}]")
        return
    if theirs is None or ours is None:
        other = ours if theirs is None else theirs
        assert other is None or not np.any(to_numpy(other)), f"{what}: None vs {other}"
        return
    a, b = to_numpy(ours), to_numpy(theirs)
    assert a.shape == b.shape, f"{what}: shape {a.shape} != torch {b.shape}"
    if isinstance(theirs, torch.Tensor):
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], (
            f"{what}: dtype {ours.dtype} != torch {theirs.dtype}")
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=what)


class on_test_device:
    """Tensors that ``fn`` makes itself (``lib.tensor(...)``) go to DEVICE too."""

    def __enter__(self):
        if DEVICE != "cpu":
            ag.set_default_device(DEVICE)

    def __exit__(self, *exc):
        ag.set_default_device(None)


def assert_same_autograd_flags(ours, theirs, what="output"):
    """Every tensor in ``theirs`` has a twin in ``ours`` with the same ``requires_grad``
    and the same answer to "has a ``grad_fn``" (structure walked like ``assert_close``)."""
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), what
        for index, (a, b) in enumerate(zip(ours, theirs)):
            assert_same_autograd_flags(a, b, f"{what}[{index}]")
        return
    if not isinstance(theirs, torch.Tensor):
        return
    assert isinstance(ours, ag.Tensor), f"{what}: {type(ours).__name__} where torch has a Tensor"
    assert ours.requires_grad == theirs.requires_grad, (
        f"{what}: requires_grad {ours.requires_grad} != torch {theirs.requires_grad}")
    assert (ours.grad_fn is None) == (theirs.grad_fn is None), (
        f"{what}: grad_fn {ours.grad_fn} vs torch {theirs.grad_fn}")


def _outputs(result):
    return result if isinstance(result, (tuple, list)) else (result,)


def check_op(fn, *arrays, dtype=np.float64, requires_grad=None, double=True, rtol=None,
             atol=None, seed=0):
    """Compare ``fn(lib, *tensors)`` between autograd_cy and torch: values, autograd flags,
    grads, grad-grads.

    ``arrays`` are NumPy arrays (cast to ``dtype`` when floating, to the complex dtype of
    ``dtype`` when complex) or plain Python values passed through. ``requires_grad`` (one
    bool per array) defaults to True for floating and complex arrays. A complex output gets
    a complex output gradient; a complex second-order total is differentiated through its
    real part (a complex scalar has no implicit gradient).
    """
    default_rtol, default_atol = TOLERANCES[dtype]
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    rng = np.random.default_rng(seed)
    ours, theirs, differentiable = [], [], []
    for index, array in enumerate(arrays):
        if not isinstance(array, np.ndarray):
            ours.append(array)
            theirs.append(array)
            continue
        if array.dtype.kind == "f":
            array = array.astype(dtype)
        elif array.dtype.kind == "c":
            array = array.astype(COMPLEX_OF[dtype])
        wants_grad = (array.dtype.kind in "fc" if requires_grad is None
                      else requires_grad[index])
        ours.append(ag.tensor(array, requires_grad=wants_grad, device=DEVICE))
        theirs.append(torch.tensor(array, requires_grad=wants_grad))
        if wants_grad:
            differentiable.append(index)

    with on_test_device():
        out = _outputs(fn(ag, *ours))
    expected = _outputs(fn(torch, *theirs))
    assert_close(out, expected, rtol, atol, "forward")
    for index, value in enumerate(out):
        if isinstance(value, ag.Tensor):
            assert str(value.device) == DEVICE_NAME, (
                f"forward[{index}] is on {value.device}, its inputs on {DEVICE_NAME}")
    assert_same_autograd_flags(out, expected, "forward")
    if not differentiable:
        return

    pairs = [(o, e) for o, e in zip(out, expected)
             if isinstance(e, torch.Tensor) and e.requires_grad]
    grad_arrays = [_random_like(rng, tuple(e.shape), to_numpy(e).dtype) for _, e in pairs]
    our_inputs = [ours[i] for i in differentiable]
    their_inputs = [theirs[i] for i in differentiable]
    our_grads = ag.autograd.grad([o for o, _ in pairs], our_inputs,
                                 [ag.tensor(g, device=DEVICE) for g in grad_arrays],
                                 create_graph=double, allow_unused=True)
    their_grads = torch.autograd.grad([e for _, e in pairs], their_inputs,
                                      [torch.tensor(g) for g in grad_arrays],
                                      create_graph=double, allow_unused=True)
    assert_close(our_grads, their_grads, rtol, atol, "gradient")
    if not double:
        return

    # Second order: differentiate <grads, v> once more (a Hessian-vector product).
    directions = [_random_like(rng, tuple(g.shape), to_numpy(g).dtype) if g is not None else None
                  for g in their_grads]
    our_total = sum((g * ag.tensor(v.astype(to_numpy(g).dtype), device=DEVICE)).sum()
                    for g, v in zip(our_grads, directions) if g is not None and g.requires_grad)
    their_total = sum((g * torch.tensor(v.astype(to_numpy(g).dtype))).sum()
                      for g, v in zip(their_grads, directions)
                      if g is not None and g.requires_grad)
    if not isinstance(their_total, torch.Tensor):
        return
    if their_total.is_complex():
        their_total, our_total = their_total.real, our_total.real
    their_second = torch.autograd.grad(their_total, their_inputs, allow_unused=True)
    if not isinstance(our_total, ag.Tensor):
        assert all(g is None or not g.any() for g in their_second), "double backward missing"
        return
    our_second = ag.autograd.grad(our_total, our_inputs, allow_unused=True)
    assert_close(our_second, their_second, rtol, atol, "double backward")


def _random_like(rng, shape, dtype):
    """Standard normal values of ``shape`` in ``dtype``; complex ones in both parts."""
    values = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


def check_batched_grad(fn, *arrays, batch=3, create_graph=False, dtype=np.float64, seed=0):
    """Compare ``autograd.grad(outputs, inputs, grad_outputs, is_grads_batched=True)`` of
    ``fn(lib, *tensors)`` with torch's: a batch of ``batch`` random gradients per output,
    every floating array an input. With ``create_graph`` the batched gradients are
    differentiated once more (their weighted sum, against the inputs)."""
    rtol, atol = TOLERANCES[dtype]
    rng = np.random.default_rng(seed)
    ours, theirs, inputs = [], [], []
    for index, array in enumerate(arrays):
        if isinstance(array, np.ndarray) and array.dtype.kind == "f":
            array = array.astype(dtype)
            inputs.append(index)
            ours.append(ag.tensor(array, requires_grad=True, device=DEVICE))
            theirs.append(torch.tensor(array, requires_grad=True))
        else:
            ours.append(ag.tensor(array, device=DEVICE) if isinstance(array, np.ndarray)
                        else array)
            theirs.append(torch.tensor(array) if isinstance(array, np.ndarray) else array)
    with on_test_device():
        out = _outputs(fn(ag, *ours))
    expected = _outputs(fn(torch, *theirs))
    pairs = [(o, e) for o, e in zip(out, expected)
             if isinstance(e, torch.Tensor) and e.requires_grad]
    grad_arrays = [rng.standard_normal((batch,) + tuple(e.shape)).astype(to_numpy(e).dtype)
                   for _, e in pairs]
    our_inputs = [ours[i] for i in inputs]
    their_inputs = [theirs[i] for i in inputs]
    our_grads = ag.autograd.grad([o for o, _ in pairs], our_inputs,
                                 [ag.tensor(g, device=DEVICE) for g in grad_arrays],
                                 create_graph=create_graph, allow_unused=True,
                                 is_grads_batched=True)
    their_grads = torch.autograd.grad([e for _, e in pairs], their_inputs,
                                      [torch.tensor(g) for g in grad_arrays],
                                      create_graph=create_graph, allow_unused=True,
                                      is_grads_batched=True)
    assert_close(our_grads, their_grads, rtol, atol, "batched gradient")
    if not create_graph:
        return
    weights = [rng.standard_normal(tuple(g.shape)) if g is not None else None
               for g in their_grads]
    our_total = sum((g * ag.tensor(w.astype(to_numpy(g).dtype), device=DEVICE)).sum()
                    for g, w in zip(our_grads, weights) if g is not None and g.requires_grad)
    their_total = sum((g * torch.tensor(w.astype(to_numpy(g).dtype))).sum()
                      for g, w in zip(their_grads, weights)
                      if g is not None and g.requires_grad)
    if not isinstance(their_total, torch.Tensor):
        return
    their_second = torch.autograd.grad(their_total, their_inputs, allow_unused=True)
    our_second = ag.autograd.grad(our_total, our_inputs, allow_unused=True)
    assert_close(our_second, their_second, rtol, atol, "double backward of batched gradient")


def check_gradcheck(fn, *arrays, check_forward_ad=False):
    """``ag.autograd.gradcheck`` (with ``check_forward_ad``) and ``gradgradcheck`` (the
    library's own finite differences) of ``fn(autograd_cy, *tensors)``, every array a
    float64 input that requires grad."""
    inputs = [ag.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in arrays]
    assert ag.autograd.gradcheck(lambda *xs: fn(ag, *xs), inputs,
                                 check_forward_ad=check_forward_ad)
    assert ag.autograd.gradgradcheck(lambda *xs: fn(ag, *xs), inputs)


# ------------------------------------------------------------------ forward AD

def check_jvp(fn, *arrays, dtype=np.float64, tangents=None, rtol=None, atol=None, seed=0):
    """Forward AD through ``fn(lib, *inputs)`` in autograd_cy and torch: each array becomes
    a dual tensor (``make_dual``) with a random tangent, or ``tangents[i]`` (None: a plain
    tensor); the outputs' values and tangents (``unpack_dual``) must match. Returns both
    libraries' ``(primal, tangent)`` pairs.

        check_jvp(lambda lib, x, y: lib.tanh(x * y), randn(3), randn(3))
    """
    if rtol is None or atol is None:        # a complex dtype comes with both
        default_rtol, default_atol = TOLERANCES[np.dtype(dtype).type]
        rtol = default_rtol if rtol is None else rtol
        atol = default_atol if atol is None else atol
    rng = np.random.default_rng(seed)
    if tangents is None:
        tangents = [rng.standard_normal(np.shape(a)) for a in arrays]
    results = []
    for lib in LIBS:
        fwad = lib.autograd.forward_ad
        with fwad.dual_level():
            inputs = []
            for array, tangent in zip(arrays, tangents):
                primal = lib.tensor(np.asarray(array, dtype=dtype))
                inputs.append(primal if tangent is None else fwad.make_dual(
                    primal, lib.tensor(np.asarray(tangent, dtype=dtype))))
            outputs = _outputs(fn(lib, *inputs))
            results.append([tuple(fwad.unpack_dual(out)) if isinstance(
                out, (ag.Tensor, torch.Tensor)) else (out, None) for out in outputs])
    ours, theirs = results
    assert len(ours) == len(theirs)
    for index, ((primal, tangent), (their_primal, their_tangent)) in enumerate(
            zip(ours, theirs)):
        assert_close(primal, their_primal, rtol, atol, f"output[{index}]")
        assert (tangent is None) == (their_tangent is None), (
            f"tangent[{index}]: {tangent} vs torch {their_tangent}")
        assert_close(tangent, their_tangent, rtol, atol, f"tangent[{index}]")
    return ours, theirs


# ------------------------------------------------------------------ snippets on both

def both(fn):
    """``(fn(autograd_cy), fn(torch))``."""
    return fn(ag), fn(torch)


def assert_same(fn, rtol=1e-6, atol=1e-7):
    """``fn(lib)`` gives the same plain data on both libraries (floats compared closely)."""
    ours, theirs = both(fn)
    _close(plain(ours), plain(theirs), rtol, atol, "result")
    return ours, theirs


def _close(a, b, rtol, atol, where):
    if isinstance(b, (list, tuple)):
        assert isinstance(a, (list, tuple)) and len(a) == len(b), f"{where}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, rtol, atol, f"{where}[{i}]")
    elif isinstance(b, dict):
        assert isinstance(a, dict) and a.keys() == b.keys(), f"{where}: {a!r} != {b!r}"
        for k in b:
            _close(a[k], b[k], rtol, atol, f"{where}[{k!r}]")
    elif isinstance(b, float) and isinstance(a, float):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=where)
    else:
        assert a == b, f"{where}: {a!r} != torch {b!r}"


# ------------------------------------------------------------------ errors and warnings

def _raised(fn, lib, expected_type):
    """The type and message of what ``fn(lib)`` raises, which must be an ``expected_type``.

    The exception itself is not kept: its traceback holds the snippet's frames, and with
    ``info`` a reference cycle, which would keep the snippet's tensors and graph alive
    until some later GC pass. Dropped here, they are freed by reference counting.
    """
    with pytest.raises(expected_type) as info:
        fn(lib)
    error = info.value
    raised = type(error), str(error)
    error.__traceback__ = None
    del info, error
    return raised


def _raised_in_a_fresh_torch(source, expected_type):
    """``_raised`` for torch, with ``source`` (defining ``run(lib)``) in a subprocess."""
    script = source + textwrap.dedent("""
        import json, torch
        try:
            run(torch)
        except BaseException as error:
            print(json.dumps([type(error).__module__, type(error).__qualname__, str(error)]))
        else:
            print(json.dumps(None))
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    raised = json.loads(done.stdout.splitlines()[-1])
    assert raised is not None, "torch raised nothing"
    module, qualname, message = raised
    error_type = importlib.import_module(module)
    for name in qualname.split("."):
        error_type = getattr(error_type, name)
    assert issubclass(error_type, expected_type), f"torch raised {qualname}: {message}"
    return error_type, message


#: What autograd_cy says after PyTorch's words in an error about a node: where the node's
#: forward op ran, where an in-place op wrote (NOTE [Provenance] in pyx/provenance.pyx). It
#: ends a pattern that anchors torch's message with ``$``; torch's message matches it too
#: (the group is optional). Messages compared whole are compared without it.
PROVENANCE_TAIL = r"( The (node \w+ was created by the forward op|in-place op) at .+)?$"


def _torch_spelling(message):
    """torch's message as autograd_cy words it (``torch.Size`` is ``autograd_cy.Size``,
    ``torch.dtype`` is ``autograd_cy.dtype``)."""
    return message.replace("torch.Size", "autograd_cy.Size").replace("torch.dtype",
                                                                     "autograd_cy.dtype")


def assert_same_error(fn, *expected, exact=None):
    """``fn(lib)`` raises in torch, and raises the same exception type in autograd_cy.

    ``expected`` is an optional exception class (torch's exception must be one), then
    any number of regular expressions that both messages must contain
    (``re.search``). With no expression, or with ``exact=True``, the two messages must
    be equal (``torch.Size`` read as ``autograd_cy.Size``). Returns both messages.

        assert_same_error(lambda lib: lib.zeros(3).clamp())
        assert_same_error(fn, RuntimeError, r"^element 0 of tensors does not require grad")
        assert_same_error(fn, "modified by an inplace operation")

    ``fn`` may also be Python source that defines ``run(lib)``: torch's side then runs
    in a fresh interpreter, for snippets after which torch leaves its process unsafe
    (torch 2.13 corrupts memory when it refuses a second SavedVariable.register_hooks).
    """
    exception = BaseException
    if expected and isinstance(expected[0], type) and issubclass(expected[0], BaseException):
        exception, *expected = expected
    if isinstance(fn, str):
        source = textwrap.dedent(fn)
        namespace = {}
        exec(compile(source, "<assert_same_error snippet>", "exec"), namespace)
        fn = namespace["run"]
        their_type, theirs = _raised_in_a_fresh_torch(source, exception)
    else:
        their_type, theirs = _raised(fn, torch, exception)
    our_type, ours = _raised(fn, ag, BaseException)
    assert our_type is their_type, (
        f"autograd_cy raised {our_type.__name__}({ours!r}), torch {their_type.__name__}"
        f"({theirs!r})")
    for pattern in expected:
        assert re.search(pattern, theirs), f"torch's message {theirs!r} lacks {pattern!r}"
        assert re.search(pattern, ours), f"message {ours!r} lacks {pattern!r}"
    if exact or (exact is None and not expected):
        words = re.sub(PROVENANCE_TAIL, "", ours, count=1)
        assert words == _torch_spelling(theirs), f"message {ours!r} != torch's {theirs!r}"
    return ours, theirs


def same_warning(fn, category, match):
    """Both libraries emit ``category`` with ``match`` in its message; returns both results."""
    results = []
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results.append(fn(lib))
        hits = [w for w in caught
                if issubclass(w.category, category) and re.search(match, str(w.message))]
        assert hits, f"{lib.__name__}: no {category.__name__} matching {match!r}: " + repr(
            [str(w.message)[:80] for w in caught])
    return tuple(results)


def no_warning(fn, match=""):
    """Neither library warns (with ``match`` in the message)."""
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(lib)
        hits = [str(w.message) for w in caught if re.search(match, str(w.message))]
        assert not hits, f"{lib.__name__} warned: {hits}"


# ------------------------------------------------------------------ threads

def run_threads(*workers, timeout=120):
    """Start one thread per callable, wait for all, and re-raise in the caller what any
    worker raised (a worker's exception would otherwise only be printed by threading)."""
    errors = []

    def guarded(worker):
        try:
            worker()
        except BaseException as error:          # noqa: B902 - handed to the main thread
            errors.append(error)
    threads = [threading.Thread(target=guarded, args=(worker,)) for worker in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), "a worker thread did not finish"
    if errors:
        raise errors[0]


# ------------------------------------------------------------------ graphs

def node_name(node):
    """A node's name as both libraries spell it (``AccumulateGrad``, ``MulBackward0``)."""
    if node is None:
        return None
    return node.name().rsplit("::", 1)[-1]


def graph_structure(node):
    """``next_functions`` as nested (name, input_nr, children) tuples, leaves named."""
    if node is None:
        return None
    children = []
    for child, input_nr in node.next_functions:
        children.append((input_nr, graph_structure(child)))
    return (node_name(node), tuple(children))


def set_history(node, inputs, outputs):
    """autograd_cy's internal ``_set_history(node, inputs, outputs)``: make ``node`` the
    grad_fn of ``outputs``, with edges to ``inputs`` (for hand-written Node subclasses).

    It lives in ``autograd_cy._C.recording`` (or, in older layouts, ``autograd_cy._C.node``).
    """
    for name in ("autograd_cy._C.recording", "autograd_cy._C.node"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(module, "_set_history"):
            return module._set_history(node, inputs, outputs)
    raise ImportError("_set_history is in neither autograd_cy._C.recording nor "
                      "autograd_cy._C.node")

