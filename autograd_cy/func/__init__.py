"""``autograd_cy.func``: function transforms, named as ``torch.func``.

``vmap`` runs a function of one example on a batch; ``grad``, ``grad_and_value``, ``vjp``,
``jvp``, ``jacrev``, ``jacfwd``, ``hessian`` and ``linearize`` transform a function into its
derivatives; ``functional_call`` makes a Module a function of its parameters. They compose:
``vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)`` gives per-example gradients,
``jacfwd(jacrev(f))`` a Hessian. How: NOTE [The batched tensor], NOTE [How vmap reaches the
ops] and NOTE [Transforms without levels].
"""
from autograd_cy.func.vmap import vmap
from autograd_cy.func.transforms import (
    grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, linearize,
)
from autograd_cy.func.functional_call import functional_call

__all__ = ["vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
           "linearize", "functional_call"]
