"""Command line: parses options and calls the stages; no logic of its own.

Heavy libraries (pandas, altair) are imported inside commands so `--help` stays fast.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

import click

from site_builder import __version__


def _fail(error, what: str = "build failed", consequence: str = "; the previous site is unchanged") -> None:
    for problem in error.problems:
        click.echo(str(problem), err=True)
    count = len(error.problems)
    click.echo(f"{what}: {count} problem{'s' if count != 1 else ''}{consequence}", err=True)
    sys.exit(1)


def run() -> None:
    """The console script (and `python -m site_builder`): `main`, then an exit that skips tearing down, object
    by object, the thousands of pages and articles a build leaves in memory (a quarter of a second on a large
    site). Output is flushed and removals of old output trees are waited for first; an error that is not a
    clean exit propagates as usual."""
    try:
        main()
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        if done.code is not None and not isinstance(done.code, int):
            click.echo(str(done.code), err=True)
    else:
        code = 0
    from site_builder import output  # light: the standard library only

    output.wait_for_removals()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more can be said there
            stream.flush()
    os._exit(code)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="site-builder")
def main() -> None:
    """Build a multilingual static report site from Markdown articles and benchmark results."""


@contextlib.contextmanager
def _tuned_collector():
    """A build allocates millions of short-lived objects and almost no cycles: while it runs, the libraries
    loaded so far are left out of the cyclic collector's scans, and it runs less often (about 10 % of a
    rebuild's time). Restored afterwards, for a process that goes on (tests, an embedding program)."""
    import gc

    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


@main.command()
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Project folder holding site.toml.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Output folder (default: ROOT/_site). Replaced atomically.")
@click.option("--base-url", default=None, help="Absolute URL the site is served from; overrides site.toml.")
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes for charts, Markdown, pages and images (default: the number of CPUs; 1: no workers, "
                   "but one for the charts the cache lacks).")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the build's outcome as JSON to this file (on failure too).")
def build(root: Path, out: Path | None, base_url: str | None, strict: bool, jobs: int | None,
          report_path: Path | None) -> None:
    """Build the site from content/, data/ and templates/."""
    import time

    from site_builder.errors import Problem, SiteError

    started = time.perf_counter()
    misplaced = report_path is not None and _inside(report_path, out if out is not None else root / "_site")
    with contextlib.ExitStack() as stack:
        try:
            if misplaced:
                raise SiteError(Problem(f"--report {report_path} is inside the output folder, which each build "
                                        "replaces", hint="write the report beside the output folder"))
            from site_builder.build import build_site

            stack.enter_context(_tuned_collector())
            bar = _ProgressBar(stack, "building") if sys.stderr.isatty() else None
            report = build_site(root, out, base_url, strict, jobs=jobs, progress=bar)
            if bar:
                bar.finish()
        except SiteError as error:
            stack.close()
            if report_path is not None and not misplaced:
                _write_report(report_path, None, error, time.perf_counter() - started,
                              out if out is not None else root / "_site")
            _fail(error)
    if report_path is not None:
        _write_report(report_path, report)
    for warning in [*report.notes, *report.warnings]:
        click.echo(str(warning), err=True)
    def counted(count: int, noun: str) -> str:
        return f"{count} {noun}{'' if count == 1 else 's'}"

    click.echo(f"built {report.out_dir}: {counted(len(report.languages), 'language')} "
               f"({', '.join(report.languages)}), {counted(report.pages, 'page')}, {counted(report.charts, 'chart')}, "
               f"{counted(sum(w.severity == 'warning' for w in report.warnings), 'warning')}, "
               f"{counted(len(report.notes) + sum(w.severity == 'note' for w in report.warnings), 'note')}, "
               f"{counted(report.files, 'file')} ({report.written} written) in {report.seconds:.2f} s", err=True)


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
        return True
    except (ValueError, OSError):
        return False


