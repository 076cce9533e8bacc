"""Run one program on torch and on autograd_cy in lock step and find the first difference.

After every op: each new output (type, shape, dtype, values, requires_grad, is_leaf,
grad_fn present); after an op that mutates (in-place, backward), every earlier slot too,
and after a backward the ``.grad`` of every leaf and retained gradient and what the
recording hooks saw. If one side raises, the other must raise the same exception type
(then the program ends, agreed).
"""
import warnings
from dataclasses import dataclass

import numpy as np
import torch

import autograd_cy

from tests.fuzz.executor import Executor
from tests.fuzz.program import Ref

# rtol, and atol relative to the largest magnitude of the tensor (sums of many terms
# in another order differ by a few ulps of the largest term, not of the smallest).
# bfloat16 and float16: torch's own test tolerances for the types (torch.testing's rtol)
# and one unit in the last place of the largest magnitude (2**-8, 2**-11): a result that
# both libraries round to the type can land one ulp apart where their float32 values
# straddle a rounding boundary, and an op that cancels turns that ulp of a large operand
# into an error of a small result.
TOLERANCES = {"float32": (2e-4, 2e-5), "float64": (1e-9, 1e-11),
              "complex64": (2e-4, 2e-5), "complex128": (1e-9, 1e-11),
              "bfloat16": (1.6e-2, 2.0 ** -8), "float16": (1e-3, 2.0 ** -11)}
# The loosest precision first: a program compares every value with the tolerances of the
# least precise floating type among its leaves (a float64 value computed from float32 ones
# carries their rounding; a float32 one computed from bfloat16 ones carries theirs).
LOOSEST = ("bfloat16", "float16", "float32", "complex64")


@dataclass
class Difference:
    index: int          # the op after which the libraries disagree
    cls: str            # "<kind> after <op label>"
    detail: str


def exception_name(exc):
    """The exception's type name; torch's own classes count as their builtin base."""
    for klass in type(exc).__mro__:
        if klass.__module__ == "builtins":
            return klass.__name__
    return type(exc).__name__


def _array(t):
    """The values of ``t`` as a NumPy array; bfloat16 and float16 as float32 (exactly: NumPy
    has no bfloat16, and float32 comparisons do not overflow)."""
    if isinstance(t, autograd_cy.Tensor):
        a = t.detach().cpu().numpy(force=True)    # force: a conjugate view resolved
        return a.astype(np.float32) if a.dtype.itemsize == 2 and a.dtype.kind in "fV" else a
    # a copy first: torch 2.13's numpy() and tolist() of some gradients autograd.grad
    # returns crash the process (diag's backward of a 0-d input under create_graph: a
    # one-element view of stride 3; fuzz seed 991009966 with the dtype shares)
    t = t.detach().clone()
    if t.dtype in (torch.bfloat16, torch.float16):
        t = t.float()
    return t.numpy(force=True)


def _dtype_name(t):
    return str(t.dtype).split(".")[-1]


# What reading a flag gives where torch fails one of its own internal asserts (a bug of
# torch's, e.g. is_leaf of a conjugate view whose base was detached in place and then
# modified): nothing to agree with.
TORCH_INTERNAL_ASSERT = "torch's internal assert"


def _flag(t, name):
    """A flag of ``t`` (grad_fn: whether it has one), or the type of what reading it
    raised (a view of a multi-output op modified in place refuses to say)."""
    try:
        value = getattr(t, name)
    except Exception as exc:    # noqa: BLE001
        if "INTERNAL ASSERT FAILED" in str(exc):
            return TORCH_INTERNAL_ASSERT
        return f"raises {exception_name(exc)}"
    return value is not None if name == "grad_fn" else value


