"""The atlas's recorder: every attention call of the model goes through a fused kernel that hands out each row's
log-sum-exp (`atlas.routes`, checked at first use: `atlas.checked`), and while the layer's queries and keys are at
hand, one more fused pass gives every head's block masses (`atlas.blocks`). Per call it keeps only the queries, keys
(un-repeated under grouped queries), LSE and block masses: nothing of size n × n.

It plugs into the recorders' machinery (`attention.recorder`): the model is switched to attnviz's attention function
under SDPA's masks (FUSED_IMPLEMENTATION), and the call decides causality as transformers' SDPA attention does, so
that its output is the one the model computes with SDPA (on the CPU, the same kernel: bit for bit).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import torch

from attnviz.atlas.blocks import block_masses, sink_shares
from attnviz.atlas.checked import RouteBook, attention_call, closed_lse
from attnviz.atlas.visibility import Visibility, visibility_of
from attnviz.attention.recorder import FUSED_IMPLEMENTATION, Recorder, own_storage
from attnviz.errors import InputError

Span = tuple[int, int]  # (first, last) token of one example along one padded axis


class AtlasStopped(Exception):
    """Raised inside the forward pass when the run's stop event is set (a stop button): nothing is kept."""


@dataclass(frozen=True)
class AtlasPlan:
    """What the recorder computes beside each call, decided before the pass."""

    block: int = 64  # tokens per block along each axis
    sink: int = 4  # the first tokens whose weight is the sink mass (StreamingLLM's four)
    keep_inputs: bool = True  # keep queries and keys (windows on demand); else only the LSE and the blocks
    seq2seq: bool = False
    # role ("self", "encoder", "decoder", "cross") -> per example, (query span, key span) in the padded batch
    spans: Mapping[str, Sequence[tuple[Span, Span]]] = field(default_factory=dict)
    progress: Callable[[int], None] | None = None  # called with the number of attention calls done
    stop: threading.Event | None = None


@dataclass(frozen=True)
class AtlasCall:
    """What one attention call leaves: per example, its visibility, block masses and sink shares."""

    query: torch.Tensor | None  # (batch, heads, q, d), as the model computed it (post-rotary)
    key: torch.Tensor | None  # (batch, kv_heads, k, d)
    lse: torch.Tensor  # float32 (batch, heads, q); −inf for a row that sees no key
    scale: float
    visibility: list[Visibility]  # per example
    blocks: list[torch.Tensor]  # per example: float32 (heads, query blocks, key blocks)
    sinks: list[torch.Tensor]  # per example: float32 (heads, q): Σ_{j < sink} a_ij of each row


@dataclass
class AtlasRecorder(Recorder):
    """Fused attention with its LSE, and the block masses of every head, per call (module docstring)."""

    implementation: ClassVar[str] = FUSED_IMPLEMENTATION
    plan: AtlasPlan = field(default_factory=AtlasPlan)
    book: RouteBook = field(default_factory=RouteBook)
    _masks: dict[int, tuple[torch.Tensor, torch.Tensor]] = field(default_factory=dict)  # id -> (mask, additive)

    def forward(self, module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        if self.plan.stop is not None and self.plan.stop.is_set():
            raise AtlasStopped
        if kwargs.get("softcap"):
            raise InputError("atlas_softcap")
        if kwargs.get("position_bias") is not None:
            raise InputError("atlas_position_bias")
        scale = query.shape[-1] ** -0.5 if scaling is None else float(scaling)
        causal = sdpa_causal(module, query, attention_mask, kwargs.get("is_causal"))
        if causal and key.shape[2] > query.shape[2]:  # as SDPA attention: cached keys past the queries are not seen
            key, value = key[:, :, : query.shape[2]], value[:, :, : query.shape[2]]
        mask = self._additive(attention_mask, query.dtype, key.shape[2])
        output, lse = self.book.attend("output", query, key, value, mask, causal, scale)  # (b, heads, q, d)
        lse = closed_lse(lse, mask)
        name = self.name_of(module)
        if name is not None:
            self._keep_call(name, query, key, lse, attention_mask, causal, scale)
        if self.plan.progress is not None:
            self.plan.progress(self.seen + 1)
        return output.transpose(1, 2).contiguous(), None  # (b, q, heads, d)

    def _keep_call(self, name, query, key, lse, attention_mask, causal, scale) -> None:
        role = self.state.role_of(name, self.plan.seq2seq)
        batch, _, queries, _ = query.shape
        spans = self.plan.spans.get(role) or [((0, queries), (0, key.shape[2]))] * batch
        attend = attention_call(self.book, "blocks")
        visibility, blocks, sinks = [], [], []
        for example, ((q0, q1), (k0, k1)) in enumerate(spans):
            seen = visibility_of(attention_mask, causal, (q0, q1), (k0, k1), example)
            own_query = query[example : example + 1, :, q0:q1]  # (1, heads, q', d)
            own_key = key[example : example + 1, :, k0:k1]  # (1, kv_heads, k', d)
            own_lse = lse[example : example + 1, :, q0:q1]  # (1, heads, q')
            blocks.append(block_masses(attend, own_query, own_key, own_lse, seen, scale, self.plan.block))
            sinks.append(sink_shares(own_query, own_key, own_lse, seen, scale, self.plan.sink))
            visibility.append(seen)
        kept_query, kept_key = (own_storage(query), own_storage(key)) if self.plan.keep_inputs else (None, None)
        self.keep(name, AtlasCall(kept_query, kept_key, lse, scale, visibility, blocks, sinks), query.device)

    def _additive(self, mask: torch.Tensor | None, dtype: torch.dtype, keys: int) -> torch.Tensor | None:
        """The mask as the kernels take it: additive, 0 where seen and −inf where hidden (as SDPA turns a boolean
        mask into one), made once per mask tensor (every layer of a stack shares it)."""
        if mask is None:
            return None
        seen = self._masks.get(id(mask))
        if seen is None or seen[0] is not mask:
            cut = mask[..., :keys]
            if cut.is_floating_point():
                additive = cut.to(dtype)
            else:
                additive = torch.zeros(cut.shape, dtype=dtype, device=cut.device).masked_fill_(~cut, float("-inf"))
            seen = self._masks[id(mask)] = (mask, additive)
        return seen[1]

    def release(self) -> None:
        """Forget the masks held while the model ran."""
        self._masks.clear()


def sdpa_causal(module, query: torch.Tensor, attention_mask, is_causal: bool | None) -> bool:
    """Whether transformers' SDPA attention would use the kernel's causal flag for this call: more than one query,
    no mask, and a causal module (or the call's own `is_causal`)."""
    causal = getattr(module, "is_causal", True) if is_causal is None else is_causal
    return query.shape[2] > 1 and attention_mask is None and bool(causal)
