"""The view logic without Streamlit: attnviz.selection (which the app and the CLI share), and the app's own state,
links, model runs and explainer numbers (app_pages)."""

from __future__ import annotations

from dataclasses import asdict, replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz.settings
from app_pages.explainer import multi_head
from app_pages.explainer import steps as explainer_steps
from app_pages.heads import choices as heads_choices
from app_pages.shared import model_runs
from app_pages.shared import state as app_state
from attnviz import analysis, selection
from attnviz.attention.walkthrough import walkthrough
from attnviz.errors import InputError, ModelLoadError, SettingError
from attnviz.models import load_model
from attnviz.types import AttentionCapture, AttentionMap, Token

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
    mode=st.sampled_from(model_runs.MODES),
    cross_aggregation=st.sampled_from(selection.AGGREGATIONS),
    layer=st.integers(0, 40),
    head=st.integers(0, 40),
    words=st.booleans(),
    hide_special=st.booleans(),
    threshold=st.sampled_from([0.0, 0.05, 0.1, 0.35, 0.9]),
    step=st.integers(0, 60),
    stack=st.sampled_from(selection.STACKS),
    self_aggregation=st.sampled_from(selection.SELF_AGGREGATIONS),
    rollout_first=st.integers(0, 12),
    rollout_last=st.integers(0, 99),
    color_scale=st.sampled_from(selection.COLOR_SCALES),
    kind=st.sampled_from(["self", "encoder", "decoder", "cross"]),
    stat=st.sampled_from(list(analysis.STATISTICS)),
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
    state, _ = app_state.from_query_params({"layer": ["1", "3"], "text": "字" * (app_state.MAX_URL_TEXT + 10)})
    assert state.layer == 3
    assert len(state.text) == app_state.MAX_URL_TEXT
    assert len(app_state.to_query_params(app_state.ViewState(text="字" * 5000))["text"]) == app_state.MAX_URL_TEXT


# ----------------------------------------------------------------------------------------------------------------------
# Which models a deployment offers


CUSTOM_MODELS = attnviz.settings.variable("allow_custom_models")
LAZY_FROM_TOKENS = attnviz.settings.variable("lazy_from_tokens")
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
# Selections


def random_map(kind="cross", layers=3, heads=4, queries=5, keys=6, seed=0, causal=False, specials=()) -> AttentionMap:
    rng = np.random.default_rng(seed)
    weights = rng.random((layers, heads, queries, keys)).astype(np.float32)
    weights /= weights.sum(-1, keepdims=True)
    q_tokens = [Token(f"q{i}", i, i + 1, special=i in specials) for i in range(queries)]
    k_tokens = [Token(f"k{i}", i, i + 1, special=i in specials) for i in range(keys)]
    return AttentionMap(kind, weights, q_tokens, k_tokens, [f"layers.{i}" for i in range(layers)], causal=causal)


def test_alignment_pairs_use_the_trained_heads_or_the_second_to_last_layer():
    assert selection.alignment_pairs([(2, 1), (0, 3), (9, 0), (1, 7)], 3, 4) == [(2, 1), (0, 3)]  # out of range dropped
    assert selection.alignment_pairs([], 6, 2) == [(4, 0), (4, 1)]
    assert selection.alignment_pairs([], 1, 2) == [(0, 0), (0, 1)]


def test_alignment_view_is_the_mean_of_exactly_the_alignment_heads():
    amap = random_map()
    chosen = selection.head_selection(amap, "alignment", 0, 0, alignment_heads=[(2, 1), (0, 3)])
    expected = (amap.weights[2, 1] + amap.weights[0, 3]) / 2
    matrix = analysis.aggregate(chosen.amap, chosen.figure_kwargs["layers"], chosen.figure_kwargs["heads"])
    np.testing.assert_allclose(matrix, expected, atol=1e-6)
    assert chosen.pairs == ((2, 1), (0, 3))
    labels = chosen.labels  # the figure words naming the selection (FigureStyle.labels)
    assert labels["layer_one"] == "alignment heads" and labels["heads_all"] == "mean of L2·H1, L0·H3"


@pytest.mark.parametrize(
    "view, layers, heads",
    [("head", 1, 2), ("layer", 1, None), ("all", None, None)],
)
def test_head_selection_of_the_other_views(view, layers, heads):
    amap = random_map()
    chosen = selection.head_selection(amap, view, 1, 2)
    assert chosen.amap is amap
    assert (chosen.figure_kwargs["layers"], chosen.figure_kwargs["heads"]) == (layers, heads)
    assert len(chosen.pairs) == {"head": 1, "layer": 4, "all": 12}[view]


