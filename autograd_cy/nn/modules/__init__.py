"""The modules of ``autograd_cy.nn``: the Module base class, containers and layers."""
from autograd_cy.nn.modules.module import *  # noqa: F401,F403
from autograd_cy.nn.modules.container import *  # noqa: F401,F403
from autograd_cy.nn.modules.linear import *  # noqa: F401,F403
from autograd_cy.nn.modules.activation import *  # noqa: F401,F403
from autograd_cy.nn.modules.loss import *  # noqa: F401,F403
from autograd_cy.nn.modules.dropout import *  # noqa: F401,F403
