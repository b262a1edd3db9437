"""Which pages the site has, where they live and what each shows (the site map as data)."""

from __future__ import annotations

import datetime as dt
import html
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd
from markupsafe import Markup, escape
from slugify import slugify

from site_builder import archive_pages, history
from site_builder import claims as claim_stage, derive, findings, freshness, metrics, paths
from site_builder.charts import Chart, Features, benchmark_chart_id
from site_builder.charts.history import history_chart_id
from site_builder.charts.scaling import scaling_chart_id
from site_builder.config import SiteConfig
from site_builder.content import Article
from site_builder.data import Dataset
from site_builder.display_names import DisplayNames
from site_builder.figures import FigureContext
from site_builder.i18n import Language
from site_builder.labels import (availability_mark, choice_label, format_value, legend, qualified_verdict_label, scope_label,
                                 score_detail, score_method_label, task_label, verdict_label)
from site_builder.render import served_path
from site_builder.rounds import RoundInfo, load_round_info, result_folder_url, round_order
from site_builder.shortcodes import BoundArticles, article_parts
from site_builder.views import (
    ArticlesView,
    ArticleView,
    BenchmarksView,
    BenchmarkView,
    ChartsView,
    ChartView,
    ChooserView,
    ClaimsView,
    EmbedView,
    HomeView,
    RedirectView,
    SearchView,
    SiteView,
    View,
)


@dataclass(frozen=True)
class Page:
    path: str  # output path, always a file
    lang: str | None  # None for language-neutral pages (the chooser, 404)
    template: str
    title: str
    alternates: dict[str, str]  # language -> path of the same page in that language
    # The template's view model (views.py); for a page with `late`, only what every page shows (a SiteView).
    context: View | dict = field(default_factory=dict)
    in_sitemap: bool = True
    x_default: str | None = None  # the page for readers whose language is not offered
    og_image: str | None = None  # output path of the page's Open Graph PNG
    # (title, kicker, footer, direction) of a text card, when og_image is one
    card: tuple[str, str, str, str] | None = None
    late: Callable[[], View] | None = field(default=None, compare=False, repr=False)  # the view, made only to render

    @property
    def url_path(self) -> str:
        return served_path(self.path)


def page_key(page: Page) -> str:
    """What the plan hands a page's maker: everything but `late`, whose reads are recorded as it is made."""
    return freshness.digest((page.path, page.lang, page.template, page.title, page.alternates, page.context,
                             page.in_sitemap, page.x_default, page.og_image, page.card))


def embed_code(config: SiteConfig, chart: Chart) -> str:
    """The iframe a host page pastes: absolute URL (it lives elsewhere), a title for screen readers."""
    return (f'<iframe src="{html.escape(config.base_url + paths.embed(chart.lang, chart.id))}" '
            f'title="{html.escape(chart.title)}" loading="lazy" style="width:100%;height:480px;border:0"></iframe>')


def _optional(value):
    return None if value is None or (isinstance(value, float) and pd.isna(value)) or value is pd.NA else value


def _written_decimals(text: str) -> int:
    return len(text.partition(".")[2])


def _run_minutes(text: str) -> list[tuple[float, int] | None]:
    """Per-run minutes as (value, decimals as written); None for a run that did not finish."""
    if not text:
        return []
    return [(float(item), _written_decimals(item)) if item else None for item in text.split(";")]