def test_head_selection_clamps_indices_from_a_link_or_another_model_and_refuses_unknown_views():
    chosen = selection.head_selection(random_map(), "head", 99, -5)
    assert chosen.figure_kwargs == {"layers": 2, "heads": 0}
    with pytest.raises(InputError, match="Unknown view"):
        selection.head_selection(random_map(), "sideways", 0, 0)


def test_describe_pairs_names_whole_layers_briefly():
    assert selection.describe_pairs([(4, 0), (4, 1), (4, 2)], 3) == "L4 (all heads)"
    assert selection.describe_pairs([(2, 3), (3, 1)], 8) == "L2·H3, L3·H1"
    words = {**selection.alignment_words(), "pair": "第{layer}层·第{head}头"}
    assert selection.describe_pairs([(2, 3)], 8, words) == "第2层·第3头"


def test_head_lines_options():
    chosen = selection.head_selection(random_map(), "all", 0, 0)
    assert selection.head_lines_options(chosen, "all")["combine"] == "mean"
    assert selection.head_lines_options(selection.head_selection(random_map(), "head", 1, 1), "head")["combine"] is None


# ----------------------------------------------------------------------------------------------------------------------
# Preparing a map: replay, hiding, words


def seq2seq_capture() -> AttentionCapture:
    source, target = "早上好！", "Good morning!"
    src = [Token("早上", 0, 2), Token("好", 2, 3), Token("！", 3, 4), Token("</s>", -1, -1, True)]
    tgt = [
        Token("Good", 0, 4),
        Token("morn", 5, 9),
        Token("ing", 9, 12),
        Token("!", 12, 13),
        Token("</s>", -1, -1, True),
    ]
    rng = np.random.default_rng(1)
    cross = rng.random((2, 2, len(tgt), len(src))).astype(np.float32)
    cross /= cross.sum(-1, keepdims=True)
    encoder = rng.random((2, 2, len(src), len(src))).astype(np.float32)
    encoder /= encoder.sum(-1, keepdims=True)
    maps = {
        "cross": AttentionMap("cross", cross, tgt, src, ["c0", "c1"]),
        "encoder": AttentionMap("encoder", encoder, src, src, ["e0", "e1"]),
    }
    return AttentionCapture("test", "cpu", maps, source_text=source, target_text=target)


def test_replay_crops_to_the_rows_written_so_far():
    result = seq2seq_capture()
    full = result["cross"]
    assert selection.step_count(full) == 5
    shown = selection.replay(full, 2)
    np.testing.assert_array_equal(shown.weights, full.weights[:, :, :2])
    assert [t.text for t in shown.query_tokens] == ["Good", "morn"]
    assert selection.replay(full, 0) is full and selection.replay(full, 99) is full  # 0 = all
    words = selection.prepare_map(result, "cross", hide=True, words=True)  # Good, morning, !
    assert [t.text for t in selection.replay(words, 2).query_tokens] == ["Good", "morning"]


def test_replay_keeps_a_causal_map_causal():
    amap = random_map("decoder", queries=5, keys=5, causal=True)
    shown = selection.replay(amap, 3)
    assert shown.causal and shown.weights.shape[2:] == (3, 3)


def test_a_step_past_the_rows_written_or_on_an_encoder_map_is_refused():
    result = seq2seq_capture()
    options = selection.ViewOptions(kind="cross", aggregation="head", words=False, hide_special=False)
    assert selection.show(result, replace(options, step=5)).amap.weights.shape[2] == 5  # the last step: all
    with pytest.raises(InputError) as past:
        selection.show(result, replace(options, step=6))
    assert past.value.key == "step_past_end" and "1–5" in str(past.value)
    with pytest.raises(InputError, match="Step -1 is not in this map"):
        selection.show(result, replace(options, step=-1))
    with pytest.raises(InputError) as encoder:
        selection.show(result, replace(options, kind="encoder", step=2))
    assert encoder.value.key == "step_not_replayed"
    causal = random_map("decoder", queries=5, keys=5, causal=True)
    selection.check_step(causal, 3)  # a decoder's own map replays too


def test_prepare_map_hides_special_tokens_then_merges_words():
    result = seq2seq_capture()
    shown = selection.prepare_map(result, "cross", hide=True, words=True)
    assert [t.text for t in shown.key_tokens] == ["早上", "好", "！"]
    assert [t.text for t in shown.query_tokens] == ["Good", "morning", "!"]
    assert shown.weights.shape[2:] == (3, 3)


