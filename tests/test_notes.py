"""Every ``NOTE [Title]`` reference in the tree names a NOTE that exists, in the file it says.

A NOTE is a block of explanation that code elsewhere points at instead of repeating it. This
reads the sources and documents of the tree (pyx/, autograd_cy/, cuda/, docs/, tests/,
benchmarks/, setup.py, README.md; never __pycache__, build/, .venv/, hidden folders, compiled
or generated files, nor this file, whose examples are not references) and checks each
pointer, so that a NOTE renamed, moved or removed cannot leave a reader at a dead end.

The rules, as the tree writes its NOTEs:

- A definition is a line that holds nothing but ``NOTE [Title]`` after its indentation and
  a comment marker (``#``, ``//``, ``/*`` or ``*``), if it has one: ``# NOTE [Fused
  kernels]``, ``// NOTE [Layout]``, or a docstring's line that opens its explanation. Each
  title is defined once.
- Any other ``NOTE [Title]`` is a reference. Its title may wrap onto the next lines of its
  comment or docstring (a line break, with the next line's indentation and comment marker,
  reads as one space) and may hold brackets of its own (``How x[index] works``).
- A reference names a defined title whole, or by the part of it before its first comma: a
  title with a qualifier (``A Tensor's attribute dict, made on first use``) is also cited by
  its head (``A Tensor's attribute dict``). Any other prefix is not a match.
- A reference followed by a file (`` in kernels.pyx``, ``, device.pyx``, `` (tensor.pyx)``,
  `` in `pyx/engine.pyx` ``; a path or a file's name) must name the file of the definition.
"""
import os
import re

import pytest

pytestmark = pytest.mark.cpu_only      # reads source files; nothing device-specific

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLACES = ("pyx", "autograd_cy", "cuda", "docs", "tests", "benchmarks", "setup.py", "README.md")
SKIPPED_FOLDERS = {"__pycache__", "build", ".venv"}
TEXT_FILES = (".py", ".pyx", ".pxd", ".pxi", ".cu", ".cuh", ".h", ".md")
THIS_FILE = os.path.relpath(os.path.abspath(__file__), ROOT)

OPENING = "NOTE ["
COMMENT_MARKER = re.compile(r"^\s*(?:#|//|/\*|\*)?\s*")
# What may follow a reference to say where its NOTE is: " in x.pyx", ", x.pyx", " (x.pyx",
# " in `pyx/x.pyx`", ", in x.pyx".
POINTER = re.compile(r"^\s*[(,]?\s*(?:in\s+)?`?"
                     r"(?P<file>[\w./-]+\.(?:pyx|pxd|pxi|py|cuh|cu|h|md))\b")
MAX_LINES = 4           # a title wraps over at most this many lines


def source_files(root):
    """The relative paths of the text files the rules apply to, in a stable order."""
    for place in PLACES:
        path = os.path.join(root, place)
        if os.path.isfile(path):
            yield place
            continue
        for folder, folders, files in os.walk(path):
            folders[:] = sorted(
                name for name in folders
                if name not in SKIPPED_FOLDERS and not name.startswith(".")
                and not os.path.islink(os.path.join(folder, name)))
            for name in sorted(files):
                relative = os.path.relpath(os.path.join(folder, name), root)
                if name.endswith(TEXT_FILES) and relative != THIS_FILE:
                    yield relative


def read_title(lines, row, column):
    """The title that opens at ``lines[row][column]`` (just after ``NOTE [``), its brackets
    balanced, whitespace collapsed; and the text after its closing bracket on the line where
    it closes, with the next line appended (a pointer may start there). None if it never
    closes within MAX_LINES lines."""
    text, parts, depth = lines[row][column:], [], 0
    for line in range(row, min(row + MAX_LINES, len(lines))):
        if line > row:
            text = COMMENT_MARKER.sub("", lines[line], count=1)
        for index, char in enumerate(text):
            if char == "[":
                depth += 1
            elif char == "]" and depth:
                depth -= 1
            elif char == "]":
                parts.append(text[:index])
                after = text[index + 1:]
                if line + 1 < len(lines):
                    after += " " + COMMENT_MARKER.sub("", lines[line + 1], count=1)
                return " ".join(" ".join(parts).split()), after
        parts.append(text)
    return None