def result_rows(entries: pd.DataFrame, lang: Language, info: RoundInfo | None = None,
                names: DisplayNames | None = None) -> list[dict]:
    """Table rows with their detail view: scored results fastest first, then unscored ones by scale; the open
    division's after the closed division's, each labelled."""
    # the open division after the closed one: never ranked together
    ordered = entries.assign(missing=entries["score_minutes"].isna(), open=entries["division"] != "closed").sort_values(
        ["open", "missing", "score_minutes", "total_accelerators", "submitter", "system_id"])
    names = names or DisplayNames()
    rows = []
    for row in ordered.to_dict("records"):  # plain dicts: a tenth of the cost of iterrows' Series
        score = _optional(row["score_minutes"])
        rcp = _optional(row["rcp_scaling_factor"])
        rows.append({
            "anchor": paths.result_anchor(row["round"], row["submitter"], row["system_id"]), "round": row["round"],
            "submitter": row["submitter"], "submitter_name": names.submitter(row["submitter"]),
            "submitter_dir": row.get("submitter_dir") or "",
            "system": row["system"], "system_id": row["system_id"], "system_name": row["system_name"],
            "accelerator": row["accelerator"], "accelerator_model": row["accelerator_model"],
            "accelerators": int(row["total_accelerators"]), "nodes": int(row["number_of_nodes"]),
            "per_node": int(row["accelerators_per_node"]), "host_processor": row["host_processor"],
            "framework": row["framework"],
            "availability": choice_label("availability", row["availability"], lang) if row["availability"] else "",
            "hosting": choice_label("hosting", row["hosting"], lang) if row["hosting"] else "",
            # Source precision: a published 18.35 stays 18.35; without the column, the summarizer's 4 decimals.
            "score": score, "decimals": score_decimals_of(row),
            "method": method_of(row), "source_label": score_method_label(method_of(row), lang),
            "source": row["score_source"], "runs": _run_minutes(row["run_minutes"]),
            "how": score_detail(method_of(row), str(row["score_source"] or ""), lang),
            "carried_over": carried_over_of(row),
            "open_division": row["division"] == "open",
            "availability_mark": availability_mark(row["availability"], lang),
            "number_of_runs": _optional(row["number_of_runs"]),
            "rcp": rcp, "rcp_decimals": _written_decimals(repr(float(rcp))) if rcp is not None else 0,
            "notes": row["notes"], "result_id": row["result_id"],
            "folder": result_folder_url(info, row["submitter_dir"], row["system_id"],
                                        row.get("benchmark_dir") or row["benchmark"]) if info else None,
            "inferred": row["metadata_source"].startswith("inferred"),
        })
    # Variants of one system (one name, submitter and scale; e.g. two software versions) would look like one row:
    # only their ids tell them apart, so those rows show their id after the name.
    alike = Counter((r["system"], r["submitter"], r["accelerators"], r["nodes"]) for r in rows)
    for r in rows:
        if alike[r["system"], r["submitter"], r["accelerators"], r["nodes"]] > 1 and r["system"] != r["system_id"]:
            r["system"] = f"{r['system']} ({r['system_id']})"
    # One system filed in several folders of a submitter (a round's power submissions beside the plain one): the
    # folder tells them apart, in the name and in the anchor; the first folder keeps the anchor figures link to.
    folders: dict[str, list[dict]] = {}
    for r in rows:
        folders.setdefault(r["anchor"], []).append(r)
    for same in (group for group in folders.values() if len(group) > 1):
        for r in sorted(same, key=lambda r: r["submitter_dir"])[1:]:
            r["anchor"] = paths.result_anchor(r["round"], r["submitter_dir"], r["system_id"])
        for r in same:
            r["system"] = f"{r['system']} ({r['submitter_dir']})"
    return rows


def carried_over_of(row) -> dict | None:
    """The earlier result whose logs this result's are (the `carried_over_from` column: round/submitter/system)."""
    value = str(row.get("carried_over_from") or "")
    if not value:
        return None
    round_name, submitter, system_id = value.split("/", 2)
    return {"round": round_name, "submitter": submitter, "system_id": system_id}


def column_precision(rows: list[dict]) -> dict:
    """One precision for a table's Minutes column, so that its scores compare at a glance: the coarsest one
    recorded in it. Rounding a computed 11.8600 to 11.86 beside a claimed 11.59 invents no digit (padding 11.59
    to 11.5900 would); each result's detail view keeps its score as recorded. `rounded`: some score is shown
    with fewer decimals than recorded (the table says so)."""
    recorded = [row["decimals"] for row in rows if row["score"] is not None]
    shown = min(recorded, default=derive.COMPUTED_DECIMALS)
    return {"decimals": shown, "rounded": any(decimals > shown for decimals in recorded)}


def method_of(row: pd.Series) -> str:
    """The row's `score_method`; for data without that column (hand-written or older files), the kind its
    `score_source` text names, so that such a file is labelled the same way as a derived one."""
    return row.get("score_method") or derive.score_method(str(row.get("score_source") or "")) or ""


def score_decimals_of(row: pd.Series) -> int:
    """Decimals to show for a row's score: its `score_decimals`, else the summarizer's 4."""
    decimals = _optional(row.get("score_decimals"))
    return int(decimals) if decimals is not None else derive.COMPUTED_DECIMALS


def _anchor_of(row: pd.Series) -> str | None:
    """The row anchor of a scored result (None for the placeholder of a benchmark without scores)."""
    if _optional(row["score_minutes"]) is None:
        return None
    return paths.result_anchor(row["round"], row["submitter"], row["system_id"])


def results_table(entries: pd.DataFrame, lang: Language, info: RoundInfo | None,
                  names: DisplayNames | None = None) -> dict:
    """A results table with what a reader needs to read it: the legend of its sources and how many
    results have no score."""
    rows = result_rows(entries, lang, info, names)
    return {"rows": rows, "legend": legend([r["method"] for r in rows], lang), **column_precision(rows),
            "scored": sum(r["score"] is not None for r in rows),
            "unscored": sum(r["score"] is None for r in rows),
            "result_ids": any(r["result_id"] for r in rows)}


@dataclass(frozen=True)
class RoundSection:
    """One round's part of the site: what its pages are made from."""

    name: str
    context: FigureContext  # its figures' round, and the round it is compared with
    charts: list[Chart]
    features: Features | None
    verdicts: tuple  # its claims


