"""Score a demo model on held-out pairs it never saw: real HSK and Tatoeba sentences, unseen grammar sentences.

    python -m training.translator.evaluate --direction zh-en                # print the scores
    python -m training.translator.evaluate --direction zh-en --write-card   # and rewrite the model card (training.translator.card)

HSK held-out (assets/corpus/heldout.tsv): BLEU and chrF of the translations the model writes by default (its
generation_config.json: beam search with training.translator.DEMO_BEAMS beams, as the app decodes too; here in padded
batches, so a sentence may now and then come out otherwise than alone) (sacrebleu; BLEU with its "zh"
tokenizer for Chinese output), and the share of inputs in which the tokenizer finds an unknown piece. AER of the
default alignment view on the hand-aligned held-out pairs (assets/corpus/heldout-gold.tsv, training.data.gold): the
alignment head (config `alignment_heads`) while force-decoding the reference, pieces merged into words, each target
word linked to the source words that get at least half of its strongest weight, or to nothing when the strongest
is </s>. `aer_argmax` keeps only the strongest source word. `--weighting value-norm` scores the alignment view
weighted by value norm instead (each weight × its source piece's value norm ‖f(x)‖, rows scaled to sum 1, as
`attnviz.maps.analysis.value_weighted`); `--alignment-only` skips the translation scores.
Tatoeba held-out (heldout-tatoeba.tsv): BLEU, chrF and the unknown share as for HSK, one reference per pair.
Grammar held-out (heldout-grammar.tsv): exact match (case and spaces aside) and AER against the exact gold links.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from attnviz.attention.recorder import recording
from attnviz.corpus.gold import alignment_error_rate
from attnviz.errors import InputError
from attnviz.maps import analysis
from attnviz.model.load import without_sacremoses_request
from attnviz.view import viewing
from training.common.stages import TRAINING_RECORD
from training.data.corpus import GRAMMAR_HELD_OUT_FILE, HELD_OUT_FILE, TATOEBA_HELD_OUT_FILE
from training.data.gold import GOLD_FILE, GoldAlignment, gold_pairs, read_gold
from training.data.pairs import Pair, read_tsv
from training.paths import CORPUS_DIR
from training.translator import DIRECTIONS, model_dir
from training.translator.alignment import argmax_links, piece_words, strong_links, word_attention
from training.translator.card import EXAMPLES, write_card
from training.translator.config import TrainConfig
from training.translator.meaning import MEANING_KEYS, meaning_scores, write_checks

BATCH_SIZE = 256  # few long batches: decoding costs per step, not per sentence


@dataclass(frozen=True)
class Scores:
    pairs: int  # HSK held-out pairs translated
    bleu: float
    chrf: float
    unknown_share: float  # inputs with at least one unknown piece
    gold_pairs: int  # hand-aligned pairs
    aer: float  # links: source words with at least half the strongest weight (see alignment.strong_links)
    aer_argmax: float  # links: the strongest source word only
    grammar: dict[str, float] = field(default_factory=dict)  # pairs, exact_match, aer, aer_argmax
    examples: list[tuple[str, str, str]] = field(default_factory=list)  # (input, reference, translation)
    tatoeba: dict[str, float] = field(default_factory=dict)  # pairs, bleu, chrf, unknown_share, meaning checks
    beams: int = 1  # the beams the translations were decoded with (1: greedy)
    meaning: dict[str, float] = field(default_factory=dict)  # HSK pairs: training.translator.meaning.meaning_scores
    tatoeba_translations: list[str] = field(default_factory=list)  # of the Tatoeba pairs, in their order
    source_lang: str = "zh"  # the language the model translates from


def load(folder: Path):
    """The model and tokenizer exactly as a user loads them, with eager attention so weights can be returned."""
    from transformers import MarianMTModel, MarianTokenizer  # slow to import: only when loading

    with without_sacremoses_request():
        tokenizer = MarianTokenizer.from_pretrained(str(folder))
    model = MarianMTModel.from_pretrained(str(folder), attn_implementation="eager")
    return model.eval(), tokenizer


def languages(tokenizer) -> tuple[str, str]:
    return tokenizer.source_lang, tokenizer.target_lang


def same_text(a: str, b: str) -> bool:
    """Equal once case and spaces are set aside ("Good morning!" == "good Morning !")."""
    return "".join(a.split()).casefold() == "".join(b.split()).casefold()


@torch.no_grad()
def translate(model, tokenizer, texts: list[str], batch_size: int = BATCH_SIZE) -> list[str]:
    """The model's translations as its generation config decodes them (beam search or greedy), batched."""
    out = []
    for start in range(0, len(texts), batch_size):
        batch = tokenizer(texts[start : start + batch_size], return_tensors="pt", padding=True)
        generated = model.generate(**batch)  # beams and at most 64 tokens: the generation_config.json settings
        out += tokenizer.batch_decode(generated, skip_special_tokens=True)
    return out


