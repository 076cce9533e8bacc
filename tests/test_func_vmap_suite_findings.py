"""What running PyTorch's test/functorch/test_vmap.py over autograd_cy found (the runner
stays outside the repository; these are our own cases, checked against torch): vmap's
argument checks, the identity of an in-place op's result, ``functools.partial`` of an op,
``out=`` inside vmap, batches of size 0 through the per-element fallback, the random ops
under each ``randomness`` mode, and ``zeros_like`` of a batched tensor."""
import collections
import functools
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from tests.oracle import assert_close, assert_same_error, randn

X = randn(2, 3, seed=1)


def t(lib, array=X):
    return lib.tensor(np.array(array))


# ------------------------------------------------------------------ argument checks

@pytest.mark.parametrize("tensor_input", [True, False])
def test_no_tensor_to_map_over(tensor_input):
    """Every input unmapped, a tensor or not: torch's one message for both."""
    assert_same_error(
        lambda lib: lib.func.vmap(lambda x: x, in_dims=(None,))(t(lib) if tensor_input else 3),
        ValueError, exact=True)


@pytest.mark.parametrize("out_dims", [(1,), 1, (-1,)])
def test_one_output_takes_a_one_tuple_of_out_dims(out_dims):
    ours = ag.func.vmap(lambda x: x * 2, out_dims=out_dims)(t(ag))
    theirs = torch.func.vmap(lambda x: x * 2, out_dims=out_dims)(t(torch))
    assert_close(ours, theirs)


@pytest.mark.parametrize("out_dims", [("lol",), 1.0, {"a": "b"}, [None, 2.5]])
def test_out_dims_leaves_must_be_ints(out_dims):
    """Checked before the function runs: torch's message names the leaves' rule."""
    assert_same_error(lambda lib: lib.func.vmap(lambda x: (x, x), out_dims=out_dims)(t(lib)),
                      ValueError, "`out_dims` must be an int, None or a python collection "
                      "of ints")


@pytest.mark.parametrize("case", ["list_out_tuple_dims", "tuple_out_list_dims",
                                  "namedtuple_out", "tensor_out_list_dims",
                                  "tensor_out_two_dims"])
def test_out_dims_structure_is_strict(case):
    """A tuple of out_dims does not match a list of outputs (nor a named tuple), as in
    torch's pytree."""
    pair = collections.namedtuple("pair", "a b")
    fn, out_dims = {
        "list_out_tuple_dims": (lambda x: [x, x], (0, 1)),
        "tuple_out_list_dims": (lambda x: (x, x), [0, 1]),
        "namedtuple_out": (lambda x: pair(x, x), (0, 1)),
        "tensor_out_list_dims": (lambda x: x, [1]),
        "tensor_out_two_dims": (lambda x: x, (1, 1)),
    }[case]
    assert_same_error(lambda lib: lib.func.vmap(fn, out_dims=out_dims)(t(lib)), ValueError,
                      "out_dims is not compatible with the structure of `outputs`")


@pytest.mark.parametrize("in_dims, container", [(((0, 0),), list), (([0, 0],), tuple)])
def test_in_dims_structure_is_strict(in_dims, container):
    assert_same_error(
        lambda lib: lib.func.vmap(lambda z: z[0] + z[1], in_dims=in_dims)(
            container([t(lib), t(lib)])),
        ValueError, "in_dims is not compatible with the structure of `inputs`")


def test_matching_containers_still_map():
    outs = []
    for lib in (ag, torch):
        outs.append(lib.func.vmap(lambda z: z[0] * z[1], in_dims=([0, 1],))(
            [t(lib), t(lib).t()]))
    assert_close(*outs)


# ------------------------------------------------------------------ results

@pytest.mark.parametrize("nest", [1, 2])
def test_inplace_op_returns_its_input(nest):
    """vmap of an in-place op with out_dims 0 returns the input tensor itself."""
    for lib in (ag, torch):
        x = lib.rand(2, 3, 4)
        fn = lib.Tensor.acos_
        for _ in range(nest):
            fn = lib.func.vmap(fn)
        assert fn(x) is x, lib.__name__


