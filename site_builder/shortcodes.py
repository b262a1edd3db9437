"""The article shortcodes, one registry entry each: `{{< chart ID >}}`, `{{< fig METRIC REF... >}}`,
`{{< claim ID >}}` and `{{< lit TEXT >}}`.

An entry owns its syntax (the hint a writer is shown), the check of its arguments when the Markdown parser
meets it, what the Markdown stage leaves in its place, its binding against the data (once for all articles,
every problem reported together) and its rendering in a page. `markup` parses, `bind` binds and
`BoundArticles.html` renders by dispatching through `SHORTCODES`; none of them names a shortcode.

This module is imported by the Markdown workers, so it stays light: binding and rendering import the data
layer (pandas) only when they run.
"""

from __future__ import annotations

import difflib
import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from site_builder.errors import Collector

if TYPE_CHECKING:  # the data layer, imported by binding and rendering only when they run
    from site_builder.charts import ChartSet
    from site_builder.figures import FigureContext

CHART_ID = re.compile(r"[a-z0-9][a-z0-9-]*")
INLINE_MARKER = re.compile(r"<!--sc:(\d+)-->")  # where a bound shortcode goes in an article's HTML
CHART_MARKER = re.compile(r"<!--chart:([a-z0-9-]+)-->")  # where a chart goes: the page splits the HTML there


@dataclass(frozen=True)
class Shortcode:
    """One `{{< NAME ARGS >}}` of an article, located in its file (line and column from 1)."""

    index: int
    name: str
    args: tuple[str, ...]
    options: tuple[tuple[str, str], ...]  # key=value arguments, in the order written
    line: int
    col: int

    def option(self, key: str, default: str | None = None) -> str | None:
        return dict(self.options).get(key, default)

    @property
    def text(self) -> str:
        """The arguments as written (what `lit` shows)."""
        return " ".join([*self.args, *(f"{k}={v}" for k, v in self.options)])


@dataclass(frozen=True)
class Inputs:
    """What shortcodes are bound against."""

    context: FigureContext  # the data and the rounds
    claims: dict  # claim id -> verdict
    charts: ChartSet | None = None  # None: chart ids are not checked (`site-builder check`)
    data_key: str | None = None  # hash of the data folder: computed figures are kept in the build cache


@dataclass(frozen=True)
class Kind:
    """One shortcode: how it is written, checked, left by the Markdown stage, bound and rendered."""

    syntax: str
    check: Callable[[str, tuple, tuple, bool, str], str | None]  # (name, args, options, own line, as written)
    leave: Callable[[Shortcode], tuple[str, str]]  # ("html", final HTML) or ("marker", text of the marker)
    bind: Callable[[list, Inputs, Collector], dict] | None = None  # -> (article source, index) -> bound value
    render: Callable[..., str] | None = None  # (bound value, shortcode, language, page path, BoundArticles)


def _needs_arguments(name: str, args: tuple, options: tuple, own_line: bool, written: str) -> str | None:
    return None if args or options else f"shortcode '{name}' needs arguments: {SHORTCODES[name].syntax}"


def _check_chart(name: str, args: tuple, options: tuple, own_line: bool, written: str) -> str | None:
    if len(args) != 1 or options or not CHART_ID.fullmatch(args[0]):
        return f"shortcode 'chart' needs one chart id, not {written!r}"
    if not own_line:
        return ("a chart shortcode must stand on a line of its own, at the top level (not in a paragraph, list, "
                "quote, table or footnote)")
    return None


def _of(articles, name: str):
    return ((article, code) for article in articles for code in article.shortcodes if code.name == name)


def _bind_chart(articles, inputs: Inputs, problems: Collector) -> dict:
    """Every chart shortcode names a built chart: a left-out chart says why, a renamed one its new id, an
    unknown one the closest id."""
    chart_set = inputs.charts
    if chart_set is None:
        return {}
    known, bound = chart_set.ids(), {}
    for article, code in _of(articles, "chart"):
        chart_id, line = code.args[0], code.line
        if chart_id in known:
            bound[(article.source, code.index)] = chart_id
        elif chart_id in chart_set.left_out:
            problems.error(f"chart '{chart_id}' is left out of this build", article.source, line,
                           hint=chart_set.left_out[chart_id].message)
        elif chart_id in chart_set.aliases:
            problems.error(f"chart '{chart_id}' is now called '{chart_set.aliases[chart_id]}'", article.source,
                           line, hint=f"write {{{{< chart {chart_set.aliases[chart_id]} >}}}}")
        else:
            close = difflib.get_close_matches(chart_id, known, n=1)
            problems.error(f"unknown chart '{chart_id}'", article.source, line,
                           hint=f"did you mean '{close[0]}'?" if close else "known: " + ", ".join(known))
    return bound


def _bind_fig(articles, inputs: Inputs, problems: Collector) -> dict:
    from site_builder.inline import resolve_figures  # the data layer: only when binding

    return resolve_figures(articles, inputs.context, problems, inputs.data_key)


