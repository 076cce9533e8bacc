"""Differences from torch.nn that PyTorch's own test/nn/*.py files found (module hooks, state
dict hooks, ...), each checked against torch with the smallest snippet that showed it."""
import gc
import math
import pickle
import weakref

import pytest
import torch.nn.utils.prune  # noqa: F401  (torch imports it only on request)

import autograd_cy.nn.utils.prune  # noqa: F401
from oracle import assert_same, assert_same_error, node_name, same_warning


def _global(lib, name):
    return getattr(lib.nn.modules.module, name)


def test_global_forward_hook_may_remove_itself_while_running():
    def run(lib):
        calls = []
        handles = []

        def hook(module, args, output):
            calls.append("hook")
            handles[0].remove()
            handles.append(_global(lib, "register_module_forward_hook")(
                lambda *a: calls.append("new")))
        handles.append(_global(lib, "register_module_forward_hook")(hook))
        try:
            m = lib.nn.Sigmoid()
            m(lib.ones(2))
            m(lib.ones(2))
        finally:
            for h in handles:
                h.remove()
        return calls
    assert_same(run)


def test_global_forward_hook_with_kwargs_and_always_call():
    def run(lib):
        seen = []

        class M(lib.nn.Module):
            def forward(self, x, fail=False):
                if fail:
                    raise RuntimeError("failing in forward")
                return x * 2

        h1 = _global(lib, "register_module_forward_hook")(
            lambda m, a, k, out: seen.append(("kw", sorted(k))), with_kwargs=True)
        h2 = _global(lib, "register_module_forward_hook")(
            lambda m, a, out: seen.append(("always", out is None)), always_call=True)
        try:
            M()(lib.ones(1), fail=False)
            with pytest.raises(RuntimeError, match="failing in forward"):
                M()(lib.ones(1), fail=True)
        finally:
            h1.remove()
            h2.remove()
        M()(lib.ones(1))
        return seen
    assert_same(run)


def test_always_called_hook_runs_when_a_pre_hook_raises():
    def run(lib):
        seen = []
        m = lib.nn.Identity()

        def bad_pre_hook(module, args):
            raise RuntimeError("failing in pre hook")
        m.register_forward_pre_hook(bad_pre_hook)
        m.register_forward_hook(lambda mod, a, out: seen.append("always"), always_call=True)
        m.register_forward_hook(lambda mod, a, out: seen.append("plain"))
        with pytest.raises(RuntimeError, match="failing in pre hook"):
            m(lib.ones(1))
        return seen
    assert_same(run)


def test_failing_always_called_hook_only_warns_after_another_error():
    def run(lib):
        m = lib.nn.Identity()

        def bad_pre_hook(module, args):
            raise RuntimeError("first")

        def bad_hook(module, args, out):
            raise ValueError("second")
        m.register_forward_pre_hook(bad_pre_hook)
        m.register_forward_hook(bad_hook, always_call=True)
        with pytest.raises(RuntimeError, match="first"):
            m(lib.ones(1))
    same_warning(run, UserWarning, r"always_call=True.*silenced.*second")


def test_removed_kwarg_hook_leaves_the_kwargs_tables():
    def run(lib):
        m = lib.nn.Identity()
        h1 = m.register_forward_hook(lambda *a: None, with_kwargs=True, always_call=True)
        h2 = m.register_forward_pre_hook(lambda *a: None, with_kwargs=True)
        before = (h1.id in m._forward_hooks_with_kwargs, h1.id in m._forward_hooks_always_called,
                  h2.id in m._forward_pre_hooks_with_kwargs)
        h1.remove()
        h2.remove()
        return before, (h1.id in m._forward_hooks_with_kwargs,
                        h1.id in m._forward_hooks_always_called,
                        h2.id in m._forward_pre_hooks_with_kwargs)
    assert_same(run)


def test_global_non_full_backward_hook():
    def run(lib):
        grads = []

        def hook(module, grad_input, grad_output):
            grads.append(len(grad_input))
            return tuple(g * 2 for g in grad_input)
        handle = _global(lib, "register_module_backward_hook")(hook)
        try:
            x = lib.tensor([0.5, -1.0], requires_grad=True)
            m = lib.nn.Sigmoid()
            m(x).sum().backward()
        finally:
            handle.remove()
            lib.nn.modules.module._global_is_full_backward_hook = None
        return grads, x.grad
    assert_same(run)


