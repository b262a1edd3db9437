"""One chart per benchmark: every scored result, time to train against accelerators, by accelerator type."""

from __future__ import annotations

from slugify import slugify

from site_builder import metrics
from site_builder.charts.base import (
    CHART_HEIGHT,
    ChartDraft,
    ChartFactory,
    ChartInputs,
    accelerator_encodings,
    accelerators_axis,
    extremes,
    minutes_axis,
    narrow_variant,
    result_columns,
    result_tooltip,
    short_minutes,
)
from site_builder.charts.lazy_altair import alt
from site_builder.i18n import Language


def benchmark_chart_id(benchmark: str) -> str:
    return "results-" + slugify(benchmark)


def benchmark_results(benchmark: str) -> ChartFactory:
    """Built even when no result has a score (its benchmark page shows it): the chart then says so."""

    def build(inputs: ChartInputs, lang: Language) -> ChartDraft:
        _ = lang.gettext
        every = inputs.current[inputs.current["benchmark"] == benchmark]
        entries = metrics.closed(every)  # the open division is listed on the page, never ranked with the closed
        plotted = metrics.scored(entries)
        rows = plotted[["submitter", "system_id", "system", "accelerator", "accelerator_vendor", "total_accelerators",
                        "score_minutes", "score_source"]].sort_values(
            ["total_accelerators", "score_minutes", "submitter", "system_id"]).reset_index(drop=True)
        name = inputs.benchmark_name(benchmark)
        # A system without accelerators (CPU only, in early rounds) has no place on a log scale of accelerators: its
        # result stays in the table and the CSV, the chart leaves it out and says so.
        on_axis = rows["total_accelerators"] > 0
        chart = alt.Chart(rows).transform_filter("datum.total_accelerators > 0").mark_point(filled=True, size=80).encode(
            x=accelerators_axis(rows.loc[on_axis, "total_accelerators"], _("Accelerators")),
            y=minutes_axis(lang, rows.loc[on_axis, "score_minutes"]), tooltip=result_tooltip(lang),
            **accelerator_encodings(inputs, lang, rows.loc[on_axis, "accelerator"]),  # no legend entry without a mark
        ).properties(width="container", height=CHART_HEIGHT)
        drawn = rows[on_axis]  # what the text alternative describes: the chart's points
        summary = [_("%(count)s scored results of %(benchmark)s, from %(low)s to %(high)s accelerators.") % {
            "count": lang.number(len(drawn)), "benchmark": name,
            "low": lang.number(int(drawn["total_accelerators"].min())) if len(drawn) else "—",
            "high": lang.number(int(drawn["total_accelerators"].max())) if len(drawn) else "—"}]
        if len(drawn):
            summary.append(extremes(lang, drawn))
        description = _("Every scored result of the benchmark, by number and type of accelerators.")
        if not on_axis.all():
            description += " " + _("Results of systems without accelerators (CPU only): %(count)s, not drawn on the "
                                   "accelerator axis; the table lists them.") % {"count": lang.number(int((~on_axis).sum()))}
        if len(every) > len(entries):
            description += " " + _("Open-division results are not drawn: they are not ranked with the closed "
                                   "division's.")
        return ChartDraft(chart, _("%(benchmark)s results") % {"benchmark": name},
                          _("%(benchmark)s: scored results") % {"benchmark": name},
                          _("Time to train against accelerators, log scales; lower is faster."),
                          description, rows, len(entries) - len(plotted), len(entries), summary, result_columns(lang),
                          narrow=narrow_variant(short_minutes(lang)))

    return build
