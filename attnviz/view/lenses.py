"""Which lens a view shows and how: the lenses that apply to a model (`lenses_for`), the DecoderLens reading a view
picks (`reading_choice`) and its alignment (`reading_alignment`), decided here so that the pages only connect their
widgets to these calls. The lenses' results and their rows are `attnviz.measures.lens_results`."""

from __future__ import annotations

from attnviz.i18n.lens import STRINGS as LENS_WORDS
from attnviz.measures.lens_results import DecoderLens, reading_labels
from attnviz.view.selection import show, token_window
from attnviz.view.viewing import Pairs, Shown, ViewOptions

LOGIT_LENS, DECODER_LENS = "logit-lens", "decoder-lens"
LENS_WINDOW = 12  # positions of the logit lens a page draws at once: cells wide enough for a word at a readable size


def lens_window(positions: int, start: int) -> tuple[int, int] | None:
    """The positions [start, stop) a page draws of a logit lens over `positions` tokens, from `start` (kept inside);
    None when they all fit in one window."""
    if positions <= LENS_WINDOW:
        return None
    return token_window(positions, start, LENS_WINDOW)


def lenses_for(kind: str) -> tuple[str, ...]:
    """The lenses that apply to a model of `kind` (`ModelHandle.kind`): a decoder-only model's and a translator's
    decoder predict the next token (the logit lens); only a translator's decoder reads an encoder (DecoderLens); an
    encoder predicts no next token, and has none."""
    return {
        "decoder": (LOGIT_LENS,),
        "encoder-decoder": (LOGIT_LENS, DECODER_LENS),
    }.get(kind, ())


LAST_READING = -1  # a view's choice of DecoderLens reading by default: the last encoder layer's (the translation)


def reading_choices(lens: DecoderLens) -> dict[int, int]:
    """What a view may choose a reading by, each with that reading's index: the encoder layer read, the last one as
    `LAST_READING` (so that a view on the last keeps its default, out of the link)."""
    last = len(lens.layers) - 1
    return {**{layer: index for index, layer in enumerate(lens.layers[:last])}, LAST_READING: last}


def reading_choice(lens: DecoderLens, layer: int) -> int:
    """A view's `layer` as one of `reading_choices`: a layer read stays; the last, one past it (a link made with a
    deeper model) or one not read is the last."""
    return layer if layer in reading_choices(lens) else LAST_READING


def reading_alignment(lens: DecoderLens, index: int, options: ViewOptions, alignment_heads: Pairs = ()) -> Shown:
    """The cross-attention alignment of reading `index` (`selection.show` with `options`), its title naming the
    encoder layer the decoder read."""
    drawn = show(lens.readings[index], options, alignment_heads, ("alignment",))
    figure = drawn.figures["alignment"]
    words = LENS_WORDS[options.lang]
    said = words["decoder_lens_reading"].format(layer=reading_labels(lens, words)[index])
    figure.update_layout(title_text=f"{said} · {figure.layout.title.text}")
    return drawn