@dataclass(frozen=True)
class _Plan:
    """What one round's page planners need: the inputs and the values computed once for all languages. The
    site-wide pages (articles, search) are planned with the main round's."""

    config: SiteConfig
    dataset: Dataset
    articles: list[Article]  # every article of the site
    charts_by: dict  # (lang, chart id) -> Chart of this round
    codes: list[str]
    common: dict  # the fields of SiteView shared by every page of the round (all but `section`)
    round_benchmarks: list[str]
    headline: metrics.Headline
    fastest: pd.DataFrame
    bound: BoundArticles  # the articles' figures and claims, resolved
    round_infos: dict[str, RoundInfo]  # round -> its declared facts (results repository for folder links)
    round: RoundSection
    charts_of: dict  # round -> its charts_by: an article shows its own round's charts
    across: dict  # benchmark -> (round, results, fastest row) of each round that ran it, oldest first
    history_of: dict  # benchmark -> id of its family's chart across rounds (a chart of the main round's)
    features: Features | None = None
    names: DisplayNames = field(default_factory=DisplayNames)
    memo: dict = field(default_factory=dict, compare=False, repr=False)  # shared by the rounds' plans (`remembered`)

    @property
    def main(self) -> bool:
        return self.round.name == self.config.round

    @property
    def section(self) -> str:
        return paths.round_section(self.round.name, self.main)

    @property
    def previous(self) -> str | None:
        return self.round.context.previous_round

    @property
    def first_round(self) -> str:
        """The oldest round of the data: what ran before it is not in this archive."""
        return min(self.dataset.results["round"].unique(), key=round_order)

    def article_round(self, article: Article) -> str:
        return article.round or self.config.round

    def round_articles(self, code: str) -> tuple[list[Article], list[Article]]:
        """This round's articles: the language's own, then the other languages'."""
        def compute() -> tuple[list[Article], list[Article]]:
            own, others = _articles_by_language(self, code)
            return ([a for a in own if self.article_round(a) == self.round.name],
                    [a for a in others if self.article_round(a) == self.round.name])

        return freshness.remembered(self.memo, ("round articles", self.round.name, code), compute,
                                    _whole(self.articles))

    def view(self, kind: type[View], section: str | None = None, **values) -> View:
        """A page's view model: what every page shows, then the page type's own `values`."""
        return kind(**self.common, section=section, **values)

    @property
    def current(self) -> pd.DataFrame:
        return self.dataset.round(self.round.name)

    def every_language(self, path_of) -> dict[str, str]:
        return {code: path_of(code) for code in self.codes}

    @property
    def figure_context(self) -> FigureContext:
        return self.round.context

    @property
    def benchmark_names(self) -> dict[str, str]:
        return {str(b): str(self.dataset.benchmarks.loc[b, "name"]) for b in self.dataset.benchmarks.index}

    def chart_benchmark(self, chart: Chart) -> str | None:
        """The benchmark a chart is about: results-<benchmark> charts say so, the scaling showcase is the
        round's scaling benchmark; round-wide charts have none."""
        showcase = self.features.scaling_benchmark if self.features else None
        if chart.benchmark is None and showcase and chart.id == scaling_chart_id(showcase):
            return showcase
        return chart.benchmark

    def citing(self, code: str) -> dict[str, list[Article]]:
        """Benchmark -> the language's own articles of this round that cite it (`benchmarks_cited`)."""
        def compute() -> dict[str, list[Article]]:
            found: dict[str, list[Article]] = {}
            for article in _articles_by_language(self, code)[0]:
                for benchmark in sorted(self.benchmarks_cited(article)):
                    found.setdefault(benchmark, []).append(article)
            return found

        return freshness.remembered(self.memo, ("citing", self.round.name, code), compute, _whole(self.articles))

    def benchmarks_cited(self, article: Article) -> set[str]:
        """Benchmarks an article of this round cites: through a chart shortcode or a bound figure's result rows."""
        if self.article_round(article) != self.round.name:
            return set()
        charts_by = self.charts_of[self.article_round(article)]
        cited = {self.chart_benchmark(charts_by[(article.lang, chart_id)])
                 for chart_id, _line in article.charts if (article.lang, chart_id) in charts_by}
        for code in article.shortcodes:
            quantity = self.bound.figures.get((article.source, code.index))
            if quantity is not None:
                cited |= {ref.benchmark for ref in quantity.refs}
        return cited - {None}

    def benchmark_entries(self, lang: Language, page_path: str) -> list[dict]:
        """Every benchmark of the round with its counts and its finding, for the index and the home page."""
        code, first = lang.code, self.first_round
        entries = []
        for b in self.round_benchmarks:
            rows = self.dataset.entries(self.round.name, b)
            entries.append({
                "id": b, "name": self.dataset.benchmarks.loc[b, "name"],
                "path": paths.benchmark(code, b, self.section),
                "task": task_label(self.dataset.benchmarks.loc[b, "task"], lang),
                "results": len(rows), "scored": int(rows["score_minutes"].notna().sum()),
                # new in this round: unless it is the archive's first round, where what ran before is not in the data
                "new": self.dataset.benchmarks.loc[b, "round_introduced"] == self.round.name != first,
                "first_in_archive": self.dataset.benchmarks.loc[b, "round_introduced"] == self.round.name == first,
                "finding": findings.fastest_sentence(rows, self.figure_context, lang, self.names,
                                                     page_path, self.benchmark_names,
                                                     prefix=f"finding-{slugify(b)}"),
            })
        return entries


