"""Bad input everywhere right of capture: each is an InputError whose message says what to do — never a KeyError,
JSONDecodeError, ZeroDivisionError or a raw ValueError — and on the command line one line on stderr and exit code 2.
"""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attnviz import export, figures
from attnviz.attention.capture import capture
from attnviz.attention.walkthrough import walkthrough
from attnviz.cli import main
from attnviz.errors import AttnvizError, InputError, ResourceLimitError
from attnviz.maps import analysis, head_stats, word_merge
from attnviz.model.devices import device_report
from attnviz.model.load import load_model
from attnviz.run import RunRequest, run
from attnviz.types import AttentionMap, Token
from tests.support.cli import numbered
from tests.support.maps import random_map, seed_pair_map, tokens_from

ROOT = Path(__file__).resolve().parents[2]


def _sentence(error: BaseException) -> str:
    """The message of an attnviz error: a sentence (or two) for a person, not a repr or a traceback."""
    message = str(error)
    assert len(message) > 20 and message.rstrip(")").endswith("."), message
    assert "Traceback" not in message and "\n" not in message
    return message


def _map(layers: int = 2, heads: int = 3, causal: bool = False) -> AttentionMap:
    return random_map(tokens_from(["The", "cat", "sat"]), layers=layers, heads=heads, causal=causal)


# ----------------------------------------------------------------------------------------------------------------------
# Layer and head indices


@pytest.mark.parametrize(
    "selection, expected",
    [
        (dict(layers=2), "Layer 2 does not exist; the map has 2 layers (0–1, or −2 to −1"),
        (dict(layers=-3), "Layer -3 does not exist; the map has 2 layers"),
        (dict(heads=3), "Head 3 does not exist; the map has 3 heads (0–2"),
        (dict(heads=-4), "Head -4 does not exist"),
        (dict(heads=[0, 99]), "Head 99 does not exist"),
        (dict(layers=[]), "Choose at least one layer; the map has 2 layers (0–1"),
        (dict(heads=()), "Choose at least one head"),
        (dict(heads=1.0), "must be an integer"),
        (dict(heads=True), "must be an integer"),
        (dict(layers="all"), "must be an integer"),
        (dict(layers=[0, "1"]), "must be an integer"),
        (dict(heads=object()), "must be an integer"),
    ],
)
def test_out_of_range_layers_and_heads_name_the_valid_range(selection, expected):
    amap = _map()
    for call in (
        lambda: analysis.aggregate(amap, **selection),
        lambda: figures.heatmap(amap, **selection),
        lambda: figures.alignment(amap, **selection),
        lambda: figures.grid(amap, **selection),
        lambda: figures.head_lines(amap, **selection),
    ):
        with pytest.raises(InputError) as caught:
            call()
        assert expected in _sentence(caught.value)


