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


def test_a_tensor_makes_its_attribute_dict_on_first_use():
    """NOTE [A Tensor's attribute dict, made on first use] (setup.py): the build's edit of
    Cython's tensor.c took effect. A new tensor holds no dict (Cython's traverse visits the
    slot only when it is set); setting an attribute makes one, as CPython does for any
    object."""
    import gc
    import autograd_cy as ag
    t = ag.tensor([1.0])
    assert not any(type(r) is dict for r in gc.get_referents(t))
    t.note = "set"
    assert t.note == "set" and t.__dict__ == {"note": "set"}
    assert any(type(r) is dict for r in gc.get_referents(t))
