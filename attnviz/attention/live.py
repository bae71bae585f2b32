"""Watch the model write: `write_live` yields each step as the model makes it, then the finished capture.

It runs `generation.generate` itself (in a worker thread) with a `Watch`, so the finished capture is the one
`generate(handle, text, …)` returns, and every step it yields is read from the same recorder the capture is built
from (`generation.step_rows`, `generation.scored_steps`), never computed again:

- with beam search, first the search's running beams after each step (`LiveBeams`: each beam's text so far and its
  score, the sum of the log-probabilities beam search ranks by), unrecorded as in `generate`;
- then each written token (`LiveStep`): the token, its probability and top alternatives, the step's decoder
  self-attention row and cross-attention row (layers, heads, keys), and the text and tokens written so far;
- last, `LiveFinished`: the capture, and for each beam step the beam that went on to win.

The generator can be left early (`close()`, or a loop that breaks): the model stops at its next step and is restored.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import torch
from transformers import LogitsProcessor
from transformers.generation.streamers import BaseStreamer

from attnviz.attention.generation import generate, generated_tokens, scored_steps, step_rows, written_tokens
from attnviz.attention.live_items import Beam, LiveBeams, LiveFinished, LiveItem, LiveStep
from attnviz.attention.recorder import WeightRecorder
from attnviz.model.load import ModelHandle
from attnviz.types import GenerationStep, Token


class _Stopped(Exception):
    """The watcher left: the worker stops the model at its next step."""


class _BeamWatcher(LogitsProcessor):
    """Sees beam search's running sequences (beams, length) and its scored next-token log-probabilities at every
    step; a beam's score is its parent's plus the log-probability of its newest token. Changes no score."""

    def __init__(self, tokenizer, first: int | None, send, stopped: threading.Event):
        self.tokenizer, self.first, self.send, self.stopped = tokenizer, first, send, stopped
        self.previous: dict[tuple[int, ...], tuple[float, torch.Tensor]] = {}  # prefix -> (score, log-probs)

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self.stopped.is_set():
            raise _Stopped
        if self.first is None:  # a decoder's beams start after its prompt: the first step's whole length
            self.first = input_ids.shape[-1]
        current: dict[tuple[int, ...], tuple[float, torch.Tensor]] = {}
        for row, sequence in zip(scores, input_ids.tolist()):  # row: (vocab,) log-probabilities
            key = tuple(sequence)
            if key in current:  # the first step: every beam is the start alone
                continue
            parent = self.previous.get(key[:-1])
            score = 0.0 if parent is None else parent[0] + float(parent[1][key[-1]])
            current[key] = (score, row.clone())
        self.previous = current
        step = input_ids.shape[-1] - self.first
        if step > 0:
            beams = [self._beam(key, score) for key, (score, _) in current.items()]
            self.send(LiveBeams(step, tuple(sorted(beams, key=lambda beam: -beam.score))))
        return scores

    def _beam(self, key: tuple[int, ...], score: float) -> Beam:
        ids = key[self.first :]
        return Beam(generated_tokens(self.tokenizer, list(ids))[0], ids, score)


class _StepStreamer(BaseStreamer):
    """`model.generate`'s streamer during the recorded writing: after each written token, the step read from the
    recorder and the step's logits (kept by a forward hook on the model, as generation keeps its `output_logits`)."""

    def __init__(self, handle: ModelHandle, recorder: WeightRecorder, read: tuple[str, list[Token]], send, stopped):
        self.handle, self.recorder, self.send, self.stopped = handle, recorder, send, stopped
        self.text, self.source = read[0], tuple(read[1])
        self.ids: list[int] = []
        # Per forward call, its next-token logits (batch 1, vocab): on CUDA generation hands a token to the streamer
        # one step late (its deferred stop check), after the next call has run.
        self.logits: dict[int, torch.Tensor | None] = {}
        self.started = False

    def keep_logits(self, module, args, output) -> None:
        self.logits[len(self.logits)] = output.logits[:, -1].to(copy=True, dtype=torch.float32)

    def put(self, value: torch.Tensor) -> None:
        if self.stopped.is_set():
            raise _Stopped
        if not self.started:  # the first call hands over the prompt (or the decoder's start token)
            self.started = True
            return
        token_id = int(value.reshape(-1)[0])
        self.ids.append(token_id)
        self.send(self._step(len(self.ids) - 1, token_id))

    def end(self) -> None:
        pass

    def _step(self, index: int, token_id: int) -> LiveStep:
        roles = self.recorder.modules_by_role(self.handle.is_seq2seq)
        seq2seq = self.handle.is_seq2seq
        self_row = step_rows(self.recorder, roles["decoder" if seq2seq else "self"], range(index, index + 1))[0]
        cross_row = step_rows(self.recorder, roles["cross"], range(index, index + 1))[0] if seq2seq else None
        text, tokens = written_tokens(self.handle, self.text, self.ids)
        (step,) = scored_steps(
            self.handle.tokenizer, [GenerationStep(tokens[-1], self_row, cross_row)], [token_id], [self.logits[index]]
        )
        self.logits[index] = None  # read once: drop it
        return LiveStep(index, step, text.strip(), self.source, tuple(tokens))


