"""nn.Module's get_extra_state/set_extra_state (the ``_extra_state`` state-dict entry),
set_submodule, compile, the deprecated register_backward_hook (its grad_input and
grad_output, warnings, the full/non-full conflict), _get_backward_hooks, dump_patches and
T_destination, against torch's."""
import warnings

import pytest

import autograd_cy as ag
from oracle import _close, assert_same, assert_same_error, both, same_warning


def _with_extra(lib):
    class Counter(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(1, 1)
            self.count = 3

        def get_extra_state(self):
            return {"count": self.count}

        def set_extra_state(self, state):
            self.count = state["count"]
    return Counter


def test_extra_state_saved_and_loaded():
    def run(lib):
        outer = lib.nn.Sequential(_with_extra(lib)())
        sd = outer.state_dict()
        keys = list(sd)
        sd["0._extra_state"] = {"count": 7}
        result = outer.load_state_dict(sd)
        return keys, sd["0._extra_state"], outer[0].count, list(result)
    assert_same(run)


def test_extra_state_missing_is_a_missing_key():
    def run(lib):
        m = _with_extra(lib)()
        sd = m.state_dict()
        del sd["_extra_state"]
        return list(m.load_state_dict(sd, strict=False)), m.load_state_dict(sd)
    assert_same_error(run, RuntimeError, exact=True)


def test_extra_state_key_unexpected_without_set_extra_state():
    def run(lib):
        m = lib.nn.Linear(1, 1)
        sd = dict(m.state_dict(), _extra_state=1)
        return m.load_state_dict(sd)
    assert_same_error(run, RuntimeError, exact=True)


@pytest.mark.parametrize("name", ["get_extra_state", "set_extra_state"])
def test_base_extra_state_methods_raise(name):
    args = () if name == "get_extra_state" else (None,)
    assert_same_error(lambda lib: getattr(lib.nn.Linear(1, 1), name)(*args), RuntimeError,
                      "should never be called")


def test_set_submodule():
    def run(lib):
        m = lib.nn.Sequential(lib.nn.Sequential(lib.nn.Linear(1, 1)))
        m.set_submodule("0.0", lib.nn.Tanh())
        m.set_submodule("0.new", lib.nn.ReLU())
        m.set_submodule("0.other", lib.nn.ReLU(), strict=False)
        return repr(m)
    assert_same(run)


SET_SUBMODULE_ERRORS = {
    "empty": lambda m, lib: m.set_submodule("", lib.nn.ReLU()),
    "not_a_module": lambda m, lib: m.set_submodule("0", 3),
    "strict_missing": lambda m, lib: m.set_submodule("0.new", lib.nn.ReLU(), strict=True),
    "missing_parent": lambda m, lib: m.set_submodule("x.y", lib.nn.ReLU()),
    "replaces_a_parameter": lambda m, lib: m.set_submodule("0.weight", lib.nn.ReLU()),
}


@pytest.mark.parametrize("case", SET_SUBMODULE_ERRORS)
def test_set_submodule_errors(case):
    assert_same_error(lambda lib: SET_SUBMODULE_ERRORS[case](
        lib.nn.Sequential(lib.nn.Linear(1, 1)), lib), exact=True)


def test_compile_leaves_the_module_running_as_before():
    def run(lib):
        m = lib.nn.Linear(2, 1)
        with lib.no_grad():
            m.weight.fill_(0.5)
            m.bias.fill_(1.0)
        returned = m.compile(backend="eager")
        return returned, m(lib.tensor([[1.0, 2.0]])).tolist()
    assert_same(run)
    assert_same_error(lambda lib: lib.nn.Linear(1, 1).compile(mode="default", options={}),
                      RuntimeError, exact=True)


def _record_backward_hook(lib, module, x):
    seen = []

    def hook(mod, grad_input, grad_output):
        seen.append((type(mod).__name__,
                     [None if g is None else g.tolist() for g in grad_input],
                     [g.tolist() for g in grad_output]))
    module.register_backward_hook(hook)
    y = module(x)
    (y * lib.tensor([[1.0, 3.0]])).sum().backward()
    return seen


def _two_ops(lib):
    class TwoOps(lib.nn.Module):
        def forward(self, x):
            return (x * 2).sin()
    return TwoOps()


MODULES = {
    "one_op": lambda lib: lib.nn.Tanh(),
    "two_ops": _two_ops,      # only the last op's (sin's) gradients, as torch
    "linear": lambda lib: _seeded_linear(lib),     # addmm's three grad_inputs
}


def _seeded_linear(lib):
    m = lib.nn.Linear(2, 2)
    with lib.no_grad():
        m.weight.copy_(lib.tensor([[1.0, -2.0], [0.5, 3.0]]))
        m.bias.fill_(0.25)
    return m


@pytest.mark.parametrize("name", MODULES)
def test_register_backward_hook_grad_input_and_grad_output(name):
    def run(lib):
        x = lib.tensor([[0.5, -1.0]], requires_grad=True)
        return _record_backward_hook(lib, MODULES[name](lib), x)
    ours, theirs = same_warning(run, FutureWarning, "multiple autograd Nodes")
    assert ours
    _close(ours, theirs, 1e-6, 1e-7, "hook arguments")


def test_register_backward_hook_may_replace_grad_input():
    def run(lib):
        m = lib.nn.Tanh()
        m.register_backward_hook(lambda mod, gi, go: (gi[0] * 10,))
        x = lib.tensor([0.5, -1.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m(x).sum().backward()
        return x.grad.tolist()
    assert_same(run)


def test_register_backward_hook_warnings_for_other_outputs():
    def dict_output(lib):
        class Dict(lib.nn.Module):
            def forward(self, x):
                return {"y": x.exp()}
        m = Dict()
        m.register_backward_hook(lambda *a: None)
        return m(lib.ones(1, requires_grad=True))["y"].tolist()
    same_warning(dict_output, FutureWarning, "does not return a single Tensor")

    def different_nodes(lib):
        class Pair(lib.nn.Module):
            def forward(self, x):
                return x.exp(), x.sin()
        m = Pair()
        m.register_backward_hook(lambda *a: None)
        return len(m(lib.ones(1, requires_grad=True)))
    same_warning(different_nodes, FutureWarning, "generated by different autograd Nodes")


def test_full_and_non_full_backward_hooks_conflict():
    def full_then_old(lib):
        m = lib.nn.Tanh()
        m.register_full_backward_hook(lambda *a: None)
        m.register_backward_hook(lambda *a: None)

    def old_then_full(lib):
        m = lib.nn.Tanh()
        m.register_backward_hook(lambda *a: None)
        m.register_full_backward_hook(lambda *a: None)
    assert_same_error(full_then_old, RuntimeError, exact=True)
    assert_same_error(old_then_full, RuntimeError, exact=True)


def test_get_backward_hooks():
    def run(lib):
        full, old = lib.nn.Tanh(), lib.nn.Tanh()
        full.register_full_backward_hook(print)
        old.register_backward_hook(len)
        return [[[h.__name__ for h in kind] for kind in m._get_backward_hooks()]
                for m in (lib.nn.Tanh(), full, old)]
    assert_same(run)


def test_class_attributes():
    ours, theirs = both(lambda lib: (lib.nn.Module.dump_patches,
                                     lib.nn.Module.T_destination.__name__,
                                     lib.nn.Module.T_destination.__bound__))
    assert ours == theirs
    assert ag.nn.Linear(1, 1)._is_full_backward_hook is None