def test_newest_focus_is_the_last_written_token_and_where_it_looked_most():
    result = seq2seq_capture()
    amap = selection.replay(result["cross"], 2)
    chosen = selection.head_selection(amap, "head", 1, 0)
    token, looked = selection.newest_focus(chosen, top=2, floor=0.0)
    row = amap.weights[1, 0, -1]
    assert token.text == "morn"
    assert [w for _, w in looked] == pytest.approx(sorted(row, reverse=True)[:2])
    assert looked[0][0] == amap.key_tokens[int(row.argmax())]
    one_hot = replace(amap, weights=np.eye(4, dtype=np.float32)[[0, 3]][None, None].repeat(2, 0).repeat(2, 1))
    _, looked = selection.newest_focus(selection.head_selection(one_hot, "head", 0, 0))
    assert [(k.text, w) for k, w in looked] == [("</s>", 1.0)]  # near-zero weights are not named


def test_self_attention_kind_and_map_texts():
    result = seq2seq_capture()
    assert selection.self_attention_kind(result, "encoder") == "encoder"
    one_stack = AttentionCapture("m", "cpu", {"self": result["encoder"]}, source_text="早上好！")
    assert selection.self_attention_kind(one_stack, "decoder") == "self"
    assert selection.map_texts(result, "cross") == ("Good morning!", "早上好！")
    with pytest.raises(InputError):
        selection.self_attention_kind(result, "middle")


def test_heads_open_on_the_page_that_shows_their_map():
    assert heads_choices.page_for_head("cross") == ("translate", {"cross_aggregation": "head"})
    assert heads_choices.page_for_head("decoder") == ("self", {"self_aggregation": "head", "stack": "decoder"})
    assert heads_choices.page_for_head("self") == ("self", {"self_aggregation": "head"})
    amap = random_map(layers=2, heads=3)
    rows = analysis.statistics_table(analysis.head_statistics(amap), amap.layer_names)
    assert all(heads_choices.head_at(i, 3) == (row["layer"], row["head"]) for i, row in enumerate(rows))


def test_statistics_for_a_cross_map_leave_out_self_attention_only_ones():
    def defined(amap):
        return heads_choices.defined_statistics(analysis.head_statistics(amap))

    assert defined(random_map("cross")) == ["entropy", "sink", "diagonal"]
    no_repeat = [name for name in analysis.STATISTICS if name != "induction"]  # induction needs a repeated token
    assert defined(random_map("encoder", queries=6, keys=6)) == no_repeat


# ----------------------------------------------------------------------------------------------------------------------
# Running a model


def test_analyse_generates_or_force_decodes(tiny_folder):
    handle = load_model(tiny_folder("marian"), "cpu")
    pair = model_runs.analyse(handle, "早上好！", "Good morning!", "pair")
    assert pair.target_text == "Good morning!" and {"encoder", "decoder", "cross"} <= set(pair.maps)
    written = model_runs.analyse(handle, "早上好！", "ignored", "generate", max_new_tokens=3)
    assert written.steps is not None and len(written.steps) <= 3
    with pytest.raises(InputError, match="target is empty"):
        model_runs.analyse(handle, "早上好！", "  ", "pair")
    with pytest.raises(InputError, match="Unknown mode"):
        model_runs.analyse(handle, "早上好！", "", "sing")


def test_analyse_reads_text_with_an_encoder(tiny_folder):
    handle = load_model(tiny_folder("bert"), "cpu")
    result = model_runs.analyse(handle, "Good morning!", "", "generate")
    assert set(result.maps) == {"self"}


