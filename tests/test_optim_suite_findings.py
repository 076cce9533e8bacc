"""What running torch's test/optim tests over autograd_cy found, each against torch's:
a state_dict whose scalar state (``"step"``, ASGD's ``"eta"``/``"mu"``, NAdam's
``"mu_product"``) holds Python numbers loads and steps, as tensors again; the step hooks
common to all optimizers (``optim.optimizer.register_optimizer_step_pre_hook`` /
``_post_hook``) and their order around an optimizer's own."""
import numpy as np
import pytest

from tests.oracle import DEVICE, assert_same, assert_same_error

OPTIMIZERS = [
    ("Adam", {"lr": 0.1, "amsgrad": True}),
    ("AdamW", {"lr": 0.1}),
    ("Adadelta", {}),
    ("Adagrad", {"lr": 0.1}),
    ("Adamax", {"lr": 0.1}),
    ("ASGD", {"lr": 0.1, "t0": 1}),
    ("NAdam", {"lr": 0.1}),
    ("RAdam", {"lr": 0.1}),
    ("RMSprop", {"lr": 0.1}),
    ("Rprop", {"lr": 0.1}),
]


def _grad(lib, w, k):
    w.grad = lib.tensor(np.cos(np.arange(3.0) + k), dtype=w.dtype)


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS, ids=[n for n, _ in OPTIMIZERS])
def test_load_state_dict_with_number_state(name, kwargs):
    def run(lib):
        w = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
        opt = getattr(lib.optim, name)([w], **kwargs)
        _grad(lib, w, 0)
        opt.step()
        state_dict = opt.state_dict()
        for state in state_dict["state"].values():
            for key, value in state.items():
                if lib.is_tensor(value) and value.dim() == 0:
                    state[key] = value.item()
        opt.load_state_dict(state_dict)
        loaded = {k: (str(v.dtype).split(".")[-1], v.item())
                  for k, v in opt.state[w].items() if v.dim() == 0}
        # ASGD keeps them on the parameter's device, the others on the CPU
        where = {k: v.device == (w.device if name == "ASGD" else lib.device("cpu"))
                 for k, v in opt.state[w].items() if v.dim() == 0}
        assert all(where.values()), where
        _grad(lib, w, 1)
        opt.step()
        return loaded, w.tolist()
    assert_same(run, rtol=1e-6, atol=1e-7)


