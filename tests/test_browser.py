"""The built site in a real browser (Debian chromium driven by Playwright): charts draw, tables sort,
nothing is requested from another origin, and the site works from a sub-path and from file://. Every page type in
every language, light and dark, keeps to its Content-Security-Policy and passes axe-core with no violation."""

import functools
import http.server
import os
import shutil
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from site_builder.config import load_config
from tests.conftest import PATIENCE, ROOT
from tests.site_checks import validator_file, wait_until

pytestmark = pytest.mark.slow  # a real browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
REQUIRED = os.environ.get("SITE_BUILDER_REQUIRE_BROWSER") == "1"  # CI sets this: no silent skip there

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover
    sync_playwright = None

if not REQUIRED and (sync_playwright is None or not Path(CHROMIUM).exists()):
    pytest.skip("chromium or playwright is not installed (set SITE_BUILDER_REQUIRE_BROWSER=1 to fail instead)",
                allow_module_level=True)


_SERVED_ROOTS: dict[str, Path] = {}
BASE_PATH = urlsplit(load_config(ROOT).base_url).path.strip("/")


def served_root(url: str) -> Path:
    """The folder behind a `served` URL, for tests that add a page of their own."""
    return _SERVED_ROOTS[url]


@pytest.fixture(scope="module")
def served(shipped_site, tmp_path_factory):
    """The site under a sub-path, /reports/v6/, on a local server; also at the path of its configured address
    (where the 404 page's links point with a real address)."""
    root = tmp_path_factory.mktemp("www")
    (root / "reports").mkdir()
    shutil.copytree(shipped_site, root / "reports" / "v6")
    (root / BASE_PATH).parent.mkdir(parents=True, exist_ok=True)
    (root / BASE_PATH).symlink_to(root / "reports" / "v6", target_is_directory=True)
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/reports/v6/"
    _SERVED_ROOTS[url] = root / "reports" / "v6"
    yield url
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"])
        yield browser
        browser.close()


def _open(browser, url, width=1200):
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors, foreign = [], []
    origin = url.split("/reports/")[0] if url.startswith("http") else "file://"
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: foreign.append(r.url) if not r.url.startswith(origin) and
            not r.url.startswith("data:") else None)
    page.goto(url)
    page.wait_for_load_state("networkidle")
    return page, errors, foreign


@pytest.mark.parametrize("path, charts", [("en/index.html", 2), ("vi/index.html", 2),
                                          ("nl/benchmarks/deepseekv3-671b/index.html", 1),
                                          ("it/benchmarks/llama31-8b/index.html", 1)])
def test_charts_draw_without_errors_or_foreign_requests(browser, served, path, charts):
    page, errors, foreign = _open(browser, served + path)
    wait_until(page, f"document.querySelectorAll('.vega-chart svg.marks').length >= {charts}")
    assert errors == [] and foreign == []
    page.close()


def _scored_in_data(benchmark: str) -> int:
    import csv

    with (ROOT / "data/rounds/v6.0/results.csv").open(newline="", encoding="utf-8") as handle:
        return sum(1 for row in csv.DictReader(handle) if row["benchmark"] == benchmark and row["score_minutes"])


def test_results_table_sorts_and_keeps_missing_scores_last(browser, served):
    page, errors, _ = _open(browser, served + "en/benchmarks/llama31-8b/index.html")
    table = page.locator("table.results")
    minutes_column = 1  # right after the system, so that a phone shows it
    header = table.locator("thead th").nth(minutes_column)
    header.locator("button").click()
    header.locator("button").click()  # descending
    assert header.get_attribute("aria-sort") == "descending"
    values = table.locator("tbody tr").evaluate_all(
        f"rows => rows.map(r => r.cells[{minutes_column}].getAttribute('data-sort'))")
    scored = [float(v) for v in values if v]
    assert scored == sorted(scored, reverse=True) and len(scored) == _scored_in_data("llama31_8b")
    assert values[len(scored):] == [""] * (len(values) - len(scored))
    assert errors == []
    page.close()


