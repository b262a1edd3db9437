"""The scaling showcase: one benchmark's time to train against accelerators, per submitter and accelerator."""

from __future__ import annotations

import math

import pandas as pd
from slugify import slugify

from site_builder import metrics
from site_builder.charts.base import (
    WIDE_PLOT_PX,
    CHART_HEIGHT,
    SCALE_PADDING,
    ChartDraft,
    ChartFactory,
    ChartInputs,
    Column,
    NoData,
    accelerators_axis,
    extremes,
    minutes_axis,
    narrow_variant,
    result_columns,
    result_tooltip,
    short_minutes,
)
from site_builder.charts.lazy_altair import alt
from site_builder.hardware import SHAPES
from site_builder.i18n import Language


def scaling_chart_id(benchmark: str) -> str:
    return "scaling-" + slugify(benchmark)


def scaling(benchmark: str) -> ChartFactory:
    def build(inputs: ChartInputs, lang: Language) -> ChartDraft:
        _ = lang.gettext
        entries = inputs.current[inputs.current["benchmark"] == benchmark]
        series = metrics.scaling_series(inputs.current, benchmark)
        if series.empty:
            raise NoData(f"no result of benchmark '{benchmark}' has a score in {inputs.round}")
        name = inputs.benchmark_name(benchmark)
        rows = series[["series", "submitter", "system_id", "system", "accelerator", "total_accelerators",
                       "score_minutes", "ideal_minutes", "efficiency_vs_previous",
                       "score_source"]].reset_index(drop=True)
        x = accelerators_axis(rows["total_accelerators"], _("Accelerators"))
        y = minutes_axis(lang, rows["score_minutes"])
        # One legend of the series (submitter and accelerator): the colour is the accelerator's (as in every
        # chart), the shape the series' own, so that no two series differ by colour alone.
        series_names = sorted(set(rows["series"]))
        accelerator_of = dict(zip(rows["series"], rows["accelerator"]))
        legend = alt.Legend(orient="bottom", columns=2, titleLimit=400)
        title = _("Submitter · accelerator")
        colour = alt.Color("series:N", title=title, legend=legend, scale=alt.Scale(
            domain=series_names, range=inputs.hardware.colours(accelerator_of[s] for s in series_names)))
        shape = alt.Shape("series:N", title=title, legend=legend, scale=alt.Scale(
            domain=series_names, range=[SHAPES[i % len(SHAPES)] for i in range(len(series_names))]))
        # Written here in the reader's language: a series' first point has no previous one (Vega would say "null").
        shown = rows.assign(efficiency_text=[lang.percent(v, 1) if pd.notna(v) else
                                             _("not applicable: the first point of its series")
                                             for v in rows["efficiency_vs_previous"]])
        tooltip = result_tooltip(lang, [alt.Tooltip("efficiency_text:N",
                                                    title=_("Scaling efficiency vs the previous point"))])
        base = alt.Chart(shown)
        ideal = base.mark_line(strokeDash=[4, 4]).encode(
            x=x, y=alt.Y("ideal_minutes:Q", scale=alt.Scale(type="log")), color=colour, detail=alt.Detail("series:N"))
        measured = base.mark_line().encode(
            x=x, y=y, color=colour, detail=alt.Detail("series:N"), tooltip=tooltip)
        points = base.mark_point(size=70, filled=True).encode(x=x, y=y, color=colour, shape=shape, tooltip=tooltip)
        labelled = rows[rows["efficiency_vs_previous"].notna()].assign(
            efficiency_label=lambda r: [lang.percent(v, 0) for v in r["efficiency_vs_previous"]])
        # Labels that would overlap give way, on a wide chart and (more of them) on a narrow one.
        y_values = pd.concat([rows["score_minutes"], rows["ideal_minutes"]])
        wide = labels_apart(labelled, rows["total_accelerators"], y_values, WIDE_PLOT_PX)
        narrow = labels_apart(labelled, rows["total_accelerators"], y_values, NARROW_PLOT_PX)
        labelled = labelled.loc[sorted(set(wide.index) | set(narrow.index))].assign(
            efficiency_label_narrow=lambda r: [t if i in narrow.index else ""
                                               for i, t in r["efficiency_label"].items()],
            efficiency_label=lambda r: [t if i in wide.index else "" for i, t in r["efficiency_label"].items()])
        # In the theme's text colour: a label in its series' colour is too faint to read (below 4.5:1).
        efficiency = alt.Chart(labelled).mark_text(dy=-12, fontSize=10).encode(
            x=x, y=y, text=alt.Text("efficiency_label:N"))
        chart = alt.layer(ideal, measured, points, efficiency).properties(width="container", height=CHART_HEIGHT)
        summary = [_("%(count)s scored %(benchmark)s results, from %(low)s to %(high)s accelerators.") % {
            "count": lang.number(len(rows)), "benchmark": name,
            "low": lang.number(int(rows["total_accelerators"].min())),
            "high": lang.number(int(rows["total_accelerators"].max()))}, extremes(lang, rows)]
        # The key comparison: the series that holds the fastest result, from its smallest to its largest run.
        fastest_series = rows.sort_values(["score_minutes", "submitter"]).iloc[0]["series"]
        group = series[series["series"] == fastest_series]
        if len(group) > 1:
            small, large = group.iloc[0], group.iloc[-1]
            summary.append(_("From %(small)s to %(large)s accelerators, %(series)s went from %(t_small)s to "
                             "%(t_large)s minutes: %(speedup)s× faster with %(factor)s× the accelerators, a scaling "
                             "efficiency of %(efficiency)s.") % {
                "small": lang.number(int(small["total_accelerators"])),
                "large": lang.number(int(large["total_accelerators"])),
                "series": small["series"], "t_small": lang.number(small["score_minutes"], 2),
                "t_large": lang.number(large["score_minutes"], 2),
                "speedup": lang.number(small["score_minutes"] / large["score_minutes"], 2),
                "factor": lang.number(round(large["total_accelerators"] / small["total_accelerators"], 2)),
                "efficiency": lang.percent(metrics.scaling_efficiency(small, large))})
        description = _("Each line is one submitter and accelerator; points are scored results, lower is faster.")
        columns = result_columns(lang, Column("efficiency_vs_previous", _("Scaling efficiency vs the previous point"),
                                              "percent"))
        subtitle = _("Log-log scales. Dashed: ideal linear scaling from each series' smallest run. "
                     "Labels: scaling efficiency against the previous point.")
        given_way = " " + _("Where labels would overlap, only the fastest result's is shown; the table "
                            "lists every one.")
        every_label = len(rows["efficiency_vs_previous"].dropna())
        narrow_subtitle = subtitle + (given_way if len(narrow) < every_label else "")
        subtitle += given_way if len(wide) < every_label else ""
        return ChartDraft(chart, _("%(benchmark)s scaling") % {"benchmark": name},
                          _("%(benchmark)s: time to train against number of accelerators") % {"benchmark": name},
                          subtitle, description, rows, len(entries) - len(series), len(entries), summary, columns,
                          narrow=narrow_variant(short_minutes(lang),
                                                fields={"efficiency_label": "efficiency_label_narrow"},
                                                subtitle=narrow_subtitle if narrow_subtitle != subtitle else ""))

    return build


