"""Batches: checked, tokenized and padded inputs, one forward pass over them with a recorder, and one example's
cells out of the padded result. `capture` and `capture_lazy` both start here."""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass

import numpy as np
import torch

from attnviz import settings
from attnviz.attention.encoding import Encoded, check_text, encode
from attnviz.attention.recorder import Recorder, WeightRecorder, recording
from attnviz.errors import InputError
from attnviz.model import usage
from attnviz.model.load import ModelHandle
from attnviz.model.memory import budget_bytes, check_budget, check_text_length
from attnviz.types import Token

Span = tuple[int, int, bool]  # (tokens of the example, padded width, padded on the left): one axis of a map


@dataclass
class Batch:
    """Checked, tokenized and padded inputs for one forward pass."""

    texts: list[str]
    targets: list[str] | None
    sources: list[Encoded]
    decoded: list[Encoded] | None  # target tokens, when force-decoding
    inputs: dict[str, torch.Tensor]
    left_padded: bool
    decoder_start: Token | None = None
    prefixes: list[str] | None = None  # what `usage.reading` put before each text (a task prefix, a language code)

    def tokens(self, row: int, sequence: str) -> list[Token]:
        """Example `row`'s tokens of a `MapSpec` token sequence ("source", "target" or "decoder_input")."""
        target = None if self.decoded is None else self.decoded[row].tokens
        return sequence_tokens(sequence, self.sources[row].tokens, target, self.decoder_start)

    def span(self, row: int, sequence: str) -> Span:
        """Where example `row`'s tokens of `sequence` sit in the padded batch (targets are padded on the right)."""
        if sequence == "source":
            return len(self.sources[row].ids), self.inputs["input_ids"].shape[1], self.left_padded
        return len(self.decoded[row].ids), self.inputs["decoder_input_ids"].shape[1], False


def sequence_tokens(sequence: str, source: list[Token], target: list[Token] | None, start: Token | None) -> list[Token]:
    """The tokens of a `MapSpec` token sequence: "source", "target", or "decoder_input" — the decoder's start token,
    then the target tokens but the last (teacher forcing)."""
    if sequence == "source":
        return source
    return target if sequence == "target" else [start] + target[:-1]


def crop(weights: np.ndarray, row: int, queries: Span, keys: Span) -> np.ndarray:
    """One example's (layers, heads, q, k) out of a padded (layers, batch, heads, Q, K) batch."""
    return np.ascontiguousarray(weights[:, row, :, _cells(queries), _cells(keys)])


def crop_keys(norms: np.ndarray, row: int, keys: Span) -> np.ndarray:
    """One example's (layers, heads, k) value norms out of a padded (layers, batch, heads, K) batch."""
    return np.ascontiguousarray(norms[:, row, :, _cells(keys)])


def _cells(span: Span) -> slice:
    """Where an example's tokens sit along one padded axis."""
    length, width, left = span
    start = width - length if left else 0
    return slice(start, start + length)


def prepare_batch(
    handle: ModelHandle, texts: list[str], targets: list[str] | None = None, truncate: bool = False, mode: str = "full"
) -> Batch:
    """Check and tokenize the examples, refuse what would not fit (positions, ATTNVIZ_MAX_CHARS, the memory budget
    for `mode` "full" or "lazy"), and build the padded model inputs. Mode "atlas" (`attnviz.atlas`) checks only the
    positions: the character limit and this estimate are made for maps of n × n weights, and the atlas checks its own
    O(n · d) estimate."""
    if not texts:
        raise InputError("texts_none")
    limits = settings.current()  # read once for every check below
    chars = None if mode == "atlas" else limits.max_chars
    texts = [_checked_length(check_text(text), "text", chars) for text in texts]
    if targets is not None:
        if not handle.is_seq2seq:
            raise InputError("target_side_missing", model=handle.name, kind=handle.kind)
        if len(targets) != len(texts):
            raise InputError("targets_count", texts=len(texts), targets=len(targets))
        targets = [_checked_length(check_text(target, "target"), "target", chars) for target in targets]
    tokenizer, model = handle.tokenizer, handle.model
    limit = handle.max_positions
    readings = [usage.reading(handle, text) for text in texts]  # language codes, a task prefix: see attnviz.model.usage
    texts = [read.text for read in readings]
    sources, decoded = [], []
    common = dict(limit=limit, truncate=truncate, model_name=handle.name)
    for row, read in enumerate(readings):
        with usage.applied(tokenizer, read):
            sources.append(encode(tokenizer, read.text, **common))
            if targets is not None:
                decoded.append(encode(tokenizer, targets[row], target=True, what="target", **common))
    pad_id = pad_id_of(tokenizer, model) if len(texts) > 1 else 0  # one example is not padded
    left = getattr(tokenizer, "padding_side", "right") == "left"
    input_ids, attention_mask = _pad([s.ids for s in sources], pad_id, left)
    inputs = {"input_ids": input_ids.to(model.device), "attention_mask": attention_mask.to(model.device)}
    batch = Batch(texts, targets, sources, None, inputs, left, prefixes=[read.prefix for read in readings])
    if targets is not None:
        batch.decoded = decoded
        start = decoder_start(model)
        batch.decoder_start = start_token(tokenizer, start)
        # Teacher forcing: the decoder reads the start token then the target; row i produces target token i.
        decoder_ids, decoder_mask = _pad([[start] + d.ids[:-1] for d in batch.decoded], pad_id, left=False)
        inputs["decoder_input_ids"] = decoder_ids.to(model.device)
        inputs["decoder_attention_mask"] = decoder_mask.to(model.device)
    target_width = inputs["decoder_input_ids"].shape[1] if targets is not None else 0
    if mode != "atlas":
        check_budget(handle, input_ids.shape[1], target_width, mode=mode, budget=budget_bytes(limits), batch=len(texts))
    return batch


