"""Provenance: what made a capture (model, revision or weights hash, device, dtype, versions, texts, options, time),
built from a loaded model, kept by the capture and its JSON/NPZ files, and added to for each figure."""

import json
import re
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import numpy as np
import pytest
import torch
import transformers

from attnviz import __version__, export, provenance
from attnviz.errors import InputError
from attnviz.models import load_model
from attnviz.types import AttentionCapture
from tests.support.maps import seed_pair_map

MOMENT = datetime(2025, 5, 1, 9, 30, 5, 123, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def bert(tiny_folder):
    return load_model(tiny_folder("bert"), "cpu")


def test_build_provenance_records_model_weights_device_versions_texts_options_and_time(bert):
    record = provenance.build_provenance(
        bert, "早上好", "Good morning", {"max_tokens": 64, "layers": (0, 1)}, now=MOMENT
    )
    model = record["model"]
    assert model["name"] == bert.name and model["source"] == "folder" and model["path"] == bert.path
    assert re.fullmatch(r"[0-9a-f]{64}", model["weights_sha256"])
    assert model["weights_bytes"] == sum(p.numel() * p.element_size() for p in bert.model.state_dict().values())
    assert (model["class"], model["kind"], model["layers"], model["heads"]) == (
        type(bert.model).__name__,
        bert.kind,
        bert.num_layers,
        bert.num_heads,
    )
    assert (record["device"], record["dtype"]) == ("cpu", "float32")
    assert record["versions"]["attnviz"] == __version__
    assert record["versions"]["transformers"] == transformers.__version__
    assert record["versions"]["torch"].split("+")[0] == torch.__version__.split("+")[0]
    assert (record["source_text"], record["target_text"]) == ("早上好", "Good morning")
    assert record["options"] == {"max_tokens": 64, "layers": [0, 1]}  # JSON-safe
    assert record["captured_at"] == "2025-05-01T09:30:05Z"
    json.dumps(record)  # every value is JSON


def test_the_weights_hash_names_the_weights_not_the_object(tiny_folder, bert):
    again = load_model(tiny_folder("bert"), "cpu")
    assert provenance.weights_sha256(again.model) == provenance.weights_sha256(bert.model)
    other = load_model(tiny_folder("marian"), "cpu")
    assert provenance.weights_sha256(other.model)[0] != provenance.weights_sha256(bert.model)[0]
    layer = torch.nn.Linear(3, 2)
    changed = torch.nn.Linear(3, 2)
    changed.load_state_dict(layer.state_dict())
    assert provenance.weights_sha256(changed) == provenance.weights_sha256(layer)
    with torch.no_grad():
        changed.weight[0, 0] += 1e-6
    fresh = torch.nn.Linear(3, 2)
    fresh.load_state_dict(changed.state_dict())
    assert provenance.weights_sha256(fresh)[0] != provenance.weights_sha256(layer)[0]
    assert provenance.weights_sha256(torch.nn.Linear(3, 2), max_bytes=8) == (None, 32)  # too large: not hashed


def test_catalogue_and_hub_models_say_where_they_came_from():
    from attnviz.catalogue import catalogue

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
    from pathlib import Path

    from attnviz.catalogue import catalogue_folders

    catalogue_folders()  # what is installed is looked up once per process
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


@pytest.mark.parametrize("suffix", ["json", "npz"])
def test_load_capture_round_trips_the_provenance(tmp_path, bert, suffix):
    record = provenance.build_provenance(bert, "早上好！", "Good Morning!", {"truncate": False}, now=MOMENT)
    capture = AttentionCapture(
        "demo-zh-en", "cpu", {"cross": seed_pair_map()}, "早上好！", "Good Morning!", provenance=record
    )
    loaded = export.load_capture(export.save_capture(capture, tmp_path / f"c.{suffix}"))
    assert loaded.provenance == record
    assert export.read_capture_upload((tmp_path / f"c.{suffix}").read_bytes()).provenance == record


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


@pytest.fixture(scope="module")
def marian(tiny_folder):
    return load_model(tiny_folder("marian"), "cpu")


def _made_by(record: dict, handle, source_text: str, target_text: str | None, options: dict) -> None:
    """`record` is the provenance of a capture made with `handle` from these texts with these options."""
    assert record["model"]["name"] == handle.name and record["model"]["path"] == handle.path
    assert record["model"]["weights_sha256"] == provenance.weights_sha256(handle.model)[0]
    assert (record["device"], record["dtype"]) == ("cpu", "float32")
    assert record["versions"] == provenance.versions()
    assert (record["source_text"], record["target_text"], record["options"]) == (source_text, target_text, options)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", record["captured_at"])


def test_a_capture_says_what_made_it(bert, marian):
    from attnviz.attention.capture import capture, capture_batch

    _made_by(capture(bert, "早上好").provenance, bert, "早上好", None, {"mode": "full", "truncate": False})
    pair = capture(marian, "早上好！", "Good morning!", truncate=True)
    _made_by(pair.provenance, marian, "早上好！", "Good morning!", {"mode": "full", "truncate": True})
    first, second = capture_batch(marian, ["早上好！", "晚安"], ["Good morning!", "Good night"])
    _made_by(first.provenance, marian, "早上好！", "Good morning!", {"mode": "full", "truncate": False})
    _made_by(second.provenance, marian, "晚安", "Good night", {"mode": "full", "truncate": False})


def test_a_generation_and_a_lazy_capture_say_what_made_them(marian):
    from attnviz.attention.generation import generate
    from attnviz.attention.ondemand import capture_lazy

    written = generate(marian, "早上好！", max_new_tokens=3)
    _made_by(
        written.provenance,
        marian,
        "早上好！",
        written.target_text,
        {"mode": "generate", "max_new_tokens": 3, "num_beams": 1},
    )
    lazy = capture_lazy(marian, "早上好！", "Good morning!")
    _made_by(lazy.provenance, marian, "早上好！", "Good morning!", {"mode": "lazy", "truncate": False})
    assert lazy.to_capture().provenance == lazy.provenance


@pytest.mark.parametrize("suffix", ["json", "npz"])
def test_a_captures_own_provenance_survives_its_file(tmp_path, marian, suffix):
    from attnviz.attention.capture import capture

    made = capture(marian, "早上好！", "Good morning!")
    loaded = export.load_capture(export.save_capture(made, tmp_path / f"c.{suffix}"))
    assert loaded.provenance == made.provenance and loaded.provenance["model"]["name"] == marian.name