def plan_pages(config: SiteConfig, languages: list[Language], dataset: Dataset, articles: list[Article],
               rounds: list[RoundSection], updated: dt.date, bound: BoundArticles,
               names: DisplayNames | None = None) -> list[Page]:
    """Every page: per language, each round's section (the main round's at the language's root), then the
    articles and the search page, which belong to the whole site."""
    codes = [lang.code for lang in languages]
    homes = [{"code": lang.code, "name": lang.native_name, "title": config.title[lang.code],
              "path": paths.home(lang.code), "not_found": lang.gettext("This page does not exist.")}
             for lang in languages]
    names = names or DisplayNames()
    round_infos = {section.name: load_round_info(config.data_dir, section.name) for section in rounds}
    charts_of = {section.name: {(c.lang, c.id): c for c in section.charts} for section in rounds}
    fastest = {section.name: metrics.fastest_per_benchmark(dataset.round(section.name),
                                                           dataset.benchmarks_in(section.name)) for section in rounds}
    across: dict[str, list] = {}  # every page of a benchmark, in every round and language, lists the same rounds
    for section in rounds:
        counts = metrics.closed(dataset.round(section.name))["benchmark"].value_counts()  # what the best is of
        for _, best in fastest[section.name].iterrows():
            across.setdefault(best["benchmark"], []).append((section.name, int(counts[best["benchmark"]]), best))
    history_of = {benchmark: history_chart_id(*family) for family in history.families(
        dataset.results, list(dataset.benchmarks.index), [section.name for section in rounds], dataset.successors)
        for benchmark in family}
    plans, memo = {}, {}
    for section in rounds:
        current = dataset.round(section.name)
        round_benchmarks = dataset.benchmarks_in(section.name)
        main = section.name == config.round
        round_nav = None if main else {
            "name": section.name, "label": round_infos[section.name].label,
            "section": paths.round_section(section.name, main), "claims": bool(section.verdicts)}
        common = {"config": config, "updated": updated, "names": names, "round_nav": round_nav,
                  "round_name": section.name, "previous_round": section.context.previous_round,
                  "lang_names": {lang.code: lang.native_name for lang in languages}}
        plans[section.name] = _Plan(
            config, dataset, articles, charts_of[section.name], codes, common, round_benchmarks,
            metrics.headline(current), fastest[section.name], bound, round_infos,
            section, charts_of, across, history_of, section.features, names, memo)
    plan = plans[config.round]

    site = [Page(paths.CHOOSER, None, "chooser.html", config.title[config.default_language],
                 plan.every_language(paths.home), plan.view(ChooserView, homes=homes), x_default=paths.CHOOSER)]
    for lang in languages:
        for round_plan in plans.values():
            site += _round_pages(round_plan, lang)
        site += _article_pages(plan, lang)
        if config.search:
            site.append(_search_page(plan, lang))
        site += _main_round_redirects(plan, lang)
    site += archive_pages.archive_pages(config, languages, dataset, config.site_rounds, config.round, plan.charts_by,
                                        names, updated)
    site.append(Page(paths.NOT_FOUND, None, "404.html", "404", {}, plan.view(ChooserView, homes=homes),
                     in_sitemap=False))
    return site


def _round_pages(plan: _Plan, lang: Language) -> list[Page]:
    """A round's section: its overview, charts, benchmarks and claims (the main round's claims page is always
    there: the menu links to it)."""
    pages = [_home_page(plan, lang), *_chart_pages(plan, lang), _benchmarks_page(plan, lang)]
    pages += [_benchmark_page(plan, lang, benchmark) for benchmark in plan.round_benchmarks]
    if plan.main or plan.round.verdicts:
        pages.append(_claims_page(plan, lang, plan.round.verdicts))
    return pages


def _main_round_redirects(plan: _Plan, lang: Language) -> list[Page]:
    """The main round's pages at its round's address too (rounds/<round>/...), as every other round's are, so a
    link made there keeps working when the round is the main one, and once it is no longer: small pages that
    lead to the main round's pages, out of the sitemap."""
    code, config = lang.code, plan.config
    folder = paths.round_section(plan.round.name, main=False)
    targets = [(paths.round_home(code, folder), paths.home(code)),
               (paths.benchmarks(code, folder), paths.benchmarks(code)),
               (paths.charts(code, folder), paths.charts(code)),
               (paths.claims(code, folder), paths.claims(code))]
    targets += [(paths.benchmark(code, b, folder), paths.benchmark(code, b)) for b in plan.round_benchmarks]
    targets += [(paths.chart(code, chart.id, folder), chart.path)
                for (chart_lang, _id), chart in plan.charts_by.items() if chart_lang == code]
    message = lang.gettext("This page is at:")
    return [Page(path, code, "redirect.html", config.title[code], {},
                 RedirectView(config, target, target, message), in_sitemap=False) for path, target in targets]


