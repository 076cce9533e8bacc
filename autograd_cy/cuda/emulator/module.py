"""The kernels of a ``.cu`` file on the CPU, with the call shape of ``cupy.RawModule``:

    mod = CpuModule(path=kernel_path("reduction.cu"), options=include_options(),
                    name_expressions=["sum_last<float>"])
    kernel = mod.get_function("sum_last<float>")
    kernel((blocks,), (threads,), (x, out, np.int64(n)), shared_mem=threads * 4)

g++ compiles the unchanged source against ``cuda_cpu.h`` into a shared library, once: the
library is cached on disk under a hash of everything that goes into it (CACHE).

NumPy arrays stand in for CuPy arrays: a pointer parameter receives the array's data
pointer (its element 0, so a negative-stride view works). Every argument is checked
against the kernel's C++ parameter type, as CuPy does not: an array must hold the pointee
type, a scalar must be a NumPy scalar of exactly the parameter's type (a Python int or
float is refused: CuPy passes it as 8 bytes, which a 4-byte parameter misreads), and a
struct passed by value must be a NumPy structured scalar of the struct's size.

What goes wrong while a kernel runs raises CpuKernelError naming the ``.cu`` line: divergent
or deadlocked barriers, warp collectives whose mask names lanes that exited or are
elsewhere, writes past the dynamic shared memory of the launch, and threads that exit
before the rest of their block reaches a barrier (a warning, which ``allow_warnings``
turns into a Python warning).

Sanitizers: ``sanitize="thread"`` (ThreadSanitizer: races between the threads of a block
that no barrier orders) or ``"address"`` (AddressSanitizer: out-of-bounds accesses to
the arrays) builds the library with that sanitizer. Its runtime must be loaded before
anything else, so such a library works only in a Python started with
``env=sanitizer_env(kind)``; the env variable SANITIZE_ENV makes every CpuModule of that
process sanitized unless told otherwise, which is how ``make sanitize`` runs the kernel
tests.
"""
import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(HERE, "cuda_cpu.h")
SHIM = os.path.join(HERE, "shim")  # stand-ins for the CUDA headers kernels include
CACHE = os.environ.get("AUTOGRAD_CY_EMULATOR_CACHE",
                       os.path.join(tempfile.gettempdir(), "autograd_cy-emulator"))
CXX = os.environ.get("CXX", "g++")
# -fno-gnu-unique and -Bsymbolic: each library keeps its own scheduler state and shared
# memory buffer, however many are loaded at once.
FLAGS = ("-std=c++20", "-O1", "-g", "-fPIC", "-shared", "-pthread", "-fno-gnu-unique",
         "-Wl,-Bsymbolic", "-Wno-unknown-pragmas", "-Wno-attributes")
SANITIZE_ENV = "AUTOGRAD_CY_EMULATOR_SANITIZE"
# kind -> (runtime library, a symbol that is there once the runtime is loaded)
SANITIZERS = {"thread": ("libtsan.so", "__tsan_init"), "address": ("libasan.so", "__asan_init")}

_EXTERN_SHARED = re.compile(r"\bextern\s+__shared__\b")
_DYNAMIC_SHARED_NAME = re.compile(r"\bextern\s+__shared__\b[^;]*?(\w+)\s*\[\s*\]\s*;")
_build_lock = threading.Lock()


class CpuKernelError(RuntimeError):
    """A kernel that does not build, or a launch that went wrong (see the module docstring)."""


def sanitizer_env(kind="thread"):
    """The environment of a Python subprocess whose emulated kernels run under the sanitizer
    ``kind`` ("thread" or "address"): its runtime preloaded, SANITIZE_ENV set, and options
    that suit a Python host. TSan reports every race and carries on, and the process exits
    with 66 if it reported any; ASan stops at the first error with exit status 67."""
    library, _ = SANITIZERS[kind]
    paths = []
    # libstdc++ right after the runtime: the runtime looks up the C++ functions it wraps
    # (__cxa_throw) when it starts, and Python itself does not load libstdc++; without it
    # the first C++ exception of torch or NumPy's C++ parts would abort the process.
    for name in (library, "libstdc++.so.6"):
        path = subprocess.run([CXX, f"-print-file-name={name}"], capture_output=True,
                              text=True).stdout.strip()
        if not os.path.isabs(path):
            raise CpuKernelError(f"{CXX} has no {name}: install the sanitizer runtime")
        paths.append(os.path.realpath(path))
    env = dict(os.environ, LD_PRELOAD=" ".join(paths), **{SANITIZE_ENV: kind})
    # ignore_noninstrumented_modules: only our kernels are instrumented; the memcpy calls
    # of NumPy or torch threads are none of TSan's business here.
    env.setdefault("TSAN_OPTIONS", "halt_on_error=0 exitcode=66 report_signal_unsafe=0 "
                                   "ignore_noninstrumented_modules=1")
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0 exitcode=67")
    return env