def compare_tensor(ours, theirs, what="", loose=None):
    """None if they agree, else (kind, detail). ``loose``: the name of a dtype whose
    tolerances hold for every dtype (True: float32's), see LOOSEST."""
    their_tensor = isinstance(theirs, torch.Tensor)
    our_tensor = isinstance(ours, autograd_cy.Tensor)
    if their_tensor != our_tensor:
        return f"{what}type mismatch", f"torch {type(theirs).__name__}, ours {type(ours).__name__}"
    if not their_tensor:
        if theirs is None and ours is None:
            return None
        if isinstance(theirs, (bool, int, float)) and isinstance(ours, (bool, int, float)):
            if np.allclose(ours, theirs, equal_nan=True):
                return None
        if theirs != ours and not (theirs is None or ours is None) and \
                type(theirs).__name__ == type(ours).__name__:
            return f"{what}value mismatch", f"torch {theirs!r}, ours {ours!r}"
        if type(theirs) is not type(ours):
            return (f"{what}type mismatch",
                    f"torch {type(theirs).__name__}, ours {type(ours).__name__}")
        return None
    if tuple(ours.shape) != tuple(theirs.shape):
        return f"{what}shape mismatch", f"torch {tuple(theirs.shape)}, ours {tuple(ours.shape)}"
    if _dtype_name(ours) != _dtype_name(theirs):
        return f"{what}dtype mismatch", f"torch {theirs.dtype}, ours {ours.dtype}"
    for flag in ("requires_grad", "is_leaf", "grad_fn"):
        a, b = _flag(ours, flag), _flag(theirs, flag)
        if a != b and b != TORCH_INTERNAL_ASSERT:
            name = "grad_fn presence" if flag == "grad_fn" else flag
            return f"{what}{name} mismatch", f"torch {b}, ours {a}"
    a, b = _array(ours), _array(theirs)
    if a.tobytes() == b.tobytes() or a.size == 0:     # the common case, cheaply
        return None
    if a.dtype.kind in "fc":
        if loose is True:
            loose = "float32"
        rtol, atol = TOLERANCES[loose or _dtype_name(ours)]
        finite = np.abs(b[np.isfinite(b)])
        scale = float(finite.max()) if finite.size else 0.0
        close = np.isclose(a, b, rtol=rtol, atol=atol * (1.0 + scale), equal_nan=True)
    else:
        close = a == b
    if not np.all(close):
        wrong = ~np.asarray(close)
        bad = np.argwhere(wrong)[:3]
        where = [tuple(int(i) for i in index) for index in bad]
        pairs = [(b[w].item() if b.ndim else b.item(), a[w].item() if a.ndim else a.item())
                 for w in where]
        kind = "value mismatch"
        if a.dtype.kind == "f" and np.all(np.abs(a[wrong]) == np.abs(b[wrong])):
            kind = "signed zero mismatch"   # -0.0 vs 0.0, or what 1/x made of it
        return f"{what}{kind}", f"at {where}: (torch, ours) = {pairs}"
    return None


# A Cholesky factorization of a numerically singular matrix (its smallest singular value
# within n ulps of the largest: the fuzzer's ``x x^T + I`` when ``x`` is large, so that the
# identity is lost in the rounding) succeeds or fails by the last bits of the matrix (ours
# and torch's gemm round differently) and by the LAPACK's rounding of the last pivot (MKL's
# potrf and OpenBLAS's disagree on ``[[a, a], [a, a]]``): no rule to agree with, so one
# side's "not positive-definite" there ends the program as agreed.
def _singular_cholesky(op, exc, theirs):
    if not (op.label or op.name).startswith("linalg.cholesky") or \
            "positive-definite" not in str(exc) or not isinstance(op.args[0], Ref):
        return False
    matrix = _array(theirs.slots[op.args[0].slot]).astype(np.complex128)
    if matrix.size == 0 or not np.isfinite(matrix).all():
        return False
    values = np.linalg.svd(matrix, compute_uv=False)
    dtype = str(theirs.slots[op.args[0].slot].dtype).split(".")[-1]
    eps = np.finfo(np.float32 if dtype in ("float32", "complex64") else np.float64).eps
    return bool(np.any(values[..., -1] <= values[..., 0] * matrix.shape[-1] * eps))


# cummax/cummin's index is the last position of the running extreme: of two inputs that
# differ by rounding (an earlier op's last bit, e.g. group_norm's), which is larger is that
# rounding, and so is the index. Where the indices differ, the op's input at both positions
# is compared: close (the tolerances) and unequal on either side is such a near tie, not a
# difference; a tie both sides see exactly is still reported (the tie rule is torch's).
def _near_tie(op, ours, theirs, our_slots, their_slots, loose):
    if (op.label or op.name) not in ("cummax", "cummin") or not isinstance(op.args[0], Ref):
        return False
    dim = op.args[1] if len(op.args) > 1 else op.kwargs.get("dim")
    x_ours, x_theirs = _array(our_slots[op.args[0].slot]), _array(their_slots[op.args[0].slot])
    if x_theirs.ndim == 0 or x_ours.shape != x_theirs.shape:
        return False
    i_ours, i_theirs = _array(ours).astype(np.int64), _array(theirs).astype(np.int64)
    if i_ours.shape != i_theirs.shape or i_ours.min(initial=0) < 0 or \
            i_ours.max(initial=0) >= x_theirs.shape[dim]:
        return False
    wrong = i_ours != i_theirs
    rtol, atol = TOLERANCES[loose or _dtype_name(their_slots[op.args[0].slot])]
    pairs = []
    for x in (x_theirs, x_ours):
        at_ours = np.take_along_axis(x, i_ours, dim)[wrong]
        at_theirs = np.take_along_axis(x, i_theirs, dim)[wrong]
        pairs.append((at_ours, at_theirs))
    (a, b), (c, d) = pairs
    finite = np.abs(x_theirs[np.isfinite(x_theirs)])
    scale = float(finite.max()) if finite.size else 0.0
    close = np.isclose(a, b, rtol=rtol, atol=atol * (1.0 + scale))
    return bool(np.all(close & ((a != b) | (c != d))))


