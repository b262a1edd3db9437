"""The built site in a real browser (Debian chromium driven by Playwright): charts draw, tables sort,
nothing is requested from another origin, and the site works from a sub-path and from file://."""

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest

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


def served_root(url: str) -> Path:
    """The folder behind a `served` URL, for tests that add a page of their own."""
    return _SERVED_ROOTS[url]


@pytest.fixture(scope="module")
def served(shipped_site, tmp_path_factory):
    """The site under a sub-path, /reports/v6/, on a local server."""
    root = tmp_path_factory.mktemp("www")
    (root / "reports").mkdir()
    shutil.copytree(shipped_site, root / "reports" / "v6")
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
    page.wait_for_function(f"document.querySelectorAll('.vega-chart svg.marks').length >= {charts}", timeout=15000)
    assert errors == [] and foreign == []
    page.close()


def test_results_table_sorts_and_keeps_missing_scores_last(browser, served):
    page, errors, _ = _open(browser, served + "en/benchmarks/llama31-8b/index.html")
    table = page.locator("table.results")
    minutes_column = 6
    header = table.locator("thead th").nth(minutes_column)
    header.locator("button").click()
    header.locator("button").click()  # descending
    assert header.get_attribute("aria-sort") == "descending"
    values = table.locator("tbody tr").evaluate_all(
        f"rows => rows.map(r => r.cells[{minutes_column}].getAttribute('data-sort'))")
    scored = [float(v) for v in values if v]
    assert scored == sorted(scored, reverse=True) and len(scored) == 17
    assert values[len(scored):] == [""] * (len(values) - len(scored))
    assert errors == []
    page.close()


def test_site_works_from_file_urls_and_narrow_screens(browser, shipped_site):
    page, errors, foreign = _open(browser, (shipped_site / "it/index.html").as_uri(), width=320)
    page.wait_for_function("document.querySelectorAll('.vega-chart svg.marks').length >= 2", timeout=15000)
    width = page.evaluate("document.querySelector('.vega-chart svg.marks').getBoundingClientRect().width")
    assert 200 < width <= 320
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
        page.wait_for_function("document.querySelector('.vega-chart svg.marks') !== null", timeout=15000)
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
        page.wait_for_function("document.querySelector('iframe').style.height !== '480px'", timeout=15000)
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
    page.wait_for_function("(document.querySelector('.vega-chart svg.marks') || {getBoundingClientRect: () => "
                           "({width: 0})}).getBoundingClientRect().width > 700", timeout=10000)
    assert errors == []
    page.close()
