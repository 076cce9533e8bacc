"""The package installs as a user installs it, and works outside the checkout.

`python -m build --sdist --wheel` makes both distributions from this checkout (setuptools
finds every extension that `make build` compiled up to date and copies it: nothing is
compiled again), the wheel goes into a fresh virtual environment that has only the wheel's
own dependencies, and everything below runs there from a directory outside the checkout,
with an audit hook that records every file the interpreter opens and every program it starts:
not one of them may be a file of the checkout. The README's quickstart runs there and prints
what the README says it prints, and a backward on the emulated CUDA device compiles its
kernels from the installed sources.
"""
import json
import os
import re
import subprocess
import sys
import tarfile
import textwrap
import zipfile

import pytest
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Prepended to every script run in the fresh environment: records what the process opens
# and starts, and at exit prints it with sys.path and the loaded modules' files, as JSON on
# the last line.
WATCH = """\
import atexit, json, sys
_opened, _started = set(), []
def _audit(event, args):
    if event == "open" and isinstance(args[0], str):
        _opened.add(args[0])
    elif event == "subprocess.Popen":
        _started.append([str(a) for a in args[1]])
sys.addaudithook(_audit)
@atexit.register
def _report():
    files = [getattr(m, "__file__", None) for m in list(sys.modules.values())]
    print(json.dumps({"opened": sorted(_opened), "started": _started, "path": sys.path,
                      "files": [f for f in files if f]}))
"""


def distribution_files(folder):
    """The sdist and the wheel in ``folder``, built once for the module."""
    names = sorted(os.listdir(folder))
    sdist = [n for n in names if n.endswith(".tar.gz")]
    wheel = [n for n in names if n.endswith(".whl")]
    assert len(sdist) == 1 and len(wheel) == 1, names
    return os.path.join(folder, sdist[0]), os.path.join(folder, wheel[0])


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(sdist, wheel) built from the checkout as the README's Install section says."""
    folder = tmp_path_factory.mktemp("dist")
    result = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--wheel", "--no-isolation",
         "--outdir", str(folder), ROOT], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return distribution_files(folder)


@pytest.fixture(scope="module")
def venv(built, tmp_path_factory):
    """The python of a fresh virtual environment with the wheel and its dependencies."""
    folder = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = str(folder / "bin" / "python")
    result = subprocess.run([sys.executable, "-m", "pip", "--python", python, "install",
                             "-qq", built[1]], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-4000:]
    return python


def run_installed(python, script, tmp_path, **env):
    """Run ``script`` with the installed package from ``tmp_path``; its output and what it
    touched (the JSON of WATCH). Fails if it read, imported or started anything of the
    checkout."""
    path = tmp_path / "script.py"
    path.write_text(WATCH + textwrap.dedent(script))
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    environment.update(env)
    result = subprocess.run([python, str(path)], cwd=tmp_path, env=environment,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-4000:]
    *lines, report = result.stdout.splitlines()
    touched = json.loads(report)
    # (a relative path is the script's, under tmp_path)
    inside = [p for key in ("opened", "path", "files") for p in touched[key]
              if os.path.abspath(os.path.join(tmp_path, p)).startswith(ROOT + os.sep)]
    inside += [" ".join(args) for args in touched["started"] if ROOT + os.sep in " ".join(args)]
    assert not inside, f"the installed package used files of the checkout: {inside[:10]}"
    return lines, touched


def packaged_tree():
    """What the wheel must hold, from the checkout: every Python module of autograd_cy/, an
    extension module for every pyx/**/*.pyx, every kernel source and emulator header."""
    wanted = set()
    for folder, _, names in os.walk(os.path.join(ROOT, "autograd_cy")):
        relative = os.path.relpath(folder, ROOT)
        wanted.update(os.path.join(relative, n) for n in names if n.endswith((".py", ".h")))
    pyx = os.path.join(ROOT, "pyx")
    for folder, _, names in os.walk(pyx):
        package = os.path.join("autograd_cy", "_C", os.path.relpath(folder, pyx))
        wanted.update(os.path.normpath(os.path.join(package, n[:-4])) + ".so"
                      for n in names if n.endswith(".pyx"))
    for name in os.listdir(os.path.join(ROOT, "cuda")):
        if name.endswith((".cu", ".cuh")):
            wanted.add(os.path.join("autograd_cy", "cuda", "kernels", name))
    return wanted


