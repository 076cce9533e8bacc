"""torch.autocast: the ops of torch's lists cast their inputs (NOTE [How autocast reaches the
ops]), gradients reach float32 leaves in float32, the cast cache, nesting, threads, custom
Functions, and an AMP training step with GradScaler, against torch.

On the CPU (the default run) torch's own CPU autocast is the oracle. With
AUTOGRAD_CY_TEST_DEVICE=cuda our region is ``autocast("cuda", float16)`` on the emulated
device, and torch (on the CPU, without CUDA) runs each op on inputs cast as CUDA's lists say.
"""
import threading
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from tests.oracle import DEVICE, assert_same_error, randn, run_threads

ON_CUDA = DEVICE.startswith("cuda")
DEVICE_TYPE = "cuda" if ON_CUDA else "cpu"
LOW = {ag: ag.float16 if ON_CUDA else ag.bfloat16, torch: torch.float16 if ON_CUDA
       else torch.bfloat16}
RTOL = 1e-3 if ON_CUDA else 1.6e-2          # float16 / bfloat16 relative precision (x2)


def leaves(lib, arrays):
    device = DEVICE if lib is ag else "cpu"
    return [lib.tensor(np.asarray(a, dtype=np.float32), device=device, requires_grad=True)
            for a in arrays]


def our_region(lib):
    if lib is ag:
        return ag.autocast(DEVICE_TYPE, dtype=LOW[ag])
    return torch.autocast("cpu", dtype=LOW[torch], enabled=not ON_CUDA)


def run(lib, fn, arrays, cuda_cast=None, backward=False):
    """``fn(lib, low, *leaves)`` in the region; the output and the leaves' gradients of
    ``sum(output * weights)``. torch's side, on a CUDA run, casts the leaves by
    ``cuda_cast`` ("lower", "fp32" or None) itself, as CUDA's autocast would."""
    xs = leaves(lib, arrays)
    inputs, low = xs, LOW[lib]
    if lib is torch and ON_CUDA and cuda_cast == "lower":
        inputs = [x.to(torch.float16) for x in xs]
    if lib is torch and ON_CUDA and cuda_cast == "fp32":
        low = torch.float32               # the op's inputs as CUDA's autocast casts them
    with our_region(lib):
        out = fn(lib, low, *inputs)
    weights = np.linspace(-1, 1, int(np.prod(out.shape))).reshape(tuple(out.shape))
    w = lib.tensor(weights, dtype=out.dtype, device=out.device)
    if backward:                          # .backward(), for the reentrant checkpoint
        (out * w).sum().backward()
        return out, [x.grad for x in xs]
    grads = lib.autograd.grad((out * w).sum(), xs, allow_unused=True)
    return out, grads


def close(ours, theirs, rtol, atol, what):
    """Same dtype and shape, values within the lower precision's tolerance."""
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], (
        f"{what}: dtype {ours.dtype} != torch {theirs.dtype}")
    np.testing.assert_allclose(ours.detach().float().cpu().numpy(),
                               theirs.detach().float().numpy(), rtol=rtol, atol=atol,
                               err_msg=what)


def compare(fn, *arrays, cuda_cast=None, cuda_dtype=None, rtol=RTOL, backward=False):
    if cuda_dtype == "float32":
        cuda_cast = "fp32"
    ours, their = (run(lib, fn, arrays, cuda_cast, backward) for lib in (ag, torch))
    if ON_CUDA and cuda_dtype is not None:       # a CUDA float32 op: torch ran it as such
        assert str(ours[0].dtype).split(".")[-1] == cuda_dtype
        their = (their[0].to(getattr(torch, cuda_dtype)), their[1])
    close(ours[0], their[0], rtol, rtol, "output")
    for index, (g, t) in enumerate(zip(ours[1], their[1])):
        assert (g is None) == (t is None), f"grad[{index}]"
        if g is not None:
            close(g, t, rtol, rtol * 4, f"grad[{index}]")
    return ours


def fnl(lib):
    return lib.nn.functional


