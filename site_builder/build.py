"""The build, top to bottom: config -> languages -> data -> content -> charts -> pages -> files -> disk."""

from __future__ import annotations

import datetime as dt
import difflib
import io
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from site_builder import assets, charts as chart_catalog, content, data, i18n, images, output, pages, render
from site_builder.config import SiteConfig, load_config
from site_builder.errors import Collector, Problem, SiteError


@dataclass(frozen=True)
class BuildReport:
    out_dir: Path
    languages: tuple[str, ...]
    pages: int
    charts: int
    files: int
    warnings: tuple[Problem, ...]
    seconds: float


def build_date(articles: list[content.Article]) -> dt.date:
    """The date shown as "updated": SOURCE_DATE_EPOCH when set, else the newest article, so that
    two builds of the same inputs are byte-identical whatever the clock says."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            return dt.datetime.fromtimestamp(int(epoch), tz=dt.timezone.utc).date()
        except (ValueError, OverflowError):
            raise SiteError(Problem(f"SOURCE_DATE_EPOCH={epoch!r} is not a Unix timestamp")) from None
    return max((a.date for a in articles), default=dt.date(1970, 1, 1))


def build_site(root: Path, out_dir: Path | None = None, base_url: str | None = None,
               strict: bool = False, progress: Callable[[int, int, str], None] | None = None) -> BuildReport:
    """`progress(done, total, stage)`, when given, is called as each stage starts (the CLI draws a bar)."""
    started = time.perf_counter()
    config = load_config(root, base_url)
    out_dir = out_dir if out_dir is not None else root / "_site"
    progress = progress or (lambda done, total, stage: None)
    progress(0, 4, "reading data and content")

    warnings: list[Problem] = []
    languages = []
    for code in config.languages:
        language, problems = i18n.load_language(code, config.locales_dir, root)
        languages.append(language)
        warnings += problems

    # Everything found in the inputs is reported in one run: warnings (with --strict), data, content.
    problems = Collector()
    if strict:
        problems.problems += [Problem(p.message, p.path, p.line, p.col, p.hint) for p in warnings]
    dataset = articles = None
    try:
        dataset = data.load_dataset(config.data_dir, [config.round, config.previous_round], root)
    except SiteError as error:
        problems.extend(error)
    try:
        articles = content.load_articles(config.content_dir, config.languages, root)
    except SiteError as error:
        problems.extend(error)
    problems.raise_if_any()

    progress(1, 4, "building charts")
    inputs = chart_catalog.ChartInputs(dataset, config.round, config.previous_round)
    _check_chart_references(articles, list(chart_catalog.catalog(inputs)))
    charts = chart_catalog.build_charts(inputs, languages)
    updated = build_date(articles)
    site_pages = pages.plan_pages(config, languages, dataset, articles, charts, updated)
    progress(2, 4, "rendering pages")

    files = output.SiteFiles()
    theme = assets.theme_assets(config.templates_dir)
    vega = assets.vega_bundle()
    for asset in [*theme.values(), vega]:
        files.add(asset.path, asset.content)
    asset_paths = {name: asset.path for name, asset in theme.items()} | {"vega.js": vega.path}
    envs = {lang.code: render.environment(config.templates_dir, lang, {"assets": asset_paths}, {
        "source_label": lambda source, lang=lang: pages.score_source_label(source, lang)}) for lang in languages}

    _add_chart_files(files, charts)
    _add_pages(files, site_pages, envs, config)
    _add_feeds_and_indexes(files, site_pages, envs, config, articles, charts, updated)

    progress(3, 4, "writing the site")
    output.write_site(files, out_dir)
    return BuildReport(out_dir, config.languages, len([p for p in site_pages if not p.path.startswith("embed/")]),
                       len(charts), len(files), tuple(warnings), time.perf_counter() - started)


def _add_pages(files: output.SiteFiles, site_pages: list[pages.Page], envs: dict, config: SiteConfig) -> None:
    """Every HTML page, in its language's environment, with its Open Graph image."""
    for page in site_pages:
        env = envs[page.lang or config.default_language]
        context = {**page.context, "page": page, "switcher": pages.switcher(page, list(config.languages))}
        files.add(page.path, render.render(env, page.template, context))
        if page.card:
            files.add(page.og_image, images.card_png(*page.card))
        elif page.og_image:
            files.add(page.og_image, images.chart_png(page.context["chart"].spec))


def _add_feeds_and_indexes(files: output.SiteFiles, site_pages: list[pages.Page], envs: dict, config: SiteConfig,
                           articles: list[content.Article], charts: list[chart_catalog.Chart],
                           updated: dt.date) -> None:
    """An Atom feed per language, the sitemap (with hreflang alternates) and robots.txt."""
    charts_by = {(chart.lang, chart.id): chart for chart in charts}
    for code, env in envs.items():
        path = f"{code}/feed.xml"
        entries = [(a, pages.article_parts(a, charts_by)) for a in articles if a.lang == code]
        files.add(path, render.render(env, "feed.xml", {
            "page": pages.Page(path, code, "feed.xml", config.title[code], {}), "config": config,
            "updated": updated, "entries": entries}))
    default_env = envs[config.default_language]
    files.add("sitemap.xml", render.render(default_env, "sitemap.xml", {
        "page": pages.Page("sitemap.xml", None, "sitemap.xml", "", {}), "config": config,
        "pages": [p for p in site_pages if p.in_sitemap]}))
    files.add("robots.txt", render.render(default_env, "robots.txt", {
        "page": pages.Page("robots.txt", None, "robots.txt", "", {}), "config": config}))


def _check_chart_references(articles: list[content.Article], known: list[str]) -> None:
    """Every {{< chart ID >}} names a chart of the catalog; suggest the closest id otherwise."""
    problems = Collector()
    for article in articles:
        for chart_id, line in article.charts:
            if chart_id not in known:
                close = difflib.get_close_matches(chart_id, known, n=1)
                problems.error(f"unknown chart '{chart_id}'", article.source, line,
                               hint=f"did you mean '{close[0]}'?" if close else "known: " + ", ".join(known))
    problems.raise_if_any()


def _add_chart_files(files: output.SiteFiles, charts: list[chart_catalog.Chart]) -> None:
    """Spec (JSON) and static SVG per chart and language; the plotted rows once per chart as CSV
    (from the first language: the rows are the same, only generated labels differ)."""
    for chart in charts:
        files.add(f"charts/{chart.lang}/{chart.id}.vl.json",
                  json.dumps(chart.spec, ensure_ascii=False, indent=1, allow_nan=False) + "\n")
        files.add(f"charts/{chart.lang}/{chart.id}.svg", images.chart_svg(chart.spec))
        csv_path = f"data/{chart.id}.csv"
        if csv_path not in files:
            buffer = io.StringIO()
            chart.rows.to_csv(buffer, index=False, lineterminator="\n")
            files.add(csv_path, buffer.getvalue())
