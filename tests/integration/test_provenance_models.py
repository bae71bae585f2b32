"""Provenance of real captures: what a loaded tiny model, its weights hash and every capture mode record, and how
that record survives the capture's JSON and NPZ files."""

import json
import re
from datetime import datetime, timezone

import pytest
import torch
import transformers

from attnviz import __version__, export, provenance
from attnviz.attention.capture import capture, capture_batch
from attnviz.attention.generation import generate
from attnviz.attention.ondemand import capture_lazy
from attnviz.model.load import load_model
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


@pytest.mark.parametrize("suffix", ["json", "npz"])
def test_load_capture_round_trips_the_provenance(tmp_path, bert, suffix):
    record = provenance.build_provenance(bert, "早上好！", "Good Morning!", {"truncate": False}, now=MOMENT)
    capture = AttentionCapture(
        "demo-zh-en", "cpu", {"cross": seed_pair_map()}, "早上好！", "Good Morning!", provenance=record
    )
    loaded = export.load_capture(export.save_capture(capture, tmp_path / f"c.{suffix}"))
    assert loaded.provenance == record
    assert export.read_capture_upload((tmp_path / f"c.{suffix}").read_bytes()).provenance == record


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
    _made_by(capture(bert, "早上好").provenance, bert, "早上好", None, {"mode": "full", "truncate": False})
    pair = capture(marian, "早上好！", "Good morning!", truncate=True)
    _made_by(pair.provenance, marian, "早上好！", "Good morning!", {"mode": "full", "truncate": True})
    first, second = capture_batch(marian, ["早上好！", "晚安"], ["Good morning!", "Good night"])
    _made_by(first.provenance, marian, "早上好！", "Good morning!", {"mode": "full", "truncate": False})
    _made_by(second.provenance, marian, "晚安", "Good night", {"mode": "full", "truncate": False})


def test_a_generation_and_a_lazy_capture_say_what_made_them(marian):
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
    made = capture(marian, "早上好！", "Good morning!")
    loaded = export.load_capture(export.save_capture(made, tmp_path / f"c.{suffix}"))
    assert loaded.provenance == made.provenance and loaded.provenance["model"]["name"] == marian.name
