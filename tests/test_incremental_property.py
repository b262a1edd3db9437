"""An incremental build is byte for byte a cold one, after any sequence of edits to any input.

A small project (two languages, articles citing figures, a claim and charts, a data folder, a claims registry,
a project chart, a project template and catalog override) is edited step by step; after each step it is built
incrementally into the same folder (through the API or the command line, with a warm cache) and cold (a new
process, a new folder, an empty cache), and the two trees must be equal. Some steps break an input: that build
must fail and leave the previous site as it was. Only the public API, the CLI and files are used, so the test
holds whatever the build's freshness mechanism is.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from site_builder.build import build_site
from site_builder.cli import main
from site_builder.errors import SiteError
from tests.conftest import MINI_V60, ROOT, csv_text, mini_site_files

pytestmark = pytest.mark.slow
EPOCH = "1781000000"  # the "updated" date (without it, the newest article's date)

# --- the project, as a model that renders to files --------------------------------------------------------

BODIES = (
    "Some text with a footnote.[^1]\n\n[^1]: The source.",
    "Some edited text.",
    "Acme needed {{< fig score deepseekv3_671b/a2048 >}} on {{< fig accelerators deepseekv3_671b/a2048 >}} GPUs, "
    "an efficiency of {{< fig efficiency deepseekv3_671b/a512 deepseekv3_671b/a2048 >}} {{< claim acme-scaling >}}.",
    "Beta took {{< fig score llama31_8b/fastest >}}.\n\n{{< chart results-per-accelerator >}}",
    "The fastest results:\n\n{{< chart fastest-per-benchmark >}}",
)
TITLES = ("Hello, round", "Hallo, ronde", "Another title")
DATES = ("2026-06-20", "2026-06-22", "2026-07-01")
SUMMARIES = ("A short test article.", "Een kort testartikel.", "A longer summary, edited.")


@dataclass(frozen=True)
class Article:
    key: str
    title: str = TITLES[0]
    date: str = DATES[0]
    draft: bool = False
    summary: str = SUMMARIES[0]
    body: int = 0  # index into BODIES

    def text(self) -> str:
        draft = "draft: true\n" if self.draft else ""
        return (f'---\ntitle: "{self.title}"\ndate: {self.date}\nsummary: "{self.summary}"\n{draft}'
                f'authors: ["Test desk"]\ntags: ["mlperf"]\nkey: {self.key}\n---\n## A heading\n\n'
                f"{BODIES[self.body]}\n")


# Every article the project can have; the optional ones come and go.
ARTICLES = {
    "content/en/hello.md": Article("hello", body=2),
    "content/nl/hallo.md": Article("hello", TITLES[1], DATES[1], summary=SUMMARIES[1], body=3),
    "content/nl/alleen.md": Article("only-dutch", "Alleen in het Nederlands", DATES[2], body=1),
    "content/en/only.md": Article("only-dutch", "Only in Dutch, once", DATES[1], body=4),
    "content/en/extra.md": Article("extra", "An extra article", DATES[2], body=0),
}
INITIAL_ARTICLES = ("content/en/hello.md", "content/nl/hallo.md", "content/nl/alleen.md")

SCORED = ("a512", "a2048", "b8")  # the v6.0 results with a score
SCORES = ("20.5", "6.25", "86.8446", "5.5", "30", "99.75")
EXTRA_ROWS = {
    "a1024": "v6.0,closed,available,cloud,Acme,a1024,a1024,GB300,NVIDIA,GB300,4,256,1024,Grace,PyTorch,"
             "deepseekv3_671b,11.0,3,1.0,computed here from the result logs,systems json,",
    "g8": "v6.0,closed,available,on-premise,Gamma,g8,g8,MI355X,AMD,MI355X,8,1,8,EPYC,PyTorch,"
          "llama31_8b,80.25,10,1.0,computed here from the result logs,systems json,",
}
BENCHMARK_NAMES = ("DeepSeek-V3 671B", "DeepSeek-V3 (671B)", "DSv3 671B")
STATEMENTS = ("Acme says its runs scale near-linearly.", "Acme says it scales almost linearly.")
ASSERTS = (">= 90 %", ">= 50 %", "<= 80 %")
# The project's Dutch "Articles" (in pages) and "Results" (in its chart); None: no catalog of its own.
MSGSTRS = (None, ("Stukken", "Uitkomsten"), ("Verhalen", "Scores"), ("Artikelen", "Resultaten"))
MARKERS = (None, "project-own", "edited")  # a class in the project's article.html; None: the packaged one
SCRIPTS = (None, "/* the project's own script */", "/* edited */")  # templates/assets/site.js; None: the packaged
DISPLAY_NAMES = (None, "Acme Corp", "ACME")  # Acme's name in data/display_names.csv; None: no such file
# Of different lengths, but one: a chart module edited to the same length within the same second once ran from
# a stale __pycache__ (the regression case below).
SAME_SIZE_TITLE = '"Counts of results per chip"'  # as long as the first
CHART_TITLES = ('_("Results per accelerator")', '"Results by accelerator type"', '"Accelerators"', SAME_SIZE_TITLE)
SITE_TITLES = ("Mini report", "Mini-report", "Small report")
NL_TITLES = ("Mini-rapport", "Klein rapport")
BASE_URLS = ("https://example.org/mini/", "https://example.org/other/", "https://reports.example.net/")


@dataclass(frozen=True)
class Project:
    articles: tuple[tuple[str, Article], ...] = tuple((path, ARTICLES[path]) for path in INITIAL_ARTICLES)
    scores: tuple[tuple[str, str], ...] = (("a512", "20.5"), ("a2048", "6.25"), ("b8", "86.8446"))
    extra_rows: tuple[str, ...] = ()
    benchmark_name: str = BENCHMARK_NAMES[0]
    statement: str = STATEMENTS[0]
    asserts: str = ASSERTS[0]
    msgstr: tuple[str, str] | None = MSGSTRS[1]
    marker: str | None = MARKERS[1]
    script: str | None = SCRIPTS[0]
    display_name: str | None = DISPLAY_NAMES[0]
    chart_title: str = CHART_TITLES[0]
    site_title: str = SITE_TITLES[0]
    nl_title: str = NL_TITLES[0]
    base_url: str = BASE_URLS[0]
    history: tuple = field(default=(), compare=False, repr=False)  # the states before this one

    def files(self) -> dict[str, str]:
        files = {path: text for path, text in mini_site_files().items() if not path.startswith("content/")}
        files["site.toml"] = SITE_TOML.format(base_url=self.base_url, title=self.site_title, nl_title=self.nl_title)
        files["data/benchmarks.csv"] = files["data/benchmarks.csv"].replace("DeepSeek-V3 671B", self.benchmark_name)
        files["data/rounds/v6.0/results.csv"] = results_csv(dict(self.scores), self.extra_rows)
        files["data/rounds/v6.0/claims.yaml"] = CLAIMS.format(statement=self.statement, asserts=self.asserts)
        files["charts/accelerators.py"] = PROJECT_CHART.replace("TITLE", self.chart_title)
        if self.msgstr is not None:
            files["locales/nl/LC_MESSAGES/messages.po"] = CATALOG.format(*self.msgstr)
        if self.marker is not None:
            packaged = (ROOT / "site_builder/theme/templates/article.html").read_text(encoding="utf-8")
            files["templates/article.html"] = packaged.replace('<article class="article">',
                                                               f'<article class="article {self.marker}">')
        if self.script is not None:
            files["templates/assets/site.js"] = self.script + "\n"
        if self.display_name is not None:
            files["data/display_names.csv"] = (f"kind,id,display_name,note\nsubmitter,Acme,{self.display_name},\n"
                                               "submitter,Beta,Beta,\n")
        files.update((path, article.text()) for path, article in self.articles)
        return files


SITE_TOML = """languages = ["en", "nl"]
default_language = "en"
base_url = "{base_url}"
round = "v6.0"
previous_round = "v5.1"

