"""``autograd_cy.autograd``: the public autograd API, named as ``torch.autograd``."""
from autograd_cy.autograd.backward import backward, grad
from autograd_cy.autograd.variable import Variable
from autograd_cy.autograd import anomaly_mode, function, graph, profiler, profiler_util
from autograd_cy.autograd.anomaly_mode import (
    detect_anomaly, set_detect_anomaly, is_anomaly_enabled, is_anomaly_check_nan_enabled,
)
from autograd_cy.autograd.function import Function
from autograd_cy.autograd.gradcheck import gradcheck, gradgradcheck
from autograd_cy.grad_mode import (
    no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
    is_inference_mode_enabled,
)

__all__ = ["backward", "grad", "Variable", "Function", "function", "graph", "gradcheck",
           "gradgradcheck", "profiler", "profiler_util", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "anomaly_mode", "detect_anomaly",
           "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]