def _sanitize_default(sanitize):
    """``sanitize``, or SANITIZE_ENV's value when it is None; checked against SANITIZERS."""
    if sanitize is None:
        sanitize = os.environ.get(SANITIZE_ENV) or None
    if sanitize is not None and sanitize not in SANITIZERS:
        raise ValueError(f"sanitize must be one of {sorted(SANITIZERS)} or None, "
                         f"got {sanitize!r}")
    if sanitize and not hasattr(ctypes.CDLL(None), SANITIZERS[sanitize][1]):
        raise CpuKernelError(
            f"a library built with -fsanitize={sanitize} loads only into a process started "
            f"with the sanitizer's runtime: run Python in a subprocess with "
            f"env=sanitizer_env({sanitize!r})")
    return sanitize


def dtype_code(dtype):
    """The emulator's name of a NumPy dtype, as cuda_cpu.h's type_code names a C++ type:
    kind and size, e.g. "f4" for float32 and float, "c8" for complex64 and Complex<float>,
    "V328" for a 328-byte struct, and "bf2" for bfloat16 and __nv_bfloat16."""
    dtype = np.dtype(dtype)
    if dtype.name == "bfloat16":    # ml_dtypes' bfloat16, kind "V": a struct, but named
        return "bf2"
    return {"f": "f", "i": "i", "u": "u", "b": "b", "c": "c", "V": "V"}.get(dtype.kind, "?") + \
        str(dtype.itemsize)


def _header_files(options):
    """The headers in the -I folders of ``options``: they go into the cache key with the
    source, so that editing a shared header rebuilds its users."""
    found = []
    for option in options:
        folder = option[2:]
        if option.startswith("-I") and os.path.isdir(folder):
            found += sorted(os.path.join(folder, f) for f in os.listdir(folder)
                            if f.endswith((".cuh", ".h")))
    return found


def _read(path):
    with open(path) as f:
        return f.read()


def _build(source, harness, flags, headers, label):
    """The path of the library of ``source`` + ``harness`` built with ``flags``: from the
    cache (keyed by those, cuda_cpu.h and the texts of the ``headers`` the source may
    include), or compiled in a private folder and moved into the cache in one rename, so
    that processes building the same library at once do not trip over each other."""
    key = hashlib.sha256("\0".join([_read(HEADER), source, harness, *flags, *headers]).encode())
    library = os.path.join(CACHE, key.hexdigest()[:20] + ".so")
    with _build_lock:
        if os.path.exists(library):
            return library
        os.makedirs(CACHE, exist_ok=True)
        folder = tempfile.mkdtemp(dir=CACHE, prefix="build-")
        try:
            with open(os.path.join(folder, "kernel.cu"), "w") as f:
                f.write(source)
            with open(os.path.join(folder, "harness.cpp"), "w") as f:
                f.write('#include "kernel.cu"\n' + harness)
            command = [CXX, *flags, "-include", HEADER, "-I", SHIM, "harness.cpp",
                       "-o", "kernels.so"]
            result = subprocess.run(command, cwd=folder, capture_output=True, text=True)
            if result.returncode:
                raise CpuKernelError(f"g++ failed for {label}:\n{result.stderr}")
            os.replace(os.path.join(folder, "kernels.so"), library)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return library


class CpuModule:
    """The kernels of one ``.cu`` source (``code``, or the file at ``path``), instantiated
    for ``name_expressions``; ``options`` are NVRTC's (-D, -U and -I apply, the others are
    NVRTC's business). See the module docstring for ``sanitize`` and ``allow_warnings``."""

    def __init__(self, code=None, path=None, options=(), name_expressions=(), sanitize=None,
                 allow_warnings=False, name="kernel.cu"):
        if code is None:
            code = _read(path)
        self.path = os.path.abspath(path) if path else name
        self.names = list(name_expressions)
        self.allow_warnings = allow_warnings
        self.sanitize = _sanitize_default(sanitize)
        # NOTE [extern __shared__]
        # cuda_cpu.h defines __shared__ as `static`, and `extern static` is not C++. The
        # source keeps its lines (errors and sanitizer reports name them through #line),
        # minus the word __shared__ after extern; the linker then points each such array
        # at the one dynamic shared-memory buffer of the library (--defsym).
        dynamic_shared = sorted(set(_DYNAMIC_SHARED_NAME.findall(code)))
        source = f'#line 1 "{self.path}"\n' + _EXTERN_SHARED.sub("extern", code)
        flags = list(FLAGS) + [o for o in options if o.startswith(("-D", "-U", "-I"))]
        flags += [f"-Wl,--defsym={n}=cucpu_dyn_smem_buf" for n in dynamic_shared]
        if self.sanitize:
            flags += [f"-fsanitize={self.sanitize}", "-fno-omit-frame-pointer"]
        harness = "".join(f"CUCPU_REGISTER({n})\n" for n in self.names) + "CUCPU_EXPORTS\n"
        headers = [_read(h) for h in _header_files(options)]
        self.library = library = _build(source, harness, flags, headers, self.path)
        self.lib = lib = ctypes.CDLL(library)
        lib.cucpu_name.restype = lib.cucpu_signature.restype = ctypes.c_char_p
        lib.cucpu_launch.argtypes = [ctypes.c_int] + [ctypes.c_uint] * 6 + [
            ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_size_t]
        self._index = {}
        for i in range(lib.cucpu_count()):
            sig = lib.cucpu_signature(i).decode()
            self._index[lib.cucpu_name(i).decode()] = (i, sig.split(",") if sig else [])
        self._register_static_shared(library)

    def _register_static_shared(self, library):
        """Hand the launcher the kernels' static ``__shared__`` arrays (function-local
        statics, found with nm), so that it fills them with 0xFF before each block as it
        fills the dynamic buffer: a block that reads shared memory it did not write reads
        NaN (or -1), never what the previous block left there."""
        demangled = subprocess.run(["nm", "-C", "-S", "--defined-only", library],
                                   capture_output=True, text=True).stdout
        raw = subprocess.run(["nm", "--defined-only", library],
                             capture_output=True, text=True).stdout
        # the library's load address: where cucpu_count is, less where nm says it is
        anchor = int(re.search(r"^([0-9a-f]+) T cucpu_count$", raw, re.M).group(1), 16)
        base = ctypes.cast(self.lib.cucpu_count, ctypes.c_void_p).value - anchor
        addresses, sizes = [], []
        for line in demangled.splitlines():
            m = re.match(r"^([0-9a-f]+) ([0-9a-f]+) [bBdDvVu] (.*\)::\w+)$", line)
            if m and not m.group(3).startswith(("std::", "__gnu_cxx::", "cucpu::",
                                                "guard variable")):
                addresses.append(base + int(m.group(1), 16))
                sizes.append(int(m.group(2), 16))
        self.static_shared = n = len(addresses)
        self.lib.cucpu_set_static_smem((ctypes.c_void_p * n)(*addresses),
                                       (ctypes.c_size_t * n)(*sizes), n, 0xFF)

    def get_function(self, name):
        """The kernel of one name expression (as given, e.g. ``"unary<float, Exp>"``)."""
        if name not in self._index:
            raise CpuKernelError(f"{name} is not among the name expressions {self.names}")
        return CpuKernel(self, name, *self._index[name])