def test_site_works_from_file_urls_and_narrow_screens(browser, shipped_site):
    page, errors, foreign = _open(browser, (shipped_site / "it/index.html").as_uri(), width=320)
    wait_until(page, "document.querySelectorAll('.vega-chart svg.marks').length >= 2")
    width = page.evaluate("document.querySelector('.vega-chart svg.marks').getBoundingClientRect().width")
    assert 200 < width <= 320
    page.click(".lang-switch > summary")  # the languages are a disclosure
    page.click("text=Tiếng Việt")
    assert page.url.endswith("/vi/index.html")
    assert errors == [] and foreign == []
    page.close()


def test_right_to_left_layout_mirrors(browser, arabic_site, tmp_path):
    from site_builder.build import build_site

    build_site(arabic_site, tmp_path / "out")
    page, errors, foreign = _open(browser, (tmp_path / "out/ar/index.html").as_uri())
    brand = page.locator(".brand").bounding_box()
    switch = page.locator(".lang-switch").bounding_box()
    heading = page.locator("h1").bounding_box()
    assert brand["x"] > switch["x"]  # the site name sits on the right, the switcher on the left
    assert heading["x"] + heading["width"] > 1000  # headings start at the right edge
    ltr, _, _ = _open(browser, (tmp_path / "out/en/index.html").as_uri())
    assert ltr.locator(".brand").bounding_box()["x"] < ltr.locator(".lang-switch").bounding_box()["x"]
    assert errors == [] and foreign == []


CATALOG = ["scaling-deepseekv3-671b", "fastest-per-benchmark", "accelerator-comparison", "mi355x-vs-b200", "round-over-round",
           "participation", "scale-distribution", "gpu-minutes", "results-deepseekv3-671b", "results-gpt-oss-20b",
           "results-llama31-405b", "results-llama31-8b", "results-llama2-70b-lora", "results-flux1",
           "results-dlrm-dcnv2"]


@pytest.mark.parametrize("lang", ["en", "nl", "it", "vi"])
def test_every_catalog_chart_draws_in_its_embed_page(browser, served, lang):
    page = browser.new_page(viewport={"width": 700, "height": 600})
    errors, foreign = [], []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: foreign.append(r.url) if not r.url.startswith(served.split("/reports/")[0]) else None)
    for chart in CATALOG:
        page.goto(f"{served}embed/{lang}/{chart}.html")
        wait_until(page, "document.querySelector('.vega-chart svg.marks') !== null")
        marks = page.evaluate("document.querySelectorAll('.vega-chart svg.marks .mark-symbol path, "
                              ".vega-chart svg.marks .mark-rect path, .vega-chart svg.marks .mark-line path').length")
        assert marks > 0, (lang, chart)
    assert errors == [] and foreign == []
    page.close()


def test_embed_on_another_origin_resizes_its_iframe(browser, served, tmp_path):
    """A host page on a different origin pastes the documented snippet and iframe code."""
    import re

    permalink = browser.new_page()
    permalink.goto(served + "en/charts/mi355x-vs-b200/index.html")
    iframe_code = permalink.input_value("#embed-code").replace(
        "https://example.org/mlperf-training-v6.0/", served)
    snippet = permalink.input_value("#resize-code")
    permalink.close()
    assert 'title="' in iframe_code and snippet.count("\n") <= 4
    host = tmp_path / "host"
    host.mkdir()
    (host / "index.html").write_text(f"<!doctype html><title>host</title><h1>Host</h1>{iframe_code}{snippet}")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(host)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        page = browser.new_page(viewport={"width": 900, "height": 800})
        page.goto(f"http://localhost:{server.server_port}/index.html")  # "localhost" vs 127.0.0.1: another origin
        wait_until(page, "document.querySelector('iframe').style.height !== '480px'")
        # The frame reports its height again once the chart has drawn: wait for the host to follow it.
        deadline, height, inner = time.monotonic() + PATIENCE, 0, -100
        while time.monotonic() < deadline and not (abs(height - inner) <= 2 and height > 150):
            page.wait_for_timeout(200)
            height = int(re.match(r"(\d+)px", page.evaluate("document.querySelector('iframe').style.height")).group(1))
            inner = page.frames[1].evaluate("document.documentElement.scrollHeight")
        assert abs(height - inner) <= 2 and height > 150
        page.close()
    finally:
        server.shutdown()


