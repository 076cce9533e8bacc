"""``autograd.grad_mode``: the grad-mode context managers under PyTorch's module path
(``torch.autograd.grad_mode``); they live in ``autograd_cy/grad_mode.py``."""
from autograd_cy.grad_mode import (  # noqa: F401
    no_grad, enable_grad, set_grad_enabled, inference_mode, set_multithreading_enabled,
    enforce_grad_layout_policy, _DecoratorContextManager, _NoParamDecoratorContextManager,
    _force_original_view_tracking, _unsafe_preserve_version_counter,
)

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "set_multithreading_enabled", "enforce_grad_layout_policy"]


def _enter_inference_mode(mode):
    """Enter ``inference_mode(mode)`` without a ``with`` block; returns what
    ``_exit_inference_mode`` takes to leave it."""
    context = inference_mode(mode)
    context.__enter__()
    return context


def _exit_inference_mode(context):
    """Leave the inference mode that ``_enter_inference_mode`` entered."""
    context.__exit__(None, None, None)
