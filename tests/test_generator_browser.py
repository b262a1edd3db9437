"""A project as a new user makes it, looked at in a real browser: `site-builder new` in four languages and a
right-to-left one, plus a chart of its own written from the README alone. No page scrolls sideways at 320, 360
or 1280 px, and no chart text is clipped or mirrored."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder.cli import main
from tests.conftest import ROOT
from tests.site_checks import wait_until
from tests.test_browser import ALL_CHARTS_DRAWN, browser  # noqa: F401  (the module skips without chromium)
from tests.test_rtl_browser import CHART_TEXT, SIDEWAYS

pytestmark = pytest.mark.slow  # a real browser

LANGUAGES = ("en", "nl", "it", "vi", "ar")
WIDTHS = (320, 360, 1280)


@pytest.fixture(scope="module")
def new_site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("generator")
    project = root / "report"
    made = CliRunner().invoke(main, ["new", str(project), *[f"--language={code}" for code in LANGUAGES]])
    assert made.exit_code == 0, made.output
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("**Add a chart.**"):]
    code = section[section.index("```python\n") + len("```python\n"):section.index("\n```\n")]
    (project / "charts/results_per_accelerator.py").write_text(code + "\n", encoding="utf-8")
    for lang in LANGUAGES:
        article = project / f"content/{lang}/first-look.md"
        article.write_text(article.read_text(encoding="utf-8") + "\n{{< chart results-per-accelerator >}}\n",
                           encoding="utf-8")
    built = CliRunner().invoke(main, ["build", "--root", str(project), "--out", str(root / "out")])
    assert built.exit_code == 0, built.output
    return root / "out"


def test_the_project_chart_has_its_page_embed_csv_and_svg_in_every_language(new_site):
    for lang in LANGUAGES:
        assert (new_site / f"{lang}/charts/results-per-accelerator/index.html").is_file()
        assert (new_site / f"embed/{lang}/results-per-accelerator.html").is_file()
        assert (new_site / f"charts/{lang}/results-per-accelerator.svg").read_text().lstrip().startswith("<svg")
    assert (new_site / "data/results-per-accelerator.csv").read_text().startswith("accelerator,")


def _opener(browser, site: Path, width: int):  # noqa: F811
    """A page of one browser context at `width`, sent to each path in turn (a context per page costs more)."""
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)

    def go(path: str):
        page.errors.clear()
        page.goto((site / path).as_uri())
        wait_until(page, ALL_CHARTS_DRAWN)
        return page

    return context, go


# Every page at the narrowest width; one of each kind at the others.
SAMPLE = ("{lang}/index.html", "{lang}/articles/first-look/index.html", "{lang}/charts/results-per-accelerator/index.html",
          "{lang}/benchmarks/llama31-8b/index.html", "{lang}/claims/index.html", "embed/{lang}/results-by-submitter.html")


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_page_of_a_new_project_scrolls_sideways(new_site, browser, lang, width):  # noqa: F811
    if width == min(WIDTHS):
        every = [*(new_site / lang).rglob("*.html"), *(new_site / "embed" / lang).glob("*.html")]
        # A redirect (a round's own address of the main round) navigates away before it can be measured;
        # it has to lead to a page that is measured here.
        redirects = {p for p in every if 'http-equiv="refresh"' in p.read_text(encoding="utf-8")}
        for redirect in redirects:
            target = re.search(r'http-equiv="refresh" content="0; url=([^"]+)"', redirect.read_text(encoding="utf-8"))
            assert target and (redirect.parent / target[1]).resolve() in {p.resolve() for p in every}, redirect
        paths = sorted(p.relative_to(new_site).as_posix() for p in every if p not in redirects)
        assert len(paths) > 20
    else:
        paths = [template.format(lang=lang) for template in SAMPLE]
    context, go = _opener(browser, new_site, width)
    try:
        for path in paths:
            page = go(path)
            scroll_width, client_width = page.evaluate(SIDEWAYS)
            assert scroll_width <= client_width, f"{path} at {width} px is {scroll_width} px wide"
            assert page.errors == [], (path, page.errors)
    finally:
        context.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", ["ar", "en"])
def test_the_project_charts_text_is_whole_and_left_to_right(new_site, browser, lang, width):  # noqa: F811
    context, go = _opener(browser, new_site, width)
    try:
        for path in (f"{lang}/charts/results-per-accelerator/index.html", f"{lang}/articles/first-look/index.html",
                     f"embed/{lang}/results-by-submitter.html"):
            charts = go(path).evaluate(CHART_TEXT)
            assert charts, path
            for chart in charts:
                where = f"{path} at {width} px: {chart}"
                assert chart["direction"] == "ltr" and chart["svgDirection"] == "ltr", where
                assert chart["title"] and chart["texts"] > 3 and chart["outside"] == [], where
                assert chart["figure"] == ("rtl" if lang == "ar" else "ltr"), where
    finally:
        context.close()
