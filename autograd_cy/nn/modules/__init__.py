"""The modules of ``autograd_cy.nn``: the Module base class, containers and layers."""
from autograd_cy.nn.modules import (module, container, linear, activation, loss, dropout,
                                    conv, pooling, padding, normalization, batchnorm, sparse,
                                    attention, distance, transformer, instancenorm,
                                    pixelshuffle, upsampling, fold, rnn, lazy,
                                    adaptive)
from autograd_cy.nn.modules import utils  # noqa: F401  (torch.nn.modules.utils)
from autograd_cy.nn.modules.module import *  # noqa: F401,F403
from autograd_cy.nn.modules.container import *  # noqa: F401,F403
from autograd_cy.nn.modules.linear import *  # noqa: F401,F403
from autograd_cy.nn.modules.activation import *  # noqa: F401,F403
from autograd_cy.nn.modules.loss import *  # noqa: F401,F403
from autograd_cy.nn.modules.dropout import *  # noqa: F401,F403
from autograd_cy.nn.modules.conv import *  # noqa: F401,F403
from autograd_cy.nn.modules.pooling import *  # noqa: F401,F403
from autograd_cy.nn.modules.padding import *  # noqa: F401,F403
from autograd_cy.nn.modules.normalization import *  # noqa: F401,F403
from autograd_cy.nn.modules.batchnorm import *  # noqa: F401,F403
from autograd_cy.nn.modules.instancenorm import *  # noqa: F401,F403
from autograd_cy.nn.modules.sparse import *  # noqa: F401,F403
from autograd_cy.nn.modules.attention import *  # noqa: F401,F403
from autograd_cy.nn.modules.distance import *  # noqa: F401,F403
from autograd_cy.nn.modules.transformer import *  # noqa: F401,F403
from autograd_cy.nn.modules.pixelshuffle import *  # noqa: F401,F403
from autograd_cy.nn.modules.upsampling import *  # noqa: F401,F403
from autograd_cy.nn.modules.fold import *  # noqa: F401,F403
from autograd_cy.nn.modules.rnn import *  # noqa: F401,F403
from autograd_cy.nn.modules.lazy import *  # noqa: F401,F403
from autograd_cy.nn.modules.adaptive import *  # noqa: F401,F403

# What ``from autograd_cy.nn.modules import *`` gives: the layers, not the submodules.
__all__ = [name for family in (module, container, linear, activation, loss, dropout, conv,
                               pooling, padding, normalization, batchnorm, sparse, attention,
                               distance, transformer, instancenorm, pixelshuffle,
                               upsampling, fold, rnn, lazy, adaptive)
           for name in family.__all__]
