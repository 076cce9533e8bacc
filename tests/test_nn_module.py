"""autograd_cy.nn.Module, Parameter and the containers against torch.nn: registration and its
errors, iteration order, state dicts, conversions, reprs, forward hooks and the full backward
hooks (values, order, grad_fn names)."""
import copy
import pickle
import re
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import DEVICE, assert_close, assert_same, assert_same_error, same_warning


def torch_spelling(text):
    """torch's repr or message with autograd_cy's names (``torch.float32`` ...)."""
    return re.sub(r"\btorch\.(?!nn)", "autograd_cy.", text)


class TwoLayer:
    """The same small model in either library: Linear, ReLU, Linear, with a buffer."""

    @staticmethod
    def build(lib):
        nn = lib.nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Linear(3, 4)
                self.act = nn.ReLU()
                self.fc2 = nn.Linear(4, 2)
                self.register_buffer("steps", lib.zeros((), dtype=lib.int64))
                self.register_buffer("scratch", lib.ones(2), persistent=False)

            def forward(self, x):
                return self.fc2(self.act(self.fc1(x)))
        return Model()


def same_weights(ours, theirs):
    """Copy ``ours``' state into the torch model ``theirs``."""
    theirs.load_state_dict({k: torch.from_numpy(v.cpu().numpy().copy())
                            for k, v in ours.state_dict().items()})


def models(build=TwoLayer.build):
    ours, theirs = build(ag), build(torch)
    same_weights(ours, theirs)
    return ours, theirs


def inputs(*shape, seed=0):
    array = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return ag.tensor(array), torch.tensor(array)


# ------------------------------------------------------------------ Parameter

@pytest.mark.cpu_only          # reprs: a device tensor prints its device
def test_parameter_repr_type_and_shared_version():
    def run(lib):
        x = lib.ones(2)
        p = lib.nn.Parameter(x)
        x.add_(1)
        return (repr(p), p._version, p.is_leaf, p.requires_grad, type(p * 2).__name__,
                type(p.detach()).__name__, type(p.data).__name__,
                repr(lib.nn.Parameter(lib.ones(2), requires_grad=False)),
                repr(lib.nn.Parameter()), isinstance(p, lib.Tensor))
    ours, theirs = assert_same(lambda lib: run(lib)[1:])
    reprs = run(ag)
    assert reprs[0] == torch_spelling(run(torch)[0])


def test_parameter_errors_and_copies():
    assert_same_error(lambda lib: lib.nn.Parameter(lib.ones(2, dtype=lib.int64)),
                      "floating point")
    assert_same_error(lambda lib: lib.nn.Parameter([1.0]), AttributeError, "detach")

    def run(lib):
        p = lib.nn.Parameter(lib.ones(2))
        p.grad = lib.full((2,), 3.0)
        q = copy.deepcopy(p)
        r = pickle.loads(pickle.dumps(p))
        return (type(q).__name__, q.requires_grad, q.grad is None, type(r).__name__,
                r.requires_grad, r.tolist())
    assert_same(run)


# ------------------------------------------------------------------ registration

REGISTRATION_ERRORS = [
    lambda lib: lib.nn.Module().register_buffer("a", 3),
    lambda lib: lib.nn.Module().register_buffer(3, lib.ones(1)),
    lambda lib: lib.nn.Module().register_buffer("a.b", lib.ones(1)),
    lambda lib: lib.nn.Module().register_buffer("", lib.ones(1)),
    lambda lib: lib.nn.Module().register_parameter("a", lib.ones(2)),
    lambda lib: lib.nn.Module().add_module("a.b", lib.nn.ReLU()),
    lambda lib: lib.nn.Module().add_module(3, lib.nn.ReLU()),
    lambda lib: lib.nn.Module().add_module("z", 3),
    lambda lib: lib.nn.Module().x,
    lambda lib: lib.nn.Module()(),
    lambda lib: lib.nn.Module().train(3),
    lambda lib: lib.nn.Linear(2, 2).to(lib.int64),
    lambda lib: lib.nn.Sequential(3),
    lambda lib: lib.nn.ModuleList(3),
    lambda lib: lib.nn.Sequential(lib.nn.ReLU())[2],
    lambda lib: lib.nn.ModuleList([lib.nn.ReLU()])[-2],
    lambda lib: lib.nn.ModuleDict()["x"],
    lambda lib: lib.nn.Dropout(1.5),
]


