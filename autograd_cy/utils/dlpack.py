"""``autograd_cy.utils.dlpack``: as ``torch.utils.dlpack``, the legacy capsule interface
(``to_dlpack`` / ``from_dlpack``) over ``autograd_cy.dlpack``."""
import enum

from autograd_cy.dlpack import __dlpack__, from_dlpack

__all__ = ["DLDeviceType", "from_dlpack"]


class DLDeviceType(enum.IntEnum):
    """DLPack's device type codes, as ``__dlpack_device__`` reports them."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def to_dlpack(tensor):
    """A DLPack capsule (``"dltensor"``) of ``tensor``'s memory, to be read once by
    ``from_dlpack``. Unlike ``Tensor.__dlpack__`` it takes a tensor that requires grad, as
    torch's does (the capsule shares its data, not its graph)."""
    return __dlpack__(tensor.detach())
