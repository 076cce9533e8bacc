"""PyTorch's own op database (``torch.testing._internal``'s ``op_db``) run against autograd_cy.

Each OpInfo names an op and makes sample inputs for a dtype. For every sample this runs
torch's op and ours on the same values, then compares the outputs (dtype, shape, values)
and the gradients of the differentiable inputs for one random cotangent per output.

How an OpInfo's op is found here:
- an op defined in torch's test module (a lambda such as ``lambda x, n: torch.polygamma(n,
  x)``) is rebuilt with ``torch`` meaning autograd_cy: its own argument order is kept;
- otherwise its dotted name (``nn.functional.relu``, ``linalg.norm``) in autograd_cy, or a
  Tensor method or property of that name.

Ops whose samples draw random numbers (dropout, randn, ...) are left out: the two libraries'
generators differ. ``python -m tests.opinfo`` prints the report; tests/test_opinfo.py holds
the suite to it.
"""
import collections
import inspect
import types
import warnings

import numpy as np
import torch
from torch.utils._pytree import tree_flatten, tree_map

import autograd_cy as ag

DTYPES = {name: getattr(torch, name) for name in
          ("float64", "float32", "complex128", "complex64", "bfloat16", "float16")}

# Ops whose values are random draws, or (eigenvectors) defined only up to a phase.
RANDOM_OR_UNIQUE_UP_TO_PHASE = frozenset({
    "normal", "randn", "randn_like", "rand_like", "randint", "randint_like", "empty",
    "empty_like", "empty_strided", "empty_permuted", "new_empty", "new_empty_strided",
    "multinomial", "bernoulli", "uniform", "cauchy", "exponential", "geometric", "log_normal",
    "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
    "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout",
    "nn.functional.rrelu", "nn.functional.fractional_max_pool2d",
    "nn.functional.fractional_max_pool3d", "svd_lowrank", "pca_lowrank",
    "nn.functional.multi_head_attention_forward", "nn.functional.scaled_dot_product_attention",
    "linalg.eig", "linalg.eigh", "svd", "linalg.svd",
})
SKIPPED_PREFIXES = ("_", "torch.", "jiterator", "sparse.", "masked.")
# Samples that call ATen's internal ops (torch.ops.aten...), which are not torch's API.
INTERNAL = frozenset({"max_pool2d_with_indices_backward", "native_dropout_backward"})

# rtol, atol per dtype: torch's own defaults for assert_close
TOLERANCES = {torch.float64: (1e-7, 1e-7), torch.complex128: (1e-7, 1e-7),
              torch.float32: (1.3e-6 * 100, 1e-5), torch.complex64: (1.3e-6 * 100, 1e-5),
              torch.bfloat16: (1.6e-2, 1e-5), torch.float16: (1e-3, 1e-5)}
HALF_TYPES = (torch.bfloat16, torch.float16)


def full_name(op):
    """``name.variant``, as torch's test names spell an OpInfo."""
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def with_autograd_cy(fn):
    """``fn``, a function of torch's test module, with ``torch`` meaning autograd_cy."""
    names = dict(fn.__globals__, torch=ag)
    if "F" in names:
        names["F"] = ag.nn.functional
    return types.FunctionType(fn.__code__, names, fn.__name__, fn.__defaults__,
                              fn.__closure__)


def ours(op):
    """Our version of ``op``, or None when autograd_cy has no op of that name."""
    if isinstance(op.op, types.FunctionType) and op.op.__module__.startswith("torch.testing"):
        return with_autograd_cy(op.op)
    found = ag
    for part in op.name.split("."):
        found = getattr(found, part, None)
    if found is not None and not isinstance(found, (types.ModuleType, ag.dtype)):
        return found
    name = op.name.split(".")[-1]
    attribute = inspect.getattr_static(ag.Tensor, name, None)
    if attribute is None:
        return None
    if hasattr(attribute, "__get__") and not callable(attribute):    # a property
        return lambda tensor: getattr(tensor, name)
    return lambda tensor, *args, **kwargs: getattr(tensor, name)(*args, **kwargs)