def test_long_texts_are_analysed_lazily_and_give_the_same_weights(tiny_folder, monkeypatch):
    from attnviz import memory
    from attnviz.attention.capture import capture

    handle = load_model(tiny_folder("marian"), "cpu")
    text, target = "早上好！Good morning, my friend!", "Good morning!"
    n = len(handle.tokenizer(text)["input_ids"])
    assert model_runs.analysis_mode(handle, text, target, "pair", environ={}) == "full"
    lazy_from = LAZY_FROM_TOKENS
    assert model_runs.analysis_mode(handle, text, target, "pair", environ={lazy_from: str(n)}) == "lazy"
    assert model_runs.analysis_mode(handle, text, target, "pair", environ={lazy_from: str(n + 1)}) == "full"
    assert model_runs.analysis_mode(handle, text, "", "generate", environ={lazy_from: "1"}) == "full"

    m = len(handle.tokenizer(text_target=target)["input_ids"]) + 1
    full = memory.estimate_bytes(handle, n, m, "full")
    monkeypatch.setenv(memory.BUDGET_ENV, str((full - 1) / memory.MB))  # the whole map no longer fits
    assert model_runs.analysis_mode(handle, text, target, "pair", environ={}) == "lazy"
    monkeypatch.delenv(memory.BUDGET_ENV)

    lazy = model_runs.analyse(handle, text, target, "pair", lazy=True)
    assert not lazy.is_complete and lazy.shape("encoder") == (2, 4, n, n)
    whole = capture(handle, text, target)
    crossed = selection.whole_capture(lazy, ["cross"])
    assert set(crossed.maps) == {"cross"} and crossed.target_text == target
    np.testing.assert_allclose(crossed["cross"].weights, whole["cross"].weights, atol=1e-5)
    assert selection.whole_capture(whole, ["cross"]) is whole
    assert model_runs.analysis_mode(handle, text, target, "pair", environ={lazy_from: " "}) == "full"  # unset
    for bad in ("many", "0"):  # 0 tokens is refused, not read as "always"
        with pytest.raises(SettingError, match="whole number of tokens"):
            model_runs.analysis_mode(handle, text, target, "pair", environ={lazy_from: bad})


def test_a_long_prompt_for_a_decoder_is_read_lazily_not_continued(tiny_folder):
    handle = load_model(tiny_folder("gpt2"), "cpu")
    environ = {LAZY_FROM_TOKENS: "4"}
    assert model_runs.analysis_mode(handle, "早上好！Good morning!", "", "generate", environ=environ) == "lazy"
    result = model_runs.analyse(handle, "早上好！Good morning!", "", "generate", lazy=True)
    assert not result.is_complete and result.kinds == ["self"] and result.target_text is None


def test_token_windows_stay_inside_the_text():
    assert selection.token_window(1000, 0, 128) == (0, 128)
    assert selection.token_window(1000, 950, 128) == (872, 1000)  # slid back to fit
    assert selection.token_window(50, 10, 128) == (0, 50)  # the whole text when it is shorter than a window
    assert selection.token_window(1000, -5, 128) == (0, 128)


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


def test_exported_files_name_the_model_and_fit_their_title():
    assert selection.exported_title("cross-attention<br><sup>links ≥ 0.1</sup>", "demo-zh-en") == (
        "cross-attention<br><sup>demo-zh-en · links ≥ 0.1</sup>"
    )
    assert selection.exported_title("Heads", "demo-zh-en") == "Heads<br><sup>demo-zh-en</sup>"
    assert selection.exported_title("Heads", None) == "Heads"
    assert selection.title_width("交叉注意力") == 5 * 16 and selection.title_width("ab<br>x") == int(2 * 0.55 * 16)
    long_note = "ab<br><sup>" + "x" * 99 + "</sup>"  # a note line wider than the title: the file makes room for it
    assert selection.title_width(long_note) == int(99 * 0.55 * 16 * 0.7)
    long = "cross-attention · alignment heads · mean of L0·H1, L2·H3, L4·H5"
    width, height = selection.export_size(long, 520, 380)
    assert width >= selection.title_width(long) + 80 and height == 380
    assert selection.export_size("short", 700, 400) == (700, 400)


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


def test_decoder_self_attention_rows_are_named_by_the_decoder_input():
    start, good, morning = Token("<pad>", -1, -1, True), Token("Good", 0, 4), Token("morning", 5, 12)
    end = Token("</s>", -1, -1, True)
    weights = np.tril(np.ones((3, 3), dtype=np.float32))
    weights /= weights.sum(-1, keepdims=True)
    decoder = AttentionMap("decoder", weights[None, None], [good, morning, end], [start, good, morning], ["d0"], True)
    result = AttentionCapture("m", "cpu", {"decoder": decoder}, source_text="早上好", target_text="Good morning")
    shown = selection.prepare_map(result, "decoder", hide=True)
    assert [t.text for t in shown.query_tokens] == [t.text for t in shown.key_tokens] == ["Good", "morning"]
    assert shown.causal
    np.testing.assert_allclose(shown.weights[0, 0], weights[1:, 1:])


