"""The compile check: every kernel file compiles for every target GPU, without a GPU, with
NVRTC and with nvcc.

For each file of the manifest (``name_expressions_by_file()``) and each architecture of
``ARCHS`` (the env ``AUTOGRAD_CY_CUDA_ARCH``, e.g. ``80`` or ``75,90``, or ``--arch``
overrides), NVRTC compiles the file with all its name expressions and the options that
``cupy.RawModule`` would hand it (``nvrtc_options``), and nvcc compiles it with the host's
headers in view (NOTE [nvcc beside NVRTC]). A ``.cu`` of ``cuda/`` that the manifest does
not list fails too: it would never be compiled, so never checked. So does a warning: the
kernels compile clean.

    python -m autograd_cy.cuda.check_kernels [--arch 80 ...]

(``main`` here) prints one line per file and architecture and exits 1 on any failure,
after NVRTC's log (which names the ``.cu`` file and line). ``compile_kernel_file`` is the
one NVRTC compile step; the GPU loader and the tests call it too. ``compile_with_nvcc`` is
nvcc's. Results are cached on disk (CACHE), keyed by everything a compile depends on: an
unchanged file is not compiled again.

NVRTC is reached through ``cupy.cuda.nvrtc`` directly: RawModule itself asks the driver
for the device's architecture, and there is no device here.
"""
import argparse
import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache

from autograd_cy.cuda.manifest import name_expressions_by_file
from autograd_cy.cuda.sources import KERNEL_OPTIONS, kernel_files, kernel_path

# Turing (T4), Ampere (A100), Hopper (H100): the oldest GPU we support and the newest.
ARCHS = (75, 80, 90)
ARCH_ENV = "AUTOGRAD_CY_CUDA_ARCH"
CACHE = os.environ.get("AUTOGRAD_CY_NVRTC_CACHE",
                       os.path.join(tempfile.gettempdir(), "autograd_cy-nvrtc"))


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
    cached: bool = False  # the result of an identical earlier compile (see CACHE)
    compiler: str = "nvrtc"  # or "nvcc"; cubin_size is then the object file's size

    def line(self):
        """The one-line summary the CLI prints."""
        status = "ok  " if self.ok else "FAIL"
        output = "cubin" if self.compiler == "nvrtc" else "object"
        kernels = f"{len(self.lowered_names)} kernels, " if self.lowered_names else ""
        detail = (f"{kernels}{self.cubin_size / 1024:.0f} KiB {output}"
                  if self.ok else ("warnings" if self.cubin_size else "errors"))
        return (f"{status} {os.path.basename(self.path):28s} sm_{self.arch}  "
                f"{self.compiler:5s}  {detail}"
                f"  ({'cached' if self.cached else f'{self.seconds:.1f} s'})")


def _cache_key(path, source, names, options, version):
    """What a compile depends on: the source and its path (the log names it), the headers
    it can include (those of the -I folders and of its own folder), the name expressions,
    the options and the compiler's version."""
    folders = [o[2:] for o in options if o.startswith("-I")] + [os.path.dirname(path)]
    parts = [path, source, *names, *options, version]
    for folder in folders:
        if os.path.isdir(folder):
            for header in sorted(os.listdir(folder)):
                if header.endswith((".cuh", ".h")):
                    with open(os.path.join(folder, header)) as f:
                        parts += [header, f.read()]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def _run_nvrtc(nvrtc, source, path, names, options):
    """One NVRTC compile: (ok, log, {name expression: lowered name}, cubin bytes)."""
    # The program is named by its path, so the log reads "<path>(<line>): error: ...".
    program = nvrtc.createProgram(source, path, (), ())
    try:
        for name in names:
            nvrtc.addNameExpression(program, name)
        try:
            nvrtc.compileProgram(program, options)
        except nvrtc.NVRTCError as e:
            return False, nvrtc.getProgramLog(program) or str(e), {}, b""
        lowered = {name: nvrtc.getLoweredName(program, name) for name in names}
        return True, nvrtc.getProgramLog(program), lowered, nvrtc.getCUBIN(program)
    finally:
        nvrtc.destroyProgram(program)