def test_numpy_indices_and_arrays_are_selections_too():
    amap = _map()
    np.testing.assert_array_equal(analysis.aggregate(amap, np.int64(1), np.array([2])), amap.weights[1, 2])


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda m: analysis.crop(m, queries=(2, 2)), "start < stop"),
        (lambda m: analysis.crop(m, keys=(0, 9)), "not inside 0–3"),
        (lambda m: analysis.crop(m, queries=(-1, 2)), "not inside"),
        (lambda m: analysis.crop(m, queries=5), "pair of integers"),
        (lambda m: analysis.crop(m, queries=("a", "b")), "pair of integers"),
        (lambda m: analysis.hide_tokens(m, keys=[7]), "Key 7 does not exist"),
        (lambda m: analysis.hide_tokens(m, keys=[0, 1, 2]), "hide fewer tokens"),
        (lambda m: analysis.rollout(seed_pair_map()), "Rollout needs self-attention"),
        (lambda m: analysis.rollout(m, heads=[5]), "Head 5 does not exist"),
        (lambda m: analysis.aggregate(m, head_reduce="median"), "'mean' or 'max'"),
        (lambda m: analysis.downsample(np.ones((3, 3)), 0, 1), "whole numbers ≥ 1"),
        (lambda m: analysis.downsample(np.ones((3, 3)), 1.5, 1), "whole numbers ≥ 1"),
        (lambda m: analysis.downsample(np.ones((2, 3, 3)), 1, 1), "one (queries, keys) matrix"),
        (lambda m: analysis.downsample(np.array([["a"]]), 1, 1), "matrix of numbers"),
        (lambda m: analysis.downsample(np.ones((3, 3)), 2, 2, pool="median"), "'max' or 'mean'"),
    ],
)
def test_bad_ranges_and_options_in_analysis(call, expected):
    with pytest.raises(InputError) as caught:
        call(_map())
    assert expected in _sentence(caught.value)


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda m: figures.heatmap(m, max_tokens=0), "max_tokens must be a whole number ≥ 1"),
        (lambda m: figures.heatmap(m, max_labels=-1), "max_labels"),
        (lambda m: figures.heatmap(m, zmax=float("nan")), "zmax must be a positive weight"),
        (lambda m: figures.heatmap(m, zmax=0), "zmax"),
        (lambda m: figures.heatmap(m, log_scale=True, log_floor=float("nan")), "log-scale floor"),
        (lambda m: figures.heatmap(m, pool="median"), "'max' or 'mean'"),
        (lambda m: figures.heatmap(m, query_range=(0, 9)), "not inside"),
        (lambda m: figures.heatmap(m, style=figures.FigureStyle(lang="fr")), "Unknown language 'fr'"),
        (lambda m: figures.alignment(m, threshold=float("nan")), "threshold must lie between 0 and 1"),
        (lambda m: figures.alignment(m, top_k=0), "top_k must be at least 1"),
        (lambda m: figures.alignment(m, top_k=2.5), "top_k must be at least 1"),
        (lambda m: figures.head_lines(m, levels=0), "levels must be a whole number ≥ 1"),
        (lambda m: figures.head_lines(m, threshold=1.5), "strictly between 0 and 1"),
        (lambda m: figures.head_lines(m, query=3), "Query 3 does not exist"),
        (lambda m: figures.head_lines(m, query="cat"), "Query cat does not exist"),
        (lambda m: figures.head_lines(m, combine="sum"), "combine must be"),
        (lambda m: figures.grid(m, max_cells=0), "max_cells"),
        (lambda m: figures.grid(m, pool="sum"), "'max' or 'mean'"),
        (lambda m: figures.statistic_grid(m, "beauty"), "Unknown head statistic"),
        (lambda m: figures.statistic_grid(seed_pair_map(), "distance"), "not defined for cross attention"),
    ],
)
def test_bad_figure_options(call, expected):
    with pytest.raises(InputError) as caught:
        call(_map())
    assert expected in _sentence(caught.value)


@pytest.mark.parametrize(
    "text, pieces, words",
    [
        ("the cat", [("the", 0, 3), (" ", 3, 4), ("cat", 4, 7)], ["the", " ", "cat"]),  # the space as its own piece
        ("the cats", [("the", 0, 3), (" cat", 3, 7), ("s", 7, 8)], ["the", " cats"]),  # a word led by its space
        ("goodmorning", [("good", 0, 4), ("", 4, 4), ("morn", 4, 8), ("ing", 8, 11)], ["good", "", "morning"]),
    ],
)
def test_spaces_kept_in_token_offsets_still_separate_words(text, pieces, words):
    tokens = [Token(piece, start, end) for piece, start, end in pieces]
    merged = word_merge.merge_words(random_map(tokens), text)
    assert [t.text for t in merged.key_tokens] == words
    np.testing.assert_allclose(merged.weights.sum(-1), 1.0, atol=1e-5)


# ----------------------------------------------------------------------------------------------------------------------
# Empty maps


def _empty(shape) -> AttentionMap:
    layers, _heads, queries, keys = shape
    return AttentionMap(
        "self",
        np.zeros(shape, np.float32),
        tokens_from(["a"] * queries, "a" * queries),
        tokens_from(["a"] * keys, "a" * keys),
        [f"l{i}" for i in range(layers)],
    )


@pytest.mark.parametrize("shape", [(0, 2, 3, 3), (2, 0, 3, 3), (2, 2, 0, 0)])
@pytest.mark.parametrize(
    "call",
    [
        analysis.aggregate,
        word_merge.merge_words,
        analysis.hide_tokens,
        analysis.rollout,
        head_stats.head_statistics,
        analysis.crop,
        figures.heatmap,
        figures.alignment,
        figures.grid,
        figures.head_lines,
        figures.statistic_grid,
    ],
)
def test_an_empty_map_is_refused_with_a_sentence(shape, call):
    with pytest.raises(InputError, match="empty") as caught:
        call(_empty(shape))
    _sentence(caught.value)


