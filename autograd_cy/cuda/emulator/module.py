"""Run a .cu file's kernels on the CPU through cuda_cpu.h, with the call shape of cupy.RawModule:

    mod = CpuModule(path="kernels/reduce.cu", name_expressions=["reduce_sum<float,float>"])
    k = mod.get_function("reduce_sum<float,float>")
    k((blocks,), (threads,), (x, partial, np.int64(n)), shared_mem=threads * 4)

NumPy arrays stand in for CuPy arrays (their data pointer is passed). Arguments are checked
against the kernel's C++ parameter types: arrays must match the pointee type, scalars must be
NumPy scalars of the exact type (a Python int or float is refused: CuPy would pass it as 8
bytes, which a 4-byte parameter misreads). Errors found while the kernel runs (divergent or
deadlocked barriers, bad warp masks, writes past the dynamic shared memory) raise
CpuKernelError; warnings (threads exiting before a barrier) raise too unless allow_warnings.
sanitize="thread" or "address" builds with that sanitizer; such a library loads only in a
Python started with the runtime preloaded: see sanitizer_env().
"""
import ctypes
import hashlib
import os
import re
import subprocess
import threading

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(HERE, "cuda_cpu.h")
SHIM = os.path.join(HERE, "shim")
CACHE = os.environ.get("AUTOGRAD_CY_EMULATOR_CACHE",
                       os.path.join(__import__("tempfile").gettempdir(), "autograd_cy-emulator"))
CXX = os.environ.get("CXX", "g++")
FLAGS = ["-std=c++20", "-O1", "-g", "-fPIC", "-shared", "-pthread", "-fno-gnu-unique",
         "-Wl,-Bsymbolic", "-Wno-unknown-pragmas", "-Wno-attributes"]
_EXTERN_SHARED = re.compile(r"\bextern\s+__shared__\b")
_DYN_NAME = re.compile(r"\bextern\s+__shared__\b[^;]*?(\w+)\s*\[\s*\]\s*;")
_lock = threading.Lock()


class CpuKernelError(RuntimeError):
    pass


def sanitizer_env(kind="thread"):
    """Environment for a subprocess that loads a sanitized library: LD_PRELOAD of the runtime."""
    lib = {"thread": "libtsan.so", "address": "libasan.so"}[kind]
    path = subprocess.run([CXX, f"-print-file-name={lib}"], capture_output=True, text=True).stdout.strip()
    env = dict(os.environ, LD_PRELOAD=os.path.realpath(path))
    env.setdefault("TSAN_OPTIONS", "halt_on_error=1 exitcode=66 report_signal_unsafe=0")
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0 exitcode=67")
    return env


def _dtype_code(dt):
    dt = np.dtype(dt)
    return {"f": "f", "i": "i", "u": "u", "b": "b", "V": "V"}.get(dt.kind, "?") + str(dt.itemsize)


def _included_headers(options):
    """The .cuh files of the -I folders: part of the cache key, as the source is."""
    found = []
    for option in options:
        if option.startswith("-I") and os.path.isdir(option[2:]):
            folder = option[2:]
            found += sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".cuh"))
    return found


