"""How attention works, on your sentence: the walk-through's steps for one query token of a real head, from the
query, key and value vectors the model computed for the text (`attention.vectors`), checked against the capture."""

from __future__ import annotations

import numpy as np
import streamlit as st

from app_pages.shared import caches, figure_export, opened, session
from app_pages.shared.state import ViewState
from attnviz import figures
from attnviz.attention.vectors import row_terms
from attnviz.attention.walkthrough import SentenceSteps, sentence_walkthrough
from attnviz.figures.sentence_steps import sentence_steps
from attnviz.model.long_texts import leading_text
from attnviz.text.excerpts import excerpt
from attnviz.view.looking import looking_using


def captured_row(result, kind: str, shape: tuple, layer: int, head: int, row: int) -> np.ndarray | None:
    """The weights the page's capture recorded for that row, when it holds the same map (else None)."""
    if kind not in result.kinds or tuple(result.shape(kind)) != tuple(shape):
        return None
    return np.asarray(result.head(kind, layer, head, rows=row))[0]  # (keys,)


def choices(view: ViewState, lazy) -> int:
    """The map, layer and head widgets; returns how many query tokens the chosen map has."""
    t = session.tr(view)
    columns = st.columns([2, 1, 1])
    session.bound(
        columns[0].selectbox, "kind", t("heads_map"), options=lazy.kinds, format_func=lambda k: t(f"kind_{k}")
    )
    layers, heads, queries, _ = lazy.shape(view.kind)
    session.bound(columns[1].selectbox, "layer", t("layer"), options=range(layers))
    session.bound(columns[2].selectbox, "head", t("head"), options=range(heads))
    return queries


def step_texts(view: ViewState, walk: SentenceSteps) -> list[tuple[str, str]]:
    """(title, text) of each step, with the numbers of the key the token looks at most, to trace by hand."""
    t = session.tr(view)
    steps, vectors = walk.steps, walk.vectors
    top = int(np.argmax(steps.weights[0]))
    token, key = vectors.query_tokens[walk.row].text, vectors.key_tokens[top].text
    d = vectors.head_dim
    numbers = {
        "token": token,
        "other": key,
        "d": d,
        "score": f"{steps.scores[0, top]:.4f}",
        "scale": f"{steps.scale:.4g}",
        "scaled": f"{steps.scaled_scores[0, top]:.4f}",
        "weight": f"{steps.weights[0, top]:.4f}",
        "hidden": int((~walk.allowed).sum()),
    }
    texts = [
        ("qk_ex_step_vectors", "qk_ex_step_vectors_text"),
        ("qk_ex_step_scores", "qk_ex_step_scores_text"),
        ("qk_ex_step_scale", "qk_ex_step_scale_text"),
    ]
    shown = [(t(title), t(text, **numbers)) for title, text in texts]
    if walk.bias is not None:
        shown[-1] = (
            shown[-1][0],
            shown[-1][1]
            + " "
            + t("qk_ex_step_bias_text", bias=f"{walk.bias[top]:.4f}", biased=f"{steps.masked_scores[0, top]:.4f}"),
        )
    if numbers["hidden"]:
        shown[-1] = (shown[-1][0], shown[-1][1] + " " + t("qk_ex_step_hidden_text", hidden=numbers["hidden"]))
    shown.append((t("qk_ex_step_softmax"), t("qk_ex_step_softmax_text", **numbers)))
    if steps.context is not None:
        shown.append((t("qk_ex_step_output"), t("qk_ex_step_output_text", **numbers)))
    return shown


def equality(view: ViewState, walk: SentenceSteps) -> None:
    """Whether the rebuilt row equals the captured weights, with the largest difference."""
    t = session.tr(view)
    keys = len(walk.vectors.key_tokens)
    if walk.difference is None:
        st.info(t("qk_ex_no_compare"), icon=":material/info:")
    elif walk.equal:
        st.success(t("qk_ex_equal", difference=f"{walk.difference:.1e}", keys=keys), icon=":material/check_circle:")
    else:
        st.warning(t("qk_ex_differs", difference=f"{walk.difference:.1e}", keys=keys))


def number_table(view: ViewState, walk: SentenceSteps):
    """Every per-key number of the figure, as a table a person can sort and read."""
    import pandas as pd  # a second or more to import: only once a table is drawn

    t = session.tr(view)
    steps = walk.steps
    table = {
        t("key"): [f"{i} {token.text}" for i, token in enumerate(walk.vectors.key_tokens)],
        "q·k": steps.scores[0],
        f"× {steps.scale:.4g}": steps.scaled_scores[0],
    }
    if walk.bias is not None:
        table[t("qk_ex_col_bias")] = steps.masked_scores[0]
    table[t("qk_ex_col_weight")] = steps.weights[0]
    if walk.captured is not None:
        table[t("qk_ex_col_captured")] = walk.captured
    frame = pd.DataFrame(table).astype({name: object for name in list(table)[1:]})
    hidden = t("qk_ex_hidden_cell")  # what the figure says of them, not an empty "None"
    frame.loc[~walk.allowed, frame.columns[1:]] = hidden  # hidden keys: the model never scores them
    frame.loc[~walk.allowed, t("qk_ex_col_weight")] = 0.0  # … and their weight is exactly 0
    return frame


