"""``autograd_cy.utils``: as ``torch.utils``, ``checkpoint``, ``data``, ``dlpack``,
``hooks``, ``_pytree``, ``benchmark``, and ``swap_tensors``."""
from autograd_cy.utils import checkpoint  # noqa: F401
from autograd_cy.utils import data  # noqa: F401
from autograd_cy.utils import dlpack  # noqa: F401
from autograd_cy.utils import hooks  # noqa: F401
from autograd_cy.utils import _pytree  # noqa: F401
from autograd_cy.utils import benchmark  # noqa: F401
from autograd_cy.utils.swap import swap_tensors  # noqa: F401

__all__ = ["checkpoint", "data", "dlpack", "hooks", "_pytree", "benchmark", "swap_tensors"]
