"""GPU backend (CuPy + hand-written kernels in ../../cuda/): arrives with the CUDA issue."""
