"""Truth on the screen without a model: the script of a text and who reads it, the caveats' sentences in both
languages, unknown tokens drawn as unknown in every figure and export, step scores in the capture file."""

from __future__ import annotations

import html
import json
import re
from dataclasses import replace

import numpy as np
import pytest

from attnviz import figures
from attnviz.export import static, static_style
from attnviz.export.schema import capture_bytes, capture_from_dict, capture_from_npz, capture_to_csv, capture_to_dict
from attnviz.figures.layout import LABEL_SIZE
from attnviz.figures.text_fit import label_widths
from attnviz.maps import replay
from attnviz.model.catalogue import CatalogueEntry, catalogue
from attnviz.text import caveats, language
from attnviz.text.excerpts import excerpt
from attnviz.types import AttentionCapture, AttentionMap, GenerationStep, Token
from attnviz.view import selection

SOURCE = [Token("龘龘", 0, 2, unknown=True), Token("早上", 2, 4), Token("好", 4, 5), Token("</s>", -1, -1, True)]
TARGET = [Token("Good", 0, 4), Token("morning", 5, 12), Token("</s>", -1, -1, True)]


def plain(label: str) -> str:
    return html.unescape(re.sub(r"<[^<>]+>", "", label))


def cross_map() -> AttentionMap:
    weights = np.random.default_rng(0).dirichlet(np.ones(len(SOURCE)), size=(2, 2, len(TARGET))).astype(np.float32)
    return AttentionMap("cross", weights, TARGET, SOURCE, ["l0", "l1"])  # (layers, heads, target, source)


def written(probabilities=(0.9, 0.3, 0.8)) -> AttentionCapture:
    amap = cross_map()
    steps = [
        GenerationStep(
            token,
            amap.weights[:, :, i, :1],
            amap.weights[:, :, i],
            probability,
            ((token.text, probability), ("Hello", 0.05)),
        )
        for i, (token, probability) in enumerate(zip(TARGET, probabilities))
    ]
    return AttentionCapture("demo", "cpu", {"cross": amap}, "龘龘早上好", "Good morning", steps=steps)


# ----------------------------------------------------------------------------------------------------------------------
# language


@pytest.mark.parametrize(
    ("text", "script"),
    [
        ("The animal did not cross the street.", "latin"),
        ("人工智能正在改变世界", "han"),
        ("早上好！Hi", "han"),
        ("こんにちは世界", "kana"),
        ("안녕하세요", "hangul"),
        ("Привет", "cyrillic"),
        ("123 !?", None),
        ("ＡＢＣ", "latin"),
        ("我喜欢用iPhone 15拍照，but sometimes 我更喜欢Leica和龘靐齉。", "han"),
        ("I love 北京 very much", "latin"),
    ],
)
def test_main_script(text, script):
    assert language.main_script(text) == script


def test_who_reads_a_text():
    entries = {entry.name: entry for entry in catalogue()}
    assert entries["demo-zh-en"].languages == ("zh",) and entries["demo-en-zh"].languages == ("en",)
    assert language.reads(("zh",), "我喜欢学习") and not language.reads(("zh",), "I like studying")
    assert language.reads((), "anything") and language.reads(("zh",), "42!")  # undeclared, or no letters
    readers = language.readers(list(entries.values()), "Where is the library?")
    assert "demo-en-zh" in [entry.name for entry in readers] and "demo-zh-en" not in [e.name for e in readers]
    assert CatalogueEntry("x", "/", "encoder", "").languages == ()  # entries without languages stay valid


def test_language_sentence_in_both_languages():
    english = caveats.language_sentence("I like studying", "demo-zh-en", ("zh",), "en")
    assert english.startswith(
        "This text is written in Latin letters, which demo-zh-en does not read (it reads Chinese)"
    )
    chinese = caveats.language_sentence("I like studying", "demo-zh-en", ("zh",), "zh")
    assert "拉丁字母" in chinese and "中文" in chinese
    assert caveats.language_sentence("我喜欢学习", "demo-zh-en", ("zh",)) is None
    assert "汉字" in caveats.language_sentence("我喜欢学习", "minilm", ("en",), "zh")


# ----------------------------------------------------------------------------------------------------------------------
# caveats