def test_chart_hidden_at_load_draws_when_shown(browser, served, shipped_site):
    """site.js draws into a container that is hidden at load; when shown, the chart takes its real width."""
    embed = (shipped_site / "embed/en/participation.html").read_text()
    hidden = embed.replace("<main>", '<div id="box" hidden><main>').replace("</main>", "</main></div>")
    www = Path(served_root(served))
    (www / "embed/en/hidden-test.html").write_text(hidden)
    page, errors, _ = _open(browser, served + "embed/en/hidden-test.html", width=900)
    page.wait_for_timeout(500)
    assert page.evaluate("document.querySelector('.vega-chart').getBoundingClientRect().width") == 0
    page.evaluate("document.getElementById('box').hidden = false")
    # Polled from here: Playwright's wait_for_function evaluates its predicate with eval, which the page's
    # Content-Security-Policy blocks.
    width, deadline = 0, time.monotonic() + PATIENCE
    while width <= 700 and time.monotonic() < deadline:
        page.wait_for_timeout(200)
        width = page.evaluate("(document.querySelector('.vega-chart svg.marks') || {getBoundingClientRect: () => "
                              "({width: 0})}).getBoundingClientRect().width")
    assert width > 700
    assert errors == []
    page.close()


# --- Content-Security-Policy and accessibility on every page type ----------------------------------------------

LISTEN_FOR_VIOLATIONS = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__csp.push(e.violatedDirective + " blocked " + (e.blockedURI || "?") + " at line " + e.lineNumber +
                    (e.sample ? " (" + e.sample + ")" : ""));
});
"""
ALL_CHARTS_DRAWN = "[...document.querySelectorAll('.vega-chart')].every(e => e.querySelector('svg.marks'))"
AXE_RUN = """axe.run(document, {resultTypes: ["violations"], preload: false}).then(r => r.violations.map(v =>
  v.id + " (" + v.impact + "): " + v.nodes.slice(0, 4).map(n => n.target.join(" ")).join(", ") +
  (v.nodes.length > 4 ? " and " + (v.nodes.length - 4) + " more" : "")))"""


def is_redirect(page: Path) -> bool:
    return 'http-equiv="refresh"' in page.read_text(encoding="utf-8")


def page_kinds(site: Path, lang: str) -> list[str]:
    """One page of each type in a language, found in the built site (so a new section is covered): the home page,
    each section's index, the first page of each section but every article (their HTML differs most), an embed.
    Redirects (old chart addresses) leave at once; test_validators checks their markup and policy."""
    pages = [f"{lang}/index.html"]
    for section in sorted(p for p in (site / lang).iterdir() if p.is_dir()):
        if (section / "index.html").is_file():
            pages.append(f"{lang}/{section.name}/index.html")
        items = [p for p in sorted(section.glob("*/index.html")) if not is_redirect(p)]
        pages += [p.relative_to(site).as_posix() for p in (items if section.name == "articles" else items[:1])]
    embeds = [p for p in sorted((site / "embed" / lang).glob("*.html")) if not is_redirect(p)]
    return pages + [p.relative_to(site).as_posix() for p in embeds[:1]]


def check_pages(context, root: str, paths: list[str], axe: str | None) -> dict[str, list[str]]:
    """Open each page: CSP violations, console errors, charts not drawn and (given axe's source) axe violations."""
    page = context.new_page()
    messages: list[str] = []
    page.on("console", lambda m: messages.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: messages.append(f"page error: {e}"))
    found = {}
    for path in paths:
        messages.clear()
        page.goto(root + path)
        problems = []
        try:
            wait_until(page, ALL_CHARTS_DRAWN)
        except Exception:  # noqa: BLE001 - a timeout is the finding
            problems.append("a chart was not drawn")
        problems += [f"CSP {v}" for v in page.evaluate("window.__csp")]
        problems += list(messages)
        if axe:
            page.evaluate(axe)  # through the DevTools protocol: the page's policy does not apply to it
            problems += [f"axe {v}" for v in page.evaluate(AXE_RUN)]
        if problems:
            found[path] = problems
    page.close()
    return found


def assert_clean(found: dict[str, list[str]]) -> None:
    assert found == {}, "\n".join(f"{path}:\n  " + "\n  ".join(problems) for path, problems in found.items())


@pytest.fixture(scope="module")
def axe_source() -> str:
    return validator_file("axe-core/axe.min.js").read_text(encoding="utf-8")


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", [*load_config(ROOT).languages, None])
def test_every_page_type_keeps_its_policy_draws_and_passes_axe(browser, served, shipped_site, axe_source, lang,
                                                               scheme):
    """Over http from a sub-path. lang None: the language chooser and the 404 page (served at its base path)."""
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1200, "height": 900})
    context.add_init_script(LISTEN_FOR_VIOLATIONS)
    if lang:
        found = check_pages(context, served, page_kinds(shipped_site, lang), axe_source)
    else:
        origin = served.split("/reports/")[0]
        # The 404 page at its own address under a sub-path; at any depth: test_navigation_browser.
        found = {**check_pages(context, served, ["index.html", "404.html"], axe_source),
                 **check_pages(context, f"{origin}/{BASE_PATH}/", ["404.html"], axe_source)}
    context.close()
    assert_clean(found)


