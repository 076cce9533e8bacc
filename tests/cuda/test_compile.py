"""The compile check (autograd_cy/cuda/compile_check.py): every kernel file of the
manifest compiles for every target architecture with the options RawModule uses (NVRTC),
and with nvcc, which sees the host's headers; a broken file fails with its name and line.

CuPy, NVRTC and nvcc are test dependencies: without them these tests fail, they do not skip.
"""
import os
import re
import sys

import pytest

from autograd_cy.cuda import compile_check
from autograd_cy.cuda.compile_check import ARCHS, compile_kernel_file, compile_with_nvcc
from autograd_cy.cuda.manifest import name_expressions_by_file
from autograd_cy.cuda.sources import kernel_path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_emulator import PROBE_KERNELS, PROBES, line_of  # noqa: E402

REDUCE = os.path.join(PROBES, "reduce.cu")


@pytest.fixture(autouse=True)
def nvrtc():
    try:
        return compile_check._nvrtc()
    except RuntimeError as e:
        pytest.fail(str(e))


def manifest_cases():
    """(file, arch) for every file of the manifest as it is now; while the manifest is
    empty, one case per arch that checks there is nothing to compile."""
    files = list(name_expressions_by_file()) or [None]
    return [pytest.param(file, arch, id=f"{file or 'empty-manifest'}-sm_{arch}")
            for file in files for arch in ARCHS]


@pytest.mark.parametrize("file, arch", manifest_cases())
def test_manifest_file_compiles(file, arch):
    if file is None:
        assert compile_check.kernel_files() == []
        return
    names = name_expressions_by_file()[file]
    result = compile_kernel_file(kernel_path(file), names, arch)
    assert result.ok, result.log
    assert set(result.lowered_names) == set(names)
    assert result.cubin_size > 0


@pytest.mark.parametrize("file, arch", [case for case in manifest_cases()
                                        if case.values[1] == ARCHS[-1]])
def test_manifest_file_compiles_with_nvcc(file, arch):
    """With the host's C++ headers in view (NOTE [nvcc beside NVRTC]), for the newest
    architecture: what the headers change does not depend on it, and NVRTC compiles every
    file for every architecture above (each file's nvcc compile takes as long as NVRTC's, a
    third of make test's compile time)."""
    if file is None:
        return
    result = compile_with_nvcc(kernel_path(file), name_expressions_by_file()[file], arch)
    assert result.ok, result.log
    assert result.cubin_size > 0


def test_nvcc_sees_a_conflict_with_the_math_library_that_nvrtc_does_not(tmp_path):
    """What NOTE [Helpers in namespace agcy] guards against: a global remainder(float, float)
    beside <cmath>'s std::remainder."""
    source = tmp_path / "conflict.cu"
    source.write_text(
        "__device__ float remainder(float a, float b) { return a - b; }\n"
        "__global__ void rest(float* x) { x[threadIdx.x] = remainder(x[0], 2.0f); }\n")
    assert compile_kernel_file(str(source), ["rest"], 80, use_cache=False).ok
    result = compile_with_nvcc(str(source), ["rest"], 80, use_cache=False)
    assert not result.ok
    assert f"{source}(2): error" in result.log, result.log  # the call that is ambiguous
    assert "remainder" in result.log


def test_missing_nvcc_fails_with_the_install_hint(monkeypatch):
    monkeypatch.setenv(compile_check.NVCC_ENV, "/nonexistent/nvcc")
    monkeypatch.setitem(sys.modules, "nvidia", None)  # as if no NVIDIA wheel were installed
    monkeypatch.setenv("PATH", "")
    compile_check.nvcc_command.cache_clear()
    try:
        with pytest.raises(RuntimeError, match=r"nvidia-cuda-nvcc"):
            compile_with_nvcc(REDUCE, ["block_sum<float>"], 80)
    finally:
        compile_check.nvcc_command.cache_clear()


def test_every_kernel_file_is_in_the_manifest():
    assert compile_check.unlisted_files() == []
    for file in name_expressions_by_file():
        assert os.path.exists(kernel_path(file)), f"the manifest names a missing cuda/{file}"


@pytest.mark.parametrize("file", sorted(PROBE_KERNELS))
def test_probe_kernels_are_cuda(file):
    # the emulator's self-tests run these probes: NVRTC must accept them for every arch
    for arch in ARCHS:
        result = compile_kernel_file(os.path.join(PROBES, file), PROBE_KERNELS[file], arch)
        assert result.ok, result.log


def planted(tmp_path, marker, edit):
    """A copy of the probe reduce.cu with ``edit`` applied to its line ``planted: marker``."""
    lines = open(REDUCE).read().split("\n")
    number = line_of(REDUCE, f"planted: {marker}")
    lines[number - 1] = edit(lines[number - 1])
    path = tmp_path / "reduce.cu"
    path.write_text("\n".join(lines))
    return str(path), number


