"""Inline shortcodes resolved against the data: `{{< fig ... >}}` becomes a localized number that links to
its row and says where it comes from; `{{< claim ID >}}` becomes the claim's verdict.

Resolution runs once for all articles (every unknown row reported together, at file:line:col); rendering
runs per page, in the page's language, replacing the `<!--sc:N-->` markers the Markdown stage left.
"""

from __future__ import annotations

import difflib
import html
import re
from dataclasses import dataclass, field
from typing import Callable

from site_builder import cache, paths
from site_builder.content import html_of
from site_builder.errors import Collector
from site_builder.figures import FigureContext, FigureError, Quantity, ResultRef, evaluate
from site_builder.i18n import Language
from site_builder.labels import format_quantity, score_source_label
from site_builder.render import relative_url

MARKER = re.compile(r"<!--sc:(\d+)-->")


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
                entry = cache.key("figure", data_key, context.round, context.previous_round or "", *key) \
                    if data_key else None
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
        "submitter": ref.submitter, "system": ref.system_id, "count": lang.number(ref.accelerators),
        "accelerator": row["accelerator"], "benchmark": benchmark_names.get(ref.benchmark, ref.benchmark),
        "round": ref.round, "minutes": score, "source": score_source_label(str(row["score_source"]), lang)}


def describe(quantity: Quantity, lang: Language, benchmark_names: dict[str, str]) -> str:
    """Where the figure comes from, in the reader's language: the method, then each row used."""
    _ = lang.gettext
    method = {
        "score": _("Time to train"),
        "accelerators": _("Accelerators in the system"),
        "nodes": _("Nodes in the system"),
        "runs": _("Runs in the result"),
        "rcp": _("RCP scaling factor applied to the score"),
        "acc-minutes": _("Time to train × accelerators"),
        "run": _("Minutes of one run of the result, from its log"),
        "unscaled": _("Time to train before RCP normalization: score / RCP factor"),
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
            "largest-scale": _("Accelerators in the largest system"),
            "multi-node-share": _("Share of systems with more than one node"),
            "benchmarks-led": _("Benchmarks whose fastest scored result matches the filters"),
        }[quantity.metric]
        scope = ", ".join(f"{column} = {value}" for column, value in quantity.filters)
        text = _("%(what)s, counted in the %(round)s results") % {"what": what, "round": quantity.round}
        return text + (f" ({scope})" if scope else "") + "."
    rows = "; ".join(_describe_result(ref, lang, benchmark_names) for ref in quantity.refs)
    return f"{method}. {rows}."


def figure_html(quantity: Quantity, lang: Language, page_path: str, element_id: str,
                benchmark_names: dict[str, str], rename: Callable[[str], str] = str, notes: dict | None = None) -> str:
    """A bound figure: the number links to its (first) row; its provenance is a tooltip that hover and
    keyboard focus reveal and that screen readers get as the link's description. `notes` keeps the
    tooltips already written (a figure cited on many pages is described once per language)."""
    text = html.escape(format_quantity(quantity, lang))
    value = f'<data value="{quantity.value:.{max(quantity.decimals, 0)}f}">{text}</data>'
    note = notes.get((quantity, lang.code)) if notes is not None else None
    if note is None:
        note = html.escape(rename(describe(quantity, lang, benchmark_names)))
        if notes is not None:
            notes[(quantity, lang.code)] = note
    tip = f'<span class="figure-note" role="tooltip" id="{element_id}">{note}</span>'
    if quantity.refs:
        ref = quantity.refs[0]
        href = relative_url(page_path, paths.benchmark(lang.code, ref.benchmark)) + "#" + paths.result_anchor(
            ref.round, ref.submitter, ref.system_id)
        body = f'<a href="{html.escape(href)}" aria-describedby="{element_id}">{value}</a>'
    else:
        body = f'<span tabindex="0" aria-describedby="{element_id}">{value}</span>'
    return f'<span class="figure">{body}{tip}</span>'


@dataclass(frozen=True)
class BoundArticles:
    """Every article's inline shortcodes, resolved once; `html()` renders them for one page."""

    figures: dict  # (article source, shortcode index) -> Quantity
    claims: dict  # claim id -> verdict
    benchmark_names: dict[str, str]
    claim_html: Callable[[object, Language, str], str]
    rename: Callable[[str], str] = str  # raw submitter ids in provenance text -> display names
    notes: dict = field(default_factory=dict, compare=False, repr=False)  # (Quantity, language) -> tooltip

    def html(self, article, lang: Language, page_path: str) -> str:
        """The article's HTML with every inline shortcode marker replaced, for a page at `page_path`."""
        codes = {code.index: code for code in article.shortcodes}

        def replace(match: re.Match) -> str:
            code = codes[int(match.group(1))]
            if code.name == "fig":
                return figure_html(self.figures[(article.source, code.index)], lang, page_path,
                                   f"fig-{code.index}", self.benchmark_names, self.rename, self.notes)
            if code.name == "claim":
                return self.claim_html(self.claims[code.args[0]], lang, page_path)
            raise AssertionError(f"no renderer for shortcode '{code.name}'")  # markup knows every name

        return MARKER.sub(replace, html_of(article))


def bind(articles, context: FigureContext, claims: dict, claim_html: Callable[[object, Language, str], str],
         rename: Callable[[str], str] = str,
         data_key: str | None = None) -> BoundArticles:
    """Resolve every `fig` and `claim` shortcode of every article; all failures reported together."""
    problems = Collector()
    figures = resolve_figures(articles, context, problems, data_key)
    for article in articles:
        for code in article.shortcodes:
            if code.name != "claim":
                continue
            if len(code.args) != 1 or code.options:
                problems.error("'claim' takes one claim id: {{< claim ID >}}", article.source, code.line, code.col)
            elif code.args[0] not in claims:
                close = difflib.get_close_matches(code.args[0], list(claims), n=3, cutoff=0.5)
                problems.error(f"unknown claim '{code.args[0]}'", article.source, code.line, code.col,
                               hint=("did you mean " + " or ".join(f"'{c}'" for c in close) + "?") if close
                               else "claims of this round: " + (", ".join(sorted(claims)) or "none"))
    problems.raise_if_any()
    names = {str(b): str(context.dataset.benchmarks.loc[b, "name"]) for b in context.dataset.benchmarks.index}
    return BoundArticles(figures, claims, names, claim_html, rename)
