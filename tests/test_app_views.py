"""attnviz.views: the app's state, links and selections as plain functions (no Streamlit)."""

from __future__ import annotations

from dataclasses import asdict, replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz import analysis, views
from attnviz.attention.walkthrough import walkthrough
from attnviz.errors import InputError
from attnviz.models import load_model
from attnviz.types import AttentionCapture, AttentionMap, Token

# ----------------------------------------------------------------------------------------------------------------------
# Links


def explainer_texts(name: str):
    """Link texts of edited explainer matrices ("" when the numbers are the seed's)."""
    shape = views.EXPLAINER_SEEDS[name].shape
    cells = st.lists(
        st.floats(allow_nan=False, allow_infinity=False), min_size=shape[0] * shape[1], max_size=shape[0] * shape[1]
    )
    return st.one_of(st.just(""), cells.map(lambda values: views.explainer_field(np.reshape(values, shape), name)))


view_states = st.builds(
    views.ViewState,
    model=st.sampled_from(["demo-zh-en", "minilm", "/models/my model", "org/name"]),
    device=st.sampled_from(views.DEVICES),
    lang=st.sampled_from(views.LANGUAGES),
    text=st.text(min_size=0, max_size=60),
    target=st.text(min_size=0, max_size=60),
    mode=st.sampled_from(views.MODES),
    view=st.sampled_from(views.AGGREGATIONS),
    layer=st.integers(0, 40),
    head=st.integers(0, 40),
    words=st.booleans(),
    hide=st.booleans(),
    threshold=st.sampled_from([0.0, 0.05, 0.1, 0.35, 0.9]),
    step=st.integers(0, 60),
    stack=st.sampled_from(views.STACKS),
    self_view=st.sampled_from(views.SELF_AGGREGATIONS),
    kind=st.sampled_from(["self", "encoder", "decoder", "cross"]),
    stat=st.sampled_from(list(analysis.STATISTICS)),
    q=explainer_texts("q"),
    k=explainer_texts("k"),
    v=explainer_texts("v"),
)


@settings(max_examples=200, deadline=None)
@given(view_states)
def test_a_link_restores_exactly_the_view_it_was_made_from(state):
    restored, unreadable = views.from_query_params(views.to_query_params(state))
    assert unreadable == []
    assert restored == state


def test_a_default_link_holds_only_the_shareable_core():
    params = views.to_query_params(views.ViewState())
    assert set(params) == set(views.ALWAYS_IN_URL)
    assert params["model"] == "demo-zh-en" and params["text"] == "早上好！"


