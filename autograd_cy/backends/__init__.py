"""``autograd_cy.backends``: the flags and questions of ``torch.backends`` that training
scripts read and set (``backends.cudnn.benchmark = True``,
``backends.mps.is_available()`` ...).

autograd_cy computes with NumPy on the CPU and with its own kernels on a CUDA device: it
has no cuDNN, MPS, MKL, oneDNN or OpenMP, so those report themselves unavailable, and their
settable flags are plain module attributes, recorded for the scripts that read them back
and read by no op.
"""
from autograd_cy.backends import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp  # noqa: F401

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp"]
