import os
import sys

# Run against the in-place build of this checkout, whatever the current directory.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The CUDA backend's tests run on an emulated device unless a real one is asked for
# (`make test-gpu` sets AUTOGRAD_CY_CUDA=auto): same kernels, run on the CPU.
os.environ.setdefault("AUTOGRAD_CY_CUDA", "emulate")