def to_ours(value):
    """A torch value as autograd_cy's: tensors (a leaf that requires grad stays one), dtypes,
    devices, sizes, memory formats."""
    if isinstance(value, torch.Tensor):
        data = value.detach().resolve_conj().resolve_neg()
        if data.dtype == torch.bfloat16:
            result = ag.tensor(data.float().numpy()).to(ag.bfloat16)
        else:
            result = ag.tensor(data.numpy().copy())
        return result.requires_grad_(True) if value.requires_grad else result
    if isinstance(value, (torch.dtype, torch.memory_format)):
        return getattr(ag, str(value).split(".")[1])
    if isinstance(value, torch.device):
        return str(value)
    if isinstance(value, torch.Size):
        return tuple(value)
    if callable(value) and getattr(value, "__module__", None) in ("torch",
                                                                  "torch.nn.functional"):
        return getattr(ag.nn.functional, value.__name__)    # a sample's distance_function=
    if isinstance(value, torch.nn.Module) and not list(value.parameters()):
        # a module without parameters (PairwiseDistance()): ours, with the same settings
        ours_module = getattr(ag.nn, type(value).__name__)()
        ours_module.__dict__.update({key: item for key, item in vars(value).items()
                                     if not key.startswith("_")})
        return ours_module
    return value


def as_numpy(tensor):
    data = tensor.detach()
    if "bfloat16" in str(data.dtype):
        data = data.float()
    if isinstance(data, torch.Tensor):
        return data.resolve_conj().resolve_neg().numpy(force=True)
    return data.numpy(force=True)


def leaves(value):
    """The values of nested tuples, lists and dicts, in order."""
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in leaves(item)]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in leaves(item)]
    return [value]


def difference(ours_value, theirs, what):
    """None when ours matches torch's (structure, dtypes, shapes, values); else the first
    difference in words."""
    mine, its = leaves(ours_value), tree_flatten(theirs)[0]
    if len(mine) != len(its):
        return f"{what}: {len(mine)} values vs torch's {len(its)}"
    for i, (a, b) in enumerate(zip(mine, its)):
        where = f"{what}[{i}]"
        if isinstance(b, torch.Tensor):
            if not isinstance(a, ag.Tensor):
                return f"{where}: {type(a).__name__} vs a Tensor"
            if str(a.dtype).split(".")[-1] != str(b.dtype).split(".")[-1]:
                return f"{where}: dtype {a.dtype} vs {b.dtype}"
            if tuple(a.shape) != tuple(b.shape):
                return f"{where}: shape {tuple(a.shape)} vs {tuple(b.shape)}"
            x, y = as_numpy(a), as_numpy(b)
            rtol, atol = TOLERANCES.get(b.dtype, (0, 0))
            if b.dtype in HALF_TYPES and y.size:
                # a few roundings in another order: a difference of a few units in the last
                # place of the largest value (a sum that cancels keeps its operands' error)
                with np.errstate(all="ignore"):
                    atol = max(atol, rtol * float(np.nanmax(np.abs(y[np.isfinite(y)]),
                                                            initial=0)))
            same = (np.array_equal(x, y) if x.dtype == np.bool_ or y.dtype == np.bool_
                    else np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True))
            if not same:
                with np.errstate(all="ignore"):
                    gap = np.nanmax(np.abs(x.astype(complex) - y.astype(complex)))
                return f"{where}: values differ (largest difference {gap:.3g})"
        elif b is None:
            if isinstance(a, ag.Tensor) and np.any(as_numpy(a)):
                return f"{where}: nonzero vs None"
        elif a != b and not (a != a and b != b):
            try:
                if abs(a - b) <= 1e-6 * max(1, abs(b)):
                    continue
            except TypeError:
                pass
            return f"{where}: {a!r} vs {b!r}"
    return None