WINDOW_TOKENS = 48  # tokens of a text the walk-through reads at most: each step lists every key, one row each


def _vectors(view: ViewState, handle, result):
    """The q, k and v the walk-through shows, and the capture its rows are checked against. A text of more than
    WINDOW_TOKENS tokens is walked through on its start, read as a text of its own (said on the page), so the page
    opens in seconds whatever the session holds; its rows are then checked against that shorter run's own capture."""
    sources = result.tokens(result.kinds[0])[1]  # the first map's keys: the text as the model read it
    text = leading_text(sources, result.source_text or view.text, WINDOW_TOKENS)
    if text == (result.source_text or view.text):
        return caches.vectors(view, handle, result), result
    target = None
    if handle.is_seq2seq and result.target_text:
        target = leading_text(result.tokens("cross")[0], result.target_text, WINDOW_TOKENS)
    t = session.tr(view)
    st.info(
        t("qk_ex_window", tokens=WINDOW_TOKENS, total=len(sources), text=excerpt(text, view.lang)),
        icon=":material/crop:",
    )
    captured = caches.window_vectors(view, handle, text, target)
    return captured, captured.lazy


def sentence_section(view: ViewState) -> None:
    """The section: choices, the steps in words, the figure, the table, the equality with the capture."""
    t = session.tr(view)
    st.header(t("qk_ex_title"))
    st.markdown(t("qk_ex_intro"))
    session.bound(st.text_input, "text", t("source_text"), placeholder=t("source_placeholder"))
    if opened.current(view) is not None:
        st.info(t("qk_ex_needs_model"), icon=":material/info:")
        return
    handle, result = caches.analysis(view)
    captured, result = _vectors(view, handle, result)
    lazy = captured.lazy
    queries = choices(view, lazy)
    if session.widget_key("ex_token") not in st.session_state and view.ex_token == 0 and lazy.causal(view.kind):
        view.ex_token = queries - 1  # a causal map's first token sees only itself: start where every key is seen
    vectors = captured.head(view.kind, view.layer, view.head)
    labels = [f"{i} · {token.text}" for i, token in enumerate(vectors.query_tokens)]
    session.bound(st.selectbox, "ex_token", t("qk_ex_token"), options=range(queries), format_func=labels.__getitem__)
    mask, bias = row_terms(lazy, view.kind, view.layer, view.head, view.ex_token)
    shape = lazy.shape(view.kind)
    row = captured_row(result, view.kind, shape, view.layer, view.head, view.ex_token)
    walk = sentence_walkthrough(vectors, view.ex_token, mask, bias, row)
    for title, text in step_texts(view, walk):
        st.markdown(f"**{title}** {text}")
    equality(view, walk)
    fig = sentence_steps(walk, style=figures.FigureStyle(lang=view.lang))
    heads = {"layer": view.layer, "head": view.head}
    figure_export.figure(
        fig, "sentence-steps", "explainer_sentence", view, figure_export.Source(heads=heads), model=view.model
    )
    st.dataframe(number_table(view, walk), hide_index=True, width="stretch")
    looking_on_sentence(view, walk)


def looking_on_sentence(view: ViewState, walk: SentenceSteps) -> None:
    """The seed's "looking is not using" on the real head: for the walked query, the key with the most weight beside
    the key whose value vector, removed, turns the head's output most (value zeroing within the head)."""
    t = session.tr(view)
    vectors = walk.vectors
    if vectors.values is None:  # the walk-through has no value vectors to zero (the steps stop at the softmax)
        return
    keys = [f"{i} {token.text}" for i, token in enumerate(vectors.key_tokens)]
    used = looking_using(keys, walk.steps.weights[0], vectors.values)  # (keys,) each
    looked, most_used = int(used.weights.argmax()), int(used.contributions.argmax())
    st.subheader(t("looking_sentence_title"))
    said = t(
        "looking_sentence",
        token=vectors.query_tokens[walk.row].text,
        looked=vectors.key_tokens[looked].text,
        weight=f"{used.weights[looked]:.2f}",
        used=vectors.key_tokens[most_used].text,
        contribution=f"{used.contributions[most_used]:.2f}",
    )
    st.markdown(said + " " + t("looking_sentence_differs" if looked != most_used else "looking_sentence_same"))
    columns = [t("looking_key"), t("looking_weight"), t("looking_value_norm"), t("looking_contribution")]
    rows = zip(used.keys, used.weights, used.value_norms, used.contributions)
    table = {name: list(values) for name, values in zip(columns, zip(*rows))}
    st.dataframe(table, hide_index=True, width="stretch", key="w_looking_sentence_table")