class LockStep:
    def __init__(self, program):
        self.program = program
        self.theirs = Executor(torch)
        self.ours = Executor(autograd_cy)
        dtypes = {op.args[1] for op in program.ops if op.kind == "leaf"}
        self.loose = next((name for name in LOOSEST if name in dtypes), None)
        self.near_ties = set()      # slots of indices that _near_tie let pass

    def run(self):
        """The first Difference, or None if the libraries agree to the end."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                return self._run()

    def _run(self):
        for index, op in enumerate(self.program.ops):
            label = op.label or op.name
            their_exc = our_exc = None
            try:
                theirs = self.theirs.call(op, index)
            except Exception as exc:    # noqa: BLE001
                their_exc = exc
            try:
                ours = self.ours.call(op, index)
            except Exception as exc:    # noqa: BLE001
                our_exc = exc
            if their_exc is not None or our_exc is not None:
                if (their_exc is None) != (our_exc is None) and _singular_cholesky(
                        op, their_exc or our_exc, self.theirs):
                    return None
                if their_exc is None:
                    return Difference(index, f"ours raised {exception_name(our_exc)}, "
                                             f"torch did not, in {label}",
                                      f"{type(our_exc).__name__}: {our_exc}")
                if our_exc is None:
                    return Difference(index, f"torch raised {exception_name(their_exc)}, "
                                             f"ours did not, in {label}",
                                      f"{type(their_exc).__name__}: {their_exc}")
                if exception_name(their_exc) != exception_name(our_exc):
                    return Difference(
                        index, f"torch raised {exception_name(their_exc)}, ours "
                               f"{exception_name(our_exc)}, in {label}",
                        f"torch: {their_exc}\nours: {our_exc}")
                return None
            if len(theirs) != op.nout:
                return Difference(index, "invalid program", "output count changed")
            if len(theirs) != len(ours):
                return Difference(index, f"output count mismatch after {label}",
                                  f"torch {len(theirs)}, ours {len(ours)}")
            first = len(self.theirs.slots)
            self.theirs.slots.extend(theirs)
            self.ours.slots.extend(ours)
            for k, (o, t) in enumerate(zip(ours, theirs)):
                found = compare_tensor(o, t, loose=self.loose)
                if found and found[0] == "value mismatch" and k == 1 and _near_tie(
                        op, o, t, self.ours.slots, self.theirs.slots, self.loose):
                    found = None
                    self.near_ties.add(first + k)       # not compared again either
                if found:
                    return Difference(index, f"{found[0]} after {label}",
                                      f"output {k} (v{first + k}): {found[1]}")
            if op.mutates:
                found = self.compare_all(index, label, first)
                if found:
                    return found
        return None

    def compare_all(self, index, label, first):
        op = self.program.ops[index]
        backward = op.kind in ("backward", "grad")
        # torch's AccumulateGrad may keep a slice of the gradient argument as .grad and
        # a later backward then adds into it in place, changing the argument: an
        # artifact of torch's memory reuse, not a rule, so its values are not compared.
        # When that happened during this backward, the gradients torch computed after it
        # read the changed argument (a later node of the same backward): torch's .grad
        # values and hook gradients are then not the program's, and are not compared.
        given = set()
        for key in ("gradient", "grad_outputs") if backward else ():
            value = op.kwargs.get(key)
            for ref in value if isinstance(value, (list, tuple)) else [value]:
                if isinstance(ref, Ref):
                    given.add(ref.slot)
        changed = any((compare_tensor(self.ours.slots[slot], self.theirs.slots[slot],
                                      loose=self.loose) or ("",))[0] == "value mismatch"
                      for slot in given)
        for slot in range(first):
            t, o = self.theirs.slots[slot], self.ours.slots[slot]
            found = compare_tensor(o, t, loose=self.loose)
            if found and (slot in given or slot in self.near_ties) and \
                    found[0] == "value mismatch":
                found = None
            if found:
                return Difference(index, f"{found[0]} of an earlier tensor after {label}",
                                  f"v{slot}: {found[1]}")
            if changed:
                continue
            if backward and isinstance(t, torch.Tensor) and isinstance(o, autograd_cy.Tensor):
                found = compare_tensor(o.grad, t.grad, loose=self.loose)
                if found:
                    return Difference(index, f".grad {found[0]} after {label}",
                                      f"v{slot}.grad: {found[1]}")
        if backward and not changed:
            for key in sorted(set(self.theirs.seen) | set(self.ours.seen)):
                t, o = self.theirs.seen.get(key, []), self.ours.seen.get(key, [])
                if len(t) != len(o):
                    return Difference(index, f"hook call count mismatch after {label}",
                                      f"hook of op {key}: torch {len(t)} calls, "
                                      f"ours {len(o)}")
                for a, b in zip(o, t):
                    found = compare_tensor(a, b, loose=self.loose)
                    if found:
                        return Difference(index, f"hook gradient {found[0]} after {label}",
                                          f"hook of op {key}: {found[1]}")
        return None


def run_program(program):
    return LockStep(program).run()
