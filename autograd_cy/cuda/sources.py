"""Where the kernel sources are and the options every compiler gets for them.

The ``.cu`` files live in the repository's ``cuda/`` folder, one per op family, with the
headers they share (``*.cuh``). The real loader (NVRTC through CuPy), the compile check and
the CPU emulator all read them from here, with the same include option.
"""
import os

KERNEL_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "cuda")


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
