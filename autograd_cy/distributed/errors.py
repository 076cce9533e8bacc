"""The exceptions of ``torch.distributed``: a collective that fails raises
``DistBackendError``, and every one of them is a ``RuntimeError``."""

__all__ = ["DistError", "DistBackendError", "DistNetworkError", "DistStoreError"]


class DistError(RuntimeError):
    """Something went wrong in the distributed package."""


class DistBackendError(DistError):
    """A collective failed: a rank raised or died, the ranks called different collectives,
    or one did not join within the process group's timeout."""


class DistNetworkError(DistError):
    """The transport between ranks failed."""


class DistStoreError(DistError):
    """The rendezvous failed."""