def source_pieces(tokenizer, text: str) -> list[str]:
    return tokenizer.spm_source.encode(text, out_type=str)


def target_pieces(tokenizer, text: str) -> list[str]:
    return tokenizer.spm_target.encode(text, out_type=str)


@torch.no_grad()
def alignment_attention(
    model,
    tokenizer,
    sources: list[str],
    targets: list[str],
    layer: int,
    head: int,
    batch_size: int = BATCH_SIZE,
    weighting: str = "weights",
) -> list[np.ndarray]:
    """Cross-attention of one head while force-decoding each target: (target pieces + </s>, source pieces + </s>).

    Row i is the decoder step that produces target piece i (it reads the start token and the pieces before i).
    `weighting` "value-norm": weighted by the source pieces' value norms (`viewing.WEIGHTINGS`)."""
    if weighting not in viewing.WEIGHTINGS:
        raise InputError("values_weighting_unknown", weighting=weighting, weightings=", ".join(viewing.WEIGHTINGS))
    matrices = []
    start_id = model.config.decoder_start_token_id
    for begin in range(0, len(sources), batch_size):
        src, tgt = sources[begin : begin + batch_size], targets[begin : begin + batch_size]
        batch = tokenizer(src, text_target=tgt, return_tensors="pt", padding=True)
        labels = batch.pop("labels")
        pad = tokenizer.pad_token_id
        decoder_input_ids = torch.cat([torch.full_like(labels[:, :1], start_id), labels[:, :-1]], dim=1)
        decoder_input_ids = decoder_input_ids.masked_fill(decoder_input_ids == -100, pad)
        if weighting == "weights":
            output = model(**batch, decoder_input_ids=decoder_input_ids, output_attentions=True)
            weights = output.cross_attentions[layer][:, head]  # (batch, target positions, source positions)
        else:
            weights = _value_weighted_cross(model, batch, decoder_input_ids, layer, head)
        for k in range(len(src)):
            rows = int(((labels[k] != pad) & (labels[k] != -100)).sum())
            cols = int(batch["attention_mask"][k].sum())
            matrices.append(weights[k, :rows, :cols].float().numpy())
    return matrices


def _value_weighted_cross(model, batch, decoder_input_ids, layer: int, head: int) -> torch.Tensor:
    """(batch, target positions, source positions) of one cross-attention head weighted by value norm, from the
    recorder `capture` uses (weights bit-equal to eager attention, value norms beside them)."""
    with recording(model) as recorder:
        model(**batch, decoder_input_ids=decoder_input_ids)
    cross = recorder.layers_by_role(seq2seq=True)["cross"][layer]
    weights = recorder.stack([cross])[0, :, head]  # (batch, target, source)
    norms = recorder.value_norms([cross])[0, :, head]  # (batch, source)
    return torch.from_numpy(analysis.weigh_rows(weights, norms[:, None, :]))


