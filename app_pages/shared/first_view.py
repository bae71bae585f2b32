"""The default view, computed ahead: what the first page shows while the server is still loading torch and the model.

A fresh server needs seconds to import torch and transformers and to load the default model; the first visitor would
stare at a spinner. So the default view's capture (the Translate & align page on the default text) is computed once by
the shipped model, through the very function the page uses (`caches.compute_analysis`), and saved beside the models:

    python -m app_pages.shared.save_first_view   # after retraining the default model, or changing what a capture holds

The page shows it only while the start-up load is still running (`server_load.loading`), only for exactly the input it
was computed for, only where the model would run on the CPU too (the device asked for, or ATTNVIZ_DEVICE for "auto", is
auto or cpu), only while the model's files are byte for byte the ones that computed it (SHA-256 in its manifest),
and only on a machine that computes the same bits (`computed_on`); and it says so in a line.

What decides the bits besides the model files is not the list of instruction sets a CPU has, but the kernels torch
dispatches to (`provenance.kernel_capability`: AVX2 or AVX512), the CPU's maker (whose BLAS kernels may differ),
torch's version and the app's thread count. Measured on one AVX-512 CPU: run as AVX2, it computes an AVX2 CPU's view
bit for bit; run as AVX512 (its default), the weights are the same bits but the written tokens' probabilities differ
in their last bits. So a view is saved for each capability the saving CPU runs, and the page takes the one computed
as it computes. When none fits, the log says why at warning level and the page says so in a line (it then waits for
the model). Once the model is loaded, every page computes from the model again (the same numbers:
tests/integration/test_first_view.py checks the saved capture against a fresh one, bit for bit).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from app_pages.shared import opened, server_load
from app_pages.shared.state import ViewState
from attnviz import settings
from attnviz.export.schema import capture_from_npz
from attnviz.model.catalogue import ASSETS, catalogue_folder
from attnviz.provenance import cpu_vendor, kernel_capability, versions

log = logging.getLogger("attnviz.app")

FOLDER = ASSETS / "first-view"
NOT_HASHED = ("README.md", "training.json", "heads.json")  # the card and training records: nothing computed reads them


@dataclass(frozen=True)
class NotUsed:
    """Why the view computed ahead for the view's input is not shown: an i18n key and its words."""

    key: str
    words: dict = field(default_factory=dict)


def input_of(view: ViewState) -> dict:
    """What a capture of the view depends on, as the page asks for it (`caches.analysis`)."""
    return {
        "model": view.model,
        "text": view.text,
        "target": view.target if view.mode == "pair" else "",
        "mode": view.mode,
        "truncate": view.truncate,
    }


def computed_on() -> dict:
    """What decides the last bits of the view's numbers besides the model files: the CPU kernels torch dispatches
    to, the CPU's maker, the torch version and the app's thread count (read without importing torch)."""
    return {
        "capability": kernel_capability(),
        "vendor": cpu_vendor(),
        "torch": versions()["torch"],
        "threads": settings.current().torch_threads,
    }


def described(machine: dict) -> str:
    """A `computed_on` as a line says it: "AVX2 · AuthenticAMD · torch 2.13.0+cpu · 1 thread(s)"."""
    return " · ".join(
        [str(machine.get("capability")), str(machine.get("vendor")), f"torch {machine.get('torch')}"]
        + [f"{machine.get('threads')} thread(s)"]
    )


def model_files_sha256(folder: Path) -> dict[str, str]:
    """SHA-256 of every file the model loads from (weights, configs, tokenizer), by file name."""
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.iterdir())
        if path.is_file() and path.name not in NOT_HASHED
    }


@functools.lru_cache(maxsize=8)  # keyed by the model a visitor names (a link may name any): kept bounded
def _saved(name: str) -> tuple[dict, bool] | None:
    """(the manifest saved for the model `name` — {"input", "files_sha256", "views": [{"file", "computed_on"}]} —,
    whether the model's files are byte for byte those that computed it), read and hashed once per process; None
    when there is none or it cannot be read."""
    folder, manifest_path = catalogue_folder(name), FOLDER / f"{name}.json"
    if folder is None or not manifest_path.is_file():
        return None
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        return manifest, manifest.get("files_sha256") == model_files_sha256(folder)
    except Exception:  # a damaged file: the page computes from the model instead
        log.warning("could not read the first view of %s", name, exc_info=True)
        return None


@functools.lru_cache(maxsize=8)  # one per saved view: a few files
def _capture(path: Path):
    """A saved view's capture, or None when it cannot be read."""
    try:
        return capture_from_npz(path)
    except Exception:  # a damaged file: the page computes from the model instead
        log.warning("could not read the first view %s", path.name, exc_info=True)
        return None


def lookup(view: ViewState) -> tuple[opened.Opened | None, NotUsed | None]:
    """(the capture computed ahead for the view's input, while the start-up load is still running, or None; why one
    saved for this very input is not used here, or None). Another input or device, or no load running, is no
    reason to say anything: the page computes from the model as it always does."""
    if not server_load.loading() or _device(view) not in ("auto", "cpu"):
        return None, None
    saved = _saved(view.model)
    if saved is None or saved[0].get("input") != input_of(view):
        return None, None
    manifest, files_match = saved
    if not files_match:
        log.warning("the first view of %s was computed by other model files: not shown", view.model)
        return None, NotUsed("first_view_unused_files", {"model": view.model})
    here = computed_on()
    view_here = next((saved for saved in manifest.get("views", []) if saved.get("computed_on") == here), None)
    capture = None if view_here is None else _capture(FOLDER / view_here["file"])
    if capture is None:  # computed for other kernels, maker, torch or thread count: other last bits
        saved = " / ".join(described(saved.get("computed_on", {})) for saved in manifest.get("views", []))
        log.warning("the first view of %s was computed on %s, not %s: not shown", view.model, saved, described(here))
        return None, NotUsed("first_view_unused_machine", {"saved": saved, "here": described(here)})
    return opened.Opened(capture, opened.captured_model(capture), view_here["file"], opened.view_input(view)), None


def current(view: ViewState) -> opened.Opened | None:
    """The capture computed ahead for the view's input, while the start-up load is still running; else None."""
    return lookup(view)[0]


def _device(view: ViewState) -> str:
    """The device the view asks for, with "auto" as the deployment sets it (ATTNVIZ_DEVICE)."""
    return settings.current().device if view.device == "auto" else view.device
