"""Build: cythonize pyx/**/*.pyx into extension modules under autograd_cy/_C/.

`pyx/tensor.pyx` becomes `autograd_cy._C.tensor`, `pyx/ops/pointwise.pyx` becomes
`autograd_cy._C.ops.pointwise`. Cython resolves `cimport autograd_cy._C.tensor` by
looking for `autograd_cy/_C/tensor.pxd` on its include path, so the build mirrors
pyx/ into build/src/autograd_cy/_C/ with symbolic links and compiles from there;
the sources stay where a reader expects them, in pyx/.
"""
import os
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
PYX = HERE / "pyx"
MIRROR_ROOT = HERE / "build" / "src"
MIRROR = MIRROR_ROOT / "autograd_cy" / "_C"


def mirror_sources():
    """Link every pyx/**/*.pyx and *.pxd into the mirror; return the .pyx links."""
    links = []
    for source in sorted(PYX.rglob("*.p[xy][dx]")):
        link = MIRROR / source.relative_to(PYX)
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(source)
        if source.suffix == ".pyx":
            links.append(link)
    return links


# -ftls-model=initial-exec: the thread-local flags (grad mode, the batched switches, ...) are
# read on every op. In a shared library each read otherwise calls __tls_get_addr (1.7% of the
# plain chain's instructions, 2.5% of the forward-AD chain's); initial-exec makes it one load.
# The flags take a few dozen bytes of the static TLS block glibc keeps for dlopen'ed modules.
# -fno-math-errno: nothing here reads errno, and a sqrt that may set it cannot be vectorised
# (the fused optimizer loops of optim_steps.pyx, NOTE [Fused optimizer steps]).
# -fno-trapping-math: nothing here runs with floating-point traps enabled, and a loop that
# selects between two computed values (the float32 erf of activation_kernels.pyx, NOTE [A
# float32 erf that vectorises]) can only be vectorised if both may be computed. It changes
# no value: operations are neither reordered nor contracted.
def extensions():
    return [
        Extension(
            ".".join(link.relative_to(MIRROR_ROOT).with_suffix("").parts),
            [str(link.relative_to(HERE))],
            include_dirs=[numpy.get_include()],
            extra_compile_args=["-O2", "-fvect-cost-model=cheap", "-fno-math-errno",
                                "-fno-trapping-math", "-Wno-unused-function",
                                "-Wno-unused-label", "-ftls-model=initial-exec"],
        )
        for link in mirror_sources()
    ]


# NOTE [A Tensor's attribute dict, made on first use]
# Tensor declares ``cdef dict __dict__`` so that, as in PyTorch, any attribute can be set on a
# tensor. Cython makes that dict in tp_new, for every tensor: an empty dict allocated and
# freed per op output, ~150 instructions (callgrind: 6.5% of the forward-AD chain, 2.8% of the
# plain chain). CPython makes an instance dict itself on first use when its slot is NULL
# (PyObject_GenericSetAttr, PyObject_GenericGetDict), and Cython's dealloc, traverse and
# clear of Tensor accept a NULL slot; so the build deletes the one line that makes it. The
# edit is known for the Cython range pyproject.toml pins; with any other Cython that no longer
# writes the line, the build stops and says so, and tests/test_build.py checks that a built
# tensor has no dict until an attribute is set.
EAGER_TENSOR_DICT = "p->__dict__ = PyDict_New(); if (unlikely(!p->__dict__)) goto bad;"
LAZY_TENSOR_DICT = "/* __dict__ made on first use: NOTE [A Tensor's attribute dict] */"


def make_tensor_dict_lazy():
    source = MIRROR / "tensor.c"
    text = source.read_text()
    if EAGER_TENSOR_DICT in text:
        source.write_text(text.replace(EAGER_TENSOR_DICT, LAZY_TENSOR_DICT))
    elif LAZY_TENSOR_DICT not in text:
        # Loudly: a Cython outside the pinned range changed the line, and every tensor would
        # silently pay for an eager dict. tests/test_build.py checks the edit took effect.
        import Cython
        raise SystemExit(
            f"setup.py: Cython {Cython.__version__} makes Tensor's __dict__ in a way this build "
            f"does not know (NOTE [A Tensor's attribute dict, made on first use]): update "
            f"EAGER_TENSOR_DICT for it, or build with the Cython pyproject.toml pins")


def wanted_extensions():
    """The compiled core, unless AUTOGRAD_CY_SKIP_EXTENSIONS is set: `make` installs the
    package editable that way and then compiles once, in place and incrementally, with
    `setup.py build_ext --inplace` (pip's editable build would compile every module a
    second time, in a temporary directory)."""
    if os.environ.get("AUTOGRAD_CY_SKIP_EXTENSIONS"):
        return []
    modules = cythonize(
        extensions(),
        include_path=[str(MIRROR_ROOT)],
        compiler_directives={
            "language_level": 3,
            "cdivision": True,
            "embedsignature": True,
        },
        nthreads=int(os.environ.get("CYTHON_NTHREADS", "0")) or None,
    )
    make_tensor_dict_lazy()
    return modules


# NOTE [A wheel built in the checkout]
# A wheel is assembled from build/lib, and setuptools only ever adds to that folder: a module
# deleted or renamed in the tree, or the extension of a deleted .pyx, would still ship in every
# later wheel built in this checkout. So build_py first empties build/lib/autograd_cy of all
# but the current extension modules. build_ext keeps those up to date, and finds the ones `make
# build` compiled current (`build_ext --inplace` compiles into build/lib and copies from there):
# a wheel built after `make build` compiles nothing.
class BuildPyFromAnEmptyFolder(build_py):
    def run(self):
        build_ext = self.get_finalized_command("build_ext")
        current = {os.path.join(self.build_lib, build_ext.get_ext_filename(ext.name))
                   for ext in self.distribution.ext_modules or ()}
        for folder, _, names in os.walk(os.path.join(self.build_lib, "autograd_cy")):
            for path in (os.path.join(folder, name) for name in names):
                if path not in current:
                    os.remove(path)
        super().run()


setup(
    cmdclass={"build_py": BuildPyFromAnEmptyFolder},
    # Compile the C files of the extensions in parallel, one job per core.
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
    ext_modules=wanted_extensions(),
)
