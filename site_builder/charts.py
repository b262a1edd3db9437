"""The chart catalog: Altair charts with explicit channel classes, localized, validated.

Each catalog entry is a function from (data, language) to a `ChartDraft`: the Altair chart, its
translated title, the plotted rows with their sources, a text alternative written from the data,
and the columns of its data table. `build_charts` adds the language's number and time locale,
validates the Vega-Lite spec and returns frozen `Chart`s.
Chart ids are part of the public URL scheme (charts/<lang>/<id>.vl.json): never rename one.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Callable

import altair as alt
import pandas as pd
from slugify import slugify

from site_builder import metrics
from site_builder.data import Dataset
from site_builder.i18n import Language

VENDOR_COLORS = {"NVIDIA": "#3f7f00", "AMD": "#c8102e"}
CHART_HEIGHT = 300
# Browsers take the system font; vl-convert (static SVG, PNG) knows no "system-ui" and needs a named face.
CHART_FONT = "system-ui, -apple-system, Segoe UI, Roboto, DejaVu Sans, Liberation Sans, Arial, sans-serif"
SINGLE_NODE_BENCHMARKS = ["llama31_8b", "llama2_70b_lora", "gpt_oss_20b"]
AMD_VS_NVIDIA_BENCHMARKS = ["llama2_70b_lora", "llama31_8b"]


@dataclass(frozen=True)
class Column:
    """A column of a chart's data table: `kind` picks the format (text, source, int, minutes, percent, ratio)."""

    field: str
    label: str
    kind: str = "text"


@dataclass(frozen=True)
class ChartDraft:
    chart: alt.TopLevelMixin
    title: str
    description: str
    rows: pd.DataFrame  # the plotted rows, with their sources
    unscored: int  # results of the chart's scope that have no score and are left out of the marks
    summary: list[str] = field(default_factory=list)  # text alternative, sentence by sentence
    columns: list[Column] = field(default_factory=list)


@dataclass(frozen=True)
class Chart:
    id: str
    lang: str
    title: str
    description: str
    spec: dict
    rows: pd.DataFrame
    unscored: int
    summary: tuple[str, ...]
    columns: tuple[Column, ...]

    @property
    def path(self) -> str:
        return f"{self.lang}/charts/{self.id}/index.html"


@dataclass(frozen=True)
class ChartInputs:
    dataset: Dataset
    round: str
    previous_round: str

    @property
    def current(self) -> pd.DataFrame:
        return self.dataset.round(self.round)

    @property
    def previous(self) -> pd.DataFrame:
        return self.dataset.round(self.previous_round)

    def benchmark_name(self, benchmark_id: str) -> str:
        return str(self.dataset.benchmarks.loc[benchmark_id, "name"])

    def round_benchmarks(self) -> list[str]:
        return self.dataset.benchmarks_in(self.round)


ChartFactory = Callable[[ChartInputs, Language], ChartDraft]


def _title(text: str, subtitle: str) -> alt.TitleParams:
    """Titles as short lines: Vega does not wrap text, and a long title squeezes the plot to nothing
    on a phone (charts are sized to their container)."""
    return alt.TitleParams(textwrap.wrap(text, 38), subtitle=textwrap.wrap(subtitle, 40), anchor="start")


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


def _minutes_axis(lang: Language, values: pd.Series, title: str | None = None, field_name: str = "score_minutes",
                  channel=alt.Y) -> alt.X | alt.Y:
    _ = lang.gettext
    return channel(f"{field_name}:Q", title=title or _("Time to train (minutes)"),
                   scale=alt.Scale(type="log", nice=False, padding=12),
                   axis=alt.Axis(values=_log_ticks(values) if len(values) else alt.Undefined, format=",.1~f",
                                 labelOverlap="greedy"))


def _accelerators_axis(lang: Language, values: pd.Series, title: str) -> alt.X:
    return alt.X("total_accelerators:Q", title=title, scale=alt.Scale(type="log", base=2, nice=False, padding=12),
                 axis=alt.Axis(values=_tick_values(values), format=",d", labelAngle=0, labelOverlap="greedy"))


def _vendor_color(lang: Language) -> alt.Color:
    return alt.Color("accelerator_vendor:N", title=lang.gettext("Accelerator vendor"),
                     scale=alt.Scale(domain=list(VENDOR_COLORS), range=list(VENDOR_COLORS.values())),
                     legend=alt.Legend(orient="bottom"))