# ----------------------------------------------------------------------------------------------------------------------
# Explainer matrices: the walk-through, its figure and the mixture


GOOD_Q, GOOD_K, GOOD_V = figures.SEED_Q, figures.SEED_K, figures.SEED_V


@pytest.mark.parametrize(
    "q, k, v, expected",
    [
        (GOOD_Q, GOOD_K, GOOD_V[:3], "K and V need one row per key"),
        (GOOD_Q[:, :1], GOOD_K, GOOD_V, "Q and K need the same width"),
        ([], GOOD_K, GOOD_V, "Q is empty"),
        (np.zeros((0, 2)), GOOD_K, GOOD_V, "Q is empty"),
        (GOOD_Q, np.zeros((4, 0)), GOOD_V, "K is empty"),
        ([[1, float("nan")], [0, 1]], GOOD_K, GOOD_V, "Q has nan at row 0, column 1"),
        (GOOD_Q, GOOD_K, [[1, 1], [2, np.inf], [0, 2], [3, 1]], "V has inf at row 1, column 1"),
        ([[1, 2], [3]], GOOD_K, GOOD_V, "Q must be a matrix of numbers"),
        ([["a", "b"]], GOOD_K, GOOD_V, "Q must be a matrix of numbers"),
        (None, GOOD_K, GOOD_V, "Q must be a matrix of numbers"),
        (np.ones((2, 2, 2)), GOOD_K, GOOD_V, "Q must be a matrix (rows × columns); got 3 dimensions"),
        ([[1e200, 1e200]], [[1e200, 1e200]], [[1.0]], "overflows"),
    ],
)
def test_bad_explainer_matrices(q, k, v, expected):
    for call in (lambda: walkthrough(q, k, v), lambda: figures.explainer(walkthrough(q, k, v))):
        with pytest.raises(InputError) as caught:
            call()
        assert expected in _sentence(caught.value)


def test_a_single_vector_is_a_one_row_matrix():
    steps = walkthrough([1.0, 0.0], [[1.0, 0.0], [0.0, 1.0]], [[1.0], [2.0]])
    assert steps.weights.shape == (1, 2) and np.isclose(steps.weights.sum(), 1.0)


@pytest.mark.parametrize(
    "weights, expected",
    [
        ([], "sum to 1"),
        ([("鹿", 0.5), ("牛", 0.6)], "sum to 1"),
        ([("鹿", 1.5), ("牛", -0.5)], "non-negative"),
        ([("鹿", float("nan")), ("牛", 1.0)], "finite"),
        ([("鹿", float("inf"))], "finite"),
        ([("鹿", "half"), ("牛", 0.5)], "(key name, weight) pairs"),
        ([0.5, 0.5], "(key name, weight) pairs"),
        ([("鹿", 0.5, 1), ("牛", 0.5)], "(key name, weight) pairs"),
    ],
)
def test_bad_mixtures(weights, expected):
    with pytest.raises(InputError) as caught:
        figures.mixture(weights, [1.0])
    assert expected in _sentence(caught.value)


# ----------------------------------------------------------------------------------------------------------------------
# Capture files given back to the loader


def _good() -> dict:
    return export.capture_to_dict(seed_pair_map(layers=1, heads=2))


def _edited(edit) -> dict:
    data = _good()
    edit(data)
    return data


def _set_weight(value):
    def edit(data):
        data["maps"]["cross"]["weights"][0][0][0][0] = value

    return edit


