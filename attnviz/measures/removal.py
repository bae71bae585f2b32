"""The model's output on inputs with tokens removed, many inputs per forward pass: what faithfulness scores read.

The output f scored (`scored_output`):
- a translator: log p of target tokens `rows` given the source and the target before each (force-decoded), summed —
  one token, or the whole target; without a target, the model first writes one (its own decoding settings);
- a decoder: log p of the next token, the one the model finds most probable after the whole text (as saliency
  explains it);
- an encoder: cos(pooled(x'), pooled(x)), the pooled output being the mean of the last layer's token vectors (as
  sentence-transformers pools MiniLM); `1 − cos` is then what removing tokens changed.

"Removing" token j puts a baseline token in its place (`replacement_ids`), so the input keeps its length, positions
and attention mask, and a batch of edited inputs needs no padding:
- "mask": the tokenizer's mask token, else its unknown token, else its padding token (the same at every position);
- "random": a token drawn uniformly from the vocabulary without special tokens, one per position, from a seed.

`outputs` runs the edited inputs in passes of many rows, each distinct input once (rows that repeat, such as "every
token removed" for every order, are computed once and copied).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch

from attnviz.attention.batching import prepare_batch
from attnviz.errors import InputError
from attnviz.measures.head_effects import prepare_scoring, rows_per_pass
from attnviz.model.load import ModelHandle
from attnviz.types import Token, position

BASELINES = ("mask", "random")
ROWS_MOST = 128  # rows per pass at most: beyond it a CPU pass gets no faster per row


@dataclass(frozen=True)
class Output:
    """What a faithfulness test scores on one input: the whole input's model inputs (batch 1) and what f reads."""

    metric: str  # "log-prob" | "cosine"
    inputs: dict[str, torch.Tensor]  # (1, n) each; "input_ids" is what removal edits
    target_ids: torch.Tensor | None  # (T,) the ids whose log-probabilities are summed
    positions: torch.Tensor | None  # (T,) the logit rows that predict them
    tokens: list[Token]  # the input tokens (a translator's source)
    relevance_rows: tuple[int, ...]  # the query rows of a measure's map that explain this output
    rows: tuple[int, ...]  # a translator's target rows scored; () otherwise
    explained: str  # the output as a person reads it: target token(s), the next token, or "" (pooled output)
    target_text: str | None  # a translator's target (given, or written by the model)
    generated: bool  # the target was written by the model

    @property
    def input_ids(self) -> np.ndarray:
        return self.inputs["input_ids"][0].cpu().numpy().astype(np.int64)


def scored_output(handle: ModelHandle, text: str, target: str | None = None, row: int | None = None) -> Output:
    """The `Output` of `text` (and a translator's `target`; target row `row`, None: the whole target)."""
    if handle.is_seq2seq:
        return _translation(handle, text, target, row)
    if row is not None:  # a decoder's output is its next token, an encoder's its pooled output: no row to choose
        raise InputError("faithfulness_row_not_translator", model=handle.name)
    batch = prepare_batch(handle, [text], None if target is None else [target])  # (refuses a target)
    tokens, inputs = batch.sources[0].tokens, batch.inputs
    if handle.kind == "encoder":
        every = tuple(range(len(tokens)))
        return Output("cosine", inputs, None, None, tokens, every, (), "", None, False)
    last = len(tokens) - 1
    with torch.inference_mode():
        logits = handle.model(**inputs, use_cache=False).logits[0, last]  # (vocab,)
    following = logits.argmax().reshape(1)  # the most probable next token
    explained = handle.tokenizer.decode(following.tolist())
    positions = torch.tensor([last])
    return Output("log-prob", inputs, following, positions, tokens, (last,), (), explained, None, False)


def _translation(handle: ModelHandle, text: str, target: str | None, row: int | None) -> Output:
    generated = target is None
    if generated:  # the model writes the target; then it is read back as a given one, as the measures read it
        target = prepare_scoring(handle, text, None).target_text
    scoring = prepare_scoring(handle, text, target)
    count = len(scoring.target_ids)
    rows = tuple(range(count)) if row is None else (position(row, count, "target row"),)
    last = max(rows) + 1  # the decoder reads no further than the last row scored: a shorter pass, the same logits
    inputs = {
        name: tensor[:, :last] if name.startswith("decoder") else tensor for name, tensor in scoring.inputs.items()
    }
    targets = scoring.target_tokens
    explained = scoring.target_text if row is None else targets[rows[0]].text
    ids, positions = scoring.target_ids[list(rows)], scoring.positions[list(rows)]
    return Output("log-prob", inputs, ids, positions, scoring.source_tokens, rows, rows, explained, target, generated)


