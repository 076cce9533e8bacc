"""DDP's communication hooks (``DistributedDataParallel.register_comm_hook``), as
``torch.distributed.algorithms.ddp_comm_hooks``."""
from autograd_cy.distributed.algorithms.ddp_comm_hooks import default_hooks  # noqa: F401