@pytest.mark.parametrize("index", range(len(REGISTRATION_ERRORS)))
def test_registration_errors(index):
    assert_same_error(REGISTRATION_ERRORS[index], exact=False)


def test_assignment_errors_and_rules():
    def assign(kind):
        def run(lib):
            m = lib.nn.Module()
            m.p = lib.nn.Parameter(lib.ones(1))
            m.c = lib.nn.ReLU()
            m.register_buffer("b", lib.ones(1))
            if kind == "param":
                m.p = lib.ones(1)
            elif kind == "child":
                m.c = 3
            elif kind == "buffer":
                m.b = 3
            elif kind == "exists":
                m.add_module("p", lib.nn.ReLU())
            elif kind == "nonleaf":
                m.register_parameter("q", lib.nn.Parameter(lib.ones(1)) * 2)
        return run
    assert_same_error(assign("param"), TypeError, "as parameter 'p'")
    assert_same_error(assign("child"), TypeError, "as child module 'c'")
    assert_same_error(assign("buffer"), TypeError, "buffer 'b'")
    assert_same_error(assign("exists"), KeyError, "already exists")
    assert_same_error(assign("nonleaf"), TypeError, "to parameter 'q'")

    def rules(lib):
        m = lib.nn.Module()
        m.w = lib.nn.Parameter(lib.ones(1))
        m.w = None                                 # a parameter slot set to None
        m.register_buffer("b", lib.ones(1))
        m.b = lib.zeros(1)                         # a tensor assigned to a buffer stays one
        m.plain = lib.ones(1)                      # a plain tensor: an attribute only
        del m.b
        m.x = lib.nn.ReLU()
        m.x = None                                 # a child slot set to None
        return (list(m._parameters), list(m._modules), list(m._buffers),
                [n for n, _ in m.named_parameters()], hasattr(m, "b"), "plain" in m.__dict__)
    assert_same(rules)


# ------------------------------------------------------------------ iteration

def shared_model(lib):
    nn = lib.nn
    shared = nn.Linear(2, 2)
    model = nn.Sequential(shared, nn.ReLU(), nn.Sequential(shared, nn.Linear(2, 1)))
    model.register_buffer("count", lib.zeros(1))
    return model


def fixed_shared_model(lib):
    """``shared_model`` with the same weights in both libraries."""
    model = shared_model(lib)
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.linspace(-2, 2, p.numel()).reshape(p.shape) * (i + 1))
    return model


def test_iteration_order_and_duplicates():
    def run(lib):
        m = shared_model(lib)
        return ([n for n, _ in m.named_parameters()],
                [n for n, _ in m.named_parameters(remove_duplicate=False)],
                [n for n, _ in m.named_parameters(prefix="top", recurse=False)],
                [n for n, _ in m.named_buffers()],
                [n for n, _ in m.named_modules()],
                [n for n, _ in m.named_modules(remove_duplicate=False)],
                [n for n, _ in m.named_children()],
                len(list(m.parameters())), len(list(m.modules())), len(list(m.children())),
                [type(c).__name__ for c in m.children()],
                type(m.get_submodule("2.1")).__name__,
                list(m.get_parameter("2.1.bias").shape))
    assert_same(run)
    assert_same_error(lambda lib: shared_model(lib).get_submodule("2.7"), AttributeError,
                      "has no attribute `7`")
    assert_same_error(lambda lib: shared_model(lib).get_parameter("count"), AttributeError,
                      "is not an nn.Parameter")


def test_train_eval_zero_grad_requires_grad_apply():
    def run(lib):
        m = shared_model(lib)
        m.eval()
        flags = [mod.training for mod in m.modules()]
        m[2].train()
        flags += [mod.training for mod in m.modules()]
        m(lib.ones(3, 2)).sum().backward()
        m.zero_grad(set_to_none=False)
        zeroed = [p.grad.abs().sum().item() for p in m.parameters()]
        m.zero_grad()
        none = [p.grad is None for p in m.parameters()]
        m.requires_grad_(False)
        frozen = [p.requires_grad for p in m.parameters()]
        order = []
        m.apply(lambda mod: order.append(type(mod).__name__))
        return flags, zeroed, none, frozen, order
    assert_same(run)