def replacement_ids(handle: ModelHandle, ids: np.ndarray, baseline: str, seed: int = 0) -> np.ndarray:
    """int64 (tokens,): the token put in place of each token of `ids` when it is removed (module docstring)."""
    tokenizer = handle.tokenizer
    if baseline == "mask":
        candidates = (tokenizer.mask_token_id, tokenizer.unk_token_id, tokenizer.pad_token_id)
        chosen = next((token for token in candidates if token is not None), None)
        if chosen is None:
            raise InputError("faithfulness_no_mask", model=handle.name)
        return np.full(len(ids), int(chosen), dtype=np.int64)
    if baseline == "random":
        vocabulary = min(len(tokenizer), handle.model.get_input_embeddings().num_embeddings)
        allowed = np.setdiff1d(np.arange(vocabulary), np.asarray(tokenizer.all_special_ids, dtype=np.int64))
        return np.random.default_rng(seed).choice(allowed, size=len(ids)).astype(np.int64)
    raise InputError("faithfulness_baseline_unknown", baseline=baseline, baselines=", ".join(BASELINES))


@torch.inference_mode()
def outputs(handle: ModelHandle, output: Output, ids: np.ndarray, per_pass: int | None = None) -> np.ndarray:
    """float64 (inputs,): f of each row of `ids` (inputs, tokens), the input ids of an edited input. `per_pass`:
    rows per forward pass (default: what fits the memory budget, at most ROWS_MOST); 1 runs one pass per input,
    repeats included (the plain loop this batching is measured against)."""
    ids = np.asarray(ids, dtype=np.int64)
    if ids.ndim != 2 or ids.shape[1] != output.inputs["input_ids"].shape[1]:
        raise InputError("faithfulness_inputs_shape", shape=ids.shape, tokens=output.inputs["input_ids"].shape[1])
    if per_pass == 1:
        distinct, inverse = ids, np.arange(len(ids))
    else:
        distinct, inverse = np.unique(ids, axis=0, return_inverse=True)
    per_pass = per_pass or min(ROWS_MOST, rows_per_pass(handle, output))
    reference = _pooled(handle, output, output.inputs["input_ids"]) if output.metric == "cosine" else None
    values = [
        _values(handle, output, torch.from_numpy(distinct[start : start + per_pass]), reference)
        for start in range(0, len(distinct), per_pass)
    ]
    return np.concatenate(values)[np.asarray(inverse).reshape(-1)]


def _values(handle: ModelHandle, output: Output, ids: torch.Tensor, reference: torch.Tensor | None) -> np.ndarray:
    """float64 (rows,): f of each row of `ids` (rows, tokens)."""
    device = output.inputs["input_ids"].device
    ids = ids.to(device)
    if output.metric == "cosine":
        pooled = _pooled(handle, output, ids)  # (rows, hidden)
        return torch.nn.functional.cosine_similarity(pooled, reference, dim=-1).cpu().numpy()
    inputs = {name: tensor.expand(len(ids), -1) for name, tensor in output.inputs.items()}  # (rows, …)
    inputs["input_ids"] = ids
    positions = output.positions.to(device)
    with scored_positions(handle.model, positions) as sliced:
        logits = handle.model(**inputs, use_cache=False).logits  # (rows, T, vocab) when sliced, else every position
    logits = logits if sliced else logits[:, positions]
    log_probs = torch.log_softmax(logits.double(), dim=-1)
    chosen = output.target_ids.to(device).expand(len(ids), -1).unsqueeze(-1)  # (rows, T, 1)
    return log_probs.gather(-1, chosen).squeeze(-1).sum(dim=-1).cpu().numpy()  # (rows,)


@contextmanager
def scored_positions(model, positions: torch.Tensor):
    """While the block runs, the output projection (the model's output embeddings) reads only the hidden states at
    `positions`: the logits the scores read, without the (rows, every position, vocabulary) product of the others.
    Yields whether it could (a model without output embeddings gets every position's logits)."""
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if head is None:
        yield False
        return

    def only_scored(_module, args):
        return (args[0][:, positions], *args[1:])  # (rows, positions, hidden)

    hook = head.register_forward_pre_hook(only_scored)
    try:
        yield True
    finally:
        hook.remove()


def _pooled(handle: ModelHandle, output: Output, ids: torch.Tensor) -> torch.Tensor:
    """float64 (rows, hidden): the mean of the last layer's token vectors of each row of `ids`."""
    mask = output.inputs["attention_mask"].expand(len(ids), -1)
    hidden = handle.model(input_ids=ids, attention_mask=mask, output_hidden_states=True).hidden_states[-1]
    return hidden.double().mean(dim=1)
