"""The layers of pyx/ go one way: each module imports only modules listed above it in
docs/architecture.md ("Layers (one way)"), never one below, not even inside a function, and
nothing in pyx/ imports the Python package. This reads the list and every import."""
import os
import re

import pytest

pytestmark = pytest.mark.cpu_only      # reads source files; nothing device-specific

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMPORT = re.compile(r"from autograd_cy\._C\.(ops\.)?(\w+) c?import")
PACKAGE = re.compile(r"(from|import) autograd_cy(?!\._C)[\s.]")


def documented_order(first):
    """The module names of the list in docs/architecture.md that starts with ``first``, top
    (imported by all below) first: ``{name: position}``."""
    with open(os.path.join(ROOT, "docs", "architecture.md")) as handle:
        text = handle.read()
    start = text.index("```\n" + first)
    block = text[start + 4:text.index("```", start + 3)]
    order = []
    for line in block.splitlines():
        if line and not line.startswith(" "):
            head = re.split(r"\s{2,}", line.strip())[0]
            order += [name.split()[0] for name in re.split(r",\s*", head)]
    return {name: index for index, name in enumerate(order)}


def layer_order():
    """The layers of pyx/ ("Layers (one way)")."""
    return documented_order("grad_mode")


def op_layer_order():
    """The op modules of the second list ("The op modules of `ops/*` are layered too")."""
    return documented_order("op_table")


def sources():
    for folder, key in (("pyx", None), (os.path.join("pyx", "ops"), "ops/*")):
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if name.endswith((".pyx", ".pxd")):
                with open(os.path.join(ROOT, folder, name)) as handle:
                    yield name, key or name.rsplit(".", 1)[0], handle.read()


def test_every_pyx_module_imports_only_modules_above_it():
    position = layer_order()
    problems = []
    for name, module, source in sources():
        if module not in position:
            problems.append(f"{name}: its module is not in the layer list")
            continue
        for match in IMPORT.finditer(source):
            if match.group(1):          # one op module from another: the op layer list
                problems += op_module_problems(name, module, match.group(2))
                continue
            dependency = match.group(2)
            if dependency not in position:
                problems.append(f"{name} imports {dependency}, which is not in the list")
            elif position[dependency] >= position[module]:
                problems.append(f"{name} imports {dependency}, listed below it")
        if PACKAGE.search(source):
            problems.append(f"{name} imports the Python package autograd_cy")
    assert not problems, "\n".join(problems)


def op_module_problems(name, module, dependency):
    if module != "ops/*":
        return [f"{name} imports the op module {dependency}"]
    position = op_layer_order()
    own = name.rsplit(".", 1)[0]
    for op_module in (own, dependency):
        if op_module not in position:
            return [f"{name}: the op module {op_module} is not in the op layer list"]
    if dependency != own and position[dependency] >= position[own]:
        return [f"{name} imports the op module {dependency}, listed below it"]
    return []


def test_every_op_module_is_in_the_op_layer_list():
    listed = set(op_layer_order())
    present = {name.rsplit(".", 1)[0] for name in os.listdir(os.path.join(ROOT, "pyx", "ops"))
               if name.endswith(".pyx")}
    assert present == listed


FUNCTION_LEVEL_IMPORT = re.compile(r"^[ \t]+(from autograd_cy\S* c?import|c?import autograd_cy)",
                                   re.M)


def test_no_module_of_pyx_imports_ours_inside_a_function():
    """An import inside a function is how a cycle hides from the lists above: every
    dependency between the modules of pyx/ is at module level, where this file reads it."""
    problems = [f"{name}:{source[:match.start()].count(chr(10)) + 1}: {match.group(1)}"
                for name, _, source in sources()
                for match in FUNCTION_LEVEL_IMPORT.finditer(source)]
    assert not problems, "\n".join(problems)


def test_the_cuda_array_imports_none_of_the_modules_that_operate_on_it():
    """NOTE [The array's operations]: dispatch, indexing and rows import array.py and register
    their entry points with it; array.py imports none of them, at any level, and neither it
    nor dispatch.py imports anything inside a function."""
    import ast
    operating = {"dispatch", "indexing", "rows", "reduce", "shape", "sorting", "gemm",
                 "foreach", "random", "streams"}
    problems = []
    for name in ("array.py", "dispatch.py"):
        with open(os.path.join(ROOT, "autograd_cy", "cuda", name)) as handle:
            tree = ast.parse(handle.read())
        top_level = set(map(id, tree.body))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if id(node) not in top_level:
                problems.append(f"{name}:{node.lineno} imports inside a function")
            modules = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                       else [f"{node.module}.{alias.name}" for alias in node.names])
            if name == "array.py":
                problems += [f"array.py:{node.lineno} imports {module}" for module in modules
                             if set(module.split(".")) & operating]
    assert not problems, "\n".join(problems)


def test_no_op_tests_the_device():
    """NOTE [One backend interface] (pyx/device.pxd): an op asks the backend of its array,
    ``backend_of(array).fused(...)``; it never tests which device the array is on, nor calls
    a method only a DeviceArray has."""
    asked = re.compile(r"backend_of\((?:[^()]|\([^()]*\))*\)\.(fused|fused_pair)\(")
    fused_call = re.compile(r"\.(fused|fused_pair)\(")
    problems = []
    for name, module, source in sources():
        if module != "ops/*":
            continue
        if "is_cuda_array" in source:
            problems.append(f"ops/{name} tests is_cuda_array")
        if ".apply_functor(" in source:
            problems.append(f"ops/{name} calls DeviceArray.apply_functor")
        if len(fused_call.findall(source)) != len(asked.findall(source)):
            problems.append(f"ops/{name} calls .fused/.fused_pair on something that is not "
                            "backend_of(array)")
    assert not problems, "\n".join(problems)
