"""How attention works: the seed article's walk-through, with numbers a person can edit."""

import streamlit as st

from app_pages.how_attention_works import editor, multi_head, sentence
from app_pages.how_attention_works.steps import (
    EXPLAINER_SEEDS,
    edited_matrix,
    explainer_field,
    explainer_walk,
    names,
    table,
)
from app_pages.shared import caches, faithfulness, figure_export, opened, session
from app_pages.shared.page_errors import shown_errors
from attnviz import figures
from attnviz.attention.walkthrough import walkthrough
from attnviz.view.looking import seed_looking_using

view = session.state()
t = session.tr(view)
st.title(t("explainer_title"))
st.caption(t("explainer_intro"))

# 1. What attention is: 早上好！ → Good morning!
st.header(t("explainer_what"))
st.markdown(t("explainer_what_text"))
seed_alignment = figures.alignment(
    figures.seed_alignment_map(),
    threshold=0.05,
    top_k=None,
    style=figures.FigureStyle(lang=view.lang, title=t("explainer_seed_alignment")),
)
figure_export.figure(seed_alignment, "seed-alignment", "explainer_seed", view)

# 2. Q, K, V step by step
st.header(t("explainer_qkv"))
st.markdown(t("explainer_qkv_text"))
st.button(
    t("explainer_reset"),
    key="w_explainer_reset",
    on_click=editor.reset_explainer,
    icon=":material/restart_alt:",
)
editors = st.columns(3)
edited = {}
for column, name in zip(editors, EXPLAINER_SEEDS):
    with column:
        st.markdown(t(f"matrix_{name}_caption"))
        start = editor.explainer_start(view, name)
        edited[name] = st.data_editor(
            table(start, names(name, start.shape[0]), names("d", start.shape[1])),
            key=f"w_matrix_{name}",
            width="stretch",
        )

with shown_errors(view):
    q, k, v = (edited_matrix(edited[name].values.tolist(), name) for name in "qkv")
    view.q, view.k, view.v = (explainer_field(matrix, name) for matrix, name in zip((q, k, v), "qkv"))
    steps = walkthrough(q, k, v, scaled=True)
    query_names, key_names = names("q", q.shape[0]), names("k", k.shape[0])
    for number, (name, matrix, rows, columns) in enumerate(explainer_walk(steps, query_names, key_names), 1):
        st.subheader(t(f"step_{name}_title", number=number))
        text, shown = st.columns([3, 2])
        with text:
            st.latex(t(f"formula_{name}", d=q.shape[1], scale=f"{1 / steps.scale:.3f}"))
            st.markdown(t(f"step_{name}_text"))
        with shown:
            st.dataframe(table(matrix, rows, columns, decimals=3), width="stretch")
    st.markdown(t("explainer_expectation"))
    figure_export.figure(
        figures.explainer(steps, style=figures.FigureStyle(lang=view.lang)),
        "attention-steps",
        "explainer_steps",
        view,
    )

# 3 · on your sentence: the same steps on the real model's vectors for the text on the other pages
with shown_errors(view):
    sentence.sentence_section(view)

# 4. 四不像: the answer is a weighted mixture of the values; where it looks drawn beside what it uses
seed = seed_looking_using()  # the mixture's weights and values, 鹿's value zero: its keys' value-zeroing contributions
st.header(t("explainer_mixture"))
st.markdown(t("explainer_mixture_text"))
mixed = figures.mixture(figures.SEED_MIXTURE, seed.contributions, style=figures.FigureStyle(lang=view.lang))
figure_export.figure(mixed, "mixture", "explainer_mixture", view)

# 5. Looking is not using: the same mixture, its strongest key's value zeroed
st.header(t("looking_title"))
strongest = int(seed.weights.argmax())
st.markdown(
    t(
        "looking_text",
        animal=seed.keys[strongest],
        weight=f"{seed.weights[strongest]:.2f}",
        contribution=f"{seed.contributions[strongest]:.2f}",
    )
)
columns = [t("looking_key"), t("looking_weight"), t("looking_value_norm"), t("looking_contribution")]
rows = zip(seed.keys, seed.weights, seed.value_norms, seed.contributions)
st.dataframe({name: list(values) for name, values in zip(columns, zip(*rows))}, hide_index=True, key="w_looking_table")

# 6. Multi-head: split, attend per head, merge
st.header(t("explainer_multihead"))
st.markdown(t("explainer_multihead_text"))
st.code(multi_head.SEED_MULTI_HEAD_CODE, language="python")
sizes = st.columns(4)
batch = sizes[0].number_input(t("mh_batch"), min_value=1, max_value=4, value=1, key="w_mh_batch")
length = sizes[1].number_input(t("mh_length"), min_value=2, max_value=12, value=4, key="w_mh_length")
hidden = sizes[2].number_input(t("mh_hidden"), min_value=2, max_value=64, value=8, step=2, key="w_mh_hidden")
head_counts = multi_head.divisors(int(hidden))
heads = sizes[3].selectbox(t("mh_heads"), head_counts, index=min(2, len(head_counts) - 1), key="w_mh_heads")
with shown_errors(view):
    with st.spinner(t("mh_running", device=view.device)):
        walk = caches.cached_multi_head(int(batch), int(length), int(hidden), int(heads), view.device)
    st.markdown(t("mh_ran_on", device=walk.device, head_dim=multi_head.head_dim(int(hidden), int(heads))))
    st.dataframe(
        multi_head.shape_rows(walk.shapes, {name: t(f"mh_shape_{name}") for name, _ in walk.shapes}),
        hide_index=True,
        width="stretch",
        column_config={"step": t("mh_step"), "axes": t("mh_axes"), "shape": t("mh_shape"), "meaning": t("mh_meaning")},
    )
    weights_grid = figures.grid(
        walk.weights, style=figures.FigureStyle(lang=view.lang, title=t("mh_grid_title", heads=int(heads)))
    )
    figure_export.figure(weights_grid, "multi-head-weights", "explainer_multihead", view)

# 7. Looking is not using, on your own sentence: every measure scored by removing the tokens it ranks first
st.header(t("faithfulness_title"))
st.markdown(t("faithfulness_explainer"))
if opened.current(view) is not None:
    st.info(t("qk_ex_needs_model"), icon=":material/info:")
else:
    with shown_errors(view):
        handle, result = caches.analysis(view)
        faithfulness.section(view, handle, result, long=not result.is_complete, key="explainer_faithfulness")
