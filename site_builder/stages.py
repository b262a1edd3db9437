"""The build's stages, in order: each reads what the earlier ones left in the `BuildState` and adds its own.

languages -> data -> charts -> content (gate: every input problem is reported by now) -> figures and claims ->
pages planned -> images -> pages rendered -> feeds and indexes -> search index -> the site written. Every output
goes through `freshness.Outputs`, which keeps the previous build's file when what it recorded reading is unchanged.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from site_builder import (
    assets,
    cache,
    claims,
    content,
    figures,
    freshness,
    i18n,
    images,
    output,
    pages,
    parallel,
    paths,
    render,
    search,
    shortcodes,
    uptodate,
)
from site_builder import charts as chart_catalog
from site_builder.build import BuildReport, Stage, UNTIMED_FIELDS, internal_problem
from site_builder.config import SiteConfig, placeholder_base_url_problem
from site_builder.errors import Collector, Problem, SiteError, display_path
from site_builder.theme import Theme

FEED_ENTRIES = 50  # the newest articles per feed, in full: what a reader subscribing catches up on (Pelican: 100)


@dataclass
class BuildState:
    """What the stages share: the inputs as read, and the site as it is made."""

    config: SiteConfig
    out_dir: Path
    strict: bool
    base_url: str | None
    jobs: int
    snapshot: uptodate.Snapshot
    cache_limit: int
    problems: Collector = field(default_factory=Collector)
    warnings: list[Problem] = field(default_factory=list)
    theme: Theme | None = None
    languages: list = field(default_factory=list)
    inputs: object = None  # the main round's chart inputs
    round_inputs: dict = field(default_factory=dict)  # round -> its chart inputs, oldest first
    project_charts: list = field(default_factory=list)
    chart_set: object = None  # every round's charts; the main round's warnings, notes and aliases
    chart_sets: dict = field(default_factory=dict)  # round -> its own charts
    vega: object = None
    articles: freshness.Collection | None = None
    verdicts: dict = field(default_factory=dict)  # round -> its claims' verdicts
    figure_contexts: dict = field(default_factory=dict)  # round -> what its figures resolve in
    bound: object = None
    updated: dt.date | None = None
    site_pages: list = field(default_factory=list)
    page_keys: list[str] = field(default_factory=list)
    site_read: str = ""
    envs: dict = field(default_factory=dict)
    outputs: freshness.Outputs | None = None
    report: BuildReport | None = None
    spool: Path | None = None
    cache_state: tuple = ()
    chart_renderings: tuple[list, images.Renderings] | None = None  # made while the articles are read

    def close(self) -> None:
        """What a build leaves behind, whether it succeeded or not: the spool of pages goes, and a renderer
        still running is stopped."""
        if self.spool is not None:
            shutil.rmtree(self.spool, ignore_errors=True)
        if self.chart_renderings is not None:
            self.chart_renderings[1].cancel()


def build_date(articles) -> dt.date:
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


def read_languages(state: BuildState) -> None:
    """Each language's catalogs; and a --out that would overwrite an input is refused before anything is made."""
    config, root = state.config, state.config.root
    state.cache_state = _cache_state()  # an entry added changes it (a use does not)
    state.theme = theme = config.theme  # without a theme there is nothing to render: its error stops the build
    for code in config.languages:
        language, found = i18n.load_language(code, theme.locale_dirs, own=config.locales_dir)
        state.languages.append(language)
        state.problems.problems += [p for p in found if p.severity == "error"]
        state.warnings += [p for p in found if p.severity != "error"]
    state.problems.problems += output.out_dir_problems(state.out_dir, root, {
        "content": config.content_dir, "data": config.data_dir, "templates": config.templates_dir,
        "locales": config.locales_dir, "charts": config.charts_dir})
    state.outputs = freshness.Outputs(output.SiteFiles(), *state.snapshot.reusable_outputs())


