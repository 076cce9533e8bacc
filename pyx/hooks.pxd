# Design: hooks on tensors (hooks.pyx): register_hook, retain_grad and
# register_post_accumulate_grad_hook, which this module gives Tensor as methods. A leaf's hooks
# live on the tensor; a non-leaf's are tensor pre-hooks of its grad_fn (NodeExtras). Node hooks
# are Node's own methods (node.pyx). Nothing here is called from C: the engine reads the hook
# dicts directly.