def _result_tooltip(lang: Language, extra: list | None = None) -> list[alt.Tooltip]:
    _ = lang.gettext
    return [alt.Tooltip("submitter:N", title=_("Submitter")),
            alt.Tooltip("system_id:N", title=_("System")),
            alt.Tooltip("accelerator:N", title=_("Accelerator")),
            alt.Tooltip("total_accelerators:Q", title=_("Accelerators"), format=",d"),
            alt.Tooltip("score_minutes:Q", title=_("Time to train (minutes)"), format=",.4f"),
            *(extra or [])]


def _result_columns(lang: Language, *extra: Column) -> list[Column]:
    _ = lang.gettext
    return [Column("submitter", _("Submitter")), Column("system_id", _("System")),
            Column("accelerator", _("Accelerator")), Column("total_accelerators", _("Accelerators"), "int"),
            Column("score_minutes", _("Minutes"), "minutes"), *extra, Column("score_source", _("Source"), "source")]


def _counted_from(round_name: str) -> str:
    """Source of a row that counts results rather than quoting one."""
    return f"count of all {round_name} results in data/rounds/{round_name}/results.csv"


def _who(lang: Language, row) -> str:
    return lang.gettext("%(submitter)s, %(count)s × %(accelerator)s") % {
        "submitter": row["submitter"], "count": lang.number(int(row["total_accelerators"])),
        "accelerator": row["accelerator"]}


def _extremes(lang: Language, rows: pd.DataFrame) -> str:
    fastest = rows.sort_values(["score_minutes", "submitter"]).iloc[0]
    slowest = rows.sort_values(["score_minutes", "submitter"]).iloc[-1]
    return lang.gettext("Fastest: %(fast)s minutes (%(fast_who)s); slowest: %(slow)s minutes (%(slow_who)s).") % {
        "fast": lang.number(fastest["score_minutes"], 2), "fast_who": _who(lang, fastest),
        "slow": lang.number(slowest["score_minutes"], 2), "slow_who": _who(lang, slowest)}