def read_data(state: BuildState) -> None:
    """Results, accelerators and the round's declared chart features, checked against each other (or, as they were
    when `data/` last had these bytes, from the cache); the project's own charts (charts/*.py)."""
    config = state.config
    # Read again only when what the charts are made from changed (the key of their own cache entries): checking
    # every round's results row by row costs an edit of one article most of a second, reading them back 30 ms.
    entry = cache.key("chart inputs", state.snapshot.charts, display_path(config.data_dir), config.round,
                      config.compared_round, tuple(config.site_rounds))
    kept = cache.load("inputs", entry)
    if isinstance(kept, tuple) and len(kept) == 2:
        state.inputs, state.round_inputs = kept
    else:
        try:
            state.inputs = chart_catalog.load_inputs(config.data_dir, config.round, config.compared_round,
                                                     rounds=config.site_rounds)
            state.round_inputs = chart_catalog.round_inputs(state.inputs, config.data_dir)
        except SiteError as error:
            state.problems.extend(error)
        else:  # inputs with problems are never kept: the next build reports them again
            cache.save("inputs", entry, (state.inputs, state.round_inputs))
    state.project_charts, found = chart_catalog.load_project_charts(config.charts_dir)
    state.warnings += found


def make_charts(state: BuildState) -> None:
    """Every chart in every language, then its files; their renderings are started in vl-convert's worker, which
    makes them while the articles are read."""
    if state.inputs is None or state.problems.problems:
        return
    vega = assets.vega_bundle(cached_only=True) or images.in_fresh_worker(assets.vega_bundle_task, [0])[0]
    if isinstance(vega, images.RenderFailure):
        raise SiteError(Problem(f"vl-convert could not make its JavaScript bundle (vega.js): {vega}"))
    state.vega = vega
    built = chart_catalog.build_rounds(state.round_inputs, state.languages,
                                       {name: _chart_inputs_keys(state, name) for name in state.round_inputs},
                                       state.project_charts, state.jobs)
    for name, inputs in state.round_inputs.items():
        section = paths.round_section(name, inputs.main)
        state.chart_sets[name] = dataclasses.replace(built[name], charts=[
            chart.in_section(section) for chart in built[name].charts]) if section else built[name]
    main = state.chart_sets[state.config.round]
    # What another round's data lacks is that round's history, not something to fix: no warning, no note.
    state.chart_set = dataclasses.replace(main, charts=[chart for chart_set in state.chart_sets.values()
                                                        for chart in chart_set.charts])
    state.chart_renderings = _add_chart_files(state.outputs, state.chart_set.charts, state.chart_set.aliases,
                                              state.jobs)


def read_content(state: BuildState) -> None:
    """Every article; with --strict, the warnings found so far become errors (notes never fail a build)."""
    config = state.config
    languages = {language.code: language for language in state.languages}
    if state.problems.problems:  # an --out refused: nothing is written beside it
        spool = None
    else:  # cards, then pages: moved into the site when it is written
        state.spool = spool = output.spool_folder(state.out_dir)

    def draw_card(article: content.Article) -> None:  # in the worker that read the article, beside its Markdown
        task = ("card", pages.article_card(config, languages[article.lang], article))
        if images.pillow_draws(task):
            path = paths.article_card(article.lang, article.slug)
            with contextlib.suppress(OSError):  # drawn again, and the failure reported, when the site is made
                images.draw_card(task, spool / images.card_file(path, images.rendering_key(task)))

    try:
        loaded = content.load_articles(config.content_dir, config.languages, warnings=state.warnings,
                                       jobs=state.jobs, compact=True, also=draw_card if spool else None)
        state.articles = freshness.Collection("articles", loaded, identity=lambda article: article.source,
                                              item_reads="article")
    except SiteError as error:
        state.problems.extend(error)
    if state.strict:
        state.problems.problems += [Problem(p.message, p.path, p.line, p.col, p.hint) for p in state.warnings
                                    if p.severity == "warning"]


def bind_figures_and_claims(state: BuildState) -> None:
    """Figures and claims resolved against the data; every chart shortcode names a built chart."""
    config, inputs, chart_set = state.config, state.inputs, state.chart_set
    dataset, names = inputs.dataset, inputs.names  # display names are loaded with the data
    missing_names = names.missing("submitter", dataset.results["submitter"])
    if missing_names and (config.data_dir / "display_names.csv").exists():
        shown = display_path(config.data_dir / "display_names.csv")
        state.warnings.append(Problem("no display name for submitter " + ", ".join(f"'{m}'" for m in missing_names)
                                      + "; shown as the raw id", shown, severity="note"))
    state.figure_contexts = figures.round_contexts(dataset, list(state.round_inputs), config.round,
                                                   config.compared_round)
    inputs = {}
    for name, context in state.figure_contexts.items():
        state.verdicts[name] = claims.evaluate_claims(config, context, state.strict, state.warnings)
        inputs[name] = shortcodes.Inputs(context, {v.id: v for v in state.verdicts[name]}, state.chart_sets[name],
                                         state.snapshot.site)
    state.bound = shortcodes.bind(state.articles, inputs, names.in_text, main_round=config.round)
    placeholder = placeholder_base_url_problem(config, state.base_url)
    late = [*([placeholder] if placeholder else []), *chart_set.left_out.values()]
    state.warnings += late
    if state.strict and late:
        raise SiteError([Problem(p.message, p.path, p.line, p.col, p.hint) for p in late])


