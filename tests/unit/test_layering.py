"""The layering of the house, read from the source with `ast` (nothing of the project is imported or run).

- the library (`attnviz/`) never imports streamlit: only the app (`app.py`, `app_pages/`) does;
- what is right of the attention line (analysis, selection, figures, export, the corpus statistics) loads no torch
  and no transformers, neither itself nor through a project module it imports;
- no import circle among the project's modules, counting imports at any level (one inside a function closes a
  circle as surely as one at the top), those under `if TYPE_CHECKING:` included;
- no import runs up the floors that docs/architecture.md writes down: a room (a folder of `attnviz/`, a module of its
  top floor, the app) imports only itself and rooms on lower floors; every room stands on one floor;
- no project module imported inside a function, so that a file shows what it depends on at its top. The one
  exception: a light module may defer a project module that loads torch when it is imported, with a comment on the
  line saying why (the app's first page and `import attnviz` stay quick that way).

Each rule has an allow-list of the offenders still being moved. They must end empty: an offender not listed fails,
and so does a listed one that no longer offends (remove it).
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = "attnviz"
PROJECT_PACKAGES = (LIBRARY, "app_pages")  # with app.py: the modules whose imports make the graph
TORCH = ("torch", "transformers")  # what the right of the attention line never loads
# What stays free of torch (figures/, export/ and any module of those packages; replay and find_head as they appear).
TORCH_FREE = (
    "attnviz.maps.analysis",
    "attnviz.compare",
    "attnviz.view.selection",
    "attnviz.maps.replay",
    "attnviz.view.find_head",
    "attnviz.figures",
    "attnviz.export",
    "attnviz.corpus.stats",
)

# Allowed exceptions, each with its reason: none today. A new one must say why on its line.
PENDING_STREAMLIT: set[str] = set()  # modules under attnviz/ that import streamlit
PENDING_TORCH: set[str] = set()  # modules of TORCH_FREE that load torch
PENDING_CIRCLES: set[frozenset[str]] = set()  # import circles
PENDING_INNER_IMPORTS: set[tuple[str, str]] = set()  # (importing module, imported module)
PENDING_UPWARD: set[tuple[str, str]] = set()  # (importing room, imported room) on a higher floor
TOP_FLOOR_MOST = 16  # loose modules of attnviz/ (the faces and the data contract); the rest lives in folders
ARCHITECTURE = "docs/architecture.md"  # its floor table: `| floor | rooms … |`, the ground first


@dataclass(frozen=True)
class Import:
    importer: str  # the importing module, e.g. "attnviz.model.load"
    module: str  # what it imports, resolved: "attnviz.model.hub", "torch", "numpy.linalg" ...
    line: int
    in_function: bool  # inside a def, an async def or a lambda
    commented: bool  # the statement's lines carry a comment (the reason a deferred import gives)
    type_checking: bool = False  # under `if TYPE_CHECKING:`: read by type checkers, never run


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def project_files() -> dict[str, Path]:
    """Module name → file of every project module: attnviz/**, app_pages/**, app.py."""
    files = [ROOT / "app.py"] + [path for package in PROJECT_PACKAGES for path in (ROOT / package).rglob("*.py")]
    return {module_name(path): path for path in sorted(files) if path.exists()}


def is_project(module: str) -> bool:
    return module.split(".")[0] in PROJECT_PACKAGES or module == "app"


def _targets(node: ast.Import | ast.ImportFrom, importer: str, path: Path) -> list[str]:
    """The modules an import statement loads: `from attnviz import figures` loads attnviz.figures when that is a
    module, else the package attnviz (its name is an attribute)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:  # relative: from the importing module's package
        package = importer.split(".") if path.name == "__init__.py" else importer.split(".")[:-1]
        base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
    modules = project_files()
    found = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in modules]
    return found if len(found) == len(node.names) else [*found, base]


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


@cache
def imports_of(module: str) -> tuple[Import, ...]:
    """Every import of a project module, at any level, those under `if TYPE_CHECKING:` marked as such."""
    path = project_files()[module]
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool, type_checking: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.body:
                visit(child, in_function, True)
            for child in node.orelse:
                visit(child, in_function, type_checking)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            text = lines[node.lineno - 1 : node.end_lineno]
            commented = any("#" in line for line in text)
            for target in _targets(node, module, path):
                found.append(Import(module, target, node.lineno, in_function, commented, type_checking))
            return
        inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, inner, type_checking)

    visit(ast.parse(source, filename=str(path)), False, False)
    return tuple(found)


def _loads(module: str, names: tuple[str, ...]) -> bool:
    return any(module == name or module.startswith(name + ".") for name in names)


@cache
def torch_loaders() -> frozenset[str]:
    """The project modules whose import loads torch or transformers: at their top, or through a project module they
    import at their top (and so on)."""
    top = {
        name: {item.module for item in imports_of(name) if not (item.in_function or item.type_checking)}
        for name in project_files()
    }
    loaders = {name for name, modules in top.items() if any(_loads(module, TORCH) for module in modules)}
    while more := {name for name, modules in top.items() if name not in loaders and modules & loaders}:
        loaders |= more
    return frozenset(loaders)


def library_modules() -> list[str]:
    return [name for name in project_files() if _loads(name, (LIBRARY,))]


def streamlit_offenders() -> set[str]:
    return {name for name in library_modules() for item in imports_of(name) if _loads(item.module, ("streamlit",))}


def torch_offenders() -> set[str]:
    """Modules that must stay free of torch but import it (at any level), or import at any level a project module
    that loads it when imported."""
    found = set()
    for name in project_files():
        if not _loads(name, TORCH_FREE):
            continue
        for item in imports_of(name):
            if item.type_checking:
                continue
            if _loads(item.module, TORCH) or item.module in torch_loaders():
                found.add(name)
    return found


def circles() -> set[frozenset[str]]:
    """The strongly connected components of more than one module (or a module importing itself), Tarjan's way."""
    graph = {
        name: {item.module for item in imports_of(name) if item.module in project_files()} for name in project_files()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in graph[node]:
            if successor not in index:
                connect(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph[node]:
                found.add(frozenset(component))

    for name in graph:
        if name not in index:
            connect(name)
    return found


def inner_import_offenders() -> set[tuple[str, str]]:
    """(importer, imported) of every project module imported inside a function, but a light module's commented
    deferral of one that loads torch."""
    found = set()
    for name in project_files():
        for item in imports_of(name):
            if not (item.in_function and is_project(item.module)) or item.type_checking:
                continue
            deferred_torch = item.commented and item.module in torch_loaders() and name not in torch_loaders()
            if not deferred_torch:
                found.add((name, item.module))
    return found


def room_of(module: str) -> str:
    """The room a module stands in, as docs/architecture.md names it: a folder of attnviz/ ("view/"), a loose module
    of its top floor ("run"; the package face is "__init__"), or the app ("app.py", "app_pages/")."""
    if module == "app":
        return "app.py"
    parts = module.split(".")
    if parts[0] != LIBRARY:
        return parts[0] + "/"
    if len(parts) == 1:
        return "__init__"
    return parts[1] + "/" if (ROOT / LIBRARY / parts[1]).is_dir() else parts[1]


@cache
def floors() -> dict[str, int]:
    """Room → floor, read from the floor table of docs/architecture.md: each row `| n | `room` `room` … | … |`."""
    found = {}
    for line in (ROOT / ARCHITECTURE).read_text(encoding="utf-8").splitlines():
        row = re.match(r"^\|\s*(\d+)\s*\|([^|]*)\|", line)
        if row:
            for room in re.findall(r"`([^`]+)`", row.group(2)):
                found[room] = int(row.group(1))
    return found


def unplaced_rooms() -> set[str]:
    return {room_of(name) for name in project_files()} - set(floors())


def upward_imports() -> set[tuple[str, str]]:
    """(importer's room, imported room) of every import, at any level and under TYPE_CHECKING too, that reaches a room
    on the same floor or higher (a room's own modules import each other freely)."""
    floor = floors()
    found = set()
    for name in project_files():
        for item in imports_of(name):
            if item.module not in project_files():
                continue
            source, target = room_of(name), room_of(item.module)
            if source != target and floor.get(target, 0) >= floor.get(source, 0):
                found.add((source, target))
    return found


def top_floor_modules() -> list[str]:
    return sorted(path.name for path in (ROOT / LIBRARY).glob("*.py"))


def _said(offender) -> str:
    if isinstance(offender, frozenset):
        return " <-> ".join(sorted(offender))
    return " -> ".join(offender) if isinstance(offender, tuple) else offender


def check(found: set, pending: set, rule: str) -> None:
    new, fixed = found - pending, pending - found
    assert not new, f"{rule}: {sorted(map(_said, new))}"
    assert not fixed, f"{rule}: no longer offending, remove from its allow-list: {sorted(map(_said, fixed))}"


def test_the_library_never_imports_streamlit():
    check(streamlit_offenders(), PENDING_STREAMLIT, "attnviz/ imports streamlit (only app.py and app_pages/ may)")


def test_the_right_of_the_attention_line_loads_no_torch():
    check(torch_offenders(), PENDING_TORCH, "loads torch or transformers (numpy in, numpy or figures out)")


def test_no_import_circle():
    check(circles(), PENDING_CIRCLES, "import circle (imports at any level; TYPE_CHECKING ones excluded)")


def test_project_modules_are_imported_at_the_top():
    check(inner_import_offenders(), PENDING_INNER_IMPORTS, "project module imported inside a function")


def test_every_room_stands_on_a_floor():
    assert not unplaced_rooms(), f"rooms missing from the floor table of {ARCHITECTURE}: {sorted(unplaced_rooms())}"


def test_no_import_runs_up_the_floors():
    check(upward_imports(), PENDING_UPWARD, f"import of a room on the same or a higher floor ({ARCHITECTURE})")


def test_the_top_floor_keeps_the_faces_and_the_contract():
    assert len(top_floor_modules()) <= TOP_FLOOR_MOST, f"loose modules in attnviz/: {top_floor_modules()}"


@pytest.fixture
def fresh_reading():
    """The cached reading of the source forgotten before and after a test that reads another tree."""
    caches = (project_files, imports_of, torch_loaders, floors)
    for function in caches:
        function.cache_clear()
    yield
    for function in caches:
        function.cache_clear()


def test_the_rules_find_what_they_are_for(tmp_path, monkeypatch, fresh_reading):
    """An inner import, a circle, torch and streamlit where they must not be, in a small tree of the same shape; a
    commented deferral of a module that loads torch passes."""
    package = tmp_path / LIBRARY
    (package / "figures").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "figures" / "__init__.py").write_text("from attnviz import c\n")
    (package / "a.py").write_text("def f():\n    from attnviz import b\n")
    (package / "b.py").write_text("import streamlit\nfrom attnviz.a import f\n")
    (package / "c.py").write_text("import torch\n")
    (package / "d.py").write_text("def f():\n    from attnviz import c  # torch: only when f runs\n")
    (package / "e.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from attnviz import d\n")
    (package / "f.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from attnviz import e\n")
    (package / "d.py").write_text(
        (package / "d.py").read_text()
        + "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from attnviz import f\n"
    )
    (tmp_path / "docs").mkdir()
    (tmp_path / ARCHITECTURE).write_text("| floor | rooms |\n|---|---|\n| 1 | `c` `a` `b` |\n| 2 | `figures/` `d` |\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert inner_import_offenders() == {("attnviz.a", "attnviz.b")}
    assert circles() == {frozenset({"attnviz.a", "attnviz.b"}), frozenset({"attnviz.d", "attnviz.e", "attnviz.f"})}
    assert unplaced_rooms() == {"__init__", "e", "f"}
    # a and b share floor 1; e (unplaced: floor 0) reaches d on floor 2 under TYPE_CHECKING; d -> f runs down
    assert upward_imports() == {("a", "b"), ("b", "a"), ("e", "d"), ("f", "e")}  # e and f: both floor 0
    assert torch_offenders() == {"attnviz.figures"}
    assert streamlit_offenders() == {"attnviz.b"}
    with pytest.raises(AssertionError, match="inside a function"):
        check(inner_import_offenders(), set(), "project module imported inside a function")
    with pytest.raises(AssertionError, match="remove from its allow-list"):
        check(set(), {("attnviz.a", "attnviz.b")}, "project module imported inside a function")