def test_inplace_op_with_out_dims_is_a_view_of_its_input():
    for lib in (ag, torch):
        x = lib.rand(2, 3)
        expected = x.clone().acos().t()
        result = lib.func.vmap(lib.Tensor.acos_, out_dims=(1,))(x)
        assert result._base is x, lib.__name__
        assert_close(result, expected)


def test_partial_of_an_op_is_batched():
    """functools.partial(op, unbatched) reaches op's batching rule (the op inside the
    partial was looked up before vmap swapped the ops)."""
    outs = [lib.func.vmap(functools.partial(lib.mul, t(lib, X[0])))(t(lib))
            for lib in (ag, torch)]
    assert_close(*outs)
    outs = [lib.func.vmap(functools.partial(lib.sum, dim=0))(t(lib)) for lib in (ag, torch)]
    assert_close(*outs)


def test_out_argument_inside_vmap():
    assert_same_error(
        lambda lib: lib.func.vmap(lambda a, b: lib.abs(a, out=b))(t(lib), t(lib)),
        RuntimeError, r"Batching rule not implemented for aten::abs\.out; the fallback path "
        "doesn't work on out= or view ops")


@pytest.mark.parametrize("in_dims", [(0, None), (None, 0), 0])
def test_size_zero_batch_through_the_fallback(in_dims):
    """copysign has no rule here: an empty batch still gives an empty result of the
    right shape and dtype, as torch's rule does."""
    outs = []
    for lib in (ag, torch):
        x = lib.zeros(0, 11)
        y = lib.ones(11) if in_dims != 0 else lib.ones(0, 11)
        args = (y, x) if in_dims == (None, 0) else (x, y)
        outs.append(lib.func.vmap(lib.copysign, in_dims)(*args))
    assert_close(*outs)


@pytest.mark.parametrize("op", ["add", "mul", "lt", "pow", "maximum"])
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("int64", "float64"),
                                    ("float64", "float32")])
def test_batched_0_dim_operand_promotes_as_0_dim(op, dtypes):
    """float32[2] + (batched) float64[] is float32 inside vmap as outside: the 0-dim
    operand's physical tensor has a batch dim, but it promotes as a 0-dim tensor."""
    outs = []
    for lib in (ag, torch):
        a = lib.tensor(np.arange(1, 7).reshape(3, 2), dtype=getattr(lib, dtypes[0]))
        b = lib.tensor([1.5, 2.0, 0.5], dtype=getattr(lib, dtypes[1]), requires_grad=True)
        both = lib.func.vmap(lambda x, y: getattr(lib, op)(x, y))(a, b)
        flipped = lib.func.vmap(lambda x, y: getattr(lib, op)(y, x))(a, b)
        unbatched = lib.func.vmap(lambda y: getattr(lib, op)(a[0], y))(b)
        outs.append((both, flipped, unbatched))
    for ours, theirs in zip(*outs):
        assert_close(ours.detach(), theirs.detach())


@pytest.mark.parametrize("in_dims", [(0, 0), (-1, 0), (1, None)])
def test_fill_with_a_batched_value(in_dims):
    """Tensor.fill_(batched 0-dim value): each example its own value."""
    outs = []
    for lib in (ag, torch):
        self = lib.zeros(2, 3) if in_dims[0] == -1 else lib.zeros(3, 2)
        value = lib.arange(3.) if in_dims[1] == 0 else lib.tensor(7.)
        if in_dims == (1, None):
            self = lib.zeros(2, 3)
        outs.append(lib.func.vmap(lib.Tensor.fill_, in_dims)(self, value))
    assert_close(*outs)


def test_fill_of_an_unbatched_tensor_with_a_batched_value():
    assert_same_error(lambda lib: lib.func.vmap(lib.Tensor.fill_, (None, 0))(
        lib.zeros(3), lib.arange(2.)), RuntimeError, exact=True)