LOWER_OPS = {   # on both devices' lower-precision lists
    "mm": (lambda lib, low, a, b: lib.mm(a, b), [randn(3, 4), randn(4, 2)]),
    "matmul_operator": (lambda lib, low, a, b: a @ b, [randn(3, 4), randn(4, 2)]),
    "rmatmul_method": (lambda lib, low, a, b: a.matmul(b), [randn(2, 3, 4), randn(4, 2)]),
    "bmm": (lambda lib, low, a, b: lib.bmm(a, b), [randn(2, 3, 4), randn(2, 4, 2)]),
    "addmm": (lambda lib, low, c, a, b: lib.addmm(c, a, b), [randn(3, 2), randn(3, 4),
                                                           randn(4, 2)]),
    "baddbmm": (lambda lib, low, c, a, b: lib.baddbmm(c, a, b, alpha=0.5),
                [randn(2, 3, 2), randn(2, 3, 4), randn(2, 4, 2)]),
    "addbmm": (lambda lib, low, c, a, b: lib.addbmm(c, a, b), [randn(3, 2), randn(2, 3, 4),
                                                             randn(2, 4, 2)]),
    "einsum": (lambda lib, low, a, b: lib.einsum("bij,jk->bik", a, b),
               [randn(2, 3, 4), randn(4, 2)]),
    "linear": (lambda lib, low, x, w, b: fnl(lib).linear(x, w, b), [randn(2, 3), randn(4, 3),
                                                                  randn(4)]),
    "conv1d": (lambda lib, low, x, w, b: fnl(lib).conv1d(x, w, b, padding=1),
               [randn(2, 2, 5), randn(3, 2, 3), randn(3)]),
    "conv2d": (lambda lib, low, x, w: fnl(lib).conv2d(x, w, stride=2),
               [randn(1, 2, 5, 5), randn(3, 2, 3, 3)]),
    "conv3d": (lambda lib, low, x, w: lib.conv3d(x, w), [randn(1, 2, 3, 3, 3),
                                                        randn(2, 2, 2, 2, 2)]),
    "conv_transpose1d": (lambda lib, low, x, w: fnl(lib).conv_transpose1d(x, w),
                         [randn(1, 2, 4), randn(2, 3, 2)]),
    "conv_transpose2d": (lambda lib, low, x, w: fnl(lib).conv_transpose2d(x, w, stride=2),
                         [randn(1, 2, 3, 3), randn(2, 3, 2, 2)]),
    "prelu": (lambda lib, low, x, w: fnl(lib).prelu(x, w), [randn(2, 3), [0.25]]),
    "sdpa": (lambda lib, low, q, k, v: fnl(lib).scaled_dot_product_attention(q, k, v),
             [randn(1, 2, 3, 4), randn(1, 2, 3, 4, seed=1), randn(1, 2, 3, 4, seed=2)]),
    "multi_dot": (lambda lib, low, a, b, c: lib.linalg.multi_dot([a, b, c]),
                  [randn(2, 3), randn(3, 4), randn(4, 2)]),
    "vecdot": (lambda lib, low, a, b: lib.linalg.vecdot(a, b), [randn(3, 4), randn(3, 4, seed=1)]),
    "chain_matmul": (lambda lib, low, a, b: lib.chain_matmul(a, b), [randn(2, 3), randn(3, 2)]),
}


@pytest.mark.parametrize("name", list(LOWER_OPS))
def test_lower_precision_ops(name):
    fn, arrays = LOWER_OPS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)      # chain_matmul's deprecation
        out, grads = compare(fn, *arrays, cuda_cast="lower")
    assert out.dtype == LOW[ag]
    assert all(g.dtype == ag.float32 for g in grads if g is not None)


A, B = randn(5), randn(5, seed=1)
M, N = randn(2, 3), randn(2, 3, seed=1)


def _targets(lib, a):
    return lib.tensor([0, 2], device=a.device)


