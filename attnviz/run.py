"""One run of a model on one input, for every face: the app's pages, the command line, the corpus job and a notebook
build a `RunRequest` and call `run`, so the same request gives the same capture wherever it is made.

The decisions live here and nowhere else:
- generate or read: mode "generate" lets a translation model write the target and a decoder-only model continue the
  text; an encoder-only model cannot write, so it reads the text (as it does in mode "pair").
- full or on-demand: capture "auto" keeps every weight unless the text is long (`selection.long_view`, or
  ATTNVIZ_LAZY_FROM_TOKENS tokens or more) or its whole map would not fit in the memory budget; then a LazyCapture
  (`attnviz.attention.ondemand`) computes the heads asked for. A decoder-only model then reads a long prompt rather
  than continuing it.
- the target: read by a translation model alone (a one-stack model has no target side); in mode "pair" a translation
  model needs one, and a blank one is refused.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from attnviz import settings
from attnviz.attention.encoding import check_text
from attnviz.attention.live_items import LiveFinished, LiveItem
from attnviz.errors import InputError
from attnviz.model import memory
from attnviz.model.long_texts import token_count
from attnviz.provenance import with_provenance
from attnviz.view import selection

if TYPE_CHECKING:
    from attnviz.attention.ondemand import LazyCapture
    from attnviz.model.load import ModelHandle
    from attnviz.types import AttentionCapture

MODES = ("generate", "pair")  # let the model write the target, or force-decode a given translation pair
CAPTURES = ("auto", "full", "lazy")  # decide by the input's size, keep every weight, or compute heads on demand
MAX_NEW_TOKENS = 48  # what the app lets a model write


@dataclass(frozen=True)
class RunRequest:
    """What to run: the text, the target to force-decode (None: none given) or a generation, and how to capture.

    `max_new_tokens` and `num_beams` (None: the model's own setting) are read in mode "generate"; `truncate` keeps a
    too-long text's first tokens (recorded in the capture's provenance) instead of refusing it.
    """

    text: str
    target: str | None = None
    mode: str = "pair"
    max_new_tokens: int = MAX_NEW_TOKENS
    num_beams: int | None = None
    capture: str = "full"
    truncate: bool = False

    def __post_init__(self):
        if self.mode not in MODES:
            raise InputError("mode_unknown", mode=self.mode, modes=", ".join(MODES))
        if self.capture not in CAPTURES:
            raise InputError("mode_unknown", mode=self.capture, modes=", ".join(CAPTURES))


def source_tokens(handle: ModelHandle, text: str) -> int:
    """How many tokens the model's tokenizer makes of `text`, special tokens included (none for an empty text)."""
    return token_count(handle, text)


def capture_kind(handle: ModelHandle, request: RunRequest, environ: Mapping[str, str] | None = None) -> str:
    """ "full" or "lazy": the capture `run` makes of `request` (its own choice, or the one "auto" makes by size)."""
    if request.capture != "auto":
        return request.capture
    if request.mode == "generate" and handle.is_seq2seq:  # a translation model's generation records every step
        return "full"
    check_text(request.text)  # the sentence a capture would give, before a tokenizer meets broken characters
    n_source = source_tokens(handle, request.text)
    if request.truncate and handle.max_positions:
        n_source = min(n_source, handle.max_positions)
    target = read_target(handle, request) or ""
    if target.strip():
        check_text(target, "target")
    n_target = len(handle.tokenizer(text_target=target)["input_ids"]) if target.strip() else 0
    if n_source >= settings.current(environ).lazy_from_tokens or selection.long_view(n_source):
        return "lazy"
    full = memory.estimate_bytes(handle, n_source, n_target + bool(n_target), "full")  # + the decoder's start token
    return "lazy" if full > memory.budget_bytes() else "full"


def read_target(handle: ModelHandle, request: RunRequest) -> str | None:
    """The target the model force-decodes: a translation model's in mode "pair", else none. A target given in mode
    "pair" to a model without a target side (encoder- or decoder-only) is refused with an InputError: it would
    otherwise be dropped without a word."""
    if request.mode != "pair":
        return None
    if not handle.is_seq2seq:
        if request.target and request.target.strip():
            raise InputError("target_side_missing", model=handle.name, kind=handle.kind)
        return None
    return request.target


def run(
    handle: ModelHandle, request: RunRequest, environ: Mapping[str, str] | None = None
) -> AttentionCapture | LazyCapture:
    """The capture of `request` with the model `handle`: an AttentionCapture, or a LazyCapture (`capture_kind`)."""
    # The capture modules import torch: imported when a run starts, not when a page or the CLI's parser loads.
    from attnviz.attention.capture import capture  # torch: only once a model runs
    from attnviz.attention.generation import generate  # torch
    from attnviz.attention.ondemand import capture_lazy  # torch

    lazy = capture_kind(handle, request, environ) == "lazy"
    read = capture_lazy if lazy else capture
    writes = request.mode == "generate" and handle.kind != "encoder"
    if writes and not (lazy and handle.kind == "decoder"):
        return generate(
            handle,
            request.text,
            max_new_tokens=request.max_new_tokens,
            truncate=request.truncate,
            num_beams=request.num_beams,
        )
    target = read_target(handle, request)
    if target is not None and not target.strip():
        raise InputError("target_empty")
    if target is None:
        return read(handle, request.text, truncate=request.truncate)
    return read(handle, request.text, target, truncate=request.truncate)


def run_live(handle: ModelHandle, request: RunRequest) -> Iterator[LiveItem]:
    """`run_recorded` of a generation, step by step as the model writes (`attention.live.write_live`): the beams,
    each written step, then `LiveFinished` whose capture is `run_recorded(handle, request)`'s, provenance and all, for
    a request in mode "generate" that `run` captures whole (a translator's generation always is)."""
    from attnviz.attention.live import write_live  # torch: only once a model runs

    options = (request.max_new_tokens, request.truncate, request.num_beams)
    with closing(write_live(handle, request.text, *options)) as items:  # a caller that leaves stops the model
        for item in items:
            if isinstance(item, LiveFinished):
                recorded = with_provenance(item.capture, handle, recorded_options(request, item.capture))
                item = replace(item, capture=recorded)
            yield item


def run_pairs(handle: ModelHandle, pairs: Sequence[tuple[str, str]]) -> list[AttentionCapture]:
    """Many (source, target) pairs in one padded batch (the corpus job), each read as `run` reads
    RunRequest(source, target): a translation model force-decodes the target, a one-stack model reads the source."""
    from attnviz.attention.capture import capture_batch  # imports torch: when a batch runs

    sources = [source for source, _ in pairs]
    return capture_batch(handle, sources, [target for _, target in pairs] if handle.is_seq2seq else None)


def recorded_options(request: RunRequest, result) -> dict:
    """The run's options as a capture's provenance records them (beside what generation records itself)."""
    written = request.max_new_tokens if result.steps is not None else None
    return {"mode": request.mode, "max_new_tokens": written, "truncate": request.truncate}  # whether it may be cut


def run_recorded(handle: ModelHandle, request: RunRequest, environ: Mapping[str, str] | None = None):
    """`run` of a full capture, with its provenance (what a saved file records: model, versions, texts, options); an
    on-demand capture ("auto" on a long text) records its own provenance when it is made."""
    result = run(handle, request, environ)
    if not result.is_complete:
        return result
    return with_provenance(result, handle, recorded_options(request, result))