def _home_page(plan: _Plan, lang: Language) -> Page:
    code, config, headline = lang.code, plan.config, plan.headline
    card_footer = lang.gettext("%(organizations)s organizations · %(results)s results · "
                               "%(accelerators)s accelerator types") % {
        "organizations": lang.number(headline.organizations), "results": lang.number(headline.results),
        "accelerators": lang.number(headline.accelerator_types)}
    section = plan.section
    label = plan.round_infos[plan.round.name].label
    title = config.title[code] if plan.main else label
    return Page(paths.round_home(code, section), code, "home.html", title,
                plan.every_language(lambda other: paths.round_home(other, section)),
                plan.view(SiteView), x_default=paths.CHOOSER if plan.main else paths.round_home(
                    config.default_language, section), og_image=paths.home_card(code, section),
                card=(title, label if plan.main else config.title[code], card_footer, lang.direction),
                late=lambda: _home_context(plan, lang))


def _home_context(plan: _Plan, lang: Language) -> HomeView:
    """The home page's findings, tables and lists: made only when the page is."""
    code, dataset = lang.code, plan.dataset
    home = paths.round_home(code, plan.section)
    benchmarks = plan.benchmark_entries(lang, home)
    fastest_rows = []
    for _, row in plan.fastest.iterrows():
        scored = _optional(row["score_minutes"]) is not None
        fastest_rows.append({
            "benchmark": row["benchmark"], "name": dataset.benchmarks.loc[row["benchmark"], "name"],
            "path": paths.benchmark(code, row["benchmark"], plan.section), "score": _optional(row["score_minutes"]),
            "decimals": score_decimals_of(row),
            "anchor": _anchor_of(row),
            "submitter": row.get("submitter"), "system": row.get("system"), "accelerator": row.get("accelerator"),
            "submitter_name": plan.names.submitter(row["submitter"]) if scored else None,
            "accelerators": _optional(row.get("total_accelerators")), "unscored": int(row["unscored"]),
            "results": len(metrics.closed(dataset.entries(plan.round.name, row["benchmark"]))),
            "availability_mark": availability_mark(row.get("availability"), lang) if scored else "",
            "source_label": score_method_label(method_of(row), lang) if scored else "",
            "method": method_of(row) if scored else None})
    unscored = sum(r["unscored"] for r in fastest_rows)
    fastest = {"rows": fastest_rows, "unscored": unscored, "results": sum(r["results"] for r in fastest_rows),
               **column_precision(fastest_rows),
               "legend": legend([r["method"] for r in fastest_rows if r["method"] is not None], lang)}
    headline = plan.headline
    own, others = plan.round_articles(code)
    showcase = plan.features.scaling_benchmark if plan.features else None
    key_charts = [plan.charts_by.get((code, chart_id)) for chart_id in
                  ["fastest-per-benchmark", scaling_chart_id(showcase) if showcase else None]]
    round_charts = [chart for (chart_lang, _id), chart in plan.charts_by.items()
                    if chart_lang == code and chart.benchmark is None]
    # The round's finding, from the data: the showcase benchmark's fastest result, then who took part.
    finding = [findings.round_sentence(plan.figure_context, lang, home, plan.benchmark_names)]
    if showcase in plan.round_benchmarks:
        finding.insert(0, findings.fastest_sentence(
            dataset.entries(plan.round.name, showcase), plan.figure_context, lang, plan.names, home,
            plan.benchmark_names, benchmark_name=str(dataset.benchmarks.loc[showcase, "name"])))
    return plan.view(
        HomeView, headline=headline, largest_note=_largest_note(headline, lang, plan.names),
        finding=finding, benchmarks_path=paths.benchmarks(code, plan.section),
        showcase=next((row for row in fastest_rows if row["benchmark"] == showcase and row["score"] is not None),
                      None),
        fastest=fastest, benchmarks=benchmarks,
        charts=[chart for chart in key_charts if chart is not None], round_charts=round_charts,
        own_articles=own, other_articles=others)


def _largest_note(headline: metrics.Headline, lang: Language, names: DisplayNames) -> str:
    """Who reached the largest scale: every system that shares it, or how many when there are more than three."""
    systems = headline.largest_scale_systems
    if len(systems) > 3:
        return lang.gettext("accelerators: %(count)s systems") % {"count": lang.number(len(systems))}
    # Two systems alike in submitter and scale (a framework's two containers, say) are said once, with their count.
    said = Counter(findings.result_who_short(row, lang, names) for _i, row in systems.iterrows())
    return lang.gettext("accelerators: %(systems)s") % {"systems": lang.list([
        who if count == 1 else lang.gettext("%(result)s, %(count)s systems") % {"result": who,
                                                                             "count": lang.number(count)}
        for who, count in said.items()])}


