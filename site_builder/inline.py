"""Bound figures: a `{{< fig ... >}}` shortcode (or a finding's number) becomes a localized number that links to
its row and says where it comes from. The `fig` entry of `shortcodes.SHORTCODES` binds with `resolve_figures`
(once for all articles, every unknown row reported together, at file:line:col) and renders with `figure_html`
(per page, in the page's language).
"""

from __future__ import annotations

import html
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Callable

from site_builder import cache, paths
from site_builder.errors import Collector
from site_builder.figures import FigureContext, FigureError, Quantity, ResultRef, evaluate, runs_mean
from site_builder.i18n import Language
from site_builder.labels import choice_label, format_quantity, score_method_label, score_source_label
from site_builder.render import relative_url


def resolve_figures(articles, context: FigureContext, problems: Collector,
                    data_key: str | None = None) -> dict[tuple[str, int], Quantity]:
    """(article source, shortcode index) -> computed figure, for every `fig` shortcode of every article.
    With `data_key` (a hash of the data folder) computed figures are kept in the build cache: a writer's
    rebuild does not look the same rows up again."""
    resolved = {}
    computed: dict[tuple, Quantity | FigureError] = {}  # the same figure cited in many articles is computed once
    for article in articles:
        for code in article.shortcodes:
            if code.name != "fig":
                continue
            metric, *args = code.args or [""]
            key = (metric, tuple(args), tuple(code.options))
            if key not in computed:
                entry = cache.key("figure", data_key, context.round, context.previous_round or "",
                                  context.main_round or "", context.site_rounds, *key) if data_key else None
                found = cache.load("figure", entry) if entry else None
                if isinstance(found, Quantity):
                    computed[key] = found
                else:
                    try:
                        computed[key] = evaluate(metric, args, dict(code.options), context)
                        if entry:
                            cache.save("figure", entry, computed[key])
                    except FigureError as error:
                        computed[key] = error
            found = computed[key]
            if isinstance(found, FigureError):
                problems.error(found.message, article.source, code.line, code.col, hint=found.hint)
            else:
                resolved[(article.source, code.index)] = found
    return resolved


def _describe_result(ref: ResultRef, lang: Language, benchmark_names: dict[str, str]) -> str:
    row = ref.row
    score = lang.number(row["score_minutes"], ref.score_decimals) if row["score_minutes"] == row["score_minutes"] \
        else "—"
    return lang.gettext("%(submitter)s, %(system)s (%(count)s × %(accelerator)s): %(benchmark)s, %(round)s, "
                        "%(minutes)s min; %(source)s") % {
        "submitter": ref.submitter, "system": ref.row["system"], "count": lang.number(ref.accelerators),
        "accelerator": row["accelerator"], "benchmark": benchmark_names.get(ref.benchmark, ref.benchmark),
        "round": ref.round, "minutes": score, "source": score_source_label(str(row["score_source"]), lang)}


def _filter_text(column: str, value: str, lang: Language, benchmark_names: dict[str, str]) -> str:
    """A figure's filter as a reader reads it ("Benchmark: " and the benchmark's name), not as written ("benchmark="
    and its id); a submitter's id is renamed with the rest of the text (`figure_html`'s `rename`)."""
    _ = lang.gettext
    label = {
        "benchmark": _("Benchmark"), "submitter": _("Submitter"), "submitter_dir": _("Submitter"),
        "system_id": _("System"), "system_name": _("System"), "accelerator": _("Accelerator"),
        "accelerator_vendor": _("Accelerator vendor"), "availability": _("Availability"), "hosting": _("Hosting"),
        "score_method": _("Source"), "division": _("Division"), "number_of_nodes": _("Nodes"),
        "accelerators_per_node": _("Accelerators per node"), "total_accelerators": _("Accelerators"),
        "min-accelerators": _("At least this many accelerators"),
    }.get(column, column)
    if column == "benchmark":
        value = benchmark_names.get(value, value)
    elif column == "submitter_dir":  # a submitter's folder is its name with "_" for spaces, renamed like a submitter
        value = value.replace("_", " ")
    elif column in ("availability", "hosting"):
        value = choice_label(column, value, lang)
    elif column == "score_method":
        value = score_method_label(value, lang)
    elif column == "division":
        value = {"closed": _("closed"), "open": _("open")}.get(value, value)
    elif column in ("number_of_nodes", "accelerators_per_node", "total_accelerators") and value.isdigit():
        value = lang.number(int(value))
    return _("%(column)s: %(value)s") % {"column": label, "value": value}