def scan(root):
    """({title: [place of each definition]}, [(place, title or None, text after it)]), a place
    being ``path:line``."""
    definitions, references = {}, []
    for path in source_files(root):
        with open(os.path.join(root, path), encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        for row, line in enumerate(lines):
            place = f"{path}:{row + 1}"
            body = COMMENT_MARKER.sub("", line, count=1)
            column = line.find(OPENING)
            while column >= 0:
                found = read_title(lines, row, column + len(OPENING))
                title, after = found if found else (None, "")
                alone = read_title([line], 0, column + len(OPENING))   # this line only
                if column == len(line) - len(body) and alone and not alone[1].strip():
                    definitions.setdefault(title, []).append(place)
                else:
                    references.append((place, title, after))
                column = line.find(OPENING, column + len(OPENING))
    return definitions, references


def problems(root):
    """What breaks the rules in the tree at ``root``, one message each; and what the scan
    found, as ``scan`` returns it."""
    definitions, references = scan(root)
    found = [f"NOTE [{title}] is defined {len(places)} times: {', '.join(places)}"
             for title, places in definitions.items() if len(places) > 1]
    heads = {}
    for title in definitions:
        if "," in title:
            heads.setdefault(title.split(",", 1)[0], []).append(title)
    for place, title, after in references:
        if title is None:
            found.append(f"{place}: a NOTE [ whose title does not close")
            continue
        if title in definitions:
            full = title
        elif len(heads.get(title, ())) == 1:
            full = heads[title][0]
        else:
            found.append(f"{place}: NOTE [{title}] names no NOTE")
            continue
        pointer = POINTER.match(after)
        if pointer:
            named, defined = pointer.group("file"), definitions[full][0].split(":")[0]
            if not (defined == named or defined.endswith("/" + named)):
                found.append(f"{place}: NOTE [{title}] is in {defined}, not in {named}")
    return found, definitions, references


def test_every_note_reference_names_a_note_that_exists():
    found, definitions, references = problems(ROOT)
    assert not found, "\n".join(found)
    # The scan saw the tree's NOTEs (not an empty walk that passes by finding nothing).
    assert len(definitions) > 50 and len(references) > 300, (len(definitions), len(references))


def test_the_checks_catch_a_planted_stale_reference(tmp_path):
    """On a planted tree: a title wrapped over two lines and a title cited by its head resolve;
    a NOTE that does not exist, another prefix, a pointer to the wrong file and a title
    defined twice are reported."""
    (tmp_path / "pyx").mkdir()
    (tmp_path / "pyx" / "a.pyx").write_text(
        '# NOTE [Alpha]\n'
        '# NOTE [Beta, with a qualifier]\n'
        '"""\n'
        'NOTE [Twice]\n'
        '"""\n'
        '    # NOTE [Twice]\n')
    (tmp_path / "pyx" / "b.pyx").write_text(
        'x = 1  # NOTE [Alpha] in a.pyx\n'
        '# The head of a title (NOTE [Beta] in `pyx/a.pyx`), a title over two lines (NOTE [Beta,\n'
        '# with a qualifier], a.pyx).\n'
        '# NOTE [Gamma]: no such NOTE.\n'
        '# NOTE [Alpha] in b.pyx\n'
        '# NOTE [Bet] (a.pyx)\n')
    found, definitions, references = problems(str(tmp_path))
    assert set(definitions) == {"Alpha", "Beta, with a qualifier", "Twice"}
    assert len(references) == 6
    assert sorted(found) == sorted([
        "NOTE [Twice] is defined 2 times: pyx/a.pyx:4, pyx/a.pyx:6",
        "pyx/b.pyx:4: NOTE [Gamma] names no NOTE",
        "pyx/b.pyx:5: NOTE [Alpha] is in pyx/a.pyx, not in b.pyx",
        "pyx/b.pyx:6: NOTE [Bet] names no NOTE",
    ])
