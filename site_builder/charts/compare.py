"""Comparisons: accelerators on the same benchmark at the same scale, two accelerators head to head,
and the round against the previous one, each saying on the chart where the comparison is not like with like."""

from __future__ import annotations

import math

import pandas as pd
from slugify import slugify

from site_builder import metrics
from site_builder.charts.base import (
    SCALE_PADDING,
    WIDE_PLOT_PX,
    ChartDraft,
    ChartFactory,
    ChartInputs,
    Column,
    NoData,
    accelerator_encodings,
    minutes_axis,
    narrow_variant,
    result_columns,
    result_tooltip,
    short_minutes,
)
from site_builder.charts.lazy_altair import alt
from site_builder.hardware import CHART_COLOURS, ink_on
from site_builder.i18n import Language


def head_to_head_chart_id(challenger: str, reference: str) -> str:
    return f"{slugify(challenger)}-vs-{slugify(reference)}"


def _layouts(lang: Language, rows: pd.DataFrame) -> str:
    """Which accelerators reach the comparison scale with several nodes, from the data ("X systems are 2 nodes of 4")."""
    multi = rows[rows["number_of_nodes"] > 1]
    parts = []
    for (nodes, per_node), group in multi.groupby(["number_of_nodes", "accelerators_per_node"], sort=True):
        parts.append(lang.gettext("%(accelerators)s systems are %(nodes)s nodes of %(per_node)s") % {
            "accelerators": lang.list(sorted(set(group["accelerator"]))), "nodes": lang.number(int(nodes)),
            "per_node": lang.number(int(per_node))})
    return "; ".join(parts) + "." if parts else ""