# ------------------------------------------------------------------ state dicts

def test_state_dict_keys_metadata_and_values():
    ours, theirs = models()

    def keys(model):
        sd = model.state_dict()
        return list(sd), dict(sd._metadata), [type(v).__name__ for v in sd.values()]
    assert keys(ours) == keys(theirs)
    assert list(ours.state_dict(prefix="m.")) == list(theirs.state_dict(prefix="m."))
    kept = ours.state_dict(keep_vars=True)
    assert kept["fc1.weight"] is ours.fc1.weight
    assert ours.state_dict()["fc1.weight"].requires_grad is False
    for k, v in ours.state_dict().items():
        assert_close(v, theirs.state_dict()[k])


def test_load_state_dict_reports_as_torch():
    def load(state, strict=True, assign=False):
        def run(lib):
            model = lib.nn.Linear(2, 3)
            result = model.load_state_dict(state(lib), strict=strict, assign=assign)
            return repr(result), list(result.missing_keys), model.weight.sum().item()
        return run
    full = lambda lib: {"weight": lib.ones(3, 2), "bias": lib.zeros(3)}   # noqa: E731
    assert_same(load(full))
    assert_same(load(lambda lib: {"weight": lib.ones(3, 2)}, strict=False))
    assert_same(load(full, assign=True))
    assert_same_error(load(lambda lib: {"weight": lib.ones(2, 2), "x": lib.ones(1)}),
                      RuntimeError, exact=True)
    assert_same_error(load(lambda lib: {"weight": 3, "bias": lib.zeros(3)}), RuntimeError,
                      "expected torch.Tensor or Tensor-like object")
    assert_same_error(load(lambda lib: [1]), TypeError, "Expected state_dict to be dict-like")


def test_load_then_forward_agrees():
    ours, theirs = models()
    x, tx = inputs(5, 3)
    assert_close(ours(x), theirs(tx))
    # non-persistent buffers stay out; persistent ones round trip
    assert "scratch" not in ours.state_dict() and "steps" in ours.state_dict()


# ------------------------------------------------------------------ conversions

def test_to_double_half_keep_parameter_objects():
    def run(lib):
        m = shared_model(lib)
        m.register_buffer("index", lib.zeros(2, dtype=lib.int64))
        weight = m[0].weight
        m(lib.ones(1, 2)).sum().backward()
        m.double()
        kept = weight is m[0].weight
        dtypes = [str(p.dtype).split(".")[-1] for p in m.parameters()]
        dtypes += [str(b.dtype).split(".")[-1] for b in m.buffers()]
        grad_dtype = str(m[0].weight.grad.dtype).split(".")[-1]
        m.to(lib.float16)
        half = [str(p.dtype).split(".")[-1] for p in m.parameters()]
        m.float().to("cpu")
        return kept, dtypes, grad_dtype, half, type(m[0].weight).__name__
    assert_same(run)


# ------------------------------------------------------------------ reprs