FP32_OPS = {   # (fn, arrays, CUDA: "fp32" if on CUDA's float32 list, else None)
    "mse_loss": (lambda lib, low, a, b: fnl(lib).mse_loss(a.to(low), b), [A, B], "fp32"),
    "l1_loss": (lambda lib, low, a, b: fnl(lib).l1_loss(a.to(low), b.to(low)), [A, B], "fp32"),
    "smooth_l1": (lambda lib, low, a, b: fnl(lib).smooth_l1_loss(a.to(low), b), [A, B], "fp32"),
    "huber": (lambda lib, low, a, b: fnl(lib).huber_loss(a.to(low), b), [A, B], "fp32"),
    "cross_entropy": (lambda lib, low, a: fnl(lib).cross_entropy(a.to(low), _targets(lib, a)),
                      [M], "fp32"),
    "nll_loss": (lambda lib, low, a: fnl(lib).nll_loss(a.to(low), _targets(lib, a)), [M],
                 "fp32"),
    "kl_div": (lambda lib, low, a, b: fnl(lib).kl_div(a.to(low), b.softmax(-1),
                                                      reduction="batchmean"), [M, N], "fp32"),
    "bce_with_logits": (lambda lib, low, a, b: fnl(lib).binary_cross_entropy_with_logits(
        a.to(low), b.sigmoid()), [A, B], "fp32"),
    "cdist": (lambda lib, low, a, b: lib.cdist(a.to(low), b), [M, N], "fp32"),
    "prod": (lambda lib, low, a: lib.prod(a.to(low)), [randn(4, positive=True)], "fp32"),
    "trace": (lambda lib, low, a: lib.trace(a.to(low)), [randn(3, 3)], None),
}


@pytest.mark.parametrize("name", list(FP32_OPS))
def test_float32_ops(name):
    fn, arrays, cuda = FP32_OPS[name]
    out, grads = compare(fn, *arrays, cuda_dtype="float32" if cuda else None)
    if not ON_CUDA or cuda:
        assert out.dtype == ag.float32
    assert all(g.dtype == ag.float32 for g in grads if g is not None)


UNLISTED_OR_CUDA_ONLY = {   # CPU: not listed (run in the inputs' dtype); CUDA: float32 ops
    "exp": (lambda lib, low, a: lib.exp(a.to(low)), [randn(4)]),
    "pow_operator": (lambda lib, low, a: a.to(low) ** 2, [randn(4)]),
    "softmax": (lambda lib, low, a: a.to(low).softmax(-1), [randn(2, 3)]),
    "sum": (lambda lib, low, a: a.to(low).sum(), [randn(2, 3)]),
    "log_softmax": (lambda lib, low, a: fnl(lib).log_softmax(a.to(low), dim=1), [randn(2, 3)]),
    "layer_norm": (lambda lib, low, a: fnl(lib).layer_norm(a.to(low), (3,)), [randn(2, 3)]),
}


@pytest.mark.parametrize("name", list(UNLISTED_OR_CUDA_ONLY))
def test_ops_float32_on_cuda_only(name):
    fn, arrays = UNLISTED_OR_CUDA_ONLY[name]
    out, _ = compare(fn, *arrays, cuda_dtype="float32")
    assert out.dtype == (ag.float32 if ON_CUDA else LOW[ag])


def test_unlisted_ops_keep_their_dtype():
    out, grads = compare(lambda lib, low, a, b: (a.to(low) * b.to(low)).relu() + 1,
                         randn(4), randn(4, seed=1))
    assert out.dtype == LOW[ag] and grads[0].dtype == ag.float32


@pytest.mark.cpu_only
def test_cpu_promote_ops():
    """cat and stack take the widest input dtype on the CPU."""
    out, _ = compare(lambda lib, low, a, b: lib.cat([a.to(low), b]), randn(3), randn(2))
    assert out.dtype == ag.float32
    out, _ = compare(lambda lib, low, a, b: lib.stack([a.to(low), b.to(low)]), randn(3),
                     randn(3, seed=1))
    assert out.dtype == ag.bfloat16


def test_float64_inputs_are_not_cast():
    for lib in (ag, torch):
        a = lib.ones(2, 2, dtype=lib.float64, device=DEVICE if lib is ag else "cpu")
        with our_region(lib):
            assert (a @ a).dtype == lib.float64
            assert lib.mm(a, a).dtype == lib.float64


@pytest.mark.skipif(not ON_CUDA, reason="CUDA's list")
def test_binary_cross_entropy_is_refused_on_cuda():
    x = ag.rand(3, device=DEVICE)
    with ag.autocast("cuda"):
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            ag.nn.functional.binary_cross_entropy(x, x)
        with pytest.raises(RuntimeError, match="BCEWithLogits"):
            ag.nn.BCELoss()(x, x)


