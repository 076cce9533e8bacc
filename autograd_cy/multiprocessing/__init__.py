"""``autograd_cy.multiprocessing``: Python's multiprocessing with tensors that share memory
between processes, as torch.multiprocessing has it (Hogwild training: a model whose
parameters every worker process updates in place).

``Tensor.share_memory_()`` moves a CPU tensor's values into shared memory (a memfd mapped
with MAP_SHARED); a child process made by ``fork`` inherits the mapping, and one made by
``spawn`` (or a tensor sent through a Queue) gets the file descriptor, duplicated by
multiprocessing's own machinery, and maps the same memory. A tensor sent to another process
is moved to shared memory first, as torch's is. ``Module.share_memory()`` does it for every
parameter and buffer. ``spawn`` starts ``nprocs`` processes running ``fn(i, *args)``.

Unlike torch, which moves the storage, ``share_memory_`` gives the tensor a new array:
views of it made before the call keep the old memory.
"""
import multiprocessing
from multiprocessing import *  # noqa: F401,F403

from autograd_cy.multiprocessing.shared_memory import (  # noqa: F401
    get_all_sharing_strategies, get_sharing_strategy, set_sharing_strategy)
from autograd_cy.multiprocessing.spawn import (  # noqa: F401
    ProcessContext, ProcessExitedException, ProcessRaisedException, spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies",
           "spawn", "start_processes", "ProcessContext", "ProcessRaisedException",
           "ProcessExitedException"] + list(multiprocessing.__all__)