def alignment_head(model) -> tuple[int, int]:
    heads = getattr(model.config, "alignment_heads", None)
    if not heads:
        raise InputError("demo_no_alignment_heads")
    layer, head = heads[0]
    return int(layer), int(head)


def word_matrices(
    model, tokenizer, pairs: list[Pair], weighting: str = "weights"
) -> list[tuple[np.ndarray, list[int], list[int]]]:
    """Word-level attention of the alignment head for each pair, with the piece → word maps of both sides."""
    source_lang, target_lang = languages(tokenizer)
    layer, head = alignment_head(model)
    sources = [pair.text(source_lang) for pair in pairs]
    targets = [pair.text(target_lang) for pair in pairs]
    out = []
    for pair, matrix, src, tgt in zip(
        pairs,
        alignment_attention(model, tokenizer, sources, targets, layer, head, weighting=weighting),
        sources,
        targets,
        strict=True,
    ):
        source_owner = piece_words(source_pieces(tokenizer, src), pair.words(source_lang))
        target_owner = piece_words(target_pieces(tokenizer, tgt), pair.words(target_lang))
        if matrix.shape != (len(target_owner) + 1, len(source_owner) + 1):
            raise InputError("demo_pieces_attention_disagree", source=src, target=tgt, shape=matrix.shape)
        out.append((word_attention(matrix, source_owner, target_owner), source_owner, target_owner))
    return out


def has_unknown(tokenizer, text: str) -> bool:
    return tokenizer.unk_token_id in tokenizer(text)["input_ids"]


def translation_scores(hypotheses: list[str], references: list[str], target_lang: str) -> tuple[float, float]:
    """Corpus BLEU and chrF (sacrebleu's defaults; Chinese output with its "zh" tokenizer)."""
    from sacrebleu.metrics import BLEU, CHRF  # a training requirement (requirements-train.txt): only when scoring

    bleu = BLEU(tokenize="zh" if target_lang == "zh" else "13a")
    return bleu.corpus_score(hypotheses, [references]).score, CHRF().corpus_score(hypotheses, [references]).score


def view_links(model, tokenizer, pairs: list[Pair], weighting: str = "weights") -> tuple[list[set], list[set]]:
    """The alignment view's links (strong, strongest) of each pair, as (source word, target word)."""
    matrices = [matrix for matrix, _, _ in word_matrices(model, tokenizer, pairs, weighting)]
    return [strong_links(m) for m in matrices], [argmax_links(m) for m in matrices]


def grammar_aer(model, tokenizer, pairs: list[Pair], weighting: str = "weights") -> tuple[float, float]:
    """AER (strong links, strongest link) of the alignment view on grammar pairs, against their exact links."""
    source_lang, _ = languages(tokenizer)
    strong, strongest = view_links(model, tokenizer, pairs, weighting)
    gold = [set(pair.links_from(source_lang)) for pair in pairs]
    return alignment_error_rate(strong, gold), alignment_error_rate(strongest, gold)


def gold_aer(
    model, tokenizer, pairs: list[Pair], gold: list[GoldAlignment], weighting: str = "weights"
) -> tuple[float, float]:
    """AER (strong links, strongest link) of the alignment view on the hand-aligned held-out pairs (sure/possible)."""
    source_lang, _ = languages(tokenizer)
    strong, strongest = view_links(model, tokenizer, gold_pairs(gold, pairs), weighting)
    sure, possible = zip(*(entry.links_from(source_lang) for entry in gold)) if gold else ((), ())
    return alignment_error_rate(strong, list(sure), list(possible)), alignment_error_rate(
        strongest, list(sure), list(possible)
    )