# ------------------------------------------------------------------ modules

def _copy_params(ours, theirs):
    with torch.no_grad():
        for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            q.copy_(torch.from_numpy(p.detach().cpu().numpy()))


def _modules(make):
    torch.manual_seed(0)
    ag.manual_seed(0)
    ours, theirs = make(ag), make(torch)
    _copy_params(ours, theirs)
    return ours.to(DEVICE), theirs


CONV_MODULES = {"conv1d": ("Conv1d", 3), "conv3d": ("Conv3d", 5),
                "conv_transpose1d": ("ConvTranspose1d", 3),
                "conv_transpose2d": ("ConvTranspose2d", 4),
                "conv_transpose3d": ("ConvTranspose3d", 5)}


@pytest.mark.parametrize("kind", list(CONV_MODULES))
def test_conv_modules(kind):
    name, dims = CONV_MODULES[kind]
    def fn(lib, low, x):
        module = getattr(lib.nn, name)(2, 3, 2).to(x.device)
        with lib.no_grad():
            for p in module.parameters():
                values = np.linspace(-0.5, 0.5, p.numel(), dtype=np.float32)
                p.copy_(lib.tensor(values.reshape(tuple(p.shape)), device=x.device))
        return module(x)
    # on CUDA torch's side ran in float32: our float16 inputs' rounding on top
    out, grads = compare(fn, randn(1, 2, *(3,) * (dims - 2)), cuda_dtype="float16",
                         rtol=RTOL * 8 if ON_CUDA else RTOL)
    assert out.dtype == LOW[ag] and grads[0].dtype == ag.float32


LOSS_MODULES = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss",
                "BCEWithLogitsLoss", "KLDivLoss", "HuberLoss"]


@pytest.mark.parametrize("name", LOSS_MODULES)
def test_loss_modules_after_a_linear(name):
    def fn(lib, low, x, w):
        y = x @ w
        target = (lib.tensor([0, 2], device=x.device) if name in ("CrossEntropyLoss", "NLLLoss")
                  else lib.ones(2, 3, device=x.device) / 3)
        return getattr(lib.nn, name)()(y, target)
    out, grads = compare(fn, randn(2, 4), randn(4, 3))
    assert out.dtype == ag.float32 and grads[1].dtype == ag.float32


@pytest.mark.parametrize("kind", ["encoder", "encoder_eval", "mha", "lstm", "rnn", "gru",
                                  "lstm_cell", "gru_cell", "rnn_cell"])
def test_module_forward_dtypes(kind):
    def make(lib):
        nn = lib.nn
        if kind.startswith("encoder"):
            layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
            return layer.eval() if kind == "encoder_eval" else layer
        if kind == "mha":
            return nn.MultiheadAttention(8, 2)
        return {"lstm": nn.LSTM, "rnn": nn.RNN, "gru": nn.GRU, "lstm_cell": nn.LSTMCell,
                "gru_cell": nn.GRUCell, "rnn_cell": nn.RNNCell}[kind](8, 4)
    ours, theirs = _modules(make)
    x = randn(2, 8) if kind.endswith("cell") else randn(3, 2, 8)
    with our_region(ag):
        xs = ag.tensor(x, dtype=ag.float32, device=DEVICE)
        y = ours(xs, xs, xs) if kind == "mha" else ours(xs)
    with our_region(torch):
        xs = torch.tensor(x, dtype=torch.float32)
        t = theirs(xs, xs, xs) if kind == "mha" else theirs(xs)
    y, t = (y[0], t[0]) if isinstance(t, tuple) else (y, t)
    if not ON_CUDA:
        assert str(y.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_allclose(y.detach().float().cpu().numpy(), t.detach().float().numpy(),
                               rtol=5e-2, atol=5e-2)


def _train(lib, make, x, target, loss_fn, steps=3):
    model = make(lib)
    if lib is ag:
        model = model.to(DEVICE)
    device = DEVICE if lib is ag else "cpu"
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scaler = lib.amp.GradScaler(DEVICE_TYPE if lib is ag else "cpu", init_scale=2.0 ** 8)
    xs = lib.tensor(x, dtype=lib.float32, device=device)
    ys = lib.tensor(target, device=device)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        with our_region(lib):
            loss = loss_fn(lib, model(xs), ys)
        assert loss.dtype == lib.float32
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(float(loss.detach()))
    return losses, [p.detach().cpu().numpy() for p in model.parameters()]


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_training_steps_with_grad_scaler(kind):
    def make(lib):
        nn = lib.nn
        lib.manual_seed(0)
        if kind == "mlp":
            return nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
        return nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8, 3))

    def made(lib):
        model = make(lib)
        if lib is torch:
            _copy_params(make(ag), model)
        return model
    x = randn(4, 6) if kind == "mlp" else randn(4, 1, 4, 4)
    target = np.array([0, 1, 2, 1])

    def loss_fn(lib, out, y):
        return lib.nn.functional.cross_entropy(out, y)
    ours, theirs = (_train(lib, made, x, target, loss_fn) for lib in (ag, torch))
    np.testing.assert_allclose(ours[0], theirs[0], rtol=3e-2, atol=3e-2)
    for p, q in zip(ours[1], theirs[1]):
        assert p.dtype == q.dtype == np.float32
        np.testing.assert_allclose(p, q, rtol=3e-2, atol=3e-2)


