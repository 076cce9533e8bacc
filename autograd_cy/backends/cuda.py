"""``backends.cuda``: ``matmul``'s reduced-precision flags (``allow_tf32`` is the
float32 matmul precision, as in torch) and the scaled-dot-product-attention switches.
The CUDA backend computes float32 products in float32 and attention by its math path,
whatever these say."""
from autograd_cy import matmul_precision as _matmul_precision

__all__ = ["is_built", "matmul", "flash_sdp_enabled", "enable_flash_sdp",
           "mem_efficient_sdp_enabled", "enable_mem_efficient_sdp", "math_sdp_enabled",
           "enable_math_sdp", "cudnn_sdp_enabled", "enable_cudnn_sdp"]


def is_built():
    """True: the CUDA backend is part of the package (it runs where CuPy finds a GPU)."""
    return True


class cuBLASModule:
    """``backends.cuda.matmul``: ``allow_tf32`` reads and sets the float32 matmul precision
    ("high" when allowed, "highest" when not), as torch's does."""

    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self):
        return _matmul_precision.get_float32_matmul_precision() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value):
        _matmul_precision.set_float32_matmul_precision("high" if value else "highest")


matmul = cuBLASModule()

_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled():
    return _sdp["flash"]


def enable_flash_sdp(enabled):
    _sdp["flash"] = bool(enabled)


def mem_efficient_sdp_enabled():
    return _sdp["mem_efficient"]


def enable_mem_efficient_sdp(enabled):
    _sdp["mem_efficient"] = bool(enabled)


def math_sdp_enabled():
    return _sdp["math"]


def enable_math_sdp(enabled):
    _sdp["math"] = bool(enabled)


def cudnn_sdp_enabled():
    return _sdp["cudnn"]


def enable_cudnn_sdp(enabled):
    _sdp["cudnn"] = bool(enabled)
