"""Head effects in the app (streamlit AppTest): the "Does it matter?" grid on Heads and Self-attention shows, after
one click, exactly the effects `head_effects` computes directly (and says what they mean, in both languages); a click
on a head opens it; Find a head by effect ranks the heads as `rank_heads_by_effect` does and opens the top one; an
encoder says it has no target token to rank by; the section's state is part of the page's link; an architecture head
effects refuse gives its sentence, never a traceback."""

from __future__ import annotations

import json

import numpy as np
import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest

from attnviz import i18n
from attnviz.errors import InputError
from attnviz.measures import head_effects as effects_module
from attnviz.measures.head_effects import head_effects
from attnviz.measures.head_estimate import head_estimate
from attnviz.model.catalogue import model_name
from attnviz.model.load import load_model
from attnviz.view import find_head
from tests.support.app import assert_page_ok, one_torch_thread, open_by_link  # noqa: F401 (autouse)

HEADS, SELF, TRANSLATE = "page_scripts/heads.py", "page_scripts/self_attention.py", "page_scripts/translate.py"
TEXT, TARGET = "早上好！", "Good morning!"


def _open(page: str | None, **params) -> AppTest:
    return open_by_link(page, timeout=300, **params)


def _charts(at: AppTest) -> dict[str, dict]:
    """The page's plotly charts by their key (figure_export.chart_key), as plotly JSON with the element's id."""
    found = {}
    for element in at.get("plotly_chart"):
        spec = json.loads(element.proto.spec)
        spec["_id"] = element.proto.id
        found[element.proto.id.rsplit("-chart_", 1)[-1]] = spec
    return found


def _grid(spec: dict) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in row] for row in _decoded(spec["data"][0]["z"])], dtype=float)


def _decoded(z):
    if isinstance(z, dict):  # plotly's packed arrays
        import base64

        flat = np.frombuffer(base64.b64decode(z["bdata"]), dtype=np.dtype(z["dtype"]))
        shape = [int(n) for n in z["shape"].split(",")] if isinstance(z["shape"], str) else z["shape"]
        return flat.reshape(shape).astype(float).tolist()
    return z


def _same(drawn: np.ndarray, direct: np.ndarray) -> None:
    """The grid drawn holds the effects computed directly (relative: a tiny encoder's effects are ~1e-5)."""
    assert np.abs(direct).max() > 1e-6  # effects that are there to compare
    np.testing.assert_allclose(drawn, direct, rtol=1e-5, atol=1e-9)


def _click_head(at: AppTest, chart: dict, layer: int, head: int) -> None:
    """A click on head (layer, head) of a clickable grid, as the browser reports it: the chart's selection holds the
    point whose customdata is [layer, head, value]; the page's `on_select` callback runs on the next run."""
    targets = next(trace for trace in chart["data"] if trace.get("name") == "open")
    index = next(i for i, data in enumerate(targets["customdata"]) if data[:2] == [layer, head])
    point = {"curve_number": len(chart["data"]) - 1, "point_number": index, "point_index": index}
    point["customdata"] = targets["customdata"][index]
    selection = {"selection": {"points": [point], "point_indices": [index], "box": [], "lasso": []}}
    states = at._tree.get_widget_states()
    state = WidgetState(id=chart["_id"], string_value=json.dumps(selection))
    states.widgets.append(state)
    at._run(states)


def _opened(at: AppTest) -> tuple[int, int]:
    return int(at.query_params["layer"]), int(at.query_params["head"])