def test_explainer_matrices_travel_in_the_link_exactly():
    edited = np.array([[0.1, -2.5], [1e-7, 3.0], [1 / 3, 12345678.9]])
    text = views.explainer_field(edited, "q")
    assert text == "0.1,-2.5;1e-07,3;0.3333333333333333,12345678.9"
    np.testing.assert_array_equal(views.matrix_from_text(text, "q"), edited)  # bit for bit, not rounded
    assert views.explainer_field(views.EXPLAINER_SEEDS["k"].copy(), "k") == ""  # the seed's numbers need no link

    state, unreadable = views.from_query_params({"q": " 1,2 ; 3,4 ; 5,6 ", "k": "1,0;0,1;1,1;2,0", "v": "1,2;3,4"})
    assert state.q == "1,2;3,4;5,6" and state.k == ""  # tidied; K equals the seed's numbers
    assert unreadable == ["v"] and state.v == ""  # V needs 4 rows: the link's V is ignored and named
    np.testing.assert_array_equal(views.explainer_start(state, "q"), [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(views.explainer_start(state, "v"), views.EXPLAINER_SEEDS["v"])
    for bad in ("1,2;3,4;5,x", "1,2,3;4,5,6;7,8,9", "1,2;;5,6", "nan,1;2,3;4,5", "1e999,1;2,3;4,5"):
        assert views.from_query_params({"q": bad})[1] == ["q"], bad


def test_unreadable_parameters_keep_their_defaults_and_are_named():
    params = {
        "layer": "-1",
        "head": "two",
        "view": "sideways",
        "lang": "fr",
        "threshold": "2",
        "words": "maybe",
        "model": " ",
        "text": "晚安",
        "unknown": "x",
    }
    state, unreadable = views.from_query_params(params)
    assert sorted(unreadable) == ["head", "lang", "layer", "model", "threshold", "view", "words"]
    default = views.ViewState()
    assert (state.layer, state.head, state.view, state.lang, state.threshold, state.words, state.model) == (
        default.layer,
        default.head,
        default.view,
        default.lang,
        default.threshold,
        default.words,
        default.model,
    )
    assert state.text == "晚安"


def test_a_repeated_parameter_counts_by_its_last_value_and_long_text_is_cut():
    state, _ = views.from_query_params({"layer": ["1", "3"], "text": "字" * (views.MAX_URL_TEXT + 10)})
    assert state.layer == 3
    assert len(state.text) == views.MAX_URL_TEXT
    assert len(views.to_query_params(views.ViewState(text="字" * 5000))["text"]) == views.MAX_URL_TEXT


# ----------------------------------------------------------------------------------------------------------------------
# Which models a deployment offers


@pytest.mark.parametrize("value, allowed", [(None, True), ("1", True), ("yes", True), ("0", False), ("off", False)])
def test_custom_models_setting(value, allowed):
    environ = {} if value is None else {views.CUSTOM_MODELS_ENV: value}
    assert views.custom_models_allowed(environ) is allowed
    catalogue = ["demo-zh-en"]
    assert views.model_refusal("demo-zh-en", catalogue, environ) is None
    assert (views.model_refusal("/some/folder", catalogue, environ) is None) is allowed


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
    assert views.alignment_pairs([(2, 1), (0, 3), (9, 0), (1, 7)], 3, 4) == [(2, 1), (0, 3)]  # out of range dropped
    assert views.alignment_pairs([], 6, 2) == [(4, 0), (4, 1)]
    assert views.alignment_pairs([], 1, 2) == [(0, 0), (0, 1)]


def test_alignment_view_is_the_mean_of_exactly_the_alignment_heads():
    amap = random_map()
    selection = views.head_selection(amap, "alignment", 0, 0, alignment_heads=[(2, 1), (0, 3)])
    expected = (amap.weights[2, 1] + amap.weights[0, 3]) / 2
    matrix = analysis.aggregate(selection.amap, selection.figure_kwargs["layers"], selection.figure_kwargs["heads"])
    np.testing.assert_allclose(matrix, expected, atol=1e-6)
    assert selection.pairs == ((2, 1), (0, 3))
    labels = selection.figure_kwargs["labels"]
    assert labels["layer_one"] == "alignment heads" and labels["heads_all"] == "mean of L2·H1, L0·H3"


@pytest.mark.parametrize(
    "view, layers, heads",
    [("head", 1, 2), ("layer", 1, None), ("all", None, None)],
)
def test_head_selection_of_the_other_views(view, layers, heads):
    amap = random_map()
    selection = views.head_selection(amap, view, 1, 2)
    assert selection.amap is amap
    assert (selection.figure_kwargs["layers"], selection.figure_kwargs["heads"]) == (layers, heads)
    assert len(selection.pairs) == {"head": 1, "layer": 4, "all": 12}[view]


def test_head_selection_clamps_indices_from_a_link_or_another_model_and_refuses_unknown_views():
    selection = views.head_selection(random_map(), "head", 99, -5)
    assert selection.figure_kwargs == {"layers": 2, "heads": 0}
    with pytest.raises(InputError, match="Unknown view"):
        views.head_selection(random_map(), "sideways", 0, 0)


def test_describe_pairs_names_whole_layers_briefly():
    assert views.describe_pairs([(4, 0), (4, 1), (4, 2)], 3) == "L4 (all heads)"
    assert views.describe_pairs([(2, 3), (3, 1)], 8) == "L2·H3, L3·H1"
    words = {**views.ALIGNMENT_WORDS, "pair": "第{layer}层·第{head}头"}
    assert views.describe_pairs([(2, 3)], 8, words) == "第2层·第3头"


def test_head_lines_options():
    selection = views.head_selection(random_map(), "all", 0, 0)
    assert views.head_lines_options(selection, "all")["combine"] == "mean"
    assert views.head_lines_options(views.head_selection(random_map(), "head", 1, 1), "head")["combine"] is None


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
    assert views.step_count(full) == 5
    shown = views.replay(full, 2)
    np.testing.assert_array_equal(shown.weights, full.weights[:, :, :2])
    assert [t.text for t in shown.query_tokens] == ["Good", "morn"]
    assert views.replay(full, 0) is full and views.replay(full, 99) is full  # 0 = all
    words = views.prepare_map(result, "cross", hide=True, words=True)  # Good, morning, !
    assert [t.text for t in views.replay(words, 2).query_tokens] == ["Good", "morning"]


def test_replay_keeps_a_causal_map_causal():
    amap = random_map("decoder", queries=5, keys=5, causal=True)
    shown = views.replay(amap, 3)
    assert shown.causal and shown.weights.shape[2:] == (3, 3)


def test_prepare_map_hides_special_tokens_then_merges_words():
    result = seq2seq_capture()
    shown = views.prepare_map(result, "cross", hide=True, words=True)
    assert [t.text for t in shown.key_tokens] == ["早上", "好", "！"]
    assert [t.text for t in shown.query_tokens] == ["Good", "morning", "!"]
    assert shown.weights.shape[2:] == (3, 3)


def test_newest_focus_is_the_last_written_token_and_where_it_looked_most():
    result = seq2seq_capture()
    amap = views.replay(result["cross"], 2)
    selection = views.head_selection(amap, "head", 1, 0)
    token, looked = views.newest_focus(selection, top=2, floor=0.0)
    row = amap.weights[1, 0, -1]
    assert token.text == "morn"
    assert [w for _, w in looked] == pytest.approx(sorted(row, reverse=True)[:2])
    assert looked[0][0] == amap.key_tokens[int(row.argmax())]
    one_hot = replace(amap, weights=np.eye(4, dtype=np.float32)[[0, 3]][None, None].repeat(2, 0).repeat(2, 1))
    _, looked = views.newest_focus(views.head_selection(one_hot, "head", 0, 0))
    assert [(k.text, w) for k, w in looked] == [("</s>", 1.0)]  # near-zero weights are not named


def test_self_attention_kind_and_map_texts():
    result = seq2seq_capture()
    assert views.self_attention_kind(result, "encoder") == "encoder"
    one_stack = AttentionCapture("m", "cpu", {"self": result["encoder"]}, source_text="早上好！")
    assert views.self_attention_kind(one_stack, "decoder") == "self"
    assert views.map_texts(result, "cross") == ("Good morning!", "早上好！")
    with pytest.raises(InputError):
        views.self_attention_kind(result, "middle")


def test_heads_open_on_the_page_that_shows_their_map():
    assert views.page_for_head("cross") == ("translate", {"view": "head"})
    assert views.page_for_head("decoder") == ("self", {"self_view": "head", "stack": "decoder"})
    assert views.page_for_head("self") == ("self", {"self_view": "head"})
    amap = random_map(layers=2, heads=3)
    rows = analysis.statistics_table(analysis.head_statistics(amap), amap.layer_names)
    assert all(views.head_at(i, 3) == (row["layer"], row["head"]) for i, row in enumerate(rows))


def test_statistics_for_a_cross_map_leave_out_self_attention_only_ones():
    def defined(amap):
        return views.defined_statistics(analysis.head_statistics(amap))

    assert defined(random_map("cross")) == ["entropy", "sink", "diagonal"]
    assert defined(random_map("encoder", queries=6, keys=6)) == list(analysis.STATISTICS)


# ----------------------------------------------------------------------------------------------------------------------
# Running a model


def test_analyse_generates_or_force_decodes(tiny_folder):
    handle = load_model(tiny_folder("marian"), "cpu")
    pair = views.analyse(handle, "早上好！", "Good morning!", "pair")
    assert pair.target_text == "Good morning!" and {"encoder", "decoder", "cross"} <= set(pair.maps)
    written = views.analyse(handle, "早上好！", "ignored", "generate", max_new_tokens=3)
    assert written.steps is not None and len(written.steps) <= 3
    with pytest.raises(InputError, match="target is empty"):
        views.analyse(handle, "早上好！", "  ", "pair")
    with pytest.raises(InputError, match="Unknown mode"):
        views.analyse(handle, "早上好！", "", "sing")


def test_analyse_reads_text_with_an_encoder(tiny_folder):
    handle = load_model(tiny_folder("bert"), "cpu")
    result = views.analyse(handle, "Good morning!", "", "generate")
    assert set(result.maps) == {"self"}


def test_long_texts_are_analysed_lazily_and_give_the_same_weights(tiny_folder, monkeypatch):
    from attnviz import memory
    from attnviz.attention.capture import capture

    handle = load_model(tiny_folder("marian"), "cpu")
    text, target = "早上好！Good morning, my friend!", "Good morning!"
    n = len(handle.tokenizer(text)["input_ids"])
    assert views.analysis_mode(handle, text, target, "pair", environ={}) == "full"
    assert views.analysis_mode(handle, text, target, "pair", environ={views.LAZY_FROM_TOKENS_ENV: str(n)}) == "lazy"
    assert views.analysis_mode(handle, text, target, "pair", environ={views.LAZY_FROM_TOKENS_ENV: str(n + 1)}) == "full"
    assert views.analysis_mode(handle, text, "", "generate", environ={views.LAZY_FROM_TOKENS_ENV: "1"}) == "full"

    m = len(handle.tokenizer(text_target=target)["input_ids"]) + 1
    full = memory.estimate_bytes(handle, n, m, "full")
    monkeypatch.setenv(memory.BUDGET_ENV, str((full - 1) / memory.MB))  # the whole map no longer fits
    assert views.analysis_mode(handle, text, target, "pair", environ={}) == "lazy"
    monkeypatch.delenv(memory.BUDGET_ENV)

    lazy = views.analyse(handle, text, target, "pair", lazy=True)
    assert views.is_lazy(lazy) and views.map_shape(lazy, "encoder") == (2, 4, n, n)
    whole = capture(handle, text, target)
    crossed = views.whole_capture(lazy, ["cross"])
    assert set(crossed.maps) == {"cross"} and crossed.target_text == target
    np.testing.assert_allclose(crossed["cross"].weights, whole["cross"].weights, atol=1e-5)
    assert views.whole_capture(whole, ["cross"]) is whole
    with pytest.raises(InputError, match="whole number of tokens"):
        views.lazy_from_tokens({views.LAZY_FROM_TOKENS_ENV: "many"})


def test_a_long_prompt_for_a_decoder_is_read_lazily_not_continued(tiny_folder):
    handle = load_model(tiny_folder("gpt2"), "cpu")
    environ = {views.LAZY_FROM_TOKENS_ENV: "4"}
    assert views.analysis_mode(handle, "早上好！Good morning!", "", "generate", environ=environ) == "lazy"
    result = views.analyse(handle, "早上好！Good morning!", "", "generate", lazy=True)
    assert views.is_lazy(result) and views.kinds_of(result) == ["self"] and result.target_text is None


def test_token_windows_stay_inside_the_text():
    assert views.token_window(1000, 0, 128) == (0, 128)
    assert views.token_window(1000, 950, 128) == (872, 1000)  # slid back to fit
    assert views.token_window(50, 10, 128) == (0, 50)  # the whole text when it is shorter than a window
    assert views.token_window(1000, -5, 128) == (0, 128)


# ----------------------------------------------------------------------------------------------------------------------
# How attention works


def test_explainer_matrices_are_checked():
    assert views.explainer_matrix([[1, "2"], [3, 4.5]], "Q", (2, 2)).tolist() == [[1, 2], [3, 4.5]]
    with pytest.raises(InputError, match="must be a number"):
        views.explainer_matrix([[1, "x"], [3, 4]], "Q", (2, 2))
    with pytest.raises(InputError, match="must be a number"):
        views.explainer_matrix([[1, None], [3, 4]], "Q", (2, 2))
    with pytest.raises(InputError, match="must be a number"):
        views.explainer_matrix([[1, float("nan")], [3, 4]], "Q", (2, 2))
    with pytest.raises(InputError, match="3 rows and 2 columns"):
        views.explainer_matrix([[1, 2]], "Q", (3, 2))


def test_explainer_walk_shows_each_step_and_rows_that_sum_to_one():
    q, k, v = np.array([[1.0, 2.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.eye(3, 2)
    steps = walkthrough(q, k, v)
    walk = views.explainer_walk(steps, views.names("q", 2), views.names("k", 3))
    assert [name for name, *_ in walk] == ["scores", "scaled", "softmax", "output"]
    _, softmax, rows, columns = walk[2]
    assert columns[-1] == "Σ" and rows == ["q₁", "q₂"]
    np.testing.assert_allclose(softmax[:, -1], 1.0)
    np.testing.assert_allclose(walk[1][1], q @ k.T / np.sqrt(2))
    frame = views.table(walk[0][1], rows, columns[:-1], decimals=1)
    assert list(frame.columns) == ["k₁", "k₂", "k₃"] and frame.loc["q₁", "k₃"] == 3.0


def test_multi_head_walkthrough_follows_the_seed_shapes():
    walk = views.multi_head_walkthrough(batch=2, length=5, hidden=12, heads=3, device="cpu")
    shapes = dict(walk.shapes)
    assert shapes["x"] == (2, 5, 12)
    assert shapes["query"] == shapes["key"] == shapes["value"] == shapes["context"] == (2, 3, 5, 4)
    assert shapes["weights"] == (2, 3, 5, 5)
    assert shapes["merged"] == shapes["output"] == (2, 5, 12)
    assert walk.weights.weights.shape == (1, 3, 5, 5)
    np.testing.assert_allclose(walk.weights.weights.sum(-1), 1.0, atol=1e-5)
    assert walk.device == "cpu"
    rows = views.shape_rows(walk.shapes, {"x": "input"})
    assert rows[0] == {"step": "x", "axes": "(b, l, hdim)", "shape": "(2, 5, 12)", "meaning": "input"}
    with pytest.raises(InputError, match="cannot be split"):
        views.multi_head_walkthrough(1, 4, 10, 3, device="cpu")
    assert views.divisors(12) == [1, 2, 3, 4, 6, 12]


def test_every_view_state_field_has_a_default_that_reads_back():
    state, unreadable = views.from_query_params({k: views._format(v) for k, v in asdict(views.ViewState()).items()})
    assert unreadable == [] and state == views.ViewState()


def test_exported_files_name_the_model_and_fit_their_title():
    assert views.exported_title("cross-attention<br><sup>links ≥ 0.1</sup>", "demo-zh-en") == (
        "cross-attention<br><sup>demo-zh-en · links ≥ 0.1</sup>"
    )
    assert views.exported_title("Heads", "demo-zh-en") == "Heads<br><sup>demo-zh-en</sup>"
    assert views.exported_title("Heads", None) == "Heads"
    assert views.title_width("交叉注意力") == 5 * 16 and views.title_width("ab<br>" + "x" * 99) == int(2 * 0.55 * 16)
    long = "cross-attention · alignment heads · mean of L0·H1, L2·H3, L4·H5"
    width, height = views.export_size(long, 520, 380)
    assert width >= views.title_width(long) + 80 and height == 380
    assert views.export_size("short", 700, 400) == (700, 400)


def test_interactive_threads_setting():
    assert views.interactive_threads({}) == 1
    assert views.interactive_threads({views.THREADS_ENV: " 4 "}) == 4
    for bad in ("four", "0", "-2"):
        with pytest.raises(InputError, match=views.THREADS_ENV):
            views.interactive_threads({views.THREADS_ENV: bad})


def test_decoder_self_attention_rows_are_named_by_the_decoder_input():
    start, good, morning = Token("<pad>", -1, -1, True), Token("Good", 0, 4), Token("morning", 5, 12)
    end = Token("</s>", -1, -1, True)
    weights = np.tril(np.ones((3, 3), dtype=np.float32))
    weights /= weights.sum(-1, keepdims=True)
    decoder = AttentionMap("decoder", weights[None, None], [good, morning, end], [start, good, morning], ["d0"], True)
    result = AttentionCapture("m", "cpu", {"decoder": decoder}, source_text="早上好", target_text="Good morning")
    shown = views.prepare_map(result, "decoder", hide=True)
    assert [t.text for t in shown.query_tokens] == [t.text for t in shown.key_tokens] == ["Good", "morning"]
    assert shown.causal
    np.testing.assert_allclose(shown.weights[0, 0], weights[1:, 1:])
