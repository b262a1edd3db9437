"""Charts across rounds, built once with the main round's charts: the fastest time of each benchmark family per
round (at any scale, and at the fixed scale of `history.FIXED_SCALE` accelerators) with the rule changes marked,
and participation over the rounds."""

from __future__ import annotations

import pandas as pd
from slugify import slugify

from site_builder import history
from site_builder.charts.base import ChartDraft, ChartFactory, ChartInputs, Column, NoData, minutes_axis, \
    narrow_variant, short_minutes, who
from site_builder.charts.lazy_altair import alt
from site_builder.hardware import CHART_COLOURS, distinct_colours
from site_builder.i18n import Language
from site_builder.labels import availability_mark


def site_rounds(inputs: ChartInputs) -> list[str]:
    return list(inputs.rounds) or [inputs.round]


def family_of(inputs: ChartInputs) -> list[tuple[str, ...]]:
    """The benchmark families with results in two rounds or more of the site's, in catalog order (a family of one
    round has no history yet: its round's charts show it)."""
    results, rounds = inputs.dataset.results, site_rounds(inputs)
    found = history.families(results, list(inputs.dataset.benchmarks.index), rounds, inputs.dataset.successors)
    return [family for family in found
            if len({r for b in family for r in history.rounds_of(results, b, rounds)}) > 1]


def history_chart_id(*family: str) -> str:
    """Named by the benchmark that started the family: a successor added later keeps the URL."""
    return "history-" + slugify(family[0])


def change_text(lang: Language, kind: str, before: str = "", after: str = "") -> str:
    """A rule change in words, for the table and the text alternative."""
    _ = lang.gettext
    if kind == "new":
        return _("new benchmark")
    if kind == "retired":
        return _("last round (retired)")
    if kind == "target":
        return _("quality target changed: %(before)s → %(after)s") % {"before": before, "after": after}
    return _("reference convergence points revised")


# The marker of each kind of change: up for a new benchmark, a cross for a retired one.
CHANGE_SHAPES = {"new": "triangle-up", "target": "diamond", "rcp": "square", "retired": "cross"}


def change_mark(lang: Language, kind: str) -> str:
    """A rule change in one or two words, drawn on the chart."""
    _ = lang.gettext
    return {"new": _("new"), "retired": _("retired"), "target": _("target changed"), "rcp": _("RCPs revised")}[kind]


SERIES_SHAPES = ("circle", "square", "triangle-up", "diamond", "triangle-down", "cross", "wedge", "stroke")