[title]
en = "{title}"
nl = "{nl_title}"
"""

CLAIMS = """- id: acme-scaling
  statement: {{en: "{statement}", nl: "Acme zegt bijna lineair te schalen."}}
  source: {{outlet: "Acme", url: "https://example.com/acme", date: 2026-06-16}}
  interpretation: {{en: "Read as an efficiency bound.", nl: "Gelezen als een grens aan de efficiëntie."}}
  checks:
    - figure: "efficiency deepseekv3_671b/a512 deepseekv3_671b/a2048"
      asserts: "{asserts}"
"""

CATALOG = 'msgid ""\nmsgstr ""\n"Language: nl\\n"\n\nmsgid "Articles"\nmsgstr "{}"\n\nmsgid "Results"\nmsgstr "{}"\n'

PROJECT_CHART = '''"""A project's own chart."""
import altair as alt

from site_builder.charts import ChartDraft, Column, NoData, chart


@chart("results-per-accelerator")
def results_per_accelerator(inputs, lang):
    _ = lang.gettext
    results = inputs.current
    if results.empty:
        raise NoData("the round has no results")
    rows = results.groupby(["accelerator", "accelerator_vendor"], as_index=False).size()
    rows = rows.rename(columns={"size": "results"}).sort_values(["results", "accelerator"], ascending=[False, True])
    rows["source"] = "count of data/rounds/" + inputs.round + "/results.csv"
    bars = alt.Chart(rows).mark_bar().encode(
        x=alt.X("results:Q", title=_("Results")),
        y=alt.Y("accelerator:N", sort="-x", title=None),
    ).properties(width="container", height=alt.Step(24))
    return ChartDraft(bars, title=TITLE, heading=_("Results per accelerator"), subtitle="",
                      description=_("Results per accelerator"), rows=rows, summary=[f"{len(rows)} accelerators."],
                      columns=[Column("accelerator", _("Accelerator")), Column("results", _("Results"), "int"),
                               Column("source", _("Source"))])
