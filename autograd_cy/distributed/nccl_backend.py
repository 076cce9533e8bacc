"""The "nccl" backend: collectives of CUDA tensors through NCCL (CuPy's ``cupy.cuda.nccl``),
its communicator made from a unique id that rank 0 creates and MPI broadcasts."""

__all__ = ["available", "NCCLBackend"]


def available():
    """Whether CuPy has NCCL and a GPU is present."""
    try:
        from cupy.cuda import nccl  # noqa: F401
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 (no CuPy, no NCCL, no driver: all mean "no")
        return False


class NCCLBackend:
    """Not built yet: the NCCL transport of a process group."""

    name = "nccl"

    def __init__(self, MPI, comm, channel, timeout):
        raise RuntimeError("The nccl backend is not available: no GPU with NCCL")