def test_non_full_backward_hook_of_a_dead_module():
    def run(lib):
        x = lib.tensor([0.5, -1.0], requires_grad=True)
        m = lib.nn.Sigmoid()
        m.register_backward_hook(lambda *a: None)
        y = m(x)
        del m
        y.sum().backward()
    assert_same_error(run, RuntimeError, "You are trying to call the hook of a dead Module!")


def test_global_full_and_non_full_backward_hooks_do_not_mix():
    def run(lib):
        mod = lib.nn.modules.module
        handle = mod.register_module_backward_hook(lambda *a: None)
        try:
            mod.register_module_full_backward_hook(lambda *a: None)
        finally:
            handle.remove()
            mod._global_is_full_backward_hook = None
    assert_same_error(run, RuntimeError, "Cannot use both regular backward hooks and full "
                                         "backward hooks as a global Module hook")


@pytest.mark.parametrize("kind", ["buffer", "parameter", "module"])
@pytest.mark.parametrize("replace", [False, True])
def test_global_registration_hooks(kind, replace):
    def run(lib):
        seen = []

        def hook(module, name, value):
            seen.append((type(module).__name__, name, type(value).__name__))
            if replace and kind == "buffer":
                return value + 1
            if replace and kind == "module":
                return lib.nn.Tanh()
            if replace:
                return lib.nn.Parameter(value.detach() + 1)
        handle = _global(lib, f"register_module_{kind}_registration_hook")(hook)
        try:
            m = lib.nn.Module()
            m.register_buffer("b", lib.zeros(2))
            m.p = lib.nn.Parameter(lib.zeros(2))
            m.child = lib.nn.ReLU()
            m.add_module("other", lib.nn.ReLU())
        finally:
            handle.remove()
        return seen, m.b, m.p, type(m.child).__name__, type(m.other).__name__
    assert_same(run)


def test_state_dict_post_hooks_run_after_the_children():
    def run(lib):
        order = []
        m = lib.nn.Sequential(lib.nn.Linear(1, 1))
        m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: order.append(sorted(sd)))
        m[0].register_state_dict_pre_hook(lambda mod, prefix, keep: order.append(prefix))
        m.state_dict()
        return order
    assert_same(run)


def test_public_state_dict_post_hook_must_return_none():
    def run(lib):
        m = lib.nn.Linear(1, 1)

        def hook(module, state_dict, prefix, local_metadata):
            return {}
        m.register_state_dict_post_hook(hook)
        m.state_dict()
    assert_same_error(run, RuntimeError, "state_dict post-hook must return None")


def test_private_state_dict_hook_result_counts_only_at_the_root():
    def run(lib):
        m = lib.nn.Sequential(lib.nn.Linear(1, 1))

        def hook(module, state_dict, prefix, local_metadata):
            return {"replaced": lib.zeros(1)}
        m[0]._register_state_dict_hook(hook)
        child_only = sorted(m.state_dict())
        m._register_state_dict_hook(hook)
        return child_only, sorted(m.state_dict()), hasattr(hook, "_from_public_api")
    assert_same(run)


def test_load_state_dict_post_hook_of_the_root_sees_the_children_keys():
    def run(lib):
        seen = []
        m = lib.nn.Sequential(lib.nn.Linear(1, 1))
        m.register_load_state_dict_post_hook(
            lambda mod, keys: seen.append((list(keys.missing_keys), list(keys.unexpected_keys))))
        m.load_state_dict({"0.weight": lib.zeros(1, 1), "x": lib.zeros(1)}, strict=False)
        return seen
    assert_same(run)


def test_load_state_dict_pre_hook_holds_its_module_weakly():
    def run(lib):
        gc.disable()
        try:
            m = lib.nn.Linear(1, 1)
            m._register_load_state_dict_pre_hook(print, True)
            ref = weakref.ref(m)
            del m
            return ref() is None
        finally:
            gc.enable()
    assert_same(run)


def test_module_pickled_without_newer_hook_tables_still_works():
    def run(lib):
        m = lib.nn.Linear(1, 1)
        for table in ("_state_dict_pre_hooks", "_load_state_dict_post_hooks",
                      "_forward_hooks_always_called"):
            delattr(m, table)
        m = pickle.loads(pickle.dumps(m))
        m.load_state_dict(m.state_dict())
        return sorted(m.state_dict()), len(m._forward_hooks_always_called)
    assert_same(run)


