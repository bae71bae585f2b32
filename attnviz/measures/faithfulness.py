"""Which explanation to believe on this input: every measure of what the model uses scored by removing tokens in its
order of relevance, beside random orders, under two ways of removing a token.

- comprehensiveness and sufficiency, summarised as AOPC over removal bins (DeYoung et al., ACL 2020, "ERASER: A
  Benchmark to Evaluate Rationalized NLP Models", arXiv 1911.03429);
- deletion and insertion curves and their areas (Petsiuk, Das and Saenko, BMVC 2018, "RISE", arXiv 1806.07421);
- the measures (`attnviz.measures.relevance`): attention weights, rollout, value-norm weighting, ALTI, ALTI rollout,
  value zeroing and gradient × input saliency; the output (`attnviz.measures.removal`): a translator's target token
  (or whole target), a decoder's next token, an encoder's pooled output;
- the floor: `random_orders` random orders of the same tokens, scored the same way; the verdict
  (`attnviz.maps.faithfulness_verdict`) ranks the measures by their margin above it.

Every edited input of every order and baseline (deletion and insertion, k = 0 … n) is built first and run in batched
passes (`removal.outputs`); the scores are read from the curves (`attnviz.maps.faithfulness_scores`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attnviz.errors import InputError
from attnviz.maps.faithfulness_scores import (
    RANDOM,
    Curves,
    Scoreboard,
    deletion_inputs,
    insertion_inputs,
    random_orders,
    removal_order,
)
from attnviz.measures.relevance import relevances
from attnviz.measures.removal import BASELINES, Output, outputs, replacement_ids, scored_output
from attnviz.model.load import ModelHandle
from attnviz.provenance import build_provenance

MEASURE = {
    "name": "faithfulness",
    "papers": [
        "DeYoung et al. (2020), ERASER: A Benchmark to Evaluate Rationalized NLP Models, ACL",
        "Petsiuk, Das and Saenko (2018), RISE: Randomized Input Sampling for Explanation of Black-box Models, BMVC",
    ],
    "arxiv": ["1911.03429", "1806.07421"],
}
RANDOM_ORDERS = 3  # random orders averaged into the floor


def faithfulness(
    handle: ModelHandle,
    text: str,
    target: str | None = None,
    *,
    row: int | None = None,
    measures: Sequence[str] | None = None,
    baselines: Sequence[str] = BASELINES,
    random_count: int = RANDOM_ORDERS,
    seed: int = 0,
    per_pass: int | None = None,
) -> Scoreboard:
    """Score every measure (or `measures`, the attention weights always among them) on `text` for one output:
    a translator's target row `row` of `target` (None: the whole target; no target: the model writes one), a
    decoder's next token, an encoder's pooled output. Tokens are removed by each of `baselines` ("mask",
    "random"); `random_count` random orders drawn from `seed` make the floor. `per_pass`: edited inputs per forward
    pass (1: one pass per input, the plain loop)."""
    baselines = _checked(baselines, random_count)
    output = scored_output(handle, text, target, row)
    relevance, unavailable = relevances(handle, text, output.target_text, output.relevance_rows, measures)
    removable = np.array([not token.special for token in output.tokens], dtype=bool)
    if not removable.any():
        raise InputError("faithfulness_nothing_removable")
    orders = {name: removal_order(scores, removable) for name, scores in relevance.items()}
    for index, order in enumerate(random_orders(removable, random_count, seed)):
        orders[f"{RANDOM}-{index}"] = order
    ids = output.input_ids
    replacements = {baseline: replacement_ids(handle, ids, baseline, seed) for baseline in baselines}
    curves = _curves(handle, output, orders, replacements, per_pass)
    texts = {name: handle.tokenizer.convert_ids_to_tokens(chosen.tolist()) for name, chosen in replacements.items()}
    options = {
        "row": row,
        "rows": list(output.rows),
        "metric": output.metric,
        "baselines": list(baselines),
        "random_orders": random_count,
        "seed": seed,
        "generated": output.generated,
    }
    provenance = {**build_provenance(handle, text, output.target_text, options), "measure": MEASURE}
    full = float(curves[baselines[0]]["weights"].deletion[0])
    return Scoreboard(
        handle.name,
        output.metric,
        output.explained,
        output.rows,
        output.tokens,
        removable,
        full,
        relevance,
        orders,
        curves,
        replacements,
        texts,
        unavailable,
        provenance,
    )


def _checked(baselines: Sequence[str], random_count: int) -> list[str]:
    baselines = list(dict.fromkeys(baselines))
    unknown = [name for name in baselines if name not in BASELINES]
    if unknown or not baselines:
        raise InputError("faithfulness_baseline_unknown", baseline=(unknown or [""])[0], baselines=", ".join(BASELINES))
    if not isinstance(random_count, int) or random_count < 1:
        raise InputError("faithfulness_random_orders", count=random_count)
    return baselines


def _curves(
    handle: ModelHandle,
    output: Output,
    orders: dict[str, np.ndarray],
    replacements: dict[str, np.ndarray],
    per_pass: int | None,
) -> dict[str, dict[str, Curves]]:
    """baseline -> order -> its `Curves`, every edited input run in one batched sweep."""
    ids, blocks = output.input_ids, []
    for replacement in replacements.values():
        for order in orders.values():
            blocks.append(deletion_inputs(ids, order, replacement))  # (n + 1, tokens)
            blocks.append(insertion_inputs(ids, order, replacement))
    values = outputs(handle, output, np.concatenate(blocks), per_pass)  # (every row,)
    steps = len(next(iter(orders.values()))) + 1
    curves, at = {}, 0
    for baseline in replacements:
        curves[baseline] = {}
        for name in orders:
            deletion, insertion = values[at : at + steps], values[at + steps : at + 2 * steps]
            curves[baseline][name] = Curves(deletion, insertion)
            at += 2 * steps
    return curves
