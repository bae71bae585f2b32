"""A corpus report's figures (for report.html and the Corpus page alike) and the standalone HTML file.

`report_figures(report, lang)`: per map kind, a layer × head map of every head statistic's corpus mean; with gold
links, the AER, precision and recall maps (`figures.score_grid`) and AER per layer. `write_html` writes them with
the best heads, the worst pairs (each a link into the app) and the bad lines into one file that needs no network
(plotly.js is embedded once).
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np

from attnviz import figures, i18n
from attnviz.corpus.report import bad_lines_in, links_sentences, read_report, unread_sentences

WORST = 20  # pairs listed in the HTML report


def head_grid(heads, kind: str, column: str) -> np.ndarray:
    """A column of heads.parquet as a (layers, heads) array for one map kind."""
    part = heads[heads["kind"] == kind]
    grid = np.full((int(part["layer"].max()) + 1, int(part["head"].max()) + 1), np.nan)
    grid[part["layer"].to_numpy(), part["head"].to_numpy()] = part[column].to_numpy(dtype=np.float64)
    return grid


def report_figures(report: dict, lang: str = "en") -> dict:
    """name → plotly Figure of a report (`report.read_report`)."""
    import plotly.graph_objects as go  # plotly: only where figures are drawn

    heads, summary = report["heads"], report["summary"]
    style = figures.FigureStyle(lang=lang)
    drawn = {}
    for kind in summary["kinds"]:
        for name in summary["statistics"]:
            values = {name: head_grid(heads, kind, f"{name}_mean")}
            if np.isfinite(values[name]).any():
                drawn[f"{kind}.{name}"] = figures.statistic_grid(values=values, statistic=name, kind=kind, style=style)
    if "aer" in heads.columns and "cross" in summary["kinds"]:
        for name in ("aer", "precision", "recall"):
            drawn[f"gold.{name}"] = figures.score_grid(head_grid(heads, "cross", name), name, style=style)
        layers = report["layers"]
        cross = layers[layers["kind"] == "cross"]
        line = go.Figure(go.Scatter(x=cross["layer"], y=cross["aer"], mode="lines+markers"))
        line.update_layout(
            **style.layout(i18n.t("corpus_layer_aer_title", lang), 520, 320, meta=dict(view="layer_aer")),
            xaxis=dict(title=dict(text=i18n.t("corpus_fig_layer", lang)), dtick=1),
            yaxis=dict(title=dict(text=i18n.t("corpus_stat_aer", lang)), range=[0, 1]),
        )
        drawn["gold.layers"] = line
    return drawn


def _table(rows: list[dict], columns: list[str], links: str | None = None) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = []
    for row in rows:
        cells = []
        for c in columns:
            value = row.get(c, "")
            text = f"{value:.3f}" if isinstance(value, float) else str(value)
            cell = html.escape(text)
            if links and c == "source" and row.get(links):
                cell = f'<a href="{html.escape(row[links])}">{cell}</a>'
            cells.append(f"<td>{cell}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def faithfulness_table(found: dict, lang: str = "en") -> list[str]:
    """The report's faithfulness part: each measure's mean margin above random order, comprehensiveness and
    sufficiency per baseline, best first, and how many pairs' scores decide ([] when the job did not score it)."""
    if not found:
        return []
    means = found["means"]
    baselines = list(next(iter(means.values())))
    ranked = sorted((m for m in means if m != "random"), key=lambda m: -sum(means[m][b]["margin"] for b in baselines))
    rows = []
    for measure in [*ranked, "random"]:
        row = {"measure": i18n.t(f"faithfulness_measure.{measure}", lang)}
        for baseline in baselines:
            for score in ("margin", "comprehensiveness", "sufficiency"):
                row[f"{baseline} · {score}"] = f"{means[measure][baseline][score]:.3f}"
        rows.append(row)
    said = i18n.t("corpus_faithfulness_note", lang, share=f"{found['decides']:.0%}")
    return [
        f"<h2>{html.escape(i18n.t('faithfulness_title', lang))}</h2>",
        f"<p>{html.escape(said)}</p>",
        _table(rows, list(rows[0])),
    ]


def write_html(folder: Path, summary: dict, lang: str = "en") -> Path:
    """report.html in `folder`, from the tables already written there."""
    report = read_report(folder)
    t = lambda key, **values: i18n.t(key, lang, **values)  # noqa: E731
    counts = t("corpus_report_counts", pairs=summary["pairs"], bad=summary["bad_lines"], shards=summary["shards"])
    parts = [
        f"<h1>{html.escape(t('corpus_report_title', model=summary['model']))}</h1>",
        f"<p>{html.escape(counts)}</p>",
    ]
    parts += [f"<p><strong>{html.escape(sentence)}</strong></p>" for sentence in unread_sentences(summary, lang)]
    parts += [f"<p>{html.escape(sentence)}</p>" for sentence in links_sentences(summary, lang)]
    for index, (name, fig) in enumerate(report_figures(report, lang).items()):
        parts.append(fig.to_html(full_html=False, include_plotlyjs=index == 0, div_id=f"fig-{name}"))
    if summary["best_heads"]:
        parts += [
            f"<h2>{t('corpus_best_heads')}</h2>",
            _table(summary["best_heads"], ["layer", "head", "aer", "precision", "recall"]),
        ]
    parts += faithfulness_table(summary.get("faithfulness") or {}, lang)
    pairs = report["pairs"]
    if "aer" in pairs.columns and len(pairs):
        worst = pairs.sort_values(["aer", "line"], ascending=[False, True]).head(WORST).to_dict("records")
        parts += [
            f"<h2>{t('corpus_worst_pairs')}</h2>",
            _table(worst, ["line", "source", "target", "aer", "best_layer", "best_head"], links="link"),
        ]
    bad = report["bad_lines"]
    if len(bad):
        parts += [
            f"<h2>{t('corpus_bad_lines', count=len(bad))}</h2>",
            _table(bad_lines_in(bad, lang).to_dict("records"), ["line", "message", "text"]),
        ]
    style = "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}"
    page = (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>attnviz corpus report</title>'
        f"<style>{style}</style></head><body>{''.join(parts)}</body></html>"
    )
    path = Path(folder) / "report.html"
    path.write_text(page, encoding="utf-8")
    return path
