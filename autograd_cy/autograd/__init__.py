"""``autograd_cy.autograd``: the public autograd API, named as ``torch.autograd``."""
from autograd_cy.autograd.backward import backward, grad
from autograd_cy.autograd.variable import Variable
from autograd_cy.autograd import (
    anomaly_mode, forward_ad, function, graph, profiler, profiler_util,
)
from autograd_cy.autograd.anomaly_mode import (
    detect_anomaly, set_detect_anomaly, is_anomaly_enabled, is_anomaly_check_nan_enabled,
)
from autograd_cy.autograd.function import Function
from autograd_cy.autograd.profiler import kineto_available  # noqa: F401  (torch.autograd's too)
from autograd_cy.autograd.provenance import set_provenance, is_provenance_enabled, forward_location
from autograd_cy.autograd.gradcheck import gradcheck, gradgradcheck, is_tensor_like
from autograd_cy._C.graph_task import _is_checkpoint_valid  # noqa: F401  (utils.checkpoint)
from autograd_cy.autograd import functional  # jacobian, hessian, vjp, jvp, vhp, hvp
from autograd_cy.autograd.trace_backward import trace_backward  # the engine, step by step
from autograd_cy.autograd.trace_hooks import trace_hooks  # every hook call of a backward
from autograd_cy.autograd.draw_graph import draw_graph
from autograd_cy.autograd.why_alive import why_alive
from autograd_cy.grad_mode import (
    no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
    is_inference_mode_enabled,
)
# PyTorch's module path torch.autograd.grad_mode, and the names it exports from it and from
# torch._C.
from autograd_cy.autograd import grad_mode
from autograd_cy.autograd.function import NestedIOFunction
from autograd_cy.grad_mode import (
    set_multithreading_enabled, is_multithreading_enabled, enforce_grad_layout_policy,
    is_view_replay_enabled,
)
from autograd_cy.grad_mode import (  # noqa: F401  (torch.autograd's private names)
    _force_original_view_tracking, _unsafe_preserve_version_counter,
)
from autograd_cy._C.saved_tensor import (  # noqa: F401
    SavedTensor, _push_saved_tensors_hooks as _push_saved_tensors_default_hooks,
    _pop_saved_tensors_hooks as _pop_saved_tensors_default_hooks,
)

__all__ = ["backward", "grad", "Variable", "Function", "forward_ad", "function", "graph",
           "gradcheck", "gradgradcheck", "is_tensor_like", "functional", "profiler",
           "profiler_util", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled", "anomaly_mode", "detect_anomaly",
           "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
           "grad_mode", "variable", "NestedIOFunction", "set_multithreading_enabled",
           "is_multithreading_enabled", "enforce_grad_layout_policy", "is_view_replay_enabled",
           "trace_backward", "trace_hooks", "draw_graph", "why_alive", "set_provenance",
           "is_provenance_enabled", "forward_location"]


def variable(*args, **kwargs):
    """Deprecated (PyTorch < 0.4): raises. It shadows the module ``autograd.variable``, as
    in PyTorch, and carries ``variable.Variable``."""
    raise RuntimeError(
        "torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")


variable.Variable = Variable