@pytest.mark.cpu_only          # reprs: a device tensor prints its device
def test_reprs():
    def run(lib):
        nn = lib.nn
        return [
            repr(shared_model(lib)),
            repr(nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()])),
            repr(nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Sequential(nn.ReLU()),
                                nn.Sequential(nn.ReLU())])),
            repr(nn.ModuleList()), repr(nn.Sequential()),
            repr(nn.ModuleDict({"a": nn.ReLU(), "b": nn.Linear(1, 1, bias=False)})),
            repr(nn.ParameterList([nn.Parameter(lib.ones(2)), lib.zeros(3, 1)])),
            repr(nn.ParameterDict({"a": nn.Parameter(lib.ones(2))})),
            repr(nn.Sequential(OrderedDict([("a", nn.ReLU(inplace=True)),
                                            ("b", nn.Dropout(0.25))]))),
            " ".join(repr(m) for m in [
                nn.LeakyReLU(), nn.LeakyReLU(0.2, True), nn.GELU(), nn.GELU("tanh"),
                nn.SiLU(), nn.Softplus(), nn.Softmax(dim=1), nn.LogSoftmax(1), nn.Softmax(),
                nn.Sigmoid(), nn.Tanh(), nn.Flatten(), nn.Unflatten(1, (2, 2)),
                nn.Identity(), nn.MSELoss(), nn.L1Loss(reduction="sum"),
                nn.CrossEntropyLoss(label_smoothing=0.1), nn.NLLLoss(), nn.BCELoss(),
                nn.BCEWithLogitsLoss()]),
        ]
    ours, theirs = run(ag), run(torch)
    for mine, reference in zip(ours, theirs):
        assert mine == torch_spelling(reference).replace("torch.FloatTensor",
                                                         "autograd_cy.FloatTensor")


# ------------------------------------------------------------------ containers

def test_sequential_and_module_list_operations():
    def run(lib):
        nn = lib.nn
        s = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid())
        sliced = s[1:]
        out = [list(sliced._modules), type(s[-1]).__name__, len(s)]
        del s[0]
        out.append(list(s._modules))
        s.append(nn.ReLU())
        s.insert(0, nn.Identity())
        out.append([type(m).__name__ for m in s])
        out.append(type(s.pop(1)).__name__)
        out.append([type(m).__name__ for m in s + nn.Sequential(nn.ReLU())])
        lst = nn.ModuleList([nn.ReLU(), nn.Tanh()])
        lst += [nn.Sigmoid()]
        lst[0] = nn.Identity()
        out.append([type(m).__name__ for m in lst])
        out.append(list(lst[1:]._modules))
        del lst[0]
        out.append(list(lst._modules))
        d = nn.ModuleDict({"a": nn.ReLU()})
        d["b"] = nn.Tanh()
        d.update([("c", nn.Identity())])
        out.append((list(d.keys()), "b" in d, len(d), type(d.pop("a")).__name__, list(d)))
        p = nn.ParameterList([lib.ones(2)])
        p.append(nn.Parameter(lib.zeros(1)))
        out.append((len(p), [type(x).__name__ for x in p], p[0].requires_grad,
                    [n for n, _ in p.named_parameters()]))
        return out
    assert_same(run)


def test_sequential_forward_and_backward_match_torch():
    def build(lib):
        nn = lib.nn
        return nn.Sequential(nn.Linear(3, 5), nn.GELU(), nn.Linear(5, 5), nn.SiLU(),
                             nn.Dropout(0.0), nn.Linear(5, 2), nn.LogSoftmax(dim=1))
    ours, theirs = models(build)
    x, tx = inputs(4, 3)
    target = [0, 1, 1, 0]
    loss = ag.nn.NLLLoss()(ours(x), ag.tensor(target))
    tloss = torch.nn.NLLLoss()(theirs(tx), torch.tensor(target))
    loss.backward()
    tloss.backward()
    assert_close(loss, tloss)
    for (name, p), tp in zip(ours.named_parameters(), theirs.parameters()):
        assert_close(p.grad, tp.grad, what=name)


LOSSES = [
    ("MSELoss", {}, "real"), ("L1Loss", {"reduction": "sum"}, "real"),
    ("BCELoss", {}, "prob"), ("BCEWithLogitsLoss", {"pos_weight": "ones"}, "real"),
    ("CrossEntropyLoss", {"label_smoothing": 0.1, "weight": "ones"}, "class"),
    ("NLLLoss", {"ignore_index": 1}, "class"),
]


@pytest.mark.parametrize("name, options, target", LOSSES)
def test_loss_modules(name, options, target):
    rng = np.random.default_rng(1)
    logits = rng.standard_normal((4, 3))
    if target == "class":
        goal = rng.integers(0, 3, 4)
    elif target == "prob":
        logits, goal = 1 / (1 + np.exp(-logits)), rng.random((4, 3))
    else:
        goal = rng.standard_normal((4, 3))

    def run(lib):
        kwargs = {k: (lib.ones(3, dtype=lib.float64) if v == "ones" else v)
                  for k, v in options.items()}
        module = getattr(lib.nn, name)(**kwargs)
        x = lib.tensor(logits, requires_grad=True)
        loss = module(x, lib.tensor(goal))
        loss.backward()
        return loss, x.grad, list(module.state_dict())
    assert_same(run)