def compile_kernel_file(path, names, arch, options=(), use_cache=True):
    """Compile ``path`` with NVRTC for ``sm_<arch>``, instantiating every name expression of
    ``names``; ``options`` come after ``KERNEL_OPTIONS`` (e.g. ``-D`` macros). The result
    is ok when NVRTC succeeds without a word in its log.

    A file of a few hundred instantiations takes NVRTC tens of seconds per architecture, so
    results are kept in CACHE under a hash of everything the compile depends on
    (``use_cache=False`` compiles regardless)."""
    nvrtc = _nvrtc()
    start = time.perf_counter()
    try:
        with open(path) as f:
            source = f.read()
    except OSError as e:
        return CompileResult(path, arch, False, log=f"{path}: cannot read: {e.strerror}")
    options = nvrtc_options(arch, KERNEL_OPTIONS + tuple(options))
    key = _cache_key(path, source, names, options, repr(nvrtc.getVersion()))
    cached = os.path.join(CACHE, key + ".json")
    if use_cache and os.path.exists(cached):
        with open(cached) as f:
            return CompileResult(**json.load(f), cached=True,
                                 seconds=time.perf_counter() - start)
    ok, log, lowered, cubin = _run_nvrtc(nvrtc, source, path, names, options)
    result = CompileResult(path, arch, ok and not log.strip(), log=log,
                           lowered_names=lowered, cubin_size=len(cubin))
    _store(result, cached)
    result.seconds = time.perf_counter() - start
    return result


def _store(result, cached):
    """Keep ``result`` in the cache file ``cached``, written in one step: a parallel reader
    sees all of it or nothing."""
    os.makedirs(CACHE, exist_ok=True)
    partial = f"{cached}.{os.getpid()}.{threading.get_ident()}"
    with open(partial, "w") as f:
        json.dump({k: v for k, v in dataclasses.asdict(result).items()
                   if k not in ("seconds", "cached")}, f)
    os.replace(partial, cached)


# NOTE [nvcc beside NVRTC]
# NVRTC compiles device code alone, with the few headers CuPy hands it. nvcc compiles a .cu
# file as a user's CuPy set to compile with nvcc would (or a future NVRTC that sees more
# headers): host and device code, with the host's C++ library in view. A name that the math
# library also declares can then conflict (a global remainder(float, float) met
# std::remainder: NOTE [Helpers in namespace agcy] in cuda/elementwise.cu), which NVRTC
# never shows. nvcc has no name expressions: its translation unit includes the file and
# takes the address of every name expression, which instantiates each kernel just as NVRTC
# does for the loader.
NVCC_ENV = "AUTOGRAD_CY_NVCC"
MISSING_NVCC = ("the compile check runs nvcc too (a test dependency): pip install -e '.[test]' "
                f"installs nvidia-cuda-nvcc, or set {NVCC_ENV} to an nvcc")


@lru_cache(maxsize=None)
def nvcc_command():
    """The nvcc to run and its version: $AUTOGRAD_CY_NVCC, else the one of the
    nvidia-cuda-nvcc wheel (the test extra), else one on PATH; or a RuntimeError that says
    what to install."""
    candidates = [os.environ.get(NVCC_ENV)]
    try:
        import nvidia           # the namespace package of NVIDIA's wheels
        candidates += [os.path.join(folder, "cu13", "bin", "nvcc") for folder in nvidia.__path__]
    except ImportError:
        pass
    candidates.append(shutil.which("nvcc"))
    for nvcc in filter(None, candidates):
        if os.access(nvcc, os.X_OK):
            version = subprocess.run([nvcc, "--version"], capture_output=True, text=True)
            return nvcc, version.stdout.strip().splitlines()[-1]
    raise RuntimeError(MISSING_NVCC)


def nvcc_translation_unit(path, names):
    """The file at ``path`` with every name expression of ``names`` instantiated."""
    lines = [f'#include "{path}"', "extern void* const agcy_instances[];",
             "void* const agcy_instances[] = {"]
    lines += [f"    (void*)&{name}," for name in names]
    return "\n".join(lines + ["};", ""])


