"""``python -m autograd_cy.cuda.check_kernels [--arch 80 ...]``: the compile check
(compile_check.py) as a program. Every kernel file through NVRTC and nvcc for each target
architecture, one line per file and architecture; the exit status is 1 on any failure.

A module of its own, so that the package may import compile_check (the GPU loader compiles
through it) without runpy finding the module it is about to run already imported.
"""
import sys

from autograd_cy.cuda.compile_check import main

if __name__ == "__main__":
    sys.exit(main())