# ------------------------------------------------------------------ the state

def test_state_nesting_and_enabled_false_inside():
    def states(lib):
        device = "cpu"
        a = lib.ones(2, 2, device=device)
        seen = [lib.is_autocast_enabled("cpu")]
        with lib.autocast("cpu"):
            seen += [lib.is_autocast_enabled("cpu"), str(lib.get_autocast_dtype("cpu"))]
            with lib.autocast("cpu", enabled=False):
                seen += [lib.is_autocast_enabled("cpu"), str(lib.get_autocast_dtype("cpu")),
                         str((a @ a).dtype) if device == "cpu" else ""]
                with lib.autocast("cpu", dtype=lib.float16):
                    seen += [str(lib.get_autocast_dtype("cpu")),
                             str((a @ a).dtype) if device == "cpu" else ""]
            seen += [lib.is_autocast_enabled("cpu"), lib.is_autocast_cache_enabled()]
        seen += [lib.is_autocast_enabled("cpu"), lib.is_autocast_enabled(),
                 str(lib.get_autocast_dtype("cuda"))]
        with pytest.warns(DeprecationWarning, match=r"is_autocast_enabled\('cpu'\) instead"):
            seen.append(lib.is_autocast_cpu_enabled())
        with pytest.warns(DeprecationWarning, match=r"get_autocast_dtype\('cuda'\) instead"):
            seen.append(str(lib.get_autocast_gpu_dtype()))
        return [s.split(".")[-1] if isinstance(s, str) else s for s in seen]
    assert states(ag) == states(torch)


def test_decorator_and_errors():
    for lib in (ag, torch):
        @lib.autocast("cpu")
        def inside():
            return lib.is_autocast_enabled("cpu")
        assert inside() and not lib.is_autocast_enabled("cpu")
    assert_same_error(lambda lib: lib.autocast("cpu")(3), TypeError, "requires a callable")
    assert_same_error(lambda lib: lib.autocast("tpu"), RuntimeError,
                      "device type at start of device string: tpu", exact=True)


@pytest.mark.cpu_only
def test_unsupported_cpu_dtype_warns_and_disables():
    for lib in (ag, torch):
        with pytest.warns(UserWarning, match="target dtype is not supported"):
            region = lib.autocast("cpu", dtype=lib.float32)
        with region:
            assert not lib.is_autocast_enabled("cpu")
    with pytest.warns(FutureWarning, match=r"torch.cpu.amp.autocast\(args...\)` is deprecated"):
        with ag.cpu.amp.autocast():
            assert ag.is_autocast_enabled("cpu")


