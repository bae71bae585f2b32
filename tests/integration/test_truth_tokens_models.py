"""Unknown tokens and normalised text in the embedded models' tokenizers: every label is the text the token covers
in the original input, and what the model read as unknown is marked so (the translators' SentencePiece, MiniLM's
WordPiece)."""

from attnviz.attention.encoding import encode
from attnviz.figures.common import token_label
from attnviz.model.load import load_model
from tests.support import needs
from tests.support.normalising import located


def test_embedded_translator_reads_the_issue_sentence_as_unknown():
    handle = load_model("demo-zh-en", "cpu")
    text = "The animal did not cross the street because it was tired."
    tokens = encode(handle.tokenizer, text).tokens
    assert [(t.text, t.unknown) for t in tokens if not t.special][-1] == (".", False)
    assert any(t.unknown for t in tokens) and not any(t.text == "T" for t in tokens)
    located(tokens, text)
    assert located(encode(handle.tokenizer, "早上 好!").tokens, "早上 好!") == [
        ("早上", 0, 2, False),
        ("好", 3, 4, False),
        ("!", 4, 5, False),
    ]


def test_minilm_marks_its_unknown_characters():
    needs.minilm()
    handle = load_model("minilm", "cpu")
    text = "Café naïve 龘 studying"
    assert located(encode(handle.tokenizer, text).tokens, text) == [
        ("Café", 0, 4, False),
        ("naïve", 5, 10, False),
        ("龘", 11, 12, True),
        ("studying", 13, 21, False),
    ]


def test_embedded_en_zh_target_reads_full_width_punctuation_where_it_was_typed():
    handle = load_model("demo-en-zh", "cpu")
    text = "早上 好. 谢谢!"
    encoded = encode(handle.tokenizer, text, target=True)
    pieces = handle.tokenizer.convert_ids_to_tokens(encoded.ids)
    assert "。" in pieces or "." in pieces
    tokens = located(encoded.tokens, text)
    assert (".", 4, 5, False) in tokens and ("!", 8, 9, False) in tokens


def test_a_lone_word_boundary_piece_is_a_space_never_the_marker():
    handle = load_model("demo-en-zh", "cpu")
    tokens = [t for t in encode(handle.tokenizer, "我今天很累。").tokens if not t.special]
    pieces = handle.tokenizer.convert_ids_to_tokens(encode(handle.tokenizer, "我今天很累。").ids)
    assert "▁" in pieces  # the English tokenizer reads a word boundary before text it does not know
    assert [(t.text, t.start, t.end, t.unknown) for t in tokens] == [(" ", 0, 0, False), ("我今天很累。", 0, 6, True)]
    assert token_label(tokens[0]) == "␣" and not any("▁" in token_label(t) for t in tokens)
