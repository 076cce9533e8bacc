"""torch.accelerator: with no CUDA device no accelerator (as a CPU-only torch), with one it is
CUDA's."""
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import autograd_cy as ag

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NO_DEVICE = textwrap.dedent("""
    def run(lib):
        acc = lib.accelerator
        out = [acc.current_accelerator(), acc.current_accelerator(check_available=True),
               acc.is_available(), acc.device_count()]
        for call in (acc.current_device_index, acc.synchronize, acc.current_stream,
                     lambda: acc.set_device_index(0)):
            try:
                call()
                out.append("ok")
            except RuntimeError as e:
                out.append(str(e))
        with acc.device_index(None):
            out.append("none")
        return repr(out)
    """)


def test_without_a_device_there_is_no_accelerator():
    script = NO_DEVICE + "import autograd_cy\nprint(run(autograd_cy))\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "AUTOGRAD_CY_CUDA": "off"}, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    scope = {}
    exec(NO_DEVICE, scope)
    assert not torch.cuda.is_available()
    assert done.stdout.strip() == scope["run"](torch)


@pytest.mark.skipif(not ag.cuda.is_available(), reason="needs a (real or emulated) CUDA device")
def test_with_a_device_the_accelerator_is_cuda():
    acc = ag.accelerator
    assert acc.current_accelerator() == ag.device("cuda")
    assert acc.current_accelerator().index is None
    assert acc.is_available()
    assert acc.device_count() == ag.cuda.device_count()
    assert acc.current_device_index() == ag.cuda.current_device()
    previous = acc.current_device_index()
    last = acc.device_count() - 1
    with acc.device_index(last):
        assert ag.cuda.current_device() == last
        assert acc.current_stream().device == ag.device("cuda", last)
    assert acc.current_device_index() == previous
    acc.set_device_index(-1)                # negative: changes nothing
    assert acc.current_device_index() == previous
    with pytest.raises(ValueError, match="doesn't match the current accelerator"):
        acc.set_device_index("cpu")
    acc.synchronize()
    x = ag.ones(2, device=acc.current_accelerator())
    assert x.device.type == "cuda"
