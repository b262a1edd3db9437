"""The generator others install and extend: the packaged theme and its overrides, project charts through the
public chart API, and `site-builder new`."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT, write_files
from site_builder import theme
from site_builder.cli import main

PROJECT_CHART = '''
    """A project's own chart, as the README's "Add a chart" writes it."""
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
            color=alt.Color("accelerator_vendor:N", title=_("Accelerator vendor")),
        ).properties(width="container", height=alt.Step(24))
        return ChartDraft(bars, title=_("Results per accelerator"), heading=_("Results per accelerator"),
                          subtitle="", description=_("Results per accelerator"), rows=rows,
                          summary=[f"{len(rows)} accelerators."],
                          columns=[Column("accelerator", _("Accelerator")), Column("results", _("Results"), "int"),
                                   Column("source", _("Source"))])


    @chart("best-{item}", each=lambda inputs: inputs.round_benchmarks())
    def best(inputs, lang, benchmark):
        rows = inputs.current[inputs.current["benchmark"] == benchmark].dropna(subset=["score_minutes"])
        if rows.empty:
            raise NoData(f"no score for {benchmark}")
        rows = rows.nsmallest(1, "score_minutes")[["submitter", "score_minutes", "score_source"]]
        point = alt.Chart(rows).mark_point().encode(x=alt.X("score_minutes:Q"), y=alt.Y("submitter:N"))
        return ChartDraft(point, title="Best", heading="Best", subtitle="", description="Best result",
                          rows=rows, summary=["The best result."])
    '''


def build(root: Path, out: Path, *extra: str):
    return CliRunner().invoke(main, ["build", "--root", str(root), "--out", str(out), "--jobs", "1", *extra])


@pytest.fixture
def plain_site(mini_site) -> Path:
    """The mini site with no templates_dir or locales_dir: the packaged theme alone, as a new user has it."""
    config = mini_site / "site.toml"
    config.write_text("\n".join(line for line in config.read_text().splitlines()
                                 if not line.startswith(("templates_dir", "locales_dir"))) + "\n")
    return mini_site


# --- the packaged theme and its overrides -----------------------------------------------------------------------

@pytest.mark.slow
def test_a_project_without_templates_builds_from_the_packaged_theme(plain_site, tmp_path):
    result = build(plain_site, tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out/en/index.html").is_file()
    assert any(p.name.startswith("site.") and p.suffix == ".css" for p in (tmp_path / "out/assets").iterdir())


@pytest.mark.slow
def test_a_project_template_asset_and_message_override_the_theme_file_by_file(plain_site, tmp_path):
    packaged = theme.PACKAGED / "templates"
    article = (packaged / "article.html").read_text().replace('<article class="article">',
                                                                '<article class="article project-own">')
    write_files(plain_site, {
        "templates/article.html": article,
        "templates/assets/site.js": "/* the project's own script */\n",
        "locales/nl/LC_MESSAGES/messages.po": 'msgid ""\nmsgstr ""\n"Language: nl\\n"\n\n'
                                              'msgid "Articles"\nmsgstr "Stukken"\n',
    })
    result = build(plain_site, tmp_path / "out")
    assert result.exit_code == 0, result.output
    page = (tmp_path / "out/en/articles/hello/index.html").read_text()
    assert "project-own" in page  # the project's article.html
    assert '<footer' in page  # base.html still comes from the package
    scripts = [p.read_text() for p in (tmp_path / "out/assets").glob("site.*.js")]
    assert scripts == ["/* the project's own script */\n"]
    assert any(p.read_text().startswith(":root") or "{" in p.read_text()
               for p in (tmp_path / "out/assets").glob("site.*.css"))  # site.css from the package
    dutch = (tmp_path / "out/nl/index.html").read_text()
    assert "Stukken" in dutch  # the project's translation of one message
    assert "Grafieken" in dutch  # every other Dutch string from the packaged catalog


@pytest.mark.slow
def test_an_error_in_a_packaged_template_names_its_place_in_the_package(plain_site, tmp_path, monkeypatch):
    folder = tmp_path / "theme"
    shutil.copytree(theme.PACKAGED / "templates", folder / "templates")
    (folder / "templates/home.html").write_text("{% extends 'base.html' %}{% block main %}{{ nope.x }}{% endblock %}")
    monkeypatch.setattr(theme, "PACKAGED", folder)
    from site_builder import render

    monkeypatch.setattr(render, "PACKAGED", folder)
    result = build(plain_site, tmp_path / "out")
    assert result.exit_code == 1
    assert "templates/home.html:1: error: undefined value" in result.stderr


def test_a_missing_default_theme_is_one_clear_error(plain_site, tmp_path, monkeypatch):
    monkeypatch.setattr(theme, "PACKAGED", tmp_path / "broken-install")
    result = build(plain_site, tmp_path / "out")
    assert result.exit_code == 1
    problems = [line for line in result.stderr.splitlines() if "error:" in line]
    assert len(problems) == 1 and "the default theme is missing from the installed package" in problems[0]
    assert "template not found" not in result.stderr


def test_a_templates_dir_that_does_not_exist_is_an_error_at_its_line(plain_site, tmp_path):
    config = plain_site / "site.toml"
    config.write_text(config.read_text().replace('round = "v6.0"', 'round = "v6.0"\ntemplates_dir = "mytheme"'))
    result = build(plain_site, tmp_path / "out")
    assert result.exit_code == 1
    assert "site.toml:5: error: 'templates_dir' names 'mytheme', which is not a folder" in result.stderr


# --- project charts ----------------------------------------------------------------------------------------------

@pytest.fixture
def chart_site(plain_site) -> Path:
    write_files(plain_site, {"charts/accelerators.py": PROJECT_CHART})
    article = plain_site / "content/nl/hallo.md"
    article.write_text(article.read_text() + "\n{{< chart results-per-accelerator >}}\n")
    return plain_site


@pytest.mark.slow
def test_a_project_chart_gets_everything_a_built_in_chart_gets(chart_site, tmp_path):
    out = tmp_path / "out"
    result = build(chart_site, out)
    assert result.exit_code == 0, result.output
    for lang in ("en", "nl"):
        assert (out / f"{lang}/charts/results-per-accelerator/index.html").is_file()  # permalink
        assert (out / f"embed/{lang}/results-per-accelerator.html").is_file()  # embed
        assert (out / f"charts/{lang}/results-per-accelerator.svg").read_text().lstrip().startswith("<svg")
        assert (out / f"charts/{lang}/results-per-accelerator.png").read_bytes()[:4] == b"\x89PNG"
    spec = json.loads((out / "charts/nl/results-per-accelerator.vl.json").read_text())
    assert spec["config"]["locale"]["number"]["decimal"] == ","
    # The site's colours without calling a helper, on a scale a site.js dark theme can swap.
    assert spec["encoding"]["color"]["scale"]["range"][0] == "#0072B2"
    rows = list(csv.DictReader((out / "data/results-per-accelerator.csv").open()))
    assert rows and all(row["source"].startswith("count of data/rounds/v6.0") for row in rows)
    article = (out / "nl/articles/hallo/index.html").read_text()
    assert 'id="chart-results-per-accelerator"' in article
    # One chart per item: each benchmark of the round with a score.
    assert (out / "en/charts/best-deepseekv3-671b/index.html").is_file()
    listed = (out / "en/charts/index.html").read_text()
    assert "results-per-accelerator" in listed


def test_the_chart_command_exports_a_project_chart(chart_site, tmp_path):
    result = CliRunner().invoke(main, ["chart", "results-per-accelerator", "--lang", "en", "--format", "json",
                                       "--root", str(chart_site), "-o", str(tmp_path / "c.json")])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "c.json").read_text())["mark"]["type"] == "bar"


@pytest.mark.slow
@pytest.mark.parametrize("edit, expected", [
    (("import altair as alt", "import altair as alt\n1 / 0"),
     "charts/accelerators.py:3: error: ZeroDivisionError while reading the chart module: division by zero"),
    (("def best(inputs, lang, benchmark):", "def best(inputs, lang, benchmark)"),
     "charts/accelerators.py:29:34: error: syntax error: expected ':'"),
    (('rows["source"] = ', 'rows["source"] = rows["nope"] + '),
     "charts/accelerators.py:15: error: chart 'results-per-accelerator' (en, nl) could not be built: KeyError"),
    (("mark_bar()", 'mark_bar(colour="red")'),
     "charts/accelerators.py:16: error: chart 'results-per-accelerator' (en, nl) could not be built: "
     "SchemaValidationError: `MarkDef` has no parameter named 'colour'"),
    (('y=alt.Y("accelerator:N"', 'y=alt.Y("acelerator:N"'),
     "charts/accelerators.py:7: error: chart 'results-per-accelerator' (en, nl): the y encoding names the field "
     "'acelerator', which is not in the chart's data"),
    (('rows["source"] = ', 'rows["where"] = '),
     "charts/accelerators.py:7: error: chart 'results-per-accelerator' (en, nl): the plotted rows have no source"),
    (("    results = inputs.current\n", "    raise SystemExit(3)\n"),
     "charts/accelerators.py:10: error: chart 'results-per-accelerator' (en, nl) could not be built: SystemExit: 3"),
    (("return ChartDraft(bars,", "return None and ChartDraft(bars,"),
     "charts/accelerators.py:7: error: chart 'results-per-accelerator' (en, nl) returned NoneType, not a ChartDraft"),
    (('@chart("results-per-accelerator")', '@chart("participation")'),
     "charts/accelerators.py:7: error: chart id 'participation' is already taken by a chart of site-builder"),
    (('@chart("best-{item}",', '@chart(lambda benchmark: "Best " + benchmark,'),
     "charts/accelerators.py:28: error: chart id 'Best llama31_8b' is not lower-case words joined by '-'"),  # the oldest round's first
    (('@chart("results-per-accelerator")', '@chart("Results Per Accelerator")'),
     "charts/accelerators.py:7: error: chart id 'Results Per Accelerator' is not lower-case words joined by '-'"),
])
def test_an_error_in_a_project_chart_is_located_never_a_traceback(chart_site, tmp_path, edit, expected):
    path = chart_site / "charts/accelerators.py"
    old, new = edit
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new, 1))
    result = build(chart_site, tmp_path / "out")
    assert result.exit_code == 1
    assert expected in result.stderr, result.stderr
    assert "Traceback" not in result.output and not (tmp_path / "out").exists()


@pytest.mark.slow
def test_editing_a_project_chart_rebuilds_it(chart_site, tmp_path):
    out = tmp_path / "out"
    assert build(chart_site, out).exit_code == 0
    path = chart_site / "charts/accelerators.py"
    path.write_text(path.read_text().replace('_("Results per accelerator"), heading=',
                                             '"Results by accelerator type", heading='))
    result = build(chart_site, out)
    assert result.exit_code == 0, result.output
    assert "Results by accelerator type" in (out / "en/charts/results-per-accelerator/index.html").read_text()


# --- site-builder new --------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_new_writes_a_project_that_builds_at_once_in_every_language(tmp_path):
    project = tmp_path / "report"
    result = CliRunner().invoke(main, ["new", str(project), "-l", "en", "-l", "nl", "-l", "de", "-l", "ar"])
    assert result.exit_code == 0, result.output
    for path in ("site.toml", "README.md", "data/README.md", "charts/results_by_submitter.py",
                 "content/ar/first-look.md", "locales/de/LC_MESSAGES/messages.po"):
        assert (project / path).is_file(), path
    built = build(project, tmp_path / "out")
    assert built.exit_code == 0, built.output
    out = tmp_path / "out"
    for lang in ("en", "nl", "de", "ar"):
        page = (out / f"{lang}/articles/first-look/index.html").read_text()
        assert 'id="chart-results-by-submitter"' in page  # the project's chart in the article
        assert page.count('class="figure"') >= 4  # the bound figures
    assert "Ergebnisse nach Einreicher" in (out / "de/charts/results-by-submitter/index.html").read_text()
    assert '<html lang="ar" dir="rtl"' in (out / "ar/index.html").read_text()
    # A new language's untranslated interface is one warning per catalog, not one per string.
    catalog_warnings = [line for line in built.stderr.splitlines() if "messages.po" in line and "warning" in line]
    assert len([w for w in catalog_warnings if "'de'" in w]) == 1


def test_a_new_projects_own_chart_exports_without_a_build(tmp_path):
    """The scaffold's chart (site_builder/scaffold/charts/), quickly: the fast tier builds no new project."""
    assert CliRunner().invoke(main, ["new", str(tmp_path / "p"), "-l", "en"]).exit_code == 0
    result = CliRunner().invoke(main, ["chart", "results-by-submitter", "--lang", "en", "--format", "json",
                                       "--root", str(tmp_path / "p"), "-o", str(tmp_path / "c.json")])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "c.json").read_text())["mark"]["type"] == "bar"