@pytest.mark.parametrize("case", ["clone_channels_last", "clone_channels_last_3d",
                                  "contiguous_channels_last", "is_contiguous_channels_last",
                                  "where_one_argument", "mm_shapes", "one_hot_no_classes"])
def test_vmap_refusals_in_torchs_words(case):
    def run(lib):
        x = lib.ones(3, 2, 2, 2)
        fn = {
            "clone_channels_last": lambda v: v.clone(memory_format=lib.channels_last),
            "clone_channels_last_3d": lambda v: v.clone(memory_format=lib.channels_last_3d),
            "contiguous_channels_last": lambda v: v.contiguous(memory_format=lib.channels_last),
            "is_contiguous_channels_last": lambda v: v.is_contiguous(
                memory_format=lib.channels_last) and v,
            "where_one_argument": lambda v: lib.where(v),
            "mm_shapes": lambda v: lib.mm(v, v[0, 0]),
            "one_hot_no_classes": lambda v: lib.nn.functional.one_hot(v.long()),
        }[case]
        return lib.func.vmap(fn)(x)
    assert_same_error(run, RuntimeError, exact=True)


def test_contiguous_format_queries_still_work():
    outs = [lib.func.vmap(lambda v: v.clone(memory_format=lib.contiguous_format) *
                          float(v.is_contiguous(memory_format=lib.contiguous_format)))(
        lib.tensor(X)) for lib in (ag, torch)]
    assert_close(*outs)


@pytest.mark.cpu_only     # the CPU generator's numbers, torch's
@pytest.mark.parametrize("chunk_size", [1, 2, 3])
def test_chunk_size_same_randomness_draws_once_per_chunk(chunk_size):
    """randomness='same' with chunk_size: every chunk draws the same numbers (the
    generator restored before each), so the result is vmap's without chunks."""
    outs = []
    for lib in (ag, torch):
        lib.manual_seed(0)
        out = lib.func.vmap(lambda v: v + lib.rand_like(v), randomness="same",
                            chunk_size=chunk_size)(lib.tensor(PROBS))
        outs.append((out, lib.rand(2)))
    assert_close(outs[0][0], outs[1][0])
    assert_close(outs[0][1], outs[1][1])


def test_chunk_size_inside_an_outer_vmap():
    """The chunks of an inner vmap are batched over the outer level: joined by its rule."""
    outs = [lib.func.vmap(lib.func.vmap(lambda v: v.sin() * 2, chunk_size=2), chunk_size=2)(
        lib.tensor(PROBS)) for lib in (ag, torch)]
    assert_close(*outs)


@pytest.mark.parametrize("case", ["unbatched_empty", "batched_empty", "empty_first"])
def test_cat_skips_a_1_d_empty_tensor(case):
    """cat's legacy rule (a 1-D empty tensor beside tensors of another rank is skipped)
    holds for the logical shapes inside vmap."""
    outs = []
    for lib in (ag, torch):
        x = lib.tensor(PROBS)
        if case == "unbatched_empty":
            out = lib.func.vmap(lambda v, e: lib.cat((v, e), 1), (0, None))(x, lib.zeros(0))
        elif case == "batched_empty":
            out = lib.func.vmap(lambda v, e: lib.cat((v, e), 0))(x, lib.zeros(3, 0))
        else:
            out = lib.func.vmap(lambda e, v: lib.cat((e, v), -1), (None, 0))(lib.zeros(0), x)
        outs.append(out)
    assert_close(*outs)


@pytest.mark.parametrize("shape", [(3,), (3, 2, 4)])
def test_squeeze_with_nothing_to_squeeze_is_a_view(shape):
    for lib in (ag, torch):
        x = lib.ones(*shape)
        assert lib.func.vmap(lib.squeeze)(x)._base is x, lib.__name__


