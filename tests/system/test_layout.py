"""The package's layers (issue 50): the top level holds only the commands, `scoring/` is a library that imports
neither `reporting/`, `tasks/` nor a command, the project's own imports sit at module level unless they defer a
heavy library (then a trailing `# defers ...` says which), and no two modules import each other, even inside
functions."""
import ast
import os

import pytest

from qa_baseline import ROOT
from qa_baseline.__main__ import COMMANDS

PACKAGE = os.path.join(ROOT, "qa_baseline")


def module_name(path: str) -> str:
    return os.path.relpath(path, ROOT).removesuffix(".py").replace(os.sep, ".").removesuffix(".__init__")


MODULES = {module_name(os.path.join(d, f)): os.path.join(d, f)
           for d, _, files in os.walk(PACKAGE) for f in files if f.endswith(".py")}


def project_imports(path: str):
    """(the module imported, inside a function, the import's source line) of each import of the project's own
    modules in PATH, relative ones resolved; `from X import name` is the module X.name when there is one."""
    me = module_name(path)
    package = me if path.endswith("__init__.py") else me.rpartition(".")[0]
    source = open(path, encoding="utf-8").read()
    lines = source.splitlines()

    def walk(node, in_function):
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.ImportFrom):
                base = ".".join(package.split(".")[:len(package.split(".")) - child.level + 1]) if child.level else ""
                src = ".".join(filter(None, [base, child.module]))
                for alias in child.names:
                    target = f"{src}.{alias.name}" if f"{src}.{alias.name}" in MODULES else src
                    if target.split(".")[0] == "qa_baseline":
                        yield target, inside, lines[child.end_lineno - 1]
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.split(".")[0] == "qa_baseline":
                        yield alias.name, inside, lines[child.end_lineno - 1]
            else:
                yield from walk(child, inside)

    yield from walk(ast.parse(source), False)


def test_the_top_level_holds_only_the_commands():
    top = sorted(f.removesuffix(".py") for f in os.listdir(PACKAGE) if f.endswith(".py"))
    assert top == sorted(["__init__", "__main__", *COMMANDS]) and len(top) <= 10
    for name, (module, _) in COMMANDS.items():
        assert module == f"qa_baseline.{name}"
        command = __import__(module, fromlist=["main"])
        assert callable(command.parser) and callable(command.main)


def test_scoring_imports_neither_reporting_tasks_nor_a_command():
    forbidden = ("qa_baseline.reporting", "qa_baseline.tasks", *(module for module, _ in COMMANDS.values()))
    found = [(name, target) for name, path in MODULES.items() if name.startswith("qa_baseline.scoring")
             for target, _, _ in project_imports(path)
             if any(target == f or target.startswith(f + ".") for f in forbidden)]
    assert found == []


def test_core_imports_only_core():
    """The foundations look down at nothing of the project's: `core/` imports only `core/` (and the package's
    own ROOT, which every module's import runs anyway)."""
    found = [(name, target) for name, path in MODULES.items() if name.startswith("qa_baseline.core")
             for target, _, _ in project_imports(path)
             if not target.startswith("qa_baseline.core") and target != "qa_baseline"]
    assert found == []


def test_imports_inside_functions_only_defer_a_heavy_library():
    inside = [(name, line.strip()) for name, path in MODULES.items()
              for _, in_function, line in project_imports(path) if in_function and "# defers " not in line]
    assert inside == []


def test_no_import_cycles():
    nx = pytest.importorskip("networkx")
    graph = nx.DiGraph()
    for name, path in MODULES.items():
        for target, _, _ in project_imports(path):
            while target not in MODULES:  # qa_baseline.tasks.base.Task -> its module
                target = target.rpartition(".")[0]
            if not (name + ".").startswith(target + "."):  # a package's modules may import the package itself
                graph.add_edge(name, target)
    assert [c for c in nx.strongly_connected_components(graph) if len(c) > 1] == []


def test_the_tests_mirror_the_package():
    """tests/unit/PACKAGE/ holds the tests of qa_baseline/PACKAGE/, tests/system/ those of whole commands; no test
    module sits elsewhere, and no two share a name (pytest imports them by their base names)."""
    tests = os.path.join(ROOT, "tests")
    found = [os.path.relpath(os.path.join(d, f), tests) for d, _, files in os.walk(tests) for f in files
             if f.startswith("test_") and f.endswith(".py")]
    packages = {name for name in os.listdir(PACKAGE) if os.path.isfile(os.path.join(PACKAGE, name, "__init__.py"))}
    misplaced = [p for p in found if not (p.startswith("system" + os.sep) and p.count(os.sep) == 1
                                          or p.startswith("unit" + os.sep) and p.count(os.sep) == 2
                                          and p.split(os.sep)[1] in packages)]
    assert not misplaced, misplaced
    names = [os.path.basename(p) for p in found]
    assert len(names) == len(set(names))
