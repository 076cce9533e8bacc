"""The NVRTC compile check: every kernel file compiles for every target GPU, without a GPU.

For each file of the manifest (``name_expressions_by_file()``) and each architecture of
``ARCHS`` (the env ``AUTOGRAD_CY_CUDA_ARCH``, e.g. ``80`` or ``75,90``, or ``--arch``
overrides), NVRTC compiles the file with all its name expressions and the options that
``cupy.RawModule`` would hand it (``nvrtc_options``). A ``.cu`` of ``cuda/`` that the
manifest does not list fails too: it would never be compiled, so never checked. So does a
warning: the kernels compile clean.

    python -m autograd_cy.cuda.compile_check [--arch 80 ...]

prints one line per file and architecture and exits 1 on any failure, after NVRTC's log
(which names the ``.cu`` file and line). ``compile_kernel_file`` is the one compile step;
the GPU loader and the tests call it too.

NVRTC is reached through ``cupy.cuda.nvrtc`` directly: RawModule itself asks the driver
for the device's architecture, and there is no device here.
"""
import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from autograd_cy.cuda.manifest import name_expressions_by_file
from autograd_cy.cuda.sources import include_options, kernel_files, kernel_path

# Turing (T4), Ampere (A100), Hopper (H100): the oldest GPU we support and the newest.
ARCHS = (75, 80, 90)
ARCH_ENV = "AUTOGRAD_CY_CUDA_ARCH"

# The options the loader passes to RawModule (``options=``): the kernels' dialect and
# the folder of the shared headers.
KERNEL_OPTIONS = ("-std=c++17",) + include_options()

MISSING_NVRTC = ("the NVRTC compile check needs CuPy and NVRTC (test dependencies): "
                 "pip install -e '.[test]' installs cupy-cuda13x and nvidia-cuda-nvrtc")


def _nvrtc():
    """CuPy's NVRTC binding, or a RuntimeError that says what to install."""
    try:
        from cupy.cuda import nvrtc
        nvrtc.getVersion()  # loads libnvrtc: fails here if the wheel is missing
    except Exception as e:  # ImportError, or CuPy's error for a missing libnvrtc
        raise RuntimeError(f"{MISSING_NVRTC} ({type(e).__name__}: {e})") from e
    return nvrtc


def nvrtc_options(arch, options=KERNEL_OPTIONS):
    """The complete NVRTC option list of ``RawModule(code, options=options)`` on an
    ``sm_<arch>`` device, in the order CuPy builds it: its own include folders around the
    user's options, flush-to-zero, the real architecture (a cubin, not PTX), and device code
    as the default execution space.

    ``assemble_cupy_compiler_options`` is CuPy's private helper for the first part; this
    is the one place that calls it."""
    from cupy._core.core import assemble_cupy_compiler_options
    return tuple(assemble_cupy_compiler_options(tuple(options))) + (
        "-ftz=true", f"-arch=sm_{arch}", "--device-as-default-execution-space")


@dataclass
class CompileResult:
    """One file compiled for one architecture."""
    path: str
    arch: int
    ok: bool
    log: str = ""
    lowered_names: dict = field(default_factory=dict)  # name expression -> mangled symbol
    cubin_size: int = 0
    seconds: float = 0.0

    def line(self):
        """The one-line summary the CLI prints."""
        status = "ok  " if self.ok else "FAIL"
        detail = (f"{len(self.lowered_names)} kernels, {self.cubin_size / 1024:.0f} KiB cubin"
                  if self.ok else ("warnings" if self.cubin_size else "errors"))
        return (f"{status} {os.path.basename(self.path):28s} sm_{self.arch}  {detail}"
                f"  ({self.seconds:.2f} s)")


def compile_kernel_file(path, names, arch, options=()):
    """Compile ``path`` with NVRTC for ``sm_<arch>``, instantiating every name expression of
    ``names``; ``options`` come after ``KERNEL_OPTIONS`` (e.g. ``-D`` macros). The result
    is ok when NVRTC succeeds without a word in its log."""
    nvrtc = _nvrtc()
    start = time.perf_counter()
    try:
        with open(path) as f:
            source = f.read()
    except OSError as e:
        return CompileResult(path, arch, False, log=f"{path}: cannot read: {e.strerror}")
    # The program is named by its path, so the log reads "<path>(<line>): error: ...".
    program = nvrtc.createProgram(source, path, (), ())
    try:
        for name in names:
            nvrtc.addNameExpression(program, name)
        try:
            nvrtc.compileProgram(program, nvrtc_options(arch, KERNEL_OPTIONS + tuple(options)))
        except nvrtc.NVRTCError as e:
            log = nvrtc.getProgramLog(program) or str(e)
            return CompileResult(path, arch, False, log=log,
                                 seconds=time.perf_counter() - start)
        log = nvrtc.getProgramLog(program)
        lowered = {name: nvrtc.getLoweredName(program, name) for name in names}
        cubin = nvrtc.getCUBIN(program)
    finally:
        nvrtc.destroyProgram(program)
    return CompileResult(path, arch, not log.strip(), log=log, lowered_names=lowered,
                         cubin_size=len(cubin), seconds=time.perf_counter() - start)


def archs_from_env():
    """``ARCHS``, or the comma-separated list of ``AUTOGRAD_CY_CUDA_ARCH``."""
    value = os.environ.get(ARCH_ENV, "").strip()
    return tuple(int(a) for a in value.replace(",", " ").split()) if value else ARCHS


def unlisted_files():
    """The ``.cu`` files of ``cuda/`` that the manifest does not name."""
    listed = set(name_expressions_by_file())
    return [f for f in kernel_files() if f not in listed]


def check(archs=None):
    """Compile every manifest file for every architecture; returns the results, one per
    file and architecture, then one failed result per unlisted ``.cu``. NVRTC releases the
    GIL while it compiles, so the files compile in parallel threads."""
    archs = tuple(archs) if archs else archs_from_env()
    _nvrtc()  # fail once, with the install hint, before any thread starts
    jobs = [(kernel_path(file), names, arch)
            for file, names in name_expressions_by_file().items() for arch in archs]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = list(pool.map(lambda job: compile_kernel_file(*job), jobs))
    for file in unlisted_files():
        results.append(CompileResult(kernel_path(file), 0, False, log=(
            f"{kernel_path(file)}: no kernel of this file is in the manifest "
            f"(autograd_cy/cuda/manifest.py), so nothing compiles or checks it")))
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m autograd_cy.cuda.compile_check",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--arch", action="append", type=int,
                        help=f"compute capability, e.g. 80 (repeatable; default {ARCH_ENV} "
                             f"or {','.join(map(str, ARCHS))})")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        results = check(args.arch)
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 2
    for result in results:
        print(result.line() if result.arch else f"FAIL {os.path.basename(result.path)}")
        if result.log.strip():
            print(result.log.rstrip())
    failed = sum(not r.ok for r in results)
    print(f"{len(results) - failed} ok, {failed} failed in {time.perf_counter() - start:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