Result = collections.namedtuple("Result", "op dtype sample outcome message")
# outcome: "ok", "forward" / "gradient" (a difference), "error" / "gradient error" (ours
# raised where torch did not), "torch error" (torch refused the sample: not compared)


def check_sample(op, fn, dtype, index, sample):
    name = full_name(op)
    theirs_args = (sample.input,) + tuple(sample.args)
    try:
        theirs = op.op(*theirs_args, **sample.kwargs)
    except Exception:       # noqa: BLE001 - a sample torch refuses is not compared
        return Result(name, dtype, index, "torch error", None)
    our_args, our_kwargs = tree_map(to_ours, theirs_args), tree_map(to_ours, sample.kwargs)
    try:
        mine = fn(*our_args, **our_kwargs)
    except Exception as error:      # noqa: BLE001 - reported
        return Result(name, dtype, index, "error", f"{type(error).__name__}: {error}")
    message = difference(mine, theirs, "output")
    if message:
        return Result(name, dtype, index, "forward", message)
    their_inputs = [t for t in tree_flatten(theirs_args)[0]
                    if isinstance(t, torch.Tensor) and t.requires_grad]
    our_inputs = [t for t in leaves(our_args) if isinstance(t, ag.Tensor) and t.requires_grad]
    their_outputs = [t for t in tree_flatten(theirs)[0]
                     if isinstance(t, torch.Tensor) and t.requires_grad]
    our_outputs = [t for t in leaves(mine) if isinstance(t, ag.Tensor) and t.requires_grad]
    if not their_inputs or not their_outputs:
        return Result(name, dtype, index, "ok", None)
    if len(our_outputs) != len(their_outputs):
        return Result(name, dtype, index, "gradient",
                      f"{len(our_outputs)} outputs require grad vs torch's {len(their_outputs)}")
    generator = torch.Generator().manual_seed(index)
    cotangents = [torch.randn(t.shape, generator=generator, dtype=t.dtype)
                  for t in their_outputs]
    try:
        their_grads = torch.autograd.grad(their_outputs, their_inputs, cotangents,
                                          allow_unused=True)
    except Exception:       # noqa: BLE001
        return Result(name, dtype, index, "torch error", None)
    try:
        our_grads = ag.autograd.grad(our_outputs, our_inputs,
                                     [to_ours(c) for c in cotangents], allow_unused=True)
    except Exception as error:      # noqa: BLE001 - reported
        return Result(name, dtype, index, "gradient error", f"{type(error).__name__}: {error}")
    message = difference(list(our_grads), list(their_grads), "gradient")
    return Result(name, dtype, index, "gradient" if message else "ok", message)


def op_infos(names=None):
    from torch.testing._internal.common_methods_invocations import op_db
    for op in op_db:
        if (op.name.startswith(SKIPPED_PREFIXES) or op.name in RANDOM_OR_UNIQUE_UP_TO_PHASE
                or op.name in INTERNAL):
            continue
        if names and op.name not in names and full_name(op) not in names:
            continue
        yield op


def run(dtypes, names=None, samples_per_op=None):
    """Results of every sample; and the OpInfos autograd_cy has no op for."""
    results, missing = [], []
    warnings.filterwarnings("ignore")
    for op in op_infos(names):
        fn = ours(op)
        if fn is None:
            missing.append(full_name(op))
            continue
        for dtype_name in dtypes:
            dtype = DTYPES[dtype_name]
            if dtype not in op.supported_dtypes("cpu"):
                continue
            torch.manual_seed(0)
            differentiable = op.supports_autograd and (dtype.is_floating_point
                                                       or dtype.is_complex)
            samples = op.sample_inputs("cpu", dtype, requires_grad=differentiable)
            for index, sample in enumerate(samples):
                if samples_per_op is not None and index >= samples_per_op:
                    break
                results.append(check_sample(op, fn, dtype_name, index, sample))
    return results, missing