def plan_pages(state: BuildState) -> None:
    """Every page (path, template, title, its eager context), the theme's assets and the template environments;
    this build's answers to what the last build's outputs read."""
    config, chart_set, names = state.config, state.chart_set, state.inputs.names
    state.updated = build_date(state.articles)
    sections = [pages.RoundSection(name, state.figure_contexts[name], state.chart_sets[name].charts,
                                   inputs.features, state.verdicts[name])
                for name, inputs in state.round_inputs.items()]
    languages = [lang.for_pages() for lang in state.languages]  # a right-to-left page isolates English fallbacks
    state.site_pages = pages.plan_pages(config, languages, state.inputs.dataset, state.articles, sections,
                                        state.updated, state.bound, names)
    state.site_pages += pages.alias_pages(config, languages, chart_set.aliases,
                                          state.chart_sets[config.round].charts)
    state.page_keys = [pages.page_key(page) for page in state.site_pages]
    theme = state.theme
    theme_files = assets.theme_assets(theme.assets())
    for asset in [*theme_files.values(), state.vega]:
        state.outputs.put(asset.path, asset.content)
    asset_paths = {name: asset.path for name, asset in theme_files.items()} | {"vega.js": state.vega.path}
    # What every page reads besides its own inputs: the site's inputs, and the theme's assets as their hashed names.
    state.site_read = freshness.digest((state.snapshot.site, asset_paths))
    compiled = render.TemplateCache(cache.cache_dir() / "templates")
    state.envs = {lang.code: render.environment(theme.template_dirs, lang, {"assets": asset_paths, "names": names},
                                                None, compiled) for lang in state.languages}
    any_env = state.envs[config.default_language]
    state.outputs.answers = freshness.Answers(
        site=state.site_read, template_source=lambda name: render.template_source(any_env, name),
        articles={article.source: article for article in state.articles},
        collections={state.articles.name: state.articles})


def make_images(state: BuildState) -> None:
    """Each page's Open Graph image: a text card (a chart page's is its chart's PNG, made with the chart)."""
    outputs = state.outputs
    if state.chart_renderings is not None:  # the charts' own first: a chart page's image is its chart's PNG
        pending, state.chart_renderings = state.chart_renderings, None
        _add_renderings(outputs, *pending)
    renderings: list[tuple[str, images.Task, str]] = []  # by vl-convert: a chart page's, a card Pillow cannot draw
    cards: list[tuple[str, str, images.Task, Path]] = []  # (path, key, task, its file in the spool)
    for page in state.site_pages:
        if page.card and images.pillow_draws(task := ("card", page.card)):
            key = images.rendering_key(task)
            if not outputs.current(page.og_image, key):
                cards.append((page.og_image, key, task, state.spool / images.card_file(page.og_image, key)))
        elif page.card:
            _plan_rendering(outputs, page.og_image, ("card", page.card), renderings)
        elif page.og_image and page.og_image not in outputs.files:
            chart = page.context["chart"]
            _plan_rendering(outputs, page.og_image, ("png", chart.spec_text), renderings, chart.rendering_keys["png"])
    # An article's card was drawn while it was read, unless the article came from the cache.
    failed = images.draw_cards([(task, file) for _, _, task, file in cards if not file.exists()], state.jobs)
    if failed:
        raise SiteError(Problem(f"cannot write the site: {failed[0]}", state.out_dir.as_posix()))
    for path, key, _, file in cards:
        outputs.add(path, key, output.FromFile(str(file), owned=True), {})
    _add_renderings(outputs, renderings, images.Renderings(*_tasks_and_keys(renderings), jobs=state.jobs))


