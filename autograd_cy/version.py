"""``autograd_cy.version`` (``torch.version``): the package's version and what it was built
with. ``__version__`` is pyproject.toml's (a test keeps the two equal); ``cuda`` is the CUDA
runtime CuPy reports when a GPU backend is present, else None (a CPU build, as torch's).
"""
__all__ = ["__version__", "hip", "rocm", "xpu", "debug", "git_version"]   # and cuda

__version__ = "0.1.0"
hip = None
rocm = None
xpu = None
debug = False
git_version = "Unknown"


def __getattr__(name):
    if name == "cuda":          # asked only when read: importing CuPy is slow
        try:
            import cupy
            version = cupy.cuda.runtime.runtimeGetVersion()
        except Exception:       # no CuPy or no driver: a CPU build
            return None
        return f"{version // 1000}.{version % 1000 // 10}"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
