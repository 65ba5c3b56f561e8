"""Every public function and method of the package has type hints (issue 22 item 11).

Walks qa_baseline/ with `ast` (nothing is imported): a function or method whose name does not start with `_`,
defined at module level or in the body of a public class (also under `if`/`try` there), needs a return
annotation and an annotation on every parameter, `self`/`cls` (the first parameter of a method) excepted.
`mypy` (run by `make test` before pytest) checks that the annotations are right.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "qa_baseline"

_Def = ast.FunctionDef | ast.AsyncFunctionDef


def _defs(body: list[ast.stmt], in_class: bool) -> Iterator[tuple[_Def, bool]]:
    """The functions of a module or class body (through if/try blocks) and the public classes' methods."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node, in_class
        elif isinstance(node, ast.ClassDef):
            if not node.name.startswith("_"):
                yield from _defs(node.body, True)
        elif isinstance(node, ast.If):
            yield from _defs(node.body + node.orelse, in_class)
        elif isinstance(node, ast.Try):
            yield from _defs(node.body + node.orelse + node.finalbody
                             + [s for h in node.handlers for s in h.body], in_class)


def _missing(fn: _Def, method: bool) -> list[str]:
    """What `fn` lacks: 'return' and the names of its unannotated parameters."""
    a = fn.args
    params = a.posonlyargs + a.args
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)
    if method and not static and params and params[0].arg in ("self", "cls"):
        params = params[1:]
    params = params + a.kwonlyargs + [p for p in (a.vararg, a.kwarg) if p is not None]
    missing = [p.arg for p in params if p.annotation is None]
    if fn.returns is None:
        missing.insert(0, "return")
    return missing


def public_functions(paths: list[Path] | None = None) -> Iterator[tuple[str, int, str, list[str]]]:
    """(file, line, name, missing) for every public function and method under qa_baseline/ (or `paths`)."""
    root = PACKAGE.parent
    for path in sorted(paths if paths is not None else PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for fn, method in _defs(tree.body, False):
            if not fn.name.startswith("_"):
                shown = path.relative_to(root) if path.is_relative_to(root) else path
                yield str(shown), fn.lineno, fn.name, _missing(fn, method)


def test_public_functions_are_annotated() -> None:
    found = list(public_functions())
    assert found, "no public function found: the walk is broken"
    bad = [f"{file}:{line} {name} (missing: {', '.join(missing)})"
           for file, line, name, missing in found if missing]
    assert not bad, (f"{len(bad)} of {len(found)} public functions lack type hints:\n" + "\n".join(bad))


def test_the_walk_sees_what_it_should(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(
        "def ok(a: int, *b: str, c: int = 1, **d: str) -> None: ...\n"
        "def no_return(a: int): ...\n"
        "def _private(a): ...\n"
        "class C:\n"
        "    def m(self, x) -> int: ...\n"
        "    @classmethod\n"
        "    def k(cls) -> None: ...\n"
        "    @staticmethod\n"
        "    def s(cls) -> None: ...\n"
        "    def __init__(self, x): ...\n"
        "    def outer(self) -> None:\n"
        "        def inner(y): ...\n"
        "class _Hidden:\n"
        "    def m(self, x): ...\n"
        "try:\n"
        "    def guarded(x) -> None: ...\n"
        "except ImportError:\n"
        "    pass\n")
    got = {name: missing for _, _, name, missing in public_functions([src])}
    assert got == {"ok": [], "no_return": ["return"], "m": ["x"], "k": [], "s": ["cls"], "outer": [],
                   "guarded": ["x"]}
