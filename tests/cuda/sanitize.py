"""``make sanitize``: the kernel tests of tests/cuda with every emulated kernel built under
ThreadSanitizer, then under AddressSanitizer.

    python tests/cuda/sanitize.py [thread] [address] [-- pytest options]

Each run is a pytest in a subprocess started with ``sanitizer_env(kind)``: the sanitizer's
runtime is preloaded, and AUTOGRAD_CY_EMULATOR_SANITIZE makes every CpuModule (so every
``load_kernel_file``) build with ``-fsanitize=<kind>``; a kernel test needs nothing of its
own to take part. Tests named ``test_planted_*`` plant bugs on purpose and stay out, as
does the NVRTC compile check, which launches nothing. A run fails on a failing test or on
any sanitizer report: TSan reports every race and exits with 66 at the end, ASan stops at
its first error with 67. Reports name the ``.cu`` line of each access.
"""
import os
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from autograd_cy.cuda.emulator import sanitizer_env  # noqa: E402

KINDS = ("thread", "address")
SELECTION = ["tests/cuda", "-k", "not planted", "--ignore=tests/cuda/test_compile.py"]
REPORTED = {66: "ThreadSanitizer reported races (above)",
            67: "AddressSanitizer reported an error (above)"}


def main(argv):
    kinds, _, pytest_options = " ".join(argv).partition("--")
    kinds = kinds.split() or list(KINDS)
    failed = []
    for kind in kinds:
        # --capture=sys: pytest must not capture file descriptor 2, where the sanitizers
        # write their reports (a test that passes would discard them, and ASan exits)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--capture=sys",
                   *SELECTION, *pytest_options.split()]
        print(f"== {kind} sanitizer: pytest {shlex.join(command[3:])}", flush=True)
        start = time.perf_counter()
        status = subprocess.run(command, cwd=ROOT, env=sanitizer_env(kind)).returncode
        outcome = "clean" if status == 0 else REPORTED.get(status, f"pytest exit status {status}")
        print(f"== {kind} sanitizer: {outcome} ({time.perf_counter() - start:.0f} s)", flush=True)
        if status:
            failed.append(kind)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
