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
        x = accelerators_axis(rows["total_accelerators"], _("Accelerators"), padding=X_PADDING)
        y = minutes_axis(lang, rows["score_minutes"])
        # One legend of the series (submitter and accelerator): the colour is the accelerator's (as in every
        # chart) unless another series of the same accelerator has it, the shape the series' own.
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
        # Each label takes the first place beside its point that covers no point, no line and no other label, on
        # every wide width (and, to stay on a phone, every narrow one); a label with no such place gives way.
        wide = place_labels(labelled, rows, WIDE_PLOT_WIDTHS)
        narrow = place_labels(labelled.loc[list(wide)], rows, NARROW_PLOT_WIDTHS, wide)
        labelled = labelled.loc[sorted(wide)].assign(
            placement=lambda r: [wide[i] for i in r.index],
            efficiency_label_narrow=lambda r: [t if i in narrow else "" for i, t in r["efficiency_label"].items()])
        # In the theme's text colour: a label in its series' colour is too faint to read (below 4.5:1).
        efficiency = [alt.Chart(labelled).transform_filter(alt.datum.placement == name).mark_text(
            fontSize=10, align=align, baseline=baseline, dx=dx, dy=dy).encode(x=x, y=y, text=alt.Text("efficiency_label:N"))
            for name, (align, baseline, dx, dy) in PLACEMENTS.items() if name in set(labelled["placement"])]
        chart = alt.layer(ideal, measured, points, *efficiency).properties(width="container", height=CHART_HEIGHT)
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
        given_way = " " + _("Labels that would cover a mark or another label are left out, the fastest "
                            "results' kept first; the table lists every one.")
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
# 10 px text, up to 7.5 px a character ("98%" is 22 px wide) and 12 px high, set beside its point (a 70 px² mark,
# 10 px across); the y scale spans CHART_HEIGHT less its padding; the x scale from 480 px on a wide chart (about
# 1,000 at most) and about 220 px on a 320 px phone. A place must be clear at each width listed.
LABEL_CHAR_PX = 7.5
LABEL_HEIGHT_PX = 12
POINT_HALF_PX = 5
X_PADDING = 40  # px beside the first and last scales: room for a label next to the smallest and largest run
WIDE_PLOT_WIDTHS = (WIDE_PLOT_PX, 720, 1000)
NARROW_PLOT_PX = 220
NARROW_PLOT_WIDTHS = (NARROW_PLOT_PX, 300)
# Where a label may sit: (align, baseline, dx, dy) from its point, the first clear one taken. Right of the point
# first: a series runs down to the right, so its own lines leave the upper right free.
PLACEMENTS = {"above-right": ("left", "bottom", 6, -3), "below-right": ("left", "top", 6, 3),
              "above-left": ("right", "bottom", -6, -3), "below-left": ("right", "top", -6, 3),
              "above": ("center", "bottom", 0, -7), "below": ("center", "top", 0, 7)}


def place_labels(labelled: pd.DataFrame, rows: pd.DataFrame, widths: tuple[float, ...],
                 placed: dict | None = None) -> dict:
    """index -> placement for the labels that find a clear place at every plot width, the fastest result's first;
    with `placed`, each label is tried at its given place only. The obstacles are every point, every line of a
    series (measured and ideal) and the labels already placed; a label also stays inside the plot."""
    plots = [_Plot(rows, width) for width in widths]
    chosen: dict = {}
    boxes: list[list[tuple]] = [[] for _ in plots]
    for index, row in labelled.sort_values(["score_minutes", "series"]).iterrows():
        for name in ([placed[index]] if placed else PLACEMENTS):
            found = [plot.label_box(row, row["efficiency_label"], PLACEMENTS[name]) for plot in plots]
            if all(plot.clear(box, taken) for plot, box, taken in zip(plots, found, boxes)):
                chosen[index] = name
                for taken, box in zip(boxes, found):
                    taken.append(box)
                break
    return chosen


class _Plot:
    """Where a row's marks fall on a log-log plot of one width (in px, y down), Vega's scale padding included."""

    def __init__(self, rows: pd.DataFrame, width: float):
        x_values, y_values = rows["total_accelerators"], pd.concat([rows["score_minutes"], rows["ideal_minutes"]])
        self.width, self.height = width, CHART_HEIGHT
        self.x_low, self.x_span = math.log10(x_values.min()), math.log10(x_values.max() / x_values.min())
        self.y_high, self.y_span = math.log10(y_values.max()), math.log10(y_values.max() / y_values.min())
        # the obstacles: every point's box, and every segment of each series' measured and ideal lines
        self.points = [(x - POINT_HALF_PX, y - POINT_HALF_PX, x + POINT_HALF_PX, y + POINT_HALF_PX)
                       for x, y in (self.at(a, m) for a, m in zip(x_values, rows["score_minutes"]))]
        self.segments = []
        for _series, group in rows.sort_values("total_accelerators").groupby("series", sort=True):
            for field in ("score_minutes", "ideal_minutes"):
                line = [self.at(a, m) for a, m in zip(group["total_accelerators"], group[field])]
                self.segments += list(zip(line, line[1:]))

    def at(self, accelerators: float, minutes: float) -> tuple[float, float]:
        x = X_PADDING + (math.log10(accelerators) - self.x_low) / self.x_span * (self.width - 2 * X_PADDING) \
            if self.x_span > 0 else self.width / 2
        y = SCALE_PADDING + (self.y_high - math.log10(minutes)) / self.y_span * (self.height - 2 * SCALE_PADDING) \
            if self.y_span > 0 else self.height / 2
        return x, y

    def label_box(self, row, text: str, placement: tuple) -> tuple[float, float, float, float]:
        align, baseline, dx, dy = placement
        x, y = self.at(row["total_accelerators"], row["score_minutes"])
        width = len(text) * LABEL_CHAR_PX
        left = {"left": x + dx, "right": x + dx - width, "center": x - width / 2}[align]
        top = y + dy - LABEL_HEIGHT_PX if baseline == "bottom" else y + dy
        return left, top, left + width, top + LABEL_HEIGHT_PX

    def clear(self, box: tuple, taken: list[tuple]) -> bool:
        left, top, right, bottom = box
        return (left >= 0 and top >= 0 and right <= self.width and bottom <= self.height
                and not any(_overlap(box, other) for other in (*taken, *self.points))
                and not any(_crosses(box, a, b) for a, b in self.segments))


def _overlap(a: tuple, b: tuple) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0 and min(a[3], b[3]) - max(a[1], b[1]) > 0


def _crosses(box: tuple, a: tuple, b: tuple) -> bool:
    """Whether the segment a-b passes through the box (sampled every pixel or so: a 1.5 px line)."""
    steps = max(2, int(math.hypot(b[0] - a[0], b[1] - a[1])))
    left, top, right, bottom = box[0] - 1, box[1] - 1, box[2] + 1, box[3] + 1
    return any(left <= a[0] + (b[0] - a[0]) * t / steps <= right and top <= a[1] + (b[1] - a[1]) * t / steps <= bottom
               for t in range(steps + 1))
