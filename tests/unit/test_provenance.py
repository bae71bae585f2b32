"""Provenance: what made a capture (model, revision or weights hash, device, dtype, versions, texts, options, time),
built from a loaded model, kept by the capture and its JSON/NPZ files, and added to for each figure."""

from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from attnviz import __version__, export, provenance
from attnviz.errors import InputError
from attnviz.model.catalogue import catalogue, catalogue_folders
from tests.support.maps import seed_pair_map

MOMENT = datetime(2025, 5, 1, 9, 30, 5, 123, tzinfo=timezone.utc)


def test_catalogue_and_hub_models_say_where_they_came_from():
    entries = catalogue()
    layer = torch.nn.Linear(2, 2)
    handle = SimpleNamespace(
        name="org/some-model", path=None, model=layer, kind="encoder", num_layers=1, num_heads=1, device="cuda:0"
    )
    layer.config = SimpleNamespace(_commit_hash="0123abcd")
    record = provenance.build_provenance(handle, "text", hash_weights=False)
    assert record["model"]["source"] == "hub" and record["model"]["revision"] == "0123abcd"
    assert record["model"]["weights_sha256"] is None and record["device"] == "cuda:0" and record["dtype"] is None
    if entries:  # the demo models and MiniLM, where they are installed
        named = SimpleNamespace(**{**vars(handle), "name": entries[0].name, "path": entries[0].path})
        assert provenance.build_provenance(named, "", hash_weights=False)["model"]["source"] == "catalogue"


def test_a_capture_s_provenance_reads_no_model_file(monkeypatch):
    catalogue_folders()  # what is installed is looked up once per process
    provenance.versions()  # … and the packages' versions (importlib.metadata reads their METADATA files)
    handle = SimpleNamespace(
        name="demo-zh-en",
        path="assets/models/zh-en",
        model=torch.nn.Linear(2, 2),
        kind="encoder-decoder",
        num_layers=1,
        num_heads=1,
        device="cpu",
    )
    opened = []
    real_read = Path.read_text
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: opened.append(self) or real_read(self, *a, **k))
    record = provenance.build_provenance(handle, "早上好", hash_weights=False)
    assert record["model"]["source"] == "catalogue"
    assert opened == []  # a capture asks only the catalogue's names, not its cards (~2 ms a capture)


def test_view_provenance_adds_the_view_and_the_export_time():
    base = {"model": {"name": "demo-zh-en"}, "captured_at": "2025-05-01T09:30:05Z"}
    view = provenance.view_provenance(
        base, "alignment", {"layer": 2, "head": np.int64(0), "threshold": 0.1}, now=MOMENT + timedelta(hours=1)
    )
    assert view["view"] == {"name": "alignment", "options": {"layer": 2, "head": 0, "threshold": 0.1}}
    assert view["exported_at"] == "2025-05-01T10:30:05Z" and view["model"] == base["model"]
    assert "view" not in base  # the capture's own record is left as it was
    alone = provenance.view_provenance(None, "explainer")
    assert alone["versions"]["attnviz"] == __version__ and alone["view"]["name"] == "explainer"


def test_an_old_file_without_provenance_loads_with_an_empty_one(tmp_path):
    data = export.capture_to_dict(seed_pair_map())
    data.pop("provenance")
    assert export.capture_from_dict(data).provenance == {}
    data["provenance"] = ["not", "an", "object"]
    with pytest.raises(InputError, match='"provenance" must be an object'):
        export.capture_from_dict(data)


def test_a_single_map_saves_with_the_provenance_it_is_given(tmp_path):
    record = provenance.view_provenance({"model": {"name": "demo-zh-en"}}, "heatmap", {"hide_special": True})
    capture = export.as_capture(seed_pair_map(), "demo-zh-en", "早上好！", provenance=record)
    assert export.load_capture(export.save_capture(capture, tmp_path / "m.json")).provenance == record