def _chart_pages(plan: _Plan, lang: Language) -> list[Page]:
    """The chart list, then per chart its permalink page and its embed page."""
    code, config, section = lang.code, plan.config, plan.section
    charts = [chart for (chart_lang, _id), chart in plan.charts_by.items() if chart_lang == code]
    pages = [Page(paths.charts(code, section), code, "charts.html", lang.gettext("Charts"),
                  plan.every_language(lambda other: paths.charts(other, section)),
                  plan.view(ChartsView, "charts", charts=charts),
                  x_default=paths.charts(config.default_language, section))]
    for chart in charts:
        def permalink(other: str, chart_id: str = chart.id) -> str:
            return plan.charts_by[(other, chart_id)].path

        benchmark = plan.chart_benchmark(chart)
        pages.append(Page(chart.path, code, "chart.html", chart.title, plan.every_language(permalink), plan.view(
            ChartView, "charts", chart=chart, embed_code=embed_code(config, chart),
            # The key finding: the summary's scope and its first finding (the rest stays in "What the chart shows").
            finding=[plan.names.in_text(sentence) for sentence in chart.summary[:2]],
            benchmark={"name": plan.dataset.benchmarks.loc[benchmark, "name"],
                       "path": paths.benchmark(code, benchmark, section)} if benchmark else None,
            nav=[(c.id, c.title, c.path) for c in charts],
        ), x_default=permalink(config.default_language), og_image=paths.chart_png(code, chart.id, section)))
        pages.append(Page(paths.embed(code, chart.id, section), code, "embed.html", chart.title, {},
                          plan.view(EmbedView, chart=chart), in_sitemap=False))
    return pages


def article_card(config: SiteConfig, lang: Language, article: Article) -> tuple[str, str, str, str]:
    """An article's Open Graph card: (title, kicker, footer, direction)."""
    return article.title, config.title[lang.code], lang.date(article.date), lang.direction


def _articles_by_language(plan: _Plan, code: str) -> tuple[list[Article], list[Article]]:
    """The language's own articles, then the others'; sorted once per build for every page that lists them."""
    def compute() -> tuple[list[Article], list[Article]]:
        own = [a for a in plan.articles if a.lang == code]
        others = sorted((a for a in plan.articles if a.lang != code),
                        key=lambda a: (plan.codes.index(a.lang), a.slug))
        return own, others

    return freshness.remembered(plan.memo, ("articles", code), compute, _whole(plan.articles))


def _whole(articles) -> freshness.Collection | None:
    return articles if isinstance(articles, freshness.Collection) else None


def _article_pages(plan: _Plan, lang: Language) -> list[Page]:
    """The article list (this language first, then the others, marked), then each article."""
    code, config = lang.code, plan.config
    own, others = _articles_by_language(plan, code)
    pages = [Page(paths.articles(code), code, "articles.html", lang.gettext("Articles"),
                  plan.every_language(paths.articles),
                  plan.view(ArticlesView, "articles", own_articles=own, other_articles=others),
                  x_default=paths.articles(config.default_language))]
    groups: dict[str, list[Article]] = {}
    for article in plan.articles:
        groups.setdefault(article.key, []).append(article)
    for article in own:
        translations = sorted((t for t in groups[article.key] if t.lang != code), key=lambda t: plan.codes.index(t.lang))
        alternates = {code: article.path, **{t.lang: t.path for t in translations}}

        def view(article: Article = article, translations: list[Article] = translations) -> ArticleView:
            # the body with its figures: only when the page is made; the charts of its round
            round_name = plan.article_round(article)
            parts = article_parts(article, plan.charts_of[round_name], plan.bound.html(article, lang, article.path))
            article_round = {"label": plan.round_infos[round_name].label, "path": paths.round_home(
                code, paths.round_section(round_name, round_name == config.round))}
            return plan.view(ArticleView, "articles", article=article, translations=translations, parts=parts,
                             article_round=article_round)

        pages.append(Page(article.path, code, "article.html", article.title,
                          {c: alternates[c] for c in plan.codes if c in alternates}, plan.view(SiteView, "articles"),
                          x_default=alternates.get(config.default_language),
                          og_image=paths.article_card(code, article.slug),
                          card=article_card(config, lang, article),
                          late=view))
    return pages


def _benchmark_page(plan: _Plan, lang: Language, benchmark: str) -> Page:
    code, config, section = lang.code, plan.config, plan.section
    name = str(plan.dataset.benchmarks.loc[benchmark, "name"])
    return Page(paths.benchmark(code, benchmark, section), code, "benchmark.html", name,
                plan.every_language(lambda other: paths.benchmark(other, benchmark, section)),
                plan.view(SiteView, "benchmarks"),
                x_default=paths.benchmark(config.default_language, benchmark, section),
                late=lambda: _benchmark_context(plan, lang, benchmark))


