"""The tutorial notebook (`docs/notebooks/tutorial.ipynb`) executed headless, as CI runs it, so it never rots.

Kernel setup: nbclient starts a kernel from a kernelspec written for this run by `ipykernel.kernelspec
.write_kernel_spec` into a temporary folder, whose command is the interpreter running pytest (`sys.executable -m
ipykernel_launcher`): the notebook runs with the same venv as the tests (in a checkout, `.venv`), whatever other
"python3" kernels a user's Jupyter folders hold. A `KernelSpecManager` that looks only in that folder hands it to
nbclient's `KernelManager`. The kernel starts in the repository root with the root on `PYTHONPATH` (this checkout's
`attnviz`, not an installed one) and inherits the tests' environment (`HF_HUB_OFFLINE=1`, no torch backend autoload):
the notebook reads the embedded `demo-zh-en` and needs no network.

Checked: every cell ran without an error; each `attnviz.show` output is a mime bundle with plotly's JSON and HTML,
plotly.js embedded in the first and in no other, no CDN script; the head the notebook draws is, trace for trace, the
figure the library draws in this process for the same options (Chinese labels included); the export wrote its file;
the committed notebook stores no outputs.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import nbformat
import plotly.io as pio
import pytest
import torch
from ipykernel.kernelspec import write_kernel_spec
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from plotly.offline import get_plotlyjs

import attnviz
from attnviz.notebook.show import PLOTLY_MIME

REPO = Path(__file__).resolve().parents[2]
TUTORIAL = REPO / "docs" / "notebooks" / "tutorial.ipynb"
KERNEL = "attnviz-tests"
CELL_TIMEOUT_S = 600  # loading the model and ALTI on two shared cores under pytest-xdist


def _kernel_manager(folder: Path) -> KernelManager:
    """A kernel manager whose only kernel runs this interpreter (see the module docstring)."""
    write_kernel_spec(folder / KERNEL)
    specs = KernelSpecManager(kernel_dirs=[str(folder)], ensure_native_kernel=False)
    return KernelManager(kernel_name=KERNEL, kernel_spec_manager=specs)


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """The tutorial after running every cell in a fresh kernel; a cell that raises fails the tests here."""
    notebook = nbformat.read(TUTORIAL, as_version=4)
    client = NotebookClient(
        notebook,
        km=_kernel_manager(tmp_path_factory.mktemp("kernels")),
        timeout=CELL_TIMEOUT_S,
        resources={"metadata": {"path": str(REPO)}},  # the kernel's working folder
    )
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    # the kernel computes on as many torch threads as this process (one under pytest-xdist), so that its weights
    # are bit-equal to the ones the test draws here: a float sum's last bit depends on how it was split over threads
    threads = str(torch.get_num_threads())
    client.execute(env={**os.environ, "PYTHONPATH": path, "OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads})
    return notebook


def _code_cells(notebook):
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def _figures(notebook) -> list[dict]:
    """Every plotly mime bundle the notebook displayed, in order."""
    outputs = [output for cell in _code_cells(notebook) for output in cell.outputs]
    return [output.data for output in outputs if output.output_type == "display_data" and PLOTLY_MIME in output.data]


def _stdout(notebook) -> str:
    streams = [output for cell in _code_cells(notebook) for output in cell.outputs if output.output_type == "stream"]
    return "".join(output.text for output in streams if output.name == "stdout")


def test_every_cell_ran_without_an_error(executed):
    cells = _code_cells(executed)
    assert cells and all(cell.execution_count for cell in cells)
    errors = [output for cell in cells for output in cell.outputs if output.output_type == "error"]
    assert errors == []


def test_each_show_is_a_plotly_bundle_with_plotlyjs_in_the_first_only(executed):
    bundles = _figures(executed)
    assert len(bundles) == 3  # the alignment, one head, ALTI+
    assert all(bundle[PLOTLY_MIME]["data"] and "text/html" in bundle for bundle in bundles)
    script = get_plotlyjs()[:2000]
    htmls = [bundle["text/html"] for bundle in bundles]
    assert script in htmls[0] and not any(script in html for html in htmls[1:])
    assert not any(re.search(r"<script[^>]*\bsrc=", html) for html in htmls)  # nothing fetched: no CDN


def test_the_notebooks_head_is_the_figure_the_library_draws(executed):
    handle = attnviz.load_model("demo-zh-en")
    result = attnviz.capture(handle, "早上好！", target="Good morning!")
    options = {"kind": "cross", "aggregation": "head", "layer": 2, "head": 1, "lang": "zh"}
    expected = attnviz.show(result, "heatmap", display=False, **options).figures["heatmap"]
    drawn = _figures(executed)[1][PLOTLY_MIME]
    assert drawn == json.loads(pio.to_json(expected))  # data and layout, through JSON as a front end reads them
    assert "早上" in json.dumps(drawn["layout"], ensure_ascii=False)  # Chinese labels as they are


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def test_the_explorer_shows_its_controls_and_the_figure_show_draws_for_their_values(executed):
    """The explorer's cell displays a widget; the notebook's saved widget state holds its Output, whose figure is the
    one `attnviz.show` draws for the head the cell moved the slider to."""
    views = [
        output.data[WIDGET_VIEW]
        for cell in _code_cells(executed)
        for output in cell.outputs
        if WIDGET_VIEW in output.get("data", {})
    ]
    assert len(views) == 1
    state = executed.metadata["widgets"][WIDGET_STATE]["state"]
    outputs = [model["state"]["outputs"] for model in state.values() if model["model_name"] == "OutputModel"]
    (shown,) = [output for listed in outputs for output in listed]
    handle = attnviz.load_model("demo-zh-en")
    result = attnviz.capture(handle, "早上好！", target="Good morning!")
    options = {"kind": "cross", "aggregation": "head", "layer": 2, "head": 0, "lang": "zh"}
    expected = attnviz.show(result, "heatmap", display=False, **options).figures["heatmap"]
    assert shown["data"][PLOTLY_MIME] == json.loads(pio.to_json(expected))
    sliders = {
        model["state"].get("description"): model["state"]["value"]
        for model in state.values()
        if model["model_name"] == "IntSliderModel"
    }
    assert sliders == {"层": 2, "头": 0}  # the controls, labelled in Chinese, hold what the figure shows


def test_the_printed_alignment_and_the_export(executed):
    printed = _stdout(executed)
    assert "Good →" in printed and "morning →" in printed
    assert "from the source" in printed
    assert re.search(r"head\.svg \d+ bytes", printed)


def test_the_committed_notebook_stores_no_outputs():
    notebook = nbformat.read(TUTORIAL, as_version=4)
    nbformat.validate(notebook)
    assert all(not cell.outputs and cell.execution_count is None for cell in _code_cells(notebook))