def test_cast_cache_shares_a_leafs_cast():
    """Within a region a parameter is cast once: two ops share its ToCopyBackward0."""
    for lib in (ag, torch):
        device = DEVICE if lib is ag else "cpu"
        w = lib.ones(3, 3, device=device, requires_grad=True)
        x = lib.ones(2, 3, device=device)
        region = ag.autocast(DEVICE_TYPE) if lib is ag else torch.autocast("cpu")
        with region:
            a, b = lib.mm(x, w), lib.mm(x, w)
        ca, cb = (y.grad_fn.next_functions[1][0] for y in (a, b))
        assert ca.name() == "ToCopyBackward0" and ca is cb
        with region:
            c = lib.mm(x, w)
        assert c.grad_fn.next_functions[1][0] is not ca       # freed at the region's exit
        with (ag.autocast(DEVICE_TYPE, cache_enabled=False) if lib is ag
              else torch.autocast("cpu", cache_enabled=False)):
            d, e = lib.mm(x, w), lib.mm(x, w)
        assert d.grad_fn.next_functions[1][0] is not e.grad_fn.next_functions[1][0]


def test_state_is_per_thread():
    x = ag.ones(2, 2, device=DEVICE)
    seen = {}
    entered, done = threading.Event(), threading.Event()

    def inside():
        with ag.autocast(DEVICE_TYPE):
            entered.set()
            done.wait(30)
            seen["inside"] = (x @ x).dtype

    def outside():
        entered.wait(30)
        seen["outside"] = ((x @ x).dtype, ag.is_autocast_enabled(DEVICE_TYPE))
        done.set()
    run_threads(inside, outside)
    assert seen == {"inside": LOW[ag], "outside": (ag.float32, False)}
    assert (x @ x).dtype == ag.float32
    with ag.autocast(DEVICE_TYPE):           # another thread's region ends inside ours
        run_threads(lambda: ag.autocast(DEVICE_TYPE).__enter__().__exit__(None, None, None))
        assert ag.mm(x, x).dtype == LOW[ag]
    assert ag.mm(x, x).dtype == ag.float32


def test_ops_outside_a_region_are_the_originals():
    before = (ag.mm, ag.nn.functional.linear, ag.Tensor.matmul)
    with ag.autocast(DEVICE_TYPE):
        assert ag.mm is not before[0]
    assert (ag.mm, ag.nn.functional.linear, ag.Tensor.matmul) == before


def test_custom_function_fwd_bwd():
    def run_custom(lib):
        seen = []

        class MyMM(lib.autograd.Function):
            @staticmethod
            @lib.amp.custom_fwd(device_type="cpu", cast_inputs=lib.float32)
            def forward(ctx, a, b):
                seen.append(("fwd", lib.is_autocast_enabled("cpu"), str(a.dtype)))
                ctx.save_for_backward(a, b)
                return a.mm(b)

            @staticmethod
            @lib.amp.custom_bwd(device_type="cpu")
            def backward(ctx, grad):
                a, b = ctx.saved_tensors
                seen.append(("bwd", lib.is_autocast_enabled("cpu")))
                return grad.mm(b.t()), a.t().mm(grad)

        class Plain(lib.autograd.Function):
            @staticmethod
            @lib.amp.custom_fwd(device_type="cpu")
            def forward(ctx, a):
                return a.mm(a)

            @staticmethod
            @lib.amp.custom_bwd(device_type="cpu")
            def backward(ctx, grad):
                seen.append(("plain bwd", lib.is_autocast_enabled("cpu"),
                             str(lib.get_autocast_dtype("cpu"))))
                with lib.autocast("cpu"):
                    seen.append(("autocast in backward", str((grad @ grad).dtype)))
                return grad
        a = lib.ones(2, 2, requires_grad=True, device="cpu")
        with lib.autocast("cpu"):
            y = MyMM.apply(a.to(lib.bfloat16), a)
            z = Plain.apply(a)
        seen.append(str(y.dtype))
        seen.append(str(z.dtype))
        (y.sum() + z.float().sum()).backward()
        return [tuple(str(v).split(".")[-1] for v in s) if isinstance(s, tuple)
                else s.split(".")[-1] for s in seen]
    assert run_custom(ag) == run_custom(torch)


def test_custom_fwd_needs_a_device_type():
    assert_same_error(lambda lib: lib.amp.custom_fwd(lambda ctx: 0, device_type=3),
                      ValueError, "Expected `device_type` of type `str`")


