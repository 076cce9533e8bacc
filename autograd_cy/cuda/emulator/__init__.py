"""The CPU emulator: unchanged ``.cu`` kernels compiled by g++ against ``cuda_cpu.h`` and
launched with RawModule's call shape (``module.py``). ``load_kernel_file`` gives the module
of one kernel file with the manifest's name expressions, built once per process; under
``make sanitize`` (env AUTOGRAD_CY_EMULATOR_SANITIZE) it is built with that sanitizer."""
import functools

from autograd_cy.cuda.emulator.module import (  # noqa: F401
    SANITIZE_ENV, CpuKernelError, CpuModule, sanitizer_env)
from autograd_cy.cuda.manifest import name_expressions_by_file
from autograd_cy.cuda.sources import include_options, kernel_path


@functools.lru_cache(maxsize=None)
def load_kernel_file(file, sanitize=None):
    """The emulated module of ``cuda/<file>`` with every manifest entry of that file;
    ``sanitize`` as CpuModule's (None: SANITIZE_ENV decides)."""
    names = name_expressions_by_file().get(file, [])
    return CpuModule(path=kernel_path(file), options=include_options(), name_expressions=names,
                     sanitize=sanitize)
