"""The demo package has no import circle, counting imports inside functions too: each module imports only those
the package docstring lists before it."""

from __future__ import annotations

import ast
from pathlib import Path

DEMO = Path(__file__).resolve().parents[2] / "attnviz" / "demo"


def demo_imports() -> dict[str, set[str]]:
    """module name → the demo modules it imports anywhere in its source (top level or inside a function)."""
    graph = {}
    for path in sorted(DEMO.glob("*.py")):
        name = path.stem
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "attnviz.demo":
                found |= {alias.name for alias in node.names if (DEMO / f"{alias.name}.py").exists()}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("attnviz.demo."):
                found.add(node.module.split(".")[2])
            elif isinstance(node, ast.Import):
                found |= {a.name.split(".")[2] for a in node.names if a.name.startswith("attnviz.demo.")}
        graph[name] = found - {name}
    return graph


def test_the_demo_package_has_no_import_circle():
    graph = demo_imports()
    assert graph["train"] >= {"config", "evaluate"} and "card" not in graph["train"]
    assert graph["evaluate"] >= {"card", "config"} and "train" not in graph["evaluate"]
    assert not graph["card"] & {"train", "evaluate"}
    order, done = [], set()
    while len(done) < len(graph):  # peel off modules whose imports are all placed; a circle would leave some
        ready = sorted(name for name, needs in graph.items() if name not in done and needs <= done)
        assert ready, f"import circle among {sorted(set(graph) - done)}"
        order += ready
        done |= set(ready)
