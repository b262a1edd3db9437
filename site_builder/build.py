"""The build, top to bottom: config -> languages -> data -> content -> charts -> pages -> files -> disk."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from site_builder import (
    assets,
    cache,
    claims,
    content,
    csv_out,
    figures,
    i18n,
    images,
    output,
    pages,
    parallel,
    paths,
    render,
    shortcodes,
    uptodate,
)
from site_builder import charts as chart_catalog
from site_builder.config import SiteConfig, load_config, placeholder_base_url_problem
from site_builder.errors import Collector, Problem, SiteError, display_path
from site_builder.theme import Theme


@dataclass(frozen=True)
class BuildReport:
    """What a successful build made (the result of `build_site`)."""

    out_dir: Path
    """The folder the site was written to."""
    languages: tuple[str, ...]
    """The languages built, in site.toml's order."""
    pages: int
    """HTML pages (without the embed pages)."""
    charts: int
    """Charts, one per chart id and language."""
    files: int
    """Files in the output folder."""
    warnings: tuple[Problem, ...]
    """Warnings (and notes) found in the inputs, each located; with `strict=True` a warning fails the build."""
    seconds: float
    """Wall time of the build."""
    notes: tuple[Problem, ...] = ()
    """What the round's data does not call for (a chart it has no use for)."""
    written: int = 0
    """Files whose bytes changed (the others were left as they were)."""
    stages: tuple[tuple[str, float], ...] = ()
    """(stage, seconds) in build order: checking inputs, reading data and building charts, reading content,
    rendering pages, writing the site. Empty for a build that found nothing changed (and did nothing)."""


FEED_ENTRIES = 50  # the newest articles per feed, in full: what a reader subscribing catches up on (Pelican: 100)
UNTIMED_FIELDS = ("out_dir", "languages", "pages", "charts", "files", "warnings", "notes")  # kept for a no-op build


