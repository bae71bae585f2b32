"""Long texts: which catalogue model reads the most of it, and what a truncated
capture kept."""

from __future__ import annotations

from attnviz.model import long_texts
from attnviz.model.catalogue import CatalogueEntry, card_languages
from attnviz.types import Token
from attnviz.view import selection, viewing


def entry(name: str, positions: int | None, languages: tuple[str, ...], kind: str = "encoder") -> CatalogueEntry:
    return CatalogueEntry(name, f"/models/{name}", kind, "", positions, languages)


CATALOGUE = [
    entry("demo-zh-en", 128, ("zh",), "encoder-decoder"),
    entry("demo-en-zh", 128, ("en",), "encoder-decoder"),
    entry("minilm", 512, ("en",)),
]


def test_a_text_longer_than_the_model_opens_on_the_longest_reader_of_its_language():
    english = "word " * 10
    assert long_texts.reading_model(CATALOGUE, english, 100, 128) is None  # it fits
    assert long_texts.reading_model(CATALOGUE, english, 500, None) is None  # the model is unbounded
    assert long_texts.reading_model(CATALOGUE, english, 500, 128).name == "minilm"
    assert long_texts.reading_model(CATALOGUE, english, 900, 512) is None  # nothing reads more than MiniLM yet
    assert long_texts.reading_model(CATALOGUE, "我喜欢学习。" * 50, 500, 128) is None  # no longer reader of Chinese
    decoder = entry("demo-decoder", 4096, ("en", "zh"), "decoder")
    with_decoder = [*CATALOGUE, decoder]
    assert long_texts.reading_model(with_decoder, english, 500, 128) == decoder  # the most positions wins
    assert long_texts.reading_model(with_decoder, english, 900, 512) == decoder
    assert long_texts.reading_model(with_decoder, "我喜欢学习。" * 50, 500, 128) == decoder
    assert long_texts.reading_model(with_decoder, english, 5000, 4096) is None


def test_model_card_languages_in_each_yaml_shape(tmp_path):
    card = tmp_path / "README.md"
    for front, expected in [
        ("language: en", ("en",)),
        ("language: [zh, en]", ("zh", "en")),
        ("language:\n- en\n- 'zh'\nlicense: mit", ("en", "zh")),
        ("license: mit", ()),
    ]:
        card.write_text(f"---\n{front}\n---\n# a model\nlanguage: fr\n", encoding="utf-8")
        assert card_languages(card) == expected
    card.write_text("# no front matter\nlanguage: fr\n", encoding="utf-8")
    assert card_languages(card) == ()
    assert card_languages(tmp_path / "missing.md") == ()


def test_a_truncation_says_how_much_it_kept_and_where_it_cut():
    text = "One two three four five six seven."
    tokens = [
        Token("[CLS]", -1, -1, special=True),
        Token("One", 0, 3),
        Token("two", 4, 7),
        Token("[SEP]", -1, -1, special=True),
    ]
    kept = long_texts.truncation(tokens, 10, text)
    assert (kept.kept, kept.total, kept.cut_at, kept.cut) == (4, 10, 7, True)
    assert kept.cut_text == "three four five six seven."
    long = long_texts.truncation(tokens, 10, text[:8] + "x" * 100)
    assert long.cut_text == "x" * long_texts.CUT_PREVIEW + "…"
    whole = long_texts.truncation(tokens, 4, text)
    assert not whole.cut and whole.cut_text == ""


def test_the_long_view_starts_after_one_exact_block():
    assert not selection.long_view(viewing.LONG_WINDOW)
    assert selection.long_view(viewing.LONG_WINDOW + 1)