WRONG_DICTS = {
    "a list": ([1, 2], "not an attnviz capture"),
    "another schema": ({"schema": "other", "version": 1}, "not an attnviz capture"),
    "version 2": (_edited(lambda d: d.update(version=2)), "schema version 2; this attnviz reads version 1"),
    "version true": (_edited(lambda d: d.update(version=True)), "schema version True"),
    "version missing": (_edited(lambda d: d.pop("version")), "schema version None"),
    "no maps": (_edited(lambda d: d.pop("maps")), 'no "maps"'),
    "maps a list": (_edited(lambda d: d.update(maps=[])), 'no "maps"'),
    "empty maps": (_edited(lambda d: d.update(maps={})), 'no "maps"'),
    "map a string": (_edited(lambda d: d["maps"].update(cross="x")), 'no "maps"'),
    "no weights": (_edited(lambda d: d["maps"]["cross"].pop("weights")), "incomplete or damaged (KeyError: 'weights')"),
    "no kind": (_edited(lambda d: d["maps"]["cross"].pop("kind")), "KeyError: 'kind'"),
    "unknown kind": (_edited(lambda d: d["maps"]["cross"].update(kind="sideways")), "Unknown attention map kind"),
    "ragged weights": (_edited(lambda d: d["maps"]["cross"]["weights"][0][0].append([1.0])), "incomplete or damaged"),
    "text weight": (_edited(_set_weight("x")), "incomplete or damaged"),
    "NaN weight": (_edited(_set_weight(float("nan"))), "NaN, infinite or negative"),
    "infinite weight": (_edited(_set_weight(float("inf"))), "NaN, infinite or negative"),
    "huge weight": (_edited(_set_weight(1e300)), "NaN, infinite or negative"),
    "negative weight": (_edited(_set_weight(-0.5)), "NaN, infinite or negative"),
    "3-d weights": (_edited(lambda d: d["maps"]["cross"].update(weights=[[[0.5]]])), "must have 4 dimensions"),
    "shape mismatch": (_edited(lambda d: d["maps"]["cross"].update(shape=[1, 1, 1, 1])), "header says"),
    "token without start": (_edited(lambda d: d["maps"]["cross"]["query_tokens"][0].pop("start")), "KeyError"),
    "token start text": (_edited(lambda d: d["maps"]["cross"]["query_tokens"][0].update(start="0")), "A token must"),
    "token start float": (_edited(lambda d: d["maps"]["cross"]["key_tokens"][0].update(end=1e400)), "A token must"),
    "token a number": (_edited(lambda d: d["maps"]["cross"]["key_tokens"].__setitem__(0, 5)), "damaged"),
    "tokens null": (_edited(lambda d: d["maps"]["cross"].update(query_tokens=None)), "damaged"),
    "too few tokens": (_edited(lambda d: d["maps"]["cross"]["query_tokens"].pop()), "do not match"),
    "layer names a number": (_edited(lambda d: d["maps"]["cross"].update(layer_names=5)), "layer_names"),
    "meta a list": (_edited(lambda d: d.update(meta=[1, 2])), '"meta" must be an object'),
    "steps a number": (_edited(lambda d: d.update(steps=5)), '"steps" must be a list'),
    "step without weights": (_edited(lambda d: d.update(steps=[{"token": {}}])), "damaged"),
    "step of wrong rank": (
        _edited(
            lambda d: d.update(
                steps=[{"token": {"text": "a", "start": 0, "end": 1, "special": False}, "self_weights": [0.5]}]
            )
        ),
        "must have 3 dimensions",
    ),
    "target a number": (_edited(lambda d: d.update(target_text=3)), '"target_text" must be a string'),
}


@pytest.mark.parametrize("name", list(WRONG_DICTS))
def test_wrong_capture_dicts_are_input_errors(name):
    data, expected = WRONG_DICTS[name]
    with pytest.raises(InputError) as caught:
        export.capture_from_dict(data)
    assert expected in _sentence(caught.value)


def _json_file(tmp_path, content: bytes | str, suffix: str = "json") -> Path:
    path = tmp_path / f"capture.{suffix}"
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"", "not valid JSON"),
        (b"   ", "not valid JSON"),
        (b"{", "not valid JSON"),
        (b'{"schema": "attnviz.capture", "version": 1, "maps": {"cross": {"weights": [[[[0.5', "not valid JSON"),
        (b"\xff\xfe\x00{", "not valid JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "nests too deeply"),
        (b"null", "not an attnviz capture"),
        (b'"just a string"', "not an attnviz capture"),
        (b"NaN", "not an attnviz capture"),
        (b'{"schema": "attnviz.capture", "version": "1"}', "schema version '1'"),
    ],
)
def test_malformed_json_files_are_input_errors(tmp_path, content, expected):
    with pytest.raises(InputError) as caught:
        export.load_capture(_json_file(tmp_path, content))
    assert expected in _sentence(caught.value)