# ------------------------------------------------------------------ forward hooks

def test_forward_hooks_order_replacement_and_removal():
    def run(lib):
        calls = []
        m = lib.nn.Linear(2, 2)
        with lib.no_grad():
            m.weight.copy_(lib.eye(2))
            m.bias.zero_()
        h1 = m.register_forward_pre_hook(lambda mod, args: calls.append("pre1"))
        m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        m.register_forward_pre_hook(lambda mod, args: calls.append("pre0"), prepend=True)
        m.register_forward_pre_hook(
            lambda mod, args, kwargs: calls.append(("kw", sorted(kwargs))), with_kwargs=True)
        m.register_forward_hook(lambda mod, args, out: out + 1)
        m.register_forward_hook(lambda mod, args, out: calls.append(("post", out.tolist())))
        m.register_forward_hook(lambda mod, args, kwargs, out: calls.append("kwpost"),
                                with_kwargs=True)
        first = m(lib.ones(1, 2))
        h1.remove()
        second = m(lib.ones(1, 2))
        handle = lib.nn.modules.module.register_module_forward_hook(
            lambda mod, args, out: calls.append(("global", type(mod).__name__)))
        try:
            m(lib.ones(1, 2))
        finally:
            handle.remove()
        return calls, first, second
    assert_same(run)
    def bad_pre_hook(lib):
        module = lib.nn.ReLU()
        module.register_forward_pre_hook(lambda m, a, k: 3, with_kwargs=True)
        module(lib.ones(1))
    assert_same_error(bad_pre_hook, RuntimeError, "forward pre-hook must return None or a tuple")


# ------------------------------------------------------------------ backward hooks

def hooked_run(lib, with_pre=True, replace=False):
    """A two-layer model with full backward (pre-)hooks on each layer and tensor hooks on
    its input and output: the calls in order, with the gradients they saw."""
    nn = lib.nn
    calls = []
    model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1))

    def hook(name):
        def fn(module, grad_input, grad_output):
            calls.append((name, [None if g is None else g.tolist() for g in grad_input],
                          [g.tolist() for g in grad_output]))
            if replace and name == "layer2":
                return tuple(None if g is None else g * 10 for g in grad_input)
        return fn

    def pre_hook(name):
        def fn(module, grad_output):
            calls.append((name + " pre", [g.tolist() for g in grad_output]))
            if replace and name == "layer0":
                return (grad_output[0] * 3,)
        return fn
    for index in (0, 2):
        model[index].register_full_backward_hook(hook(f"layer{index}"))
        if with_pre:
            model[index].register_full_backward_pre_hook(pre_hook(f"layer{index}"))
    x = lib.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    x.register_hook(lambda g: calls.append(("x", g.tolist())))
    out = model(x)
    names = [out.grad_fn.name(), out.grad_fn.next_functions[0][0].name()]
    out.register_hook(lambda g: calls.append(("out", g.tolist())))
    out.sum().backward()
    return calls, names, x.grad, [p.grad for p in model.parameters()]


@pytest.mark.parametrize("with_pre, replace", [(True, False), (False, False), (True, True)])
def test_full_backward_hooks_order_values_and_names(with_pre, replace):
    assert_same(lambda lib: hooked_run(lib, with_pre, replace), rtol=1e-5, atol=1e-6)


def test_backward_hook_when_no_input_requires_grad():
    def run(lib):
        calls = []
        m = lib.nn.Linear(2, 1)
        m.register_full_backward_hook(
            lambda mod, gi, go: calls.append(([g is None for g in gi], len(go))))
        m(lib.ones(3, 2)).sum().backward()
        return calls
    same_warning(run, UserWarning, "no inputs require gradients")
    assert_same(run)


