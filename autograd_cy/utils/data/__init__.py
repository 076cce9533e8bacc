"""``autograd_cy.utils.data``, as ``torch.utils.data``: datasets, samplers, collation and the
DataLoader that combines them."""
from autograd_cy.utils.data.dataset import *  # noqa: F401,F403
from autograd_cy.utils.data.sampler import *  # noqa: F401,F403
from autograd_cy.utils.data.collate import *  # noqa: F401,F403
from autograd_cy.utils.data.dataloader import *  # noqa: F401,F403
from autograd_cy.utils.data import distributed  # noqa: F401  (DistributedSampler)
from autograd_cy.utils.data.distributed import DistributedSampler  # noqa: F401