@pytest.mark.parametrize("dim", [1, (0, 1), -1, (-1,)])
def test_squeeze_of_a_0_dim_example_refuses_other_dims(dim):
    """torch's squeeze rule for a 0-dim example takes dim 0 only (-1 too is refused, a
    RuntimeError, where squeeze outside vmap takes -1)."""
    assert_same_error(lambda lib: lib.func.vmap(lambda v: lib.squeeze(v, dim=dim))(
        lib.ones(3)), RuntimeError, exact=True)


def test_squeeze_of_a_0_dim_example_dim_0():
    outs = [lib.func.vmap(lambda v: lib.squeeze(v, dim=0))(lib.tensor(X[0]))
            for lib in (ag, torch)]
    assert_close(*outs)


def test_view_as_complex_of_a_0_dim_example():
    assert_same_error(lambda lib: lib.func.vmap(lib.view_as_complex)(lib.ones(2)),
                      RuntimeError, exact=True)


@pytest.mark.parametrize("in_dims", [(0, 0), (0, None)])
def test_to_a_batched_tensors_dtype(in_dims):
    """x.to(other) with other batched: other's dtype and device (its stand-in was read)."""
    outs = [lib.func.vmap(lambda a, o: a.to(o), in_dims)(
        lib.tensor(X), lib.tensor(X).double()) for lib in (ag, torch)]
    assert_close(*outs)


@pytest.mark.parametrize("dims", [(0, 0), (0, -1), (-1, -1)])
def test_transpose_of_a_0_dim_example_is_the_input(dims):
    for lib in (ag, torch):
        x = lib.ones(3)
        assert lib.func.vmap(lambda v: lib.transpose(v, *dims))(x) is x, lib.__name__


SPD = (np.eye(3) * 3 + randn(4, 3, 3, seed=5) * 0.3).astype(np.float64)
SPD = SPD @ np.swapaxes(SPD, -1, -2)


@pytest.mark.parametrize("name", ["linalg.inv", "linalg.solve", "linalg.cholesky",
                                  "linalg.lu_factor", "linalg.matrix_rank", "inverse",
                                  "method_inverse", "special.bessel_j0", "special.i1e",
                                  "linalg.det"])
def test_linalg_special_ops_inside_vmap(name):
    """linalg's, special's and fft's Python ops inside vmap: composed of ops with rules, or,
    where they read values (a pivot check), once per example."""
    def call(lib, v):
        if name == "method_inverse":
            return v.inverse()
        if name == "linalg.solve":
            return lib.linalg.solve(v, v[0])
        fn = lib
        for part in name.split("."):
            fn = getattr(fn, part)
        return fn(v)
    outs = [lib.func.vmap(lambda v: call(lib, v))(lib.tensor(SPD)) for lib in (ag, torch)]
    assert_close(*outs, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", ["var_unbiased", "std_method", "var_mean", "max_binary",
                                  "min_plain_other", "max_plain_self"])
def test_reductions_second_argument_not_a_dim(case):
    """var(x, False) / std(x, True): the bool is unbiased (it was read as dim 1: wrong
    values); max(x, other) / min(x, other): elementwise (it was read as a dim)."""
    def run(lib):
        t, o = lib.tensor(X), lib.tensor(X[::-1].copy())
        fn = {
            "var_unbiased": lambda a: lib.var(a, False),
            "std_method": lambda a: a.std(True),
            "var_mean": lambda a: lib.stack(lib.var_mean(a, False)),
            "max_binary": lambda a: lib.max(a, a.flip(0)),
            "min_plain_other": lambda a: lib.min(a, o[0]),
            "max_plain_self": lambda a: lib.max(o[1], a),
        }[case]
        return lib.func.vmap(fn)(t)
    assert_close(run(ag), run(torch))


@pytest.mark.filterwarnings("ignore:There is a performance drop")    # torch's own fallback
@pytest.mark.parametrize("case", ["batched_value", "batched_value_plain_self",
                                  "inplace_batched_value"])