@pytest.mark.parametrize("lang", ["nl"])
def test_policy_holds_from_file_urls(browser, shipped_site, lang):
    """Under file:// Chromium gives the page an opaque origin; 'self' must still admit the site's own files."""
    context = browser.new_context()
    context.add_init_script(LISTEN_FOR_VIOLATIONS)
    found = check_pages(context, shipped_site.as_uri() + "/", ["index.html", *page_kinds(shipped_site, lang)], None)
    context.close()
    assert_clean(found)


@pytest.mark.parametrize("scheme", ["http", "file"])
def test_the_policy_blocks_inline_code_and_other_origins(browser, served, shipped_site, scheme):
    """The meta policy is in force (and the listener hears it), over http and from file://: an inline script
    does not run, an inline style and an image from another origin are blocked, and the chart still draws
    (without eval: Vega's expression interpreter)."""
    page_text = (shipped_site / "embed/en/participation.html").read_text()
    other_origin = served.replace("127.0.0.1", "localhost")
    hostile = page_text.replace("<main>", '<main><script>window.__ran = true;</script><p style="color: red">x</p>'
                                          f'<img src="{other_origin}assets/nothing.png" alt="">')
    copy = Path(served_root(served))  # a copy of the site: the shared build stays as it is
    (copy / "embed/en/policy-test.html").write_text(hostile)
    context = browser.new_context()
    context.add_init_script(LISTEN_FOR_VIOLATIONS)
    page = context.new_page()
    page.goto(served + "embed/en/policy-test.html" if scheme == "http" else (copy / "embed/en/policy-test.html").as_uri())
    wait_until(page, ALL_CHARTS_DRAWN)
    violations = " | ".join(page.evaluate("window.__csp"))
    assert page.evaluate("window.__ran === undefined")
    assert "script-src-elem" in violations and "style-src-attr" in violations and "img-src" in violations
    assert page.evaluate("getComputedStyle(document.querySelector('main p')).color") != "rgb(255, 0, 0)"
    context.close()


