"""Random programs under vmap, against torch.vmap: ``python -m tests.fuzz.vmap --seed S
--count N``.

A program is a chain of ops applied to one example (elementwise, with a second operand
that is batched or not, reductions with random dims, shape ops, matrix products, cat and
stack, indexing), drawn one op at a time: an op that torch refuses on the current value is
drawn again, so every program runs on torch. Each program runs under ``vmap`` with a random
``in_dims`` (and, for some seeds, inside a second vmap) on both libraries; the values and
the gradients of the inputs (through a random weighting of the output) must agree.
"""
import argparse
import random
import sys

import numpy as np
import torch

import autograd_cy as ag

UNARY = ["sin", "exp", "tanh", "abs", "relu", "sigmoid", "neg", "square"]
BINARY = ["add", "mul", "sub", "maximum", "div"]
REDUCE = ["sum", "mean", "amax", "logsumexp", "softmax", "log_softmax", "var", "norm",
          "prod"]
SHAPE = ["transpose", "unsqueeze", "squeeze", "flatten", "reshape", "permute", "expand",
         "narrow", "select", "slice", "flip_view", "t"]
OTHER = ["matmul", "cat", "stack", "where", "clamp", "index_select", "gather", "inplace",
         "setitem", "repeat", "split", "index_tensor", "mse", "expand_as", "masked_fill",
         "unbind", "linear"]


def draw_op(rng, ndim):
    kind = rng.choice(["unary"] * 3 + ["binary"] * 3 + ["reduce"] * 2 + ["shape"] * 3
                      + ["other"] * 2)
    if kind == "unary":
        return (kind, rng.choice(UNARY))
    if kind == "binary":
        # the other operand: a shape broadcasting with the value's, batched or not
        return (kind, rng.choice(BINARY), rng.random() < 0.5, rng.randint(0, 2))
    if kind == "reduce":
        return (kind, rng.choice(REDUCE), rng.randint(-max(ndim, 1), max(ndim, 1) - 1),
                rng.random() < 0.3, rng.random() < 0.3)
    if kind == "shape":
        return (kind, rng.choice(SHAPE), rng.randint(-max(ndim, 1), max(ndim, 1) - 1),
                rng.randint(-max(ndim, 1), max(ndim, 1) - 1))
    return (kind, rng.choice(OTHER), rng.random() < 0.5, rng.randint(-max(ndim, 1),
                                                                       max(ndim, 1) - 1))


def apply_op(lib, op, value, other, index_seed):
    """``op`` on ``value`` (``other``: a second operand, batched or not, of the same
    logical shape; shapes come from ``value``)."""
    kind, name = op[0], op[1]
    if kind == "unary":
        return getattr(lib, name)(value) if name != "square" else value * value
    if kind == "binary":
        operand = other
        for _ in range(op[3]):           # fewer dims: broadcasts from the right
            operand = operand.sum(0) if operand.dim() > 0 else operand
        if name == "div":
            return value / (operand.abs() + 1)
        return getattr(lib, name)(value, operand)
    if kind == "reduce":
        _, _, dim, keepdim, all_dims = op
        if name in ("softmax", "log_softmax"):
            return getattr(value, name)(dim)
        if name == "norm":
            return value.norm() if all_dims else value.norm(dim=dim, keepdim=keepdim)
        if name == "prod":
            return value.prod() if all_dims else value.prod(dim, keepdim=keepdim)
        if all_dims:
            return getattr(value, name)() if name not in ("amax", "logsumexp") else \
                getattr(value, name)(tuple(range(value.dim())))
        return getattr(value, name)(dim, keepdim=keepdim)
    if kind == "shape":
        _, _, a, b = op
        shape = tuple(value.shape)
        if name == "transpose":
            return value.transpose(a, b)
        if name == "unsqueeze":
            return value.unsqueeze(a)
        if name == "squeeze":
            return value.squeeze()
        if name == "flatten":
            return value.flatten()
        if name == "reshape":
            return value.reshape(-1, *shape[1:]) if shape else value.reshape(1)
        if name == "permute":
            order = list(range(value.dim()))
            random.Random(index_seed).shuffle(order)
            return value.permute(*order)
        if name == "expand":
            return value.unsqueeze(0).expand(2, *shape)
        if name == "narrow":
            return value.narrow(a, 0, max(value.shape[a] - 1, 1))
        if name == "select":
            return value.select(a, 0)
        if name == "slice":
            return value[1:] if shape and shape[0] > 1 else value[..., None]
        if name == "flip_view":
            return value.mT if value.dim() >= 2 else value.unsqueeze(-1)
        return value.t()
    _, _, batched_other, dim = op
    if name == "matmul":
        return value @ other.mT if value.dim() >= 2 else value @ other
    if name == "cat":
        return lib.cat([value, other], dim)
    if name == "stack":
        return lib.stack([value, other], dim)
    if name == "where":
        return lib.where(value > other, value, other * 2)
    if name == "clamp":
        return value.clamp(min=-0.5, max=0.7)
    if name == "index_select":
        return value.index_select(dim, lib.tensor([0, 0]))
    if name == "inplace":
        result = value.clone()
        result.mul_(other.detach() if not batched_other else 0.5).add_(1.5)
        return result
    if name == "setitem":
        result = value.clone()
        result[..., :1] = other[..., :1] if batched_other else 0.25
        return result
    if name == "repeat":
        return value.repeat(*([2] + [1] * value.dim()))
    if name == "split":
        return value.split(1, dim)[0]
    if name == "index_tensor":
        return value[lib.tensor([0, 0])]
    if name == "mse":
        reduction = ("mean", "sum", "none")[index_seed % 3]
        return lib.nn.functional.mse_loss(value, other, reduction=reduction)
    if name == "expand_as":
        return value.sum().expand_as(other) * other
    if name == "masked_fill":
        return value.masked_fill(other > 0, 0.5)
    if name == "unbind":
        return value.unbind(dim)[-1]
    if name == "linear":
        return lib.nn.functional.linear(value, other, other[..., 0] if other.dim() > 1
                                        else None)
    index = lib.zeros(tuple(value.shape), dtype=lib.int64)
    return value.gather(dim, index)