def test_the_wheel_holds_every_module_extension_and_kernel(built):
    with zipfile.ZipFile(built[1]) as wheel:
        # An extension's name carries its ABI tag: tensor.cpython-311-x86_64-linux-gnu.so.
        held = {re.sub(r"\.[^./]+\.so$", ".so", n) for n in wheel.namelist()}
    missing = sorted(packaged_tree() - held)
    assert not missing, f"the wheel lacks {missing[:10]}"


def test_the_sdist_holds_what_the_wheel_is_built_from(built):
    with tarfile.open(built[0]) as sdist:
        held = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    wanted = {"setup.py", "pyproject.toml", "README.md", "MANIFEST.in", "Makefile"}
    for top in ("pyx", "cuda", "autograd_cy"):
        for folder, _, names in os.walk(os.path.join(ROOT, top)):
            wanted.update(os.path.relpath(os.path.join(folder, n), ROOT) for n in names
                          if not n.endswith((".so", ".pyc")))
    missing = sorted(wanted - held)
    assert not missing, f"the sdist lacks {missing[:10]}"
    assert not [n for n in held if n.startswith("build/") or n.endswith(".so")]


def readme_quickstart():
    """The Quickstart's code, and the (code line, expected output) pairs of its prints: the
    comment after each print() is what it prints, '...' standing for any text."""
    with open(os.path.join(ROOT, "README.md")) as handle:
        text = handle.read()
    section = text[text.index("## Quickstart"):]
    start = section.index("```python\n") + len("```python\n")
    code = section[start:section.index("\n```", start)]
    prints = [(line, line.split("#", 1)[1].strip()) for line in code.splitlines()
              if line.startswith("print(") and "#" in line]
    return code, prints


def test_the_readme_quickstart_prints_what_the_readme_says(venv, tmp_path):
    code, prints = readme_quickstart()
    assert len(prints) >= 3
    lines, _ = run_installed(venv, code, tmp_path)
    assert len(lines) == len(prints), lines
    for line, (statement, expected) in zip(lines, prints):
        pattern = ".*".join(re.escape(part) for part in expected.split("..."))
        assert re.fullmatch(pattern, line), f"{statement!r} printed {line!r}"


def test_a_backward_on_the_emulated_device_compiles_the_installed_kernels(venv, tmp_path):
    """The issue's own check: tanh's gradient on device="cuda" through the emulator, whose
    kernels are compiled (into an empty cache) from the sources inside site-packages."""
    values = [0.5, -1.25, 2.0]
    script = f"""
        import autograd_cy as ag
        from autograd_cy.cuda import sources
        x = ag.tensor({values}, device="cuda", requires_grad=True)
        x.tanh().sum().backward()
        print(x.grad.device, x.grad.cpu().tolist())
        print(sources.KERNEL_DIR)
    """
    lines, touched = run_installed(
        venv, script, tmp_path, AUTOGRAD_CY_CUDA="emulate",
        AUTOGRAD_CY_EMULATOR_CACHE=str(tmp_path / "emulator-cache"))
    device, grad = lines[0].split(" ", 1)
    assert device == "cuda:0"
    expected = 1 - torch.tensor(values).tanh() ** 2
    torch.testing.assert_close(torch.tensor(json.loads(grad)), expected)
    kernel_dir = lines[1]
    site = subprocess.run([venv, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert kernel_dir == os.path.join(site, "autograd_cy", "cuda", "kernels")
    compiled = [args for args in touched["started"] if "harness.cpp" in args]
    assert compiled, "no kernel was compiled: the emulator's cache was not empty"
    read = {os.path.basename(p) for p in touched["opened"]
            if os.path.dirname(p) == kernel_dir and p.endswith(".cu")}
    assert {"elementwise.cu", "pointwise_backward.cu"} <= read, read


def test_the_installed_package_brings_bfloat16(venv, tmp_path):
    """ml_dtypes is a dependency of the wheel: a fresh environment has bfloat16, and its sum
    accumulates in float32 as torch's."""
    script = """
        import autograd_cy as ag
        x = ag.full((100_000,), 0.1, dtype=ag.bfloat16, requires_grad=True)
        y = x.sum()
        y.backward()
        print(y.dtype, y.item(), x.grad.dtype)
    """
    lines, _ = run_installed(venv, script, tmp_path)
    assert lines == ["autograd_cy.bfloat16 9984.0 autograd_cy.bfloat16"]