def test_truncated_json_at_every_tenth_is_an_input_error(tmp_path):
    whole = export.capture_bytes(seed_pair_map(layers=1, heads=1), "json")
    for cut in range(0, len(whole), max(1, len(whole) // 10)):
        with pytest.raises(InputError):
            export.load_capture(_json_file(tmp_path, whole[:cut]))


def test_a_byte_order_mark_is_not_an_error(tmp_path):
    whole = export.capture_bytes(seed_pair_map(), "json")
    loaded = export.load_capture(_json_file(tmp_path, b"\xef\xbb\xbf" + whole))
    np.testing.assert_array_equal(loaded["cross"].weights, seed_pair_map().weights)


def _npz(entries: dict) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **entries)
    return buffer.getvalue()


def _npz_with_header(header: dict, **arrays) -> bytes:
    return _npz({"header": np.array(json.dumps(header)), **arrays})


GOOD_NPZ = export.capture_to_npz(seed_pair_map(layers=1, heads=2))
_HEADER = json.loads(str(np.load(io.BytesIO(GOOD_NPZ))["header"]))
_WEIGHTS = np.load(io.BytesIO(GOOD_NPZ))["maps/cross/weights"]


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"", "not an NPZ archive"),
        (b"hello", "not an NPZ archive"),
        (b"PK\x03\x04 not really a zip", "not an NPZ archive"),
        (GOOD_NPZ[: len(GOOD_NPZ) // 2], "not an NPZ archive"),
        (GOOD_NPZ[:-10], "not an NPZ archive"),
        (GOOD_NPZ[:200] + bytes(50) + GOOD_NPZ[250:], ""),
        (_npz({"weights": np.ones(3)}), "KeyError"),
        (_npz({"header": np.array("{not json")}), "damaged"),
        (_npz({"header": np.array(["a", "b"])}), "damaged"),
        (_npz({"header": np.array(1.0)}), "not an attnviz capture"),
        (_npz_with_header({**_HEADER, "version": 7}, **{"maps/cross/weights": _WEIGHTS}), "schema version 7"),
        (_npz_with_header(_HEADER), "KeyError"),
        (_npz_with_header(_HEADER, **{"maps/cross/weights": _WEIGHTS[..., :2]}), "header says"),
        (_npz_with_header(_HEADER, **{"maps/cross/weights": _WEIGHTS * np.nan}), "NaN"),
        (_npz_with_header(_HEADER, **{"maps/cross/weights": np.array([{"a": 1}], dtype=object)}), "damaged"),
        (
            _npz_with_header(
                {**_HEADER, "steps": [{"token": {"text": "a", "start": 0, "end": 1}, "has_cross": False}]},
                **{"maps/cross/weights": _WEIGHTS},
            ),
            "KeyError",
        ),
    ],
)
def test_corrupt_npz_files_are_input_errors(tmp_path, content, expected):
    with pytest.raises(InputError) as caught:
        export.load_capture(_json_file(tmp_path, content, "npz"))
    assert expected in _sentence(caught.value)


def test_a_single_npy_array_is_not_a_capture(tmp_path):
    buffer = io.BytesIO()
    np.save(buffer, np.ones(3))
    with pytest.raises(InputError, match="single .npy array"):
        export.capture_from_npz(buffer.getvalue())
    with pytest.raises(InputError, match="not an NPZ archive"):
        export.capture_from_npz(b"not an archive")


@pytest.mark.parametrize("name", ["missing.json", "folder.json", "capture.txt", "capture"])
def test_paths_that_are_not_capture_files(tmp_path, name):
    (tmp_path / "folder.json").mkdir()
    (tmp_path / "capture.txt").write_text("{}")
    (tmp_path / "capture").write_text("{}")
    with pytest.raises(InputError) as caught:
        export.load_capture(tmp_path / name)
    _sentence(caught.value)


