"""The layers of pyx/ go one way: each module imports only modules listed above it in
docs/architecture.md ("Layers (one way)"), never one below, not even inside a function, and
nothing in pyx/ imports the Python package. This reads the list and every import.

The CUDA package (autograd_cy/cuda) is cycle-free too: its modules import each other at
module level only, in no circle, and use no private name of another module."""
import ast
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
    """The op modules of the second list ("The op modules of `ops/*` are layered too"), which
    starts with argument parsing."""
    return documented_order("arguments")


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


# ---- the CUDA package ---------------------------------------------------------------------

CUDA = os.path.join(ROOT, "autograd_cy", "cuda")


def cuda_modules():
    """(dotted name, path, source, tree) of every Python module of autograd_cy/cuda."""
    for folder, _, files in sorted(os.walk(CUDA)):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                parts = os.path.relpath(path, ROOT)[:-3].split(os.sep)
                if parts[-1] == "__init__":
                    parts.pop()
                with open(path) as handle:
                    source = handle.read()
                yield ".".join(parts), path, source, ast.parse(source)


def imports(tree, package):
    """(node, module, names, inside a function) of every import of ours in ``tree``: absolute
    imports of autograd_cy and relative ones (resolved against ``package``)."""
    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.split(".")[0] == "autograd_cy":
                        yield child, alias.name, [], in_function
            elif isinstance(child, ast.ImportFrom):
                module = child.module or ""
                if child.level:
                    base = package.split(".")[:len(package.split(".")) - child.level + 1]
                    module = ".".join(base + ([module] if module else []))
                if module.split(".")[0] == "autograd_cy":
                    yield child, module, [a.name for a in child.names], in_function
            yield from visit(child, nested)
    yield from visit(tree, False)


def is_package(dotted):
    return os.path.isfile(os.path.join(ROOT, *dotted.split("."), "__init__.py"))


def is_cuda_module(dotted):
    path = os.path.join(ROOT, *dotted.split("."))
    return dotted.startswith("autograd_cy.cuda") and (
        os.path.isfile(path + ".py") or os.path.isfile(os.path.join(path, "__init__.py")))


def test_no_cuda_module_imports_one_of_ours_inside_a_function():
    """An import of ours inside a function is how a cycle hides; the package has none.
    (CuPy, optional, is imported where a real GPU needs it.)"""
    problems = []
    for module, path, source, tree in cuda_modules():
        package = module if is_package(module) else module.rpartition(".")[0]
        for node, target, _, in_function in imports(tree, package):
            if in_function:
                problems.append(f"{os.path.relpath(path, ROOT)}:{node.lineno} imports "
                                f"{target} inside a function")
    assert not problems, "\n".join(problems)


def test_no_cuda_module_uses_another_modules_private_names():
    """Neither ``from module import _name`` nor ``alias._name`` on something imported from
    one of our modules (dunder names aside): what modules share is public."""
    def private(name):
        return name.startswith("_") and not name.endswith("__")

    problems = []
    for module, path, _, tree in cuda_modules():
        package = module if is_package(module) else module.rpartition(".")[0]
        where = os.path.relpath(path, ROOT)
        bound = set()
        for node, target, names, _ in imports(tree, package):
            problems += [f"{where}:{node.lineno} imports {target}.{name}"
                         for name in names if private(name)]
            bound.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and private(node.attr):
                root = node.value      # autograd_cy.cuda._x: the root is the bound name
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name) and root.id in bound:
                    problems.append(f"{where}:{node.lineno} uses {ast.unparse(node)}")
    assert not problems, "\n".join(problems)


def cuda_import_graph():
    """{module: the modules of autograd_cy/cuda it imports}: ``from autograd_cy.cuda import
    x`` is an edge to x when x is a module, to the package's __init__ otherwise."""
    edges = {}
    for module, _, _, tree in cuda_modules():
        package = module if is_package(module) else module.rpartition(".")[0]
        targets = edges.setdefault(module, set())
        for _, target, names, _ in imports(tree, package):
            submodules = [f"{target}.{name}" for name in names
                          if is_cuda_module(f"{target}.{name}")]
            if submodules:
                targets.update(submodules)
            elif is_cuda_module(target):
                targets.add(target)
        targets.discard(module)
    return edges


def test_the_cuda_package_imports_in_no_circle():
    """The import graph of autograd_cy/cuda has no cycle: each module can be read knowing
    only the ones it imports."""
    edges = cuda_import_graph()
    done, path = set(), []

    def cycle_from(module):
        if module in path:
            return path[path.index(module):] + [module]
        if module in done:
            return None
        path.append(module)
        for target in sorted(edges.get(module, ())):
            found = cycle_from(target)
            if found:
                return found
        path.pop()
        done.add(module)
        return None

    for module in sorted(edges):
        cycle = cycle_from(module)
        assert cycle is None, "an import cycle: " + " -> ".join(cycle)


def documented_cuda_order():
    """{module: position} from the CUDA block of docs/architecture.md, top first; a
    folder (emulator/) stands for its modules."""
    with open(os.path.join(ROOT, "docs", "architecture.md")) as handle:
        text = handle.read()
    start = text.index("autograd_cy/cuda/    __init__.py")
    order = {}
    for line in text[start:text.index("```", start)].splitlines():
        match = re.match(r"\s*(\w+)(\.py|/)\s", line.replace("autograd_cy/cuda/", "", 1))
        if match:
            name = match.group(1)
            order["autograd_cy.cuda" + ("" if name == "__init__" else "." + name)] = len(order)
    return order


def test_each_cuda_module_imports_only_modules_listed_below_it():
    """The order of docs/architecture.md ("The CUDA backend") is the import order."""
    order = documented_cuda_order()

    def position(module):
        while module not in order and "." in module:
            module = module.rpartition(".")[0]         # emulator.module: emulator/
        return order.get(module)

    problems = []
    for module, targets in cuda_import_graph().items():
        if position(module) is None:
            problems.append(f"{module} is not in the list")
            continue
        for target in targets:
            if position(target) < position(module):
                problems.append(f"{module} imports {target}, listed above it")
    assert not problems, "\n".join(problems)
