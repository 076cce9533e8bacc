"""The package without its compiled extensions says how to build them."""
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_import_without_extensions_explains_how_to_build(tmp_path):
    shutil.copytree(os.path.join(ROOT, "autograd_cy"), tmp_path / "autograd_cy",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    result = subprocess.run([sys.executable, "-c", "import autograd_cy"], cwd=tmp_path,
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert "ImportError" in result.stderr
    assert "build_ext --inplace" in result.stderr and "pip install -e ." in result.stderr
