"""The query–key space page, rollout on the Self-attention page and the explainer on your sentence, through
AppTest and the CLI: each opens from a link, in both languages, and shows what the library computes."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from attnviz import cli
from attnviz.i18n import figures as figure_words
from tests.support.app import open_by_link


def open_page(page: str, **params) -> AppTest:
    at = open_by_link(page, timeout=300, **params)
    problems = [*at.exception, *at.error]
    assert not problems, [p.value for p in problems]
    return at


def charts(at: AppTest) -> dict[str, dict]:
    specs = [json.loads(element.proto.spec) for element in at.get("plotly_chart")]
    return {spec["layout"]["meta"]["view"]: spec for spec in specs}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_opens_the_query_key_space_with_its_picked_key_outlined(lang):
    at = open_page(
        "page_scripts/query_key_space.py", lang=lang, kind="encoder", layer=1, head=2, qk_point="k1", qk_color="token"
    )
    drawn = charts(at)
    space, heatmap = drawn["qk_space"], drawn["heatmap"]
    assert space["layout"]["meta"]["layer"] == 1 and space["layout"]["meta"]["head"] == 2
    assert space["layout"]["meta"]["color_by"] == "token"
    assert [trace["marker"]["symbol"] for trace in space["data"][:2]] == ["circle", "diamond"]
    assert len(space["data"]) == 3  # queries, keys, the ring around the picked key
    shape = heatmap["layout"]["shapes"][0]
    assert (shape["x0"], shape["x1"]) == (0.5, 1.5)  # key column 1
    text = " ".join(m.value for m in at.markdown)
    assert ("键 #1" if lang == "zh" else "key #1") in text
    assert at.title[0].value == ("查询–键空间" if lang == "zh" else "Query–key space")
    # the map under the plane is that head's, and its title says so (it once said layer 0 · head 0)
    words = figure_words.STRINGS[lang]
    said = f"{words['layer_one'].format(layer=1)} · {words['head_one'].format(head=2)}"
    assert said in heatmap["layout"]["title"]["text"]
    buttons = {button.proto.label for button in at.get("download_button")}
    assert {"PNG", "SVG", "PDF", "HTML", "JSON"} <= buttons


def test_the_rollout_view_rolls_through_the_chosen_layers():
    at = open_page("page_scripts/self_attention.py", stack="encoder", self_view="rollout", roll_first=1, residual=0)
    heatmap = charts(at)["heatmap"]
    assert "rollout L1–L2" in heatmap["layout"]["title"]["text"]
    assert at.session_state["w_rollout_first"] == 1 and at.session_state["w_rollout_last"] == 2
    assert not at.session_state["w_residual"]
    assert any("Rollout" in caption.value for caption in at.caption)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_explainer_walks_your_sentence_and_says_the_row_equals_the_capture(lang):
    at = open_page("page_scripts/how_attention_works.py", lang=lang, kind="cross", layer=2, head=0, ex_token=1)
    steps = charts(at)["sentence_steps"]
    meta = steps["layout"]["meta"]
    assert (meta["kind"], meta["layer"], meta["head"], meta["row"]) == ("cross", 2, 0, 1)
    assert meta["difference"] <= 1e-6
    said = at.success[0].value
    assert ("最大差" if lang == "zh" else "largest difference") in said
    headings = [h.value for h in at.header]
    assert any(("真实模型" if lang == "zh" else "real model") in h for h in headings)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_walk_through_a_teacher_uses_says_what_it_teaches(lang):
    at = open_page("page_scripts/how_attention_works.py", lang=lang, model="demo-decoder", text="从前有一只小猫。")
    numbered = [h.value.split(" ·")[0] for h in at.header if " ·" in h.value]
    assert numbered == ["1", "2", "3", "4", "5", "6"]  # one section a number, in order
    assert len(at.header) == 7  # then the user's own sentence scored (which explanation to believe), unnumbered
    looking = next(d.value for d in at.dataframe if d.value.shape[1] == 4 and len(d.value) > 5)  # on the sentence
    assert abs(looking.iloc[:, 3].sum() - 1) < 1e-6 and abs(looking.iloc[:, 1].sum() - 1) < 1e-6
    assert any(
        ("看见不等于用到" if lang == "zh" else "Looking is not using, on your sentence") in h.value
        for h in at.subheader
    )
    text = " ".join(m.value for m in at.markdown)
    assert "similarities are" not in text and "相似度分别" not in text  # after the softmax they are weights
    assert "pseudo-code" not in text and "原文伪代码" not in text  # never introduced on the page
    assert "Good Morning！" not in text  # the demo translator writes "Good morning!"
    tokens = at.selectbox(key="w_ex_token")
    assert tokens.value == len(tokens.options) - 1  # a causal map: the last token, which sees every key
    table = next(d.value for d in at.dataframe if "q·k" in d.value.columns)  # the sentence's numbers
    assert not table.isna().any().any()  # hidden keys say so; no empty "None" cells
    hidden = "不可见" if lang == "zh" else "hidden"
    first = at.selectbox(key="w_ex_token").select(0).run()  # the first token: it sees only itself
    numbers = next(d.value for d in first.dataframe if "q·k" in d.value.columns)
    assert hidden in numbers.astype(str).to_numpy() and not numbers.isna().any().any()  # sees only itself


def test_the_cli_exports_a_rollout_and_refuses_one_of_cross_attention(tmp_path, capsys):
    out = tmp_path / "rollout.html"
    argv = ["export", "--model", "demo-zh-en", "--device", "cpu", "--text", "早上好！", "--target", "Good morning!"]
    assert (
        cli.main([*argv, "--kind", "encoder", "--aggregation", "rollout", "--rollout-layers", "0-1", "-o", str(out)])
        == 0
    )
    assert "rollout L0–L1" in out.read_text(encoding="utf-8")
    capsys.readouterr()
    assert cli.main([*argv, "--kind", "cross", "--aggregation", "rollout", "-o", str(tmp_path / "x.html")]) == 2
    assert "encoder's last output" in capsys.readouterr().err
    assert (
        cli.main(
            [
                *argv,
                "--kind",
                "encoder",
                "--aggregation",
                "rollout",
                "--rollout-layers",
                "a-b",
                "-o",
                str(tmp_path / "y.html"),
            ]
        )
        == 2
    )
    assert "FIRST-LAST" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists() and not (tmp_path / "y.html").exists()


def test_a_long_text_uses_its_own_on_demand_capture_and_a_window_of_the_map(monkeypatch):
    """Above ATTNVIZ_LAZY_FROM_TOKENS the page's capture keeps queries and keys only; the space draws from it (no
    second pass), and the map shows a window of LONG_WINDOW tokens around the picked token."""
    from attnviz.view import viewing

    monkeypatch.setenv("ATTNVIZ_LAZY_FROM_TOKENS", "8")
    monkeypatch.setattr(viewing, "LONG_WINDOW", 4)
    at = open_page(
        "page_scripts/query_key_space.py",
        model="minilm",
        text="Attention lets every token look at every other token.",
        qk_point="q6",
        layer=3,
        head=1,
    )
    drawn = charts(at)
    assert drawn["qk_space"]["layout"]["meta"]["queries"] > 8
    heatmap = drawn["heatmap"]["layout"]["meta"]
    assert heatmap["query_count"] == 4 and heatmap["key_count"] == 4
    assert drawn["heatmap"]["layout"]["shapes"][0]["y0"] == 1.5  # query 6 is the third row of rows 4–7
    assert any("rows 4–7" in caption.value for caption in at.caption)