# Estimated drawn sizes, for a choice Vega-Lite does not make (it never moves text that collides): a label is
# 10 px text, up to 7.5 px a character ("98%" is 22 px wide) and 12 px high, centred 12 px above its point; the
# y scale spans CHART_HEIGHT less its padding; the x scale at least 480 px on a wide chart, about 220 px on a
# 320 px phone.
LABEL_CHAR_PX = 7.5
LABEL_HEIGHT_PX = 12
NARROW_PLOT_PX = 220


def labels_apart(labelled: pd.DataFrame, x_values: pd.Series, y_values: pd.Series, plot_width: float) -> pd.DataFrame:
    """The labels that do not overlap one another on a plot `plot_width` px wide, the fastest result's first:
    a label that would overlap one already kept gives way (the table and tooltips still have it)."""
    def px_per_unit(values: pd.Series, extent: float) -> float:
        span = math.log10(values.max()) - math.log10(values.min())
        return (extent - 2 * SCALE_PADDING) / span if span > 0 else 0.0

    x_scale, y_scale = px_per_unit(x_values, plot_width), px_per_unit(y_values, CHART_HEIGHT)
    kept: list[tuple[float, float, float]] = []  # x, y, half width
    keep = []
    for index, row in labelled.sort_values(["score_minutes", "series"]).iterrows():
        x = math.log10(row["total_accelerators"]) * x_scale
        y = math.log10(row["score_minutes"]) * y_scale
        half = len(row["efficiency_label"]) * LABEL_CHAR_PX / 2
        if all(abs(x - ox) >= half + other_half or abs(y - oy) >= LABEL_HEIGHT_PX for ox, oy, other_half in kept):
            kept.append((x, y, half))
            keep.append(index)
    return labelled.loc[sorted(keep)]