def test_masked_fill_with_a_batched_value(case):
    mask = X > 0

    def run(lib):
        t, m, values = lib.tensor(X), lib.tensor(mask), lib.tensor([1.5, -2.0])
        if case == "batched_value":
            return lib.func.vmap(lambda a, k, w: a.masked_fill(k, w))(t, m, values)
        if case == "batched_value_plain_self":
            return lib.func.vmap(lambda k, w: t[0].masked_fill(k, w))(m, values)
        return lib.func.vmap(lambda a, w: a.clone().masked_fill_(m[0], w))(t, values)
    assert_close(run(ag), run(torch))


@pytest.mark.filterwarnings("ignore:There is a performance drop")    # torch's own fallback
@pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")
@pytest.mark.parametrize("case", ["bce_unbatched_target", "bce_logits_unbatched_target",
                                  "mse_broadcast_target", "index_add_0_dim", "norm_nuc",
                                  "fmod", "remainder", "signbit", "bucketize", "take",
                                  "index_reduce", "put"])
def test_ops_that_failed_in_the_opinfo_sweep(case):
    """Found by running torch's OpInfo samples through test_vmap.py's vmap-against-loop check
    (each a small sample with the first argument batched)."""
    def run(lib):
        f = lib.nn.functional
        probs = lib.tensor(np.abs(X[:, 0]) / 3)        # (2,), in (0, 1)
        fn, args = {
            "bce_unbatched_target": (lambda a: f.binary_cross_entropy(a, probs[0]), probs),
            "bce_logits_unbatched_target": (
                lambda a: f.binary_cross_entropy_with_logits(a, probs[0]), probs),
            "mse_broadcast_target": (lambda a: f.mse_loss(a, lib.tensor(X[0])), lib.tensor(X)),
            "index_add_0_dim": (lambda a: lib.index_add(a, 0, lib.tensor([0]), a * 2,
                                                        alpha=-1), probs),
            "norm_nuc": (lambda a: lib.norm(a, "nuc"), lib.tensor(SPD)),
            "fmod": (lambda a: lib.fmod(a, a[0] + 3), lib.tensor(X)),
            "remainder": (lambda a: a.remainder(lib.tensor(0.7)), lib.tensor(X)),
            "signbit": (lambda a: lib.signbit(a), lib.tensor(X)),
            "bucketize": (lambda a: lib.bucketize(a, lib.tensor([-1.0, 0.0, 1.0])), lib.tensor(X)),
            "take": (lambda a: lib.take(a, lib.tensor([0, 2])), lib.tensor(X)),
            "index_reduce": (lambda a: a.index_reduce(0, lib.tensor([0, 0, 1]), a * 2, "amax"),
                             lib.tensor(SPD)),
            "put": (lambda a: lib.put(a, lib.tensor([0, 2]), a[:2] * 2), lib.tensor(X)),
        }[case]
        return lib.func.vmap(fn)(args)
    assert_close(run(ag), run(torch))


def test_return_types_names_torchs_named_tuples():
    """torch.return_types: every named tuple type by torch's name; vmap keeps the type."""
    theirs = {name for name in dir(torch.return_types) if not name.startswith("_")
              and not name.endswith("_out") and name != "SequenceKey"
              and isinstance(getattr(torch.return_types, name), type)}
    assert theirs <= set(ag.return_types.__all__), theirs - set(ag.return_types.__all__)
    for lib in (ag, torch):
        t = lib.tensor(randn(3, 2, 2, seed=4))
        assert isinstance(lib.func.vmap(lib.min, (0, None))(t, 0), lib.return_types.min)
        assert isinstance(lib.func.vmap(lib.topk, (0, None, None))(t, 1, 0),
                          lib.return_types.topk)
        assert isinstance(lib.linalg.eig(t[0]), lib.return_types.linalg_eig)
    import pickle
    result = ag.max(ag.tensor(X), 0)
    again = pickle.loads(pickle.dumps(result))
    assert type(again) is ag.return_types.max
    assert_close(again.values, result.values)


