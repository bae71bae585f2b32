"""Provenance of real captures: what a loaded tiny model, its weights hash and every capture mode record, and how
that record survives the capture's JSON and NPZ files."""

import json
import re
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest
import torch
import transformers

import attnviz
from app_pages.shared import first_view
from attnviz import __version__, export, provenance
from attnviz.attention.capture import capture, capture_batch
from attnviz.attention.generation import generate
from attnviz.attention.ondemand import capture_lazy
from attnviz.cli import main
from attnviz.export.schema import capture_from_npz
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
    assert model["name"] == Path(bert.path).name and model["source"] == "folder" and "path" not in model
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
    assert record["model"]["name"] == handle.name and "path" not in record["model"]
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


# ----------------------------------------------------------------------------------------------------------------------
# No local path in any file


def _no_local_path(data: bytes, folder: str) -> None:
    """Neither the folder's path nor the folders above it appear in `data` (as text, or escaped as JSON writes it)."""
    text = data.decode("utf-8", errors="replace")
    for shown in {folder, str(Path(folder).resolve()), str(Path(folder).resolve().parent)}:
        assert shown not in text and json.dumps(shown)[1:-1] not in text, shown


def test_no_capture_or_figure_file_records_where_the_model_lies(tmp_path, tiny_folder):

    folder = str(Path(tiny_folder("marian")).resolve())  # typed as an absolute path
    pair = ["--model", folder, "--text", "早上好", "--target", "Good morning"]
    for name in ("c.json", "c.npz"):
        assert main(["capture", *pair, "-o", str(tmp_path / name)]) == 0
    for name in ("f.html", "f.svg", "f.png", "f.pdf"):
        assert main(["export", *pair, "--view", "alignment", "--engine", "static", "-o", str(tmp_path / name)]) == 0
        stamped = export.read_stamp((tmp_path / name).read_bytes(), name[2:])  # the file's provenance, read back
        assert stamped["model"]["name"] == Path(folder).name
        _no_local_path(json.dumps(stamped).encode(), folder)
    for written in tmp_path.iterdir():
        data = written.read_bytes()
        if written.suffix == ".npz":  # a zip of arrays: its JSON parts are compressed
            with np.load(written, allow_pickle=False) as arrays:
                data = b"".join(arrays[key].tobytes() for key in arrays.files)
        _no_local_path(data, folder)
    record = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    model = record["provenance"]["model"]
    assert record["model"] == model["name"] == Path(folder).name and model["source"] == "folder"
    assert re.fullmatch(r"[0-9a-f]{64}", model["weights_sha256"])  # which weights, without where they lie


def test_a_catalogue_model_and_a_model_object_are_named_without_their_folder(tiny_folder):

    demo = load_model("demo-zh-en", "cpu")
    captured = attnviz.capture(demo, "早上好！", target="Good morning!")
    _no_local_path(json.dumps(captured.provenance).encode(), demo.path)
    assert captured.model == captured.provenance["model"]["name"] == "demo-zh-en"
    assert captured.provenance["model"]["source"] == "catalogue"
    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(demo.path)  # its folder, loaded by the caller
    tokenizer = transformers.AutoTokenizer.from_pretrained(demo.path)
    held = attnviz.capture(model, tokenizer, "早上好！", target="Good morning!")
    assert held.model == "demo-zh-en" and held.provenance["model"]["source"] == "object"
    _no_local_path(json.dumps(held.provenance).encode(), demo.path)
    folder = str(Path(tiny_folder("bert")).resolve())
    other = attnviz.capture(
        transformers.AutoModel.from_pretrained(folder), transformers.AutoTokenizer.from_pretrained(folder), "hi"
    )
    assert other.model == Path(folder).name


def _strings(value):
    """Every string in a JSON-like value (keys and values)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def test_the_shipped_capture_records_no_local_path():

    for saved in sorted(first_view.FOLDER.glob("*.npz")):
        shipped = capture_from_npz(saved)
        paths = [text for text in _strings(shipped.provenance) if Path(text).is_absolute() or "\\" in text]
        assert paths == [], saved.name  # where the machine that saved it kept the model means nothing here
        assert shipped.provenance["model"]["name"] == shipped.model
