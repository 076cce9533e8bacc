"""``autograd_cy.nn``, as ``torch.nn``: ``Parameter``, ``Module`` and its containers, the
layers (``autograd_cy/nn/modules``), the functional forms (``nn.functional``), the
initializers (``nn.init``), ``nn.utils`` and ``nn.parallel`` (DataParallel,
DistributedDataParallel)."""
from autograd_cy.nn import functional  # noqa: F401
from autograd_cy.nn import init  # noqa: F401
from autograd_cy.nn.parameter import (  # noqa: F401
    Parameter, Buffer, UninitializedParameter, UninitializedBuffer,
)
from autograd_cy.nn.modules import *  # noqa: F401,F403
from autograd_cy.nn import utils  # noqa: F401
from autograd_cy.nn import parallel  # noqa: F401
from autograd_cy.nn.parallel import DataParallel  # noqa: F401
from autograd_cy.nn import grad  # noqa: F401  (conv gradients as functions: torch.nn.grad)