@pytest.mark.parametrize("case", ["first", "in_dims_1", "last_dim", "nested", "0_dim"])
def test_tensor_unfold_is_a_batched_view(case):
    """Tensor.unfold inside vmap: its rule (a view of the input, as torch's), not the
    per-example fallback (copies); nn.functional.unfold keeps its own."""
    outs = []
    for lib in (ag, torch):
        x = lib.tensor(randn(3, 7, 5, seed=9))
        if case == "first":
            out = lib.func.vmap(lambda v: v.unfold(0, 2, 1))(x)
            assert out._base is x, lib.__name__
        elif case == "in_dims_1":
            out = lib.func.vmap(lambda v: v.unfold(1, 2, 2), in_dims=1)(x)
        elif case == "last_dim":
            out = lib.func.vmap(lambda v: v.unfold(-1, 3, 1))(x)
        elif case == "nested":
            out = lib.func.vmap(lib.func.vmap(lambda v: v.unfold(0, 2, 2)))(x)
        else:
            out = lib.func.vmap(lambda v: v.unfold(0, 1, 1))(x[:, 0, 0])
        outs.append(out)
    assert_close(*outs)


@pytest.mark.parametrize("shapes", [[(3,)], [(2, 2, 3), (3, 3)], [(3, 3), (3, 3, 3)],
                                    [(3, 3), (3,), (3, 3)], [(), (3,)]])
def test_multi_dot_checks_its_tensors_ranks(shapes):
    """linalg.multi_dot's checks as torch's (first and last 1-D or 2-D, the others 2-D):
    inside vmap they read the examples' ranks."""
    assert_same_error(lambda lib: lib.linalg.multi_dot([lib.ones(s) for s in shapes]),
                      RuntimeError, exact=True)
    if len(shapes) == 3:
        assert_same_error(lambda lib: lib.func.vmap(lib.linalg.multi_dot)(
            [lib.ones((2,) + s) for s in shapes]), RuntimeError, exact=True)


def test_multi_dot_dtypes_must_agree():
    assert_same_error(lambda lib: lib.linalg.multi_dot(
        [lib.ones(3, 3), lib.ones(3, 3, dtype=lib.float64)]), RuntimeError, exact=True)


# ------------------------------------------------------------------ randomness

# One example's function of a (2, 4) tensor of probabilities: each random op family
# (NOTE [Random ops under vmap]).
RANDOM_CASES = {
    "bernoulli": lambda lib, x: lib.bernoulli(x),
    "normal": lambda lib, x: lib.normal(x, x.abs()),
    "normal_sized": lambda lib, x: lib.normal(0., 1., (3,)) + x.sum(),
    "poisson": lambda lib, x: lib.poisson(x * 3),
    "multinomial_1d": lambda lib, x: lib.multinomial(x[0], 3),
    "multinomial_2d": lambda lib, x: lib.multinomial(x, 2, replacement=True),
    "randperm": lambda lib, x: lib.randperm(5) + x.sum().long(),
    "uniform_": lambda lib, x: x.clone().uniform_(),
    "normal_": lambda lib, x: x.clone().normal_(2., 3.),
    "bernoulli_p": lambda lib, x: x.clone().bernoulli_(x),
    "random_": lambda lib, x: x.clone().random_(0, 10),
    "randint_like": lambda lib, x: lib.randint_like(x, 10),
    "alpha_dropout": lambda lib, x: lib.nn.functional.alpha_dropout(x, 0.5, True),
    "feature_alpha_dropout": lambda lib, x: lib.nn.functional.feature_alpha_dropout(
        x, 0.5, True),
    "dropout1d": lambda lib, x: lib.nn.functional.dropout1d(x, 0.5),
    "dropout2d_ncl": lambda lib, x: lib.nn.functional.dropout2d(x[None], 0.5),
    "dropout3d": lambda lib, x: lib.nn.functional.dropout3d(x[None, None], 0.5),
}
PROBS = np.random.default_rng(0).uniform(0.1, 0.9, (3, 2, 4)).astype(np.float32)
# 'same' on a batched input: torch has no rule for an op that samples from it
SAME_REFUSED = {"bernoulli", "normal", "poisson", "multinomial_1d", "multinomial_2d",
                "bernoulli_p"}


