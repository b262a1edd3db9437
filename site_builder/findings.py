"""Headlines that state the finding, computed from the data: the fastest result of a benchmark (ties named,
"no score yet" said), the round's headline for the home page. Numbers are bound figures (format, link to
their row and provenance exactly like an article's `fig` shortcodes)."""

from __future__ import annotations

import pandas as pd
from markupsafe import Markup, escape

from site_builder import metrics
from site_builder.display_names import DisplayNames
from site_builder.figures import FigureContext, FigureError, Quantity, evaluate
from site_builder.i18n import Language
from site_builder.inline import figure_html
from site_builder.labels import format_value


def _bound(quantity: Quantity, lang: Language, page_path: str, element_id: str, benchmark_names: dict,
           rename=str) -> Markup:
    return Markup(figure_html(quantity, lang, page_path, element_id, benchmark_names, rename))


def result_who(row, lang: Language, names: DisplayNames) -> str:
    """"Submitter, 8,192 × ACCELERATOR": who ran a result, at which scale, on what."""
    return lang.gettext("%(submitter)s, %(count)s × %(accelerator)s") % {
        "submitter": names.submitter(row["submitter"]), "count": lang.number(int(row["total_accelerators"])),
        "accelerator": row["accelerator"]}


def result_who_short(row, lang: Language, names: DisplayNames) -> str:
    """"Submitter (8,192 × ACCELERATOR)": the same, for a list of several."""
    return lang.gettext("%(submitter)s (%(count)s × %(accelerator)s)") % {
        "submitter": names.submitter(row["submitter"]), "count": lang.number(int(row["total_accelerators"])),
        "accelerator": row["accelerator"]}


def fastest_ties(entries: pd.DataFrame) -> pd.DataFrame:
    """Every scored result that shares the fastest time (empty when nothing is scored)."""
    scored = metrics.scored(entries)
    if scored.empty:
        return scored
    best = scored["score_minutes"].min()
    return scored[scored["score_minutes"] == best].sort_values(["total_accelerators", "submitter", "system_id"])


def _score_figure(row, context: FigureContext, lang: Language, page_path: str, element_id: str,
                  benchmark_names: dict, names: DisplayNames) -> Markup:
    reference = f"{row['round']}:{row['benchmark']}/{row['submitter']}/{row['system_id']}"
    try:
        quantity = evaluate("score", [reference], {}, context)
    except FigureError:  # an id the reference syntax cannot spell: the number, unlinked
        decimals = row.get("score_decimals")
        return escape(format_value(row["score_minutes"], "minutes", int(decimals) if pd.notna(decimals) else 4, lang))
    return _bound(quantity, lang, page_path, element_id, benchmark_names, names.in_text)


def fastest_sentence(entries: pd.DataFrame, context: FigureContext, lang: Language, names: DisplayNames,
                     page_path: str, benchmark_names: dict, benchmark_name: str | None = None,
                     prefix: str = "finding") -> Markup:
    """"Fastest: 2.0206 min, Submitter, 8,192 × ACCELERATOR." (or "Fastest NAME: ..." with a benchmark name); ties
    share the sentence; a benchmark without any score says so."""
    _ = lang.gettext
    # The same in every language: found once (the pair keeps `entries` alive, so its id is not reused).
    ties = context.remembered(("fastest ties", id(entries)), lambda: (entries, fastest_ties(entries)))[1]
    if ties.empty:
        text = lang.ngettext("No result is scored yet: the %(num)s result has no score in our data.",
                             "No result is scored yet: none of the %(num)s results has a score in our data.",
                             len(entries)) % {"num": lang.number(len(entries))}
        if benchmark_name:
            text = _("%(benchmark)s: %(finding)s") % {"benchmark": benchmark_name, "finding": text}
        return escape(text)
    figure = _score_figure(ties.iloc[0], context, lang, page_path, f"{prefix}-0", benchmark_names, names)
    who = result_who(ties.iloc[0], lang, names) if len(ties) == 1 else lang.list(
        [result_who_short(row, lang, names) for _i, row in ties.iterrows()])
    if len(ties) == 1:
        template = _("Fastest %(benchmark)s: %(minutes)s, %(who)s.") if benchmark_name else \
            _("Fastest: %(minutes)s, %(who)s.")
    else:
        template = _("Fastest %(benchmark)s: %(minutes)s, a tie between %(who)s.") if benchmark_name else \
            _("Fastest: %(minutes)s, a tie between %(who)s.")
    return Markup(escape(template) % {"benchmark": benchmark_name or "", "minutes": figure, "who": who})


def unscored_sentence(entries: pd.DataFrame, lang: Language) -> str | None:
    """How many results cannot be compared yet (None when all are scored or none is)."""
    unscored = int(entries["score_minutes"].isna().sum())
    if not unscored or unscored == len(entries):
        return None
    return lang.ngettext("%(num)s of %(total)s results has no score yet and is not compared.",
                         "%(num)s of %(total)s results have no score yet and are not compared.", unscored) % {
        "num": lang.number(unscored), "total": lang.number(len(entries))}


def round_sentence(context: FigureContext, lang: Language, page_path: str, benchmark_names: dict) -> Markup:
    """"22 organizations submitted 224 results on 9 accelerator types." with bound round figures."""
    figures = {name: evaluate(metric, [], {}, context) for name, metric in
               (("organizations", "organizations"), ("results", "results"), ("types", "accelerator-types"))}
    bound = {name: _bound(quantity, lang, page_path, f"round-{name}", benchmark_names)
             for name, quantity in figures.items()}
    template = lang.ngettext("%(organizations)s organizations submitted %(num)s result on %(types)s accelerator "
                             "types.", "%(organizations)s organizations submitted %(num)s results on %(types)s "
                             "accelerator types.", int(figures["results"].value))
    return Markup(escape(template.replace("%(num)s", "%(results)s")) % bound)