def test_texts_with_lone_surrogates_still_export_and_round_trip():
    tokens = [Token("a\ud800", 0, 1), Token("\udfff\r\n", 1, 2)]
    amap = random_map(tokens)
    loaded = export.capture_from_dict(json.loads(export.capture_bytes(amap, "json")))
    assert loaded["self"].key_tokens == tokens
    assert export.capture_from_npz(export.capture_bytes(amap, "npz"))["self"].query_tokens == tokens
    csv_text = export.capture_bytes(amap, "csv").decode("utf-8")
    assert "\\ud800" in csv_text and "\r" not in csv_text  # the carriage return is shown as ␍
    fig = figures.heatmap(amap)
    assert list(fig.layout.xaxis.ticktext) == ["a\ufffd", "\ufffd\\r\\n"]  # what a browser and a font can show
    assert export.figure_bytes(fig, "html").startswith(b"<!doctype html>")


AWKWARD_TOKENS = [
    Token(text, i, i + 1)
    for i, text in enumerate(
        ["早上", "👩\u200d👩\u200d👧", "שלום", "\x00", "\u202e", "</s>", "a\ud800", "é" * 40, "\n", " "]
    )
]


@pytest.mark.filterwarnings("ignore:Glyph")  # emoji are not in the packaged fonts: boxes, no crash
@pytest.mark.parametrize("view", ["heatmap", "alignment", "lines", "grid"])
def test_awkward_tokens_render_to_files(view):
    style = figures.FigureStyle(model="m\x00\ud800")
    fig = figures.VIEWS[view](random_map(AWKWARD_TOKENS, layers=1, heads=2, causal=True), style=style)
    for fmt, magic in (("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF-")):
        assert export.figure_bytes(fig, fmt, engine="static").startswith(magic), fmt


# ----------------------------------------------------------------------------------------------------------------------
# File names for downloads


@pytest.mark.parametrize(
    "text, suffix, expected",
    [
        ("早上好！", "png", "早上好！.png"),
        ("Good morning", ".svg", "Good_morning.svg"),
        ("../../etc/passwd", "", "etc_passwd"),
        ("C:\\Windows\\system32", "json", "C__Windows_system32.json"),
        ("  ...hidden", "csv", "hidden.csv"),
        ("a\x00b\x1bc\x7f", "", "abc"),
        ("line one\nline two\r\n", "", "line_one_line_two"),
        ("\u202egnp.exe", "", "gnp.exe"),  # a right-to-left override would disguise the extension
        ("👩\u200d👩\u200d👧 family", "", "👩👩👧_family"),
        ("مرحبا שלום", "", "مرحبا_שלום"),
        ("CON", "txt", "_CON.txt"),
        ("lpt1.tar", "", "_lpt1.tar"),
        ("", "png", "attnviz.png"),
        ("///", "png", "attnviz.png"),
        ("x\ud800y", "", "xy"),
        ("name", "../png", "name.png"),
        ("e\u0301", "", "é"),  # NFC: one character, as file systems on macOS and Linux then agree
    ],
)
def test_safe_filename(text, suffix, expected):
    assert export.safe_filename(text, suffix) == expected


def test_safe_filename_bounds_the_length_in_bytes_without_splitting_a_character():
    name = export.safe_filename("早" * 100_000, "png")
    stem = name.removesuffix(".png")
    assert set(stem) == {"早"} and len(stem.encode("utf-8")) <= export.MAX_NAME_BYTES
    assert len(export.safe_filename("a" * 1000, max_bytes=10)) == 10


# ----------------------------------------------------------------------------------------------------------------------
# Texts from the issue, through capture, analysis, figures and export


TEXTS = {
    "emoji and ZWJ": "👨\u200d👩\u200d👧\u200d👦 family 🏳️\u200d🌈 👍🏽",
    "right to left": "مرحبا بالعالم שלום עולם",
    "mixed scripts": "早上好 Good morning Привет 안녕 café",
    "controls": "a\x00b\x07c\x1b[31m red \x7f",
    "whitespace around": " \t spaced \n out \u3000",
}


@pytest.mark.parametrize("name", list(TEXTS))
def test_awkward_texts_go_through_the_whole_pipeline(tiny_folder, tmp_path, name):
    handle = load_model(tiny_folder("bert"), "cpu")
    result = capture(handle, TEXTS[name])
    amap = word_merge.merge_words(analysis.hide_tokens(result["self"], renormalize=True), TEXTS[name])
    np.testing.assert_allclose(amap.weights.sum(-1), 1.0, atol=1e-5)
    for fig in (figures.heatmap(amap), figures.alignment(amap), figures.grid(amap), figures.head_lines(amap)):
        assert fig.data
    path = export.save_capture(result, tmp_path / f"{export.safe_filename(TEXTS[name], 'json')}")
    loaded = export.load_capture(path)
    assert loaded.source_text == TEXTS[name] and loaded["self"].key_tokens == result["self"].key_tokens


