"""The detached-translation flag's two numbers for one translation (`attnviz.maps.detachment` defines them and the
flag): ALTI+'s source share (Dale et al., ACL 2023, arXiv 2212.08597; Ferrando et al., EMNLP 2022, arXiv 2205.11631)
and the sequence log-probability (Guerreiro et al., EACL 2023, arXiv 2208.05309), both of the target force-decoded."""

from __future__ import annotations

import numpy as np
import torch

from attnviz.errors import InputError
from attnviz.maps.detachment import THRESHOLDS, Detachment
from attnviz.measures.alti import alti
from attnviz.measures.head_effects import model_output, prepare_scoring
from attnviz.model.load import ModelHandle
from attnviz.provenance import build_provenance

MEASURE = {
    "name": "detachment",
    "papers": [
        "Dale et al. (2023), Detecting and Mitigating Hallucinations in Machine Translation: Model Internal "
        "Workings Alone Do Well, Sentence Similarity Even Better, ACL",
        "Guerreiro, Voita and Martins (2023), Looking for a Needle in a Haystack: A Comprehensive Study of "
        "Hallucinations in Neural Machine Translation, EACL",
    ],
    "arxiv": ["2212.08597", "2208.05309"],
}


def detachment(handle: ModelHandle, text: str, target: str | None = None) -> Detachment:
    """The source share and sequence log-probability of `target` as a translation of `text` (None: the model's own
    translation), with the flag's thresholds when the model has calibrated ones. InputError for a model that does
    not translate."""
    if not handle.is_seq2seq:
        raise InputError("detached_not_translator", model=handle.name)
    if target is None:
        target = prepare_scoring(handle, text, None).target_text
    shares = alti(handle, text, target, method="alti-rollout").shares
    scoring = prepare_scoring(handle, text, target)
    with torch.inference_mode():
        log_probs = model_output(handle, scoring, 1)[0].double().cpu().numpy()  # (targets,)
    token_shares = shares.source_share  # (targets,)
    provenance = {**build_provenance(handle, text, target, {"measure": "detachment"}), "measure": MEASURE}
    return Detachment(
        handle.name,
        float(np.mean(token_shares, dtype=np.float64)),
        float(log_probs.mean()),
        token_shares,
        log_probs,
        THRESHOLDS.get(handle.name),
        provenance,
    )
