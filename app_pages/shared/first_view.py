"""The default view, computed ahead: what the first page shows while the server is still loading torch and the model.

A fresh server needs seconds to import torch and transformers and to load the default model; the first visitor would
stare at a spinner. So the default view's capture (the Translate & align page on the default text) is computed once by
the shipped model, through the very function the page uses (`caches.compute_analysis`), and saved beside the models:

    python -m app_pages.shared.save_first_view   # after retraining the default model, or changing what a capture holds

The page shows it only while the start-up load is still running (`server_load.loading`), only for exactly the input it
was computed for, only where the model would run on the CPU too (the device asked for, or ATTNVIZ_DEVICE for "auto", is
auto or cpu), only while the model's files are byte for byte the ones that computed it (SHA-256 in its manifest),
and only on a machine that computes the same bits (`computed_on`: the CPU, its kernel instruction sets, torch and the
app's thread count; another CPU sums in another order); and it says so in a line. Once the model is loaded, every
page computes from the model again (the same numbers: tests/integration/test_first_view.py checks the saved capture
against a fresh one, bit for bit).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from pathlib import Path

from app_pages.shared import opened, server_load
from app_pages.shared.state import ViewState
from attnviz import settings
from attnviz.export.schema import capture_from_npz
from attnviz.model.catalogue import ASSETS, catalogue_folder
from attnviz.provenance import machine, versions

log = logging.getLogger("attnviz.app")

FOLDER = ASSETS / "first-view"
NOT_HASHED = ("README.md", "training.json", "heads.json")  # the card and training records: nothing computed reads them


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
    """What decides the last bits of the view's numbers besides the model files: this machine's CPU and kernel
    instruction sets, the torch version and the app's thread count (read without importing torch)."""
    return {**machine(), "torch": versions()["torch"], "threads": settings.current().torch_threads}


def model_files_sha256(folder: Path) -> dict[str, str]:
    """SHA-256 of every file the model loads from (weights, configs, tokenizer), by file name."""
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.iterdir())
        if path.is_file() and path.name not in NOT_HASHED
    }


@functools.lru_cache(maxsize=8)  # keyed by the model a visitor names (a link may name any): kept bounded
def _saved(name: str):
    """(manifest, capture) saved for the model `name`, or None when there is none or its files changed since."""
    manifest_path, capture_path = FOLDER / f"{name}.json", FOLDER / f"{name}.npz"
    folder = catalogue_folder(name)
    if folder is None or not manifest_path.is_file() or not capture_path.is_file():
        return None
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("files_sha256") != model_files_sha256(folder):
            log.info("the first view of %s was computed by other model files: not shown", name)
            return None
        return manifest, capture_from_npz(capture_path)
    except Exception:  # a damaged file: the page computes from the model instead
        log.warning("could not read the first view of %s", name, exc_info=True)
        return None


def current(view: ViewState) -> opened.Opened | None:
    """The capture computed ahead for the view's input, while the start-up load is still running; else None."""
    if not server_load.loading() or _device(view) not in ("auto", "cpu"):
        return None
    saved = _saved(view.model)
    if saved is None or saved[0].get("input") != input_of(view):
        return None
    if saved[0].get("computed_on") != computed_on():  # another machine's bits: not what the model computes here
        log.info("the first view of %s was computed on another machine or thread count: not shown", view.model)
        return None
    manifest, capture = saved
    return opened.Opened(capture, opened.captured_model(capture), manifest["file"], opened.view_input(view))


def _device(view: ViewState) -> str:
    """The device the view asks for, with "auto" as the deployment sets it (ATTNVIZ_DEVICE)."""
    return settings.current().device if view.device == "auto" else view.device