def test_consume_prefix_in_state_dict_if_present():
    def run(lib):
        m = lib.nn.Sequential(lib.nn.Linear(1, 1))
        sd = m.state_dict()
        wrapped = type(sd)((("module." + k), v) for k, v in sd.items())
        wrapped._metadata = type(sd._metadata)(
            (("module." + k if k else "module"), v) for k, v in sd._metadata.items())
        wrapped._metadata[""] = {"version": 1}
        lib.nn.modules.utils.consume_prefix_in_state_dict_if_present(wrapped, "module.")
        return sorted(wrapped), sorted(wrapped._metadata)
    assert_same(run)


@pytest.mark.parametrize("version", [None, 1])
def test_batch_norm_loads_a_state_dict_from_before_num_batches_tracked(version):
    def run(lib):
        bn = lib.nn.BatchNorm1d(2)
        with lib.no_grad():
            bn.num_batches_tracked.fill_(3)
        sd = bn.state_dict()
        del sd["num_batches_tracked"]
        if version is None:
            del sd._metadata[""]["version"]
        else:
            sd._metadata[""]["version"] = version
        bn.load_state_dict(sd)
        return bn.num_batches_tracked
    assert_same(run)


def test_dotted_key_under_a_parameter_is_unexpected():
    def run(lib):
        m = lib.nn.Sequential(lib.nn.Linear(1, 1))
        sd = m.state_dict()
        sd["0.weight.bad_suffix"] = lib.zeros(1)
        return m.load_state_dict(sd, strict=False).unexpected_keys
    assert_same(run)
    assert_same_error(lambda lib: lib.nn.Linear(1, 1).load_state_dict(
        {**lib.nn.Linear(1, 1).state_dict(), "weight.x": lib.zeros(1)}), RuntimeError,
        'Unexpected key\\(s\\) in state_dict: "weight.x"')


@pytest.mark.cpu_only      # the emulated CUDA device's copies make cycles of their own
def test_load_state_dict_leaves_no_reference_cycle():
    def run(lib):
        m = lib.nn.Sequential(lib.nn.Linear(1, 1))
        sd = m.state_dict()
        gc.collect()
        m.load_state_dict(sd)
        return gc.collect()
    assert_same(run)


@pytest.mark.parametrize("cast", ["short", "char", "byte", "int", "long", "double"])
def test_packed_sequence_casts(cast):
    def run(lib):
        padded = lib.tensor([[1.5, 2.0], [3.0, 0.0]])
        packed = lib.nn.utils.rnn.pack_padded_sequence(padded, [2, 1])
        out = getattr(packed, cast)()
        return out.data, str(out.data.dtype).split(".")[-1]
    assert_same(run)


@pytest.mark.parametrize("shape, lengths", [((0, 0), []), ((0, 1, 10), [3])])
def test_pack_padded_sequence_of_an_empty_tensor(shape, lengths):
    assert_same_error(lambda lib: lib.nn.utils.rnn.pack_padded_sequence(
        lib.zeros(*shape), lengths), RuntimeError, "^Cannot pack empty tensors.$")


def test_module_to_memory_format():
    def run(lib):
        m = lib.nn.Conv2d(2, 3, 2).to(memory_format=lib.channels_last)
        return [(p.dim(), p.is_contiguous(memory_format=lib.channels_last),
                 p.is_contiguous()) for p in m.parameters()]
    assert_same(run)


@pytest.mark.parametrize("amount, size", [(0.34, 10), (3, 10), (0, 0), (0.5, 0), (1.0, 7)])
def test_prune_amount_helpers(amount, size):
    def run(lib):
        prune = lib.nn.utils.prune
        prune._validate_pruning_amount_init(amount)
        prune._validate_pruning_amount(amount, size)
        return prune._compute_nparams_toprune(amount, size)
    assert_same(run)


@pytest.mark.parametrize("call", [
    lambda p: p._validate_pruning_amount_init("0.5"),
    lambda p: p._validate_pruning_amount_init(1.5),
    lambda p: p._validate_pruning_amount_init(-1),
    lambda p: p._validate_pruning_amount(20, 19),
])
def test_prune_amount_helpers_errors(call):
    assert_same_error(lambda lib: call(lib.nn.utils.prune), exact=True)


@pytest.mark.parametrize("mode, padding_idx, dtype", [
    ("sum", None, "float32"), ("mean", None, "float32"), ("max", None, "float32"),
    ("sum", 0, "float32"), ("mean", None, "float64"), ("sum", None, "float16")])