def test_long_text_offers_truncation_then_every_view_still_draws(tiny_folder, monkeypatch):
    handle = load_model(tiny_folder("bert"), "cpu")
    text = ("早上好 good morning " * 6000)[:100_000]
    assert len(text) == 100_000
    with pytest.raises(ResourceLimitError, match="ATTNVIZ_MAX_CHARS") as caught:  # the default limit comes first
        capture(handle, text)
    _sentence(caught.value)
    monkeypatch.setenv("ATTNVIZ_MAX_CHARS", "200000")
    with pytest.raises(InputError, match="truncate") as caught:
        capture(handle, text)
    _sentence(caught.value)
    amap = capture(handle, text, truncate=True)["self"]
    assert len(amap.key_tokens) == handle.max_positions
    count = len(amap.key_tokens)
    fig = figures.heatmap(amap, max_tokens=64)
    assert fig.layout.meta["query_factor"] == -(-count // 64) > 1 and "downsampled" in fig.layout.title.text
    assert figures.grid(amap, max_cells=16).layout.meta["key_factor"] == -(-count // 16)


@pytest.mark.parametrize("text, target", [("", "Good morning"), ("早上好", ""), ("早上好", " \n"), ("", "")])
def test_pairs_with_an_empty_side(tiny_folder, text, target):
    handle = load_model(tiny_folder("marian"), "cpu")
    with pytest.raises(InputError, match="empty") as caught:
        capture(handle, text, target)
    _sentence(caught.value)


# ----------------------------------------------------------------------------------------------------------------------
# The command line: one line on stderr, exit code 2, no traceback, nothing written


def _cli(capsys, *argv) -> tuple[int, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exit_:
        code = exit_.code
    _, err = capsys.readouterr()
    return code, err


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("attnviz: error: ") and "Traceback" not in err, err
    return lines[0]


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    from tests.support import tiny

    return tiny.save_tiny("bert", tmp_path_factory.mktemp("bert"))


@pytest.mark.parametrize(
    "extra, expected",
    [
        (["--text", ""], "The text is empty"),
        (["--text", " \t "], "The text is empty"),
        (["--text", "x\udcff"], "broken characters"),  # what Python makes of invalid UTF-8 on the command line
        (["--text", "hi", "--layer", "7"], "Layer 7 does not exist; the map has 2 layers (0–1"),
        (["--text", "hi", "--layer", "-3"], "Layer -3 does not exist"),
        (["--text", "hi", "--head", "4"], "Head 4 does not exist; the map has 4 heads (0–3"),
        (["--text", "hi", "--head", "0,9"], "Head 9 does not exist"),
        (["--text", "hi", "--head", ","], "Choose at least one head"),
        (["--text", "hi", "--layer", "one"], "--layer takes an index"),
        (["--text", "hi", "--view", "lines", "--layer", "5"], "Layer 5 does not exist"),
        (["--text", "word " * 400], "truncate"),
    ],
)
def test_cli_bad_text_and_indices(capsys, tmp_path, bert, extra, expected):
    target = tmp_path / "out.png"
    code, err = _cli(capsys, "export", "--model", bert, *extra, "--engine", "static", "-o", target)
    assert code == 2 and expected in _one_line(err)
    assert os.listdir(tmp_path) == []  # nothing written, not even a temporary file


@pytest.mark.parametrize(
    "command, lang, words",
    [("capture", None, "has no target side"), ("export", "en", "has no target side"), ("export", "zh", "没有目标端")],
)
def test_cli_a_target_for_a_model_without_a_target_side_is_refused(capsys, tmp_path, bert, command, lang, words):
    out = tmp_path / ("out.json" if command == "capture" else "out.png")
    argv = [command, "--model", bert, "--text", "hello", "--target", "hallo", "-o", out]
    code, err = _cli(capsys, *argv, *(["--lang", lang] if lang else []))
    assert code == 2 and words in _one_line(err) and Path(bert).name in _one_line(err)
    assert os.listdir(tmp_path) == []  # never a file that silently left the target out


def test_api_a_target_for_a_model_without_a_target_side_is_an_input_error(tiny_folder):

    for family in ("bert", "gpt2"):  # an encoder, a decoder: neither force-decodes a target
        handle = load_model(tiny_folder(family), "cpu")
        with pytest.raises(InputError) as raised:
            run(handle, RunRequest("hello", "hallo"))
        assert raised.value.key == "target_side_missing" and handle.kind in _sentence(raised.value)
        assert run(handle, RunRequest("hello", "")).kinds == ["self"]  # no target given: nothing to refuse
        assert run(handle, RunRequest("hello", "hallo", "generate")) is not None  # a target only read in pair mode


def test_cli_unknown_model_and_existing_output(capsys, tmp_path, bert):
    code, err = _cli(capsys, "capture", "--model", "no-such-model-anywhere", "--text", "hi", "-o", tmp_path / "a.json")
    assert code == 2 and "no-such-model-anywhere" in _one_line(err) and not (tmp_path / "a.json").exists()
    existing = tmp_path / "kept.json"
    existing.write_text("keep me")
    code, err = _cli(capsys, "capture", "--model", bert, "--text", "hi", "-o", existing)
    assert code == 2 and "--force" in _one_line(err) and existing.read_text() == "keep me"


def test_cli_unavailable_device_in_a_real_process(tmp_path, bert):
    if any(entry.name == "npu" and entry.available for entry in device_report("auto").entries):
        pytest.skip("an NPU is available here")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TORCH_DEVICE_BACKEND_AUTOLOAD": "0"}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "attnviz",
            "capture",
            "--model",
            bert,
            "--text",
            "hi",
            "--device",
            "npu",
            "-o",
            str(tmp_path / "a.json"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert run.returncode == 2 and "npu" in _one_line(run.stderr), run.stderr
    assert not (tmp_path / "a.json").exists()


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"\xff\xfe not utf-8 \x80", "is not a UTF-8 text file"),
        (b"\n  \n\t\n", "has no non-empty lines"),
        (b"fine\n\tonly a target\n", "line 2 of"),
        (b"fine\n" + b"word " * 400 + b"\n", "line 2 of"),
    ],
)
def test_cli_malformed_input_lines(capsys, tmp_path, bert, content, expected):
    lines = tmp_path / "lines.txt"
    lines.write_bytes(content)
    code, err = _cli(capsys, "capture", "--model", bert, "--input", lines, "-q", "-o", tmp_path / "out")
    assert code == 2 and expected in _one_line(err)


def test_cli_names_a_file_in_an_output_folder_after_the_text_safely(capsys, tmp_path, bert):
    folder = tmp_path / "out"
    folder.mkdir()
    code, err = _cli(capsys, "capture", "--model", bert, "--text", "../../x/早上好\x00!", "-o", folder)
    assert code == 0, err
    named = f"capture_{Path(bert).name}_x-早上好.json"  # what it holds: the model and the first words of the text
    assert os.listdir(tmp_path) == ["out"] and os.listdir(folder) == [named]
    code, err = _cli(capsys, "capture", "--model", bert, "--text", "../../x/早上好\x00!", "-o", folder)
    assert code == 2 and "--force" in _one_line(err)


def test_cli_input_lines_with_control_characters_still_work(capsys, tmp_path, bert):
    lines = tmp_path / "lines.txt"
    lines.write_bytes("a\x00b\x07 早上好\n👩\u200d👩\u200d👧 مرحبا\n".encode())
    code, err = _cli(capsys, "capture", "--model", bert, "--input", lines, "-q", "-o", tmp_path / "out")
    assert code == 0, err
    assert numbered(tmp_path / "out") == ["0001.json", "0002.json"]
    assert export.load_capture(sorted((tmp_path / "out").iterdir())[0]).source_text == "a\x00b\x07 早上好"


def test_attnviz_errors_are_value_errors_for_callers_that_catch_those():
    assert issubclass(InputError, AttnvizError) and issubclass(AttnvizError, ValueError)
    with pytest.raises(ValueError, match="Layer 9 does not exist"):
        analysis.aggregate(_map(), layers=9)
