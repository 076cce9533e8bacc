# Design: hooks on tensors (hooks.pyx): register_hook, retain_grad and
# register_post_accumulate_grad_hook, which this module gives Tensor as methods. A leaf's hooks
# live on the tensor; a non-leaf's are tensor pre-hooks of its grad_fn (NodeExtras). Node hooks
# are Node's own methods (node.pyx). The engine reads the hook dicts directly and checks what
# a hook returned with the two functions below.

cdef object check_hook_result(object hook, object result, object grad)
cdef tuple check_node_hook_result(object hook, object result, tuple values)