def _checked_length(text: str, what: str, limit: int | None) -> str:
    return text if limit is None else check_text_length(text, what, limit)


def run_batch(handle: ModelHandle, batch: Batch, recorder_class: type[Recorder] = WeightRecorder) -> Recorder:
    """One forward pass over `batch` with a recorder of `recorder_class`; only the encoder when there is no target.

    The pass runs up to the model's last attention call: a complete pass of the same kind (the first one) shows where
    that is, and later passes stop there, skipping what follows (the last feed-forward block, pooler, logits) —
    unless the recorder needs the whole pass (`Recorder.whole_pass`)."""
    model = handle.model
    encoder_only = handle.is_seq2seq and batch.decoded is None
    with recording(model, recorder_class) as recorder:
        ends = recorder.state.pass_ends
        recorder.stop_after = None if recorder.whole_pass else ends.get(encoder_only)
        try:
            if encoder_only:
                model.get_encoder()(input_ids=batch.inputs["input_ids"], attention_mask=batch.inputs["attention_mask"])
            else:
                model(**batch.inputs, **_fewer_outputs(model))
        except Exception:
            if not recorder.complete:  # (a model may wrap what its layers raise in an error of its own)
                raise
        else:
            ends[encoder_only] = (recorder.seen, recorder.last_module)
    return recorder


def _fewer_outputs(model) -> dict:
    """Keyword arguments that spare memory nobody reads: one row of logits, no key/value cache."""
    return dict(_fewer_outputs_of(type(model)))


@functools.lru_cache(maxsize=64)
def _fewer_outputs_of(model_class: type) -> dict:
    parameters = inspect.signature(model_class.forward).parameters
    kwargs = {}
    if "logits_to_keep" in parameters:
        kwargs["logits_to_keep"] = 1
    if "use_cache" in parameters:
        kwargs["use_cache"] = False
    return kwargs


def _pad(sequences: list[list[int]], pad_id: int, left: bool) -> tuple[torch.Tensor, torch.Tensor]:
    if len(sequences) == 1:  # nothing to pad: (1, n) ids and a mask of ones
        ids = torch.tensor(sequences)
        return ids, torch.ones_like(ids)
    width = max(len(s) for s in sequences)
    ids, mask = [], []
    for sequence in sequences:
        padding = [pad_id] * (width - len(sequence))
        ids.append(padding + sequence if left else sequence + padding)
        ones, zeros = [1] * len(sequence), [0] * len(padding)
        mask.append(zeros + ones if left else ones + zeros)
    return torch.tensor(ids), torch.tensor(mask)


def decoder_start(model) -> int:
    """The id an encoder-decoder model's decoder starts from."""
    start = getattr(model.generation_config, "decoder_start_token_id", None)
    if start is None:
        start = model.config.decoder_start_token_id
    if start is None:
        raise InputError("decoder_start_missing")
    return int(start)


def start_token(tokenizer, start: int) -> Token:
    """The decoder's start token, as a key of decoder self-attention."""
    return Token(str(tokenizer.convert_ids_to_tokens(start)), -1, -1, special=True)


def pad_id_of(tokenizer, model) -> int:
    for candidate in (tokenizer.pad_token_id, model.config.pad_token_id, tokenizer.eos_token_id):
        if candidate is not None:
            return int(candidate)
    return 0
