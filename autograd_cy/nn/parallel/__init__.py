"""``autograd_cy.nn.parallel``, as ``torch.nn.parallel``: ``DistributedDataParallel``, data
parallelism across processes on ``autograd_cy.distributed``, and ``DataParallel``, across
the CUDA devices of one process."""
from autograd_cy.nn.parallel.data_parallel import (
    DataParallel, data_parallel, gather, scatter, scatter_kwargs,
)
from autograd_cy.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel", "gather", "scatter",
           "scatter_kwargs"]