def _write_report(path: Path, report, error=None, seconds: float = 0.0, out_dir: Path | None = None) -> None:
    """`--report`: the build's outcome as JSON (a report that cannot be written is said, the exit code kept)."""
    from site_builder import report as build_report

    try:
        build_report.write(path, build_report.document(report, error, seconds, out_dir))
    except OSError as exc:
        click.echo(f"{path}: error: cannot write the report: {exc.strerror or exc}", err=True)
        if error is None:
            sys.exit(1)


@main.command(context_settings={"ignore_unknown_options": False})
@click.argument("words", nargs=-1, required=True, metavar="DIR | article TITLE")
@click.option("--language", "-l", "languages", multiple=True,
              help="A language of the new project (repeat for several; the first is the default). Default: en.")
@click.option("--round", "round_name", default=None, help="The round the new project reports on (default: the "
              "newest round with starter data).")
@click.option("--key", default=None, help="With 'article': the key grouping the article's translations "
              "(default: from the title).")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="With 'article': the project folder holding site.toml.")
def new(words: tuple[str, ...], languages: tuple[str, ...], round_name: str | None, key: str | None,
        root: Path) -> None:
    """Start a project, or an article of one.

    \b
    site-builder new DIR [--language CODE ...] [--round NAME]
        a project that builds at once: site.toml, an article per language citing the data,
        an excerpt of real results, and a chart of its own (DIR must not exist or be empty)
    site-builder new article TITLE [--key KEY] [--root DIR]
        a draft article in every language of the project's site.toml
    """
    from site_builder import scaffold
    from site_builder.errors import SiteError

    try:
        if words[0] == "article":
            if len(words) != 2:
                raise click.UsageError("give the article's title as one argument: site-builder new article "
                                       '"My title"')
            from site_builder.config import load_config

            config = load_config(root)
            created = scaffold.new_article(root, words[1], list(config.languages), config.content_dir, key)
        else:
            if len(words) != 1:
                raise click.UsageError("give one folder: site-builder new DIR (quote a name with spaces)")
            created = scaffold.new_project(Path(words[0]), list(languages), round_name)
    except SiteError as error:
        _fail(error, "nothing written", "")
    for path in created.files:
        click.echo(f"created {path}")
    for note in created.notes:
        click.echo(f"note: {note}", err=True)
    if words[0] != "article":
        click.echo(f"next: cd {words[0]} && site-builder build   (or site-builder serve to preview)")


@main.command()
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Project folder holding site.toml.")
@click.option("--strict", is_flag=True,
              help="Exit 1 when a translation is missing or stale, or a typed number looks like a result.")
@click.option("--catalogs", is_flag=True,
              help="Instead: list every interface string shown in English, as path:line: kind: msgid.")
@click.option("--language", "languages", multiple=True, help="With --catalogs: only this language (repeatable).")
def check(root: Path, strict: bool, catalogs: bool, languages: tuple[str, ...]) -> None:
    """Report missing and stale translations, and numbers typed into articles that look like results."""
    if catalogs or languages:
        _check_catalogs(root, strict, list(languages))
        return
    from site_builder import claims, shortcodes
    from site_builder.check import data_names, translation_status, typed_numbers_in
    from site_builder.config import load_config
    from site_builder.content import load_articles
    from site_builder.data import load_dataset
    from site_builder.errors import Problem, SiteError
    from site_builder.figures import round_contexts

    notes: list[Problem] = []
    try:
        config = load_config(root)
        articles = load_articles(config.content_dir, config.languages, root, notes)
        dataset = load_dataset(config.data_dir, config.site_rounds, root)
        names = data_names(dataset)
        # Bound figures and cited claims must resolve, as in a build: a wrong row is an error here too.
        contexts = round_contexts(dataset, config.site_rounds, config.round, config.compared_round)
        inputs = {}
        for name, context in contexts.items():
            verdicts = claims.evaluate_claims(config, context, strict, notes)
            inputs[name] = shortcodes.Inputs(context, {v.id: v for v in verdicts})
        shortcodes.bind(articles, inputs, main_round=config.round)
    except SiteError as error:
        _fail(error, "check failed", "")
    for note in notes:
        click.echo(str(note), err=True)
    findings = translation_status(articles, config.languages)
    for lang in config.languages:
        own = [f for f in findings if f.lang == lang]
        count = sum(1 for a in articles if a.lang == lang)
        click.echo(f"{lang}: {count} article{'s' if count != 1 else ''}, "
                   f"{sum(f.kind == 'missing' for f in own)} missing, {sum(f.kind == 'stale' for f in own)} stale, "
                   f"{sum(f.kind == 'original' for f in own)} written for other languages only")
        for finding in own:
            click.echo(f"  {finding.kind}: {finding.key}: {finding.detail}")
    typed = typed_numbers_in(articles, names)
    for number in typed:
        click.echo(str(Problem(f"typed number '{number.text}' looks like a result ({number.rule})", number.path,
                               number.line, number.col, severity="error" if strict else "warning")))
    if typed:
        click.echo(f"{len(typed)} typed number{'s' if len(typed) != 1 else ''} in "
                   f"{len({n.path for n in typed})} articles: bind each with {{{{< fig ... >}}}}, or mark a "
                   "number that is not a result with {{< lit ... >}}")
    if strict and (any(f.is_problem for f in findings) or typed):
        sys.exit(1)


