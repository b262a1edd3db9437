"""Charts of the whole round: fastest result per benchmark, participation, system sizes, accelerator-minutes."""

from __future__ import annotations


from site_builder import metrics
from site_builder.charts.base import (
    CHART_HEIGHT,
    ChartDraft,
    ChartInputs,
    Column,
    NoData,
    accelerator_encodings,
    counted_from,
    minutes_axis,
    narrow_variant,
    result_columns,
    result_tooltip,
    short_minutes,
    vendor_color,
    who,
)
from site_builder.charts.lazy_altair import alt
from site_builder.hardware import CHART_COLOURS
from site_builder.i18n import Language


def fastest_per_benchmark(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    fastest = metrics.fastest_per_benchmark(inputs.current, inputs.round_benchmarks())
    plotted = fastest[fastest["score_minutes"].notna()].copy() if len(fastest) else fastest
    if plotted.empty:
        raise NoData(f"no result of {inputs.round} has a score")
    plotted["benchmark_name"] = [inputs.benchmark_name(b) for b in plotted["benchmark"]]
    plotted["label"] = [f"{s} · {lang.number(int(n))} × {a}" for s, n, a in
                        zip(plotted["submitter"], plotted["total_accelerators"], plotted["accelerator"])]
    plotted["short_label"] = [f"{lang.number(int(n))} × {a}" for n, a in
                              zip(plotted["total_accelerators"], plotted["accelerator"])]
    rows = plotted[["benchmark", "benchmark_name", "score_minutes", "submitter", "system_id", "system", "accelerator",
                    "accelerator_vendor", "total_accelerators", "label", "short_label",
                    "score_source"]].reset_index(drop=True)
    y = alt.Y("benchmark_name:N", title=None, sort=alt.EncodingSortField("score_minutes", order="ascending"))
    x = minutes_axis(lang, rows["score_minutes"], _("Time to train (minutes)") + " " + _("(log scale)"),
                     channel=alt.X)
    tooltip = [alt.Tooltip("benchmark_name:N", title=_("Benchmark")), *result_tooltip(lang)]
    base = alt.Chart(rows)
    dots = base.mark_point(filled=True, size=90).encode(
        x=x, y=y, tooltip=tooltip, **accelerator_encodings(inputs, lang, rows["accelerator"]))
    # Labels sit above their dot, turned leftwards in the right half so they stay inside the plot.
    middle = (rows["score_minutes"].min() * rows["score_minutes"].max()) ** 0.5
    labels = base.mark_text(align=alt.ExprRef(f"datum.score_minutes > {middle:.6g} ? 'right' : 'left'"),
                            baseline="bottom", dy=-7, fontSize=11).encode(x=x, y=y, text=alt.Text("label:N"))
    chart = alt.layer(dots, labels).properties(width="container", height=max(160, 44 * len(rows)))
    summary = [_("The fastest scored result of each of the %(count)s benchmarks of the round.") % {
        "count": lang.number(len(rows))}]
    quick, slow = rows.sort_values("score_minutes").iloc[0], rows.sort_values("score_minutes").iloc[-1]
    summary.append(_("Quickest to train: %(fast_benchmark)s in %(fast)s minutes (%(fast_who)s); longest: "
                     "%(slow_benchmark)s in %(slow)s minutes (%(slow_who)s).") % {
        "fast_benchmark": quick["benchmark_name"], "fast": lang.number(quick["score_minutes"], 2),
        "fast_who": who(lang, quick), "slow_benchmark": slow["benchmark_name"],
        "slow": lang.number(slow["score_minutes"], 2), "slow_who": who(lang, slow)})
    summary.append(_("Every fastest result ran on %(vendors)s accelerators.") % {
        "vendors": lang.list(inputs.hardware.vendors_in_order(rows["accelerator_vendor"]))})
    description = _("The fastest scored result of each benchmark in the round, with its system and scale.")
    columns = [Column("benchmark_name", _("Benchmark")), *result_columns(lang)]
    unscored = int(inputs.current["score_minutes"].isna().sum())
    return ChartDraft(chart, _("Fastest result per benchmark"), _("Fastest known result per benchmark"),
                      _("Minutes to train, lower is faster; label: submitter · accelerators."),
                      description, rows, unscored, len(inputs.current), summary, columns,
                      narrow=narrow_variant(short_minutes(lang), fields={"label": "short_label"},
                                            subtitle=_("Minutes to train, lower is faster; label: accelerators.")))


def participation(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    if inputs.current.empty:
        raise NoData(f"{inputs.round} has no results")
    rows = metrics.results_per_organization(inputs.current).assign(source=counted_from(inputs.round))
    order = list(dict.fromkeys(rows["submitter"]))
    chart = alt.Chart(rows).mark_bar().encode(
        y=alt.Y("submitter:N", title=None, sort=order),
        x=alt.X("results:Q", title=_("Results"), stack="zero", axis=alt.Axis(format=",d", tickMinStep=1)),
        color=vendor_color(inputs, lang, rows["accelerator_vendor"]),
        tooltip=[alt.Tooltip("submitter:N", title=_("Submitter")),
                 alt.Tooltip("accelerator_vendor:N", title=_("Accelerator vendor")),
                 alt.Tooltip("results:Q", title=_("Results"), format=",d"),
                 alt.Tooltip("total:Q", title=_("All results of the submitter"), format=",d")],
    ).properties(width="container", height=max(200, 18 * len(order)))
    total = int(rows["results"].sum())
    by_vendor = rows.groupby("accelerator_vendor")["results"].sum()
    top = rows.iloc[0]
    shares = [_("%(vendor)s %(share)s") % {"vendor": vendor, "share": lang.percent(by_vendor[vendor] / total)}
              for vendor in inputs.hardware.vendors_in_order(by_vendor.index)]
    summary = [_("%(orgs)s organizations submitted %(results)s results.") % {
                   "orgs": lang.number(len(order)), "results": lang.number(total)},
               _("Most results: %(submitter)s with %(count)s.") % {
                   "submitter": top["submitter"], "count": lang.number(int(top["total"]))},
               _("Share of the results by accelerator vendor: %(shares)s.") % {"shares": lang.list(shares)}]
    description = _("Number of results per organization, coloured by accelerator vendor.")
    columns = [Column("submitter", _("Submitter")), Column("accelerator_vendor", _("Accelerator vendor")),
               Column("results", _("Results"), "int")]
    return ChartDraft(chart, _("Participation"), _("Who submitted: results per organization"),
                      _("Every result of the round, scored or not, by accelerator vendor."),
                      description, rows, 0, total, summary, columns)


def scale_distribution(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    if inputs.current.empty:
        raise NoData(f"{inputs.round} has no results")
    rows = metrics.systems_by_scale(inputs.current).assign(source=counted_from(inputs.round))
    rows["layout"] = [_("multi-node") if m else _("single node") for m in rows["multi_node"]]
    layouts = [name for name in (_("single node"), _("multi-node")) if name in set(rows["layout"])]
    chart = alt.Chart(rows).mark_bar().encode(
        x=alt.X("total_accelerators:O", title=_("Accelerators per system"), sort="ascending",
                axis=alt.Axis(labelAngle=0, labelOverlap="greedy", labelExpr="format(datum.value, ',d')")),
        y=alt.Y("systems:Q", title=_("Systems"), stack="zero", axis=alt.Axis(format=",d", tickMinStep=1)),
        color=alt.Color("layout:N", title=None, legend=alt.Legend(orient="bottom"), scale=alt.Scale(
            domain=layouts, range=[CHART_COLOURS["#CC79A7" if name == _("single node") else "#0072B2"] for name in layouts])),
        tooltip=[alt.Tooltip("total_accelerators:Q", title=_("Accelerators per system"), format=",d"),
                 alt.Tooltip("layout:N", title=_("Layout")),
                 alt.Tooltip("systems:Q", title=_("Systems"), format=",d")],
    ).properties(width="container", height=CHART_HEIGHT)
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
    return ChartDraft(chart, _("Scale of the systems"), _("How big are the systems?"),
                      _("Systems of the round by number of accelerators."), description, rows, 0,
                      len(inputs.current), summary, columns)


def gpu_minutes(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    entries = metrics.gpu_minutes(inputs.current)
    if entries.empty:
        raise NoData(f"no result of {inputs.round} has a score")
    order = [b for b in inputs.round_benchmarks() if b in set(entries.loc[entries["gpu_minutes"] > 0, "benchmark"])]
    entries["benchmark_name"] = [inputs.benchmark_name(b) for b in entries["benchmark"]]
    rows = entries[["benchmark", "benchmark_name", "submitter", "system_id", "system", "accelerator",
                    "accelerator_vendor", "total_accelerators", "score_minutes", "gpu_minutes",
                    "score_source"]].reset_index(drop=True)
    label = _("Accelerator-minutes (time to train × accelerators, log scale)")
    narrow = narrow_variant({label: _("Accelerator-minutes (log)")})
    # A CPU-only system (early rounds) spends no accelerator-minutes: a zero has no place on the log axis, so its
    # result stays in the table and the CSV, and the chart says it is not drawn.
    on_axis = rows["gpu_minutes"] > 0
    chart = alt.Chart(rows).transform_filter("datum.gpu_minutes > 0").mark_point(filled=True, size=70).encode(
        x=alt.X("gpu_minutes:Q", title=label, scale=alt.Scale(type="log", nice=False, padding=12),
                axis=alt.Axis(format="~s", labelOverlap="greedy")),
        y=alt.Y("benchmark_name:N", title=None, sort=[inputs.benchmark_name(b) for b in order]),
        tooltip=result_tooltip(lang, [alt.Tooltip("gpu_minutes:Q", title=_("Accelerator-minutes"), format=",.0f")]),
        **accelerator_encodings(inputs, lang, rows.loc[on_axis, "accelerator"]),
    ).properties(width="container", height=max(160, 40 * len(order)))
    drawn = rows[on_axis]
    summary = [_("Accelerator-minutes of %(count)s scored results.") % {"count": lang.number(len(drawn))}]
    for benchmark in order:
        group = drawn[drawn["benchmark"] == benchmark]
        if len(group) > 1:
            low, high = group.iloc[0], group.iloc[-1]
            summary.append(_("%(benchmark)s: from %(low)s (%(low_who)s) to %(high)s (%(high_who)s).") % {
                "benchmark": low["benchmark_name"], "low": lang.number(round(low["gpu_minutes"])),
                "low_who": who(lang, low), "high": lang.number(round(high["gpu_minutes"])),
                "high_who": who(lang, high)})
    description = _("Time to train multiplied by accelerators: big clusters finish sooner but use more chip time.")
    if not on_axis.all():
        description += " " + _("Results of systems without accelerators (CPU only): %(count)s, not drawn on the "
                               "accelerator axis; the table lists them.") % {"count": lang.number(int((~on_axis).sum()))}
    columns = [Column("benchmark_name", _("Benchmark")),
               *result_columns(lang, Column("gpu_minutes", _("Accelerator-minutes"), "int"))]
    unscored = int(inputs.current["score_minutes"].isna().sum())
    return ChartDraft(chart, _("Accelerator-minutes"), _("What a result costs: accelerator-minutes"),
                      _("Time to train × number of accelerators for every scored result; "
                        "a rough proxy for cost, lower is cheaper."),
                      description, rows, unscored, len(inputs.current), summary, columns, narrow=narrow)