def _benchmark_context(plan: _Plan, lang: Language, benchmark: str) -> BenchmarkView:
    """A benchmark page's tables, findings and links: made only when the page is."""
    code, config, dataset = lang.code, plan.config, plan.dataset
    facts = {key: _optional(value) for key, value in dataset.benchmarks.loc[benchmark].to_dict().items()}
    facts.update(dataset.translated(benchmark, code))
    entries = dataset.entries(plan.round.name, benchmark)
    before = dataset.entries(plan.previous, benchmark) if plan.previous else entries.iloc[0:0]
    comparison = None
    if len(before):
        best_now = metrics.fastest_per_benchmark(entries).iloc[0]
        best_before = metrics.fastest_per_benchmark(before).iloc[0]
        comparison = {
            "round": plan.previous, "results": len(before),
            "scored": int(before["score_minutes"].notna().sum()), "before": best_before, "now": best_now,
            "speedup": _optional(best_before["score_minutes"] / best_now["score_minutes"]),
            "before_decimals": score_decimals_of(best_before), "now_decimals": score_decimals_of(best_now),
            "before_anchor": _anchor_of(best_before), "now_anchor": _anchor_of(best_now),
            "unscored_now": int(entries["score_minutes"].isna().sum()),
            # Every result of the previous round, so that a figure citing one has a row to link to.
            "table": results_table(before, lang, plan.round_infos.get(plan.previous), plan.names),
        }
    table = results_table(entries, lang, plan.round_infos.get(plan.round.name), plan.names)
    path = paths.benchmark(code, benchmark, plan.section)
    charts = [chart for (chart_lang, _id), chart in plan.charts_by.items()
              if chart_lang == code and plan.chart_benchmark(chart) == benchmark]
    across_rounds = plan.charts_of[config.round].get((code, plan.history_of.get(benchmark)))
    charts += [across_rounds] if across_rounds else []
    citing = plan.citing(code).get(benchmark, [])
    return plan.view(
        BenchmarkView, "benchmarks", benchmark=facts, task=task_label(facts["task"], lang),
        finding=[findings.fastest_sentence(entries, plan.figure_context, lang, plan.names, path,
                                           plan.benchmark_names)],
        finding_note=findings.unscored_sentence(entries, lang),
        charts=charts, citing=citing, benchmarks_path=paths.benchmarks(code, plan.section),
        rounds=_benchmark_rounds(plan, lang, benchmark),
        table=table, rows=table["rows"], scored=table["scored"],
        chart=plan.charts_by[(code, benchmark_chart_id(benchmark))], comparison=comparison,
        comparison_names={"before": plan.names.submitter(comparison["before"].get("submitter", "")),
                          "now": plan.names.submitter(comparison["now"].get("submitter", ""))}
        if comparison else None,
        nav=[(b, dataset.benchmarks.loc[b, "name"], paths.benchmark(code, b, plan.section))
             for b in plan.round_benchmarks])


def _benchmark_rounds(plan: _Plan, lang: Language, benchmark: str) -> list[dict]:
    """Every round with results of the benchmark, oldest first, each linked to its page of that round: the
    benchmark across the archive (a renamed folder is the same benchmark, `same_as`), its closed division's best
    and how many of its closed results that best rests on."""
    return [{"name": name, "label": plan.round_infos[name].label,
             "path": paths.benchmark(lang.code, benchmark, plan.figure_context.section(name)),
             "current": name == plan.round.name, "results": results,
             "score": _optional(best["score_minutes"]), "decimals": score_decimals_of(best),
             # a round's best that rests on a minority of its results says so where it stands
             "scored": results - int(best["unscored"]), "incomplete": (results - int(best["unscored"])) * 2 < results}
            for name, results, best in plan.across.get(benchmark, [])]


def _benchmarks_page(plan: _Plan, lang: Language) -> Page:
    """Every benchmark of the round with its finding and its result counts."""
    code, section = lang.code, plan.section
    return Page(paths.benchmarks(code, section), code, "benchmarks.html", lang.gettext("Benchmarks"),
                plan.every_language(lambda other: paths.benchmarks(other, section)), plan.view(SiteView, "benchmarks"),
                x_default=paths.benchmarks(plan.config.default_language, section),
                late=lambda: plan.view(BenchmarksView, "benchmarks",
                                       benchmarks=plan.benchmark_entries(lang, paths.benchmarks(code, section))))


def _search_page(plan: _Plan, lang: Language) -> Page:
    """The language's search page; its index is made with the site (`search`)."""
    code = lang.code
    return Page(paths.search(code), code, "search.html", lang.gettext("Search"), plan.every_language(paths.search),
                plan.view(SearchView, "search", articles=_articles_by_language(plan, code)[0],
                          benchmarks=[(plan.dataset.benchmarks.loc[b, "name"], paths.benchmark(code, b))
                                      for b in plan.round_benchmarks],
                          charts=[c for (c_lang, _), c in plan.charts_by.items() if c_lang == code]),
                x_default=paths.search(plan.config.default_language))


