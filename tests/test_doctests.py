"""Every docstring example of the package runs as a doctest, one test per module.

The modules are discovered when the tests are collected (``pkgutil.walk_packages``),
the compiled ``autograd_cy._C`` extensions included, so a module that is added or
renamed is picked up without touching this file. ``doctest.DocTestFinder`` finds
the examples of Python modules, of the classes and ``def`` functions of compiled
ones, and those Cython lists in a compiled module's ``__test__`` dict (the same
examples found twice run once). A module's example count is checked against
the ``>>>`` prompts of its source file where that file is at hand (``pyx/`` for a
compiled module), so an example the finder cannot see fails instead of being
skipped in silence.
"""
import doctest
import importlib
import inspect
import io
import os
import pkgutil
import types

import pytest

import autograd_cy

# The examples show what a reader sees on the CPU (a CUDA tensor prints its device too).
pytestmark = pytest.mark.cpu_only

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def module_names():
    names = [autograd_cy.__name__]
    for info in pkgutil.walk_packages(autograd_cy.__path__, autograd_cy.__name__ + "."):
        names.append(info.name)
    return sorted(names)


def has_examples(name):
    """Does the module's source (or, without one, its docstrings) hold a ``>>>`` prompt?"""
    module = importlib.import_module(name)
    path = source_file(module)
    if path is not None:
        return prompts_in(path) > 0
    return bool(doctests_of(module))


MODULES = module_names()


def doctests_of(module):
    """The module's DocTests that have examples, one per distinct list of examples (Cython's
    ``__test__`` repeats a function's docstring, which may start with its signature)."""
    tests, seen = [], set()
    found = doctest.DocTestFinder().find(module)
    for test in sorted(found, key=lambda t: ("__test__" in t.name, t.name)):   # objects first
        examples = tuple((example.source, example.want) for example in test.examples)
        if examples and examples not in seen:
            seen.add(examples)
            tests.append(test)
    return tests


def is_compiled(module):
    return getattr(module, "__file__", "").endswith((".so", ".pyd"))


def source_file(module):
    """The module's .py file, or for a compiled ``autograd_cy._C.x.y`` its ``pyx/x/y.pyx``."""
    if is_compiled(module):
        relative = module.__name__.split("._C.", 1)[-1].replace(".", os.sep)
        path = os.path.join(ROOT, "pyx", relative + ".pyx")
        return path if os.path.exists(path) else None
    try:
        return inspect.getsourcefile(module)
    except TypeError:
        return None


def prompts_in(path):
    with open(path, encoding="utf-8") as source:
        return sum(line.lstrip().startswith(">>>") for line in source)


def check_examples(module):
    """Run the module's examples; fail on any failure or on examples the finder missed."""
    tests = doctests_of(module)
    found = sum(len(test.examples) for test in tests)
    path = source_file(module)
    if path is not None:
        assert found == prompts_in(path), (
            f"{path} has {prompts_in(path)} '>>>' prompts, the doctest finder sees {found} "
            f"examples in {module.__name__}")
    runner = doctest.DocTestRunner(verbose=False)
    report = io.StringIO()
    for test in tests:
        # Examples use ``ag`` for the package without importing it: the core's modules
        # never import the package, not even in a docstring.
        test.globs.setdefault("ag", autograd_cy)
        runner.run(test, out=report.write)
    assert runner.tries == found
    assert runner.failures == 0, report.getvalue()


@pytest.mark.parametrize("name", [name for name in MODULES if has_examples(name)])
def test_docstring_examples(name):
    check_examples(importlib.import_module(name))


def test_a_failing_example_fails_its_module():
    planted = types.ModuleType("planted")
    exec('def double(x):\n    """\n    >>> double(2)\n    5\n    """\n    return 2 * x\n',
         planted.__dict__)
    with pytest.raises(AssertionError,
                       match=r"Failed example:\s+double\(2\)\s+Expected:\s+5\s+Got:\s+4"):
        check_examples(planted)


def test_examples_of_compiled_modules_are_found():
    """The examples of a cdef class (Tensor) and of def functions (clamp, maximum, where)
    in compiled modules, wherever the modules are named."""
    found = set()
    for name in MODULES:
        module = importlib.import_module(name)
        if is_compiled(module):
            found.update(test.name.rsplit(".", 1)[-1] for test in doctests_of(module))
    assert {"Tensor", "clamp", "maximum", "where"} <= found, found