def _check_catalogs(root: Path, strict: bool, languages: list[str]) -> None:
    """`check --catalogs`: the messages each language shows in English, one per line, then a count per language."""
    from site_builder.catalogs import catalog_gaps
    from site_builder.config import load_config
    from site_builder.errors import SiteError

    try:
        config = load_config(root)
        unknown = [code for code in languages if code not in config.languages]
        if unknown:
            from site_builder.errors import Problem

            raise SiteError([Problem(f"language '{code}' is not one of site.toml's languages "
                                     f"({', '.join(config.languages)})", "site.toml") for code in unknown])
        gaps = catalog_gaps(config, languages or None)
    except SiteError as error:
        _fail(error, "check failed", "")
    for code, found in gaps.items():
        for gap in found:
            where = f"{gap.path}:{gap.line}" if gap.line is not None else gap.path
            click.echo(f"{where}: {gap.kind}: {gap.msgid}".replace("\n", "\\n"))
    for code, found in gaps.items():
        kinds = {kind: sum(g.kind == kind for g in found) for kind in ("untranslated", "fuzzy", "missing")}
        detail = ", ".join(f"{n} {kind}" for kind, n in kinds.items() if n)
        click.echo(f"{code}: {len(found)} interface string{'s' if len(found) != 1 else ''} shown in English"
                   + (f" ({detail})" if detail else ""), err=True)
    if strict and any(gaps.values()):
        sys.exit(1)


@main.command()
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Project folder holding site.toml.")
def extract(root: Path) -> None:
    """Collect the msgids of the project's templates/ and charts/*.py into locales/messages.pot."""
    from site_builder.catalogs import extract as run_extract
    from site_builder.config import load_config
    from site_builder.errors import SiteError

    try:
        written = run_extract(load_config(root))
    except SiteError as error:
        _fail(error, "extract failed", "; nothing was written")
    if written.action == "nothing to extract":
        click.echo("the project has no templates/ or charts/ of its own: nothing to extract (the packaged theme's "
                   "strings need no extraction; `site-builder update --language CODE` starts a catalog)", err=True)
        return
    click.echo(f"{written.path}: {written.action}, {written.messages} message{'s' if written.messages != 1 else ''}",
               err=True)


@main.command()
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Project folder holding site.toml.")
@click.option("--language", "languages", multiple=True,
              help="Only this language (repeatable; default: every language of site.toml).")
def update(root: Path, languages: tuple[str, ...]) -> None:
    """Create or update locales/<lang>/LC_MESSAGES/messages.po from locales/messages.pot and the theme's strings."""
    from site_builder.catalogs import update as run_update
    from site_builder.config import load_config
    from site_builder.errors import SiteError

    try:
        written = run_update(load_config(root), list(languages) or None)
    except SiteError as error:
        _fail(error, "update failed", "")
    for item in written:
        click.echo(f"{item.path}: {item.action}, {item.messages} message{'s' if item.messages != 1 else ''}, "
                   f"{item.to_translate} to translate", err=True)


