"""The "Does it matter?" grid (figures.effect_grid): every head's effect written in its cell, a colour scale that
diverges from 0 and is symmetric around it, the metric named in the title in both languages, heads clickable."""

import numpy as np
import pytest

from attnviz import figures, i18n
from attnviz.errors import InputError

EFFECTS = np.array([[-1.25, 0.004, 0.0], [0.5, -0.02, np.nan]])  # (layers, heads): negative, positive, tiny, none


def test_every_cell_writes_its_effect_on_a_scale_centred_on_zero():
    fig = figures.effect_grid(EFFECTS, "log-prob", kind="cross")
    heat = fig.data[0]
    np.testing.assert_array_equal(np.asarray(heat.z, dtype=float), EFFECTS)
    assert [list(row) for row in heat.text] == [["-1.25", "4.0e-03", "0.00"], ["0.50", "-0.02", "–"]]
    assert heat.zmid == 0.0 and heat.zmin == -1.25 and heat.zmax == 1.25  # equal sizes, equal colours
    scale = dict(heat.colorscale)
    assert scale[0.5] in ("rgb(247,247,247)", "#f7f7f7")  # white at 0: neither sign
    assert fig.layout.meta["view"] == "effects" and fig.layout.meta["metric"] == "log-prob"
    assert (len(fig.layout.yaxis.tickvals), len(fig.layout.xaxis.tickvals)) == EFFECTS.shape


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("metric", ["log-prob", "cosine"])
def test_the_title_and_colour_bar_name_the_metric_in_the_page_language(lang, metric):
    fig = figures.effect_grid(EFFECTS, metric, style=figures.FigureStyle(lang=lang))
    key = metric.replace("-", "_")
    assert i18n.t(f"effects_figure_{key}", lang) in fig.layout.title.text
    assert fig.data[0].colorbar.title.text == i18n.t(f"effects_axis_{key}", lang)
    assert i18n.t("layer", lang) in fig.data[0].hovertemplate


def test_an_all_zero_grid_stays_white():
    heat = figures.effect_grid(np.zeros((2, 3)), "cosine").data[0]
    assert (heat.zmin, heat.zmax) == (-1.0, 1.0)


def test_every_head_is_a_click_target_naming_its_layer_and_head():
    clickable = figures.clickable_heads(figures.effect_grid(EFFECTS, "log-prob"))
    targets = clickable.data[1]
    pairs = {(int(layer), int(head)) for layer, head, _ in targets.customdata}
    assert pairs == {(layer, head) for layer in range(2) for head in range(3)}
    for layer, head, value in targets.customdata:
        assert value == pytest.approx(EFFECTS[int(layer), int(head)], nan_ok=True)


@pytest.mark.parametrize(
    "effects, metric, key",
    [(np.zeros(4), "log-prob", "effects_figure_shape"), (np.zeros((2, 2)), "kl", "effects_figure_metric")],
)
def test_bad_input_is_refused_with_its_reason(effects, metric, key):
    with pytest.raises(InputError) as raised:
        figures.effect_grid(effects, metric)
    assert raised.value.key == key
