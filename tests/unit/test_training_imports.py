"""The training project has no import circle, counting imports inside functions too: each module imports only those
the package docstring lists before it; and attnviz never imports it (the product ships without it)."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TRAINING = REPO / "training"


def module_name(path: Path) -> str:
    """ "training.translator.train" for training/translator/train.py, "training.data" for its __init__.py."""
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, known: set[str]) -> set[str]:
    """The modules among `known` that `path` imports anywhere in its source (top level or inside a function);
    `from package import module` counts as importing that module."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found & known


def training_imports() -> dict[str, set[str]]:
    """module name → the training modules it imports, with the packages on the way ("training.translator")."""
    paths = sorted(TRAINING.rglob("*.py"))
    known = {module_name(path) for path in paths}
    return {module_name(path): imported_modules(path, known) - {module_name(path)} for path in paths}


def test_the_training_project_has_no_import_circle():
    graph = training_imports()
    train, evaluate, card = (graph[f"training.translator.{name}"] for name in ("train", "evaluate", "card"))
    assert train >= {"training.translator.config", "training.translator.evaluate"}
    assert "training.translator.card" not in train
    assert (
        evaluate >= {"training.translator.card", "training.translator.config"}
        and "training.translator.train" not in evaluate
    )
    assert not card & {"training.translator.train", "training.translator.evaluate"}
    assert not any(name.startswith("training.translator") for name in graph["training.decoder.train"])
    order, done = [], set()
    while len(done) < len(graph):  # peel off modules whose imports are all placed; a circle would leave some
        ready = sorted(name for name, needs in graph.items() if name not in done and needs <= done)
        assert ready, f"import circle among {sorted(set(graph) - done)}"
        order += ready
        done |= set(ready)


def top_package_imports(path: Path) -> set[str]:
    """The top-level packages `path` imports anywhere in its source ("attnviz", "torch", "training" …)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
    return names


def test_the_product_never_imports_the_training_project():
    product = [*sorted((REPO / "attnviz").rglob("*.py")), *sorted((REPO / "app_pages").rglob("*.py")), REPO / "app.py"]
    importing = [str(path.relative_to(REPO)) for path in product if "training" in top_package_imports(path)]
    assert not importing, f"the product imports the training project: {importing}"