class _Watch:
    """The `generation.Watch` that hands each beam step and written step to the live generator's queue."""

    def __init__(self, handle: ModelHandle, send, stopped: threading.Event):
        self.handle, self.send, self.stopped = handle, send, stopped
        self.streamer: _StepStreamer | None = None

    def beam_processor(self) -> LogitsProcessor:
        first = 1 if self.handle.is_seq2seq else None  # after the decoder's start token, or the prompt
        return _BeamWatcher(self.handle.tokenizer, first, self.send, self.stopped)

    @contextmanager
    def replaying(self, model, recorder: WeightRecorder, text: str, source: list[Token]):
        self.streamer = _StepStreamer(self.handle, recorder, (text, source), self.send, self.stopped)
        hook = model.register_forward_hook(self.streamer.keep_logits)
        try:
            yield self.streamer
        finally:
            hook.remove()


def write_live(
    handle: ModelHandle, text: str, max_new_tokens: int = 32, truncate: bool = False, num_beams: int | None = None
) -> Iterator[LiveItem]:
    """Let the model write `text`'s continuation or translation, yielding `LiveBeams` (beam search only), then a
    `LiveStep` per written token as it is written, then `LiveFinished` with `generate(handle, text, …)`'s capture
    (also the generator's return value). Errors of `generate` are raised here, in the caller's thread."""
    items: queue.Queue = queue.Queue()
    stopped = threading.Event()
    watch = _Watch(handle, items.put, stopped)

    def work() -> None:
        try:
            capture = generate(handle, text, max_new_tokens, truncate, num_beams, watch=watch)
            items.put(LiveFinished(capture))
        except _Stopped:
            items.put(None)
        except BaseException as error:  # handed to the caller's thread, which raises it
            items.put(error)

    worker = threading.Thread(target=work, name="attnviz-live", daemon=True)
    worker.start()
    beams: list[LiveBeams] = []
    try:
        while True:
            item = items.get()
            if isinstance(item, BaseException):
                raise item
            if item is None:
                return None
            if isinstance(item, LiveBeams):
                beams.append(item)
            if isinstance(item, LiveFinished):
                written = watch.streamer.ids if watch.streamer is not None else []
                finished = LiveFinished(item.capture, _winners(beams, written))
                yield finished
                return finished.capture
            yield item
    finally:
        stopped.set()
        worker.join()


def _winners(beams: list[LiveBeams], written: list[int]) -> tuple[int | None, ...]:
    """Per beam step, the index of the running beam whose ids begin the written ids (None: none of them)."""
    found = []
    for step in beams:
        matches = [i for i, beam in enumerate(step.beams) if list(beam.ids) == written[: len(beam.ids)]]
        found.append(matches[0] if matches else None)
    return tuple(found)
