"""``autograd_cy.__version__`` and ``autograd_cy.version`` (torch.version): the version is
pyproject.toml's, and the module has torch.version's names."""
import os
import re

import torch

import autograd_cy as ag

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_version_is_the_packages():
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        declared = re.search(r'^version = "([^"]+)"', f.read(), re.M).group(1)
    assert ag.__version__ == ag.version.__version__ == declared


def test_version_module_has_torchs_names():
    names = [name for name in dir(torch.version) if not name.startswith("_")
             and name != "Optional"]
    for name in names:
        assert hasattr(ag.version, name), name
    assert ag.version.debug is torch.version.debug is False
    assert ag.version.hip is None
    assert ag.version.cuda is None or re.fullmatch(r"\d+\.\d+", ag.version.cuda)
