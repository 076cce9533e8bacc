"""The runtime switches scripts set and read (threads, determinism, matmul precision,
backends.*), compile and jit, against torch."""
import warnings

import pytest

import autograd_cy as ag
import torch
from oracle import LIBS, assert_same_error, same_warning


@pytest.fixture
def restore_flags():
    """Put both libraries' flags back after a test that sets them."""
    saved = [(lib, lib.get_num_threads(), lib.are_deterministic_algorithms_enabled(),
              lib.is_deterministic_algorithms_warn_only_enabled(),
              lib.get_float32_matmul_precision(), lib.backends.cudnn.benchmark,
              lib.backends.cudnn.deterministic, lib.backends.cudnn.enabled) for lib in LIBS]
    yield
    for (lib, threads, deterministic, warn_only, precision, benchmark, cudnn_deterministic,
         enabled) in saved:
        lib.set_num_threads(threads)
        lib.use_deterministic_algorithms(deterministic, warn_only=warn_only)
        lib.set_float32_matmul_precision(precision)
        lib.backends.cudnn.benchmark = benchmark
        lib.backends.cudnn.deterministic = cudnn_deterministic
        lib.backends.cudnn.enabled = enabled


def test_num_threads_round_trip(restore_flags):
    for lib in LIBS:
        assert isinstance(lib.get_num_threads(), int) and lib.get_num_threads() >= 1
        assert isinstance(lib.get_num_interop_threads(), int)
        lib.set_num_threads(1)
        assert lib.get_num_threads() == 1


def test_num_threads_errors():
    assert_same_error(lambda lib: lib.set_num_threads(0), RuntimeError, exact=True)
    assert_same_error(lambda lib: lib.set_num_threads(1.5), RuntimeError, exact=True)
    assert_same_error(lambda lib: lib.set_num_interop_threads(-1), RuntimeError, exact=True)


def test_interop_threads_only_once():
    source = """
def run(lib):
    lib.set_num_interop_threads(1)
    assert lib.get_num_interop_threads() == 1
    lib.set_num_interop_threads(1)
"""
    assert_same_error(source, RuntimeError, exact=True)


def test_deterministic_algorithms(restore_flags):
    for lib in LIBS:
        assert lib.are_deterministic_algorithms_enabled() is False
        lib.use_deterministic_algorithms(True, warn_only=True)
        assert lib.are_deterministic_algorithms_enabled() is True
        assert lib.is_deterministic_algorithms_warn_only_enabled() is True
        lib.use_deterministic_algorithms(False)
        assert lib.is_deterministic_algorithms_warn_only_enabled() is False
    assert_same_error(lambda lib: lib.use_deterministic_algorithms(1), TypeError, exact=True)


def test_float32_matmul_precision(restore_flags):
    for lib in LIBS:
        assert lib.get_float32_matmul_precision() == "highest"
        assert lib.backends.cuda.matmul.allow_tf32 is False
        lib.set_float32_matmul_precision("medium")
        assert lib.get_float32_matmul_precision() == "medium"
        assert lib.backends.cuda.matmul.allow_tf32 is True
    # the legacy flag sets the precision back (torch then refuses to read the precision
    # through the new API, having seen both: only ours is read back)
    ag.backends.cuda.matmul.allow_tf32 = False
    assert ag.get_float32_matmul_precision() == "highest"
    ag.backends.cuda.matmul.allow_tf32 = True
    assert ag.get_float32_matmul_precision() == "high"
    ag.set_float32_matmul_precision("medium")
    same_warning(lambda lib: lib.set_float32_matmul_precision("fast"), UserWarning,
                 "not one of 'highest', 'high', or 'medium'")
    assert ag.get_float32_matmul_precision() == torch.get_float32_matmul_precision()


def test_backend_questions():
    for lib in LIBS:
        backends = lib.backends
        assert backends.mps.is_available() is False
        assert backends.mps.is_built() is False
        assert backends.cudnn.is_available() is False
        assert backends.cudnn.version() is None
        assert isinstance(backends.mkl.is_available(), bool)
        assert isinstance(backends.mkldnn.is_available(), bool)
        assert isinstance(backends.openmp.is_available(), bool)
        assert isinstance(backends.cuda.is_built(), bool)
        assert backends.cuda.matmul.allow_fp16_reduced_precision_reduction is True
        assert backends.cuda.flash_sdp_enabled() is True
        assert backends.cuda.math_sdp_enabled() is True


