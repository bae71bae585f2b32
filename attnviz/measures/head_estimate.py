"""The fast estimate of head effects, for models too big to ablate every head: attribution patching.

Attribution patching (Nanda, 2023, "Attribution Patching: Activation Patching At Industrial Scale"; Syed, Rager &
Conmy, 2023, arXiv 2310.10348) replaces each ablation by its first-order Taylor term, all heads from one backward
pass: with a_h the head's slice of its output projection's input (zero when ablated, `head_effects`),

    m(ablated h) − m(clean) ≈ (0 − a_h) · ∂m/∂a_h

- "log-prob" (translators, decoders): m = Σ over target tokens of log p; one forward and one backward, batch 1.
- "cosine" (encoder-only): m = 1 − cos(pooled, pooled_clean) has zero gradient at the clean pass (cos is at its
  maximum there), so the first-order term says nothing. Its second-order term is ‖Δ⊥‖² / (2‖h‖²), with Δ⊥ the change
  of the pooled state orthogonal to the clean one, h; Δ⊥ ≈ J·(−a_h) is estimated with random probes r_k (Gaussian,
  orthogonal to h; E[(r·v)²] = ‖v‖²): one backward pass over `probes` copies of the text gives every r_kᵀJ, then
  estimate_h = mean_k (r_kᵀJ·a_h)² / (2‖h‖²).

An estimate is shown only with its rank agreement with the exact effect where both exist: Spearman's ρ over the heads
of each stack (`stack_agreement`, what a grid of one stack's heads says), and over every head of every stack pooled
(`rank_agreement`, a file's one summary).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch

from attnviz.measures.head_effects import (
    HeadEffects,
    HeadSite,
    assembled,
    head_sites,
    model_output,
    prepare_scoring,
)
from attnviz.model.load import ModelHandle

PROBES = 32  # random directions of the "cosine" estimate: the relative spread of each head's estimate is √(2/probes)


def head_estimate(
    handle: ModelHandle,
    text: str,
    target: str | None = None,
    *,
    max_new_tokens: int = 32,
    probes: int = PROBES,
    seed: int = 0,
    scoring=None,
) -> HeadEffects:
    """Attribution-patching estimates of every head's effect (`HeadEffects` with method "attribution-patching",
    `per_token` None), in the units of `head_effects`. The model is left as it was (no gradient kept on it)."""
    scoring = scoring or prepare_scoring(handle, text, target, max_new_tokens)
    sites = head_sites(handle, scoring)
    flat = [site for stack in sites.values() for site in stack]
    with torch.enable_grad(), _opened(flat) as opened:
        if scoring.metric == "log-prob":
            metric = model_output(handle, scoring, 1).sum()  # Σ_t log p(target t)
            grads = torch.autograd.grad(metric, [opened[id(site)][1] for site in flat])
            effects = [_first_order(site, opened[id(site)][0], grad) for site, grad in zip(flat, grads)]
        else:
            effects = _second_order(handle, scoring, flat, opened, probes, seed)
    total = np.concatenate(effects)  # (every head,) in `sites` order
    return assembled(handle, scoring, sites, "attribution-patching", total, None, {"probes": probes, "seed": seed})


@contextmanager
def _opened(sites: list[HeadSite]) -> Iterator[dict[int, tuple[torch.Tensor, torch.Tensor]]]:
    """Add a zero leaf z to each projection's input (a + z = a, and ∂m/∂z = ∂m/∂a) without cutting the graph between
    layers; yields id(site) -> (a detached, z) once the model has run. Hooks removed however the block ends."""
    opened: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
    hooks = []

    def opener(site: HeadSite):
        def hook(module, args):
            heads_output = args[0]  # (rows, n, heads·d)
            leaf = torch.zeros_like(heads_output, requires_grad=True)
            opened[id(site)] = (heads_output.detach(), leaf)
            return (heads_output + leaf, *args[1:])

        return hook

    try:
        for site in sites:
            hooks.append(site.projection.register_forward_pre_hook(opener(site)))
        yield opened
    finally:
        for hook in hooks:
            hook.remove()


def _per_head(site: HeadSite, heads_output: torch.Tensor, grad: torch.Tensor) -> torch.Tensor:
    """(rows, heads) a_h · g_h summed over positions and the head's columns."""
    rows, tokens = heads_output.shape[:2]
    product = (heads_output.double() * grad.double()).view(rows, tokens, site.heads, site.head_dim)
    return product.sum(dim=(1, 3))  # (rows, heads)


def _first_order(site: HeadSite, heads_output: torch.Tensor, grad: torch.Tensor) -> np.ndarray:
    """(heads,) (0 − a_h) · ∂m/∂a_h."""
    return (-_per_head(site, heads_output, grad)[0]).cpu().numpy()


def _second_order(handle, scoring, sites: list[HeadSite], opened, probes: int, seed: int) -> list[np.ndarray]:
    """(heads,) per site: mean_k (r_kᵀ J a_h)² / (2‖h‖²), the probes r_k orthogonal to the clean pooled state h."""
    pooled = model_output(handle, scoring, probes).mean(dim=1)  # (probes, hidden): every row the clean state
    clean = pooled[0].detach()
    unit = clean / clean.norm()
    generator = torch.Generator().manual_seed(seed)
    directions = torch.randn(pooled.shape, generator=generator, dtype=pooled.dtype).to(pooled.device)
    directions = directions - (directions @ unit)[:, None] * unit  # (probes, hidden), orthogonal to h
    metric = (directions * pooled).sum() / clean.norm()  # row k: r_k · h_k / ‖h‖
    grads = torch.autograd.grad(metric, [opened[id(site)][1] for site in sites])  # row k: r_kᵀJ / ‖h‖
    return [
        (_per_head(site, opened[id(site)][0], grad).pow(2).mean(dim=0) / 2).cpu().numpy()
        for site, grad in zip(sites, grads)
    ]


def spearman(first: np.ndarray, second: np.ndarray) -> float:
    """Spearman's rank correlation of two equal-length vectors (ties get their mean rank); NaN when either is
    constant."""
    first, second = _ranks(np.ravel(first)), _ranks(np.ravel(second))
    if first.std() == 0 or second.std() == 0:
        return float("nan")
    return float(np.corrcoef(first, second)[0, 1])


def _ranks(values: np.ndarray) -> np.ndarray:
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(len(values))
    _, groups = np.unique(values, return_inverse=True)
    return (np.bincount(groups, ranks) / np.bincount(groups))[groups]  # ties: their mean rank


def stack_agreement(exact: HeadEffects, estimate: HeadEffects) -> dict[str, float]:
    """Spearman's ρ between exact and estimated effects, stack by stack (stack -> ρ over its heads): the number a
    grid of one stack's heads says. Pooling stacks would rank the heads of one stack against another's, which no
    grid shows (a decoder's cross heads can move the output far more than its encoder heads)."""
    stacks = [stack for stack in exact.total if stack in estimate.total]
    return {stack: spearman(exact.total[stack], estimate.total[stack]) for stack in stacks}


def rank_agreement(exact: HeadEffects, estimate: HeadEffects) -> float:
    """Spearman's ρ between exact and estimated effects, over every head of every stack both hold, pooled."""
    stacks = [stack for stack in exact.total if stack in estimate.total]
    return spearman(
        np.concatenate([exact.total[stack].ravel() for stack in stacks]),
        np.concatenate([estimate.total[stack].ravel() for stack in stacks]),
    )
