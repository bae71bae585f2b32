"""Every cache the app keeps is bounded: a server holding a classroom for hours keeps at most so many entries of
each (`max_entries` or `ttl` on every Streamlit cache, a `maxsize` on every functools cache of a function that takes
arguments), whatever its visitors type."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCES = sorted((REPO / "app_pages").rglob("*.py")) + [REPO / "app.py"]
STREAMLIT_CACHES = ("cache_data", "cache_resource")


def decorated(path: Path):
    """(function, decorator) of every decorated function in `path`."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                yield node, decorator


def name_of(decorator) -> str:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")


def keywords(decorator) -> dict:
    return {k.arg: k.value for k in decorator.keywords} if isinstance(decorator, ast.Call) else {}


def test_every_app_cache_is_bounded():
    unbounded, found = [], 0
    for path in SOURCES:
        for function, decorator in decorated(path):
            name, given = name_of(decorator), keywords(decorator)
            where = f"{path.relative_to(REPO)}:{function.lineno} {function.name}"
            if name in STREAMLIT_CACHES:
                found += 1
                if "max_entries" not in given and "ttl" not in given:
                    unbounded.append(where)
            elif name == "cache" or (
                name == "lru_cache"
                and isinstance(given.get("maxsize"), ast.Constant)
                and given["maxsize"].value is None
            ):
                if function.args.args:  # a cache of a function without arguments holds one value
                    unbounded.append(where)
    assert found > 10  # the caches are where this test looks for them
    assert not unbounded, unbounded
