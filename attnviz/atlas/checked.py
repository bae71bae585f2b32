"""Routes checked at first use: a kernel's LSE and output are compared with float64 rows before it is trusted, and a
kernel that disagrees (or is missing here) is not used again in the run; the exact fallback takes its place and the
run's provenance says so, with the reason (`RouteBook.record`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from attnviz.atlas import routes
from attnviz.atlas.routes import CHUNKED_EAGER, Route
from attnviz.attention.math import closed_rows


@dataclass
class RouteBook:
    """Which route each kind of call takes, decided at its first call: a call's kind is what it computes ("output",
    the model's own attention; "blocks", a block-mass pass), its dtype, whether it has a mask and whether it uses the
    kernel's causal flag — a kernel may be right on one and wrong on another."""

    chosen: dict[tuple, Route] = field(default_factory=dict)
    record: list[dict] = field(default_factory=list)  # one entry per kind of call: route, check, fallback, reason

    def attend(self, purpose: str, query, key, value, mask, is_causal: bool, scale: float):
        """(output, lse) of the call through its route (`routes` signature), checked the first time."""
        route = routes.route_for(query, mask is not None)
        kind = (purpose, route.name, str(query.dtype).removeprefix("torch."), mask is not None, is_causal)
        chosen = self.chosen.get(kind)
        if chosen is not None:
            return chosen.attend(query, key, value, mask, is_causal, scale)
        entry = {"call": purpose, "dtype": kind[2], "masked": kind[3], "causal": is_causal, "route": route.name}
        try:
            output, lse = route.attend(query, key, value, mask, is_causal, scale)
            check = routes.check_rows(query, key, value, mask, is_causal, scale, output, lse)
        except (RuntimeError, ImportError, NotImplementedError, TypeError) as error:  # the kernel is not here
            check, reason = None, f"{type(error).__name__}: {error}".strip()[:300]
        else:
            reason = None if check.agrees else "disagrees with float64 on the checked rows"
            entry["check"] = check.record()
        agrees = check is not None and check.agrees
        self.chosen[kind] = route if agrees else CHUNKED_EAGER
        if agrees:
            entry["used"] = route.name
        else:
            entry.update(used=CHUNKED_EAGER.name, refused=route.name, reason=reason)
            output, lse = CHUNKED_EAGER.attend(query, key, value, mask, is_causal, scale)
        self.record.append(entry)
        return output, lse

    @property
    def fell_back(self) -> bool:
        """Whether any kind of call fell back from its fused route."""
        return any("refused" in entry for entry in self.record)


def attention_call(book: RouteBook, purpose: str):
    """`book.attend` for calls of one `purpose`, in the routes' signature (what `blocks.block_masses` takes)."""

    def attend(query, key, value, mask, is_causal, scale):
        return book.attend(purpose, query, key, value, mask, is_causal, scale)

    return attend


def closed_lse(lse: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    """`lse` (b, heads, q) with −inf on the rows `mask` (additive, −inf where hidden) closes: a row that sees no key
    has no LSE (kernels hand out 0 there)."""
    closed = closed_rows(mask, 0 if mask is None else mask.shape[-1])  # bool (…, q, 1) or None
    return lse if closed is None else lse.masked_fill(closed[..., 0], float("-inf"))
