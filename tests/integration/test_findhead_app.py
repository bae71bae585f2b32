"""Finding a head in the app (streamlit AppTest): the search ranks the heads, a button opens the top one in the
figures (its weights the captured ones), the Translate page's given target is never stale, and a page's link holds
only that page's state."""

from __future__ import annotations

import base64
import json
import math

import numpy as np
from streamlit.testing.v1 import AppTest

from attnviz import i18n
from attnviz.attention.capture import capture
from attnviz.attention.generation import generate
from attnviz.maps import head_stats
from attnviz.model.load import load_model
from attnviz.run import MAX_NEW_TOKENS
from attnviz.view import find_head, selection
from tests.support.app import open_by_link

TEXT = "the cat saw the dog because it was tired"


def _open(page: str | None = None, **params) -> AppTest:
    return open_by_link(page, timeout=240, **params)


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _heatmap_z(at: AppTest) -> np.ndarray:
    specs = [json.loads(element.proto.spec) for element in at.get("plotly_chart")]
    z = next(s for s in specs if s["layout"].get("meta", {}).get("view") == "heatmap")["data"][0]["z"]
    if isinstance(z, dict):
        flat = np.frombuffer(base64.b64decode(z["bdata"]), dtype=np.dtype(z["dtype"]))
        shape = [int(n) for n in z["shape"].split(",")] if isinstance(z["shape"], str) else z["shape"]
        return flat.reshape(shape).astype(float)
    return np.array([[math.nan if v is None else v for v in row] for row in z], dtype=float)


def test_the_search_ranks_heads_and_a_click_opens_the_top_one(tiny_folder):
    model = tiny_folder("bert")
    full = capture(load_model(model, "cpu"), TEXT)
    query = find_head.find_choice(find_head.token_choices(full, "self", "query"), "it")
    key = find_head.find_choice(find_head.token_choices(full, "self", "key"), "cat")
    at = _open("page_scripts/self_attention.py", model=model, text=TEXT, find_query=query.label, find_key=key.label)
    _ok(at)
    top = find_head.rank_heads(full, "self", query, key)[0]
    first = at.button(key="find_open_1")
    assert first.label.startswith(f"L{top.layer}·H{top.head}: {top.weight:.2f}")
    first.click().run()
    _ok(at)
    assert (at.selectbox(key="w_layer").value, at.selectbox(key="w_head").value) == (top.layer, top.head)
    drawn = selection.prepare_map(full, "self", hide=True, words=True)  # the page's view: words, no special tokens
    np.testing.assert_allclose(_heatmap_z(at), drawn.weights[top.layer, top.head], atol=1e-6)
    said = [m.value for m in at.markdown if "has weight" in m.value]
    assert said and f"**{top.weight:.2f}**" in said[0]
    link = at.query_params
    assert link["find_query"] == query.label and link["layer"] == str(top.layer)
    assert "target" not in link and "cross_aggregation" not in link  # the Translate page's state stays out of this link


def test_with_value_norms_shown_the_buttons_rank_and_say_the_weighted_weight(tiny_folder):
    model = tiny_folder("bert")
    full = capture(load_model(model, "cpu"), TEXT)
    query = find_head.find_choice(find_head.token_choices(full, "self", "query"), "it")
    key = find_head.find_choice(find_head.token_choices(full, "self", "key"), "cat")
    params = dict(model=model, text=TEXT, find_query=query.label, find_key=key.label, weighting="value-norm")
    at = _open("page_scripts/self_attention.py", **params)
    _ok(at)
    top = find_head.rank_heads(full, "self", query, key, weighting="value-norm")[0]
    assert at.button(key="find_open_1").label.startswith(f"L{top.layer}·H{top.head}: {top.weight:.2f}")
    assert any("value norm" in c.value for c in at.caption)  # the page says what is ranked
    at.button(key="find_open_1").click().run()
    said = [m.value for m in at.markdown if "has weight" in m.value]
    assert said and f"**{top.weight:.2f}**" in said[0]  # the line under the figure agrees with the button


def test_giving_the_translation_starts_from_the_model_s_translation_of_this_text(tiny_folder):
    model = tiny_folder("marian")
    at = _open(model=model, text="早上好！")
    _ok(at)
    at.text_input(key="w_text").input("我喜欢学习").run()
    _ok(at)
    translation = capture_translation(model, "我喜欢学习")
    at.radio(key="w_mode").set_value("pair").run()
    _ok(at)
    assert at.text_input(key="w_target").value == translation != "Good morning!"
    at.text_input(key="w_target").input("I like studying").run()
    at.radio(key="w_mode").set_value("generate").run()
    at.radio(key="w_mode").set_value("pair").run()
    assert at.text_input(key="w_target").value == "I like studying"  # typed for this very text: kept


def capture_translation(model: str, text: str) -> str:
    return generate(load_model(model, "cpu"), text, max_new_tokens=MAX_NEW_TOKENS).target_text or ""


def test_the_heads_table_says_what_each_role_means_in_both_languages(tiny_folder):
    text = "the cat sat and the cat ran"  # "the cat" comes twice: the induction score applies
    for lang in ("en", "zh"):
        at = _open("page_scripts/heads.py", model=tiny_folder("bert"), text=text, kind="self", lang=lang)
        _ok(at)
        config = json.loads(at.dataframe[0].proto.columns)
        for name in head_stats.STATISTICS:
            column = config[name]
            assert column["label"] == i18n.t(f"stat_{name}", lang)
            assert column["help"] == i18n.t(f"stat_help_{name}", lang)
        assert config["role"]["label"] == i18n.t("role", lang)  # the roles the user guide promises, not scores alone
        table = at.dataframe[0].value
        named = {i18n.t(f"role_{role}", lang) for role in head_stats.ROLES}
        assert set(table["role"]) <= named | {""}
        rule = i18n.t("role_rule", lang, threshold=head_stats.ROLE_FROM)
        assert any(rule in c.value for c in at.caption)  # the threshold used is said