def render_pages(state: BuildState) -> None:
    """Every HTML page that is not current, in its language's environment (in `jobs` processes), written to a
    spool folder as it is made; template errors of all pages are reported together, once per template line."""
    outputs, site_pages = state.outputs, state.site_pages
    keys = state.page_keys
    stale = [index for index, page in enumerate(site_pages) if not outputs.current(page.path, keys[index])]
    spool = state.spool  # pages go to disk as they are made, not into memory
    problems = Collector()
    # Each page's outcome is taken as it comes, not all held at once: a page listing every article brings back
    # thousands of reads.
    rendered = parallel.each(_render_page, stale, state.jobs,
                             (site_pages, state.envs, state.config, spool, state.site_read))
    try:
        for index, (html, found, reads) in zip(stale, rendered):
            if found:
                problems.problems += found
            else:
                outputs.add(site_pages[index].path, keys[index], html, reads)
    except _CannotSpool as error:
        raise SiteError(Problem(f"cannot write the site: {error}", state.out_dir.as_posix())) from None
    if problems.problems:
        raise SiteError(render.merge_page_problems(problems.problems))


def make_feeds_and_indexes(state: BuildState) -> None:
    """An Atom feed per language with its newest articles, the sitemap (with hreflang alternates), robots.txt."""
    config, outputs, envs = state.config, state.outputs, state.envs
    charts_of = {name: {(chart.lang, chart.id): chart for chart in chart_set.charts}
                 for name, chart_set in state.chart_sets.items()}  # an article shows its round's charts
    languages = {lang.code: lang.for_pages() for lang in state.languages}
    site = state.site_read

    for code, env in envs.items():
        path = paths.feed(code)

        def feed(code=code, env=env, path=path) -> str:
            own = [a for a in state.articles if a.lang == code][:FEED_ENTRIES]  # newest first
            # Relative to the article: each entry carries its article's URL as xml:base.
            entries = [(a, shortcodes.article_parts(a, charts_of[a.round or config.round],
                                                    state.bound.html(a, languages[code], a.path)))
                       for a in own]
            return render.render(env, "feed.xml", {
                "page": pages.Page(path, code, "feed.xml", config.title[code], {}), "config": config,
                "updated": state.updated, "entries": entries})

        outputs.make(path, freshness.digest((path, config, state.updated)), feed, site)
    default_env = envs[config.default_language]
    in_sitemap = [page for page in state.site_pages if page.in_sitemap]
    outputs.make(paths.SITEMAP, freshness.digest([key for page, key in zip(state.site_pages, state.page_keys)
                                                  if page.in_sitemap]),
                 lambda: render.render(default_env, "sitemap.xml", {
                     "page": pages.Page(paths.SITEMAP, None, "sitemap.xml", "", {}), "config": config,
                     "pages": in_sitemap}), site)
    outputs.make(paths.ROBOTS, freshness.digest((paths.ROBOTS, config)), lambda: render.render(
        default_env, "robots.txt", {"page": pages.Page(paths.ROBOTS, None, "robots.txt", "", {}), "config": config}),
        site)


def make_search_index(state: BuildState) -> None:
    """The search index of the pages as this build leaves them (Pagefind's files, every language's)."""
    if state.config.search:
        search.add_index(state.outputs, state.site_pages, state.out_dir, state.spool / "search", state.jobs)


def write(state: BuildState) -> None:
    """The site swapped in at once; what each output read, recorded for the next build."""
    outputs, chart_set = state.outputs, state.chart_set
    written = output.write_site(outputs.files, state.out_dir, background_removal=True)
    report = BuildReport(state.out_dir, state.config.languages,
                         len([p for p in state.site_pages if not p.path.startswith("embed/")]),
                         len(chart_set.charts), len(outputs.files), tuple(state.warnings), 0.0,
                         tuple(chart_set.notes), written.written)
    state.snapshot.record({name: getattr(report, name) for name in UNTIMED_FIELDS}, outputs.records,
                          written.state, outputs.digests)
    if _cache_state() != state.cache_state:  # the cache grew: keep it in its bound
        cache.trim(state.cache_limit)
    state.report = report


STAGES = (
    Stage("reading languages", read_languages),
    Stage("reading data", read_data),
    Stage("building charts", make_charts),
    Stage("reading content", read_content, gate=True),
    Stage("binding figures and claims", bind_figures_and_claims, gate=True),
    Stage("planning pages", plan_pages),
    Stage("making images", make_images),
    Stage("rendering pages", render_pages),
    Stage("making feeds and indexes", make_feeds_and_indexes),
    Stage("indexing for search", make_search_index),
    Stage("writing the site", write),
)


def _cache_state() -> tuple[int | None, ...]:
    """The namespaces' folders' mtimes: a new entry changes one (a use does not)."""
    state = []
    for namespace in cache.NAMESPACES:
        try:
            state.append((cache.cache_dir() / namespace).stat().st_mtime_ns)
        except OSError:
            state.append(None)
    return tuple(state)