def family_history(family: tuple[str, ...]) -> ChartFactory:
    """The fastest scored time per round of a benchmark and its successors, at any scale and at the fixed scale."""

    def build(inputs: ChartInputs, lang: Language) -> ChartDraft:
        _ = lang.gettext
        rounds, results, scale = site_rounds(inputs), inputs.dataset.results, history.FIXED_SCALE
        any_scale, fixed = _("fastest at any scale"), _("fastest with %(scale)s accelerators") % {
            "scale": lang.number(scale)}
        table = pd.concat([history.fastest_by_round(results, family, rounds).assign(series=any_scale),
                           history.fastest_by_round(results, family, rounds, scale).assign(series=fixed)],
                          ignore_index=True)
        plotted = table[table["score_minutes"].notna()].copy()
        if plotted.empty:
            raise NoData(f"no scored result of {', '.join(family)} in any round")
        names = {b: inputs.benchmark_name(b) for b in family}
        changes = history.rule_changes(results, rounds, inputs.dataset.rules, family)
        said = {(r, b): " · ".join(change_text(lang, k, x, y) for k, x, y in
                                  zip(group["kind"], group["before"], group["after"]))
                for (r, b), group in changes.groupby(["round", "benchmark"], sort=False)}
        plotted["benchmark_name"] = [names[b] for b in plotted["benchmark"]]
        plotted["changes"] = [said.get((r, b), "") for r, b in zip(plotted["round"], plotted["benchmark"])]
        plotted["line"] = plotted["benchmark"] + " " + plotted["series"]
        rows = plotted[["benchmark", "benchmark_name", "round", "series", "score_minutes", "submitter", "system_id",
                        "system", "accelerator", "accelerator_vendor", "total_accelerators", "changes", "line",
                        "score_source", "carried_over_from", "results", "unscored", "availability"]].reset_index(drop=True)
        # a round's best on a preview or research system is marked as such wherever it is ranked
        rows["availability"] = [availability_mark(value, lang) for value in rows["availability"]]
        # A point that rests on fewer than half of its round's results (the rest unscored) is drawn hollow and says
        # how many it rests on: it may not be that round's best.
        rows["results"] = rows["results"].astype(int)
        rows["scored"] = rows["results"] - rows["unscored"].astype(int)
        rows["incomplete"] = rows["scored"] * 2 < rows["results"]
        rows["scored_of"] = [_("%(scored)s of %(results)s scored") % {"scored": lang.number(int(a)),
                                                                      "results": lang.number(int(b))}
                             for a, b in zip(rows["scored"], rows["results"])]
        rows = rows.drop(columns=["unscored"])
        # a round's best that is an earlier round's logs published again: its point is no progress, and says so
        rows["carried_over_from"] = rows["carried_over_from"].fillna("").astype(str)
        shown_rounds = [r for r in rounds if r in set(table["round"])]
        x = alt.X("round:O", title=None, sort=shown_rounds, scale=alt.Scale(domain=shown_rounds),
                  axis=alt.Axis(labelAngle=0, labelOverlap="greedy"))
        y = minutes_axis(lang, rows["score_minutes"], _("Time to train (minutes)") + " " + _("(log scale)"))
        # Room above the highest point for the change markers.
        low, high = float(rows["score_minutes"].min()), float(rows["score_minutes"].max())
        y.scale = alt.Scale(type="log", nice=False, padding=12, domain=[low / 1.3, high * 2.5])
        series = [s for s in (any_scale, fixed) if s in set(rows["series"])]
        members = [b for b in family if b in set(rows["benchmark"])]
        # One legend entry, colour and shape per benchmark and series: no two series share a colour (the first
        # benchmark's series keep the series' colours, a successor's get the palette's next ones).
        keys = [(b, s) for b in members for s in series if ((rows["benchmark"] == b) & (rows["series"] == s)).any()]
        label = {key: key[1] if len(members) == 1 else f"{names[key[0]]} · {key[1]}" for key in keys}
        rows["key"] = [label[(b, s)] for b, s in zip(rows["benchmark"], rows["series"])]
        palette = {any_scale: CHART_COLOURS["#0072B2"], fixed: CHART_COLOURS["#D55E00"]}
        legend = alt.Legend(orient="bottom", columns=1)
        domain = [label[key] for key in keys]
        colours = alt.Scale(domain=domain, range=distinct_colours([palette[s] for _b, s in keys]))
        colour = alt.Color("key:N", title=None, legend=legend, scale=colours)
        shape = alt.Shape("key:N", title=None, legend=legend, scale=alt.Scale(
            domain=domain, range=list(SERIES_SHAPES[:len(keys)])))
        tooltip = [alt.Tooltip("benchmark_name:N", title=_("Benchmark")), alt.Tooltip("round:N", title=_("Round")),
                   alt.Tooltip("series:N", title=_("Series")),
                   alt.Tooltip("score_minutes:Q", title=_("Time to train (minutes)"), format=",.4f"),
                   alt.Tooltip("submitter:N", title=_("Submitter")), alt.Tooltip("system:N", title=_("System")),
                   alt.Tooltip("accelerator:N", title=_("Accelerator")),
                   alt.Tooltip("total_accelerators:Q", title=_("Accelerators"), format=",d"),
                   alt.Tooltip("changes:N", title=_("Rule changes")),
                   alt.Tooltip("carried_over_from:N", title=_("Carried over")),
                   alt.Tooltip("scored_of:N", title=_("Results")),
                   alt.Tooltip("availability:N", title=_("Availability"))]
        base = alt.Chart(rows)
        # A line joins the rounds of one benchmark and series only: a successor is another benchmark, not a point
        # on the same curve.
        # The points carry the legend (colour and shape merged); the lines' colour has none of its own.
        lines = base.mark_line(strokeWidth=1.5).encode(x=x, y=y, color=alt.Color(
            "key:N", legend=None, scale=colours), detail="line:N")
        # a hollow point keeps its outline in its series' colour
        outline = alt.Stroke("key:N", legend=None, scale=colours)
        points = base.mark_point(filled=True, size=80, strokeWidth=1.5).encode(
            x=x, y=y, color=colour, shape=shape, tooltip=tooltip, stroke=outline,
            fillOpacity=alt.condition("datum.incomplete", alt.value(0), alt.value(1)))
        layers = [lines, points]
        marks = _change_marks(lang, changes, shown_rounds)
        resolve = {}
        if not marks.empty:
            rule_x = alt.X("round:O", sort=shown_rounds, scale=alt.Scale(domain=shown_rounds))
            change_tooltip = [alt.Tooltip("round:N", title=_("Round")), alt.Tooltip("said:N", title=_("Rule changes"))]
            layers.insert(0, alt.Chart(marks).mark_rule(strokeDash=[3, 3], color="#767676").encode(
                x=rule_x, tooltip=change_tooltip))
            # One grey marker per kind of change along the top of the plot, stacked where a round has several;
            # the legend names the kinds, the tooltip, table and text alternative say what changed.
            kinds = [change_mark(lang, k) for k in history.CHANGE_KINDS if k in set(marks["kind"])]
            layers.append(alt.Chart(marks).mark_point(filled=True, size=60, color="#767676", opacity=1).properties(
                name="changes").encode(
                x=rule_x, y=alt.Y("offset:Q", scale=None), tooltip=change_tooltip,
                shape=alt.Shape("mark:N", title=_("Rule changes"), legend=alt.Legend(orient="bottom", columns=1),
                                scale=alt.Scale(domain=kinds, range=[CHANGE_SHAPES[k] for k in history.CHANGE_KINDS
                                                                     if k in set(marks["kind"])]))))
            # The markers' shapes are their own scale; colour is resolved alike, so that the points' colour and
            # shape stay one legend (two would not fit side by side on a phone).
            resolve = {"shape": "independent", "color": "independent"}
        chart = alt.layer(*layers).properties(width="container", height=320)
        if resolve:
            chart = chart.resolve_scale(**resolve)

        title_names = " → ".join(names[b] for b in family)
        summary = [_("Fastest scored time of %(family)s in each round from %(first)s to %(last)s, at any scale and with "
                     "%(scale)s accelerators; time on a log scale.") % {
            "family": title_names, "first": shown_rounds[0], "last": shown_rounds[-1], "scale": lang.number(scale)}]
        summary.append(_("At any scale, the systems differ in size from round to round; with %(scale)s accelerators "
                         "they do not.") % {"scale": lang.number(scale)})
        for _i, row in rows[rows["incomplete"]].iterrows():
            summary.append(_("%(benchmark)s, %(round)s, %(series)s: a hollow point, resting on %(scored_of)s; an "
                             "unscored result may be faster.") % {
                "benchmark": row["benchmark_name"], "round": row["round"], "series": row["series"],
                "scored_of": row["scored_of"]})
        for benchmark in family:
            for name, label in ((any_scale, names[benchmark]), (fixed, _("%(benchmark)s with %(scale)s accelerators")
                                                                % {"benchmark": names[benchmark],
                                                                   "scale": lang.number(scale)})):
                mine = rows[(rows["benchmark"] == benchmark) & (rows["series"] == name)]
                if len(mine) < 2:
                    continue
                first, last = mine.iloc[0], mine.iloc[-1]
                best = mine.sort_values("score_minutes", kind="stable").iloc[0]
                summary.append(_("%(benchmark)s: %(first)s minutes in %(first_round)s, %(last)s in %(last_round)s; "
                                 "fastest %(best)s minutes in %(best_round)s (%(best_who)s).") % {
                    "benchmark": label, "first": lang.number(first["score_minutes"], 2), "first_round": first["round"],
                    "last": lang.number(last["score_minutes"], 2), "last_round": last["round"],
                    "best": lang.number(best["score_minutes"], 2), "best_round": best["round"],
                    "best_who": who(lang, best)})
        for benchmark in family:
            if not ((table["benchmark"] == benchmark) & (table["series"] == fixed)).any():
                summary.append(_("No result of %(benchmark)s with %(scale)s accelerators in any round.") % {
                    "benchmark": names[benchmark], "scale": lang.number(scale)})
        missing = table[table["score_minutes"].isna()]
        for _i, row in missing.iterrows():
            summary.append(_("%(benchmark)s, %(round)s, %(series)s: no scored result (%(unscored)s unscored).") % {
                "benchmark": names[row["benchmark"]], "round": row["round"], "series": row["series"],
                "unscored": lang.number(int(row["unscored"]))})
        for _i, row in changes.iterrows():
            summary.append(_("%(round)s, %(benchmark)s: %(change)s.") % {
                "round": row["round"], "benchmark": names[row["benchmark"]],
                "change": change_text(lang, row["kind"], row["before"], row["after"])})
        scope = results[results["benchmark"].isin(family) & results["round"].isin(rounds)]
        description = _("Fastest scored time per round, at any scale and with %(scale)s accelerators, with the rule "
                        "changes that make rounds hard to compare.") % {"scale": lang.number(scale)}
        columns = [Column("round", _("Round")), Column("benchmark_name", _("Benchmark")), Column("series", _("Series")),
                   Column("score_minutes", _("Minutes"), "minutes"), Column("submitter", _("Submitter")),
                   Column("system", _("System")), Column("accelerator", _("Accelerator")),
                   Column("total_accelerators", _("Accelerators"), "int"), Column("changes", _("Rule changes")),
                   Column("scored_of", _("Results")), Column("availability", _("Availability")),
                   Column("score_source", _("Source"), "source")]
        hollow = (" " + _("Hollow points: fewer than half of the round's results have a score.")
                  if rows["incomplete"].any() else "")
        return ChartDraft(chart, _("%(family)s across rounds") % {"family": title_names},
                          _("%(family)s: fastest time per round") % {"family": title_names},
                          _("Minutes to train, log scale, lower is faster. Dashed lines: rule changes; the fastest at "
                            "any scale compares systems of different sizes.") + hollow,
                          description, rows, int(scope["score_minutes"].isna().sum()), len(scope), summary, columns,
                          # Narrow: the markers and their legend leave (the dashed lines, the tooltip, the table and
                          # the text alternative still say what changed).
                          narrow=narrow_variant(short_minutes(lang), drop=("changes",) if not marks.empty else (),
                                                subtitle=_("Minutes to train, log scale. Dashed lines: rule changes.")
                                                + hollow))

    return build