def program_of(seed):
    """(ops, example shape, batch, in_dim, nested, the other operand batched or not)."""
    rng = random.Random(seed)
    ndim = rng.randint(0, 3)
    shape = tuple(rng.randint(1, 4) for _ in range(ndim))
    length = rng.randint(1, 6)
    return rng, shape, rng.randint(1, 4), rng.randint(-ndim - 1, ndim), rng.random() < 0.25, \
        rng.random() < 0.5, length


def run_seed(seed):
    """None if the libraries agree on the program of ``seed``, else a description."""
    rng, shape, batch, in_dim, nested, other_batched, length = program_of(seed)
    np_rng = np.random.default_rng(seed)
    outer = 2 if nested else None
    full = ((outer,) if nested else ()) + tuple(np.insert(np.array(shape, dtype=int),
                                                          in_dim % (len(shape) + 1),
                                                          batch))
    x = np_rng.standard_normal(full)
    y = np_rng.standard_normal(((outer,) if nested else ()) + ((batch,) if other_batched
                                                              else ()) + shape)
    ops = []
    for _ in range(length):
        for _attempt in range(20):
            op = draw_op(rng, len(shape) + 0)
            try:
                _run(torch, ops + [op], x, y, in_dim, nested, other_batched, seed)
            except Exception:       # noqa: BLE001 - torch refuses: draw another op
                continue
            ops.append(op)
            break
    if not ops:
        return None
    theirs = _run(torch, ops, x, y, in_dim, nested, other_batched, seed)
    try:
        ours = _run(ag, ops, x, y, in_dim, nested, other_batched, seed)
    except Exception as exc:        # noqa: BLE001
        return f"seed {seed}: ops {ops}: autograd_cy raised {type(exc).__name__}: {exc}"
    for what, a, b in zip(("value", "grad x", "grad y"), ours, theirs):
        if (a is None) != (b is None):
            return f"seed {seed}: ops {ops}: {what}: {a} vs torch {b}"
        if a is None:
            continue
        # float64 throughout; a chain of exp then sin of its large result turns ulps of the
        # argument into 1e-6 differences of the value
        if a.shape != b.shape or not np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True):
            return f"seed {seed}: ops {ops}: {what} differs:\n{a}\nvs torch\n{b}"
    return None


def _run(lib, ops, x, y, in_dim, nested, other_batched, seed):
    tx = lib.tensor(x, requires_grad=True)
    ty = lib.tensor(y, requires_grad=True)

    def one(value, other):
        for i, op in enumerate(ops):
            value = apply_op(lib, op, value, other if op[0] != "other" or op[2] else
                             other.detach(), seed + i)
            if op[0] == "shape" or (op[0] == "other" and op[1] in ("matmul", "cat", "stack")):
                other = value.detach() * 0.5 + 0.25       # keep the second operand's shape
        return value
    mapped = lib.vmap(one, in_dims=(in_dim, 0 if other_batched else None))
    if nested:
        mapped = lib.vmap(mapped, in_dims=(0, 0))
    out = mapped(tx, ty)
    weight = lib.tensor(np.random.default_rng(seed + 1).standard_normal(tuple(out.shape)))
    if not out.requires_grad:
        return _host(out), None, None
    gx, gy = lib.autograd.grad((out * weight).sum(), (tx, ty), allow_unused=True)
    return _host(out), _host(gx), _host(gy)


def _host(t):
    if t is None:
        return None
    return np.asarray(t.detach().cpu().numpy(), dtype=np.float64)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=200)
    args = parser.parse_args(argv)
    failures = [f for f in (run_seed(s) for s in range(args.seed, args.seed + args.count)) if f]
    for failure in failures:
        print(failure, "\n")
    print(f"{args.count - len(failures)}/{args.count} programs agree "
          f"(seeds {args.seed}..{args.seed + args.count - 1})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
