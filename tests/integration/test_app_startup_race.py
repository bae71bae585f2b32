"""Pages opened while the server starts: no figure may fail because another session (or the warm-up) is importing a
library at that moment. Each test runs a fresh Python, so that nothing is imported yet, as on a fresh server."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import plotly

from app_pages.shared import startup

ROOT = Path(__file__).resolve().parents[2]

# The server's lifespan runs (its warm-up thread left out: only what it does before serving counts)
SERVED = """
import asyncio, importlib.util, json, sys, threading
from app_pages.shared import startup
startup._warm_up_after_first_page = lambda: None
async def serve():
    async with startup.lifespan(None):
        pass
asyncio.run(serve())
"""

# … then two sessions at once: one draws its first table (Streamlit's dataframe imports pandas), the other draws
# figures all the while.
RACE = (
    SERVED
    + """
from attnviz.figures.heatmap import heatmap
from tests.support.maps import seed_pair_map
amap = seed_pair_map()
errors, drawn, done = [], [], threading.Event()
def figures():
    while not done.is_set():
        try:
            heatmap(amap).to_json()
            drawn.append(1)
        except Exception as error:
            errors.append(repr(error))
            return
def first_table():
    import pandas  # noqa: F401
    done.set()
drawing = threading.Thread(target=figures)
drawing.start()
table = threading.Thread(target=first_table)
table.start()
table.join(); drawing.join()
print(json.dumps({"errors": errors, "drawn": len(drawn)}))
"""
)

LEFT_HALF_BUILT = (
    SERVED
    + """
names = json.loads(sys.argv[1])
status = {}
for name in names:
    module = sys.modules.get(name)
    status[name] = module is not None and not getattr(module.__spec__, "_initializing", False)
print(json.dumps(status))
"""
)


def _fresh_python(script: str, *arguments: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    run = subprocess.run(
        [sys.executable, "-c", script, *arguments], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_figures_drawn_while_another_session_imports_pandas_never_fail():
    outcome = _fresh_python(RACE)
    assert outcome["errors"] == []
    assert outcome["drawn"] > 0  # the figures were really drawn while the other session imported


def _peeked_by_plotly() -> set[str]:
    """Every module plotly looks up in `sys.modules` without importing it (`get_module(name, should_load=False)`),
    read from plotly's own sources, and installed here."""
    peeked = set()
    site = Path(plotly.__file__).parent.parent
    for folder in ("plotly", "_plotly_utils"):
        for source in (site / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
                if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "get_module"):
                    continue
                keywords = {k.arg: k.value for k in node.keywords}
                if isinstance(keywords.get("should_load"), ast.Constant) and keywords["should_load"].value is False:
                    peeked.add(node.args[0].value)
    return {name for name in peeked if importlib.util.find_spec(name.split(".")[0]) is not None}


def test_the_server_imports_whole_every_module_plotly_peeks_at_before_serving():
    peeked = _peeked_by_plotly()
    assert {"numpy", "pandas"} <= peeked  # the reader finds what plotly 7's validators look up
    assert peeked <= set(startup.PEEKED_BY_PLOTLY)
    status = _fresh_python(LEFT_HALF_BUILT, json.dumps(sorted(peeked)))
    assert status == {name: True for name in peeked}