def test_caveats_name_unknown_words_and_unsure_steps():
    found = caveats.caveats(written())
    assert [c.key for c in found] == ["truth_unknown_words", "truth_unsure"]
    unknown, unsure = found
    assert unknown.words == ("龘龘",) and "“龘龘”" in unknown.sentence("en") and "“龘龘”" in unknown.sentence("zh")
    assert "Helsinki-NLP/opus-mt-zh-en" in unknown.sentence("en") and "give the translation yourself" in (
        unknown.sentence("en").lower()
    )
    assert unsure.tokens == (("morning", 0.3),)  # the end token's probability is not a word's
    assert "“morning” (0.30)" in unsure.sentence("en") and "“morning”（0.30）" in unsure.sentence("zh")
    assert caveats.caveats(written((0.9, 0.8, 0.2)))[1:] == []  # a sure sentence, an unsure end: nothing to say
    record = unsure.record()
    assert record["key"] == "truth_unsure" and record["message"] == unsure.sentence("en")


def test_caveats_advise_what_fits_the_run_a_given_pair_or_a_decoders_continuation():
    given = replace(written(), steps=[])  # the target read, not written
    (unknown,) = caveats.caveats(given)
    assert unknown.key == "truth_unknown_words_read" and "translation yourself" not in unknown.sentence("en")
    tokens = [Token("从前", 0, 2), Token("有", 2, 3)]
    weights = np.tril(np.ones((2, 2), np.float32))
    weights = np.broadcast_to(weights / weights.sum(-1, keepdims=True), (1, 1, 2, 2))
    decoder = AttentionMap("self", weights, tokens, tokens, ["l0"], causal=True)
    step = GenerationStep(tokens[1], weights[:, :, 1], None, 0.2, (("有", 0.2), ("是", 0.1)))
    continued = AttentionCapture("demo-decoder", "cpu", {"self": decoder}, "从前有", None, steps=[step])
    (unsure,) = caveats.caveats(continued)
    assert unsure.key == "truth_unsure_continued" and unsure.suggestion == caveats.WRITER
    assert "translation" not in unsure.sentence("en") and "译文" not in unsure.sentence("zh")


def test_one_unknown_word_is_it_several_are_them_in_both_languages():
    one = caveats.Caveat("truth_unknown_words", words=("圳",), suggestion="x")
    assert "read it as an unknown token" in one.sentence("en") and "them" not in one.sentence("en")
    assert "把它读成" in one.sentence("zh") and "这些" not in one.sentence("zh")
    read = caveats.Caveat("truth_unknown_words_read", words=("圳",), suggestion="x")
    assert "knows it," in read.sentence("en") and "认识它的" in read.sentence("zh")
    two = caveats.Caveat("truth_unknown_words", words=("圳", "龘"), suggestion="x")
    assert "read them as unknown tokens" in two.sentence("en") and "把这些读成" in two.sentence("zh")
    assert one.record()["key"] == "truth_unknown_words"  # files keep one key whatever the count


def test_a_clean_run_has_no_caveats():
    amap = AttentionMap("self", np.full((1, 1, 2, 2), 0.5, np.float32), TARGET[:2], TARGET[:2], ["l0"])
    assert caveats.caveats(AttentionCapture("m", "cpu", {"self": amap}, "Good morning")) == []


def test_caveats_of_a_reading_model_suggest_a_reader():
    amap = AttentionMap("self", np.full((1, 1, 2, 2), 0.5, np.float32), SOURCE[:2], SOURCE[:2], ["l0"])
    (found,) = caveats.caveats(AttentionCapture("m", "cpu", {"self": amap}, "龘龘早上"))
    assert found.key == "truth_unknown_words_read" and found.suggestion == caveats.READER


