"""``autograd_cy.nn.parallel``, as ``torch.nn.parallel``: ``DistributedDataParallel``, data
parallelism across processes on ``autograd_cy.distributed``."""
from autograd_cy.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