def test_backend_flags_are_settable(restore_flags):
    import autograd_cy.backends.cudnn as cudnn      # scripts import it so
    defaults = [(lib.backends.cudnn.enabled, lib.backends.cudnn.benchmark,
                 lib.backends.cudnn.deterministic, lib.backends.cudnn.allow_tf32,
                 lib.backends.mkldnn.enabled) for lib in LIBS]
    assert defaults[0] == defaults[1]
    for lib in LIBS:
        lib.backends.cudnn.benchmark = True
        lib.backends.cudnn.deterministic = True
        assert lib.backends.cudnn.benchmark and lib.backends.cudnn.deterministic
        # cudnn's flag is its own: it does not turn deterministic algorithms on
        assert lib.are_deterministic_algorithms_enabled() is False
    assert cudnn.benchmark is True


def test_compile_returns_the_model():
    def f(x):
        return x * 2

    model = ag.nn.Linear(2, 2)
    assert ag.compile(f) is f
    assert ag.compile(model, mode="max-autotune", fullgraph=True, dynamic=False) is model
    assert ag.compile(backend="eager")(f) is f

    @ag.compile
    def g(x):
        return x + 1

    @ag.compile(mode="reduce-overhead")
    def h(x):
        return x - 1

    assert g(ag.ones(2)).tolist() == [2.0, 2.0]
    assert h(ag.ones(2)).tolist() == [0.0, 0.0]


def test_compile_errors():
    assert_same_error(lambda lib: lib.compile(lambda x: x, mode="default", options={}),
                      RuntimeError, "Either mode or options")


def test_jit_pass_throughs():
    def f(x):
        return x.relu()

    model = ag.nn.Linear(2, 2)
    assert ag.jit.script(f) is f and ag.jit.script(model) is model
    assert ag.jit.trace(f, (ag.ones(2),)) is f
    assert ag.jit.unused(f) is f
    assert ag.jit.ignore(f) is f and ag.jit.ignore(drop=True)(f) is f
    assert ag.jit.is_scripting() is False
    assert torch.jit.unused(f) is not None


@pytest.mark.parametrize("make", [
    lambda lib: lib.autocast("cpu", enabled=False),
    lambda lib: lib.autocast(device_type="cuda", dtype=lib.float16, enabled=False),
    lambda lib: lib.amp.autocast("cpu", enabled=False),
    lambda lib: lib.cpu.amp.autocast(enabled=False),
    lambda lib: lib.cuda.amp.autocast(enabled=False),
])
def test_disabled_autocast_is_a_no_op(make):
    results = []
    for lib in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            context = make(lib)
        x = lib.tensor([[1.0, 2.0]], device="cpu")
        w = lib.tensor([[0.5], [0.25]], device="cpu")
        with context:
            y = x @ w
        decorated = context(lambda a, b: lib.nn.functional.linear(a, b.t()))
        z = decorated(x, w)
        results.append((str(y.dtype).split(".")[-1], y.tolist(), str(z.dtype).split(".")[-1]))
    assert results[0] == results[1]


def test_legacy_autocast_warns():
    same_warning(lambda lib: lib.cpu.amp.autocast(enabled=False), FutureWarning,
                 r"torch.cpu.amp.autocast\(args...\)` is deprecated")


def test_autocast_device_type_errors():
    assert_same_error(lambda lib: lib.autocast("tpu", enabled=False), RuntimeError, "tpu")
    assert_same_error(lambda lib: lib.autocast(3, enabled=False), ValueError,
                      "Expected `device_type` of type `str`")
    assert ag.amp.is_autocast_available("cpu") and not ag.amp.is_autocast_available("tpu")


# ------------------------------------------------------------------ namespaces

@pytest.mark.parametrize("namespace", ["special", "signal.windows"])
def test_namespaces_export_torchs_public_names(namespace):
    """torch.special and torch.signal.windows: every public name, as an attribute; the
    top-level ops that came with them too (torch.igamma, torch.gcd_, Tensor.__lshift__ ...)."""
    theirs, ours = torch, ag
    for part in namespace.split("."):
        theirs, ours = getattr(theirs, part), getattr(ours, part)
    assert set(theirs.__all__) <= set(ours.__all__), set(theirs.__all__) - set(ours.__all__)
    for name in theirs.__all__:
        assert callable(getattr(ours, name)), name


@pytest.mark.parametrize("name", ["igamma", "igammac", "gcd", "lcm", "gcd_", "lcm_",
                                  "nextafter", "bitwise_left_shift", "bitwise_right_shift"])
def test_torch_level_names_of_the_special_ops(name):
    assert hasattr(torch, name) and callable(getattr(ag, name))


@pytest.mark.parametrize("name", [
    "igamma", "igammac", "igamma_", "igammac_", "gcd", "gcd_", "lcm", "lcm_", "nextafter",
    "nextafter_", "bitwise_left_shift", "bitwise_left_shift_", "bitwise_right_shift",
    "bitwise_right_shift_", "__lshift__", "__rlshift__", "__ilshift__", "__rshift__",
    "__rrshift__", "__irshift__"])
def test_tensor_methods_of_the_special_ops(name):
    assert hasattr(torch.Tensor, name) and callable(getattr(ag.Tensor, name))
