"""Property-based: any capture survives JSON and NPZ unchanged, CSV has one row per weight, and any text becomes a
file name every file system accepts."""

import csv
import io
import json
import os
import unicodedata
from pathlib import PurePosixPath, PureWindowsPath

import numpy as np
from attention_strategies import captures, property_settings
from hypothesis import given
from hypothesis import strategies as st

from attnviz import export


def _assert_same_capture(loaded, original) -> None:
    assert (loaded.model, loaded.device, loaded.source_text, loaded.target_text) == (
        original.model, original.device, original.source_text, original.target_text)  # fmt: skip
    assert loaded.meta == original.meta and list(loaded.maps) == list(original.maps)
    for kind, amap in original.maps.items():
        other = loaded.maps[kind]
        assert other.weights.dtype == np.float32 and np.array_equal(other.weights, amap.weights)
        assert other.query_tokens == amap.query_tokens and other.key_tokens == amap.key_tokens
        assert (other.kind, other.causal, other.layer_names) == (amap.kind, amap.causal, amap.layer_names)
    assert (loaded.steps is None) == (original.steps is None)
    for step, expected in zip(loaded.steps or [], original.steps or [], strict=True):
        assert step.token == expected.token and np.array_equal(step.self_weights, expected.self_weights)
        if expected.cross_weights is None:
            assert step.cross_weights is None
        else:
            assert np.array_equal(step.cross_weights, expected.cross_weights)


@property_settings(70)
@given(capture=captures())
def test_json_round_trip_gives_equal_arrays_and_tokens(capture):
    data = export.capture_bytes(capture, "json")
    _assert_same_capture(export.capture_from_dict(json.loads(data.decode("utf-8"))), capture)


@property_settings(70)
@given(capture=captures())
def test_npz_round_trip_gives_equal_arrays_and_tokens(capture):
    _assert_same_capture(export.capture_from_npz(export.capture_bytes(capture, "npz")), capture)


@property_settings(50)
@given(capture=captures())
def test_csv_has_a_header_and_one_row_per_weight(capture):
    text = export.capture_bytes(capture, "csv").decode("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert tuple(rows[0]) == export.CSV_COLUMNS
    assert len(rows) == 1 + sum(amap.weights.size for amap in capture.maps.values())
    expected = np.concatenate([amap.weights.ravel() for amap in capture.maps.values()])
    np.testing.assert_array_equal(np.array([float(row[-1]) for row in rows[1:]], dtype=np.float32), expected)


def _printable_name(name: str) -> bool:
    return all(unicodedata.category(c)[0] != "C" for c in name)


@property_settings(150)
@given(
    text=st.text(st.characters(exclude_categories=()), max_size=300)
    | st.sampled_from(["..", ".", "../../etc/passwd", "CON", "nul.txt", "  ", "\u202egnp.exe", "a" * 10_000]),
    suffix=st.sampled_from(["", "png", ".json", "tar.gz"]),
)
def test_safe_filename_is_one_harmless_path_component(text, suffix):
    name = export.safe_filename(text, suffix)
    stem = name[: -len(suffix.lstrip(".")) - 1] if suffix else name
    assert name and stem and _printable_name(name)
    assert name.encode("utf-8")  # encodable: no lone surrogates
    assert PurePosixPath(name).name == name and PureWindowsPath(name).name == name  # one component, no drive
    assert not name.startswith((".", "-", " ")) and not stem.endswith((".", " "))
    assert not set('/\\:*?"<>|') & set(name) and os.sep not in name
    assert len(stem.encode("utf-8")) <= export.MAX_NAME_BYTES
    assert stem.split(".")[0].upper() not in {"CON", "PRN", "AUX", "NUL"}
    assert export.safe_filename(stem) == stem  # already safe: unchanged


@property_settings(60)
@given(words=st.lists(st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=6), min_size=1, max_size=4))
def test_safe_filename_keeps_letters_of_every_script(words):
    text = unicodedata.normalize("NFC", " ".join(words))  # at most 27 characters: never shortened
    expected = text.replace(" ", "_")
    assert export.safe_filename(text) in (expected, f"_{expected}")  # "_" before a Windows device name (CON, COM1)