# ----------------------------------------------------------------------------------------------------------------------
# figures


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_figure_draws_unknown_tokens_as_unknown(lang):
    amap = cross_map()
    style = figures.FigureStyle(lang=lang)
    heat = figures.heatmap(amap, style=style)
    labels = list(heat.layout.xaxis.ticktext)
    assert [plain(label) for label in labels] == ["龘龘?", "早上", "好", "</s>"]
    assert "<i>" in labels[0] and figures.common.UNKNOWN_COLOR in labels[0] and "<i>" not in labels[1]
    assert heat.layout.xaxis.labelalias["0"] == labels[0]  # the hover names it the same way
    legend = figures.resolve_labels(lang)["truth_figure_unknown"]
    assert legend in heat.layout.title.text
    align = figures.alignment(amap, style=style)
    texts = [plain(t) for trace in align.data if trace.mode == "markers+text" for t in trace.text]
    assert "龘龘?" in texts and "龘龘" not in texts and legend in align.layout.title.text
    lines = figures.head_lines(amap, style=style)
    assert "龘龘?" in [plain(t) for trace in lines.data if trace.name == "tokens" for t in trace.text]
    assert legend in lines.layout.title.text


def test_figures_without_unknown_tokens_say_nothing_of_them():
    amap = AttentionMap("cross", cross_map().weights[..., 1:], TARGET, SOURCE[1:], ["l0", "l1"])
    assert "unknown" not in figures.heatmap(amap).layout.title.text
    assert all("<i>" not in label for label in figures.heatmap(amap).layout.xaxis.ticktext)


def test_static_export_draws_the_unknown_mark():
    from attnviz.figures.fonts import plain_text

    label = figures.heatmap(cross_map()).layout.xaxis.ticktext[0]
    assert plain_text(label) == "龘龘?"


# ----------------------------------------------------------------------------------------------------------------------
# exports


def test_json_and_npz_keep_unknown_tokens_step_scores_and_warnings():
    capture = written()
    data = json.loads(capture_bytes(capture, "json"))
    assert data["maps"]["cross"]["key_tokens"][0]["unknown"] is True
    assert "unknown" not in data["maps"]["cross"]["key_tokens"][1]  # written only where true
    assert data["steps"][1]["probability"] == pytest.approx(0.3)
    assert data["steps"][1]["alternatives"][1] == {"text": "Hello", "probability": 0.05}
    assert [w["key"] for w in data["warnings"]] == ["truth_unknown_words", "truth_unsure"]
    for back in (capture_from_dict(data), capture_from_npz(capture_bytes(capture, "npz"))):
        assert back["cross"].key_tokens == SOURCE
        assert [(s.probability, s.alternatives) for s in back.steps] == [
            (s.probability, s.alternatives) for s in capture.steps
        ]
    assert ",龘龘?," in capture_to_csv(capture)  # the CSV's token columns mark it too


def test_the_csv_names_decoder_rows_as_the_figures_do():
    start = Token("</s>", -1, -1, True)
    decoder_input = [start, Token("Good", 0, 4), Token("morning", 5, 12)]  # what the decoder read at each position
    written = [Token("Good", 0, 4), Token("morning", 5, 12), Token("</s>", -1, -1, True)]  # what each step wrote
    weights = np.tril(np.ones((3, 3), np.float32))
    weights = np.broadcast_to(weights / weights.sum(-1, keepdims=True), (1, 1, 3, 3))
    decoder = AttentionMap("decoder", weights, written, decoder_input, ["l0"], causal=True)
    rows = [line.split(",") for line in capture_to_csv(decoder).splitlines()[1:]]
    named = {int(row[4]): row[5] for row in rows}  # query_index -> query_token
    assert named == {0: "</s>", 1: "Good", 2: "morning"}  # the input at each position, as the row is drawn
    heatmap = figures.heatmap(
        selection.prepare_map(AttentionCapture("m", "cpu", {"decoder": decoder}, "", ""), "decoder")
    )
    assert [plain(label) for label in heatmap.layout.yaxis.ticktext] == ["</s>", "Good", "morning"]
    assert capture_to_dict(decoder)["maps"]["decoder"]["query_tokens"][0]["text"] == "Good"  # the file keeps both


def test_files_from_before_unknown_and_step_scores_still_open():
    data = capture_to_dict(written())
    for tokens in (data["maps"]["cross"]["query_tokens"], data["maps"]["cross"]["key_tokens"]):
        for token in tokens:
            token.pop("unknown", None)
    for step in data["steps"]:
        del step["probability"], step["alternatives"]
    del data["warnings"]
    back = capture_from_dict(data)
    assert not any(t.unknown for t in back["cross"].key_tokens)
    assert all(s.probability is None and s.alternatives == () for s in back.steps)
    assert replay.step_scores(back) == []


