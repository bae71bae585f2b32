"""Uploaded capture files are hostile input: each way a file can be wrong is refused with a sentence that says
what is wrong (in English and 中文), before it costs more memory than the limits allow."""

import io
import json
import zipfile

import numpy as np
import pytest

from attnviz import export, i18n
from attnviz.errors import AttnvizError, InputError, ResourceLimitError
from attnviz.export.upload import UploadLimits, check_rows
from attnviz.types import AttentionCapture, GenerationStep
from tests.support.maps import random_map, seed_pair_map


def _capture() -> AttentionCapture:
    cross = seed_pair_map(layers=2, heads=2)
    decoder = random_map(cross.query_tokens, layers=2, heads=2, kind="decoder", causal=True)
    rng = np.random.default_rng(0)
    steps = []
    for index, token in enumerate(cross.query_tokens):
        self_w, cross_w = rng.random((2, 2, index + 1)), rng.random((2, 2, 4))
        steps.append(
            GenerationStep(
                token,
                (self_w / self_w.sum(-1, keepdims=True)).astype(np.float32),
                (cross_w / cross_w.sum(-1, keepdims=True)).astype(np.float32),
            )
        )
    return AttentionCapture(
        "demo-zh-en",
        "npu:0",
        {"cross": cross, "decoder": decoder},
        "早上好！",
        "Good Morning!",
        steps,
        provenance={"model": {"name": "demo-zh-en"}, "dtype": "bfloat16"},
    )


GOOD = _capture()
GOOD_JSON = export.capture_bytes(GOOD, "json")
GOOD_NPZ = export.capture_bytes(GOOD, "npz")


def _refused(data, key: str, error=InputError, limits: UploadLimits | None = None) -> AttnvizError:
    with pytest.raises(error) as caught:
        export.read_capture_upload(data, **({"limits": limits} if limits else {}))
    assert caught.value.key == key, (caught.value.key, str(caught.value))
    assert i18n.has(f"error.{key}", "en") and i18n.has(f"error.{key}", "zh")
    assert caught.value.message("zh") != str(caught.value)
    return caught.value


@pytest.mark.parametrize("data", [GOOD_JSON, GOOD_NPZ, b"\xef\xbb\xbf" + GOOD_JSON, bytearray(GOOD_NPZ)])
def test_a_capture_attnviz_saved_reads_back_whole(data):
    loaded = export.read_capture_upload(data)
    assert loaded.provenance == GOOD.provenance and loaded.source_text == GOOD.source_text
    for kind, amap in GOOD.maps.items():
        assert np.array_equal(loaded[kind].weights, amap.weights)
        assert loaded[kind].key_tokens == amap.key_tokens
    assert all(np.array_equal(a.cross_weights, b.cross_weights) for a, b in zip(loaded.steps, GOOD.steps))


def test_a_file_over_the_size_limit_is_refused_before_it_is_read():
    error = _refused(GOOD_JSON, "capture_too_large", ResourceLimitError, UploadLimits(max_bytes=1000))
    assert "MB" in str(error) and "MB" in error.message("zh")
    _refused(b"{" * 2_000_000, "capture_too_large", ResourceLimitError, UploadLimits(max_bytes=1_000_000))