@main.command("derive-data")
@click.option("--source", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="Folder of the published results tables (one <round>/results.csv each).")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Project folder holding site.toml (its round and previous round are derived).")
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The data folder to write into (default: the data folder of site.toml).")
def derive_data(source: Path, root: Path, data_dir: Path | None) -> None:
    """Regenerate data/rounds/<round>/results.csv from the published tables."""
    from site_builder.config import load_config
    from site_builder.derive import derived_rounds, write_derived
    from site_builder.errors import SiteError
    from site_builder.hardware import load_hardware

    try:
        config = load_config(root)
        hardware = load_hardware(config.data_dir, root)
        written = write_derived(source, data_dir or config.data_dir, derived_rounds(config), hardware)
    except SiteError as error:
        _fail(error, "derivation failed", "; nothing was written")
    for path in written:
        click.echo(f"wrote {path}", err=True)


@main.command()
@click.argument("page", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="PNG file to write.")
@click.option("--width", default=1200, show_default=True, help="Viewport width in CSS pixels.")
@click.option("--height", default=900, show_default=True, help="Viewport height in CSS pixels.")
@click.option("--full-page", is_flag=True, help="Capture the whole page, not only the viewport.")
@click.option("--dark", is_flag=True, help="Render with prefers-color-scheme: dark.")
def screenshot(page: Path, output: Path, width: int, height: int, full_page: bool, dark: bool) -> None:
    """Take a PNG screenshot of a built PAGE (an HTML file) in headless Chromium."""
    from site_builder.errors import SiteError
    from site_builder.screenshot import screenshot as take

    try:
        take(page, output, width, height, full_page, "dark" if dark else "light")
    except SiteError as error:
        _fail(error, "screenshot failed", "")
    click.echo(f"wrote {output}", err=True)


@main.command()
@click.argument("chart_id")
@click.option("--lang", "language", required=True, help="Language of titles, labels and number formats.")
@click.option("--format", "form", type=click.Choice(["json", "svg", "png"]), default="svg", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="File to write (default: standard output).")
@click.option("--width", default=640, show_default=True, help="Width in pixels of the SVG or PNG.")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Project folder holding site.toml.")
def chart(chart_id: str, language: str, form: str, output: Path | None, width: int, root: Path) -> None:
    """Export one chart (CHART_ID) as a Vega-Lite spec, SVG or PNG, for use in another publication."""
    from site_builder.errors import SiteError
    from site_builder.export import export_chart

    try:
        content = export_chart(root, chart_id, language, form, width)
    except SiteError as error:
        _fail(error, "export failed", "")
    if output is None:
        sys.stdout.buffer.write(content)
    else:
        output.write_bytes(content)
        click.echo(f"wrote {output}", err=True)


@main.command()
@click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--round", "round_name", required=True, help="Round the results belong to (vX.Y).")
@click.option("--out", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path), default=None,
              help="CSV file to write (replaced), '-' for standard output (default: data/rounds/ROUND/results.csv).")
