"""The app's logic without Streamlit (app_pages): its state and links, which models a deployment offers, model
runs, head choices and explainer numbers, and its defaults against the library's."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz.settings
from app_pages.heads import choices as heads_choices
from app_pages.how_attention_works import multi_head
from app_pages.how_attention_works import steps as explainer_steps
from app_pages.shared import link_text, model_runs
from app_pages.shared import state as app_state
from attnviz.attention.walkthrough import walkthrough
from attnviz.errors import InputError, ModelLoadError, SettingError
from attnviz.maps import head_stats
from attnviz.run import MODES
from attnviz.view import head_choice, viewing
from tests.support.maps import numbered_map

# ----------------------------------------------------------------------------------------------------------------------
# Links


def explainer_texts(name: str):
    """Link texts of edited explainer matrices ("" when the numbers are the seed's)."""
    shape = explainer_steps.EXPLAINER_SEEDS[name].shape
    cells = st.lists(
        st.floats(allow_nan=False, allow_infinity=False), min_size=shape[0] * shape[1], max_size=shape[0] * shape[1]
    )
    edited = cells.map(lambda values: explainer_steps.explainer_field(np.reshape(values, shape), name))
    return st.one_of(st.just(""), edited)


view_states = st.builds(
    app_state.ViewState,
    model=st.sampled_from(["demo-zh-en", "minilm", "/models/my model", "org/name"]),
    device=st.sampled_from(app_state.DEVICES),
    lang=st.sampled_from(app_state.LANGUAGES),
    text=st.text(min_size=0, max_size=60),
    target=st.text(min_size=0, max_size=60),
    mode=st.sampled_from(MODES),
    cross_aggregation=st.sampled_from(viewing.AGGREGATIONS),
    layer=st.integers(0, 40),
    head=st.integers(0, 40),
    words=st.booleans(),
    hide_special=st.booleans(),
    threshold=st.sampled_from([0.0, 0.05, 0.1, 0.35, 0.9]),
    step=st.integers(0, 60),
    stack=st.sampled_from(viewing.STACKS),
    self_aggregation=st.sampled_from(viewing.SELF_AGGREGATIONS),
    rollout_first=st.integers(0, 12),
    rollout_last=st.integers(0, 99),
    color_scale=st.sampled_from(viewing.COLOR_SCALES),
    kind=st.sampled_from(["self", "encoder", "decoder", "cross"]),
    stat=st.sampled_from(list(head_stats.STATISTICS)),
    q=explainer_texts("q"),
    k=explainer_texts("k"),
    v=explainer_texts("v"),
)


@settings(max_examples=200, deadline=None)
@given(view_states)
def test_a_link_restores_exactly_the_view_it_was_made_from(state):
    restored, unreadable = app_state.from_query_params(app_state.to_query_params(state))
    assert unreadable == []
    assert restored == state


def test_a_default_link_holds_only_the_shareable_core():
    params = app_state.to_query_params(app_state.ViewState())
    assert set(params) == set(app_state.ALWAYS_IN_URL)
    assert params["model"] == "demo-zh-en" and params["text"] == "早上好！"


def test_explainer_matrices_travel_in_the_link_exactly():
    edited = np.array([[0.1, -2.5], [1e-7, 3.0], [1 / 3, 12345678.9]])
    text = explainer_steps.explainer_field(edited, "q")
    assert text == "0.1,-2.5;1e-07,3;0.3333333333333333,12345678.9"
    np.testing.assert_array_equal(explainer_steps.matrix_from_text(text, "q"), edited)  # bit for bit, not rounded
    seed_k = explainer_steps.EXPLAINER_SEEDS["k"].copy()
    assert explainer_steps.explainer_field(seed_k, "k") == ""  # the seed's numbers need no link

    state, unreadable = app_state.from_query_params({"q": " 1,2 ; 3,4 ; 5,6 ", "k": "1,0;0,1;1,1;2,0", "v": "1,2;3,4"})
    assert state.q == "1,2;3,4;5,6" and state.k == ""  # tidied; K equals the seed's numbers
    assert unreadable == ["v"] and state.v == ""  # V needs 4 rows: the link's V is ignored and named
    np.testing.assert_array_equal(explainer_steps.explainer_start(state, "q"), [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(explainer_steps.explainer_start(state, "v"), explainer_steps.EXPLAINER_SEEDS["v"])
    for bad in ("1,2;3,4;5,x", "1,2,3;4,5,6;7,8,9", "1,2;;5,6", "nan,1;2,3;4,5", "1e999,1;2,3;4,5"):
        assert app_state.from_query_params({"q": bad})[1] == ["q"], bad


def test_unreadable_parameters_keep_their_defaults_and_are_named():
    params = {
        "layer": "-1",
        "head": "two",
        "cross_aggregation": "sideways",
        "lang": "fr",
        "threshold": "2",
        "words": "maybe",
        "model": " ",
        "text": "晚安",
        "unknown": "x",
    }
    state, unreadable = app_state.from_query_params(params)
    assert sorted(unreadable) == ["cross_aggregation", "head", "lang", "layer", "model", "threshold", "words"]
    default = app_state.ViewState()
    assert (
        state.layer,
        state.head,
        state.cross_aggregation,
        state.lang,
        state.threshold,
        state.words,
        state.model,
    ) == (
        default.layer,
        default.head,
        default.cross_aggregation,
        default.lang,
        default.threshold,
        default.words,
        default.model,
    )
    assert state.text == "晚安"


def test_a_link_of_the_old_field_names_opens_the_same_view():
    old = {"view": "head", "self_view": "rollout", "hide": "0", "scale": "head", "roll_first": "1", "roll_last": "3"}
    state, unreadable = app_state.from_query_params(old)
    assert unreadable == []
    assert set(app_state.OLD_LINK_NAMES) == set(old)
    for old_name, new_name in app_state.OLD_LINK_NAMES.items():
        assert (
            app_state.from_query_params({new_name: old[old_name]})[0]
            == app_state.from_query_params({old_name: old[old_name]})[0]
        ), old_name
    assert (state.cross_aggregation, state.self_aggregation, state.hide_special, state.color_scale) == (
        "head",
        "rollout",
        False,
        "head",
    )
    options = app_state.view_options(state, "self", state.self_aggregation)
    assert (options.aggregation, options.hide_special, options.color_scale) == ("rollout", False, "head")
    assert options.rollout_layers == (1, 3)
    written = app_state.to_query_params(state)  # written under the new names only
    assert not set(app_state.OLD_LINK_NAMES) & set(written)
    assert written["self_aggregation"] == "rollout" and written["rollout_last"] == "3"
    # the field's own name wins over an old one; an old name that cannot be read is named as the link gives it
    assert app_state.from_query_params({"view": "head", "cross_aggregation": "all"})[0].cross_aggregation == "all"
    assert app_state.from_query_params({"view": "sideways"})[1] == ["view"]


def test_a_repeated_parameter_counts_by_its_last_value_and_long_text_is_cut():
    state, _ = app_state.from_query_params({"layer": ["1", "3"], "text": "字" * (link_text.PLAIN_CHARS + 10)})
    assert state.layer == 3
    assert state.text == "字" * (link_text.PLAIN_CHARS + 10)  # a link typed by hand keeps its whole text too


def test_a_long_text_reopens_whole_from_its_link():
    text = "".join(f"第{i}句：早上好，今天我们学习注意力。Sentence {i} reads on. " for i in range(300))  # ~14,000 chars
    params = app_state.to_query_params(app_state.ViewState(text=text, target="Good morning!" * 300, mode="pair"))
    assert "text" not in params and len(params["text_z"]) < link_text.MAX_PACKED_CHARS
    state, unreadable = app_state.from_query_params(params)
    assert unreadable == [] and state.text == text and state.target == "Good morning!" * 300
    assert app_state.cut_texts(params, state) == {}
    short = app_state.to_query_params(app_state.ViewState(text="早上好！"))
    assert short["text"] == "早上好！" and "text_z" not in short


def test_a_text_too_long_for_any_link_is_cut_and_the_link_says_so():
    rng = np.random.default_rng(0)
    text = "".join(chr(c) for c in rng.integers(0x4E00, 0x9FFF, 60_000))  # random characters hardly pack
    params = app_state.to_query_params(app_state.ViewState(text=text))
    assert len(params["text_z"]) <= link_text.MAX_PACKED_CHARS and params["text_cut"] == str(len(text))
    state, _ = app_state.from_query_params(params)
    assert text.startswith(state.text) and 0 < len(state.text) < len(text)
    assert app_state.cut_texts(params, state) == {"text": (len(state.text), len(text))}


def test_a_packed_text_that_does_not_unpack_is_named():
    state, unreadable = app_state.from_query_params({"text_z": "not-a-packed-text!", "layer": "2"})
    assert unreadable == ["text_z"] and state.text == app_state.ViewState().text and state.layer == 2
    bomb = link_text.pack("a" * (link_text.MAX_UNPACKED_CHARS * 5))
    assert app_state.from_query_params({"text_z": bomb})[1] == ["text_z"]


# ----------------------------------------------------------------------------------------------------------------------
# Which models a deployment offers


CUSTOM_MODELS = attnviz.settings.variable("allow_custom_models")
TORCH_THREADS = attnviz.settings.variable("torch_threads")


@pytest.mark.parametrize(
    "value, allowed", [(None, True), ("", True), ("1", True), ("yes", True), ("0", False), ("off", False)]
)
def test_custom_models_setting(value, allowed):
    environ = {} if value is None else {CUSTOM_MODELS: value}  # an empty value counts as unset
    assert attnviz.settings.current(environ).allow_custom_models is allowed
    catalogue = ["demo-zh-en"]
    assert model_runs.model_refusal("demo-zh-en", catalogue, environ) is None
    assert (model_runs.model_refusal("/some/folder", catalogue, environ) is None) is allowed


def test_a_refused_model_is_named_in_both_languages():
    refusal = model_runs.model_refusal("/some/folder", ["demo-zh-en"], {CUSTOM_MODELS: "off"})
    assert isinstance(refusal, ModelLoadError) and refusal.key == "custom_models_off"
    assert "only offers the models listed" in str(refusal) and "'/some/folder'" in str(refusal)
    assert refusal.message("zh") == "此应用只提供侧边栏中列出的模型；'/some/folder' 不在其中。"
    with pytest.raises(SettingError, match=CUSTOM_MODELS):  # neither on nor off: said, never read as off
        model_runs.model_refusal("/some/folder", ["demo-zh-en"], {CUSTOM_MODELS: "maybe"})


# ----------------------------------------------------------------------------------------------------------------------
# Which heads a page opens


def test_heads_open_on_the_page_that_shows_their_map():
    assert heads_choices.page_for_head("cross") == ("translate", {"cross_aggregation": "head"})
    assert heads_choices.page_for_head("decoder") == (
        "self_attention",
        {"self_aggregation": "head", "stack": "decoder"},
    )
    assert heads_choices.page_for_head("self") == ("self_attention", {"self_aggregation": "head"})
    amap = numbered_map(layers=2, heads=3)
    rows = head_stats.statistics_table(head_stats.head_statistics(amap), amap.layer_names)
    assert all(heads_choices.head_at(i, 3) == (row["layer"], row["head"]) for i, row in enumerate(rows))


def test_statistics_for_a_cross_map_leave_out_self_attention_only_ones():
    def defined(amap):
        return heads_choices.defined_statistics(head_stats.head_statistics(amap))

    assert defined(numbered_map("cross")) == ["entropy", "sink", "diagonal"]
    no_repeat = [name for name in head_stats.STATISTICS if name != "induction"]  # induction needs a repeated token
    assert defined(numbered_map("encoder", queries=6, keys=6)) == no_repeat


# ----------------------------------------------------------------------------------------------------------------------
# Running a model


# ----------------------------------------------------------------------------------------------------------------------
# How attention works


def test_explainer_matrices_are_checked():
    assert explainer_steps.explainer_matrix([[1, "2"], [3, 4.5]], "Q", (2, 2)).tolist() == [[1, 2], [3, 4.5]]
    with pytest.raises(InputError, match="must be a number"):
        explainer_steps.explainer_matrix([[1, "x"], [3, 4]], "Q", (2, 2))
    with pytest.raises(InputError, match="must be a number"):
        explainer_steps.explainer_matrix([[1, None], [3, 4]], "Q", (2, 2))
    with pytest.raises(InputError, match="must be a number"):
        explainer_steps.explainer_matrix([[1, float("nan")], [3, 4]], "Q", (2, 2))
    with pytest.raises(InputError, match="3 rows and 2 columns"):
        explainer_steps.explainer_matrix([[1, 2]], "Q", (3, 2))


def test_explainer_walk_shows_each_step_and_rows_that_sum_to_one():
    q, k, v = np.array([[1.0, 2.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.eye(3, 2)
    steps = walkthrough(q, k, v)
    walk = explainer_steps.explainer_walk(steps, explainer_steps.names("q", 2), explainer_steps.names("k", 3))
    assert [name for name, *_ in walk] == ["scores", "scaled", "softmax", "output"]
    _, softmax, rows, columns = walk[2]
    assert columns[-1] == "Σ" and rows == ["q₁", "q₂"]
    np.testing.assert_allclose(softmax[:, -1], 1.0)
    np.testing.assert_allclose(walk[1][1], q @ k.T / np.sqrt(2))
    frame = explainer_steps.table(walk[0][1], rows, columns[:-1], decimals=1)
    assert list(frame.columns) == ["k₁", "k₂", "k₃"] and frame.loc["q₁", "k₃"] == 3.0


def test_multi_head_walkthrough_follows_the_seed_shapes():
    walk = multi_head.multi_head_walkthrough(batch=2, length=5, hidden=12, heads=3, device="cpu")
    shapes = dict(walk.shapes)
    assert shapes["x"] == (2, 5, 12)
    assert shapes["query"] == shapes["key"] == shapes["value"] == shapes["context"] == (2, 3, 5, 4)
    assert shapes["weights"] == (2, 3, 5, 5)
    assert shapes["merged"] == shapes["output"] == (2, 5, 12)
    assert walk.weights.weights.shape == (1, 3, 5, 5)
    np.testing.assert_allclose(walk.weights.weights.sum(-1), 1.0, atol=1e-5)
    assert walk.device == "cpu"
    rows = multi_head.shape_rows(walk.shapes, {"x": "input"})
    assert rows[0] == {"step": "x", "axes": "(b, l, hdim)", "shape": "(2, 5, 12)", "meaning": "input"}
    with pytest.raises(InputError, match="cannot be split"):
        multi_head.multi_head_walkthrough(1, 4, 10, 3, device="cpu")
    assert multi_head.divisors(12) == [1, 2, 3, 4, 6, 12]


def test_every_view_state_field_has_a_default_that_reads_back():
    defaults = {k: app_state._format(v) for k, v in asdict(app_state.ViewState()).items()}
    state, unreadable = app_state.from_query_params(defaults)
    assert unreadable == [] and state == app_state.ViewState()


def test_interactive_threads_setting():
    import torch

    before = torch.get_num_threads()
    try:
        assert model_runs.use_interactive_threads({}) == 1 == torch.get_num_threads()
        assert model_runs.use_interactive_threads({TORCH_THREADS: " 4 "}) == 4 == torch.get_num_threads()
        assert model_runs.use_interactive_threads({TORCH_THREADS: ""}) == 1  # an empty value counts as unset
        for bad in ("four", "0", "-2"):
            with pytest.raises(SettingError, match=TORCH_THREADS):
                model_runs.use_interactive_threads({TORCH_THREADS: bad})
    finally:
        torch.set_num_threads(before)


def test_the_librarys_view_defaults_are_the_apps():
    options, view = viewing.ViewOptions(), app_state.ViewState()
    assert (options.layer, options.head) == (view.layer, view.head)
    assert (options.words, options.hide_special) == (view.words, view.hide_special)
    assert (options.threshold, options.step, options.lang) == (view.threshold, view.step, view.lang)
    assert head_choice.default_aggregation("cross") == view.cross_aggregation
    assert all(
        head_choice.default_aggregation(kind) == view.self_aggregation for kind in ("self", "encoder", "decoder")
    )


def test_server_mode_refuses_a_folder_outside_its_allowlist_before_the_model_cache(tmp_path):
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    allowed.mkdir(), outside.mkdir()
    environ = {"ATTNVIZ_SERVER_MODE": "on", "ATTNVIZ_ALLOWED_DIRS": str(allowed)}
    refusal = model_runs.model_refusal(str(outside), ["demo-zh-en"], environ)
    assert isinstance(refusal, ModelLoadError) and refusal.key == "server_refuses_folder"
    assert model_runs.model_refusal(str(allowed), ["demo-zh-en"], environ) is None
    assert model_runs.model_refusal("demo-zh-en", ["demo-zh-en"], environ) is None
    assert model_runs.model_refusal("org/any", ["demo-zh-en"], environ).key == "server_refuses_hub_id"
    assert model_runs.model_refusal("org/any", ["demo-zh-en"], {}) is None  # local mode: anything
