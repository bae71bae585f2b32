"""Gold links on a view, for the app and the command line alike: the same options give the same scores and figure.

`show_gold(result, shown, options, gold_text)` scores the heads a view shows (`attnviz.view.viewing.Shown`) against a
pair's gold links, draws the verdicts over its alignment figure, and scores every layer × head of the pair. The words
the links index are the word merge's words of the cross-attention (special tokens left out), the words the word view
draws; links are `attnviz.corpus.links`' (argmax per target word, at the view's threshold). With `reverse`, the
alignment view of a model translating the other way (`reverse_view`), only the links both directions find count.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from attnviz import figures
from attnviz.corpus.gold import Gold
from attnviz.corpus.pair import (
    HeadScores,
    PairWords,
    TokenView,
    ViewScores,
    alignment_view,
    head_scores,
    reverse_mask,
    view_scores,
)
from attnviz.corpus.words import merged, shifted
from attnviz.errors import InputError
from attnviz.measures.names import held_measure
from attnviz.types import AttentionCapture
from attnviz.view.viewing import Shown, ViewOptions


@dataclass(frozen=True)
class GoldShown:
    shown: Shown  # the view, its alignment figure with the gold verdicts drawn over it
    scores: ViewScores  # the view's heads against the gold links
    heads: HeadScores  # every layer × head of the pair, each alone
    words: PairWords  # the words the links index
    both_directions: bool = False  # the view's links were kept only where the reverse model's view has them too
    measure: str = "weights"  # what the scored maps hold (`attnviz.measures.names`): contributions have a map per layer


def gold_record(gold_text: str | None, reverse_model: str | None = None) -> dict:
    """What a figure's file records of the gold links drawn on it (its provenance's view options)."""
    if not (gold_text or "").strip():
        return {}
    return {"gold": gold_text.strip(), **({"reverse_model": reverse_model} if reverse_model else {})}


def reading_prefix(result: AttentionCapture) -> str:
    """What the model put before the user's source text (a task prefix, a language code; `attnviz.model.usage`)."""
    return str(result.provenance.get("options", {}).get("prefix", "") or "")


def pair_words(result: AttentionCapture) -> PairWords:
    """The words gold links index in a captured pair: the word merge's words of its cross-attention, the words of a
    prefix the model put before the source left out (gold links count the user's words)."""
    if "cross" not in result.kinds and "encoder" in result.kinds:  # a translator given no target to read
        raise InputError("gold_needs_target", model=result.model)
    if "cross" not in result.kinds:
        raise InputError("corpus_no_cross", model=result.model)
    cross, source = result["cross"], result.source_text or ""
    return PairWords(
        merged(cross.key_tokens, source, skip=len(reading_prefix(result))),
        merged(cross.query_tokens, result.target_text or ""),
    )


def reverse_texts(result: AttentionCapture) -> tuple[str, str]:
    """(source, target) a reverse model reads: the pair's target, then the user's source text (no prefix)."""
    return result.target_text or "", (result.source_text or "").removeprefix(reading_prefix(result))


def reverse_view(backward: AttentionCapture, alignment_heads, forward_prefix: str = "") -> TokenView:
    """The alignment view of a model translating the other way, from its capture of the pair read backwards
    (`reverse_texts`), its tokens' offsets in the forward capture's texts: its target is the forward source, read
    there after `forward_prefix`; its source is the forward target, read here after its own prefix."""
    if "cross" not in backward.kinds:
        raise InputError("corpus_no_cross", model=backward.model)
    return in_forward_texts(
        alignment_view(backward["cross"], alignment_heads), forward_prefix, reading_prefix(backward)
    )


def in_forward_texts(view: TokenView, forward_prefix: str, reverse_prefix: str = "") -> TokenView:
    """A reverse view whose offsets count the forward model's source prefix and not the reverse model's own."""
    return TokenView(
        view.weights, shifted(view.query_tokens, len(forward_prefix)), shifted(view.key_tokens, -len(reverse_prefix))
    )


def show_gold(
    result: AttentionCapture,
    shown: Shown,
    options: ViewOptions,
    gold_text: str,
    reverse: TokenView | None = None,
    words: PairWords | None = None,
) -> GoldShown:
    """`shown` scored against `gold_text` (Pharaoh links), with `reverse` (`reverse_view`) only the links both
    directions find; `result` is the capture the view draws, weights or a contributions measure (ALTI, its rollout,
    value zeroing: scored as the weights are, as Ferrando et al. score ALTI against gold alignments, one map per
    layer in place of one per head); the links index `words` (a pre-segmented pair's, in the texts the model read), by default the
    word merge's (`pair_words`). An InputError when a link cannot be read or points outside the pair's words."""
    if words is None:
        words = pair_words(result)
    elif (words.source.text, words.target.text) != (result.source_text, result.target_text):
        raise InputError("corpus_words_other_text")
    gold = Gold.parse(gold_text).check(len(words.source), len(words.target))
    chosen = shown.selection
    both = None if reverse is None else reverse_mask(words, reverse, options.threshold)
    scored = view_scores(chosen.amap, chosen.reduction, words, gold, options.threshold, both)
    drawn = dict(shown.figures)
    if "alignment" in drawn:
        verdicts = {"found": scored.found, "missed": scored.missed, "extra": scored.extra}
        style = figures.FigureStyle(lang=options.lang)
        owners = (scored.source_owners, scored.target_owners)
        drawn["alignment"] = figures.gold_links(
            drawn["alignment"], chosen.amap, verdicts, *owners, style, both_directions=reverse is not None
        )
    heads = head_scores(result["cross"], words, gold, options.threshold, both)
    both_ways = reverse is not None
    return GoldShown(replace(shown, figures=drawn), scored, heads, words, both_ways, held_measure(result))
