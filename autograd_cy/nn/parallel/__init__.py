"""``autograd_cy.nn.parallel``, as ``torch.nn.parallel``: ``DistributedDataParallel``, data
parallelism across processes on ``autograd_cy.distributed``, and ``DataParallel``, the batch
split over the devices of one process."""
from autograd_cy.nn.parallel.data_parallel import DataParallel
from autograd_cy.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