def _said(at: AppTest) -> str:
    return " ".join(m.value for m in at.markdown) + " " + " ".join(c.value for c in at.caption)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_heads_page_grid_holds_the_exact_effects_and_a_click_opens_a_head(lang):
    at = _open(HEADS, model="demo-zh-en", text=TEXT, mode="pair", target=TARGET, kind="cross", lang=lang)
    assert_page_ok(at)
    assert "heads_effects" not in _charts(at)  # nothing runs before the click
    assert "effects" not in at.query_params
    at.button(key="heads_effects_compute").click().run()
    assert_page_ok(at)
    assert at.query_params["effects"] == "1"  # shown: part of the link
    direct = head_effects(load_model("demo-zh-en", "cpu"), TEXT, TARGET)
    chart = _charts(at)["heads_effects"]
    _same(_grid(chart), direct.total["cross"])
    assert i18n.t("effects_figure_log_prob", lang) in chart["layout"]["title"]["text"]
    said = _said(at)
    assert i18n.t("effects_meaning_log_prob", lang, target=TARGET, count=len(direct.target_tokens)) in said
    assert "ρ = " in said  # the estimate's agreement with the exact effects
    _click_head(at, chart, 1, 2)  # the callback asks for the switch, which the same run follows
    assert_page_ok(at)
    assert _opened(at) == (1, 2) and at.query_params["cross_aggregation"] == "head"


@pytest.mark.parametrize("kind, lang", [("encoder", "en"), ("cross", "zh")])
def test_each_grid_says_the_estimates_rho_over_its_own_heads(kind, lang):
    from scipy import stats

    at = _open(HEADS, model="demo-zh-en", text=TEXT, mode="pair", target=TARGET, kind=kind, effects=1, lang=lang)
    assert_page_ok(at)
    handle = load_model("demo-zh-en", "cpu")
    exact, estimate = head_effects(handle, TEXT, TARGET), head_estimate(handle, TEXT, TARGET)
    own = stats.spearmanr(exact.total[kind].ravel(), estimate.total[kind].ravel()).statistic  # this grid's heads
    pooled = stats.spearmanr(
        np.concatenate([exact.total[s].ravel() for s in exact.total]),
        np.concatenate([estimate.total[s].ravel() for s in exact.total]),
    ).statistic
    assert f"{own:.2f}" != f"{pooled:.2f}"  # the two numbers differ here: the test tells them apart
    said = _said(at)
    assert f"ρ = {own:.2f}" in said and f"ρ = {pooled:.2f}" not in said


def test_a_link_with_the_section_shown_opens_it_and_hiding_it_leaves_the_link():
    at = _open(HEADS, model="demo-zh-en", text=TEXT, mode="pair", target=TARGET, kind="encoder", effects=1)
    assert_page_ok(at)
    direct = head_effects(load_model("demo-zh-en", "cpu"), TEXT, TARGET)
    _same(_grid(_charts(at)["heads_effects"]), direct.total["encoder"])
    at.button(key="heads_effects_hide").click().run()
    assert "heads_effects" not in _charts(at) and "effects" not in at.query_params


@pytest.mark.parametrize("family, kind", [("t5", "decoder"), ("gpt2", "self")])
def test_on_tiny_models_the_heads_page_measures_the_target_the_model_wrote(tiny_folder, family, kind):
    model = tiny_folder(family)
    at = _open(HEADS, model=model, text=TEXT, mode="generate", kind=kind, effects=1)
    assert_page_ok(at)
    direct = head_effects(load_model(model, "cpu"), TEXT)  # no target: the model writes it, as on the page
    _same(_grid(_charts(at)["heads_effects"]), direct.total[kind])
    assert i18n.t("effects_written") in _said(at)


def test_an_encoder_measures_its_output_and_has_no_target_token_to_rank_by(tiny_folder):
    model = tiny_folder("bert")
    at = _open(SELF, model=model, text="the cat saw the dog", effects=1)
    assert_page_ok(at)
    direct = head_effects(load_model(model, "cpu"), "the cat saw the dog")
    chart = _charts(at)["self_effects"]
    _same(_grid(chart), direct.total["self"])
    assert i18n.t("effects_figure_cosine") in chart["layout"]["title"]["text"]
    assert i18n.t("effects_meaning_cosine") in _said(at)
    said = [caption.value for caption in at.caption]  # a note, not an alert: nothing went wrong
    assert i18n.t("effects_find_encoder", model=model) in said
    _click_head(at, chart, 1, 3)
    assert_page_ok(at)
    assert _opened(at) == (1, 3) and "self_aggregation" not in at.query_params  # one head: the default view


