"""The notebook's words: the controls of `attnviz.explore`, in English and 中文."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "explore_kind": "Map",
        "explore_figure": "Figure",
        "explore_figure_heatmap": "heatmap",
        "explore_figure_alignment": "alignment links",
        "explore_figure_lines": "head lines",
        "explore_figure_grid": "every head",
    },
    "zh": {
        "explore_kind": "注意力图",
        "explore_figure": "图形",
        "explore_figure_heatmap": "热力图",
        "explore_figure_alignment": "对齐连线",
        "explore_figure_lines": "头连线图",
        "explore_figure_grid": "所有头",
    },
}