def deepseek_scaling(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    benchmark = "deepseekv3_671b"
    entries = inputs.current[inputs.current["benchmark"] == benchmark]
    series = metrics.scaling_series(inputs.current, benchmark)
    rows = series[["series", "submitter", "system_id", "accelerator", "total_accelerators", "score_minutes",
                   "ideal_minutes", "efficiency_vs_previous", "score_source"]].reset_index(drop=True)
    gpus = _("GPUs")
    x = _accelerators_axis(lang, rows["total_accelerators"], gpus)
    y = _minutes_axis(lang, rows["score_minutes"])
    color = alt.Color("series:N", title=_("Submitter · accelerator"), legend=alt.Legend(orient="bottom", columns=2))
    tooltip = _result_tooltip(lang, [alt.Tooltip("efficiency_vs_previous:Q",
                                                 title=_("Scaling efficiency vs the previous point"), format=".1%")])
    base = alt.Chart(rows)
    ideal = base.mark_line(strokeDash=[4, 4], opacity=0.6).encode(
        x=x, y=alt.Y("ideal_minutes:Q", scale=alt.Scale(type="log")), color=color, detail=alt.Detail("series:N"))
    measured = base.mark_line(point=alt.OverlayMarkDef(size=60, filled=True)).encode(
        x=x, y=y, color=color, tooltip=tooltip)
    labelled = rows[rows["efficiency_vs_previous"].notna()].assign(
        efficiency_label=lambda r: [lang.percent(v, 0) for v in r["efficiency_vs_previous"]])
    efficiency = alt.Chart(labelled).mark_text(dy=-12, fontSize=10, opacity=0.85).encode(
        x=x, y=y, text=alt.Text("efficiency_label:N"), color=color)
    chart = alt.layer(ideal, measured, efficiency).properties(
        title=_title(_("DeepSeek-V3 671B: time to train against number of GPUs"),
                     _("Log-log scales. Dashed: ideal linear scaling from each series' smallest run. "
                       "Labels: scaling efficiency against the previous point.")),
        width="container", height=CHART_HEIGHT)
    summary = [_("%(count)s scored DeepSeek-V3 671B results, from %(low)s to %(high)s GPUs.") % {
        "count": lang.number(len(rows)), "low": lang.number(int(rows["total_accelerators"].min())),
        "high": lang.number(int(rows["total_accelerators"].max()))}, _extremes(lang, rows)]
    # The key comparison: the series that holds the fastest result, from its smallest to its largest run.
    fastest_series = rows.sort_values(["score_minutes", "submitter"]).iloc[0]["series"] if len(rows) else None
    group = series[series["series"] == fastest_series]
    if len(group) > 1:
        small, large = group.iloc[0], group.iloc[-1]
        summary.append(_("From %(small)s to %(large)s GPUs, %(series)s went from %(t_small)s to %(t_large)s minutes: "
                         "%(speedup)s× faster with %(factor)s× the GPUs, a scaling efficiency of %(efficiency)s.") % {
            "small": lang.number(int(small["total_accelerators"])), "large": lang.number(int(large["total_accelerators"])),
            "series": small["series"], "t_small": lang.number(small["score_minutes"], 2),
            "t_large": lang.number(large["score_minutes"], 2),
            "speedup": lang.number(small["score_minutes"] / large["score_minutes"], 2),
            "factor": lang.number(int(large["total_accelerators"] / small["total_accelerators"])),
            "efficiency": lang.percent(metrics.scaling_efficiency(small, large))})
    description = _("Each line is one submitter and accelerator; points are scored results, lower is faster.")
    columns = _result_columns(lang, Column("efficiency_vs_previous", _("Scaling efficiency vs the previous point"),
                                           "percent"))
    return ChartDraft(chart, _("DeepSeek-V3 scaling"), description, rows, len(entries) - len(series), summary, columns)


def fastest_per_benchmark(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    fastest = metrics.fastest_per_benchmark(inputs.current, inputs.round_benchmarks())
    plotted = fastest[fastest["score_minutes"].notna()].copy()
    plotted["benchmark_name"] = [inputs.benchmark_name(b) for b in plotted["benchmark"]]
    plotted["label"] = [f"{s} · {lang.number(int(n))} × {a}" for s, n, a in
                        zip(plotted["submitter"], plotted["total_accelerators"], plotted["accelerator"])]
    rows = plotted[["benchmark", "benchmark_name", "score_minutes", "submitter", "system_id", "accelerator",
                    "accelerator_vendor", "total_accelerators", "label", "score_source"]].reset_index(drop=True)
    y = alt.Y("benchmark_name:N", title=None, sort=alt.EncodingSortField("score_minutes", order="ascending"))
    x = _minutes_axis(lang, rows["score_minutes"], _("Time to train (minutes)") + " " + _("(log scale)"),
                      channel=alt.X)
    tooltip = [alt.Tooltip("benchmark_name:N", title=_("Benchmark")), *_result_tooltip(lang)]
    base = alt.Chart(rows)
    dots = base.mark_point(filled=True, size=90).encode(x=x, y=y, color=_vendor_color(lang), tooltip=tooltip)
    # Labels sit above their dot, turned leftwards in the right half so they stay inside the plot.
    middle = (rows["score_minutes"].min() * rows["score_minutes"].max()) ** 0.5 if len(rows) else 1
    labels = base.mark_text(align=alt.ExprRef(f"datum.score_minutes > {middle:.6g} ? 'right' : 'left'"),
                            baseline="bottom", dy=-7, fontSize=11).encode(x=x, y=y, text=alt.Text("label:N"))
    chart = alt.layer(dots, labels).properties(
        title=_title(_("Fastest known result per benchmark"),
                     _("Minutes to train, lower is faster; label: submitter · accelerators.")),
        width="container", height=max(160, 44 * len(rows)))
    summary = [_("The fastest scored result of each of the %(count)s benchmarks of the round.") % {
        "count": lang.number(len(rows))}]
    if len(rows):
        quick, slow = rows.sort_values("score_minutes").iloc[0], rows.sort_values("score_minutes").iloc[-1]
        summary.append(_("Quickest to train: %(fast_benchmark)s in %(fast)s minutes (%(fast_who)s); longest: "
                         "%(slow_benchmark)s in %(slow)s minutes (%(slow_who)s).") % {
            "fast_benchmark": quick["benchmark_name"], "fast": lang.number(quick["score_minutes"], 2),
            "fast_who": _who(lang, quick), "slow_benchmark": slow["benchmark_name"],
            "slow": lang.number(slow["score_minutes"], 2), "slow_who": _who(lang, slow)})
        summary.append(_("Every fastest result ran on %(vendors)s accelerators.") % {
            "vendors": lang.list(sorted(set(rows["accelerator_vendor"])))})
    description = _("The fastest scored result of each benchmark in the round, with its system and scale.")
    columns = [Column("benchmark_name", _("Benchmark")), *_result_columns(lang)]
    unscored = int(fastest["score_minutes"].isna().sum())
    return ChartDraft(chart, _("Fastest result per benchmark"), description, rows, unscored, summary, columns)


def accelerator_comparison(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    benchmarks = [b for b in SINGLE_NODE_BENCHMARKS if b in inputs.round_benchmarks()]
    best = metrics.best_per_accelerator(inputs.current, benchmarks)
    order = {b: i for i, b in enumerate(benchmarks)}
    best = best.assign(benchmark_name=[inputs.benchmark_name(b) for b in best["benchmark"]],
                       order=[order[b] for b in best["benchmark"]])
    best = best.sort_values(["order", "score_minutes"]).reset_index(drop=True)
    best["row"] = best["benchmark_name"] + " · " + best["accelerator"]
    rows = best[["benchmark", "benchmark_name", "row", "accelerator", "accelerator_vendor", "submitter", "system_id",
                 "total_accelerators", "number_of_nodes", "score_minutes", "score_source"]]
    y = alt.Y("row:N", title=None, sort=list(rows["row"]))
    x = _minutes_axis(lang, rows["score_minutes"], _("Time to train (minutes)") + " " + _("(log scale)"),
                      channel=alt.X)
    chart = alt.Chart(rows).mark_point(filled=True, size=90).encode(
        x=x, y=y, color=_vendor_color(lang),
        tooltip=[alt.Tooltip("benchmark_name:N", title=_("Benchmark")), *_result_tooltip(lang)],
    ).properties(
        title=_title(_("Eight accelerators, one benchmark: which chip trains fastest"),
                     _("Best scored result per accelerator type among 8-accelerator systems; "
                       "GB300, GB200 and GH200 systems are 2 nodes of 4.")),
        width="container", height=max(160, 22 * len(rows)))
    summary = [_("Best scored result per accelerator type among systems with 8 accelerators, on %(benchmarks)s.")
               % {"benchmarks": lang.list([inputs.benchmark_name(b) for b in benchmarks])}]
    for benchmark in benchmarks:
        group = rows[rows["benchmark"] == benchmark]
        if len(group) > 1:
            first, last = group.iloc[0], group.iloc[-1]
            summary.append(_("%(benchmark)s: fastest %(fast)s (%(fast_minutes)s minutes), slowest %(slow)s "
                             "(%(slow_minutes)s minutes), %(ratio)s× apart.") % {
                "benchmark": first["benchmark_name"], "fast": first["accelerator"],
                "fast_minutes": lang.number(first["score_minutes"], 2), "slow": last["accelerator"],
                "slow_minutes": lang.number(last["score_minutes"], 2),
                "ratio": lang.number(last["score_minutes"] / first["score_minutes"], 1)})
    scope = inputs.current[inputs.current["benchmark"].isin(benchmarks) & (inputs.current["total_accelerators"] == 8)]
    description = _("Results of 8-accelerator systems, fastest per accelerator type.")
    columns = [Column("benchmark_name", _("Benchmark")), *_result_columns(lang)]
    return ChartDraft(chart, _("Accelerators compared"), description, rows.reset_index(drop=True),
                      int(scope["score_minutes"].isna().sum()), summary, columns)


def amd_vs_nvidia(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    benchmarks = [b for b in AMD_VS_NVIDIA_BENCHMARKS if b in inputs.round_benchmarks()]
    pairs = metrics.head_to_head(inputs.current, "MI355X", "B200", benchmarks)
    best = metrics.best_per_accelerator(inputs.current, benchmarks)
    rows = best[best["accelerator"].isin(["MI355X", "B200"])].copy()
    rows["benchmark_name"] = [inputs.benchmark_name(b) for b in rows["benchmark"]]
    gaps = dict(zip(pairs["benchmark"], pairs["gap"])) if len(pairs) else {}
    rows["gap_label"] = [(_("MI355X %(gap)s slower") if gaps[b] > 0 else _("MI355X %(gap)s faster")) % {
        "gap": lang.percent(abs(gaps[b]))} if a == "MI355X" and b in gaps else ""
        for b, a in zip(rows["benchmark"], rows["accelerator"])]
    reference = dict(zip(pairs["benchmark"], pairs["reference_minutes"])) if len(pairs) else {}
    rows["relative"] = [m / reference[b] if b in reference else None for b, m in zip(rows["benchmark"],
                                                                                    rows["score_minutes"])]
    rows["minutes_label"] = [" · ".join(filter(None, [_("%(minutes)s min") % {"minutes": lang.number(m, 2)}, gap]))
                             for m, gap in zip(rows["score_minutes"], rows["gap_label"])]
    rows = rows[["benchmark", "benchmark_name", "accelerator", "accelerator_vendor", "submitter", "system_id",
                 "total_accelerators", "score_minutes", "relative", "minutes_label", "gap_label",
                 "score_source"]].reset_index(drop=True)
    # Relative to B200 per benchmark, so a 3.6 % gap on an 8-minute benchmark is as visible as on an 84-minute one.
    y = alt.Y("benchmark_name:N", title=None)
    x = alt.X("relative:Q", title=_("Time to train relative to B200 (B200 = 100%)"),
              scale=alt.Scale(domain=[0, 1.75], nice=False), axis=alt.Axis(format=".0%", values=[0, 0.25, 0.5, 0.75, 1]))
    offset = alt.YOffset("accelerator:N", sort=["B200", "MI355X"])
    base = alt.Chart(rows)
    bars = base.mark_bar(height={"band": 0.9}).encode(
        x=x, y=y, yOffset=offset, color=_vendor_color(lang),
        tooltip=[*_result_tooltip(lang), alt.Tooltip("relative:Q", title=_("Relative to B200"), format=".1%")])
    names = base.mark_text(align="left", dx=4, fontSize=11, color="white").encode(
        x=alt.datum(0), y=y, yOffset=offset, text=alt.Text("accelerator:N"))
    gap_text = base.mark_text(align="left", dx=6, fontSize=11).encode(
        x=x, y=y, yOffset=offset, text=alt.Text("minutes_label:N"))
    chart = alt.layer(bars, names, gap_text).properties(
        title=_title(_("AMD MI355X against NVIDIA B200"),
                     _("Best scored 8-accelerator result of each, same benchmark, same scale; lower is faster.")),
        width="container", height=max(120, 70 * len(benchmarks)))
    summary = [_("AMD MI355X against NVIDIA B200, both with 8 accelerators, on %(benchmarks)s.") % {
        "benchmarks": lang.list([inputs.benchmark_name(b) for b in benchmarks])}]
    for _i, pair in pairs.iterrows():
        template = (_("%(benchmark)s: MI355X %(amd)s minutes (%(amd_who)s), B200 %(nvidia)s minutes (%(nvidia_who)s): "
                      "MI355X is %(gap)s slower.") if pair["gap"] > 0 else
                    _("%(benchmark)s: MI355X %(amd)s minutes (%(amd_who)s), B200 %(nvidia)s minutes (%(nvidia_who)s): "
                      "MI355X is %(gap)s faster."))
        summary.append(template % {
            "benchmark": inputs.benchmark_name(pair["benchmark"]), "amd": lang.number(pair["challenger_minutes"], 2),
            "amd_who": pair["challenger_submitter"], "nvidia": lang.number(pair["reference_minutes"], 2),
            "nvidia_who": pair["reference_submitter"], "gap": lang.percent(abs(pair["gap"]))})
    description = _("The two vendors' current GPUs on the same benchmarks at the same scale.")
    columns = [Column("benchmark_name", _("Benchmark")), *_result_columns(lang)]
    return ChartDraft(chart, _("AMD against NVIDIA"), description, rows, 0, summary, columns)


def round_over_round(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    table = metrics.round_over_round(inputs.current, inputs.previous)
    table = table[table["speedup"].notna()].copy()
    table["benchmark_name"] = [inputs.benchmark_name(b) for b in table["benchmark"]]
    table["unscored_now"] = [int(((inputs.current["benchmark"] == b) & inputs.current["score_minutes"].isna()).sum())
                             for b in table["benchmark"]]
    table["direction"] = [_("faster") if s >= 1 else _("slower") for s in table["speedup"]]
    rows = table[["benchmark", "benchmark_name", "previous_minutes", "previous_submitter", "previous_system",
                  "previous_accelerators", "current_minutes", "current_submitter", "current_system",
                  "current_accelerators", "speedup", "direction", "unscored_now", "previous_source",
                  "current_source"]].reset_index(drop=True)
    previous, current = inputs.previous_round, inputs.round
    x = alt.X("speedup:Q", title=_("Speed-up of the fastest known time, %(previous)s to %(current)s (×)") % {
        "previous": previous, "current": current}, scale=alt.Scale(type="log", padding=12),
        axis=alt.Axis(values=[0.25, 0.5, 1, 1.5, 2], format=",.2~f"))
    y = alt.Y("benchmark_name:N", title=None, sort=alt.EncodingSortField("speedup", order="descending"))
    base = alt.Chart(rows)
    rule = alt.Chart(pd.DataFrame({"one": [1.0]})).mark_rule(strokeDash=[3, 3]).encode(x=alt.X("one:Q"))
    bars = base.mark_point(filled=True, size=100).encode(
        x=x, y=y, color=alt.Color("direction:N", title=None, scale=alt.Scale(
            domain=[_("faster"), _("slower")], range=["#3f7f00", "#c8102e"]), legend=alt.Legend(orient="bottom")),
        tooltip=[alt.Tooltip("benchmark_name:N", title=_("Benchmark")),
                 alt.Tooltip("previous_minutes:Q", title=previous, format=",.4f"),
                 alt.Tooltip("current_minutes:Q", title=current, format=",.4f"),
                 alt.Tooltip("speedup:Q", title="×", format=",.2f"),
                 alt.Tooltip("unscored_now:Q", title=_("Results without a score"), format=",d")])
    chart = alt.layer(rule, bars).properties(
        title=_title(_("%(current)s against %(previous)s: fastest known time per benchmark") % {
            "current": current, "previous": previous},
            _("Above 1: faster than the previous round. Unscored results can hide faster ones.")),
        width="container", height=max(140, 40 * len(rows)))
    summary = [_("%(count)s benchmarks ran in both %(previous)s and %(current)s.") % {
        "count": lang.number(len(rows)), "previous": previous, "current": current}]
    if len(rows):
        top, bottom = rows.sort_values("speedup").iloc[-1], rows.sort_values("speedup").iloc[0]
        summary.append(_("Largest speed-up: %(top)s, %(top_speedup)s×; smallest: %(bottom)s, %(bottom_speedup)s×.") % {
            "top": top["benchmark_name"], "top_speedup": lang.number(top["speedup"], 2),
            "bottom": bottom["benchmark_name"], "bottom_speedup": lang.number(bottom["speedup"], 2)})
        hidden = rows[(rows["speedup"] < 1) & (rows["unscored_now"] > 0)]
        for _i, row in hidden.iterrows():
            summary.append(_("%(benchmark)s looks slower, but %(count)s of its %(current)s results have no score "
                             "in our data: the comparison is incomplete.") % {"benchmark": row["benchmark_name"],
                                                      "count": lang.number(int(row["unscored_now"])),
                                                      "current": current})
    description = _("Fastest known time of each benchmark present in both rounds, as a speed-up.")
    columns = [Column("benchmark_name", _("Benchmark")), Column("previous_minutes", previous, "minutes"),
               Column("current_minutes", current, "minutes"), Column("speedup", "×", "ratio"),
               Column("unscored_now", _("Results without a score"), "int")]
    return ChartDraft(chart, _("Round over round"), description, rows, int(rows["unscored_now"].sum()), summary,
                      columns)


def participation(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    rows = metrics.results_per_organization(inputs.current).assign(source=_counted_from(inputs.round))
    order = list(dict.fromkeys(rows["submitter"]))
    chart = alt.Chart(rows).mark_bar().encode(
        y=alt.Y("submitter:N", title=None, sort=order),
        x=alt.X("results:Q", title=_("Results"), stack="zero", axis=alt.Axis(format=",d", tickMinStep=1)),
        color=_vendor_color(lang),
        tooltip=[alt.Tooltip("submitter:N", title=_("Submitter")),
                 alt.Tooltip("accelerator_vendor:N", title=_("Accelerator vendor")),
                 alt.Tooltip("results:Q", title=_("Results"), format=",d"),
                 alt.Tooltip("total:Q", title=_("All results of the submitter"), format=",d")],
    ).properties(title=_title(_("Who submitted: results per organization"),
                              _("Every result of the round, scored or not, by accelerator vendor.")),
                 width="container", height=max(200, 18 * len(order)))
    total = int(rows["results"].sum())
    by_vendor = rows.groupby("accelerator_vendor")["results"].sum()
    top = rows.iloc[0]
    summary = [_("%(orgs)s organizations submitted %(results)s results.") % {
                   "orgs": lang.number(len(order)), "results": lang.number(total)},
               _("Most results: %(submitter)s with %(count)s.") % {
                   "submitter": top["submitter"], "count": lang.number(int(top["total"]))},
               _("%(share)s of the results ran on NVIDIA accelerators and %(amd)s on AMD accelerators.") % {
                   "share": lang.percent(by_vendor.get("NVIDIA", 0) / total),
                   "amd": lang.percent(by_vendor.get("AMD", 0) / total)}]
    description = _("Number of results per organization, coloured by accelerator vendor.")
    columns = [Column("submitter", _("Submitter")), Column("accelerator_vendor", _("Accelerator vendor")),
               Column("results", _("Results"), "int")]
    return ChartDraft(chart, _("Participation"), description, rows, 0, summary, columns)


def scale_distribution(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    rows = metrics.systems_by_scale(inputs.current).assign(source=_counted_from(inputs.round))
    rows["layout"] = [_("multi-node") if m else _("single node") for m in rows["multi_node"]]
    chart = alt.Chart(rows).mark_bar().encode(
        x=alt.X("total_accelerators:O", title=_("Accelerators per system"), sort="ascending",
                axis=alt.Axis(labelAngle=0, labelOverlap="greedy", labelExpr="format(datum.value, ',d')")),
        y=alt.Y("systems:Q", title=_("Systems"), stack="zero", axis=alt.Axis(format=",d", tickMinStep=1)),
        color=alt.Color("layout:N", title=None, scale=alt.Scale(domain=[_("single node"), _("multi-node")],
                                                                 range=["#8c6bb1", "#2b8cbe"]),
                        legend=alt.Legend(orient="bottom")),
        tooltip=[alt.Tooltip("total_accelerators:Q", title=_("Accelerators per system"), format=",d"),
                 alt.Tooltip("layout:N", title=_("Layout")),
                 alt.Tooltip("systems:Q", title=_("Systems"), format=",d")],
    ).properties(title=_title(_("How big are the systems?"),
                              _("Systems of the round by number of accelerators.")),
                 width="container", height=CHART_HEIGHT)
    headline = metrics.headline(inputs.current)
    per_size = rows.groupby("total_accelerators")["systems"].sum()
    summary = [_("%(systems)s systems, from %(low)s to %(high)s accelerators; %(share)s of them span several nodes.")
               % {"systems": lang.number(headline.systems), "low": lang.number(int(per_size.index.min())),
                  "high": lang.number(int(per_size.index.max())), "share": lang.percent(headline.multi_node_share)},
               _("The most common size is %(size)s accelerators (%(count)s systems).") % {
                   "size": lang.number(int(per_size.idxmax())), "count": lang.number(int(per_size.max()))}]
    description = _("Distinct systems by number of accelerators, single node or multi-node.")
    columns = [Column("total_accelerators", _("Accelerators per system"), "int"), Column("layout", _("Layout")),
               Column("systems", _("Systems"), "int")]
    return ChartDraft(chart, _("Scale of the systems"), description, rows, 0, summary, columns)


def gpu_minutes(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    entries = metrics.gpu_minutes(inputs.current)
    order = inputs.round_benchmarks()
    entries["benchmark_name"] = [inputs.benchmark_name(b) for b in entries["benchmark"]]
    rows = entries[["benchmark", "benchmark_name", "submitter", "system_id", "accelerator", "accelerator_vendor",
                    "total_accelerators", "score_minutes", "gpu_minutes", "score_source"]].reset_index(drop=True)
    label = _("Accelerator-minutes (time to train × accelerators, log scale)")
    chart = alt.Chart(rows).mark_point(filled=True, size=70, opacity=0.8).encode(
        x=alt.X("gpu_minutes:Q", title=label, scale=alt.Scale(type="log", nice=False, padding=12),
                axis=alt.Axis(format="~s", labelOverlap="greedy")),
        y=alt.Y("benchmark_name:N", title=None, sort=[inputs.benchmark_name(b) for b in order]),
        color=_vendor_color(lang),
        tooltip=_result_tooltip(lang, [alt.Tooltip("gpu_minutes:Q", title=_("Accelerator-minutes"), format=",.0f")]),
    ).properties(title=_title(_("What a result costs: accelerator-minutes"),
                              _("Time to train × number of accelerators for every scored result; "
                                "a rough proxy for cost, lower is cheaper.")),
                 width="container", height=max(160, 40 * len(order)))
    summary = [_("Accelerator-minutes of %(count)s scored results.") % {"count": lang.number(len(rows))}]
    for benchmark in order:
        group = rows[rows["benchmark"] == benchmark]
        if len(group) > 1:
            low, high = group.iloc[0], group.iloc[-1]
            summary.append(_("%(benchmark)s: from %(low)s (%(low_who)s) to %(high)s (%(high_who)s).") % {
                "benchmark": low["benchmark_name"], "low": lang.number(round(low["gpu_minutes"])),
                "low_who": _who(lang, low), "high": lang.number(round(high["gpu_minutes"])),
                "high_who": _who(lang, high)})
    description = _("Time to train multiplied by accelerators: big clusters finish sooner but use more chip time.")
    columns = [Column("benchmark_name", _("Benchmark")),
               *_result_columns(lang, Column("gpu_minutes", _("Accelerator-minutes"), "int"))]
    unscored = int(inputs.current["score_minutes"].isna().sum())
    return ChartDraft(chart, _("Accelerator-minutes"), description, rows, unscored, summary, columns)


def benchmark_results(benchmark: str) -> ChartFactory:
    """Every scored result of one benchmark: time to train against accelerators, by accelerator type."""

    def build(inputs: ChartInputs, lang: Language) -> ChartDraft:
        _ = lang.gettext
        entries = inputs.current[inputs.current["benchmark"] == benchmark]
        plotted = metrics.scored(entries)
        rows = plotted[["submitter", "system_id", "accelerator", "accelerator_vendor", "total_accelerators",
                        "score_minutes", "score_source"]].sort_values(
            ["total_accelerators", "score_minutes", "submitter", "system_id"]).reset_index(drop=True)
        name = inputs.benchmark_name(benchmark)
        chart = alt.Chart(rows).mark_point(filled=True, size=80, opacity=0.85).encode(
            x=_accelerators_axis(lang, rows["total_accelerators"], _("Accelerators")),
            y=_minutes_axis(lang, rows["score_minutes"]),
            color=alt.Color("accelerator:N", title=_("Accelerator"), legend=alt.Legend(orient="bottom", columns=3)),
            tooltip=_result_tooltip(lang),
        ).properties(
            title=_title(_("%(benchmark)s: scored results") % {"benchmark": name},
                         _("Time to train against accelerators, log scales; lower is faster.")),
            width="container", height=CHART_HEIGHT)
        summary = [_("%(count)s scored results of %(benchmark)s, from %(low)s to %(high)s accelerators.") % {
            "count": lang.number(len(rows)), "benchmark": name,
            "low": lang.number(int(rows["total_accelerators"].min())) if len(rows) else "—",
            "high": lang.number(int(rows["total_accelerators"].max())) if len(rows) else "—"}]
        if len(rows):
            summary.append(_extremes(lang, rows))
        description = _("Every scored result of the benchmark, by number and type of accelerators.")
        return ChartDraft(chart, _("%(benchmark)s results") % {"benchmark": name}, description, rows,
                          len(entries) - len(plotted), summary, _result_columns(lang))

    return build


def benchmark_chart_id(benchmark: str) -> str:
    return "results-" + slugify(benchmark)


# The round-level charts, in display order; per-benchmark charts follow.
ROUND_CHARTS: dict[str, ChartFactory] = {
    "deepseek-scaling": deepseek_scaling,
    "fastest-per-benchmark": fastest_per_benchmark,
    "accelerator-comparison": accelerator_comparison,
    "amd-vs-nvidia": amd_vs_nvidia,
    "round-over-round": round_over_round,
    "participation": participation,
    "scale-distribution": scale_distribution,
    "gpu-minutes": gpu_minutes,
}


def catalog(inputs: ChartInputs) -> dict[str, ChartFactory]:
    """Chart id -> factory, in display order."""
    charts = dict(ROUND_CHARTS)
    for benchmark in inputs.round_benchmarks():
        charts[benchmark_chart_id(benchmark)] = benchmark_results(benchmark)
    return charts


def localize(chart: alt.TopLevelMixin, lang: Language) -> dict:
    """Final, validated Vega-Lite spec with the language's d3 number and time locale."""
    padded = chart.properties(padding={"top": 12, "right": 12, "bottom": 6, "left": 6})
    configured = padded.configure(locale=alt.Locale(number=lang.d3_format_locale(), time=lang.d3_time_locale()),
                                  autosize=alt.AutoSizeParams(type="fit-x", contains="padding"),
                                  font=CHART_FONT)
    return configured.to_dict(validate=True)


def build_chart(chart_id: str, factory: ChartFactory, inputs: ChartInputs, lang: Language) -> Chart:
    draft = factory(inputs, lang)
    return Chart(chart_id, lang.code, draft.title, draft.description, localize(draft.chart, lang), draft.rows,
                 draft.unscored, tuple(draft.summary), tuple(draft.columns))


def build_charts(inputs: ChartInputs, languages: list[Language]) -> list[Chart]:
    return [build_chart(chart_id, factory, inputs, lang)
            for chart_id, factory in catalog(inputs).items() for lang in languages]