@click.option("--ruleset", default=None, help="mlperf-logging rules version (default: from the round, vX.Y -> X.Y.0).")
@click.option("--strict", is_flag=True, help="Exit 1 when any result could not be scored.")
@click.option("--runs", "runs_out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the run table (each run's start, stop and status) to this CSV file (replaced).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes scoring results (default: the number of CPUs; the table is the same for any).")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Project folder holding site.toml (its data/accelerators.csv names the accelerators).")
def ingest(path: Path, round_name: str, out: Path | None, ruleset: str | None, strict: bool, runs_out: Path | None,
           jobs: int | None, root: Path) -> None:
    """Score a results repository in the official MLCommons training layout (PATH) into a results CSV."""
    from site_builder.config import _ROUND, load_config
    from site_builder.errors import Problem, SiteError
    from site_builder.hardware import load_hardware
    from site_builder.ingest import ingest_results
    from site_builder.rounds import load_round_info

    if not _ROUND.match(round_name):  # it names a folder: '../../x' would write outside the project
        _fail(SiteError(Problem(f"--round {round_name!r} is not 'v' and two numbers, as in site.toml (like v2.3)")),
              "ingest failed", "; nothing was read")
    try:
        config = load_config(root)
        hardware = load_hardware(config.data_dir, root)
    except SiteError as error:
        _fail(error, "ingest failed", "; nothing was written")
    out = out or config.data_dir / "rounds" / round_name / "results.csv"
    for option, target in (("--out", out), ("--runs", runs_out)):
        if target is not None and str(target) != "-":
            _refuse_unless_replaceable(option, target)
    from site_builder.errors import Collector
    from site_builder.parallel import default_jobs
    from site_builder.runs import earlier_runs

    found = Collector()
    earlier = earlier_runs(config.data_dir, round_name, found)  # to recognize logs published again
    if found.problems:
        _fail(SiteError(found.problems), "ingest failed", "; nothing was read")
    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        try:
            report = ingest_results(path, round_name, hardware, ruleset, _ingest_progress(stack, started),
                                    jobs=jobs or default_jobs(),
                                    checker=load_round_info(config.data_dir, round_name, root).checker,
                                    earlier=earlier)
        except SiteError as error:
            stack.close()
            _fail(error, "ingest failed", "; nothing was written")
    for problem in report.problems:
        click.echo(str(problem), err=True)
    if str(out) == "-":
        sys.stdout.write(report.csv_text)
    else:
        _replace_file(out, report.csv_text)
    if runs_out is not None:
        _replace_file(runs_out, report.runs_csv_text)
    failed, count, warnings = len(report.failed), len(report.rows), len(report.problems)
    click.echo(f"wrote {'standard output' if str(out) == '-' else out}: {count} result{'s' if count != 1 else ''}, "
               f"{count - failed} scored, {failed} not scored, {warnings} warning{'s' if warnings != 1 else ''} "
               f"in {time.monotonic() - started:.0f} s ({report.tool})", err=True)
    if strict and failed:
        click.echo(f"ingest failed: {failed} result{'s' if failed != 1 else ''} not scored (--strict)", err=True)
        sys.exit(1)


def _refuse_unless_replaceable(option: str, target: Path) -> None:
    """Only a regular file is replaced: never a folder, a device, a FIFO or a symlink."""
    import stat

    from site_builder.errors import Problem, SiteError

    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        return
    except OSError as error:
        _fail(SiteError(Problem(f"cannot write: {error.strerror or error}", str(target))), "ingest failed",
              "; nothing was read")
    if not stat.S_ISREG(mode):
        kind = ("a symlink" if stat.S_ISLNK(mode) else "a folder" if stat.S_ISDIR(mode)
                else "a device, FIFO or socket")
        _fail(SiteError(Problem(f"{option} is {kind}, not a regular file; refusing to replace it", str(target))),
              "ingest failed", "; nothing was read")


def _replace_file(target: Path, text: str) -> None:
    """A new file beside the target, then renamed: an interrupted run leaves the previous file whole."""
    import tempfile

    from site_builder.errors import Problem, SiteError

    temporary = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with open(handle, "w", encoding="utf-8", newline="") as file:
            file.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # as a file made by open(), not mkstemp's 0600
        os.replace(temporary, target)
    except OSError as error:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        _fail(SiteError(Problem(f"cannot write: {error.strerror or error}", str(target))), "ingest failed", "")


INGEST_PROGRESS_EVERY = 5.0  # seconds between progress lines when stderr is not a terminal (a CI log, a pipe)


def _ingest_progress(stack: contextlib.ExitStack, started: float):
    """A progress bar on a terminal; elsewhere, a line every few seconds, so a long run shows it is alive."""
    if sys.stderr.isatty():
        bar = None

        def on_terminal(done: int, total: int, label: str) -> None:
            nonlocal bar
            if bar is None:
                bar = stack.enter_context(click.progressbar(length=total, label="scoring results", file=sys.stderr,
                                                            item_show_func=lambda item: item))
            bar.current_item = label
            bar.update(done - bar.pos)
        return on_terminal
    said = [started]

    def in_a_log(done: int, total: int, label: str) -> None:
        now = time.monotonic()
        if done == 0 or done == total or now - said[0] >= INGEST_PROGRESS_EVERY:
            said[0] = now
            click.echo(f"scored {done} of {total} results ({done * 100 // total}%) in {now - started:.0f} s"
                       + (f"; last: {label}" if label else ""), err=True)
    return in_a_log