@pytest.mark.parametrize("index", [-1, 11])
def test_embedding_bag_out_of_range_index_message(mode, padding_idx, dtype, index):
    assert_same_error(lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor([[1, index]]), lib.ones(10, 2, dtype=getattr(lib, dtype)), mode=mode,
        padding_idx=padding_idx), RuntimeError, exact=True)


@pytest.mark.parametrize("weight, indices, offsets", [
    ((2, 6), (2, 0, 0, 6, 6), (2, 0, 0, 6, 6)), ((2, 2), (2,), (2, 0, 0, 6, 6)),
    ((2, 2, 2), (2,), (2,)), ((2, 2, 2), (2, 3), (2, 3))])
def test_aten_embedding_bag_rank_errors(weight, indices, offsets):
    assert_same_error(lambda lib: lib.embedding_bag(
        lib.zeros(*weight, dtype=lib.float64), lib.ones(*indices, dtype=lib.int64),
        lib.zeros(*offsets, dtype=lib.int64)), RuntimeError, exact=True)


def test_embedding_max_norm_leaves_the_tangent():
    def run(lib):
        fwAD = lib.autograd.forward_ad
        weight = lib.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
        with fwAD.dual_level():
            dual = fwAD.make_dual(weight, lib.ones(3, 2))
            out = lib.nn.functional.embedding(lib.tensor([0, 1, 2]), dual, max_norm=1.0)
            tangent = fwAD.unpack_dual(out).tangent
        return tangent, weight, weight._version
    assert_same(run)


@pytest.mark.parametrize("wrap", ["weight_norm", "spectral_norm"])
def test_old_style_norms_refuse_a_lazy_module(wrap):
    assert_same_error(lambda lib: getattr(lib.nn.utils, wrap)(lib.nn.LazyLinear(3)),
                      ValueError, exact=True)


@pytest.mark.parametrize("shapes", [
    dict(q=(4, 4, 4), k=(4, 4), v=(4, 4, 4)),
    dict(q=(4, 4, 4), k=(4, 4, 4), v=(4, 4)),
    dict(q=(4, 4, 4), k=(4, 4, 4), v=(4, 4, 4), kpm=(4,)),
    dict(q=(4, 4, 4), k=(4, 4, 4), v=(4, 4, 4), mask=(4,)),
    dict(q=(4, 4), k=(4, 4, 4), v=(4, 4)),
    dict(q=(4, 4), k=(4, 4), v=(4, 4), kpm=(4, 4)),
    dict(q=(4, 4), k=(4, 4), v=(4, 4), mask=(4,)),
    dict(q=(4, 4), k=(4, 4), v=(4, 4), mask=(3, 4, 4)),
    dict(q=(4,), k=(4,), v=(4,)),
])
def test_multihead_attention_rank_errors(shapes):
    def run(lib):
        mha = lib.nn.MultiheadAttention(4, 4)
        mask = shapes.get("mask")
        kpm = shapes.get("kpm")
        mha(lib.ones(*shapes["q"]), lib.ones(*shapes["k"]), lib.ones(*shapes["v"]),
            attn_mask=None if mask is None else lib.zeros(*mask, dtype=lib.bool),
            key_padding_mask=None if kpm is None else lib.zeros(*kpm, dtype=lib.bool))
    assert_same_error(run, AssertionError, exact=True)


