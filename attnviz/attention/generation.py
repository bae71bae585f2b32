"""Record a model writing: for every generated token, what it attended to when it was produced.

The model decodes as its generation config says (`num_beams`; the embedded translators use beam search), or greedily.
Beam search runs first, unrecorded, to choose the text; then the model writes that text once more, one token at a
time with batch 1, while the recorder listens. Each step is then exactly the computation the model made for that
token given the tokens before it, and its score is the model's own probability of it (which beam search, unlike
greedy decoding, need not have ranked first)."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from typing import Protocol

import numpy as np
import torch
from transformers import LogitsProcessor

from attnviz.attention.batching import decoder_start, pad_id_of, sequence_tokens, start_token
from attnviz.attention.encoding import Encoded, check_text, encode
from attnviz.attention.forcing import ForcedTokens, decoding_beams
from attnviz.attention.recorder import WeightRecorder, recording
from attnviz.errors import AttnvizError, InputError
from attnviz.model import usage
from attnviz.model.load import ModelHandle
from attnviz.model.memory import check_budget, check_text_length
from attnviz.provenance import alignment_meta, build_provenance
from attnviz.text.tokens import shown, special_ids, tokens_for_ids, vocabulary_token
from attnviz.types import AttentionCapture, AttentionMap, GenerationStep, Token, map_specs


class Watch(Protocol):
    """Someone watching the model write (`attention.live`): told of the beams of an unrecorded beam search, and of
    each step of the recorded writing as it is made. Watching changes no number the model computes."""

    def beam_processor(self) -> LogitsProcessor:
        """A logits processor that sees the running beams at each step of beam search (and changes no score)."""

    def replaying(self, model, recorder: WeightRecorder, text: str, source: list[Token]) -> AbstractContextManager:
        """While the model writes `text`'s continuation (`source`: the tokens it read) under `recorder`: a context
        giving `model.generate` its streamer."""


def generate(
    handle: ModelHandle,
    text: str,
    max_new_tokens: int = 32,
    truncate: bool = False,
    num_beams: int | None = None,
    watch: Watch | None = None,
) -> AttentionCapture:
    """Let the model write and record, for every generated token, what it attended to.

    `num_beams`: 1 decodes greedily, more runs beam search; None takes the model's generation config (the embedded
    translators: beam search, as their generation_config.json says).

    Encoder-decoder models: `steps[i]` holds the decoder self-attention and cross-attention of the step that produced
    token i, and the "encoder", "decoder" and "cross" maps cover the whole generated target (the same rows stacked).
    Decoder-only models: `steps[i]` holds the self-attention over the prompt and the previous tokens; the "self" map
    covers the prompt and all generated tokens but the last (the last one was never read back by the model).
    The capture's provenance has the text given and the text written as its source and target texts.
    A text longer than the model reads is refused, unless `truncate=True` keeps its first tokens.
    `watch` (`attention.live.write_live` passes one) sees each step as it is written.
    """
    text = _checked(handle, text, max_new_tokens)
    tokenizer, model = handle.tokenizer, handle.model
    limit = handle.max_positions
    if limit is not None and not handle.is_seq2seq:
        limit = max(1, limit - max_new_tokens)  # the prompt and what is written share the positions
    read = usage.reading(handle, text)  # language codes, a task prefix: what the model is given besides the text
    text = read.text
    with usage.applied(tokenizer, read):
        source = encode(tokenizer, text, limit=limit, truncate=truncate, model_name=handle.name)
    written = 0 if handle.is_seq2seq else max_new_tokens  # decoder-only: the prompt and what is written share a stack
    beams = decoding_beams(model, num_beams)
    # Beam search holds `beams` sequences at once; the recorded replay, one.
    check_budget(handle, len(source.ids) + written, max_new_tokens if handle.is_seq2seq else 0, "full", batch=beams)
    input_ids = torch.tensor([source.ids], device=model.device)
    first = 1 if handle.is_seq2seq else len(source.ids)  # where written ids start: seq2seq after the start token
    options = dict(
        input_ids=input_ids,
        attention_mask=torch.ones_like(input_ids),
        max_new_tokens=max_new_tokens,
        **read.generate_options(),  # NLLB: the target language's code, forced as the first token written
        do_sample=False,  # deterministic whatever the config says of sampling: a capture can be made again
        num_return_sequences=1,
        pad_token_id=pad_id_of(tokenizer, model),
    )
    output, recorder = _write(model, options, beams, first, watch, (text, source.tokens))
    sequence = output.sequences[0].tolist()
    roles = recorder.modules_by_role(handle.is_seq2seq)
    generated = sequence[first:]
    if handle.is_seq2seq:
        written = _seq2seq_generation(handle, text, source, generated, recorder, roles)
    else:
        written = _decoder_generation(handle, text, source, generated, recorder, roles)
    written = replace(written, steps=scored_steps(tokenizer, written.steps, generated, output.logits))
    options = {"mode": "generate", "max_new_tokens": max_new_tokens, "num_beams": beams}
    if truncate:  # recorded when asked: a file says that its text was cut
        options["truncate"] = True
    return replace(written, provenance=build_provenance(handle, text, written.target_text, options | read.options()))


def _write(model, options: dict, beams: int, first: int, watch: Watch | None = None, read: tuple = ("", [])):
    """The model writes under the recorder: greedily, or (beams > 1) the ids that an unrecorded beam search chose,
    replayed one token at a time with batch 1. Returns (generate's output with raw logits, the recorder)."""
    chosen = None
    if beams > 1:
        watching = {} if watch is None else {"logits_processor": [watch.beam_processor()]}
        with torch.no_grad():
            chosen = model.generate(**options, num_beams=beams, **watching)[0, first:].tolist()
        options = options | {"max_new_tokens": len(chosen)}
    with (
        recording(model) as recorder,
        nullcontext() if watch is None else watch.replaying(model, recorder, *read) as streamer,
    ):
        recorder.defer_norms = True  # value norms of each module's last call only: the one that sees every key
        output = model.generate(
            streamer=streamer,
            **options,
            num_beams=1,
            logits_processor=None if chosen is None else [ForcedTokens(chosen, first)],
            return_dict_in_generate=True,
            output_logits=True,  # the model's own next-token logits, before any generation rule changes them
        )
    if chosen is not None and output.sequences[0, first:].tolist() != chosen:  # a stop rule cut the replay short
        raise AttnvizError("generate_replay_differs", model=getattr(model.config, "name_or_path", ""))
    return output, recorder


TOP_ALTERNATIVES = 5  # the most probable tokens kept for each step


def scored_steps(
    tokenizer, steps: list[GenerationStep], ids: list[int], logits, top: int = TOP_ALTERNATIVES
) -> list[GenerationStep]:
    """`steps` (one per written id in `ids`) with each step's score: the probability the model gave the token it
    wrote (softmax of its logits at that step, in float32) and its `top` most probable tokens, best first."""
    scored = []
    for step, token_id, step_logits in zip(steps, ids, logits):
        probabilities = torch.softmax(step_logits[0].float(), dim=-1)  # (vocab,)
        values, top_ids = probabilities.topk(min(top, probabilities.shape[-1]))
        alternatives = tuple(
            (_piece_text(tokenizer, int(i)), float(v)) for v, i in zip(values.tolist(), top_ids.tolist())
        )
        chosen = float(probabilities[token_id].item())
        scored.append(replace(step, probability=chosen, alternatives=alternatives))
    return scored


def _piece_text(tokenizer, token_id: int) -> str:
    """One vocabulary entry as plain text says it (`tokens.vocabulary_token`, marked "?" when unknown)."""
    return shown(vocabulary_token(tokenizer, token_id))


def _checked(handle: ModelHandle, text: str, max_new_tokens: int) -> str:
    """The text, once the request is one a model can write for: a text of a length it reads, a model with a decoder,
    a positive number of tokens to write."""
    text = check_text_length(check_text(text))
    if handle.kind == "encoder":
        raise InputError("generate_needs_decoder", model=handle.name)
    if not isinstance(max_new_tokens, int) or max_new_tokens < 1:
        raise InputError("max_new_tokens_invalid", value=max_new_tokens)
    return text


def generated_tokens(tokenizer, ids: list[int]) -> tuple[str, list[Token]]:
    specials = special_ids(tokenizer)
    written = tokenizer.decode(
        [i for i in ids if i not in specials], skip_special_tokens=True, clean_up_tokenization_spaces=False
    ).strip()
    return written, tokens_for_ids(tokenizer, ids, written, target=True)


def written_tokens(handle, text: str, ids: list[int]) -> tuple[str, list[Token]]:
    """The text written as `ids` and its tokens: a translator's target with offsets into itself (stripped); a
    decoder's continuation as decoded, its tokens' offsets into `text` + the continuation."""
    if handle.is_seq2seq:
        return generated_tokens(handle.tokenizer, ids)
    written = handle.tokenizer.decode(ids, skip_special_tokens=True, clean_up_tokenization_spaces=False)
    # Offsets of generated tokens refer to the generated text; shift them past the prompt to index text + written.
    tokens = tokens_for_ids(handle.tokenizer, ids, written)
    return written, [
        replace(t, start=t.start + len(text), end=t.end + len(text)) if not t.special else t for t in tokens
    ]


def step_rows(recorder: WeightRecorder, names: list[str], calls: range) -> list[np.ndarray]:
    """Per forward call (decode step), each layer's last query row: [(layers, heads, keys_at_step)]."""
    return [np.stack([recorder.calls[name][call].numpy()[0, :, -1, :] for name in names]) for call in calls]


def _latest_norms(recorder: WeightRecorder, names: list[str], shape: tuple[int, ...]) -> np.ndarray | None:
    """(layers, heads, keys) value norms of each layer's last call, which saw every key of the map of `shape`."""
    norms = recorder.latest_value_norms(names)  # (layers, 1, heads, keys)
    return None if norms is None or norms[:, 0].shape != (shape[0], shape[1], shape[3]) else norms[:, 0]


def _seq2seq_generation(handle, text, source: Encoded, generated, recorder: WeightRecorder, roles) -> AttentionCapture:
    tokenizer = handle.tokenizer
    written, target_tokens = generated_tokens(tokenizer, generated)
    steps_count = len(generated)
    self_rows = step_rows(recorder, roles["decoder"], range(steps_count))  # step i: (layers, heads, i + 1)
    cross_rows = step_rows(recorder, roles["cross"], range(steps_count))  # step i: (layers, heads, source)
    layers, heads = self_rows[0].shape[:2]
    decoder = np.zeros((layers, heads, steps_count, steps_count), dtype=np.float32)  # causal cells stay exactly 0
    for i, row in enumerate(self_rows):
        decoder[:, :, i, : i + 1] = row
    weights = {
        "encoder": recorder.stack([(name, 0) for name in roles["encoder"]])[:, 0],  # (layers, heads, source, source)
        "decoder": decoder,
        "cross": np.stack(cross_rows, axis=2),  # (layers, heads, steps, source)
    }
    start = start_token(tokenizer, decoder_start(handle.model))
    maps = {
        spec.kind: AttentionMap(
            spec.kind,
            weights[spec.kind],
            sequence_tokens(spec.queries, source.tokens, target_tokens, start),
            sequence_tokens(spec.keys, source.tokens, target_tokens, start),
            roles[spec.kind],
            spec.is_causal(handle.kind),
            _latest_norms(recorder, roles[spec.kind], weights[spec.kind].shape),
        )
        for spec in map_specs(seq2seq=True, with_target=True)
    }
    steps = [GenerationStep(token, self_rows[i], cross_rows[i]) for i, token in enumerate(target_tokens)]
    meta = alignment_meta(handle)
    return AttentionCapture(handle.name, handle.device, maps, text, written, steps=steps, meta=meta)


def _decoder_generation(handle, text, source: Encoded, generated, recorder: WeightRecorder, roles) -> AttentionCapture:
    names = roles["self"]
    prompt_length = len(source.ids)
    written, shifted = written_tokens(handle, text, generated)
    full_text = text + written
    prefill = recorder.stack([(name, 0) for name in names])[:, 0]  # (layers, heads, prompt, prompt)
    rows = [prefill[:, :, -1, :]] + step_rows(recorder, names, range(1, len(generated)))
    total = prompt_length + len(generated) - 1
    layers, heads = prefill.shape[:2]
    weights = np.zeros((layers, heads, total, total), dtype=np.float32)
    weights[:, :, :prompt_length, :prompt_length] = prefill
    for call in range(1, len(generated)):
        position = prompt_length + call - 1
        weights[:, :, position, : position + 1] = rows[call]
    tokens = source.tokens + shifted[:-1]  # the sequence the model read: its "source"
    (spec,) = map_specs(seq2seq=False, with_target=False)
    norms = _latest_norms(recorder, names, weights.shape)
    maps = {spec.kind: AttentionMap(spec.kind, weights, tokens, tokens, names, spec.is_causal(handle.kind), norms)}
    steps = [GenerationStep(token, rows[i], None) for i, token in enumerate(shifted)]
    return AttentionCapture(
        handle.name, handle.device, maps, full_text, written.strip(), steps=steps, meta=alignment_meta(handle)
    )