@pytest.mark.parametrize(
    "data, key",
    [
        (b"", "capture_empty"),
        (b" \n\t ", "capture_empty"),
        (b"\xff\xfe\x00{garbage", "capture_not_utf8"),
        (b'{"schema": "attnviz.capture", "version": 1, "maps": {"cross": {"weights": [[[[0.5', "capture_truncated"),
        (b"{'single': 'quotes'}", "capture_bad_json"),
        (b"[" * 100_000 + b"]" * 100_000, "capture_too_deep"),
        (b'{"hello": 1}', "capture_not_attnviz"),
        (b"null", "capture_not_attnviz"),
        (b'{"schema": "attnviz.capture", "version": 2, "maps": {}}', "capture_schema_version"),
        (b'{"schema": "attnviz.capture", "version": "1"}', "capture_schema_version"),
        (b'{"schema": "attnviz.capture", "version": 1, "maps": {}}', "capture_no_maps"),
        (b"PK\x03\x04 not really a zip", "capture_bad_npz"),
        (GOOD_NPZ[: len(GOOD_NPZ) // 2], "capture_bad_npz"),
        (GOOD_NPZ[:-10], "capture_bad_npz"),
        (b"\x93NUMPY\x01\x00", "capture_single_npy"),
    ],
)
def test_malformed_files_each_get_their_sentence(data, key):
    _refused(data, key)


@pytest.mark.parametrize("data", [b"{not json", b"hello", b"<html>", b'{"a": 1} trailing'])
def test_text_that_is_not_json_is_said_to_be_not_json_not_cut_short(data):
    _refused(data, "capture_bad_json")


@pytest.mark.parametrize(
    "cut", [b'{"schema": "attnviz.capture", "source_text": "\xe6\x97\xa9\xe4\xb8\x8a', b'{"a": tru', b"[1, 2.5e"]
)
def test_json_cut_in_its_last_string_or_token_is_cut_short(cut):
    _refused(cut, "capture_truncated")


def test_a_file_named_npz_that_is_no_archive_is_said_to_be_no_npz():
    with pytest.raises(InputError) as caught:
        export.read_capture_upload(b"hello", name="capture.npz")
    assert caught.value.key == "capture_named_npz" and "not an NPZ archive" in str(caught.value)
    assert export.read_capture_upload(GOOD_NPZ, name="capture.npz").source_text == GOOD.source_text


def test_json_cut_anywhere_is_refused():
    for cut in range(1, len(GOOD_JSON), max(1, len(GOOD_JSON) // 40)):
        with pytest.raises(InputError):
            export.read_capture_upload(GOOD_JSON[:cut])


def test_npz_cut_anywhere_is_refused():
    for cut in range(1, len(GOOD_NPZ), max(1, len(GOOD_NPZ) // 40)):
        with pytest.raises(InputError):
            export.read_capture_upload(GOOD_NPZ[:cut])


def test_not_bytes_is_refused():
    _refused("a string", "capture_not_bytes")


def _edited(edit) -> bytes:
    data = export.capture_to_dict(GOOD)
    edit(data)
    return json.dumps(data).encode("utf-8")


def test_nan_weights_and_rows_not_summing_to_one_are_refused():
    def nan(data):
        data["maps"]["cross"]["weights"][0][0][0][0] = float("nan")

    with pytest.raises(InputError, match="NaN"):
        export.read_capture_upload(_edited(nan))

    def halve(data):
        data["maps"]["cross"]["weights"][1][0][2] = [w / 2 for w in data["maps"]["cross"]["weights"][1][0][2]]

    error = _refused(_edited(halve), "capture_rows_not_normalised")
    assert "'cross' map, layer 1, head 0, query 2" in str(error) and "第 1 层" in error.message("zh")

    def step(data):
        data["steps"][1]["self_weights"][0][1] = [0.0, 0.0]

    assert "step 1" in str(_refused(_edited(step), "capture_step_rows_not_normalised"))


def test_rows_within_half_precision_rounding_are_accepted():
    amap = seed_pair_map()
    rounded = amap.weights.astype(np.float16).astype(np.float32)  # what a half-precision model's rows look like
    check_rows(
        AttentionCapture(
            "m", "npu:0", {"cross": type(amap)("cross", rounded, amap.query_tokens, amap.key_tokens, amap.layer_names)}
        )
    )


def test_huge_token_lists_layers_heads_and_steps_are_refused_from_the_header():
    limits = UploadLimits(max_tokens=3, max_layers=1, max_heads=1, max_steps=2)
    _refused(GOOD_JSON, "capture_too_many_layers", ResourceLimitError, limits)
    _refused(GOOD_JSON, "capture_too_many_heads", ResourceLimitError, UploadLimits(max_heads=1))
    error = _refused(GOOD_JSON, "capture_too_many_tokens", ResourceLimitError, UploadLimits(max_tokens=3))
    assert "4 tokens" in str(error) and "up to 3" in str(error)
    _refused(GOOD_NPZ, "capture_too_many_steps", ResourceLimitError, UploadLimits(max_steps=2))

    def many_tokens(data):  # the shape says 4 keys, the list holds 100,000: refused before it is read
        data["maps"]["cross"]["key_tokens"] = [{"text": "x", "start": 0, "end": 1}] * 100_000

    _refused(_edited(many_tokens), "capture_too_many_tokens", ResourceLimitError)


def test_a_declared_shape_too_large_to_unpack_is_refused_before_any_array():
    def huge(data):
        data["maps"]["cross"]["shape"] = [64, 64, 4096, 4096]

    _refused(_edited(huge), "capture_unpacked_too_large", ResourceLimitError, UploadLimits(max_tokens=10**6))

    def nonsense(data):
        data["maps"]["cross"]["shape"] = [1, -1, 3, "4"]

    _refused(_edited(nonsense), "capture_bad_shape")


def _npz(entries: dict, **options) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **entries, **options)
    return buffer.getvalue()


def _entries(**replace) -> dict:
    archive = np.load(io.BytesIO(GOOD_NPZ))
    entries = {name: archive[name] for name in archive.files}
    entries.update(replace)
    return entries


def test_pickled_objects_inside_npz_are_refused_without_unpickling():
    entries = _entries(**{"maps/cross/weights": np.array([{"a": 1}], dtype=object)})
    error = _refused(_npz(entries, allow_pickle=True), "capture_npz_pickle")
    assert "maps/cross/weights" in str(error) and "pickle" in str(error)


def test_npz_entries_of_the_wrong_kind_or_shape_are_refused():
    _refused(_npz(_entries(**{"maps/cross/weights": np.ones((2, 2, 3, 4), dtype=np.int64)})), "capture_npz_dtype")
    _refused(_npz(_entries(header=np.array(5.0))), "capture_npz_dtype")
    wrong = _npz(_entries(**{"maps/cross/weights": np.full((2, 2, 3, 3), 1 / 3, dtype=np.float32)}))
    with pytest.raises(InputError, match="header says"):
        export.read_capture_upload(wrong)
    no_header = _entries()
    no_header.pop("header")
    _refused(_npz(no_header), "capture_npz_no_header")


def test_an_npy_header_claiming_more_than_its_bytes_is_refused_before_allocation():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, array in _entries().items():
            if name != "maps/cross/weights":
                archive.writestr(f"{name}.npy", _npy(array))
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000, 1000), }"
        archive.writestr("maps/cross/weights.npy", b"\x93NUMPY\x01\x00" + _padded(header) + b"\0" * 64)
    _refused(buffer.getvalue(), "capture_truncated")


@pytest.mark.parametrize("header", ["{'descr': '<f4', 'fortran_order': (", "{'descr': '<f4', 'shape': ()) }"])
def test_an_npy_header_that_is_no_python_literal_is_refused_as_damaged(header):
    """numpy reads a .npy header with Python's parser: unbalanced brackets raise its tokenizer's or parser's error."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, array in _entries().items():
            if name != "maps/cross/weights":
                archive.writestr(f"{name}.npy", _npy(array))
        archive.writestr("maps/cross/weights.npy", b"\x93NUMPY\x01\x00" + _padded(header) + b"\0" * 64)
    _refused(buffer.getvalue(), "capture_damaged")


def _npy(array) -> bytes:
    out = io.BytesIO()
    np.save(out, array)
    return out.getvalue()


def _padded(header: str) -> bytes:
    text = header + " " * (-(len(header) + 11) % 64) + "\n"
    return len(text).to_bytes(2, "little") + text.encode("latin-1")


def test_a_zip_bomb_is_refused_from_its_declared_sizes():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.npy", b"\0" * 50_000_000)  # 50 MB of zeros: about 50 KB compressed
    data = buffer.getvalue()
    assert len(data) < 100_000
    _refused(data, "capture_unpacked_too_large", ResourceLimitError, UploadLimits(max_unpacked_bytes=10_000_000))
