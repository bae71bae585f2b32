"""attnviz.figures.layout: one measure of text width, and titles that fit the file they are drawn in."""

from attnviz import export, figures
from attnviz.figures import fonts, layout, text_fit
from attnviz.figures.text_fit import NOTE_SHARE, TITLE_SIZE, export_size, exported_title, text_width, title_width
from tests.support.maps import random_map, tokens_from


def test_a_label_is_measured_by_the_text_it_draws_in_the_figures_font():
    assert text_width("<i>Good &amp; morning</i>", 12) == fonts.text_width("Good & morning", 12)
    assert text_width("早上", TITLE_SIZE) == 2 * TITLE_SIZE  # a CJK glyph is one em
    assert title_width("ab<br><sup>早上</sup>") == int(max(text_width("ab", 16), 2 * 16 * NOTE_SHARE))


def test_exported_files_name_the_model_and_fit_their_title():
    assert exported_title("cross-attention<br><sup>links ≥ 0.1</sup>", "demo-zh-en") == (
        "cross-attention<br><sup>demo-zh-en · links ≥ 0.1</sup>"
    )
    assert exported_title("Heads", "demo-zh-en") == "Heads<br><sup>demo-zh-en</sup>"
    assert exported_title("Heads", None) == "Heads"
    assert title_width("交叉注意力") == 5 * 16 and title_width("ab<br>x") == int(text_width("ab", 16))
    long_note = "ab<br><sup>" + "x" * 99 + "</sup>"  # a note line wider than the title: the file makes room for it
    assert title_width(long_note) == int(text_width("x" * 99, 16 * NOTE_SHARE))
    long = "cross-attention · alignment heads · mean of L0·H1, L2·H3, L4·H5"
    width, height = export_size(long, 520, 380)
    assert width >= title_width(long) + 80 and height == 380
    assert export_size("short", 700, 400) == (700, 400)


def test_a_heatmap_at_a_papers_column_width_labels_every_key_readably():
    words = "我们 今天 在 学校 的 图书馆 里 一起 学习 注意力 机制 和 翻译 模型 。".split()
    amap = random_map(tokens_from(words), layers=1, heads=1)
    fig = text_fit.as_file(figures.heatmap(amap), "m")
    narrow, _ = layout.fit_to_width(fig, 336, None, fig.layout.height)  # 3.5 in: one column of a paper
    ticks = narrow.layout.meta["print_ticks"]
    assert ticks["keys"] == 15 and ticks["size"] >= layout.PRINT_TICK_FLOOR  # was "Key (4 of 15 labelled)"
    assert narrow.layout.xaxis.tickangle == -90 and narrow.data[0].colorbar.orientation == "h"
    assert layout.smallest_labels(narrow) == (ticks["size"], 15)  # the small-label check covers heatmaps too
    many = random_map(tokens_from([f"w{i}" for i in range(120)]), layers=1, heads=1)
    crowded, _ = layout.fit_to_width(text_fit.as_file(figures.heatmap(many), "m"), 336, None, 500)
    assert "of 120 labelled" in crowded.layout.xaxis.title.text  # what still does not fit is said


def test_a_files_layout_alone_gives_the_label_check_of_the_whole_file():
    words = [f"word{i}" for i in range(40)]
    warned = []
    for fig in (
        figures.alignment(random_map(tokens_from(words), layers=1, heads=1)),
        figures.heatmap(random_map(tokens_from(words))),
    ):
        whole, laid = text_fit.as_file(fig, "a-model-name"), text_fit.file_layout(fig, "a-model-name")
        assert not laid.data and laid.layout.to_plotly_json() == whole.layout.to_plotly_json()
        for options in ({}, {"preset": "single-column"}, {"width": 300, "height": 400}):
            said = [export.small_labels(drawn, **options) for drawn in (whole, laid)]
            whole_said, laid_said = (vars(one) if one is not None else None for one in said)  # size, tokens, width
            assert whole_said == laid_said
            warned.append(whole_said is not None)
    assert any(warned) and not all(warned)  # 40 labels in a paper's column are too small; at its own size, not


def test_the_label_check_without_a_layout_says_what_the_laid_out_file_says():
    cjk = "我们 今天 在 学校 的 图书馆 里 一起 学习 注意力 机制 和 翻译 模型 。".split()
    english = [f"word{i}" for i in range(40)]
    cross = random_map(tokens_from(english), tokens_from(cjk), layers=1, heads=1)
    square = random_map(tokens_from(cjk), layers=1, heads=1)
    made = [
        *(figures.alignment(random_map(tokens_from([f"w{i}" for i in range(n)]), layers=1, heads=1)) for n in (6, 40)),
        figures.alignment(random_map(tokens_from(cjk), tokens_from(cjk[::-1]), layers=1, heads=1)),
        figures.alignment(cross),
        figures.heatmap(square),
        figures.heatmap(cross),
    ]
    checked = set()
    for fig in (text_fit.as_file(f, "m") for f in made):
        own = fig.layout.width or 700
        sizes = {(width, height) for width in (200, 336, own, 1400) for height in (None, 300)}
        sizes |= {(own + 300, None), (700, 260), (200, 900)}  # wider than its own, short and wide, tall and narrow
        for width, height in sorted(sizes, key=str):
            laid, _ = layout.fit_to_width(fig, width, height, fig.layout.height or 500)
            said = layout.file_labels(fig, width, height)
            assert said == layout.smallest_labels(laid), (width, height)
            checked.add(said is not None and said[0] < layout.LABEL_SIZE)
    assert checked == {True, False}  # some files shrink their labels, some do not
