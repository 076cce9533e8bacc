"""The kernel loader of the real GPU: one ``cupy.RawModule`` per ``.cu`` file per device.

A module is made on the first launch of one of its kernels, with every name expression the
manifest lists for its file, so NVRTC compiles the file once per process and device. CuPy
caches the compiled binary on disk (``~/.cupy/kernel_cache``) keyed by the source text and the
options, not by the headers the source includes; so the options carry a hash of the shared
headers (``-DAGCY_HEADERS_HASH=...``), and editing ``common.cuh`` compiles afresh.
``AUTOGRAD_CY_CUDA_ARCH`` (e.g. ``80``) compiles for that architecture instead of the
device's own: RawModule cannot be told an architecture, so then the file is compiled by
NVRTC here (compile_check.cubin_for, cached on disk under the same key) and the cubin loaded.
"""
import functools
import hashlib
import os

from autograd_cy.cuda.compile_check import cubin_for
from autograd_cy.cuda.manifest import name_expressions_by_file
from autograd_cy.cuda.sources import KERNEL_DIR, KERNEL_OPTIONS, kernel_path


@functools.lru_cache(maxsize=None)
def headers_hash():
    """A hash of every shared header (``cuda/*.cuh``)."""
    digest = hashlib.sha256()
    for name in sorted(os.listdir(KERNEL_DIR)):
        if name.endswith(".cuh"):
            with open(os.path.join(KERNEL_DIR, name), "rb") as f:
                digest.update(name.encode() + b"\0" + f.read())
    return digest.hexdigest()[:16]


def compile_options():
    """The options of a RawModule: the kernels' own, and the headers' hash for CuPy's cache."""
    return KERNEL_OPTIONS + (f"-DAGCY_HEADERS_HASH=0x{headers_hash()}",)


class KernelLoader:
    """The kernels of one device, compiled on first use."""

    def __init__(self, device_index):
        self.device_index = device_index
        self.arch = os.environ.get("AUTOGRAD_CY_CUDA_ARCH")
        self._modules = {}      # file -> (RawModule, {name expression: symbol to look up})
        self._functions = {}

    def module(self, file):
        if file not in self._modules:
            import cupy     # optional: a real GPU's launches are the only ones that get here
            names = name_expressions_by_file()[file]
            with cupy.cuda.Device(self.device_index):
                if self.arch:
                    cubin, lowered = cubin_for(kernel_path(file), names, int(self.arch))
                    self._modules[file] = (cupy.RawModule(path=cubin), lowered)
                else:
                    with open(kernel_path(file)) as f:
                        source = f.read()
                    module = cupy.RawModule(code=source, options=compile_options(),
                                            name_expressions=names)
                    self._modules[file] = (module, {name: name for name in names})
        return self._modules[file]

    def function(self, kernel):
        """The ``cupy.RawKernel`` of a manifest entry."""
        function = self._functions.get(kernel.name)
        if function is None:
            module, symbols = self.module(kernel.file)
            function = self._functions[kernel.name] = module.get_function(symbols[kernel.name])
        return function
