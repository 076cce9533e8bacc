"""``autograd_cy.distributed``, as ``torch.distributed``: process groups over MPI (CPU
tensors, and CUDA tensors through the host) or NCCL (CUDA tensors), the collectives of
tensors and of Python objects, and the errors that make a failing rank fail the others
(NOTE [When a rank fails]). Launch the ranks with ``mpiexec -n 4 python train.py``, or with
``python -m autograd_cy.distributed.run --nproc 4 train.py``.

Nothing here imports mpi4py until ``init_process_group``: the package imports without it."""
from autograd_cy.distributed.errors import *  # noqa: F401,F403
from autograd_cy.distributed.reduce_op import ReduceOp  # noqa: F401
from autograd_cy.distributed.work import Work  # noqa: F401
from autograd_cy.distributed.grad_bucket import GradBucket  # noqa: F401
from autograd_cy.distributed.process_group import (  # noqa: F401
    Backend, ProcessGroup, GroupMember, group, init_process_group, destroy_process_group,
    is_initialized, is_available, is_mpi_available, is_nccl_available, is_gloo_available,
    is_torchelastic_launched, new_group, get_rank, get_world_size, get_backend,
    get_process_group_ranks, get_global_rank, get_group_rank, default_pg_timeout)
from autograd_cy.distributed.collectives import *  # noqa: F401,F403
from autograd_cy.distributed.point_to_point import *  # noqa: F401,F403
from autograd_cy.distributed.objects import *  # noqa: F401,F403
