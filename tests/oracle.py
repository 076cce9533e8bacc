"""The test oracle: run the same code on autograd_cy and on PyTorch, compare everything.

``check_op(fn, *arrays)`` calls ``fn(lib, *tensors)`` with ``lib`` = autograd_cy and
with ``lib`` = torch, on the same input values, and compares (1) the forward
values, (2) the gradients for a random output gradient, (3) the second-order
gradients (double backward through ``create_graph=True``). Op tests are then one
line of data each (STYLE: op tests as data).
"""
import numpy as np
import torch

import autograd_cy as ag

TOLERANCES = {np.float32: (1e-4, 1e-5), np.float64: (1e-7, 1e-9)}


def to_torch(value):
    if isinstance(value, ag.Tensor):
        result = torch.from_numpy(value.detach().numpy().copy())
        return result.requires_grad_(value.requires_grad)
    return value


def to_numpy(value):
    if isinstance(value, ag.Tensor):
        return value.detach().numpy()
    if isinstance(value, torch.Tensor):
        return value.detach().numpy(force=True)     # force: torch's ZeroTensor gradients
    return np.asarray(value)


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


def _outputs(result):
    return result if isinstance(result, (tuple, list)) else (result,)


def check_op(fn, *arrays, dtype=np.float64, requires_grad=None, double=True, rtol=None,
             atol=None, seed=0):
    """Compare ``fn(lib, *tensors)`` between autograd_cy and torch: values, grads, grad-grads.

    ``arrays`` are NumPy arrays (cast to ``dtype`` when floating) or plain Python
    values passed through. ``requires_grad`` (one bool per array) defaults to
    True for floating arrays.
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
        wants_grad = (array.dtype.kind == "f" if requires_grad is None
                      else requires_grad[index])
        ours.append(ag.tensor(array, requires_grad=wants_grad))
        theirs.append(torch.tensor(array, requires_grad=wants_grad))
        if wants_grad:
            differentiable.append(index)

    out = _outputs(fn(ag, *ours))
    expected = _outputs(fn(torch, *theirs))
    assert_close(out, expected, rtol, atol, "forward")
    if not differentiable:
        return

    pairs = [(o, e) for o, e in zip(out, expected)
             if isinstance(e, torch.Tensor) and e.requires_grad]
    grad_arrays = [rng.standard_normal(e.shape).astype(to_numpy(e).dtype) for _, e in pairs]
    our_inputs = [ours[i] for i in differentiable]
    their_inputs = [theirs[i] for i in differentiable]
    our_grads = ag.autograd.grad([o for o, _ in pairs], our_inputs,
                                 [ag.tensor(g) for g in grad_arrays],
                                 create_graph=double, allow_unused=True)
    their_grads = torch.autograd.grad([e for _, e in pairs], their_inputs,
                                      [torch.tensor(g) for g in grad_arrays],
                                      create_graph=double, allow_unused=True)
    assert_close(our_grads, their_grads, rtol, atol, "gradient")
    if not double:
        return

    # Second order: differentiate <grads, v> once more (a Hessian-vector product).
    directions = [rng.standard_normal(tuple(g.shape)) if g is not None else None
                  for g in their_grads]
    our_total = sum((g * ag.tensor(v.astype(to_numpy(g).dtype))).sum()
                    for g, v in zip(our_grads, directions) if g is not None and g.requires_grad)
    their_total = sum((g * torch.tensor(v.astype(to_numpy(g).dtype))).sum()
                      for g, v in zip(their_grads, directions)
                      if g is not None and g.requires_grad)
    if not isinstance(their_total, torch.Tensor):
        return
    their_second = torch.autograd.grad(their_total, their_inputs, allow_unused=True)
    if not isinstance(our_total, ag.Tensor):
        assert all(g is None or not g.any() for g in their_second), "double backward missing"
        return
    our_second = ag.autograd.grad(our_total, our_inputs, allow_unused=True)
    assert_close(our_second, their_second, rtol, atol, "double backward")


def randn(*shape, seed=None, positive=False):
    rng = np.random.default_rng(seed if seed is not None else sum(shape) + len(shape))
    array = rng.standard_normal(shape)
    return np.abs(array) + 0.5 if positive else array