def accelerator_comparison(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    scale = inputs.features.comparison_scale
    benchmarks = [b for b in inputs.features.single_node_benchmarks if b in inputs.round_benchmarks()]
    best = metrics.best_per_accelerator(inputs.current, benchmarks, scale)
    if best.empty:
        raise NoData(f"no scored result of {scale} accelerators on {', '.join(benchmarks) or 'any benchmark'}")
    order = {b: i for i, b in enumerate(benchmarks)}
    best = best.assign(benchmark_name=[inputs.benchmark_name(b) for b in best["benchmark"]],
                       order=[order[b] for b in best["benchmark"]])
    best = best.sort_values(["order", "score_minutes"]).reset_index(drop=True)
    best["row"] = best["benchmark_name"] + " · " + best["accelerator"]
    rows = best[["benchmark", "benchmark_name", "row", "accelerator", "accelerator_vendor", "submitter", "system_id",
                 "system", "total_accelerators", "number_of_nodes", "accelerators_per_node", "score_minutes",
                 "score_source"]]
    # Narrow, the accelerator comes first in the label, so that it survives the label's shortening.
    plotted = rows.assign(row_narrow=rows["accelerator"] + " · " + rows["benchmark_name"], position=range(len(rows)))
    y = alt.Y("row:N", title=None, sort=alt.EncodingSortField("position", op="min"))
    x = minutes_axis(lang, rows["score_minutes"], _("Time to train (minutes)") + " " + _("(log scale)"),
                     channel=alt.X)
    chart = alt.Chart(plotted).mark_point(filled=True, size=90).encode(
        x=x, y=y, tooltip=[alt.Tooltip("benchmark_name:N", title=_("Benchmark")), *result_tooltip(lang)],
        **accelerator_encodings(inputs, lang, rows["accelerator"]),
    ).properties(width="container", height=max(160, 22 * len(rows)))
    summary = [_("Best scored result per accelerator type among systems with %(scale)s accelerators, on "
                 "%(benchmarks)s.") % {"scale": lang.number(scale),
                                       "benchmarks": lang.list([inputs.benchmark_name(b) for b in benchmarks])}]
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
    current = inputs.current
    scope = current[current["benchmark"].isin(benchmarks) & (current["total_accelerators"] == scale)]
    description = _("Results of systems with %(scale)s accelerators, fastest per accelerator type.") % {
        "scale": lang.number(scale)}
    columns = [Column("benchmark_name", _("Benchmark")), *result_columns(lang)]
    subtitle = _("Best scored result per accelerator type among systems with %(scale)s accelerators.") % {
        "scale": lang.number(scale)}
    return ChartDraft(chart, _("Accelerators compared"),
                      _("%(scale)s accelerators, one benchmark: which chip trains fastest") % {
                          "scale": lang.number(scale)},
                      " ".join(filter(None, [subtitle, _layouts(lang, rows)])), description,
                      rows.reset_index(drop=True), int(scope["score_minutes"].isna().sum()), len(scope), summary,
                      columns, narrow=narrow_variant(short_minutes(lang), fields={"row": "row_narrow"}))


# Estimated drawn sizes, for the choices Vega-Lite does not make (it never moves text that collides): 11 px text
# is at most about 6.6 px a character (Vietnamese included); a chart narrower than site.js's NARROW (600 px) has
# about 180 px for its bars on a 320 px phone, a wide one at least 480 px.
CHAR_PX = 6.6
NARROW_PLOT_PX = 180
BESIDE_PX = 12  # a label's offset from its bar, and a margin
INSIDE_PX = 10  # a name's offset inside its bar, and a margin


def _fits_inside(name: str, relative: float, domain_end: float, plot_px: float) -> bool:
    return relative / domain_end * plot_px >= len(name) * CHAR_PX + INSIDE_PX


def _relative_ticks(top: float) -> list[float]:
    """Ticks from 0 to `top` (a time relative to another: 1 is 100%) at the first round step that gives at most
    eight of them: 25% steps for the usual gaps, wider ones where one accelerator took many times the other's."""
    step = next(s for s in (0.25, 0.5, 1, 2, 2.5, 5, 10, 20, 25, 50, 100, 250, 500, 1000) if top / s <= 8 or s == 1000)
    return [i * step for i in range(int(top / step) + 1)]


def _fit_labels(rows: pd.DataFrame, top: float) -> float:
    """Where each bar's accelerator name goes, and the end of the narrow chart's scale. A name is written inside
    its bar where it fits, else before the bar's label; the narrow scale (130% of the wide one's `top`, or more) is
    widened until every label fits beside its bar, and as the bars get shorter a name may leave its bar: a few
    rounds settle it. Sets the columns name_inside, name_inside_narrow, gap_short and minutes_label of `rows`;
    returns the narrow scale's end."""
    inside = [_fits_inside(a, r, top, WIDE_PLOT_PX) for a, r in zip(rows["accelerator"], rows["relative"])]
    rows["name_inside"] = [a if fits else "" for a, fits in zip(rows["accelerator"], inside)]
    rows["minutes_label"] = [label if fits or gap else f"{a} · {label}" for a, label, gap, fits in
                             zip(rows["accelerator"], rows["minutes_label"], rows["gap_label"], inside)]
    narrow_top = round(top * 1.3, 2)
    for attempt in range(5):
        inside = [_fits_inside(a, r, narrow_top, NARROW_PLOT_PX) for a, r in zip(rows["accelerator"], rows["relative"])]
        labels = [short if fits else (gap or a) for a, short, gap, fits in
                  zip(rows["accelerator"], rows["gap_short"], rows["gap_label"], inside)]
        # A bar ends at relative / narrow_top of the plot; its label needs BESIDE_PX and its own width after it
        # (a label is given at most 85% of the plot, so that the scale stays finite).
        needed = max([narrow_top, *(r * NARROW_PLOT_PX / max(NARROW_PLOT_PX - BESIDE_PX - len(label) * CHAR_PX,
                                                               0.15 * NARROW_PLOT_PX)
                                    for r, label in zip(rows["relative"], labels) if label)])
        if needed <= narrow_top or attempt == 4:
            break
        narrow_top = round(needed + 0.005, 2)
    rows["name_inside_narrow"] = [a if fits else "" for a, fits in zip(rows["accelerator"], inside)]
    rows["gap_short"] = labels
    return narrow_top


def head_to_head(challenger: str, reference: str) -> ChartFactory:
    """Best `challenger` against best `reference` result per shared benchmark, at the comparison scale."""

    def build(inputs: ChartInputs, lang: Language) -> ChartDraft:
        _ = lang.gettext
        scale = inputs.features.comparison_scale
        benchmarks = list(inputs.features.head_to_head_benchmarks)
        pairs = metrics.head_to_head(inputs.current, challenger, reference, benchmarks, scale)
        if pairs.empty:
            raise NoData(f"{challenger} and {reference} share no benchmark with scored results of {scale} accelerators")
        best = metrics.best_per_accelerator(inputs.current, benchmarks, scale)
        rows = best[best["accelerator"].isin([challenger, reference])].copy()
        rows["benchmark_name"] = [inputs.benchmark_name(b) for b in rows["benchmark"]]
        gaps = dict(zip(pairs["benchmark"], pairs["gap"]))
        rows["gap_label"] = [(_("%(accelerator)s %(gap)s slower") if gaps[b] > 0 else
                              _("%(accelerator)s %(gap)s faster")) % {
            "accelerator": challenger, "gap": lang.percent(abs(gaps[b]))} if a == challenger and b in gaps else ""
            for b, a in zip(rows["benchmark"], rows["accelerator"])]
        reference_minutes = dict(zip(pairs["benchmark"], pairs["reference_minutes"]))
        rows["relative"] = [m / reference_minutes[b] if b in reference_minutes else None
                            for b, m in zip(rows["benchmark"], rows["score_minutes"])]
        rows["minutes_label"] = [" · ".join(filter(None, [_("%(minutes)s min") % {"minutes": lang.number(m, 2)},
                                                          gap])) for m, gap in zip(rows["score_minutes"],
                                                                                   rows["gap_label"])]
        # On a narrow chart the bar's label keeps only the finding ("3.6% slower"): the bar is named inside.
        rows["gap_short"] = [(_("%(gap)s slower") if gaps[b] > 0 else _("%(gap)s faster")) % {
            "gap": lang.percent(abs(gaps[b]))} if a == challenger and b in gaps else ""
            for b, a in zip(rows["benchmark"], rows["accelerator"])]
        # Relative to the reference per benchmark, so a small gap on a short benchmark is as visible as on a long one.
        longest = float(rows["relative"].max())
        top = max(1.75, longest * 1.4)
        narrow_top = _fit_labels(rows, top)
        rows = rows[["benchmark", "benchmark_name", "accelerator", "accelerator_vendor", "submitter", "system_id",
                     "system", "total_accelerators", "score_minutes", "relative", "minutes_label", "gap_label",
                     "gap_short", "score_source", "name_inside", "name_inside_narrow"]].reset_index(drop=True)
        y = alt.Y("benchmark_name:N", title=None)
        x_title = _("Time to train relative to %(reference)s (%(reference)s = 100%%)") % {"reference": reference}
        x = alt.X("relative:Q", title=x_title, scale=alt.Scale(domain=[0, top], nice=False),
            axis=alt.Axis(format=".0%", values=_relative_ticks(top), labelOverlap="greedy"))
        offset = alt.YOffset("accelerator:N", sort=[reference, challenger])
        # The name sits inside its bar where it fits, in black or white for that bar's colour (the same in both
        # themes); where it goes is drawing, not data, so it stays out of the rows (and the CSV).
        inks = [ink_on(inputs.hardware.accelerators[a].colour) for a in rows["accelerator"]]
        named = rows[["benchmark_name", "accelerator", "name_inside", "name_inside_narrow"]].assign(ink=inks)
        rows = rows.drop(columns=["name_inside", "name_inside_narrow"])
        base = alt.Chart(rows)
        bars = base.mark_bar(height={"band": 0.9}).encode(
            x=x, y=y, yOffset=offset,
            color=accelerator_encodings(inputs, lang, rows["accelerator"], shape=False)["color"],
            tooltip=[*result_tooltip(lang), alt.Tooltip("relative:Q", title=_("Relative to %(reference)s") % {
                "reference": reference}, format=".1%")])
        names = alt.Chart(named).mark_text(align="left", dx=4, fontSize=11).encode(
            x=alt.datum(0), y=y, yOffset=offset, text=alt.Text("name_inside:N"), color=alt.Color("ink:N", scale=None))
        gap_text = base.mark_text(align="left", dx=6, fontSize=11).encode(
            x=x, y=y, yOffset=offset, text=alt.Text("minutes_label:N"))
        chart = alt.layer(bars, names, gap_text).properties(width="container", height=max(120, 70 * len(pairs)))
        names_of = {"challenger": challenger, "reference": reference,
                    "challenger_vendor": inputs.hardware.vendor_of(challenger),
                    "reference_vendor": inputs.hardware.vendor_of(reference)}
        summary = [_("%(challenger_vendor)s %(challenger)s against %(reference_vendor)s %(reference)s, both with "
                     "%(scale)s accelerators, on %(benchmarks)s.") % {
            **names_of, "scale": lang.number(scale),
            "benchmarks": lang.list([inputs.benchmark_name(b) for b in pairs["benchmark"]])}]
        for _i, pair in pairs.iterrows():
            template = (_("%(benchmark)s: %(challenger)s %(challenger_minutes)s minutes (%(challenger_who)s), "
                          "%(reference)s %(reference_minutes)s minutes (%(reference_who)s): %(challenger)s is "
                          "%(gap)s slower.") if pair["gap"] > 0 else
                        _("%(benchmark)s: %(challenger)s %(challenger_minutes)s minutes (%(challenger_who)s), "
                          "%(reference)s %(reference_minutes)s minutes (%(reference_who)s): %(challenger)s is "
                          "%(gap)s faster."))
            summary.append(template % {
                **names_of, "benchmark": inputs.benchmark_name(pair["benchmark"]),
                "challenger_minutes": lang.number(pair["challenger_minutes"], 2),
                "challenger_who": pair["challenger_submitter"],
                "reference_minutes": lang.number(pair["reference_minutes"], 2),
                "reference_who": pair["reference_submitter"], "gap": lang.percent(abs(pair["gap"]))})
        current = inputs.current
        scope = current[current["benchmark"].isin(pairs["benchmark"]) & (current["total_accelerators"] == scale)
                        & current["accelerator"].isin([challenger, reference])]
        description = _("Two accelerators of different vendors on the same benchmarks at the same scale.")
        columns = [Column("benchmark_name", _("Benchmark")), *result_columns(lang)]
        return ChartDraft(chart, _("%(challenger)s against %(reference)s") % names_of,
                          _("%(challenger_vendor)s %(challenger)s against %(reference_vendor)s %(reference)s") % names_of,
                          _("Best scored result of each with %(scale)s accelerators, same benchmark; lower is "
                            "faster.") % {"scale": lang.number(scale)},
                          description, rows, int(scope["score_minutes"].isna().sum()), len(scope), summary, columns,
                          narrow=narrow_variant({x_title: _("Relative to %(reference)s") % {"reference": reference}},
                                                fields={"minutes_label": "gap_short",
                                                        "name_inside": "name_inside_narrow"},
                                                # bars leave room for the finding beside them
                                                domains={"relative": [0, narrow_top]}))

    return build


def _caveats(lang: Language, row, previous: str, current: str) -> list[str]:
    """Why a round-over-round point does not compare like with like, in the reader's language."""
    _ = lang.gettext
    reasons = []
    if row["different_scale"]:
        reasons.append(_("different scale: %(before)s → %(after)s") % {
            "before": lang.number(int(row["previous_accelerators"])),
            "after": lang.number(int(row["current_accelerators"]))})
    if row["different_accelerator"]:
        reasons.append(_("different chip: %(before)s → %(after)s") % {
            "before": row["previous_accelerator"], "after": row["current_accelerator"]})
    if row["incomplete"]:
        late = row["speedup"] < 1
        reasons.append(_("%(unscored)s of %(total)s unscored in %(round)s") % {
            "unscored": lang.number(int(row["current_unscored"] if late else row["previous_unscored"])),
            "total": lang.number(int(row["current_results"] if late else row["previous_results"])),
            "round": current if late else previous})
    return reasons


CAVEAT_SEPARATOR = " · "  # between a point's reasons in the table; on the chart, each reason is a line
CAVEAT_CHAR_PX = 6  # 10 px text
CAVEAT_OFFSET_PX = 9 + SCALE_PADDING  # a caveat's offset from its point, and the scale's padding


def _room_for_caveats(rows: pd.DataFrame) -> alt.Scale:
    """The speed-up's log scale, running on to the right far enough that each caveat's longest line fits beside
    its point on the narrowest wide chart (the narrow one leaves the caveats out); the data's own extent and 1
    where they fit already."""
    speedups = [*rows["speedup"], 1.0]
    low, high = math.log10(min(speedups)), math.log10(max(speedups))
    plot = WIDE_PLOT_PX - 2 * SCALE_PADDING
    needed = high
    for speedup, caveat in zip(rows["speedup"], rows["caveat"]):
        if caveat:
            width = max(len(line) for line in caveat.split(CAVEAT_SEPARATOR)) * CAVEAT_CHAR_PX
            free = max(WIDE_PLOT_PX - CAVEAT_OFFSET_PX - width, 0.3 * WIDE_PLOT_PX)
            needed = max(needed, low + (math.log10(speedup) - low) * plot / free)
    if needed <= high or high == low:
        return alt.Scale(type="log", padding=SCALE_PADDING)
    return alt.Scale(type="log", padding=SCALE_PADDING, nice=False, domain=[min(speedups), math.ceil(10 ** needed * 100) / 100])


def round_over_round(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    previous, current = inputs.previous_round, inputs.round
    table = metrics.round_over_round(inputs.current, inputs.previous)
    table = table[table["speedup"].notna()].copy() if len(table) else table
    if table.empty:
        raise NoData(f"no benchmark has scored results in both {previous} and {current}")
    table["benchmark_name"] = [inputs.benchmark_name(b) for b in table["benchmark"]]
    table["caveat"] = [CAVEAT_SEPARATOR.join(_caveats(lang, row, previous, current)) for _i, row in table.iterrows()]
    table["comparison"] = [_("not like for like") if caveat else _("faster") if s >= 1 else _("slower")
                           for caveat, s in zip(table["caveat"], table["speedup"])]
    rows = table[["benchmark", "benchmark_name", "previous_minutes", "previous_submitter", "previous_system",
                  "previous_accelerator", "previous_accelerators", "current_minutes", "current_submitter",
                  "current_system", "current_accelerator", "current_accelerators", "speedup", "comparison", "caveat",
                  "previous_unscored", "current_unscored", "previous_source", "current_source"]].reset_index(drop=True)
    x_title = _("Speed-up of the fastest known time, %(previous)s to %(current)s (×)") % {
        "previous": previous, "current": current}
    x = alt.X("speedup:Q", title=x_title, scale=_room_for_caveats(rows),
        axis=alt.Axis(values=[0.25, 0.5, 1, 1.5, 2], format=",.2~f", labelOverlap="greedy", labelSeparation=6))
    y = alt.Y("benchmark_name:N", title=None, sort=alt.EncodingSortField("speedup", order="descending"))
    # Blue triangles up and vermilion triangles down for like-for-like points, a hollow grey ring for the
    # others: no alarming red for a point that only looks slower because of what it compares.
    palette = {_("faster"): ("#0072B2", "triangle-up"), _("slower"): ("#D55E00", "triangle-down"),
               _("not like for like"): ("#000000", "circle")}
    present = [name for name in palette if name in set(rows["comparison"])]
    legend = alt.Legend(orient="bottom")
    colour = alt.Color("comparison:N", title=None, legend=legend, scale=alt.Scale(
        domain=present, range=[CHART_COLOURS[palette[n][0]] for n in present]))
    shape = alt.Shape("comparison:N", title=None, legend=legend, scale=alt.Scale(
        domain=present, range=[palette[n][1] for n in present]))
    tooltip = [alt.Tooltip("benchmark_name:N", title=_("Benchmark")),
               alt.Tooltip("previous_minutes:Q", title=previous, format=",.4f"),
               alt.Tooltip("current_minutes:Q", title=current, format=",.4f"),
               alt.Tooltip("speedup:Q", title="×", format=",.2f"),
               alt.Tooltip("caveat:N", title=_("Not like for like"))]
    base = alt.Chart(rows)
    rule = alt.Chart(pd.DataFrame({"one": [1.0]})).mark_rule(strokeDash=[3, 3]).encode(x=alt.X("one:Q"))
    like = base.transform_filter("datum.caveat == ''").mark_point(filled=True, size=100).encode(
        x=x, y=y, color=colour, shape=shape, tooltip=tooltip)
    unlike = base.transform_filter("datum.caveat != ''").mark_point(filled=False, size=100, strokeWidth=2).encode(
        x=x, y=y, color=colour, shape=shape, tooltip=tooltip)
    # Vega places a text's first line at the point: lift a caveat of n lines by half of n - 1 lines (12 px each).
    lift = alt.ExprRef(f"-6 * (length(split(datum.caveat, '{CAVEAT_SEPARATOR}')) - 1)")
    notes = base.transform_filter("datum.caveat != ''").mark_text(align="left", dx=9, dy=lift, fontSize=10,
                                                                   lineBreak=CAVEAT_SEPARATOR).encode(
        x=x, y=y, text=alt.Text("caveat:N")).properties(name="caveats")
    # A row holds its caveat's lines (10 px text, 12 px apart) with room above and below.
    lines = max([1, *(len(caveat.split(CAVEAT_SEPARATOR)) for caveat in rows["caveat"] if caveat)])
    chart = alt.layer(rule, like, unlike, notes).properties(width="container",
                                                            height=max(140, len(rows) * max(40, 12 * lines + 18)))
    summary = [_("%(count)s benchmarks ran in both %(previous)s and %(current)s.") % {
        "count": lang.number(len(rows)), "previous": previous, "current": current}]
    top, bottom = rows.sort_values("speedup").iloc[-1], rows.sort_values("speedup").iloc[0]
    summary.append(_("Largest speed-up: %(top)s, %(top_speedup)s×; smallest: %(bottom)s, %(bottom_speedup)s×.") % {
        "top": top["benchmark_name"], "top_speedup": lang.number(top["speedup"], 2),
        "bottom": bottom["benchmark_name"], "bottom_speedup": lang.number(bottom["speedup"], 2)})
    for _i, row in rows[rows["caveat"] != ""].iterrows():
        summary.append(_("%(benchmark)s is not compared like for like: %(caveat)s.") % {
            "benchmark": row["benchmark_name"], "caveat": row["caveat"]})
    description = _("Fastest known time of each benchmark present in both rounds, as a speed-up.")
    columns = [Column("benchmark_name", _("Benchmark")), Column("previous_minutes", previous, "minutes"),
               Column("current_minutes", current, "minutes"), Column("speedup", "×", "ratio"),
               Column("caveat", _("Not like for like"))]
    shared = set(rows["benchmark"])
    scope = pd.concat([inputs.previous[inputs.previous["benchmark"].isin(shared)],
                       inputs.current[inputs.current["benchmark"].isin(shared)]])
    return ChartDraft(chart, _("Round over round"),
                      _("%(current)s against %(previous)s: fastest known time per benchmark") % {
                          "current": current, "previous": previous},
                      _("Above 1: faster than the previous round. Hollow grey rings do not compare like with like; "
                        "the label says why."),
                      description, rows, int(scope["score_minutes"].isna().sum()), len(scope), summary, columns,
                      # Narrow: the caveats leave the plot (the hollow ring stays; the table and tooltip say why).
                      narrow=narrow_variant({x_title: _("Speed-up (×)")}, drop=("caveats",)))