def test_the_librarys_view_defaults_are_the_apps():
    options, view = selection.ViewOptions(), app_state.ViewState()
    assert (options.layer, options.head) == (view.layer, view.head)
    assert (options.words, options.hide_special) == (view.words, view.hide_special)
    assert (options.threshold, options.step, options.lang) == (view.threshold, view.step, view.lang)
    assert selection.default_aggregation("cross") == view.cross_aggregation
    assert all(selection.default_aggregation(kind) == view.self_aggregation for kind in ("self", "encoder", "decoder"))


def test_custom_selections_take_any_heads_and_check_them():
    amap = random_map()
    chosen = selection.custom_selection(amap, (0, 2), None, head_reduce="max")
    assert chosen.pairs == tuple((layer, head) for layer in (0, 2) for head in range(4))
    np.testing.assert_allclose(
        analysis.aggregate(chosen.amap, chosen.figure_kwargs["layers"], None, "max"),
        amap.weights[[0, 2]].max(axis=1).mean(axis=0),
        atol=1e-6,
    )
    assert selection.head_lines_options(chosen, selection.CUSTOM)["combine"] == "max"  # every head, combined
    assert selection.head_lines_options(selection.custom_selection(amap, None, (1, 3)), "custom")["combine"] is None
    with pytest.raises(InputError, match="Head 9 does not exist"):
        selection.custom_selection(amap, None, (9,))


def test_show_draws_the_named_figures_of_the_chosen_map():
    result = seq2seq_capture()
    shown = selection.show(result, selection.ViewOptions(step=2), (), ("alignment", "heatmap", "grid"))
    assert list(shown.figures) == ["alignment", "heatmap", "grid"]
    assert [t.text for t in shown.amap.query_tokens] == ["Good", "morning"]  # words merged, replayed to step 2
    assert shown.figures["alignment"].layout.height == shown.figures["heatmap"].layout.height
    assert shown.selection.pairs == ((0, 0), (0, 1))  # no trained alignment heads: the second-to-last layer
    with pytest.raises(InputError, match="Unknown figure"):
        selection.show(result, selection.ViewOptions(), (), ("pie",))
    with pytest.raises(InputError, match="cross-attention heads"):
        selection.show(result, selection.ViewOptions(kind="encoder", aggregation="alignment"))
    assert selection.default_kind(result) == "cross"


def test_a_title_says_how_much_weight_the_hidden_tokens_held_or_that_rows_were_renormalised():
    amap = random_map(kind="self", layers=1, heads=1, queries=4, keys=4, specials=(0,))
    weights = np.full((1, 1, 4, 4), 0.1, np.float32)
    weights[..., 0] = 0.7  # the special token holds 70% of every row
    amap = AttentionMap("self", weights, amap.query_tokens, amap.key_tokens, amap.layer_names)
    result = AttentionCapture("m", "cpu", {"self": amap}, source_text="q0q1q2q3")
    options = selection.ViewOptions(kind="self", aggregation="head", words=False)
    titles = {
        name: fig.layout.title.text
        for name, fig in selection.show(result, options, names=("heatmap", "alignment", "lines")).figures.items()
    }
    assert all("hidden tokens hold 70% of each row's weight" in title for title in titles.values()), titles
    renormalised = selection.show(result, replace(options, renormalize=True)).figures["heatmap"].layout.title.text
    assert "rows renormalised after hiding tokens" in renormalised and "hold" not in renormalised
    shown = selection.show(result, replace(options, hide_special=False)).figures["heatmap"].layout.title.text
    assert "hidden" not in shown
    weights[..., 0] = 0.01
    weights[..., 1:] = 0.33
    faint = AttentionMap("self", weights, amap.query_tokens, amap.key_tokens, amap.layer_names)
    result = AttentionCapture("m", "cpu", {"self": faint}, source_text="q0q1q2q3")
    assert "hidden" not in selection.show(result, options).figures["heatmap"].layout.title.text  # 1%: not said


def test_a_replayed_figure_says_which_step_it_shows():
    result = seq2seq_capture()
    options = selection.ViewOptions(kind="cross", aggregation="head", words=False, hide_special=False, step=2)
    for name, fig in selection.show(result, options, names=("heatmap", "alignment", "grid")).figures.items():
        assert "replay: the first 2 of 5 rows written" in fig.layout.title.text, name
    whole = selection.show(result, replace(options, step=5)).figures["heatmap"].layout.title.text
    assert "replay" not in whole  # the last step is the whole map
    chinese = selection.show(result, replace(options, lang="zh")).figures["heatmap"].layout.title.text
    assert "回放：已写出 5 行中的前 2 行" in chinese
