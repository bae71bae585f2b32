"""Property-based: any capture survives JSON and NPZ unchanged, CSV has one row per weight, any text becomes a
file name every file system accepts, and an upload of any bytes is a capture or a refusal with a sentence."""

import csv
import dataclasses
import io
import json
import os
import unicodedata
from pathlib import PurePosixPath, PureWindowsPath

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from attnviz import export
from attnviz.errors import AttnvizError
from attnviz.types import GenerationStep
from tests.support.strategies import captures, json_values, property_settings


def _assert_same_capture(loaded, original) -> None:
    assert (loaded.model, loaded.device, loaded.source_text, loaded.target_text) == (
        original.model,
        original.device,
        original.source_text,
        original.target_text,
    )
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


@property_settings(100)
@given(
    view=st.sampled_from(["alignment", "heatmap", "", "CON", "a/b"]),
    model=st.none() | st.text(max_size=60),
    text=st.none() | st.text(st.characters(exclude_categories=()), max_size=400),
    layer=st.none() | st.integers(0, 99) | st.lists(st.integers(0, 99), max_size=4),
    head=st.none() | st.integers(0, 99) | st.sampled_from(["mean", "max"]),
)
def test_figure_filename_is_one_harmless_path_component(view, model, text, layer, head):
    name = export.figure_filename(view, "png", model=model, layer=layer, head=head, text=text)
    stem = name.removesuffix(".png")
    assert name.endswith(".png") and stem and _printable_name(name)
    assert PurePosixPath(name).name == name and PureWindowsPath(name).name == name
    assert not set('/\\:*?"<>|') & set(name) and not name.startswith((".", "-", " "))
    assert len(stem.encode("utf-8")) <= export.MAX_NAME_BYTES
    assert stem.split(".")[0].upper() not in {"CON", "PRN", "AUX", "NUL"}
    assert export.safe_filename(stem) == stem


# ---------------------------------------------------------------------------------------------------------------------
# uploads: hostile bytes


def _normalised(capture):
    """The capture with its generation steps' rows summing to 1, as real steps do (the strategy draws raw ones)."""

    def rows(weights):
        return None if weights is None else (weights + 1e-3) / (weights + 1e-3).sum(-1, keepdims=True)

    steps = (
        None
        if capture.steps is None
        else [GenerationStep(step.token, rows(step.self_weights), rows(step.cross_weights)) for step in capture.steps]
    )
    return dataclasses.replace(capture, steps=steps)


uploadable = st.builds(
    lambda capture, record: dataclasses.replace(_normalised(capture), provenance=record),
    captures(),
    st.dictionaries(st.text(max_size=8), json_values, max_size=5),
)


@property_settings(50)
@given(capture=uploadable, fmt=st.sampled_from(["json", "npz"]))
def test_an_upload_of_any_saved_capture_reads_back_unchanged(capture, fmt):
    loaded = export.read_capture_upload(export.capture_bytes(capture, fmt))
    _assert_same_capture(loaded, capture)
    assert loaded.provenance == capture.provenance


def _accepted_or_refused(data: bytes) -> None:
    """An upload either gives a capture whose rows sum to 1 and are finite, or raises one of attnviz's errors."""
    try:
        capture = export.read_capture_upload(data)
    except AttnvizError as error:
        assert error.message("en") and error.message("zh")
        return
    for amap in capture.maps.values():
        assert np.isfinite(amap.weights).all()
        np.testing.assert_allclose(amap.weights.sum(-1), 1.0, atol=1e-2)


@property_settings(120)
@given(
    capture=uploadable,
    fmt=st.sampled_from(["json", "npz"]),
    cut=st.none() | st.floats(0, 1),
    flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), max_size=6),
)
def test_a_damaged_upload_is_refused_with_a_sentence_or_still_a_capture(capture, fmt, cut, flips):
    data = bytearray(export.capture_bytes(capture, fmt))
    for where, value in flips:
        data[int(where * len(data))] = value
    if cut is not None:
        data = data[: int(cut * len(data))]
    _accepted_or_refused(bytes(data))


@property_settings(100)
@given(data=st.binary(max_size=2000) | st.builds(lambda b: b"PK\x03\x04" + b, st.binary(max_size=2000)))
def test_arbitrary_bytes_are_refused_with_a_sentence(data):
    _accepted_or_refused(data)


@property_settings(100)
@given(
    header=st.dictionaries(
        st.sampled_from(["model", "maps", "steps", "meta", "provenance", "shape", "x"]), json_values, max_size=5
    )
)
def test_capture_shaped_json_of_any_content_is_refused_with_a_sentence(header):
    data = {"schema": "attnviz.capture", "version": 1, **header}
    _accepted_or_refused(json.dumps(data).encode("utf-8"))