def describe(quantity: Quantity, lang: Language, benchmark_names: dict[str, str]) -> str:
    """Where the figure comes from, in the reader's language: the method, then each row used."""
    _ = lang.gettext
    from_runs = bool(quantity.refs) and runs_mean(quantity.refs[0].row) is not None  # as `evaluate` chose
    method = {
        "score": _("Time to train"),
        "accelerators": _("Accelerators in the system"),
        "nodes": _("Nodes in the system"),
        "runs": _("Runs in the result"),
        "rcp": _("RCP scaling factor applied to the score"),
        "acc-minutes": _("Time to train × accelerators"),
        "run": _("Minutes of one run of the result, from its log"),
        "unscaled": _("Time to train before RCP normalization: the olympic mean of the logged runs "
                      "(for three runs, the median)") if from_runs
        else _("Time to train before RCP normalization: score / RCP factor (the per-run times are not in the data)"),
        "efficiency": _("Scaling efficiency: (time × accelerators of the first) / (time × accelerators of the second)"),
        "speedup": _("Speed-up: time of the first / time of the second"),
        "ratio": _("Ratio: time of the first / time of the second"),
        "time-saved": _("Time saved: 1 − time of the second / time of the first"),
        "gap": _("Gap: time of the first / time of the second − 1"),
    }.get(quantity.metric)
    if method is None:  # a round figure: what was counted, over which rows
        what = {
            "organizations": _("Organizations"), "results": _("Results"), "scored-results": _("Scored results"),
            "systems": _("Systems"), "accelerator-types": _("Accelerator types"), "benchmarks": _("Benchmarks"),
            "accelerator-vendors": _("Makers of the accelerators"),
            "largest-scale": _("Accelerators in the largest system"),
            "multi-node-share": _("Share of systems with more than one node"),
            "benchmarks-led": _("Benchmarks whose fastest scored result matches the filters"),
        }[quantity.metric]
        scope = ", ".join(_filter_text(column, value, lang, benchmark_names) for column, value in quantity.filters)
        text = _("%(what)s, counted in the %(round)s results") % {"what": what, "round": quantity.round}
        return text + (f" ({scope})" if scope else "") + "."
    rows = "; ".join(_describe_result(ref, lang, benchmark_names) for ref in quantity.refs)
    return f"{method}. {rows}."


def machine_value(quantity: Quantity) -> str:
    """The number as shown, for `<data value>`: rounded as Babel rounds the text (the float's shortest decimal
    form, half to even), and a percentage as its fraction with two more decimals (68.5% is 0.685)."""
    shift = 2 if quantity.unit == "percent" else 0
    shown = Decimal(repr(float(quantity.value))).scaleb(shift)
    rounded = shown.quantize(Decimal(1).scaleb(-max(quantity.decimals, 0)), rounding=ROUND_HALF_EVEN)
    return f"{rounded.scaleb(-shift):f}"


# The column of a result's row where a figure's value is seen (the minutes for any time or ratio of times); None:
# only the detail view shows it, the link goes to the row.
VALUE_COLUMNS = {"accelerators": "accelerators", "nodes": "nodes", "runs": None, "rcp": None}


def figure_html(quantity: Quantity, lang: Language, page_path: str, element_id: str,
                benchmark_names: dict[str, str], rename: Callable[[str], str] = str, notes: dict | None = None) -> str:
    """A bound figure: the number links to its (first) row; its provenance is a tooltip that hover and
    keyboard focus reveal and that screen readers get as the link's description. `notes` keeps the
    tooltips already written (a figure cited on many pages is described once per language)."""
    text = html.escape(format_quantity(quantity, lang))
    value = f'<data value="{machine_value(quantity)}">{text}</data>'
    note = notes.get((quantity, lang.code)) if notes is not None else None
    if note is None:
        note = html.escape(rename(describe(quantity, lang, benchmark_names)))
        if notes is not None:
            notes[(quantity, lang.code)] = note
    tip = f'<span class="figure-note" role="tooltip" id="{element_id}">{note}</span>'
    if quantity.refs:
        ref = quantity.refs[0]
        anchor = paths.result_anchor(ref.round, ref.submitter, ref.system_id)
        column = VALUE_COLUMNS.get(quantity.metric, "minutes")
        href = relative_url(page_path, paths.benchmark(lang.code, ref.benchmark, ref.section)) + "#" + (
            paths.cell_anchor(anchor, column) if column else anchor)
        body = f'<a href="{html.escape(href)}" aria-describedby="{element_id}">{value}</a>'
    else:
        body = f'<span tabindex="0" aria-describedby="{element_id}">{value}</span>'
    return f'<span class="figure">{body}{tip}</span>'
