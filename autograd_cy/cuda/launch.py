"""Launch configuration and the launch guards.

On a real GPU a wrong argument is a silent bug: CuPy passes a Python ``int`` as 8 bytes, so
a kernel parameter of 4 bytes reads half of it; a float32 array handed to a ``double*``
reads garbage; a grid past the device's limits fails with a bare CUDA error code. So every
launch is checked here first, against the parameter list the manifest gives for the kernel,
and a bad one raises before anything reaches the device, naming the kernel and the argument.
"""
import numpy as np

from autograd_cy.cuda.layout import STRUCT_DTYPES

#: CUDA's limits on a launch (every GPU this backend compiles for, sm_75 and up)
MAX_THREADS_PER_BLOCK = 1024
MAX_GRID_X = 2 ** 31 - 1
MAX_GRID_YZ = 65535
MAX_BLOCK_Z = 64
MAX_STATIC_SHARED_MEMORY = 48 * 1024


class KernelLaunchError(RuntimeError):
    """A launch refused before it reached the device."""


def elementwise_config(n, seam, block_size=256):
    """(grid, block) for a grid-stride loop over ``n`` elements: blocks of ``block_size``
    threads (capped by the seam), as many blocks as cover ``n``, capped by the seam too."""
    block = min(block_size, seam.max_block_size)
    grid = max(1, min((n + block - 1) // block, seam.max_grid_size))
    return (grid,), (block,)


def _dims(value, what, kernel):
    if isinstance(value, (int, np.integer)):
        value = (value,)
    value = tuple(int(v) for v in value)
    if not 1 <= len(value) <= 3:
        raise KernelLaunchError(f"{kernel.name}: {what} must have 1 to 3 dimensions, "
                                f"got {value}")
    return value + (1,) * (3 - len(value))


def check_launch(kernel, grid, block, args, shared_mem, seam):
    """Check a launch of ``kernel`` (a manifest entry); returns (grid, block) as 3-tuples."""
    grid, block = _dims(grid, "the grid", kernel), _dims(block, "the block", kernel)
    threads = block[0] * block[1] * block[2]
    if min(block) < 1 or threads > MAX_THREADS_PER_BLOCK or block[2] > MAX_BLOCK_Z:
        raise KernelLaunchError(
            f"{kernel.name}: block {block} has {threads} threads; CUDA allows 1 to "
            f"{MAX_THREADS_PER_BLOCK} per block")
    if min(grid) < 1 or grid[0] > MAX_GRID_X or max(grid[1:]) > MAX_GRID_YZ:
        raise KernelLaunchError(
            f"{kernel.name}: grid {grid} is outside CUDA's limits (x up to {MAX_GRID_X}, "
            f"y and z up to {MAX_GRID_YZ}, none empty)")
    if not 0 <= shared_mem <= MAX_STATIC_SHARED_MEMORY:
        raise KernelLaunchError(f"{kernel.name}: {shared_mem} bytes of dynamic shared memory "
                                f"(at most {MAX_STATIC_SHARED_MEMORY} without opting in)")
    if len(args) != len(kernel.params):
        raise KernelLaunchError(
            f"{kernel.name} takes {len(kernel.params)} arguments ({', '.join(kernel.params)}), "
            f"got {len(args)}")
    for position, (param, arg) in enumerate(zip(kernel.params, args)):
        _check_argument(kernel, position, param, arg, seam)
    return grid, block


def _check_argument(kernel, position, param, arg, seam):
    where = f"{kernel.name}: argument {position} ({param})"
    if param.startswith("ptr:"):
        if arg is None:
            return                      # a null pointer: an output the kernel skips
        if not isinstance(arg, seam.raw_type):
            raise KernelLaunchError(f"{where} must be an array of the device "
                                    f"({seam.raw_type.__name__}), got {type(arg).__name__}")
        if arg.dtype != np.dtype(param[4:]):
            raise KernelLaunchError(f"{where} must be an array of {param[4:]}, got {arg.dtype}")
        device = getattr(arg, "device", None)
        if getattr(device, "id", seam.index) != seam.index:
            raise KernelLaunchError(f"{where} is on cuda:{device.id}, the launch on "
                                    f"cuda:{seam.index}")
    elif param in STRUCT_DTYPES:
        if not isinstance(arg, np.void) or arg.dtype != STRUCT_DTYPES[param]:
            raise KernelLaunchError(f"{where} must be the {param} struct "
                                    f"(a NumPy scalar of its dtype), got {type(arg).__name__}")
    else:
        expected = np.dtype(param)
        if isinstance(arg, (bool, int, float)) and not isinstance(arg, np.generic):
            raise KernelLaunchError(
                f"{where} is a Python {type(arg).__name__}; pass numpy.{expected.name}: CuPy "
                f"passes a Python number as 8 bytes, which a {expected.itemsize}-byte "
                f"parameter misreads")
        if not isinstance(arg, np.generic) or arg.dtype != expected:
            got = arg.dtype if isinstance(arg, np.generic) else type(arg).__name__
            raise KernelLaunchError(f"{where} must be a numpy.{expected.name} scalar, got {got}")


def index_fits(value, param="int64"):
    """Whether an element count or index fits the kernel's index type."""
    info = np.iinfo(np.dtype(param))
    return info.min <= value <= info.max