def test_new_takes_a_round_and_says_which_it_has(tmp_path):
    result = CliRunner().invoke(main, ["new", str(tmp_path / "a"), "--round", "v5.1"])
    assert result.exit_code == 0, result.output
    assert 'round = "v5.1"' in (tmp_path / "a/site.toml").read_text()
    assert [p.name for p in (tmp_path / "a/data/rounds").iterdir()] == ["v5.1"]
    refused = CliRunner().invoke(main, ["new", str(tmp_path / "b"), "--round", "v0.9", "-l", "xx"])
    assert refused.exit_code == 1
    assert "error: no starter data for round 'v0.9'" in refused.stderr
    assert "error: 'xx' is not a language Babel knows" in refused.stderr
    assert not (tmp_path / "b").exists()


def test_new_refuses_a_folder_that_is_not_empty(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full/notes.txt").write_text("mine")
    result = CliRunner().invoke(main, ["new", str(tmp_path / "full")])
    assert result.exit_code == 1 and "not empty; refusing to write into it" in result.stderr
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["notes.txt"]
    (tmp_path / "empty").mkdir()
    assert CliRunner().invoke(main, ["new", str(tmp_path / "empty")]).exit_code == 0


def test_a_language_without_a_starter_text_gets_the_english_one_and_is_told(tmp_path):
    result = CliRunner().invoke(main, ["new", str(tmp_path / "p"), "-l", "pt"])
    assert result.exit_code == 0
    assert "content/pt/first-look.md is the English starter article: translate it" in result.stderr


@pytest.mark.slow
def test_new_article_scaffolds_a_draft_in_every_language(tmp_path):
    project = tmp_path / "report"
    CliRunner().invoke(main, ["new", str(project), "-l", "en", "-l", "nl"])
    result = CliRunner().invoke(main, ["new", "article", "Scaling: a second look", "--root", str(project)])
    assert result.exit_code == 0, result.output
    for lang in ("en", "nl"):
        text = (project / f"content/{lang}/scaling-a-second-look.md").read_text()
        assert 'title: "Scaling: a second look"' in text and "key: scaling-a-second-look" in text
        assert "draft: true" in text
    assert build(project, tmp_path / "out").exit_code == 0  # a draft is valid and not published
    assert not (tmp_path / "out/en/articles/scaling-a-second-look").exists()
    again = CliRunner().invoke(main, ["new", "article", "Scaling: a second look", "--root", str(project)])
    assert again.exit_code == 1 and "exists already; refusing to overwrite it" in again.stderr
    away = CliRunner().invoke(main, ["new", "article", "Elsewhere", "--key", "../../evil", "--root", str(project)])
    assert away.exit_code == 1 and "the key '../../evil' may hold only letters, digits" in away.stderr
    assert not list(tmp_path.rglob("evil.md"))


def test_the_starter_data_is_an_unchanged_excerpt_of_the_report_data():
    """No number in the scaffold is typed by hand: its rows are the repository's own rows."""
    scaffold = ROOT / "site_builder/scaffold/data"
    for folder in (scaffold / "rounds").iterdir():
        ours = (ROOT / "data/rounds" / folder.name / "results.csv").read_text(encoding="utf-8").splitlines()
        excerpt = (folder / "results.csv").read_text(encoding="utf-8").splitlines()
        assert excerpt[0] == ours[0] and len(excerpt) > 10
        assert set(excerpt[1:]) <= set(ours[1:])
    benchmarks = (ROOT / "data/benchmarks.csv").read_text(encoding="utf-8").splitlines()
    assert set((scaffold / "benchmarks.csv").read_text(encoding="utf-8").splitlines()) <= set(benchmarks)
    for name in ("accelerators.csv", "vendors.csv"):
        assert (scaffold / name).read_text(encoding="utf-8") == (ROOT / "data" / name).read_text(encoding="utf-8")


def test_the_wheel_ships_the_theme_and_the_scaffold():
    """Every file the package reads at run time is package data in pyproject.toml (a wheel without them
    crashes; CI also installs the wheel in a fresh environment and builds with it)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert config["tool"]["setuptools"]["packages"]["find"]["include"] == ["site_builder*"]
    data = config["tool"]["setuptools"]["package-data"]
    assert "templates/**/*" in data["site_builder.theme"] and "locales/**/*" in data["site_builder.theme"]
    assert data["site_builder.scaffold"] == ["**/*"]
    assert "license" not in config["project"]  # setuptools before 77 rejects the SPDX string form


@pytest.mark.slow
def test_the_readme_chart_example_works_as_written(tmp_path):
    """A project chart written from the README alone: its example, unchanged, in a new project."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("**Add a chart.**"):]
    code = section[section.index("```python\n") + len("```python\n"):section.index("\n```\n")]
    project = tmp_path / "report"
    assert CliRunner().invoke(main, ["new", str(project), "-l", "en", "-l", "nl"]).exit_code == 0
    (project / "charts/results_per_accelerator.py").write_text(code + "\n", encoding="utf-8")
    article = project / "content/nl/first-look.md"
    article.write_text(article.read_text(encoding="utf-8") + "\n{{< chart results-per-accelerator >}}\n",
                       encoding="utf-8")
    result = build(project, tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert 'id="chart-results-per-accelerator"' in (tmp_path / "out/nl/articles/first-look/index.html").read_text()
    assert (tmp_path / "out/data/results-per-accelerator.csv").is_file()


@pytest.mark.slow
def test_english_fallbacks_are_isolated_in_a_right_to_left_page_only(tmp_path):
    """An interface string shown in English on an Arabic page reads left to right with its punctuation at its
    end (a Unicode isolate around it); translated strings, and pages of left-to-right languages, are as they were."""
    project = tmp_path / "report"
    assert CliRunner().invoke(main, ["new", str(project), "-l", "en", "-l", "nl", "-l", "ar"]).exit_code == 0
    assert build(project, tmp_path / "out").exit_code == 0
    arabic = (tmp_path / "out/ar/index.html").read_text()
    assert "\u2068Benchmarks\u2069" in arabic  # no Arabic catalog for the theme: English, isolated
    # The sentences the pages' contexts make in Python (a finding, the round's counts) are isolated as well...
    assert "\u2068Fastest " in arabic and "accelerator types.\u2069" in arabic
    # ...but not a chart's own texts, nor the data's files: a chart's spec and table keep plain strings.
    made = [path for path in (tmp_path / "out").rglob("*") if path.suffix in (".json", ".csv", ".svg")]
    assert made and not [path for path in made if "\u2068" in path.read_text(encoding="utf-8")]
    assert "\u2068" not in (tmp_path / "out/nl/index.html").read_text()
    assert "\u2068" not in (tmp_path / "out/en/index.html").read_text()
    chart = (tmp_path / "out/ar/charts/results-by-submitter/index.html").read_text()
    assert "\u2068النتائج حسب" not in chart and "النتائج حسب الجهة المقدِّمة" in chart  # translated: untouched
    # A chart's own texts in English are isolated on its page (its heading, its text alternative), as on its card
    # and its embed; its spec, table and pictures keep plain strings (above).
    chart = (tmp_path / "out/ar/charts/gpu-minutes/index.html").read_text()
    assert "<h1>\u2068Accelerator-minutes\u2069</h1>" in chart
    assert re.search("<p>\u2068Accelerator-minutes of [0-9]+ scored results\\.\u2069</p>", chart)


@pytest.mark.slow
def test_a_language_without_a_content_folder_builds_with_a_warning_and_fails_with_strict(plain_site, tmp_path):
    config = plain_site / "site.toml"
    config.write_text(config.read_text().replace('["en", "nl"]', '["en", "nl", "de"]').replace(
        'nl = "Mini-rapport"', 'nl = "Mini-rapport"\nde = "Mini-Bericht"'))
    result = build(plain_site, tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "content/de: warning: no content folder for language 'de'" in result.stderr
    assert (tmp_path / "out/de/articles/index.html").read_text().count('<li lang="en"') >= 1
    strict = build(plain_site, tmp_path / "strict", "--strict")
    assert strict.exit_code == 1 and "content/de: error: no content folder for language 'de'" in strict.stderr


def test_a_site_error_survives_the_trip_from_a_worker_process():
    """Workers send problems back by pickle: the problems, not the message taken apart character by character."""
    import pickle

    from site_builder.errors import Problem, SiteError

    error = SiteError([Problem("broken", "content/en/x.md", 3, 4, "fix it"), Problem("also", severity="warning")])
    again = pickle.loads(pickle.dumps(error))
    assert again.problems == error.problems and str(again) == str(error)
