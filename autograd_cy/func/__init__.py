"""``autograd_cy.func``: function transforms, named as ``torch.func``.

``vmap`` runs a function of one example on a batch; ``grad``, ``grad_and_value``, ``vjp``,
``jvp``, ``jacrev``, ``jacfwd``, ``hessian`` and ``linearize`` transform a function into its
derivatives; ``functional_call`` makes a Module a function of its parameters, and
``stack_module_state`` stacks the parameters of several models for it. They compose:
``vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)`` gives per-example gradients,
``jacfwd(jacrev(f))`` a Hessian. How: NOTE [The batched tensor], NOTE [How vmap reaches the
ops] and NOTE [Transforms without levels].
"""
from autograd_cy.func.vmap import vmap
from autograd_cy.func.transforms import (
    grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, linearize,
)
from autograd_cy.func.functional_call import functional_call
from autograd_cy.func.module_state import stack_module_state, replace_all_batch_norm_modules_
from autograd_cy.func.functionalize import functionalize, debug_unwrap

__all__ = ["vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
           "linearize", "functional_call", "stack_module_state",
           "replace_all_batch_norm_modules_", "functionalize", "debug_unwrap"]