class CpuModule:
    def __init__(self, code=None, path=None, options=(), name_expressions=(), sanitize=None,
                 allow_warnings=False, name="kernel.cu"):
        if code is None:
            code = open(path).read()
        self.path = os.path.abspath(path) if path else name
        self.names = list(name_expressions)
        self.allow_warnings = allow_warnings
        dyn = sorted(set(_DYN_NAME.findall(code)))
        src = f'#line 1 "{self.path}"\n' + _EXTERN_SHARED.sub("extern", code)
        defines = [o for o in options if o.startswith(("-D", "-U", "-I"))]  # NVRTC ones that apply
        flags = FLAGS + defines + [f"-Wl,--defsym={n}=cucpu_dyn_smem_buf" for n in dyn]
        if sanitize:
            flags += [f"-fsanitize={sanitize}"]
        harness = "".join(f"CUCPU_REGISTER({n})\n" for n in self.names) + "CUCPU_EXPORTS\n"
        headers = [open(h).read() for h in _included_headers(options)]
        key = hashlib.sha256("\0".join([open(HEADER).read(), src, harness] + headers + flags).encode()).hexdigest()[:16]
        d = os.path.join(CACHE, key)
        so = os.path.join(d, "kernels.so")
        with _lock:
            if not os.path.exists(so):
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, "kernel.cu"), "w") as f:
                    f.write(src)
                with open(os.path.join(d, "harness.cpp"), "w") as f:
                    f.write('#include "kernel.cu"\n' + harness)
                cmd = [CXX, *flags, "-include", HEADER, "-I", SHIM, "harness.cpp", "-o", "kernels.so.tmp"]
                r = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
                if r.returncode:
                    raise CpuKernelError(f"g++ failed for {self.path}:\n{r.stderr}")
                os.replace(os.path.join(d, "kernels.so.tmp"), so)
        self.lib = lib = ctypes.CDLL(so)
        lib.cucpu_name.restype = lib.cucpu_signature.restype = ctypes.c_char_p
        lib.cucpu_launch.argtypes = [ctypes.c_int] + [ctypes.c_uint] * 6 + [
            ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_size_t]
        self._index = {lib.cucpu_name(i).decode(): (i, lib.cucpu_signature(i).decode().split(","))
                       for i in range(lib.cucpu_count())}
        self._register_static_shared(so)

    def _register_static_shared(self, so):
        """Find the kernels' `__shared__` (function-local static) arrays with nm, so that the
        launcher fills them with 0xFF before each block, like the dynamic buffer."""
        out = subprocess.run(["nm", "-C", "-S", "--defined-only", so], capture_output=True, text=True).stdout
        raw = subprocess.run(["nm", "--defined-only", so], capture_output=True, text=True).stdout
        base_sym = int(re.search(r"^([0-9a-f]+) T cucpu_count$", raw, re.M).group(1), 16)
        base = ctypes.cast(self.lib.cucpu_count, ctypes.c_void_p).value - base_sym
        ptrs, sizes = [], []
        for line in out.splitlines():
            m = re.match(r"^([0-9a-f]+) ([0-9a-f]+) [bBdDvVu] (.*\)::\w+)$", line)
            if m and not m.group(3).startswith(("std::", "__gnu_cxx::", "cucpu::", "guard variable")):
                ptrs.append(base + int(m.group(1), 16))
                sizes.append(int(m.group(2), 16))
        self.static_shared = len(ptrs)
        n = len(ptrs)
        self.lib.cucpu_set_static_smem((ctypes.c_void_p * n)(*ptrs), (ctypes.c_size_t * n)(*sizes), n, 0xFF)

    def get_function(self, name):
        if name not in self._index:
            raise CpuKernelError(f"{name} is not among the name expressions {self.names}")
        return CpuKernel(self, name, *self._index[name])


class CpuKernel:
    def __init__(self, module, name, index, sig):
        self.module, self.name, self.index, self.sig = module, name, index, sig

    def _pack(self, i, code, a, keep):
        if code.startswith("P"):
            if a is None:
                buf = ctypes.c_void_p(0)
            elif isinstance(a, np.ndarray):
                if len(code) > 1 and _dtype_code(a.dtype) != code[1:]:
                    raise TypeError(f"{self.name} arg {i}: array of {a.dtype} for a pointer to {code[1:]}")
                buf = ctypes.c_void_p(a.ctypes.data)
            else:
                raise TypeError(f"{self.name} arg {i}: expected an array for a pointer, got {type(a).__name__}")
        elif isinstance(a, np.generic):
            if _dtype_code(a.dtype) != code:
                raise TypeError(f"{self.name} arg {i}: {a.dtype} scalar for a parameter of type {code}")
            buf = ctypes.create_string_buffer(a.tobytes(), max(8, a.nbytes))
        else:
            raise TypeError(f"{self.name} arg {i}: pass a NumPy scalar of type {code}, "
                            f"not {type(a).__name__} (CuPy would pass 8 bytes)")
        keep.append(buf)
        return ctypes.cast(ctypes.pointer(buf), ctypes.c_void_p)

    def __call__(self, grid, block, args, shared_mem=0):
        grid = (tuple(grid) + (1, 1))[:3] if isinstance(grid, tuple) else (grid, 1, 1)
        block = (tuple(block) + (1, 1))[:3] if isinstance(block, tuple) else (block, 1, 1)
        if len(args) != len(self.sig):
            raise TypeError(f"{self.name} takes {len(self.sig)} arguments ({','.join(self.sig)}), got {len(args)}")
        keep = []
        argv = (ctypes.c_void_p * max(1, len(args)))(*[self._pack(i, c, a, keep)
                                                       for i, (c, a) in enumerate(zip(self.sig, args))])
        err = ctypes.create_string_buffer(8192)
        rc = self.module.lib.cucpu_launch(self.index, *grid, *block, shared_mem, argv, err, len(err))
        msg = err.value.decode()
        if rc == 1 or (rc == 2 and not self.module.allow_warnings):
            raise CpuKernelError(f"{self.name}: {msg.strip()}")