def _change_marks(lang: Language, changes: pd.DataFrame, rounds: list[str]) -> pd.DataFrame:
    """One marker per round and kind of change, stacked from the top of the plot (pixels)."""
    marks = []
    for round_name in rounds:
        here = changes[changes["round"] == round_name]
        said = " · ".join(change_text(lang, k, x, y) for k, x, y in zip(here["kind"], here["before"], here["after"]))
        for position, kind in enumerate(k for k in history.CHANGE_KINDS if k in set(here["kind"])):
            marks.append({"round": round_name, "kind": kind, "mark": change_mark(lang, kind), "said": said,
                          "offset": 7 + 13 * position, "source": "data/rules.csv"})
    return pd.DataFrame(marks, columns=["round", "kind", "mark", "said", "offset", "source"])


def participation_over_rounds(inputs: ChartInputs, lang: Language) -> ChartDraft:
    _ = lang.gettext
    rounds = site_rounds(inputs)
    counts = history.participation(inputs.dataset.results, rounds)
    if counts.empty:
        raise NoData("no round has results")
    measures = {"organizations": _("Organizations"), "systems": _("Systems"),
                "accelerator_types": _("Accelerator types"), "results": _("Results"), "scored": _("Scored results")}
    long = counts.melt(id_vars="round", value_vars=list(measures), var_name="measure_id", value_name="count")
    long["measure"] = long["measure_id"].map(measures)
    long["source"] = [f"count of the {r} results in data/rounds/{r}/results.csv" for r in long["round"]]
    rows = long[["round", "measure", "count", "source"]]
    order = [r for r in rounds if r in set(counts["round"])]
    x = alt.X("round:O", title=None, sort=order, axis=alt.Axis(labelAngle=0, labelOverlap="greedy"))
    values = [v for v in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
              if rows["count"].min() / 2 <= v <= rows["count"].max() * 2]
    title = _("Count (log scale)")
    y = alt.Y("count:Q", title=title, scale=alt.Scale(type="log", nice=False, padding=12),
              axis=alt.Axis(values=values, format=",d"))
    domain = list(measures.values())
    palette = ["#0072B2", "#D55E00", "#009E73", "#000000", "#CC79A7"]
    legend = alt.Legend(orient="bottom", columns=3)
    colour = alt.Color("measure:N", title=None, legend=legend, sort=domain,
                       scale=alt.Scale(domain=domain, range=[CHART_COLOURS[c] for c in palette]))
    shape = alt.Shape("measure:N", title=None, legend=legend, sort=domain,
                      scale=alt.Scale(domain=domain, range=["circle", "square", "triangle-up", "diamond", "cross"]))
    tooltip = [alt.Tooltip("round:N", title=_("Round")), alt.Tooltip("measure:N", title=_("Measure")),
               alt.Tooltip("count:Q", title=_("Count"), format=",d")]
    base = alt.Chart(rows)
    chart = alt.layer(base.mark_line(strokeWidth=1.5).encode(x=x, y=y, color=colour, detail="measure:N"),
                      base.mark_point(filled=True, size=70).encode(x=x, y=y, color=colour, shape=shape,
                                                                   tooltip=tooltip)
                      ).properties(width="container", height=320)
    first, last = counts.iloc[0], counts.iloc[-1]
    summary = [_("%(rounds)s rounds, %(first)s to %(last)s; counts on a log scale.") % {
        "rounds": lang.number(len(counts)), "first": first["round"], "last": last["round"]}]
    top = counts.sort_values(["organizations", "round"], ascending=[False, True]).iloc[0]
    summary.append(_("Organizations: %(first)s in %(first_round)s, %(last)s in %(last_round)s; most in %(top_round)s "
                     "(%(top)s).") % {"first": lang.number(int(first["organizations"])), "first_round": first["round"],
                                      "last": lang.number(int(last["organizations"])), "last_round": last["round"],
                                      "top_round": top["round"], "top": lang.number(int(top["organizations"]))})
    for _i, row in counts.iterrows():
        summary.append(_("%(round)s: %(organizations)s organizations, %(systems)s systems, %(types)s accelerator types, "
                         "%(results)s results, %(unscored)s of them unscored.") % {
            "round": row["round"], "organizations": lang.number(int(row["organizations"])),
            "systems": lang.number(int(row["systems"])), "types": lang.number(int(row["accelerator_types"])),
            "results": lang.number(int(row["results"])), "unscored": lang.number(int(row["unscored"]))})
    description = _("Organizations, systems, accelerator types and results of each round; the gap between results "
                    "and scored results is the results without a score in our data.")
    columns = [Column("round", _("Round")), Column("measure", _("Measure")), Column("count", _("Count"), "int")]
    return ChartDraft(chart, _("Participation over rounds"), _("Who took part, round by round"),
                      _("Every result of each round, scored or not; log scale."), description, rows, 0,
                      int(counts["results"].sum()), summary, columns,
                      narrow=narrow_variant({title: _("Count (log)")}))