def test_find_a_head_by_effect_ranks_the_heads_and_opens_the_top_one(tiny_folder):
    model = tiny_folder("gpt2")
    text, target = "the cat saw", " the dog"
    at = _open(SELF, model=model, text=text, mode="pair", target=target, words=0, hide=0)
    assert_page_ok(at)
    at.button(key="find_effect_self_compute").click().run()
    assert_page_ok(at)
    direct = head_effects(load_model(model, "cpu"), text, target)
    choices = find_head.piece_choices(direct.target_tokens)
    at.selectbox(key="w_find_effect").set_value(choices[-1].label).run()
    assert_page_ok(at)
    assert at.query_params["find_effect"] == choices[-1].label
    top = find_head.rank_heads_by_effect(direct.per_token, choices[-1], stacks=["self"])[0]
    first = at.button(key="find_effect_open_1")
    assert first.label == f"L{top.layer}·H{top.head}: {top.effect:+.3f}"
    first.click().run()
    assert_page_ok(at)
    assert _opened(at) == (top.layer, top.head)


def test_translate_ranks_cross_attention_heads_by_their_effect_in_chinese():
    at = _open(None, model="demo-zh-en", text=TEXT, mode="pair", target=TARGET, lang="zh", effects=1, words=0, hide=0)
    assert_page_ok(at)
    direct = head_effects(load_model("demo-zh-en", "cpu"), TEXT, TARGET)
    choice = find_head.find_choice(find_head.piece_choices(direct.target_tokens), "morning")
    at.selectbox(key="w_find_effect").set_value(choice.label).run()
    assert_page_ok(at)
    top = find_head.rank_heads_by_effect(direct.per_token, choice, stacks=["cross"])[0]
    assert at.button(key="find_effect_open_1").label == f"第{top.layer}层·第{top.head}头：{top.effect:+.3f}"
    assert any("对数概率" in m.value and "morning" in m.value for m in at.markdown)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_effect_picker_offers_words_in_word_view_and_ranks_a_word_by_its_pieces_summed(lang):
    words = {"text": "爷爷和奶奶身体都很好。", "target": "Grandpa and grandma are both healthy."}
    at = _open(None, model="demo-zh-en", mode="pair", lang=lang, effects=1, **words)  # words, hide special: on
    assert_page_ok(at)
    offered = [label for label in at.selectbox(key="w_find_effect").options if "#" in label]
    assert offered == [f"{w} #{i}" for i, w in enumerate(["Grandpa", "and", "grandma", "are", "both", "healthy", "."])]
    assert i18n.t("effects_find_words", lang) in _said(at)
    at.selectbox(key="w_find_effect").set_value("grandma #2").run()
    assert_page_ok(at)
    direct = head_effects(load_model("demo-zh-en", "cpu"), words["text"], words["target"])
    pieces = [i for i, token in enumerate(direct.target_tokens) if token.text in ("grand", "ma")]
    summed = direct.per_token["cross"][:, :, pieces].sum(axis=2)  # (layers, heads): the word's log-probability
    layer, head = np.unravel_index(int(np.argmin(summed)), summed.shape)
    label = at.button(key="find_effect_open_1").label
    assert label.startswith(i18n.t("effects_find_open", lang, layer=layer, head=head, effect="")[:-1])
    assert label.endswith(f"{summed[layer, head]:+.3f}")


def test_an_architecture_head_effects_refuse_says_why_in_the_page_language(tiny_folder, monkeypatch):
    def refuse(handle, scoring):
        raise InputError("head_effects_shared_layers", model=handle.name, module="encoder.layer.0")

    monkeypatch.setattr(effects_module, "head_sites", refuse)
    model = tiny_folder("bert")
    at = _open(SELF, model=model, text="the cat saw the dog also", effects=1, lang="zh")
    assert not at.exception
    named = model_name(model)  # a folder is named by its own name, never its path
    sentence = i18n.error_sentence(
        InputError("head_effects_shared_layers", model=named, module="encoder.layer.0"), "zh"
    )
    assert [e.value for e in at.error] == [sentence]
    assert "self_grid" in _charts(at)  # the rest of the page goes on
