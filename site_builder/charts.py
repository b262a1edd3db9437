"""The chart catalog: Altair charts with explicit channel classes, localized, validated.

Each catalog entry is a function from (data, language) to a `ChartDraft`; `build_charts` adds the
language's number and time locale, validates the Vega-Lite spec and returns frozen `Chart`s.
Chart ids are part of the public URL scheme (charts/<lang>/<id>.vl.json): never rename one.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Callable

import altair as alt
import pandas as pd
from slugify import slugify

from site_builder import metrics
from site_builder.data import Dataset
from site_builder.i18n import Language

VENDOR_COLORS = {"NVIDIA": "#3f7f00", "AMD": "#c8102e"}
CHART_HEIGHT = 300


@dataclass(frozen=True)
class ChartDraft:
    chart: alt.TopLevelMixin
    title: str
    description: str
    rows: pd.DataFrame  # the plotted rows, with their sources
    unscored: int  # results of the chart's scope that have no score and are left out of the marks


@dataclass(frozen=True)
class Chart:
    id: str
    lang: str
    title: str
    description: str
    spec: dict
    rows: pd.DataFrame
    unscored: int


@dataclass(frozen=True)
class ChartInputs:
    dataset: Dataset
    round: str
    previous_round: str

    @property
    def current(self) -> pd.DataFrame:
        return self.dataset.round(self.round)

    def benchmark_name(self, benchmark_id: str) -> str:
        return str(self.dataset.benchmarks.loc[benchmark_id, "name"])


ChartFactory = Callable[[ChartInputs, Language], ChartDraft]


def _title(text: str, subtitle: str) -> alt.TitleParams:
    """Titles as short lines: Vega does not wrap text, and a long title squeezes the plot to nothing
    on a phone (charts are sized to their container)."""
    return alt.TitleParams(textwrap.wrap(text, 38), subtitle=textwrap.wrap(subtitle, 46), anchor="start")


def _tick_values(values: pd.Series) -> list[int]:
    return sorted({int(v) for v in values})


def _log_ticks(values: pd.Series) -> list[float]:
    """1-2-5 ticks spanning the values: readable labels on a log axis of minutes."""
    low, high = float(values.min()), float(values.max())
    ticks, decade = [], 0.01
    while decade <= high * 10:
        ticks += [m * decade for m in (1, 2, 5) if low / 1.5 <= m * decade <= high * 1.5]
        decade *= 10
    return [round(t, 2) for t in ticks]


def deepseek_scaling(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    benchmark = "deepseekv3_671b"
    entries = inputs.current[inputs.current["benchmark"] == benchmark]
    series = metrics.scaling_series(inputs.current, benchmark)
    rows = series[["series", "submitter", "system_id", "accelerator", "total_accelerators", "score_minutes",
                   "ideal_minutes", "efficiency_vs_previous", "score_source"]].reset_index(drop=True)
    gpus = _("GPUs")
    minutes = _("Time to train (minutes)")
    x = alt.X("total_accelerators:Q", title=gpus,
              scale=alt.Scale(type="log", base=2, nice=False, padding=12),
              axis=alt.Axis(values=_tick_values(rows["total_accelerators"]), format=",d", labelAngle=0, labelOverlap="greedy"))
    y = alt.Y("score_minutes:Q", title=minutes, scale=alt.Scale(type="log", nice=False, padding=12),
              axis=alt.Axis(values=_log_ticks(rows["score_minutes"]), format=",.1~f"))
    color = alt.Color("series:N", title=_("Submitter · accelerator"),
                      legend=alt.Legend(orient="bottom", columns=2))
    tooltip = [alt.Tooltip("submitter:N", title=_("Submitter")),
               alt.Tooltip("system_id:N", title=_("System")),
               alt.Tooltip("total_accelerators:Q", title=gpus, format=",d"),
               alt.Tooltip("score_minutes:Q", title=minutes, format=",.4f"),
               alt.Tooltip("efficiency_vs_previous:Q", title=_("Scaling efficiency vs the previous point"),
                           format=".1%")]
    base = alt.Chart(rows)
    ideal = base.mark_line(strokeDash=[4, 4], opacity=0.6).encode(
        x=x, y=alt.Y("ideal_minutes:Q", scale=alt.Scale(type="log")), color=color,
        detail=alt.Detail("series:N"))
    measured = base.mark_line(point=alt.OverlayMarkDef(size=60, filled=True)).encode(
        x=x, y=y, color=color, tooltip=tooltip)
    chart = alt.layer(ideal, measured).properties(
        title=_title(_("DeepSeek-V3 671B: time to train against number of GPUs"),
                     _("Log-log scales. Dashed: ideal linear scaling from each series' smallest run.")),
        width="container", height=CHART_HEIGHT)
    description = _("Each line is one submitter and accelerator; points are scored results, lower is faster.")
    return ChartDraft(chart, _("DeepSeek-V3 scaling"), description, rows, len(entries) - len(series))


def fastest_per_benchmark(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    order = list(inputs.dataset.benchmarks.index)
    fastest = metrics.fastest_per_benchmark(inputs.current, [b for b in order if b in set(inputs.current["benchmark"])])
    plotted = fastest[fastest["score_minutes"].notna()].copy()
    plotted["benchmark_name"] = [inputs.benchmark_name(b) for b in plotted["benchmark"]]
    plotted["label"] = [f"{s} · {lang.number(int(n))} × {a}" for s, n, a in
                        zip(plotted["submitter"], plotted["total_accelerators"], plotted["accelerator"])]
    rows = plotted[["benchmark", "benchmark_name", "score_minutes", "submitter", "system_id", "accelerator",
                    "accelerator_vendor", "total_accelerators", "label", "score_source"]].reset_index(drop=True)
    minutes = _("Time to train (minutes)")
    y = alt.Y("benchmark_name:N", title=None, sort=alt.EncodingSortField("score_minutes", order="ascending"))
    x = alt.X("score_minutes:Q", title=minutes + " " + _("(log scale)"),
              scale=alt.Scale(type="log", nice=False, padding=16),
              axis=alt.Axis(values=_log_ticks(rows["score_minutes"]), format=",.1~f"))
    color = alt.Color("accelerator_vendor:N", title=_("Accelerator vendor"),
                      scale=alt.Scale(domain=list(VENDOR_COLORS), range=list(VENDOR_COLORS.values())),
                      legend=alt.Legend(orient="bottom"))
    tooltip = [alt.Tooltip("benchmark_name:N", title=_("Benchmark")),
               alt.Tooltip("score_minutes:Q", title=minutes, format=",.4f"),
               alt.Tooltip("submitter:N", title=_("Submitter")),
               alt.Tooltip("system_id:N", title=_("System")),
               alt.Tooltip("total_accelerators:Q", title=_("Accelerators"), format=",d"),
               alt.Tooltip("accelerator:N", title=_("Accelerator"))]
    base = alt.Chart(rows)
    dots = base.mark_point(filled=True, size=90).encode(x=x, y=y, color=color, tooltip=tooltip)
    # Labels sit above their dot, turned leftwards in the right half so they stay inside the plot.
    middle = (rows["score_minutes"].min() * rows["score_minutes"].max()) ** 0.5 if len(rows) else 1
    labels = base.mark_text(align=alt.ExprRef(f"datum.score_minutes > {middle:.6g} ? 'right' : 'left'"),
                            baseline="bottom", dy=-7, fontSize=11).encode(x=x, y=y, text=alt.Text("label:N"))
    chart = alt.layer(dots, labels).properties(
        title=_title(_("Fastest known result per benchmark"),
                     _("Minutes to train, lower is faster; label: submitter · accelerators.")),
        width="container", height=max(160, 44 * len(rows)))
    description = _("The fastest scored result of each benchmark in the round, with its system and scale.")
    unscored = int(fastest["score_minutes"].isna().sum())
    return ChartDraft(chart, _("Fastest result per benchmark"), description, rows, unscored)


def benchmark_results(benchmark: str) -> ChartFactory:
    """Every scored result of one benchmark: time to train against accelerators, by accelerator type."""

    def build(inputs: ChartInputs, lang: Language) -> ChartDraft:
        _ = lang.gettext
        entries = inputs.current[inputs.current["benchmark"] == benchmark]
        plotted = metrics.scored(entries)
        rows = plotted[["submitter", "system_id", "accelerator", "accelerator_vendor", "total_accelerators",
                        "score_minutes", "score_source"]].sort_values(
            ["total_accelerators", "score_minutes", "submitter", "system_id"]).reset_index(drop=True)
        minutes = _("Time to train (minutes)")
        name = inputs.benchmark_name(benchmark)
        x = alt.X("total_accelerators:Q", title=_("Accelerators"),
                  scale=alt.Scale(type="log", base=2, nice=False, padding=12),
                  axis=alt.Axis(values=_tick_values(rows["total_accelerators"]), format=",d", labelAngle=0, labelOverlap="greedy"))
        y = alt.Y("score_minutes:Q", title=minutes, scale=alt.Scale(type="log", nice=False, padding=12),
                  axis=alt.Axis(values=_log_ticks(rows["score_minutes"]) if len(rows) else alt.Undefined,
                                format=",.1~f"))
        chart = alt.Chart(rows).mark_point(filled=True, size=80, opacity=0.85).encode(
            x=x, y=y,
            color=alt.Color("accelerator:N", title=_("Accelerator"), legend=alt.Legend(orient="bottom", columns=3)),
            tooltip=[alt.Tooltip("submitter:N", title=_("Submitter")),
                     alt.Tooltip("system_id:N", title=_("System")),
                     alt.Tooltip("accelerator:N", title=_("Accelerator")),
                     alt.Tooltip("total_accelerators:Q", title=_("Accelerators"), format=",d"),
                     alt.Tooltip("score_minutes:Q", title=minutes, format=",.4f")],
        ).properties(
            title=_title(_("%(benchmark)s: scored results") % {"benchmark": name},
                         _("Time to train against accelerators, log scales; lower is faster.")),
            width="container", height=CHART_HEIGHT)
        description = _("Every scored result of the benchmark, by number and type of accelerators.")
        return ChartDraft(chart, _("%(benchmark)s results") % {"benchmark": name}, description, rows,
                          len(entries) - len(plotted))

    return build


def benchmark_chart_id(benchmark: str) -> str:
    return "results-" + slugify(benchmark)


def catalog(inputs: ChartInputs) -> dict[str, ChartFactory]:
    """Chart id -> factory, in display order."""
    charts: dict[str, ChartFactory] = {
        "deepseek-scaling": deepseek_scaling,
        "fastest-per-benchmark": fastest_per_benchmark,
    }
    for benchmark in inputs.dataset.benchmarks.index:
        if benchmark in set(inputs.current["benchmark"]):
            charts[benchmark_chart_id(benchmark)] = benchmark_results(benchmark)
    return charts


def localize(chart: alt.TopLevelMixin, lang: Language) -> dict:
    """Final, validated Vega-Lite spec with the language's d3 number and time locale."""
    padded = chart.properties(padding={"top": 12, "right": 12, "bottom": 6, "left": 6})
    configured = padded.configure(locale=alt.Locale(number=lang.d3_format_locale(), time=lang.d3_time_locale()),
                                 autosize=alt.AutoSizeParams(type="fit-x", contains="padding"),
                                 font="system-ui, sans-serif")
    return configured.to_dict(validate=True)


def build_charts(inputs: ChartInputs, languages: list[Language]) -> list[Chart]:
    built = []
    for chart_id, factory in catalog(inputs).items():
        for lang in languages:
            draft = factory(inputs, lang)
            built.append(Chart(chart_id, lang.code, draft.title, draft.description, localize(draft.chart, lang),
                               draft.rows, draft.unscored))
    return built