'''


def results_csv(scores: dict[str, str], extra_rows: tuple[str, ...]) -> str:
    lines = csv_text(MINI_V60).splitlines()
    column = lines[0].split(",").index("score_minutes")
    for number, line in enumerate(lines[1:], 1):
        cells = line.split(",")
        if cells[6] in scores:  # system_id
            cells[column] = scores[cells[6]]
            lines[number] = ",".join(cells)
    return "\n".join([*lines, *(EXTRA_ROWS[name] for name in extra_rows)]) + "\n"


# --- edits: each a small valid change to one kind of input ------------------------------------------------

FIELDS = {"benchmark_name": BENCHMARK_NAMES, "statement": STATEMENTS, "asserts": ASSERTS, "msgstr": MSGSTRS,
          "marker": MARKERS, "script": SCRIPTS, "display_name": DISPLAY_NAMES, "chart_title": CHART_TITLES,
          "site_title": SITE_TITLES, "nl_title": NL_TITLES, "base_url": BASE_URLS}
ARTICLE_FIELDS = {"body": range(len(BODIES)), "title": TITLES, "date": DATES, "summary": SUMMARIES}


def other(values, current, choice: int):
    """values[choice], or the next one when that is `current`: every edit changes something."""
    value = values[choice % len(values)]
    return values[(choice + 1) % len(values)] if value == current else value


def apply(project: Project, edit: tuple) -> tuple[Project, str]:
    """The project after `edit` (a tuple: what changes, and indexes choosing where and to what), and what
    changed, said in words for a failure's message."""
    kind, *values = edit
    articles = dict(project.articles)
    if kind == "revert":  # back to an earlier state: A -> B -> A
        if not project.history:
            return project, "nothing to revert"
        earlier = project.history[values[0] % len(project.history)]
        return replace(earlier, history=project.history + (project,)), f"back to state {project.history.index(earlier)}"
    if kind in (*ARTICLE_FIELDS, "draft"):
        if not articles:
            return project, "no article to edit"
        path = sorted(articles)[values[0] % len(articles)]
        old = getattr(articles[path], kind)
        new = not old if kind == "draft" else other(ARTICLE_FIELDS[kind], old, values[1])
        articles[path] = replace(articles[path], **{kind: new})
        changed, said = {"articles": tuple(sorted(articles.items()))}, f"{path}: {kind} {old!r} -> {new!r}"
    elif kind == "article":  # added or removed
        path = values[0]
        said = f"{path} {'removed' if path in articles else 'added'}"
        if articles.pop(path, None) is None:
            articles[path] = ARTICLES[path]
        changed = {"articles": tuple(sorted(articles.items()))}
    elif kind == "score":
        system, old = values[0], dict(project.scores)[values[0]]
        new = other(SCORES, old, values[1])
        changed = {"scores": tuple((name, new if name == system else score) for name, score in project.scores)}
        said = f"the score of {system}: {old} -> {new}"
    elif kind == "row":  # added or removed
        row = values[0]
        said = f"result {row} {'removed' if row in project.extra_rows else 'added'}"
        changed = {"extra_rows": tuple(sorted(set(project.extra_rows) ^ {row}))}
    elif kind == "set":  # a given value (the regression cases)
        changed, said = {values[0]: values[1]}, f"{values[0]}: {getattr(project, values[0])!r} -> {values[1]!r}"
    else:  # a field of the project
        old = getattr(project, kind)
        changed = {kind: other(FIELDS[kind], old, values[0])}
        said = f"{kind}: {old!r} -> {changed[kind]!r}"
    return replace(project, **changed, history=project.history + (project,)), said


CHOICE = st.integers(0, 3)
EDITS = st.one_of(
    *(st.tuples(st.just(kind), CHOICE, CHOICE) for kind in ARTICLE_FIELDS),
    st.tuples(st.just("draft"), CHOICE),
    st.tuples(st.just("article"), st.sampled_from(sorted(ARTICLES))),
    st.tuples(st.just("score"), st.sampled_from(SCORED), st.integers(0, len(SCORES) - 1)),
    st.tuples(st.just("row"), st.sampled_from(sorted(EXTRA_ROWS))),
    *(st.tuples(st.just(kind), CHOICE) for kind in FIELDS),
    st.tuples(st.just("revert"), CHOICE),
)

# Broken inputs: the build fails, the site stays as it was; the step then undoes the break.
BREAKS = {
    "article": ("content/en/broken.md", lambda text: ARTICLES["content/en/extra.md"].text().replace(
        "The source.", "{{< fig score deepseekv3_671b/a4096 >}}")),
    "claim": ("data/rounds/v6.0/claims.yaml", lambda text: text.replace("/a2048", "/a4096")),
    "template": ("templates/base.html", lambda text: "{% if %}\n"),
    "catalog": ("locales/nl/LC_MESSAGES/messages.po", lambda text: 'msgid "Articles"\nmsgstr "x\n'),
    "site.toml": ("site.toml", lambda text: text + "\n[title\n"),
    "chart": ("charts/accelerators.py", lambda text: text.replace("    results = inputs.current\n",
                                                                  "    results = inputs.current[1 / 0]\n")),
    "data": ("data/rounds/v6.0/results.csv", lambda text: text.replace(",deepseekv3_671b,", ",deepseekv3_671b,x,", 1)),
}
# A step: an edit (a break one time in four), built by the API or the command line, the files it changes saved
# with their previous mtime or not (a copy or checkout that keeps mtimes, a second save within the same second).
BREAK = st.tuples(st.just("break"), st.sampled_from(sorted(BREAKS)))
STEPS = st.tuples(st.integers(0, 3).flatmap(lambda n: BREAK if n == 0 else EDITS), st.sampled_from(("api", "cli")),
                  st.booleans())


# --- building and comparing -------------------------------------------------------------------------------

def write_project(root: Path, files: dict[str, str], keep_mtimes: bool = False) -> None:
    """Make `root` hold exactly `files`, writing only what differs, as an editor would (Python's __pycache__
    of the chart modules stays); `keep_mtimes`: a changed file keeps its previous modification time."""
    for path in project_files(root):
        if path.relative_to(root).as_posix() not in files:
            path.unlink()
    for relative, text in files.items():
        path = root / relative
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            before = path.stat() if keep_mtimes and path.is_file() else None
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if before is not None:
                os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def project_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def inputs_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in project_files(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


class ColdBuilds:
    """Cold builds in a new process, of a copy of the project (without __pycache__), into a new folder with a
    new, empty cache. The output is a function of the inputs, so one cold build per project state serves every
    sequence that reaches it."""

    def __init__(self, folder: Path):
        self.folder, self.done = folder, {}

    def start(self, root: Path):
        key = hashlib.sha256((inputs_hash(root) + os.environ.get("SOURCE_DATE_EPOCH", "-")).encode()).hexdigest()
        if key in self.done:
            return key, None
        out, cache, copy = (self.folder / f"{key[:16]}{suffix}" for suffix in ("", "-cache", "-project"))
        for folder in (out, cache, copy):
            shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns("__pycache__"))
        env = {**os.environ, "SITE_BUILDER_CACHE": str(cache),
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        env.pop("SITE_BUILDER_CACHE_MAX_MB", None)
        command = [sys.executable, "-m", "site_builder", "build", "--root", str(copy), "--out", str(out), "--jobs", "1"]
        return key, subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def finish(self, key: str, process) -> tuple[Path, dict[str, bytes]]:
        if process is not None:
            stdout, stderr = process.communicate(timeout=600)
            assert process.returncode == 0, f"the cold build failed:\n{stderr}"
            for suffix in ("-cache", "-project"):
                shutil.rmtree(self.folder / f"{key[:16]}{suffix}", ignore_errors=True)
            out = self.folder / key[:16]
            self.done[key] = (out, snapshot(out))
        return self.done[key]


def build(root: Path, out: Path, via: str) -> str | None:
    """Build incrementally; None when it worked, else the problems."""
    if via == "api":
        try:
            build_site(root, out, jobs=1)
        except SiteError as error:
            return str(error)
        return None
    result = CliRunner().invoke(main, ["build", "--root", str(root), "--out", str(out), "--jobs", "1"])
    assert result.exit_code in (0, 1) and "Traceback" not in result.output, result.output
    return None if result.exit_code == 0 else result.stderr


def differences(incremental: dict[str, bytes], cold: dict[str, bytes]) -> list[str]:
    lines = [f"only in the incremental build: {path}" for path in sorted(incremental.keys() - cold.keys())]
    lines += [f"only in the cold build: {path}" for path in sorted(cold.keys() - incremental.keys())]
    changed = sorted(path for path in incremental.keys() & cold.keys() if incremental[path] != cold[path])
    lines += [f"differs: {path}" for path in changed]
    for path in changed[:3]:  # what differs in the first few text files
        if path.endswith((".html", ".xml", ".json", ".csv", ".svg", ".txt")):
            diff = difflib.unified_diff(cold[path].decode(errors="replace").splitlines(),
                                        incremental[path].decode(errors="replace").splitlines(),
                                        f"cold/{path}", f"incremental/{path}", n=0, lineterm="")
            lines += ["  " + line[:200] for line in list(diff)[:12]]
    return lines


def check_sequence(root: Path, work: Path, colds: ColdBuilds, steps) -> None:
    """Build the initial project, then apply each (edit, via, keep_mtimes) step: after each, incremental ==
    cold."""
    project = Project()
    write_project(root, project.files())
    out = Path(tempfile.mkdtemp(prefix="incremental-", dir=work))
    done = ["initial build" + ("" if os.environ.get("SOURCE_DATE_EPOCH") else " (SOURCE_DATE_EPOCH unset)")]

    def steps_done() -> str:
        return "\n  " + "\n  ".join(done) + "\n"

    def compare(via: str) -> None:
        key, process = colds.start(root)  # the cold build runs while the incremental one does
        try:
            problems = build(root, out, via)
        finally:
            cold_out, cold = colds.finish(key, process)
        assert problems is None, f"the incremental build failed after the steps{steps_done()}{problems}"
        found = differences(snapshot(out), cold)
        assert not found, (f"the incremental build differs from a cold one after the steps{steps_done()}"
                           f"(incremental: {out}, cold: {cold_out})\n" + "\n".join(found))

    compare("api")
    for edit, via, keep_mtimes in steps:
        done.append(f"{edit!r} built by {via}" + (", saved with the previous mtime" if keep_mtimes else ""))
        if edit[0] == "break":
            before = snapshot(out)
            relative, broken = BREAKS[edit[1]]
            path = root / relative
            text = path.read_text(encoding="utf-8") if path.is_file() else ""
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(broken(text), encoding="utf-8")
            problems = build(root, out, via)
            assert problems is not None, f"a build of a broken input worked, after the steps{steps_done()}"
            assert snapshot(out) == before, f"a failed build changed the site, after the steps{steps_done()}"
            write_project(root, project.files())  # the break undone: the same project as before it
        else:
            project, said = apply(project, edit)
            done[-1] += f" ({said})"
            write_project(root, project.files(), keep_mtimes)
        compare(via)


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """The incremental builds' cache, shared by every test and example here (a user's cache outlives a project
    state), and the cold builds, one per project state."""
    from site_builder.cache import cache_dir

    cache = tmp_path_factory.mktemp("incremental") / "cache"
    if cache_dir().is_dir():  # the run's cache: a build from nothing is slow
        shutil.copytree(cache_dir(), cache, ignore=shutil.ignore_patterns("*.tmp"))
    return cache, ColdBuilds(tmp_path_factory.mktemp("cold"))


@pytest.fixture
def property_env(shared, monkeypatch):
    cache, colds = shared
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(cache))
    monkeypatch.delenv("SITE_BUILDER_CACHE_MAX_MB", raising=False)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as a user's Python: chart modules get a __pycache__
    return colds


# 10 examples take about 5 minutes; INCREMENTAL_EXAMPLES=100 searches further (the same first 10, then more).
@settings(max_examples=int(os.environ.get("INCREMENTAL_EXAMPLES", "10")), deadline=None, derandomize=True,
          database=None,  # nothing written under the working folder
          phases=(Phase.explicit, Phase.generate),  # no shrinking: each step is seconds; the message has the steps
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(STEPS, min_size=1, max_size=4), dated=st.booleans())
def test_any_sequence_of_edits_builds_incrementally_what_a_cold_build_makes(property_env, tmp_path, steps, dated):
    root = tmp_path / "project"  # one folder for every example: the cold builds are shared by state
    root.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as monkeypatch:
        if not dated:  # the "updated" date is the newest article's
            monkeypatch.delenv("SOURCE_DATE_EPOCH")
        check_sequence(root, tmp_path, property_env, steps)


# --- the trickiest kinds, deterministically ----------------------------------------------------------------

def case(name: str, *steps, marks=()):
    return pytest.param([step if len(step) == 3 else (*step, False) for step in steps], id=name, marks=marks)


REGRESSIONS = [
    case("template-edited", (("marker", 2), "api")),
    case("template-edited-mtime-kept", (("marker", 2), "cli", True)),
    case("template-removed-then-back", (("marker", 0), "cli"), (("marker", 1), "api")),
    case("theme-asset-overridden", (("script", 1), "api")),
    case("catalog-edited", (("msgstr", 2), "api")),
    case("catalog-removed", (("msgstr", 0), "cli")),
    case("project-chart-edited", (("chart_title", 1), "api")),
    case("project-chart-edited-then-reverted", (("chart_title", 2), "cli"), (("revert", 0), "api")),
    # Chart modules once ran from a stale __pycache__ here (the size and whole-second mtime unchanged).
    case("project-chart-edited-same-size-mtime-kept", (("set", "chart_title", SAME_SIZE_TITLE), "api", True)),
    case("data-row-then-reverted", (("score", "a2048", 3), "api"), (("revert", 0), "api")),
    case("article-body-then-reverted", (("body", 0, 1), "cli"), (("revert", 0), "cli")),
    case("translation-added-then-drafted", (("article", "content/en/only.md"), "api"), (("draft", 1), "cli")),
    case("site-toml-base-url-and-title", (("base_url", 2), "api"), (("nl_title", 1), "cli")),
    case("broken-template-then-a-catalog-edit", (("break", "template"), "api"), (("msgstr", 2), "cli")),
    case("every-break", *((("break", name), via) for name in sorted(BREAKS) for via in ("api", "cli"))),
]


@pytest.mark.parametrize("steps", REGRESSIONS)
def test_an_incremental_build_after_these_edits_is_a_cold_build(property_env, tmp_path, steps):
    root = tmp_path / "project"
    root.mkdir()
    check_sequence(root, tmp_path, property_env, steps)