def test_backward_hook_wrong_length_errors():
    def run(kind):
        def fn(lib):
            m = lib.nn.Linear(2, 1)
            if kind == "hook":
                m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
            else:
                m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
            m(lib.ones(3, 2, requires_grad=True)).sum().backward()
        return fn
    assert_same_error(run("hook"), RuntimeError, "invalid number of grad_input, got 2")
    assert_same_error(run("pre"), RuntimeError, "invalid number of grad_output, got 2")


def test_custom_module_forward_with_kwargs_and_tuple_outputs_under_hooks():
    def run(lib):
        calls = []

        class Split(lib.nn.Module):
            def forward(self, x, *, scale=1.0):
                return x * scale, x.sum(), 7
        m = Split()
        m.register_full_backward_hook(
            lambda mod, gi, go: calls.append(([g.tolist() for g in gi],
                                              [None if g is None else g.tolist()
                                               for g in go])))
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a, b, c = m(x, scale=3.0)
        (a.sum() + 2 * b).backward()
        return calls, x.grad, c
    assert_same(run)


# ------------------------------------------------------------------ nn.utils

@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_clip_grad_norm(norm_type):
    def run(lib):
        m = fixed_shared_model(lib)
        m(lib.ones(4, 2)).pow(2).sum().backward()
        total = lib.nn.utils.clip_grad_norm_(m.parameters(), 0.5, norm_type=norm_type)
        return total, [p.grad for p in m.parameters()]
    assert_same(run, rtol=1e-5, atol=1e-6)


def test_clip_grad_value_and_vector_conversions():
    def run(lib):
        m = fixed_shared_model(lib)
        m(lib.ones(4, 2)).pow(2).sum().backward()
        lib.nn.utils.clip_grad_value_(m.parameters(), 0.01)
        grads = [p.grad for p in m.parameters()]
        vector = lib.nn.utils.parameters_to_vector(m.parameters())
        lib.nn.utils.vector_to_parameters(lib.arange(float(vector.numel())), m.parameters())
        return grads, vector.shape[0], [p.tolist() for p in m.parameters()]
    assert_same(run)
    assert_same_error(lambda lib: lib.nn.utils.vector_to_parameters([1.0], []), TypeError,
                      "expected torch.Tensor, but got")
    assert_same_error(_nonfinite_clip, RuntimeError, "non-finite")


def _nonfinite_clip(lib):
    p = lib.nn.Parameter(lib.ones(1))
    p.grad = lib.tensor([float("inf")])
    lib.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


@pytest.mark.skipif(DEVICE == "cpu", reason="the device run moves models to CUDA")
def test_module_cuda_round_trip():
    m = shared_model(ag)
    m.cuda()
    assert all(p.is_cuda for p in m.parameters())
    m.cpu()
    assert not any(p.is_cuda for p in m.parameters())


def test_no_warning_on_plain_call():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TwoLayer.build(ag)(ag.ones(2, 3))


def test_load_state_dict_assign_takes_parameters_and_buffers():
    def run(lib):
        model = lib.nn.BatchNorm1d(2)
        state = {k: v.clone() + 1 for k, v in model.state_dict().items()}
        model.load_state_dict(state, assign=True)
        return (type(model.weight).__name__, model.weight.requires_grad,
                model.running_mean is state["running_mean"], model.weight.tolist(),
                model.num_batches_tracked.item())
    assert run(ag) == run(torch)


def test_to_memory_format_converts_4d_and_5d_tensors():
    """The performance-tuning recipe: ``model.to(memory_format=torch.channels_last)``
    lays out the conv weight (4-D) channels-last and leaves the others alone."""
    def run(lib):
        model = lib.nn.Sequential(lib.nn.Conv2d(3, 8, 3), lib.nn.BatchNorm2d(8),
                                  lib.nn.Linear(4, 2)).to("cpu")
        weight = model[0].weight
        model.to(memory_format=lib.channels_last)
        out = model[0](lib.ones(1, 3, 5, 5, device="cpu").to(memory_format=lib.channels_last))
        return (model[0].weight is weight, model[0].weight.stride(), model[1].weight.stride(),
                model[2].weight.stride(), out.is_contiguous(memory_format=lib.channels_last))
    assert_same(run)