def _chart_inputs_keys(state: BuildState, round_name: str) -> dict[str, str]:
    """Language code -> hash of what a round's charts are made from (`uptodate.charts_fingerprint`: data, rounds,
    catalogs, project charts, code and libraries), and the round."""
    return {code: freshness.digest(("charts", state.snapshot.charts, code, round_name))
            for code in state.config.languages}


def _plan_rendering(outputs: freshness.Outputs, path: str, task: images.Task,
                    renderings: list[tuple[str, images.Task, str]], key: str | None = None) -> None:
    key = key or images.rendering_key(task)
    if not outputs.current(path, key):
        renderings.append((path, task, key))


def _tasks_and_keys(renderings: list[tuple[str, images.Task, str]]) -> tuple[list, list]:
    return [task for _, task, _ in renderings], [key for _, _, key in renderings]


def _add_renderings(outputs: freshness.Outputs, renderings: list[tuple[str, images.Task, str]],
                    made: images.Renderings) -> None:
    """Add the renderings to the site once made; one that vl-convert failed to make is a problem naming its file
    (charts/LANG/ID.svg). A rendering is made from its task alone: it reads nothing."""
    failed = []
    for (path, _task, key), rendering in zip(renderings, made.results()):
        if isinstance(rendering, images.RenderFailure):
            failed.append(Problem(f"vl-convert could not render {path}: {rendering}",
                                  hint="a character in its texts (title, labels, names) it cannot draw?"))
        else:
            outputs.add(path, key, rendering, {})
    if failed:
        raise SiteError(failed)


class _CannotSpool(Exception):
    """A page could not be written to the spool (no space left, an I/O error); the message is the system's."""


def _render_page(shared: tuple, index: int) -> tuple[output.FromFile | None, list[Problem], dict]:
    """One page's HTML in a spool file, or its problems, and what it read (a task of `parallel.run`)."""
    site_pages, envs, config, spool, site = shared
    page = site_pages[index]
    with freshness.Recorder() as recorder:
        freshness.read(("site",), site)
        try:
            context = {**page.context, **(page.late() if page.late else {}), "page": page,
                       "switcher": pages.switcher(page, list(config.languages))}
            html = render.render(envs[page.lang or config.default_language], page.template, context)
        except SiteError as error:
            return None, error.problems, {}
        except Exception as error:  # noqa: BLE001 - a bug while making one page: say which page
            return None, [internal_problem(error, f"while building {page.path}")], {}
    path = spool / f"{index}.html"
    try:
        path.write_bytes(html.encode("utf-8"))
    except OSError as error:  # a full disk: reported at the output folder, not as a traceback
        raise _CannotSpool(error.strerror or str(error)) from None
    return output.FromFile(str(path), owned=True), [], recorder.reads


def _add_chart_files(outputs: freshness.Outputs, charts: list[chart_catalog.Chart],
                     aliases: dict[str, str], jobs: int = 1) -> tuple[list, images.Renderings]:
    """Spec (JSON), static SVG (wide, and narrow for phones) and PNG (the chart page's Open Graph image) per chart
    and language; the plotted
    rows once per chart as CSV (from the first language: the rows are the same, only generated labels
    differ). A renamed chart's old id gets the same files, so links to them keep working. The renderings are
    only started: (what is rendered, its making)."""
    renderings: list[tuple[str, images.Task, str]] = []
    old_ids: dict[str, list[str]] = {}
    for old, new in aliases.items():
        old_ids.setdefault(new, []).append(old)
    for chart in charts:
        section, keys = chart.section, chart.rendering_keys
        for chart_id in [chart.id, *(old_ids.get(chart.id, []) if not section else [])]:
            outputs.put(paths.chart_spec(chart.lang, chart_id, section), chart.spec_text)
            for kind, path in (("svg", paths.chart_svg), ("narrow-svg", paths.chart_narrow_svg),
                               ("png", paths.chart_png)):
                _plan_rendering(outputs, path(chart.lang, chart_id, section), (kind, chart.spec_text), renderings,
                                keys[kind])
            csv_path = paths.chart_csv(chart_id, section)
            if csv_path not in outputs.files:
                outputs.put(csv_path, chart.rows_csv)
    return renderings, images.Renderings(*_tasks_and_keys(renderings), jobs=jobs)