def alias_pages(config: SiteConfig, languages: list[Language], aliases: dict[str, str],
                charts: list[Chart]) -> list[Page]:
    """A small page at each old chart id (permalink and embed) that leads to the current chart:
    meta refresh, canonical link and a visible link. Not in the sitemap."""
    by = {(chart.lang, chart.id): chart for chart in charts}
    pages = []
    for lang in languages:
        for old, new in sorted(aliases.items()):
            chart = by[(lang.code, new)]
            for path, target in ((paths.chart(lang.code, old), chart.path),
                                 (paths.embed(lang.code, old), paths.embed(lang.code, new))):
                pages.append(Page(path, lang.code, "redirect.html", chart.title, {},
                                  RedirectView(config, target, chart.path), in_sitemap=False))
    return pages


def switcher(page: Page, languages: list[str]) -> list[tuple[str, str, bool]]:
    """For each language: the equivalent page, or that language's article list when the page (an article)
    has no translation, so a missing translation never breaks a link."""
    return [(code, page.alternates.get(code, paths.articles(code)), code in page.alternates) for code in languages]


def _claims_page(plan: _Plan, lang: Language, verdicts: tuple) -> Page:
    """The round's public claims with their verdicts, computed values and the result rows behind them."""
    code, names = lang.code, plan.dataset.benchmarks["name"]

    def row(ref) -> dict:
        return {"label": f"{plan.names.submitter(ref.submitter)} {ref.row['system']} "
                         f"({names.get(ref.benchmark, ref.benchmark)}, {ref.round})",
                "path": paths.benchmark(code, ref.benchmark, ref.section) + "#" + paths.result_anchor(
                    ref.round, ref.submitter, ref.system_id)}

    def evidence(quantity) -> list[dict]:
        return [row(ref) for ref in quantity.refs]

    def own_figure(ref) -> dict:
        """A row resting on its submitter's own figure (rule 7): its score and the publication it was taken from,
        which the data's `score_source` names in parentheses, in the data's language (English)."""
        named = re.search(r"\((.+)\)", str(ref.row.get("score_source") or ""))
        publication = named.group(1).strip() if named else ""
        return {**row(ref), "score": format_value(ref.score, "minutes", ref.score_decimals, lang),
                "method": score_method_label(claim_stage.OWN_FIGURE, lang), "publication": publication}

    def text(v, texts: dict | None) -> str | Markup | None:
        """The text in the page's language; the default language's, marked with its `lang`, when it has none."""
        found = v.text(texts, code)
        if found is None:
            return None
        shown, written_in = found
        # dir="auto": another language's text keeps its own direction (an English claim in an Arabic page).
        return shown if written_in == code else Markup(
            f'<span lang="{escape(written_in)}" dir="auto">{escape(shown)}</span>')

    items = [{
        "id": v.id, "anchor": v.anchor, "statement": text(v, v.statement), "source": v.source,
        "outlet": text(v, v.source.outlet), "verdict": v.verdict,
        "label": qualified_verdict_label(v.verdict, bool(v.own_figures), lang),
        "own_figures": [own_figure(ref) for ref in v.own_figures],
        "contradicted_by": {"source": v.contradicted_by.source, "outlet": text(v, v.contradicted_by.source.outlet),
                            "says": text(v, v.contradicted_by.says)} if v.contradicted_by else None,
        "scope": scope_label(v.scope, lang) if v.scope else None,
        "interpretation": text(v, v.interpretation),
        "caveat": text(v, v.caveat), "not_checkable": text(v, v.not_checkable),
        "context": format_value(v.context.value, v.context.unit, v.context.decimals, lang)
        if v.context else None,
        "checks": [{
            "figure": c.figure, "asserts": claim_stage.format_bound(c.asserts, lang),
            "computed": format_value(c.quantity.value, c.quantity.unit, c.quantity.decimals, lang),
            "tolerance": claim_stage.format_tolerance(c, lang),
            "opposite": claim_stage.format_bound(c.opposite, lang) if c.opposite else None,
            "outcome": c.outcome, "outcome_label": verdict_label(c.outcome, lang),
            "evidence": evidence(c.quantity)} for c in v.checks],
    } for v in verdicts]
    counts = {verdict: sum(1 for v in verdicts if v.verdict == verdict) for verdict in claim_stage.VERDICTS}
    legend = [(verdict, verdict_label(verdict, lang), counts[verdict]) for verdict in claim_stage.VERDICTS]
    section = plan.section
    return Page(paths.claims(code, section), code, "claims.html", lang.gettext("Claims about the round"),
                plan.every_language(lambda other: paths.claims(other, section)),
                plan.view(ClaimsView, "claims", claims=items, legend=legend, marks=claim_stage.VERDICT_MARKS),
                x_default=paths.claims(plan.config.default_language, section))
