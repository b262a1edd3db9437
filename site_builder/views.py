"""What each page type's template is given: one dataclass per page type, its fields the template's top-level
names (`{{ chart.title }}`, `{% for row in rows %}`). `pages` fills them in; the renderer passes one to Jinja
as a mapping (`**view`), so a template reads a field by its name and a misspelt one is an error in Python,
not a blank in the page."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from site_builder.charts import Chart
    from site_builder.config import SiteConfig
    from site_builder.content import Article
    from site_builder.display_names import DisplayNames
    from site_builder.metrics import Headline


class View:
    """A view model read as a mapping of its fields (`**view`, `view["chart"]`): how it reaches Jinja."""

    def keys(self) -> list[str]:
        return [f.name for f in fields(self)]

    def __getitem__(self, name: str) -> Any:
        if name not in self.keys():
            raise KeyError(name)
        return getattr(self, name)


@dataclass(frozen=True)
class SiteView(View):
    """What every page of the site shows (header, menu, footer)."""

    config: SiteConfig
    updated: dt.date
    names: DisplayNames
    section: str | None  # the menu entry this page is under
    lang_names: dict[str, str]  # language code -> its own name, for the language switcher
    round_nav: dict | None  # on another round's pages than the main round's: its name, label, section, claims
    round_name: str  # the round of the page (the main round's, on the pages of the whole site)
    previous_round: str | None  # the round it is compared with


@dataclass(frozen=True)
class ChooserView(SiteView):
    """The language chooser at the root, and the 404 page: every language's home."""

    homes: list[dict]


@dataclass(frozen=True)
class HomeView(SiteView):
    headline: Headline
    largest_note: str
    finding: list
    benchmarks_path: str
    showcase: dict | None  # the showcase benchmark's row of `fastest`, when it is scored
    fastest: dict  # rows, unscored, results, legend
    benchmarks: list[dict]
    charts: list[Chart]  # the key charts
    round_charts: list[Chart]
    own_articles: list[Article]
    other_articles: list[Article]


@dataclass(frozen=True)
class ChartsView(SiteView):
    charts: list[Chart]


@dataclass(frozen=True)
class ChartView(SiteView):
    chart: Chart
    embed_code: str
    finding: list[str]
    benchmark: dict | None  # name and path of the benchmark the chart is about
    nav: list[tuple[str, str, str]]  # (id, title, path) of the language's charts


@dataclass(frozen=True)
class EmbedView(SiteView):
    chart: Chart


@dataclass(frozen=True)
class ArticlesView(SiteView):
    own_articles: list[Article]
    other_articles: list[Article]


@dataclass(frozen=True)
class ArticleView(SiteView):
    article: Article
    translations: list[Article]
    parts: list[tuple[str, object]]  # ("html", text) and ("chart", Chart), in order
    article_round: dict  # the round the article is about: its label and its overview's path


@dataclass(frozen=True)
class BenchmarksView(SiteView):
    benchmarks: list[dict]


@dataclass(frozen=True)
class BenchmarkView(SiteView):
    benchmark: dict  # the benchmark's facts (benchmarks.csv)
    task: str
    finding: list
    finding_note: str | None
    charts: list[Chart]
    citing: list[Article]  # the language's articles that cite the benchmark
    benchmarks_path: str
    table: dict  # rows, legend, scored, unscored, result_ids
    rows: list[dict]
    scored: int
    chart: Chart  # the benchmark's results chart
    comparison: dict | None  # with the previous round
    comparison_names: dict | None
    nav: list[tuple[str, str, str]]
    rounds: list[dict]  # the rounds with results of the benchmark, each linked to its page


@dataclass(frozen=True)
class ClaimsView(SiteView):
    claims: list[dict]
    legend: list[tuple[str, str, int]]
    marks: dict


@dataclass(frozen=True)
class SearchView(SiteView):
    """The search page: the form, and every page of the language to browse (what a reader without
    JavaScript, or with the site opened as a file, has instead)."""

    articles: list[Article]
    benchmarks: list[tuple[str, str]]  # (name, path)
    charts: list[Chart]


@dataclass(frozen=True)
class RedirectView(View):
    """A page left at a renamed chart's old address."""

    config: SiteConfig
    target: str
    canonical: str
    message: str = ""  # what the page says before its link (default: that the chart has a new address)


@dataclass(frozen=True)
class RecordsView(SiteView):
    """Each benchmark's fastest result ever (`history.records`), and the charts across rounds."""

    records: list[dict]
    unscored: int  # results of every round without a score: none of them can hold a record
    results: int
    charts: list[Chart]
    rounds_path: str


@dataclass(frozen=True)
class RoundsView(SiteView):
    """Every round of the site, newest first, with its participation and a link to its pages."""

    rounds: list[dict]
    participation: Chart | None
    charts: list[Chart]  # one per benchmark family
    records_path: str