def build_date(articles: list[content.Article]) -> dt.date:
    """The date shown as "updated": SOURCE_DATE_EPOCH when set, else the newest article, so that
    two builds of the same inputs are byte-identical whatever the clock says."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            if epoch.isascii():  # int() would read '١٧٨١٢٢٢٤٠٠' as a timestamp too
                return dt.datetime.fromtimestamp(int(epoch), tz=dt.timezone.utc).date()
        except (ValueError, OverflowError, OSError):
            pass
        raise SiteError(Problem(f"SOURCE_DATE_EPOCH={epoch!r} is not a Unix timestamp"))
    return max((a.date for a in articles), default=dt.date(1970, 1, 1))


def build_site(root: Path, out_dir: Path | None = None, base_url: str | None = None,
               strict: bool = False, jobs: int | None = None,
               progress: Callable[[int, int, str], None] | None = None) -> BuildReport:
    """Build the site of the project in `root` (the folder holding site.toml) and return its `BuildReport`.

    - `out_dir`: where the site goes (default: `root / "_site"`); replaced atomically, so it never holds half a
      site. Not inside content/, data/, templates/ or locales/.
    - `base_url`: the address the site is served from, instead of site.toml's.
    - `strict`: warnings (a missing translation, a placeholder base URL, ...) fail the build.
    - `jobs`: worker processes for Markdown, pages and images (default: one per CPU; 1: none).
    - `progress(done, total, stage)`: called as each stage starts (the CLI draws a bar with it).

    Raises `SiteError` when the inputs have problems: its `.problems` lists every one found in the run (each a
    `Problem` with `message`, `path`, `line`, `col`, `hint` and `severity`; `str(problem)` reads
    `file:line: error: message`), and the previous site in `out_dir` is left untouched. A build whose inputs and
    output are unchanged since the last one does nothing and returns that build's report (with `written == 0`
    and no `stages`). Same as `site-builder build`, which calls it.
    """
    started = time.perf_counter()
    jobs = parallel.default_jobs() if jobs is None else max(1, jobs)
    config = load_config(root, base_url)
    out_dir = out_dir if out_dir is not None else root / "_site"
    cache_limit = assets.cache_limit()
    assets.open_cache()
    cache_state = _folder_mtime(assets.cache_dir() / "renders")  # an entry added changes it (a use does not)
    # Before reading anything: an edit made while the build runs counts as a change for the next one.
    data_print = cache.files_fingerprint(config.data_dir)
    site_print = uptodate.site_fingerprint(config, out_dir, data_print)
    inputs_hash = uptodate.inputs_fingerprint(config, out_dir, strict, site_print)
    if (previous := uptodate.previous_report(inputs_hash, out_dir)) is not None:
        return BuildReport(**previous, seconds=time.perf_counter() - started)  # the site is already this build
    progress = progress or (lambda done, total, stage: None)
    marks: list[tuple[str, float]] = [("checking inputs", started)]

    def stage(done: int, name: str) -> None:  # a stage starts: the progress bar, and the time of each stage
        marks.append((name, time.perf_counter()))
        progress(done, 4, name)

    stage(0, "reading data and building charts")

    # Everything found in the inputs is reported in one run: catalogs, data, content, and the
    # warnings with --strict (notes, such as an ignored editor file, never fail a build).
    problems = Collector()
    warnings: list[Problem] = []
    # Reported with the charts left out, so that --strict still finds every input problem first.
    placeholder = placeholder_base_url_problem(config, base_url)
    try:
        theme = config.theme
    except SiteError as error:
        raise SiteError(error.problems) from None  # without a theme there is nothing to render
    languages = []
    for code in config.languages:
        language, found = i18n.load_language(code, theme.locale_dirs, root, config.locales_dir)
        languages.append(language)
        problems.problems += [p for p in found if p.severity == "error"]
        warnings += [p for p in found if p.severity != "error"]
    problems.problems += output.out_dir_problems(out_dir, root, {  # before anything is rendered
        "content": config.content_dir, "data": config.data_dir, "templates": config.templates_dir,
        "locales": config.locales_dir, "charts": config.charts_dir})
    inputs = articles = chart_set = vega = None
    project_charts: list[chart_catalog.ChartEntry] = []
    try:  # results, accelerators and the round's declared chart features, checked against each other
        inputs = chart_catalog.load_inputs(config.data_dir, config.round, config.previous_round, root)
    except SiteError as error:
        problems.extend(error)
    try:  # the project's own charts (charts/*.py)
        project_charts, found = chart_catalog.load_project_charts(config.charts_dir, root)
        warnings += found
    except SiteError as error:
        problems.extend(error)
    reuse = _Reuse(output.SiteFiles(), uptodate.reusable_outputs(out_dir))
    if inputs is not None and not problems.problems:
        # The charts and their images before the articles, while this process is small: vl-convert's
        # worker then adds its 120 MB to a smaller total.
        try:
            vega = assets.vega_bundle(cached_only=True) or images.in_fresh_worker(assets.vega_bundle_task, [0])[0]
            if isinstance(vega, images.RenderFailure):
                raise SiteError(Problem(f"vl-convert could not make its JavaScript bundle (vega.js): {vega}"))
            keys = _chart_inputs_keys(config, data_print, theme)
            chart_set = chart_catalog.build_charts(inputs, languages, keys, project_charts)
            _add_chart_files(reuse, chart_set.charts, chart_set.aliases, jobs)
        except SiteError as error:
            problems.extend(error)
    stage(1, "reading content")
    try:
        articles = content.load_articles(config.content_dir, config.languages, root, warnings, jobs, compact=True)
    except SiteError as error:
        problems.extend(error)
    if strict:
        problems.problems += [Problem(p.message, p.path, p.line, p.col, p.hint) for p in warnings
                              if p.severity == "warning"]
    problems.raise_if_any()

    dataset, names = inputs.dataset, inputs.names  # display names are loaded with the data
    missing_names = names.missing("submitter", dataset.results["submitter"])
    if missing_names and (config.data_dir / "display_names.csv").exists():
        shown = display_path(config.data_dir / "display_names.csv", root)
        warnings.append(Problem("no display name for submitter " + ", ".join(f"'{m}'" for m in missing_names) +
                                "; shown as the raw id", shown, severity="note"))
    figure_context = figures.FigureContext(dataset, config.round, config.previous_round)
    verdicts = claims.evaluate_claims(config, figure_context, strict, warnings)
    bound = shortcodes.bind(articles, shortcodes.Inputs(figure_context, {v.id: v for v in verdicts}, chart_set,
                                                        data_print), names.in_text)
    late = [*([placeholder] if placeholder else []), *chart_set.left_out.values()]
    warnings += late
    if strict and late:
        raise SiteError([Problem(p.message, p.path, p.line, p.col, p.hint) for p in late])
    charts = chart_set.charts
    updated = build_date(articles)
    site_pages = pages.plan_pages(config, languages, dataset, articles, charts, updated, inputs.features,
                                  verdicts, bound, names)
    site_pages += pages.alias_pages(config, languages, chart_set.aliases, charts)
    stage(2, "rendering pages")

    files = reuse.files
    site_key = cache.key("pages", site_print, updated.isoformat())
    listing_key = cache.key("listing", site_key, _listing(articles, bound, chart_set))
    theme_files = assets.theme_assets(theme.assets())
    for asset in [*theme_files.values(), vega]:
        files.add(asset.path, asset.content)
    asset_paths = {name: asset.path for name, asset in theme_files.items()} | {"vega.js": vega.path}
    compiled = render.TemplateCache(assets.cache_dir() / "renders")
    envs = {lang.code: render.environment(theme.template_dirs, lang, {"assets": asset_paths, "names": names}, None,
                                          compiled)
        for lang in languages}

    _add_page_images(reuse, site_pages, jobs)
    spool = output.spool_folder(out_dir)  # pages go to disk as they are made, not into memory
    try:
        _add_pages(reuse, site_pages, envs, config, jobs, (site_key, listing_key), spool)
        _add_feeds_and_indexes(reuse, site_pages, envs, config, articles, charts, updated, bound,
                               {lang.code: lang for lang in languages}, (site_key, listing_key))
        stage(3, "writing the site")
        written = output.write_site(files, out_dir, background_removal=True)
    except _CannotSpool as error:
        raise SiteError(Problem(f"cannot write the site: {error}", out_dir.as_posix())) from None
    finally:
        shutil.rmtree(spool, ignore_errors=True)
    report = BuildReport(out_dir, config.languages, len([p for p in site_pages if not p.path.startswith("embed/")]),
                         len(charts), len(files), tuple(warnings), 0.0, tuple(chart_set.notes), written.written)
    uptodate.record(inputs_hash, out_dir, {field: getattr(report, field) for field in UNTIMED_FIELDS}, reuse.keys)
    if _folder_mtime(assets.cache_dir() / "renders") != cache_state:  # the cache grew: keep it in its bound
        images.trim_render_cache(cache_limit)
    ended = time.perf_counter()
    stages = tuple((name, end - start) for (name, start), (_next, end) in zip(marks, [*marks[1:], ("", ended)]))
    return dataclasses.replace(report, seconds=ended - started, stages=stages)


def _folder_mtime(folder: Path) -> int | None:
    try:
        return folder.stat().st_mtime_ns
    except OSError:
        return None


def _chart_inputs_keys(config: SiteConfig, data: str, theme: Theme) -> dict[str, str]:
    """Language code -> hash of what its charts are made from (`data`: the data folder's fingerprint, the
    rounds, the language's catalog)."""
    keys = {}
    for code in config.languages:
        catalogs = [i18n.catalog_path(folder, code) for folder in theme.locale_dirs]
        keys[code] = cache.key(data, config.round, config.previous_round or "", code,
                               tuple(path.read_bytes() if path.is_file() else b"" for path in catalogs),
                               cache.files_fingerprint(config.charts_dir))  # a project chart's helpers too
    return keys


@dataclass
class _Reuse:
    """The output files, and which of them the previous build already wrote from the same inputs.

    `previous` maps output paths to the key (hash of inputs) each was made from and its state (size, mtime,
    inode), for the files still as the last build left them; a file whose key is unchanged is carried over
    unread instead of being made again (and the write checks it is still that file).
    `keys` collects this build's keys, for the next one.
    """

    files: output.SiteFiles
    previous: dict[str, tuple[str, tuple[int, int, int]]]
    keys: dict[str, str] = dataclasses.field(default_factory=dict)

    def current(self, path: str, key: str) -> bool:
        """Note `path`'s key; True (and the file kept) when the previous site has it from the same inputs."""
        self.keys[path] = key
        found = self.previous.get(path)
        if found is not None and found[0] == key:
            self.files.keep(path, found[1])
            return True
        return False

    def render(self, path: str, task: images.Task, renderings: list[tuple[str, images.Task]]) -> None:
        if not self.current(path, images.rendering_key(task)):
            renderings.append((path, task))

    def add_renderings(self, renderings: list[tuple[str, images.Task]], jobs: int) -> None:
        """Make the renderings (in `jobs` processes) and add them to the site; one that vl-convert failed to
        make is a problem naming its file (charts/LANG/ID.svg)."""
        failed = []
        for (path, _), rendering in zip(renderings, images.render_all([task for _, task in renderings], jobs)):
            if isinstance(rendering, images.RenderFailure):
                failed.append(Problem(f"vl-convert could not render {path}: {rendering}",
                                      hint="a character in its texts (title, labels, names) it cannot draw?"))
            else:
                self.files.add(path, rendering)
        if failed:
            raise SiteError(failed)


def _listing(articles: list[content.Article], bound: shortcodes.BoundArticles,
             chart_set: chart_catalog.ChartSet) -> tuple:
    """What pages other than an article's own show of the articles: their records (lists, links, feeds' heads)
    and what each cites (charts, the benchmarks of its figures, claims: benchmark pages list citing articles)."""
    def cites(article: content.Article) -> tuple:
        figures = [bound.figures.get((article.source, code.index)) for code in article.shortcodes]
        return (tuple(sorted({chart_id for chart_id, _ in article.charts})),
                tuple(sorted({ref.benchmark for quantity in figures if quantity for ref in quantity.refs})),
                tuple(sorted({code.args[0] for code in article.shortcodes if code.name == "claim" and code.args})))

    return tuple((content.listing_record(article), cites(article)) for article in articles)


def _add_page_images(reuse: _Reuse, site_pages: list[pages.Page], jobs: int) -> None:
    """Each page's Open Graph image: a text card (a chart page's is its chart's PNG, made with the chart)."""
    renderings: list[tuple[str, images.Task]] = []
    for page in site_pages:
        if page.card:
            reuse.render(page.og_image, ("card", page.card), renderings)
        elif page.og_image and page.og_image not in reuse.files:
            reuse.render(page.og_image, ("png", page.context["chart"].spec), renderings)
    reuse.add_renderings(renderings, jobs)


def _add_pages(reuse: _Reuse, site_pages: list[pages.Page], envs: dict, config: SiteConfig, jobs: int,
               keys: tuple[str, str], spool: Path) -> None:
    """Every HTML page, in its language's environment (in `jobs` processes); template errors of all pages are
    reported together, once per template line. A page made from the same inputs as the previous site's is
    carried over (`keys`: the site's and the articles' listing keys)."""
    site_key, listing_key = keys
    problems = Collector()
    stale = [index for index, page in enumerate(site_pages) if not reuse.current(page.path, cache.key(
        "page", site_key, listing_key if page.inputs is None else page.inputs, page.path, page.template))]
    rendered = parallel.run(_render_page, stale, jobs, (site_pages, envs, config, spool))
    for index, (html, found) in zip(stale, rendered):
        if found:
            problems.problems += found
        else:
            reuse.files.add(site_pages[index].path, html)
    if problems.problems:
        raise SiteError(render.merge_page_problems(problems.problems))


class _CannotSpool(Exception):
    """A page could not be written to the spool (no space left, an I/O error); the message is the system's."""


def _render_page(shared: tuple[list[pages.Page], dict, SiteConfig, Path],
                 index: int) -> tuple[output.FromFile | None, list[Problem]]:
    """One page's HTML in a spool file, or its problems (a task of `parallel.run`)."""
    site_pages, envs, config, spool = shared
    page = site_pages[index]
    context = {**page.context, **(page.late() if page.late else {}), "page": page,
               "switcher": pages.switcher(page, list(config.languages))}
    try:
        html = render.render(envs[page.lang or config.default_language], page.template, context)
    except SiteError as error:
        return None, error.problems
    path = spool / f"{index}.html"
    try:
        path.write_bytes(html.encode("utf-8"))
    except OSError as error:  # a full disk: build_site reports it at the output folder, not as a traceback
        raise _CannotSpool(error.strerror or str(error)) from None
    return output.FromFile(str(path), owned=True), []


def _add_feeds_and_indexes(reuse: _Reuse, site_pages: list[pages.Page], envs: dict, config: SiteConfig,
                           articles: list[content.Article], charts: list[chart_catalog.Chart],
                           updated: dt.date, bound: shortcodes.BoundArticles, languages: dict,
                           keys: tuple[str, str]) -> None:
    """An Atom feed per language with its newest articles (made again when one of them changed), the sitemap
    (with hreflang alternates) and robots.txt."""
    charts_by = {(chart.lang, chart.id): chart for chart in charts}
    for code, env in envs.items():
        path = paths.feed(code)
        own = [a for a in articles if a.lang == code][:FEED_ENTRIES]  # newest first
        if reuse.current(path, cache.key("feed", *keys, path, tuple(a.digest for a in own))):
            continue
        # Relative to the article: each entry carries its article's URL as xml:base.
        entries = [(a, pages.article_parts(a, charts_by, bound.html(a, languages[code], a.path))) for a in own]
        reuse.files.add(path, render.render(env, "feed.xml", {
            "page": pages.Page(path, code, "feed.xml", config.title[code], {}), "config": config,
            "updated": updated, "entries": entries}))
    default_env = envs[config.default_language]
    if not reuse.current("sitemap.xml", cache.key("page", *keys, "sitemap.xml")):
        reuse.files.add("sitemap.xml", render.render(default_env, "sitemap.xml", {
            "page": pages.Page("sitemap.xml", None, "sitemap.xml", "", {}), "config": config,
            "pages": [p for p in site_pages if p.in_sitemap]}))
    reuse.files.add("robots.txt", render.render(default_env, "robots.txt", {
        "page": pages.Page("robots.txt", None, "robots.txt", "", {}), "config": config}))


def _add_chart_files(reuse: _Reuse, charts: list[chart_catalog.Chart], aliases: dict[str, str], jobs: int) -> None:
    """Spec (JSON), static SVG and PNG (the chart page's Open Graph image) per chart and language; the plotted
    rows once per chart as CSV (from the first language: the rows are the same, only generated labels
    differ). A renamed chart's old id gets the same files, so links to them keep working."""
    renderings: list[tuple[str, images.Task]] = []
    old_ids = {}
    for old, new in aliases.items():
        old_ids.setdefault(new, []).append(old)
    for chart in charts:
        spec = json.dumps(chart.spec, ensure_ascii=False, indent=1, allow_nan=False) + "\n"
        rows_csv = csv_out.frame_csv(chart.rows)
        for chart_id in [chart.id, *old_ids.get(chart.id, [])]:
            reuse.files.add(paths.chart_spec(chart.lang, chart_id), spec)
            reuse.render(paths.chart_svg(chart.lang, chart_id), ("svg", chart.spec), renderings)
            reuse.render(paths.chart_png(chart.lang, chart_id), ("png", chart.spec), renderings)
            csv_path = paths.chart_csv(chart_id)
            if csv_path not in reuse.files:
                reuse.files.add(csv_path, rows_csv)
    reuse.add_renderings(renderings, jobs)