def test_axe_finds_violations_when_there_are_some(browser, served, shipped_site, axe_source):
    """A page with an unlabelled image and low-contrast text: axe must report both, in light and dark."""
    page_text = (shipped_site / "en/charts/index.html").read_text()
    broken = page_text.replace('alt=""', "", 1).replace("<h1>", '<h1 class="missing" lang="zz-invalid-">', 1)
    (Path(served_root(served)) / "en/charts/axe-test.html").write_text(broken)
    context = browser.new_context()
    context.add_init_script(LISTEN_FOR_VIOLATIONS)
    found = check_pages(context, served, ["en/charts/axe-test.html"], axe_source)
    context.close()
    rules = " ".join(found.get("en/charts/axe-test.html", []))
    assert "axe image-alt" in rules and "axe valid-lang" in rules


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_tooltip_shows_under_the_policy_styled_by_the_site(browser, served, shipped_site, scheme):
    """vega-tooltip would inject a <style> element; with it disabled, site.css styles the tooltip."""
    chart = next(p.stem for p in sorted((shipped_site / "embed/en").glob("*.html")) if not is_redirect(p) and
                 '"tooltip"' in (shipped_site / f"charts/en/{p.stem}.vl.json").read_text())
    context = browser.new_context(color_scheme=scheme, viewport={"width": 900, "height": 700})
    context.add_init_script(LISTEN_FOR_VIOLATIONS)
    page = context.new_page()
    page.goto(f"{served}embed/en/{chart}.html")
    wait_until(page, ALL_CHARTS_DRAWN)
    mark = page.locator(".vega-chart svg.marks .mark-symbol path, .vega-chart svg.marks .mark-rect path").first
    box = mark.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector("#vg-tooltip-element.visible", timeout=PATIENCE * 1000)
    tooltip = page.evaluate("""(() => { const t = document.getElementById('vg-tooltip-element'), s = getComputedStyle(t);
        return {position: s.position, visibility: s.visibility, color: s.color, background: s.backgroundColor,
                text: t.textContent, styles: document.querySelectorAll('style').length}; })()""")
    assert tooltip["position"] == "fixed" and tooltip["visibility"] == "visible" and tooltip["text"].strip()
    assert tooltip["styles"] == 0 and tooltip["color"] != tooltip["background"]
    assert page.evaluate("window.__csp") == []
    context.close()


@pytest.mark.parametrize("width", [360, 1280])
def test_a_bound_figure_shows_its_provenance_on_focus_without_widening_the_page(browser, served, width):
    page = browser.new_page(viewport={"width": width, "height": 800})
    page.goto(served + "nl/articles/ronde-v6-0/index.html")
    figure = page.locator(".figure:has(> a)").first
    note, link = figure.locator(".figure-note"), figure.locator("> a")
    assert not note.is_visible()  # hidden until asked for
    link.focus()
    assert note.is_visible() and len(note.inner_text()) > 20
    assert link.get_attribute("aria-describedby") == note.get_attribute("id")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    href = link.get_attribute("href")
    link.click()  # the figure leads to its row, which the page highlights
    page.wait_for_load_state()
    assert page.evaluate("location.hash") == "#" + href.split("#")[1]
    assert page.locator(":target").count() == 1
    page.close()


def test_the_screenshot_command_writes_a_png_of_the_viewport(tmp_path):
    page = tmp_path / "page.html"
    page.write_text("<!doctype html><html lang=en><title>x</title><p>A page.</p>", encoding="utf-8")
    # In a process of its own: Playwright's sync API refuses to run where another test left an asyncio loop.
    result = subprocess.run([sys.executable, "-m", "site_builder", "screenshot", str(page), "-o",
                             str(tmp_path / "shot.png"), "--width", "400", "--height", "300"],
                            capture_output=True, text=True, timeout=PATIENCE)
    assert result.returncode == 0, result.stderr
    png = (tmp_path / "shot.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (400, 300)
