"""This project's own chart: how many results each submitter entered in the round.

A chart is a function of the round's data (`inputs`) and a language (`lang`) that returns a `ChartDraft`;
`@chart` gives it its id, which is part of its URL. See "Add a chart" in site-builder's README.
"""

import altair as alt

from site_builder.charts import ChartDraft, Column, NoData, chart


@chart("results-by-submitter")
def results_by_submitter(inputs, lang):
    _ = lang.gettext  # strings in _() are translated from locales/<lang>/LC_MESSAGES/messages.po
    results = inputs.current  # the round's rows of data/rounds/<round>/results.csv
    if results.empty:
        raise NoData("the round has no results")  # the chart is left out, with this reason
    rows = (results.groupby("submitter", as_index=False).size().rename(columns={"size": "results"})
            .sort_values(["results", "submitter"], ascending=[False, True]))
    # Every plotted row says where it comes from (the data table and the CSV download show it).
    rows["source"] = _("count of the rows of %(file)s") % {"file": f"data/rounds/{inputs.round}/results.csv"}
    bars = alt.Chart(rows).mark_bar().encode(
        x=alt.X("results:Q", title=_("Results"), axis=alt.Axis(format="d", tickMinStep=1)),
        y=alt.Y("submitter:N", sort="-x", title=None),
        tooltip=[alt.Tooltip("submitter:N", title=_("Submitter")), alt.Tooltip("results:Q", title=_("Results"))],
    ).properties(width="container", height=alt.Step(24))
    top = rows.iloc[0]
    # ngettext picks the plural form the language needs for the count (one, few, many, ...).
    summary = [lang.ngettext("%(count)s submitter entered results in %(round)s; %(top)s entered the most, %(most)s.",
                             "%(count)s submitters entered results in %(round)s; %(top)s entered the most, %(most)s.",
                             len(rows)) % {
        "count": lang.number(len(rows)), "round": inputs.round, "top": top["submitter"],
        "most": lang.number(int(top["results"]))}]
    return ChartDraft(
        bars,
        title=_("Results by submitter"),
        heading=_("Results by submitter"),
        subtitle=_("Results entered in the round, scored or not."),
        description=_("How many results each submitter entered in the round."),
        rows=rows,
        summary=summary,
        columns=[Column("submitter", _("Submitter")), Column("results", _("Results"), "int"),
                 Column("source", _("Source"))],
    )