def grammar_scores(model, tokenizer, pairs: list[Pair], weighting: str = "weights") -> dict[str, float]:
    source_lang, target_lang = languages(tokenizer)
    hypotheses = translate(model, tokenizer, [pair.text(source_lang) for pair in pairs])
    exact = [same_text(h, pair.text(target_lang)) for h, pair in zip(hypotheses, pairs, strict=True)]
    aer, aer_argmax = grammar_aer(model, tokenizer, pairs, weighting)
    return {
        "pairs": len(pairs),
        "exact_match": float(np.mean(exact)) if exact else 0.0,
        "aer": aer,
        "aer_argmax": aer_argmax,
    }


def translation_part(model, tokenizer, pairs: list[Pair]) -> tuple[dict[str, float], list[tuple[str, str, str]]]:
    """BLEU, chrF, the unknown share and the meaning checks (`training.translator.meaning`) of the model's
    translations of `pairs`, and (input, reference, output)."""
    source_lang, target_lang = languages(tokenizer)
    sources, references = [p.text(source_lang) for p in pairs], [p.text(target_lang) for p in pairs]
    hypotheses = translate(model, tokenizer, sources)
    bleu, chrf = translation_scores(hypotheses, references, target_lang)
    unknown = float(np.mean([has_unknown(tokenizer, text) for text in sources])) if sources else 0.0
    scores = {"pairs": len(pairs), "bleu": bleu, "chrf": chrf, "unknown_share": unknown}
    scores |= meaning_scores(pairs, hypotheses, source_lang)
    return scores, list(zip(sources, references, hypotheses, strict=True))


def evaluate(
    model,
    tokenizer,
    pairs: list[Pair],
    gold: list[GoldAlignment],
    grammar: list[Pair] = (),
    weighting: str = "weights",
    tatoeba: list[Pair] = (),
) -> Scores:
    """Scores on the HSK held-out `pairs`, the hand alignments `gold` (of some of them), the grammar pairs and the
    Tatoeba held-out pairs; the alignment view weighted as `weighting` says (`viewing.WEIGHTINGS`)."""
    hsk, examples = translation_part(model, tokenizer, pairs)
    tatoeba_scores, tatoeba_examples = translation_part(model, tokenizer, list(tatoeba)) if tatoeba else ({}, [])
    aer, aer_argmax = gold_aer(model, tokenizer, pairs, gold, weighting)
    return Scores(
        len(pairs),
        hsk["bleu"],
        hsk["chrf"],
        hsk["unknown_share"],
        len(gold),
        aer,
        aer_argmax,
        grammar_scores(model, tokenizer, list(grammar), weighting) if grammar else {},
        examples,
        tatoeba_scores,
        int(model.generation_config.num_beams or 1),
        {k: v for k, v in hsk.items() if k in MEANING_KEYS},
        [translation for _, _, translation in tatoeba_examples],
        languages(tokenizer)[0],
    )


def score_and_write_card(
    folder: Path, heldout: list[Pair], gold: list[GoldAlignment], grammar: list[Pair] = (), tatoeba: list[Pair] = ()
) -> Scores:
    """Score the saved model in `folder` and write its README.md; returns the scores."""
    folder = Path(folder)
    record = json.loads((folder / TRAINING_RECORD).read_text(encoding="utf-8"))
    config = TrainConfig(**record["config"])
    began = time.monotonic()
    model, tokenizer = load(folder)
    pairs = heldout[: config.max_heldout]
    ids = {p.origin for p in pairs}
    scores = evaluate(
        model,
        tokenizer,
        pairs,
        [g for g in gold if f"hsk:{g.id}" in ids],
        list(grammar)[: config.max_heldout],
        tatoeba=list(tatoeba)[: config.max_heldout],
    )
    inputs = EXAMPLES[config.direction]
    examples = list(zip(inputs, translate(model, tokenizer, inputs), strict=True))
    write_card(folder, config, record, scores, examples, time.monotonic() - began)
    return scores


def meaning_text(scores: dict[str, float]) -> str:
    """The meaning checks in a line (training.translator.meaning)."""
    return (
        f"negation flipped in {scores['negation_flipped']:.1%} (the references: "
        f"{scores['negation_flipped_reference']:.1%}), source words dropped {scores['words_dropped']:.1%} "
        f"(in {scores['sentences_dropping']:.1%} of sentences), either in {scores['meaning_errors']:.1%}"
    )