def test_a_damaged_step_score_is_a_sentence():
    from attnviz.errors import InputError

    data = capture_to_dict(written())
    data["steps"][0]["probability"] = "high"
    with pytest.raises(InputError, match="score must be"):
        capture_from_dict(data)


# ----------------------------------------------------------------------------------------------------------------------
# replay


def test_replayed_scores_follow_the_step_in_tokens_and_words():
    capture = written()
    scores = replay.step_scores(capture)
    assert [(s.step, s.token.text, s.unsure) for s in scores] == [
        (1, "Good", False),
        (2, "morning", True),
        (3, "</s>", False),
    ]
    amap = capture["cross"]
    assert [s.step for s in replay.replayed_scores(scores, amap, 2)] == [2]
    assert [s.step for s in replay.replayed_scores(scores, amap, 0)] == [3]  # 0 = all: the newest row
    word = Token("Good morning", 0, 12)
    merged = AttentionMap("cross", amap.weights[:, :, :1], [word], SOURCE, ["l0", "l1"])
    assert [s.step for s in replay.replayed_scores(scores, merged, 1)] == [1, 2]  # every piece of the word


def test_static_export_keeps_the_unknown_colour():
    from matplotlib.colors import to_hex

    fig = figures.heatmap(cross_map())
    assert static_style.label_color(fig.layout.xaxis.ticktext[0]) == figures.common.UNKNOWN_COLOR
    assert static_style.label_color(fig.layout.xaxis.ticktext[1]) is None
    import matplotlib
    from matplotlib.text import Text

    from attnviz.figures import fonts

    with matplotlib.rc_context({"font.family": fonts.matplotlib_families(None)}):  # as `static.render` draws
        drawn = static.StaticRenderer(fig, None, None).draw()
    colours = {t.get_text(): to_hex(t.get_color()) for t in drawn.findobj(Text)}
    assert colours["龘龘?"] == figures.common.UNKNOWN_COLOR and colours["早上"] != colours["龘龘?"]


def test_a_long_list_of_guesses_is_shortened():
    many = caveats.Caveat("truth_unsure", tokens=tuple((f"w{i}", 0.1) for i in range(12)), suggestion="m")
    said = many.sentence("en")
    assert "“w7” (0.10), …" in said and "w8" not in said
    words = caveats.Caveat("truth_unknown_words", words=tuple(f"u{i}" for i in range(10)), suggestion="m")
    assert "“u7”, …" in words.sentence("en") and "、…" in words.sentence("zh")


def test_unknown_labels_are_measured_by_the_text_they_draw_not_their_markup():
    from attnviz.figures.fonts import text_width

    source = [
        Token("Good morning", 0, 12, unknown=True),
        Token(",", 12, 13),
        Token("class", 14, 19, unknown=True),
        Token("!", 19, 20),
    ]
    target = [Token("Bus", 0, 3), Token("!", 3, 4)]
    shown = figures.common.token_label(source[0])
    assert label_widths([shown], LABEL_SIZE) == [text_width("Good morning?", LABEL_SIZE)]
    weights = np.random.default_rng(1).dirichlet(np.ones(len(source)), size=(1, 1, len(target))).astype(np.float32)
    align = figures.alignment(AttentionMap("cross", weights, target, source, ["l0"]))
    labels = [note for note in align.layout.annotations if plain(note.text) in ("Good morning?", "class?", "Bus")]
    assert len(labels) == 3
    assert all(note.textangle in (0, None) and note.font.size == LABEL_SIZE for note in labels)  # level, full size


def test_a_long_text_is_quoted_by_its_start_and_the_count_left_out():
    text = "word " * 4000
    short = excerpt(text, "en")
    assert len(short) < 120 and short.endswith(f"(+{len(text) - len(short.split('…')[0]):,} characters)")
    assert "另有" in excerpt("字" * 500, "zh") and excerpt("早上好！") == "早上好！"
    unknown = caveats.Caveat("truth_unknown_words_read", words=("龘" * 1500,), suggestion="x")
    assert len(unknown.sentence("en")) < 400 and "characters)" in unknown.sentence("en")