def test_legacy_custom_fwd_warns():
    for lib in (ag, torch):
        with pytest.warns(FutureWarning, match=r"torch.cuda.amp.custom_fwd\(args...\)` is "
                          r"deprecated. Please use `torch.amp.custom_fwd\(args..., "
                          r"device_type='cuda'\)"):
            lib.cuda.amp.custom_fwd(lambda ctx, x: x)
        with pytest.warns(FutureWarning, match=r"torch.cuda.amp.custom_bwd\(args...\)"):
            lib.cuda.amp.custom_bwd(lambda ctx, g: g)


@pytest.mark.cpu_only
def test_cpu_pad_modes():
    """F.pad is on the CPU's float32 list in reflect (1d, 2d) and replicate modes only."""
    for mode, pad in (("reflect", (1, 1)), ("replicate", (1, 1, 1, 1)), ("constant", (1, 1)),
                      ("reflect", (1, 1, 1, 1, 1, 1))):
        shape = (1, 2) + (3,) * (len(pad) // 2)
        out, _ = compare(lambda lib, low, a: fnl(lib).pad(a.to(low), pad, mode=mode),
                         randn(*shape))
        assert out.dtype == (ag.float32 if mode == "replicate" or len(pad) < 6
                             and mode == "reflect" else ag.bfloat16), (mode, pad)


@pytest.mark.skipif(not ON_CUDA, reason="CUDA's lists")
def test_cuda_promote_and_upsample():
    out, _ = compare(lambda lib, low, a, b, c: lib.addcmul(a.to(low), b.to(low), c),
                     randn(3), randn(3, seed=1), randn(3, seed=2))
    assert out.dtype == ag.float32
    x = ag.randn(1, 1, 4, device=DEVICE).half()
    with ag.autocast("cuda"):
        assert ag.nn.functional.interpolate(x, scale_factor=2).dtype == ag.float32
        assert ag.nn.functional.interpolate(x, size=2, mode="area").dtype == ag.float16
        assert x.sum().dtype == ag.float32 and x.sum(dtype=ag.float64).dtype == ag.float64


def test_profile_and_vmap_inside_a_region():
    """The profiler's and vmap's swaps stack with autocast's, either way round."""
    for lib in (ag,) if ON_CUDA else (ag, torch):
        device = DEVICE if lib is ag else "cpu"
        x = lib.randn(4, 3, device=device)
        w = lib.randn(3, 2, device=device, requires_grad=True)
        with our_region(lib):
            with lib.autograd.profiler.profile() as prof:
                y = lib.mm(x, w)
            v = lib.vmap(lambda r: r @ w)(x)
        names = {e.name for e in prof.function_events}
        assert {"aten::mm", "aten::to"} <= names and y.dtype == v.dtype == LOW[lib]
        with lib.autograd.profiler.profile():
            with our_region(lib):
                z = x @ w
            assert z.dtype == LOW[lib] and (x @ w).dtype == lib.float32
    assert ag.mm is ag.Tensor.mm


CPU_NATIVE_OPS = {   # one kernel in torch, composed of listed ops here: torch's dtype anyway
    "addmv": (lambda lib, low, c, a, b: lib.addmv(c, a, b), [randn(3), randn(3, 4), randn(4)]),
    "addr": (lambda lib, low, c, a, b: lib.addr(c, a, b), [randn(3, 2), randn(3), randn(2)]),
    "bilinear": (lambda lib, low, a, b, w: fnl(lib).bilinear(a, b, w),
                 [randn(2, 3), randn(2, 3, seed=1), randn(4, 3, 3)]),
    "tensordot_all": (lambda lib, low, a, b: lib.tensordot(a, b), [randn(2, 3), randn(2, 3)]),
    "inner_vectors": (lambda lib, low, a, b: lib.inner(a, b), [randn(3), randn(3, seed=1)]),
    "interpolate": (lambda lib, low, a: fnl(lib).interpolate(a, scale_factor=2, mode="bilinear"),
                    [randn(1, 1, 3, 3)]),
    "adaptive_avg_pool1d": (lambda lib, low, a: fnl(lib).adaptive_avg_pool1d(a, 2),
                            [randn(1, 2, 5)]),
    "adaptive_avg_pool2d": (lambda lib, low, a: fnl(lib).adaptive_avg_pool2d(a, 2),
                            [randn(1, 2, 5, 5)]),
    "local_response_norm": (lambda lib, low, a: fnl(lib).local_response_norm(a.to(low), 2),
                            [randn(1, 4, 3, 3)]),
}


@pytest.mark.cpu_only
@pytest.mark.parametrize("name", list(CPU_NATIVE_OPS))
def test_cpu_composites_keep_torchs_dtype(name):
    fn, arrays = CPU_NATIVE_OPS[name]
    out, _ = compare(fn, *arrays)
    assert out.dtype == ag.float32


@pytest.mark.cpu_only
def test_tensordot_and_inner_of_matrices_are_matmuls():
    out, _ = compare(lambda lib, low, a, b: lib.tensordot(a, b, dims=1), randn(2, 3),
                     randn(3, 2))
    assert out.dtype == ag.bfloat16
    out, _ = compare(lambda lib, low, a, b: lib.inner(a, b), randn(2, 3), randn(4, 3))
    assert out.dtype == ag.bfloat16


@pytest.mark.cpu_only
def test_promote_refuses_another_lower_precision():
    assert_same_error(lambda lib: _in_region(lib, lambda: lib.cat(
        [lib.ones(2, dtype=lib.float16), lib.ones(2, dtype=lib.bfloat16)])), RuntimeError,
        "Unexpected floating ScalarType in at::autocast::prioritize", exact=True)


def _in_region(lib, fn):
    with lib.autocast("cpu"):
        return fn()


def test_out_variants_are_not_autocast():
    for lib in (ag,) if ON_CUDA else (ag, torch):
        device = DEVICE if lib is ag else "cpu"
        a, out = lib.ones(2, 2, device=device), lib.zeros(2, 2, device=device)
        with our_region(lib):
            result = lib.mm(a, a, out=out)
        assert result is out and out.dtype == lib.float32 and float(out.sum()) == 8.0


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_checkpoint_recomputes_in_the_forwards_autocast_state(use_reentrant):
    """torch's checkpoint reruns the forward in the autocast state it ran in, so the
    recomputed tensors have the forward's dtypes and the gradients are torch's."""
    seen = []

    def fn(lib, low, x, w1, w2):
        def block(h):
            hidden = h @ w1
            seen.append((lib.__name__, str(hidden.dtype).split(".")[-1]))
            return hidden.relu() @ w2
        return lib.utils.checkpoint.checkpoint(block, x, use_reentrant=use_reentrant)
    out, grads = compare(fn, randn(2, 3), randn(3, 4), randn(4, 2), cuda_cast="lower",
                         backward=use_reentrant)
    assert out.dtype == LOW[ag] and [g.dtype for g in grads] == [ag.float32] * 3
    low = str(LOW[ag]).split(".")[-1]
    assert [dtype for lib, dtype in seen if lib == "autograd_cy"] == [low, low]   # the rerun


def test_swaps_made_while_another_is_in(monkeypatch):
    """A swap first made inside another's (the profiler's inside a region, autocast's inside
    a profile) plans for the ops themselves, not for the other swap's wrappers."""
    import autograd_cy.autograd.profiler as profiler_module
    from autograd_cy.amp import casting
    x, w = ag.randn(2, 3, device=DEVICE), ag.randn(4, 3, device=DEVICE)
    F_ = ag.nn.functional
    monkeypatch.setattr(profiler_module, "_swap_maker", None)
    with ag.autocast(DEVICE_TYPE):
        with ag.autograd.profiler.profile():
            F_.softmax(x, -1)
    with ag.autograd.profiler.profile() as prof:
        F_.softmax(F_.linear(x, w), -1)
    assert {"aten::softmax", "aten::linear"} <= {e.name for e in prof.function_events}
    monkeypatch.setattr(casting, "_swap", None)
    monkeypatch.setattr(casting, "_recurrent_swap", None)
    with ag.autograd.profiler.profile():
        with ag.autocast(DEVICE_TYPE):
            assert F_.linear(x, w).dtype == LOW[ag]
    with ag.autocast(DEVICE_TYPE):
        assert F_.linear(x, w).dtype == ag.mm(x, w.t()).dtype == LOW[ag]
