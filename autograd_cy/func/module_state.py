"""Modules as data for the transforms: ``stack_module_state`` (model ensembling: the
parameters of several same-shaped models stacked for ``vmap`` over ``functional_call``) and
``replace_all_batch_norm_modules_`` (batch norm without running statistics, which ``vmap``
could not update per example).

>>> import autograd_cy as ag
>>> models = [ag.nn.Linear(3, 2) for _ in range(4)]
>>> params, buffers = ag.func.stack_module_state(models)
>>> tuple(params["weight"].shape), params["weight"].is_leaf
((4, 2, 3), True)
"""
import autograd_cy as _ag

__all__ = ["stack_module_state", "replace_all_batch_norm_modules_"]


def _stacked_leaf(tensors, name):
    """The tensors stacked into a new leaf, which requires grad when every one of them does."""
    requiring = [t.requires_grad for t in tensors]
    if any(requiring) and not all(requiring):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    stacked = _ag.stack(tensors)
    return stacked.detach().requires_grad_() if all(requiring) else stacked


def stack_module_state(models):
    """``(params, buffers)``: dicts by dotted name of each parameter and buffer stacked over
    ``models`` along a new first dim. The models must be of one class and in one mode."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode.")
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    parameters = [dict(m.named_parameters()) for m in models]
    buffers = [dict(m.named_buffers()) for m in models]
    return ({name: _stacked_leaf(tuple(p[name] for p in parameters), name)
             for name in parameters[0]},
            {name: _stacked_leaf(tuple(b[name] for b in buffers), name) for name in buffers[0]})


def replace_all_batch_norm_modules_(root):
    """Make every batch norm module under ``root`` (``root`` too) use the batch's statistics
    only: running_mean, running_var and num_batches_tracked become None and
    track_running_stats False. Returns ``root``, changed in place."""
    from autograd_cy.nn.modules.batchnorm import _BatchNorm
    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
