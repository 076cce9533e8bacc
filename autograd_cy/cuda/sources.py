"""Where the kernel sources are and the options every compiler gets for them.

The ``.cu`` files live in the repository's ``cuda/`` folder, one per op family, with the
headers they share (``*.cuh``). The package sees that folder as ``autograd_cy/cuda/kernels``
(a symbolic link in a checkout, real files in an installed wheel: pyproject.toml ships them
as package data), and finds it through ``importlib.resources``, so a checkout, an editable
install and a wheel read their kernels the same way. The real loader (NVRTC through CuPy),
the compile check and the CPU emulator all read them from here, with the same include option.
"""
import os
from importlib.resources import files

KERNELS = "autograd_cy.cuda.kernels"

# The folder is a namespace package (a folder of data: no __init__.py, which would make the
# top-level cuda/ shadow NVIDIA's `cuda` package for anyone running from the checkout), and
# importlib.resources gives a namespace package's files as concrete paths, not the folder
# itself: the folder is the one that holds the shared header. realpath: compiler messages
# name cuda/<file>, where a reader finds it, not the link.
KERNEL_DIR = os.path.dirname(os.path.realpath(files(KERNELS).joinpath("common.cuh")))


def kernel_path(file):
    """The path of one kernel file, e.g. ``kernel_path("elementwise.cu")``."""
    return os.path.join(KERNEL_DIR, file)


def kernel_files():
    """Every ``.cu`` file of the folder, sorted."""
    return sorted(f for f in os.listdir(KERNEL_DIR) if f.endswith(".cu"))


def include_options():
    """The compiler options that find the shared headers."""
    return (f"-I{KERNEL_DIR}",)


#: The options every kernel file is compiled with: by the loader on a GPU, by the compile
#: check, and (the -D/-I ones) by the emulator.
KERNEL_OPTIONS = ("-std=c++17",) + include_options()