def _hooked_run(lib):
    from importlib import import_module
    optimizer_module = import_module(lib.__name__ + ".optim.optimizer")
    calls = []
    w = lib.zeros(2, requires_grad=True)
    opt = lib.optim.SGD([w], lr=0.5)
    opt.register_step_pre_hook(lambda o, a, k: calls.append("own pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("own post"))
    handles = [
        optimizer_module.register_optimizer_step_pre_hook(
            lambda o, a, k: calls.append(("global pre", type(o).__name__, len(a)))),
        optimizer_module.register_optimizer_step_post_hook(
            lambda o, a, k: calls.append("global post")),
    ]
    try:
        w.grad = lib.ones(2)
        opt.step()
    finally:
        for handle in handles:
            handle.remove()
    opt.step()
    return calls, w.tolist()


def test_global_step_hooks_order_and_removal():
    assert_same(_hooked_run)


def test_global_pre_hook_bad_result():
    def run(lib):
        from importlib import import_module
        optimizer_module = import_module(lib.__name__ + ".optim.optimizer")
        w = lib.zeros(2, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.5)
        handle = optimizer_module.register_optimizer_step_pre_hook(lambda o, a, k: 3)
        try:
            opt.step()
        finally:
            handle.remove()
    assert_same_error(run, RuntimeError, r"must return None or a tuple of \(new_args, "
                      r"new_kwargs\), but got 3\.")


TENSOR_LR = [(name, kwargs) for name, kwargs in OPTIMIZERS] + [("SGD", {"momentum": 0.9})]


@pytest.mark.parametrize("name,kwargs", TENSOR_LR, ids=[n for n, _ in TENSOR_LR])
def test_tensor_lr(name, kwargs):
    """A 0-dim float32 lr steps as torch's (its arithmetic in float32); the group keeps
    the tensor."""
    def run(lib):
        w = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        opt = getattr(lib.optim, name)([w], **{**kwargs, "lr": lib.tensor(0.0123)})
        for k in range(3):
            _grad(lib, w, k)
            opt.step()
        lr = opt.state_dict()["param_groups"][0]["lr"]
        return w.tolist(), lib.is_tensor(lr), str(lr.dtype).split(".")[-1]
    assert_same(run, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", [n for n, _ in TENSOR_LR])
def test_tensor_lr_not_one_element(name):
    assert_same_error(lambda lib: getattr(lib.optim, name)(
        [lib.zeros(1, requires_grad=True)], lr=lib.tensor([0.1, 0.2])), ValueError, exact=True)


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_tensor_lr_with_foreach(name):
    assert_same_error(lambda lib: getattr(lib.optim, name)(
        [lib.zeros(1, requires_grad=True)], lr=lib.tensor(0.1), foreach=True), ValueError,
        exact=True)


DIFFERENTIABLE = [
    ("SGD", {"lr": 0.9, "momentum": 0.5, "weight_decay": 0.1}, ("momentum_buffer",)),
    ("Adam", {"lr": 0.9, "amsgrad": True}, ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")),
    ("AdamW", {"lr": 0.9, "amsgrad": True, "maximize": True},
     ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")),
    ("ASGD", {"lr": 0.9, "t0": 1, "weight_decay": 0.1}, ("ax",)),
    ("Adadelta", {"lr": 0.9, "weight_decay": 0.1}, ("square_avg", "acc_delta")),
    ("Adagrad", {"lr": 0.9, "lr_decay": 0.1}, ("sum",)),
    ("Adamax", {"lr": 0.9, "weight_decay": 0.1}, ("exp_avg", "exp_inf")),
    ("NAdam", {"lr": 0.9}, ("exp_avg", "exp_avg_sq", "mu_product")),
    ("NAdam", {"lr": 0.9, "decoupled_weight_decay": True, "weight_decay": 0.1},
     ("exp_avg", "exp_avg_sq", "mu_product")),
    ("RAdam", {"lr": 0.9, "weight_decay": 0.1}, ("exp_avg", "exp_avg_sq")),
    ("RMSprop", {"lr": 0.9, "momentum": 0.5, "centered": True},
     ("square_avg", "momentum_buffer", "grad_avg")),
    ("Rprop", {"lr": 0.9}, ("prev", "step_size")),
]


@pytest.mark.parametrize("name,kwargs,names", DIFFERENTIABLE,
                         ids=[f"{n}-{len(k)}" for n, k, _ in DIFFERENTIABLE])
def test_differentiable_step(name, kwargs, names):
    """``differentiable=True``: the step is recorded, so the updated parameter and state
    have gradients with respect to the parameter, its ``.grad`` and the state before."""
    def run(lib):
        leaves = [lib.tensor(np.sin(np.arange(3.0) * (k + 1)) + 1.5, dtype=lib.float64,
                             requires_grad=True) for k in range(2 + len(names))]
        if "mu_product" in names:
            leaves[-1] = lib.tensor(0.8, dtype=lib.float64, requires_grad=True)
        p = leaves[0].clone()
        p.grad = leaves[1]
        opt = getattr(lib.optim, name)([p], differentiable=True, **kwargs)
        opt.state[p].update({key: t.clone() for key, t in zip(names, leaves[2:])})
        if name != "SGD":
            opt.state[p]["step"] = lib.tensor(4.0, dtype=lib.float64)
        if name == "ASGD":
            opt.state[p].update(eta=lib.tensor(0.9, dtype=lib.float64),
                                mu=lib.tensor(1.0, dtype=lib.float64))
        opt.step()
        outputs = [p] + [opt.state[p][key] for key in names]
        total = sum(((o * (k + 1)) ** 2).sum() for k, o in enumerate(outputs))
        grads = lib.autograd.grad(total, leaves, allow_unused=True)
        return [o.tolist() for o in outputs], [None if g is None else g.tolist()
                                               for g in grads]
    assert_same(run, rtol=1e-10, atol=1e-12)


def test_lbfgs_tensor_lr():
    def run(lib):
        w = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.LBFGS([w], lr=lib.tensor(0.3), max_iter=4)

        def closure():
            opt.zero_grad()
            loss = ((w - 0.25) ** 4).sum() + (w * w).sum()
            loss.backward()
            return loss
        for _ in range(2):
            opt.step(closure)
        return w.tolist()
    assert_same(run, rtol=1e-12, atol=1e-14)
    assert_same_error(lambda lib: lib.optim.LBFGS([lib.zeros(1, requires_grad=True)],
                                                  lr=lib.tensor([0.1, 0.2])),
                      ValueError, exact=True)


ADAFACTOR = [
    {},
    {"lr": 0.05, "weight_decay": 0.1, "maximize": True},
    {"lr": 0.3, "beta2_decay": -0.5, "eps": (1e-4, 1e-2), "d": 1.5},
    {"lr": "tensor"},
]


@pytest.mark.parametrize("kwargs", ADAFACTOR, ids=range(len(ADAFACTOR)))
def test_adafactor_steps(kwargs):
    """A batch of matrices (factored second moment), a matrix and a vector, in two groups."""
    def run(lib):
        options = {**kwargs, "lr": lib.tensor(0.02)} if kwargs.get("lr") == "tensor" else kwargs
        shapes = [(2, 3, 4), (4, 3), (5,)]
        params = [lib.tensor(np.sin(np.arange(float(np.prod(s))) + k).reshape(s),
                             dtype=lib.float64, requires_grad=True)
                  for k, s in enumerate(shapes)]
        opt = lib.optim.Adafactor([{"params": params[:2]}, {"params": params[2:]}], **options)
        for step in range(4):
            for k, p in enumerate(params):
                p.grad = lib.tensor(np.cos(np.arange(float(p.numel())) * (step + 1) + k)
                                    .reshape(tuple(p.shape)), dtype=lib.float64)
            opt.step()
        state = [{key: v.tolist() for key, v in opt.state[p].items()} for p in params]
        return [p.tolist() for p in params], state
    assert_same(run, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kwargs", [{"lr": -1.0}, {"beta2_decay": 0.5}, {"eps": (-1.0, 1e-3)},
                                    {"eps": (None, -1.0)}, {"d": 0.5}, {"weight_decay": -1.0}])
def test_adafactor_errors(kwargs):
    assert_same_error(lambda lib: lib.optim.Adafactor([lib.zeros(2, requires_grad=True)],
                                                      **kwargs), ValueError, exact=True)


def test_adafactor_refuses_complex():
    def run(lib):
        w = lib.zeros(2, dtype=lib.complex64, requires_grad=True)
        w.grad = lib.ones(2, dtype=lib.complex64)
        lib.optim.Adafactor([w]).step()
    assert_same_error(run, RuntimeError, exact=True)


@pytest.mark.parametrize("method", ["add_", "sub_"])
@pytest.mark.parametrize("other_dtype", ["bfloat16", "float32"])
def test_inplace_add_alpha_scales_in_result_dtype(method, other_dtype):
    """``float64.add_(other, alpha=a)`` with a lower-precision ``other``: ``a * other`` in
    float64 (Muon's update), not rounded to ``other``'s dtype."""
    def run(lib):
        p = lib.tensor([0.3, 0.2, -1.5], dtype=lib.float64)
        u = lib.tensor([0.625, 0.2, 3.0], dtype=lib.float64).to(getattr(lib, other_dtype))
        getattr(p, method)(u, alpha=-1.2247e-3)
        return p.tolist()
    assert_same(run, rtol=1e-15, atol=1e-17)


MUON = [
    ((3, 2), {}),
    ((2, 5), {"lr": 0.02, "nesterov": False, "momentum": 0.5}),
    ((4, 3), {"adjust_lr_fn": "match_rms_adamw", "weight_decay": 0.0, "ns_steps": 3}),
    ((3, 3), {"lr": "tensor", "ns_coefficients": (2.0, -1.5, 0.5), "eps": 1e-5}),
]


@pytest.mark.parametrize("shape,kwargs", MUON, ids=range(len(MUON)))
def test_muon_steps(shape, kwargs):
    def run(lib):
        options = {**kwargs, "lr": lib.tensor(0.01)} if kwargs.get("lr") == "tensor" else kwargs
        w = lib.tensor(np.sin(np.arange(float(np.prod(shape)))).reshape(shape) + 0.3,
                       dtype=lib.float64, requires_grad=True)
        opt = lib.optim.Muon([w], **options)
        for step in range(3):
            w.grad = lib.tensor(np.cos(np.arange(float(np.prod(shape))) * (step + 1))
                                .reshape(shape), dtype=lib.float64)
            opt.step()
        return w.tolist(), opt.state[w]["momentum_buffer"].tolist()
    # a CUDA device's bfloat16 matmuls sum in another order than the CPU's (torch's too)
    tight = DEVICE == "cpu"
    assert_same(run, rtol=1e-13 if tight else 1e-3, atol=1e-15 if tight else 1e-4)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.optim.Muon([lib.zeros(3, requires_grad=True)]),
    lambda lib: lib.optim.Muon([lib.zeros(2, 2, requires_grad=True)], adjust_lr_fn="x"),
    lambda lib: lib.optim.Muon([lib.zeros(2, 2, requires_grad=True)], momentum=-1.0),
    lambda lib: lib.optim.Muon([lib.zeros(2, 2, requires_grad=True)], lr=-1.0),
], ids=range(4))
def test_muon_errors(fn):
    assert_same_error(fn, ValueError, exact=True)


def test_muon_too_many_newton_schulz_steps():
    def run(lib):
        w = lib.zeros(2, 2, requires_grad=True)
        w.grad = lib.ones(2, 2)
        lib.optim.Muon([w], ns_steps=100).step()
    assert_same_error(run, ValueError, exact=True)


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("kwargs", [{}, {"amsgrad": True}, {"weight_decay": 0.1}])
def test_tensor_betas(name, kwargs):
    """Tensor betas step as torch's; their float32 powers (beta ** step) may differ in the
    last float32 bit from torch's pow kernel, hence the tolerance."""
    def run(lib):
        w = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        opt = getattr(lib.optim, name)([w], lr=0.1, betas=(lib.tensor(0.8),
                                                            lib.tensor([0.95])), **kwargs)
        for k in range(3):
            _grad(lib, w, k)
            opt.step()
        betas = opt.param_groups[0]["betas"]
        return w.tolist(), [b.dim() for b in betas]
    assert_same(run, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("betas,kwargs", [
    ("tensors", {"foreach": True}),
    ("two elements", {}),
    ("mixed", {}),
])
def test_tensor_betas_errors(betas, kwargs):
    def make(lib):
        value = {"tensors": (lib.tensor(0.9), lib.tensor(0.99)),
                 "two elements": (lib.tensor([0.9, 0.8]), lib.tensor(0.99)),
                 "mixed": (0.9, lib.tensor(0.99))}[betas]
        return lib.optim.Adam([lib.zeros(1, requires_grad=True)], betas=value, **kwargs)
    assert_same_error(make, exact=True)       # (two elements: torch's RuntimeError)


CAPTURABLE = ["Adam", "AdamW", "Adadelta", "Adamax", "ASGD", "NAdam", "RAdam", "RMSprop",
              "Rprop"]


@pytest.mark.cpu_only
@pytest.mark.parametrize("name", CAPTURABLE)
def test_capturable_refused_at_the_step_on_the_cpu(name):
    """``capturable=True`` constructs; the step refuses CPU parameters, as torch's."""
    def run(lib):
        w = lib.zeros(2, requires_grad=True)
        opt = getattr(lib.optim, name)([w], capturable=True)
        w.grad = lib.ones(2)
        opt.step()
    assert_same_error(run, AssertionError, exact=True)


@pytest.mark.parametrize("name", ["SGD", "Adam", "Adagrad", "RMSprop", "Rprop"])
def test_differentiable_with_foreach(name):
    """torch refuses ``differentiable`` with ``foreach=True`` at the step, but for SGD."""
    def run(lib):
        w = lib.zeros(2, requires_grad=True).clone()
        opt = getattr(lib.optim, name)([w], lr=0.1, differentiable=True, foreach=True)
        w.grad = lib.ones(2)
        opt.step()
        return w.grad_fn is not None
    if name == "SGD":
        assert_same(run)
    else:
        assert_same_error(run, AssertionError, exact=True)