def compile_with_nvcc(path, names, arch, options=(), use_cache=True):
    """Compile ``path`` with nvcc for ``sm_<arch>`` (NOTE [nvcc beside NVRTC]), with every
    name expression of ``names``, ``KERNEL_OPTIONS`` and ``options``. Ok when nvcc succeeds
    without a word; cached as ``compile_kernel_file``'s results are."""
    nvcc, version = nvcc_command()
    start = time.perf_counter()
    try:
        with open(path) as f:
            source = f.read()
    except OSError as e:
        return CompileResult(path, arch, False, log=f"{path}: cannot read: {e.strerror}",
                             compiler="nvcc")
    options = KERNEL_OPTIONS + tuple(options) + (f"-arch=sm_{arch}",)
    key = _cache_key(path, source, names, ("nvcc",) + options, version)
    cached = os.path.join(CACHE, key + ".json")
    if use_cache and os.path.exists(cached):
        with open(cached) as f:
            return CompileResult(**json.load(f), cached=True,
                                 seconds=time.perf_counter() - start)
    with tempfile.TemporaryDirectory(prefix="autograd_cy-nvcc-") as folder:
        unit, output = os.path.join(folder, "instances.cu"), os.path.join(folder, "instances.o")
        with open(unit, "w") as f:
            f.write(nvcc_translation_unit(path, names))
        run = subprocess.run([nvcc, *options, "-c", unit, "-o", output],
                             capture_output=True, text=True)
        log = (run.stdout + run.stderr).strip()
        size = os.path.getsize(output) if run.returncode == 0 else 0
    result = CompileResult(path, arch, run.returncode == 0 and not log, log=log,
                           cubin_size=size, compiler="nvcc")
    _store(result, cached)
    result.seconds = time.perf_counter() - start
    return result


def cubin_for(path, names, arch):
    """A cubin of ``path`` for ``sm_<arch>`` on disk (in CACHE) and its lowered names: what
    the loader loads when ``AUTOGRAD_CY_CUDA_ARCH`` overrides the device's architecture
    (CuPy's RawModule always compiles for the device's own)."""
    nvrtc = _nvrtc()
    with open(path) as f:
        source = f.read()
    options = nvrtc_options(arch)
    key = _cache_key(path, source, names, options, repr(nvrtc.getVersion()))
    cubin_path = os.path.join(CACHE, key + ".cubin")
    names_path = os.path.join(CACHE, key + ".names.json")
    if not (os.path.exists(cubin_path) and os.path.exists(names_path)):
        ok, log, lowered, cubin = _run_nvrtc(nvrtc, source, path, names, options)
        if not ok:
            raise RuntimeError(f"NVRTC failed for {path} (sm_{arch}):\n{log}")
        os.makedirs(CACHE, exist_ok=True)
        for target, write in ((cubin_path, lambda f: f.write(cubin)),
                              (names_path, lambda f: f.write(json.dumps(lowered).encode()))):
            partial = f"{target}.{os.getpid()}.{threading.get_ident()}"
            with open(partial, "wb") as f:
                write(f)
            os.replace(partial, target)
    with open(names_path) as f:
        return cubin_path, json.load(f)


def archs_from_env():
    """``ARCHS``, or the comma-separated list of ``AUTOGRAD_CY_CUDA_ARCH``."""
    value = os.environ.get(ARCH_ENV, "").strip()
    return tuple(int(a) for a in value.replace(",", " ").split()) if value else ARCHS


def unlisted_files():
    """The ``.cu`` files of ``cuda/`` that the manifest does not name."""
    listed = set(name_expressions_by_file())
    return [f for f in kernel_files() if f not in listed]


def check(archs=None):
    """Compile every manifest file for every architecture with NVRTC and with nvcc; returns
    the results, one per file, architecture and compiler, then one failed result per
    unlisted ``.cu``. NVRTC releases the GIL while it compiles and nvcc is a process of its
    own, so the files compile in parallel threads."""
    archs = tuple(archs) if archs else archs_from_env()
    _nvrtc()  # fail once, with the install hint, before any thread starts
    nvcc_command()
    jobs = [(compile, kernel_path(file), names, arch)
            for file, names in name_expressions_by_file().items() for arch in archs
            for compile in (compile_kernel_file, compile_with_nvcc)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = list(pool.map(lambda job: job[0](*job[1:]), jobs))
    for file in unlisted_files():
        results.append(CompileResult(kernel_path(file), 0, False, log=(
            f"{kernel_path(file)}: no kernel of this file is in the manifest "
            f"(autograd_cy/cuda/manifest.py), so nothing compiles or checks it")))
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m autograd_cy.cuda.check_kernels",
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