def _render_fig(quantity, code: Shortcode, lang, page_path: str, bound: BoundArticles) -> str:
    from site_builder.inline import figure_html

    return figure_html(quantity, lang, page_path, f"fig-{code.index}", bound.benchmark_names, bound.rename,
                       bound.notes)


def _bind_claim(articles, inputs: Inputs, problems: Collector) -> dict:
    claims, bound = inputs.claims, {}
    for article, code in _of(articles, "claim"):
        if len(code.args) != 1 or code.options:
            problems.error("'claim' takes one claim id: {{< claim ID >}}", article.source, code.line, code.col)
        elif code.args[0] not in claims:
            close = difflib.get_close_matches(code.args[0], list(claims), n=3, cutoff=0.5)
            problems.error(f"unknown claim '{code.args[0]}'", article.source, code.line, code.col,
                           hint=("did you mean " + " or ".join(f"'{c}'" for c in close) + "?") if close
                           else "claims of this round: " + (", ".join(sorted(claims)) or "none"))
        else:
            bound[(article.source, code.index)] = claims[code.args[0]]
    return bound


def _render_claim(verdict, code: Shortcode, lang, page_path: str, bound: BoundArticles) -> str:
    from site_builder.claims import render_claim_inline

    return render_claim_inline(verdict, lang, page_path)


SHORTCODES: dict[str, Kind] = {  # in the order the hint lists them
    "chart": Kind("{{< chart ID >}} (on a line of its own)", _check_chart,
                  lambda code: ("marker", f"chart:{code.args[0]}"), _bind_chart),  # the page places the chart
    "fig": Kind("{{< fig METRIC REF... >}}", _needs_arguments, lambda code: ("marker", f"sc:{code.index}"),
                _bind_fig, _render_fig),
    "claim": Kind("{{< claim ID >}}", _needs_arguments, lambda code: ("marker", f"sc:{code.index}"),
                  _bind_claim, _render_claim),
    "lit": Kind("{{< lit TEXT >}}", _needs_arguments, lambda code: ("html", html.escape(code.text))),
}


@dataclass(frozen=True)
class BoundArticles:
    """Every article's shortcodes, bound once; `html()` renders them for one page."""

    bound: dict  # shortcode name -> {(article source, shortcode index) -> bound value}
    benchmark_names: dict[str, str]
    rename: Callable[[str], str] = str  # raw submitter ids in provenance text -> display names
    notes: dict = field(default_factory=dict, compare=False, repr=False)  # (Quantity, language) -> tooltip

    @property
    def figures(self) -> dict:
        """(article source, shortcode index) -> Quantity of each `fig`."""
        return self.bound.get("fig", {})

    def html(self, article, lang, page_path: str) -> str:
        """The article's HTML with every inline shortcode marker replaced, for a page at `page_path`."""
        from site_builder.content import html_of  # content imports markup, which imports this module

        codes = {code.index: code for code in article.shortcodes}

        def replace(match: re.Match) -> str:
            code = codes[int(match.group(1))]
            value = self.bound[code.name][(article.source, code.index)]
            return SHORTCODES[code.name].render(value, code, lang, page_path, self)

        return INLINE_MARKER.sub(replace, html_of(article))


def bind(articles, inputs: Inputs | dict[str, Inputs], rename: Callable[[str], str] = str,
         main_round: str | None = None) -> BoundArticles:
    """Bind every shortcode of every article against `inputs`; all failures reported together. With one
    `Inputs` per round, an article's shortcodes are bound in its round: its front matter `round`, else
    `main_round`."""
    problems = Collector()
    by_round = inputs if isinstance(inputs, dict) else {main_round: inputs}
    groups: dict = {}
    for article in articles:
        round_name = (article.round or main_round) if isinstance(inputs, dict) else main_round
        groups.setdefault(round_name, []).append(article)
    bound: dict = {name: {} for name, kind in SHORTCODES.items() if kind.bind}
    for round_name, group in groups.items():
        if round_name not in by_round:
            for article in group:
                problems.error(f"front matter 'round' names '{round_name}', a round this site does not have",
                               article.source, article.line_of.get("round", 1),
                               hint="rounds of this site: " + ", ".join(by_round))
            continue
        for name, kind in SHORTCODES.items():
            if kind.bind:
                bound[name].update(kind.bind(group, by_round[round_name], problems))
    problems.raise_if_any()
    benchmarks = next(iter(by_round.values())).context.dataset.benchmarks
    names = {str(b): str(benchmarks.loc[b, "name"]) for b in benchmarks.index}
    return BoundArticles(bound, names, rename)


def article_parts(article, charts_by: dict, html: str) -> list[tuple[str, object]]:
    """The article's HTML (its inline shortcodes rendered) split at its chart shortcodes: ("html", text)
    and ("chart", Chart) parts."""
    parts: list[tuple[str, object]] = []
    for index, piece in enumerate(CHART_MARKER.split(html)):
        if index % 2:
            parts.append(("chart", charts_by[(article.lang, piece)]))
        elif piece.strip():
            parts.append(("html", piece))
    return parts