COMPILERS = [pytest.param(compile_kernel_file, id="nvrtc"),
             pytest.param(compile_with_nvcc, id="nvcc")]


@pytest.mark.parametrize("compile", COMPILERS)
def test_planted_error_names_file_and_line(tmp_path, compile):
    path, line = planted(tmp_path, "load", lambda s: s.replace("load(x + i)", "load(x + j)"))
    result = compile(path, ["block_sum<float>"], 80)
    assert not result.ok
    assert f"{path}({line}): error" in result.log, result.log
    assert 'identifier "j" is undefined' in result.log


def test_planted_missing_name_expression_fails(tmp_path):
    result = compile_kernel_file(REDUCE, ["block_sum<float>", "block_total<float>"], 80)
    assert not result.ok
    assert "block_total" in result.log, result.log


@pytest.mark.parametrize("compile", COMPILERS)
def test_planted_warning_fails(tmp_path, compile):
    path, _ = planted(tmp_path, "write", lambda s: "int unused_variable;" + s)
    result = compile(path, ["block_sum<float>"], 75)
    assert not result.ok and result.cubin_size > 0  # compiled, with a warning
    assert "unused_variable" in result.log, result.log


def test_planted_command_line_reports_failures(tmp_path, monkeypatch, capsys):
    # a manifest of one broken file, and a .cu that no manifest entry names
    path, line = planted(tmp_path, "read", lambda s: s.replace("warp_sums[lane]", "warp_sums"))
    (tmp_path / "stray.cu").write_text("__global__ void stray() {}\n")
    monkeypatch.setattr(compile_check, "name_expressions_by_file",
                        lambda: {"reduce.cu": ["block_sum<float>"]})
    monkeypatch.setattr(compile_check, "kernel_path", lambda f: str(tmp_path / f))
    monkeypatch.setattr(compile_check, "kernel_files", lambda: ["reduce.cu", "stray.cu"])
    assert compile_check.main(["--arch", "80", "--arch", "90"]) == 1
    out = capsys.readouterr().out
    assert "FAIL reduce.cu" in out and "sm_80" in out and "sm_90" in out
    assert "nvrtc" in out and "nvcc" in out
    assert f"{path}({line}): error" in out
    assert "FAIL stray.cu" in out and "no kernel of this file is in the manifest" in out
    assert "0 ok, 5 failed" in out


def test_command_line_on_the_repository(capsys):
    status = compile_check.main(["--arch", "80"])
    out = capsys.readouterr().out
    assert status == 0, out
    for file in name_expressions_by_file():
        for compiler in ("nvrtc", "nvcc "):
            assert re.search(rf"ok   {re.escape(file)} +sm_80  {compiler}", out), out


def test_results_are_cached_until_the_source_or_a_header_changes(tmp_path):
    header, source = tmp_path / "scale.cuh", tmp_path / "scale.cu"
    header.write_text("#define SCALE 2.0f\n")
    source.write_text('#include "scale.cuh"\n'
                      "__global__ void scale(float* x) { x[threadIdx.x] *= SCALE; }\n")
    runs = []
    for edit in [None, None, lambda: header.write_text("#define SCALE 3.0f\n"), None,
                 lambda: source.write_text(source.read_text() + "// edited\n")]:
        if edit:
            edit()
        result = compile_kernel_file(str(source), ["scale"], 80)
        assert result.ok, result.log
        runs.append(result.cached)
    assert runs == [False, True, False, True, False]
    assert compile_kernel_file(str(source), ["scale"], 80, use_cache=False).cached is False


def test_arch_from_environment(monkeypatch):
    monkeypatch.setenv(compile_check.ARCH_ENV, "80, 90")
    assert compile_check.archs_from_env() == (80, 90)
    monkeypatch.delenv(compile_check.ARCH_ENV)
    assert compile_check.archs_from_env() == ARCHS


def test_missing_cupy_fails_with_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy.cuda", None)  # as if CuPy were not installed
    with pytest.raises(RuntimeError, match=r"pip install -e '\.\[test\]'"):
        compile_kernel_file(REDUCE, ["block_sum<float>"], 80)


def test_the_loaders_arch_override_gets_a_cubin_with_every_kernel():
    """AUTOGRAD_CY_CUDA_ARCH: the loader loads NVRTC's cubin for that architecture and looks
    kernels up by their lowered names (RawModule itself always targets the device)."""
    from autograd_cy.cuda.compile_check import cubin_for
    from autograd_cy.cuda.manifest import name_expressions_by_file
    from autograd_cy.cuda.sources import kernel_path
    names = name_expressions_by_file()["indexing.cu"]
    path, lowered = cubin_for(kernel_path("indexing.cu"), names, 75)
    with open(path, "rb") as f:
        assert f.read(4) == b"\x7fELF"
    assert sorted(lowered) == sorted(names)
    assert all(symbol.startswith("_Z") for symbol in lowered.values())