def read_heldout(corpus_dir: Path) -> tuple[list[Pair], list[GoldAlignment], list[Pair], list[Pair]]:
    """The HSK held-out pairs, their hand alignments, the grammar and the Tatoeba held-out pairs."""
    corpus_dir = Path(corpus_dir)
    tatoeba = corpus_dir / TATOEBA_HELD_OUT_FILE
    return (
        read_tsv(corpus_dir / HELD_OUT_FILE),
        read_gold(corpus_dir / GOLD_FILE),
        read_tsv(corpus_dir / GRAMMAR_HELD_OUT_FILE),
        read_tsv(tatoeba) if tatoeba.exists() else [],
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Score a demo model on the held-out pairs.")
    parser.add_argument("--direction", choices=DIRECTIONS, default="zh-en")
    parser.add_argument("--model", type=Path, default=None, help="model folder (default: the committed one)")
    parser.add_argument("--corpus", type=Path, default=CORPUS_DIR)
    parser.add_argument("--write-card", action="store_true", help="also rewrite the folder's README.md")
    parser.add_argument(
        "--weighting",
        choices=viewing.WEIGHTINGS,
        default="weights",
        help="the alignment view's weighting: weights, or weighted by value norm",
    )
    parser.add_argument("--alignment-only", action="store_true", help="only the AER of the alignment view")
    parser.add_argument(
        "--write-checks", type=Path, default=None, help="write each held-out Tatoeba translation and its meaning checks"
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    folder = args.model or model_dir(args.direction)
    heldout, gold, grammar, tatoeba = read_heldout(args.corpus)
    if args.alignment_only:
        model, tokenizer = load(folder)
        aer = gold_aer(model, tokenizer, heldout, gold, args.weighting)
        grammar_part = grammar_aer(model, tokenizer, grammar, args.weighting)
        print(
            f"alignment view ({args.weighting}): {len(gold)} hand-aligned HSK pairs AER {aer[0]:.3f} (argmax "
            f"{aer[1]:.3f}); {len(grammar)} grammar pairs AER {grammar_part[0]:.3f} (argmax {grammar_part[1]:.3f})"
        )
        return
    if args.write_card and args.weighting != "weights":
        parser.error("--write-card scores the default view: leave --weighting at weights")
    if args.write_card:
        scores = score_and_write_card(folder, heldout, gold, grammar, tatoeba)
    else:
        scores = evaluate(*load(folder), heldout, gold, grammar, args.weighting, tatoeba)
    print(
        f"{scores.pairs} held-out HSK pairs: BLEU {scores.bleu:.1f}, chrF {scores.chrf:.1f}, unknown piece in "
        f"{scores.unknown_share:.1%} of inputs; {scores.gold_pairs} hand-aligned: AER {scores.aer:.3f} "
        f"(argmax {scores.aer_argmax:.3f}); {meaning_text(scores.meaning)}"
    )
    if scores.tatoeba:
        t = scores.tatoeba
        print(
            f"{t['pairs']} held-out Tatoeba pairs: BLEU {t['bleu']:.1f}, chrF {t['chrf']:.1f}, unknown piece in "
            f"{t['unknown_share']:.1%} of inputs; {meaning_text(t)}"
        )
    if args.write_checks and tatoeba:
        translated = scores.tatoeba_translations  # the first --max-heldout pairs, when the card was written
        write_checks(args.write_checks, tatoeba[: len(translated)], translated, scores.source_lang)
    if scores.grammar:
        g = scores.grammar
        print(
            f"{g['pairs']} held-out grammar pairs: exact match {g['exact_match']:.3f}, AER {g['aer']:.3f} "
            f"(argmax {g['aer_argmax']:.3f})"
        )


if __name__ == "__main__":
    main()