def vmapped_random(lib, name, randomness):
    lib.manual_seed(0)
    fn = RANDOM_CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # dropout2d's (N, C, L) warning
        return lib.func.vmap(lambda x: fn(lib, x), randomness=randomness)(
            lib.tensor(PROBS))


@pytest.mark.parametrize("name", sorted(RANDOM_CASES))
def test_random_op_raises_in_error_mode(name):
    """The default randomness: every random op raises, batched input or not."""
    assert_same_error(lambda lib: vmapped_random(lib, name, "error"), RuntimeError,
                      exact=True)


@pytest.mark.cpu_only     # the CPU generator's numbers, torch's
@pytest.mark.parametrize("name", sorted(RANDOM_CASES))
def test_random_op_different(name):
    """Each example its own numbers, the same numbers as torch's from the same seed (the op
    runs once on the batch)."""
    ours, theirs = (vmapped_random(lib, name, "different") for lib in (ag, torch))
    assert_close(ours, theirs, rtol=1e-6, atol=1e-6)
    assert not bool((theirs[0] == theirs[1]).all()) or name == "dropout3d"


@pytest.mark.cpu_only     # the CPU generator's numbers, torch's
@pytest.mark.parametrize("name", sorted(RANDOM_CASES))
def test_random_op_same(name):
    if name in SAME_REFUSED:
        assert_same_error(lambda lib: vmapped_random(lib, name, "same"), RuntimeError,
                          exact=True)
        return
    ours, theirs = (vmapped_random(lib, name, "same") for lib in (ag, torch))
    assert_close(ours, theirs, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", ["unbatched_self", "batched_p", "unbatched_self_batched_p"])
def test_inplace_random_errors(case):
    def run(lib):
        x = lib.tensor(PROBS)
        plain = lib.tensor(PROBS[0])
        if case == "unbatched_self":       # its numbers could not differ
            return lib.func.vmap(lambda v: plain.clone().uniform_() + v,
                                 randomness="different")(x)
        if case == "batched_p":
            return lib.func.vmap(lambda v: v.clone().bernoulli_(v), randomness="same")(x)
        return lib.func.vmap(lambda v: plain.clone().bernoulli_(v), randomness="different")(x)
    assert_same_error(run, RuntimeError, exact=True)


@pytest.mark.parametrize("case", ["rrelu", "out"])
def test_random_ops_vmap_refuses(case):
    def run(lib):
        y = lib.zeros(3)
        if case == "rrelu":
            return lib.func.vmap(lambda v: lib.rrelu(y) + v, randomness="same")(lib.ones(2))
        return lib.func.vmap(lambda v: lib.randn(3, out=y) + v, randomness="same")(lib.ones(2))
    assert_same_error(run, RuntimeError, exact=True)


def test_dropout_not_training_is_not_random():
    """alpha_dropout's training defaults to False: no error in the default mode."""
    outs = [lib.func.vmap(lambda v: lib.nn.functional.alpha_dropout(v) +
                          lib.nn.functional.dropout(v, 0.0))(lib.tensor(PROBS))
            for lib in (ag, torch)]
    assert_close(*outs)


@pytest.mark.parametrize("op", ["zeros_like", "ones_like", "empty_like", "full_like"])
def test_like_factories_of_a_batched_tensor(op):
    """zeros_like(x) inside vmap is batched as x (it was refused: the op was not swapped)."""
    outs = []
    for lib in (ag, torch):
        args = (2.5,) if op == "full_like" else ()
        out = lib.func.vmap(lambda v: getattr(lib, op)(v, *args))(lib.tensor(PROBS))
        outs.append(out if op != "empty_like" else out.shape)
    if op == "empty_like":
        assert tuple(outs[0]) == tuple(outs[1])
    else:
        assert_close(*outs)