@main.group()
def cache() -> None:
    """Inspect or clear the cache (renderings, rendered Markdown, chart specs, the Vega bundle; kept between builds)."""


@cache.command("info")
def cache_info() -> None:
    """Print where the cache is, how much it holds and its size limit."""
    from site_builder.cache import cache_dir, cache_limit, cache_usage
    from site_builder.errors import SiteError

    size, count = cache_usage()
    click.echo(f"location: {cache_dir()}")
    click.echo(f"size: {size / 1e6:.1f} MB in {count} file{'s' if count != 1 else ''}")
    try:
        click.echo(f"limit: {cache_limit() / 1e6:g} MB (SITE_BUILDER_CACHE_MAX_MB; least recently used "
                   "renderings are removed after each build)")
    except SiteError as error:
        _fail(error, "cache info failed", "")


@cache.command("clear")
def cache_clear() -> None:
    """Delete every cached file. Always safe: the next build renders them again."""
    from site_builder.cache import cache_dir, clear_cache
    from site_builder.errors import SiteError

    try:
        size, count = clear_cache()
    except SiteError as error:
        _fail(error, "cache clear failed", "; nothing was removed")
    click.echo(f"removed {count} file{'s' if count != 1 else ''} ({size / 1e6:.1f} MB) from {cache_dir()}")


@main.command()
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Project folder holding site.toml.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0: any free port).")
@click.option("--open/--no-open", "open_browser", default=False, show_default=True,
              help="Open the site in the default web browser once it is built.")
def serve(root: Path, host: str, port: int, open_browser: bool) -> None:
    """Preview while writing: build into a private folder, serve it, rebuild and reload on every change.

    Watches content/, data/, templates/, locales/ and site.toml. A build error is printed here and shown
    over the page in the browser, which keeps the last good site until the error is fixed.
    """
    import webbrowser

    from site_builder.errors import SiteError

    def ready(url: str) -> None:
        if open_browser:
            webbrowser.open(url)

    try:
        from site_builder.serve import serve as run  # inside: Ctrl-C while importing is a clean stop too

        run(root, host, port, log=lambda message: click.echo(message, err=True), ready=ready)
    except SiteError as error:
        _fail(error, "serve failed", "")
    except KeyboardInterrupt:
        click.echo("stopped", err=True)


class _ProgressBar:
    """A progress bar on stderr fed by `progress(done, total, label)` calls; `finish()` fills it."""

    def __init__(self, stack: contextlib.ExitStack, label: str) -> None:
        self.stack, self.label, self.bar = stack, label, None

    def __call__(self, done: int, total: int, label: str) -> None:
        if self.bar is None:
            self.bar = self.stack.enter_context(click.progressbar(
                length=total, label=self.label, file=sys.stderr, item_show_func=lambda item: item))
        self.bar.current_item = label
        if done > self.bar.pos:
            self.bar.update(done - self.bar.pos)
        else:
            self.bar.render_progress()

    def finish(self) -> None:
        if self.bar is not None:
            self.bar.current_item = "done"
            self.bar.update(self.bar.length - self.bar.pos)
            self.stack.close()


@main.command("rules-data")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Project folder holding site.toml.")
def rules_data(root: Path) -> None:
    """Write data/rules.csv: each round's quality targets and RCPs, from the installed mlperf-logging."""
    from site_builder.config import load_config
    from site_builder.data import load_dataset
    from site_builder.errors import SiteError
    from site_builder.rules_data import write_rules

    try:
        config = load_config(root)
        rounds = config.site_rounds
        path = write_rules(load_dataset(config.data_dir, rounds, root), rounds, config.data_dir)
    except SiteError as error:
        _fail(error, "rules-data failed", "; nothing was written")
    click.echo(f"wrote {path}", err=True)
