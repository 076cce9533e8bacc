"""The walk-through of the engine (docs/internals.md) runs as a doctest: every example in it
is the library's real behaviour, its tables the stepper's real output.

The README's stepper example is checked the same way, so the table a reader sees on the
front page is what ``trace_backward`` prints.
"""
import doctest
import os

import pytest

# The examples show what a reader sees on the CPU (a CUDA tensor prints its device too).
pytestmark = pytest.mark.cpu_only

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("document", ["docs/internals.md", "README.md"])
def test_examples_of(document):
    path = os.path.join(ROOT, document)
    with open(path) as handle:
        prompts = sum(line.lstrip().startswith(">>> ") for line in handle)
    assert prompts > 0, f"{document} has no examples"
    result = doctest.testfile(path, module_relative=False, optionflags=FLAGS, verbose=False)
    assert result.attempted == prompts
    assert result.failed == 0, f"{result.failed} example(s) of {document} failed (see above)"