@pytest.mark.parametrize("need_weights", [True, False])
def test_multi_head_attention_forward_static_kv(need_weights):
    def run(lib):
        E, H, L, S, N = 4, 2, 3, 5, 2
        made = []

        def rand(*shape):       # fixed, distinct values (the same on every device)
            made.append(1)
            count = math.prod(shape)
            return (lib.arange(count, dtype=lib.float64) * 0.37 + len(made)).sin().reshape(
                shape)
        q = rand(L, N, E).requires_grad_()
        key = rand(L, N, E)
        static_k = rand(N * H, S, E // H).requires_grad_()
        static_v = rand(N * H, S, E // H).requires_grad_()
        in_w, in_b, out_w, out_b = rand(3 * E, E), rand(3 * E), rand(E, E), rand(E)
        out, weights = lib.nn.functional.multi_head_attention_forward(
            q, key, key, E, H, in_w, in_b, None, None, False, 0.0, out_w, out_b,
            need_weights=need_weights, static_k=static_k, static_v=static_v)
        out.sum().backward()
        return out, weights, q.grad, static_k.grad, static_v.grad
    assert_same(run, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("static_k_shape, bias", [((3, 5, 2), False), ((4, 5, 3), False),
                                                  ((4, 5, 2), True)])
def test_multi_head_attention_forward_static_kv_errors(static_k_shape, bias):
    def run(lib):
        E, H = 4, 2
        x = lib.ones(3, 2, E)
        biases = (lib.ones(1, 1, E), lib.ones(1, 1, E)) if bias else (None, None)
        lib.nn.functional.multi_head_attention_forward(
            x, x, x, E, H, lib.ones(3 * E, E), lib.ones(3 * E), *biases, False, 0.0,
            lib.ones(E, E), lib.ones(E), static_k=lib.ones(*static_k_shape),
            static_v=lib.ones(4, 5, 2))
    assert_same_error(run, AssertionError, exact=True)


def test_loading_into_a_meta_parameter_warns():
    def run(lib):
        with lib.device("meta"):
            m = lib.nn.Linear(2, 1)
        m.load_state_dict({"weight": lib.ones(1, 2), "bias": lib.ones(1)})
        return m.weight.is_meta
    same_warning(run, UserWarning, r"^for weight: copying from a non-meta parameter in the "
                                   r"checkpoint to a meta parameter .* which is a no-op")
    assert_same(run)


def test_load_state_dict_takes_one_element_for_a_0_dim_entry():
    def run(lib):
        m = lib.nn.Module()
        m.p = lib.nn.Parameter(lib.tensor(1.0))
        m.register_buffer("b", lib.tensor(2.0))
        m.load_state_dict({"p": lib.tensor([5.0]), "b": lib.tensor([7.0])})
        return m.p, m.b, m.p.shape, m.b.shape
    assert_same(run)


def _with_future_flag(lib, name, value, fn):
    fut = lib.__future__
    old = getattr(fut, "get_" + name)()
    getattr(fut, "set_" + name)(value)
    try:
        return fn()
    finally:
        getattr(fut, "set_" + name)(old)


def test_future_flags_default_off():
    assert_same(lambda lib: (lib.__future__.get_swap_module_params_on_conversion(),
                             lib.__future__.get_overwrite_module_params_on_conversion()))


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("keep_vars", [False, True])
def test_load_state_dict_assign_identity(swap, keep_vars):
    def run(lib):
        def body():
            src = lib.nn.Linear(2, 1)
            sd = src.state_dict(keep_vars=keep_vars)
            with lib.device("meta"):
                m = lib.nn.Linear(2, 1)
            old = m.weight
            m.load_state_dict(sd, assign=True)
            return (m.weight is old, m.weight is sd["weight"], type(m.weight).__name__,
                    m.weight.requires_grad, m.weight.is_meta,
                    bool((m.weight.detach() == sd["weight"].detach()).all()))
        return _with_future_flag(lib, "swap_module_params_on_conversion", swap, body)
    assert_same(run)


@pytest.mark.parametrize("overwrite", [False, True])
def test_module_conversion_overwrite_flag(overwrite):
    def run(lib):
        def body():
            m = lib.nn.Linear(2, 1)
            m.weight.grad = lib.ones(1, 2)
            old = m.weight
            m.double()
            return (m.weight is old, type(m.weight).__name__, m.weight.dtype == lib.float64,
                    m.weight.grad.dtype == lib.float64, m.weight.requires_grad)
        return _with_future_flag(lib, "overwrite_module_params_on_conversion", overwrite, body)
    assert_same(run)


def test_layer_norm_of_an_empty_normalized_shape():
    """normalized_shape (0,): an empty result and gradient, no ZeroDivisionError (fuzz seed
    88 on the emulated device)."""
    def run(lib):
        x = lib.ones(3, 0, requires_grad=True)
        out = lib.nn.functional.layer_norm(x, (0,))
        out.sum().backward()
        return list(out.shape), list(x.grad.shape)
    assert_same(run)


def test_median_of_an_empty_tensor():
    """NaN (an integer's lowest value) on the tensor's device, recorded (MedianBackward0),
    its gradient empty (fuzz seed 15 on the emulated device: a CPU NaN met a device op)."""
    def run(lib):
        x = lib.ones(4, 0, requires_grad=True)
        m = x.median()
        (m * lib.ones(1)).sum().backward()
        return [m, node_name(m.grad_fn), list(x.grad.shape),
                lib.tensor([], dtype=lib.int64).median()]
    assert_same(run)