def _launch_dims(dims):
    """A grid or block as CuPy takes it (an int or a tuple of up to 3), as 3 ints."""
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if not 1 <= len(dims) <= 3 or not all(isinstance(d, (int, np.integer)) for d in dims):
        raise TypeError(f"launch dimensions must be an int or a tuple of 1 to 3 ints, "
                        f"got {dims!r}")
    return tuple(int(d) for d in dims) + (1,) * (3 - len(dims))


class CpuKernel:
    """One kernel: call it as a ``cupy.RawKernel``, ``kernel(grid, block, args, shared_mem=0)``."""

    def __init__(self, module, name, index, sig):
        self.module, self.name, self.index = module, name, index
        self.sig = sig  # the parameters' type codes (dtype_code; "P" + pointee for pointers)

    def _pack(self, i, code, arg, keep):
        """A pointer to a copy of argument ``i`` as the parameter of type ``code`` reads it."""
        if code.startswith("P"):
            pointee = code[1:]  # "" for void* and pointers to structs: any array
            if arg is None:
                buffer = ctypes.c_void_p(0)
            elif isinstance(arg, np.ndarray):
                if pointee and dtype_code(arg.dtype) != pointee:
                    raise TypeError(f"{self.name} argument {i}: an array of {arg.dtype} for a "
                                    f"pointer to {pointee}")
                buffer = ctypes.c_void_p(arg.ctypes.data)
            else:
                raise TypeError(f"{self.name} argument {i}: expected an array for a pointer, "
                                f"got {type(arg).__name__}")
        elif isinstance(arg, np.generic):
            if dtype_code(arg.dtype) != code:
                raise TypeError(f"{self.name} argument {i}: a {arg.dtype} scalar "
                                f"({dtype_code(arg.dtype)}) for a parameter of type {code}")
            buffer = ctypes.create_string_buffer(arg.tobytes(), max(8, arg.nbytes))
        else:
            raise TypeError(f"{self.name} argument {i}: pass a NumPy scalar of type {code}, "
                            f"not {type(arg).__name__} (CuPy would pass 8 bytes)")
        keep.append(buffer)
        return ctypes.cast(ctypes.pointer(buffer), ctypes.c_void_p)

    def __call__(self, grid, block, args, shared_mem=0):
        grid, block = _launch_dims(grid), _launch_dims(block)
        if len(args) != len(self.sig):
            raise TypeError(f"{self.name} takes {len(self.sig)} arguments "
                            f"({','.join(self.sig)}), got {len(args)}")
        keep = []  # the argument buffers live until the launch returns
        argv = (ctypes.c_void_p * max(1, len(args)))(
            *[self._pack(i, code, arg, keep)
              for i, (code, arg) in enumerate(zip(self.sig, args))])
        message = ctypes.create_string_buffer(8192)
        status = self.module.lib.cucpu_launch(self.index, *grid, *block, int(shared_mem), argv,
                                              message, len(message))
        text = message.value.decode().strip()
        if status == 1 or (status == 2 and not self.module.allow_warnings):
            raise CpuKernelError(f"{self.name}: {text}")
        if status == 2:
            warnings.warn(f"{self.name}: {text}", RuntimeWarning, stacklevel=2)
