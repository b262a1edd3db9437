"""Results tables read on a phone, in a real browser (Debian chromium driven by Playwright): at 320, 360 and
1280 px, light and dark, in every language, the minutes sit beside the first column, rows stay one line high, the
page never scrolls sideways; the filters (free text, submitter, accelerator, scored only) show the right rows and
say how many; without JavaScript the full table is there; a filtered page passes axe. Article tables scroll in a
focusable box that shows where more is to see."""

import functools
import http.server
import os
import re
import shutil
import threading
import time
from pathlib import Path

import pytest

from site_builder.config import load_config
from tests.conftest import PATIENCE, ROOT
from tests.site_checks import validator_file

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

LANGUAGES = list(load_config(ROOT).languages)
WIDTHS = [320, 360, 1280]
MINUTES = 1  # the column of the minutes in every results table: right after the first one
AXE_RUN = """axe.run(document, {resultTypes: ["violations"], preload: false}).then(r => r.violations.map(v =>
  v.id + " (" + v.impact + "): " + v.nodes.slice(0, 4).map(n => n.target.join(" ")).join(", ")))"""


@pytest.fixture(scope="module")
def served(shipped_site):
    """The built site over http (so that a test can keep the chart bundle from loading: charts have tests of their
    own, and a table test must not depend on how a chart lays itself out)."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(shipped_site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"])
        yield browser
        browser.close()


def table_pages(site: Path, lang: str) -> list[str]:
    """The home page and every benchmark page of a language, found in the built site."""
    benchmarks = sorted(p.relative_to(site).as_posix() for p in (site / lang / "benchmarks").glob("*/index.html")
                        if 'http-equiv="refresh"' not in p.read_text(encoding="utf-8"))
    assert benchmarks
    return [f"{lang}/index.html", *benchmarks]


def new_context(browser, width, scheme="light", javascript=True):
    context = browser.new_context(viewport={"width": width, "height": 800}, color_scheme=scheme,
                                  java_script_enabled=javascript)
    context.route(re.compile(r".*/assets/vega\.[0-9a-f]+\.js$"), lambda route: route.fulfill(body="", content_type="text/javascript"))
    return context


LAYOUT = """() => {
  const tables = [...document.querySelectorAll('table.data-table')].filter(t => t.offsetParent !== null);
  return {
    pageWidth: document.documentElement.scrollWidth,
    tables: tables.map(t => {
      const first = t.tBodies[0].rows[0];
      const head = t.tHead.rows[0].cells[1].textContent.trim();
      const cell = first.cells[1].getBoundingClientRect(), firstCell = first.cells[0].getBoundingClientRect();
      const heights = [...t.tBodies[0].rows].filter(r => !r.hidden).map(r => r.getBoundingClientRect().height);
      return {id: t.id, head, left: cell.left, right: cell.right, firstRight: firstCell.right,
              tallest: Math.max(...heights)};
    }),
  };
}"""

ROWS = """table => [...table.tBodies[0].rows].map(r => ({
  hidden: r.hidden, unscored: r.classList.contains('unscored'),
  submitter: (r.querySelector('[data-col="submitter"]') || {textContent: ''}).textContent.trim()}))"""


def check_filters(page, lang: str, path: str) -> None:
    """Every filter box of the page: a submitter keeps only its rows, scored only drops the unscored ones, the
    free text finds a submitter, and the count says how many rows are left, in the page's language."""
    boxes = page.locator(".table-filter:visible")
    assert boxes.count() >= 1, f"{path}: no filter box"
    for index in range(boxes.count()):
        box = boxes.nth(index)
        table = page.locator("#" + box.get_attribute("data-table"))
        count = box.locator(".filter-count")
        assert count.get_attribute("aria-live") == "polite"
        rows = table.evaluate(ROWS)
        total = len(rows)
        assert re.search(rf"\b{total}\b", count.inner_text()), (path, count.inner_text())
        if lang != "en":
            assert "shown" not in count.inner_text(), (path, count.inner_text())

        select = box.locator('select[data-filter="submitter"]')
        if select.is_visible():
            choices = [v for v in select.locator("option").evaluate_all("os => os.map(o => o.value)") if v]
            assert sorted(set(r["submitter"] for r in rows if r["submitter"])) == sorted(choices)
            chosen = choices[-1]
            select.select_option(chosen)
            after = table.evaluate(ROWS)
            visible = [r for r in after if not r["hidden"]]
            expected = sum(r["submitter"] == chosen for r in rows)
            assert visible and all(r["submitter"] == chosen for r in visible) and len(visible) == expected, path
            assert re.search(rf"\b{expected}\b", count.inner_text()), (path, count.inner_text())
            select.select_option("")
            assert all(not r["hidden"] for r in table.evaluate(ROWS))

            text = box.locator('input[data-filter="text"]')
            text.fill(chosen.upper())  # case does not matter
            after = table.evaluate(ROWS)
            assert all(not r["hidden"] for r in after if r["submitter"] == chosen), path  # its rows, and any
            assert sum(not r["hidden"] for r in after) < total or len(set(r["submitter"] for r in rows)) == 1, path
            text.fill("")

        scored = box.locator('input[data-filter="scored"]')
        if any(r["unscored"] for r in rows):
            scored.check()
            after = table.evaluate(ROWS)
            visible = [r for r in after if not r["hidden"]]
            assert len(visible) == sum(not r["unscored"] for r in rows) and not any(r["unscored"] for r in visible)
            assert re.search(rf"\b{len(visible)}\b", count.inner_text()), (path, count.inner_text())
            scored.uncheck()
        else:
            assert not scored.is_visible()  # a choice that would filter nothing is left out


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_minutes_beside_the_first_column_and_filters_work(browser, served, shipped_site, lang, width, scheme):
    context = new_context(browser, width, scheme)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    for path in table_pages(shipped_site, lang):
        page.goto(served + path)
        layout = page.evaluate(LAYOUT)
        assert layout["pageWidth"] <= width, f"{path} scrolls sideways at {width} px: {layout['pageWidth']}"
        assert layout["tables"], path
        for table in layout["tables"]:
            assert table["head"], path
            assert 0 <= table["left"] and table["right"] <= width, f"{path} {table}: minutes off-screen at {width} px"
            assert table["left"] >= table["firstRight"] - 1, f"{path} {table}: minutes not beside the first column"
            tallest = 64 if width < 640 else 80  # wide: a score source label may take two lines, never three
            assert table["tallest"] <= tallest, f"{path} {table}: rows are not compact at {width} px"
        check_filters(page, lang, path)
    assert errors == []
    context.close()


# Each sortable table's rows by a column: (data-sort or null, visible text) per row, and whether the header
# says ascending or descending.
COLUMN = """([table, column]) => {
  const t = document.querySelectorAll("table.sortable")[table];
  return {sort: t.tHead.rows[0].cells[column].getAttribute("aria-sort"),
          cells: Array.from(t.tBodies[0].rows, r => [r.cells[column].getAttribute("data-sort"),
                                                       r.cells[column].textContent.trim()])};
}"""
# Whether each key comes after the one before it in the page's language (the browser's own collation).
IN_ORDER = """([keys, lang]) => {
  const c = new Intl.Collator(lang, {numeric: true, sensitivity: "base"});
  return keys.every((k, i) => i === 0 || c.compare(keys[i - 1], k) <= 0);
}"""


def _sort_keys(cells) -> tuple[list, int]:
    """The keys a reader sorts by (a number where the column's data-sort holds numbers, else the text shown or
    the data-sort text), and how many cells have none."""
    keys = [(raw if raw is not None else text).strip() for raw, text in cells]
    present = [key for key in keys if key]
    numeric = all(raw is not None and re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?", key, re.I)
                  for (raw, _), key in zip(cells, keys) if key)
    return ([float(key) for key in present] if numeric else present), len(keys) - len(present)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_column_of_every_table_sorts_both_ways_with_empty_cells_last(browser, served, shipped_site, lang):
    context = new_context(browser, 1280)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    benchmarks = table_pages(shipped_site, lang)
    for path in [benchmarks[0], benchmarks[1], benchmarks[-1]]:  # the home page and two benchmark pages
        page.goto(served + path)
        for table in range(page.locator("table.sortable").count()):
            headers = page.locator("table.sortable").nth(table).locator("thead th button")
            for column in range(headers.count()):
                for direction in ("ascending", "descending"):
                    headers.nth(column).evaluate("button => button.click()")  # hidden columns too
                    found = page.evaluate(COLUMN, [table, column])
                    assert found["sort"] == direction, (path, table, column)
                    cells = found["cells"]
                    keys, empty = _sort_keys(cells)
                    where = f"{path} table {table} column {column} {direction}: {cells}"
                    assert all(not (raw if raw is not None else text).strip() for raw, text in cells[len(keys):]), \
                        where  # the empty ones last, either way
                    ordered = keys if direction == "ascending" else keys[::-1]
                    if keys and isinstance(keys[0], float):
                        assert ordered == sorted(ordered), where
                    else:
                        assert page.evaluate(IN_ORDER, [ordered, lang]), where
                    assert len(keys) + empty == len(cells)
    assert errors == []
    context.close()


# On paper: the cells of data tables whose text is cut (wider than the cell shows), and the <details> whose
# content is not shown.
PRINTED = """() => ({
  cut: Array.from(document.querySelectorAll(".data-table td, .data-table summary"))
    .filter(el => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflow !== "visible")
    .map(el => el.textContent.trim().slice(0, 60)),
  closed: Array.from(document.querySelectorAll("details"))
    .filter(d => Array.from(d.children).filter(c => c.tagName !== "SUMMARY")
                   .every(c => !c.checkVisibility()))
    .map(d => d.querySelector("summary").textContent.trim().slice(0, 60)),
  details: document.querySelectorAll("details").length,
  right: Math.max(...Array.from(document.querySelectorAll(".data-table"), t => t.getBoundingClientRect().right)),
})"""
PAPER = 720  # an A4 page's width at 96 dpi, less its margins


@pytest.mark.parametrize("javascript", [True, False], ids=["script", "no-script"])
def test_printed_tables_show_every_cell_whole_and_every_detail_open(browser, served, shipped_site, javascript):
    context = new_context(browser, PAPER, javascript=javascript)
    page = context.new_page()
    pages = [*table_pages(shipped_site, "en")[1:], *table_pages(shipped_site, "vi")[1:]]
    for path in pages:
        page.goto(served + path)
        page.emulate_media(media="print")
        printed = page.evaluate(PRINTED)
        assert printed["details"], path  # a result's detail view, the spec sheet
        assert printed["cut"] == [] and printed["closed"] == [], (path, printed)
        assert printed["right"] <= PAPER, (path, printed["right"])  # every column on the page
        page.emulate_media(media="screen")
        assert page.evaluate(PRINTED)["closed"], path  # on screen they stay closed
    context.close()


@pytest.mark.parametrize("width", [320, 360])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_chart_data_tables_show_the_minutes_beside_the_first_column(browser, served, shipped_site, lang, width):
    charts = sorted(p.relative_to(shipped_site).as_posix() for p in (shipped_site / lang / "charts").glob("*/index.html")
                    if 'http-equiv="refresh"' not in p.read_text(encoding="utf-8"))
    context = new_context(browser, width, "dark" if width == 360 else "light")
    page = context.new_page()
    with_minutes = 0
    for path in charts:
        page.goto(served + path)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, path
        kinds = page.locator("table.data-table thead th").evaluate_all("ths => ths.map(th => th.dataset.kind)")
        if "minutes" not in kinds:
            continue
        with_minutes += 1
        assert kinds.index("minutes") == MINUTES, (path, kinds)
        table = page.evaluate(LAYOUT)["tables"][0]
        assert 0 <= table["left"] and table["right"] <= width and table["left"] >= table["firstRight"] - 1, (path, table)
    assert with_minutes >= 5
    context.close()


@pytest.mark.parametrize("width", [320, 1280])
def test_without_javascript_the_full_table_is_there(browser, served, shipped_site, width):
    context = new_context(browser, width, javascript=False)
    page = context.new_page()
    for lang in LANGUAGES:
        for path in table_pages(shipped_site, lang):
            page.goto(served + path)
            html = (shipped_site / path).read_text(encoding="utf-8")
            table = page.locator("table.data-table").first
            written = len(re.findall(r"<tr[ >]", html.split('<table class="sortable data-table', 1)[1].split("</table>")[0])) - 1
            assert table.locator("tbody tr:visible").count() == written > 0, path
            assert page.locator(".table-filter:visible").count() == 0, f"{path}: dead filter controls"
            layout = page.evaluate(LAYOUT)
            assert layout["pageWidth"] <= width and all(t["right"] <= width for t in layout["tables"]), path
    context.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_claims_tables_scroll_in_boxes_a_keyboard_reaches_on_a_phone(browser, served, shipped_site, lang):
    axe = validator_file("axe-core/axe.min.js").read_text(encoding="utf-8")
    context = new_context(browser, 360)
    page = context.new_page()
    page.goto(served + f"{lang}/claims/index.html")
    boxes = page.locator(".claim .table-scroll")
    assert boxes.count() > 0
    assert page.evaluate("""() => Array.from(document.querySelectorAll(".claim .table-scroll"))
        .some(box => box.scrollWidth > box.clientWidth)""")  # at 360 px they do scroll
    page.evaluate(axe)
    assert page.evaluate(AXE_RUN) == []  # scrollable-region-focusable among the rest
    box = boxes.first
    box.focus()
    assert page.evaluate("document.activeElement.classList.contains('table-scroll')")
    name = page.evaluate("document.getElementById(document.activeElement.getAttribute('aria-labelledby')).textContent")
    assert name.strip()  # announced by its claim
    context.close()


NEW_SEED_CLAIMS = ("coreweave-largest-gb300-cluster", "coreweave-only-gb300-beyond-2048-deepseek", "aws-took-part",
                   "coreweave-deepseek-r1-throughput-doubled", "gb300-memory-279gb-per-gpu",
                   "nvidia-9x-more-wins-than-all-others")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_claims_page_shows_how_its_evidence_is_graded_on_a_phone(browser, served, shipped_site, lang):
    """Lambda's verdict carries the own-figure qualifier, whole, inside a 360 px screen; the 160-experts claim is
    contradicted with a link to its source; the six seed claims added in issue #18 are on the page."""
    context = new_context(browser, 360)
    page = context.new_page()
    page.goto(served + f"{lang}/claims/index.html")
    badge = page.locator("#claim-lambda-llama8b-gb300-improvement .claim-verdict-line .verdict-qualified")
    assert badge.is_visible()
    assert page.evaluate("el => el.getBoundingClientRect().right <= document.documentElement.clientWidth",
                         badge.element_handle())
    assert page.locator("#claim-lambda-llama8b-gb300-improvement .claim-own-figure a").first.is_visible()
    experts = page.locator("#claim-deepseek-v3-160-experts")
    assert experts.locator(".claim-verdict-line .verdict-contradicted").is_visible()
    assert experts.locator('.claim-contradicted-by a[href="https://arxiv.org/abs/2412.19437"]').is_visible()
    for claim_id in NEW_SEED_CLAIMS:
        assert page.locator(f"#claim-{claim_id} h3").is_visible(), claim_id
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_filtered_table_passes_axe(browser, served, shipped_site, scheme):
    axe = validator_file("axe-core/axe.min.js").read_text(encoding="utf-8")
    context = new_context(browser, 360, scheme)
    page = context.new_page()
    path = next(p for p in table_pages(shipped_site, "nl")[1:]
                if 'class="unscored"' in (shipped_site / p).read_text(encoding="utf-8"))
    page.goto(served + path)
    box = page.locator(".table-filter").first
    box.locator('input[data-filter="scored"]').check()
    table = page.locator("table.data-table").first
    submitter = table.locator('tbody tr:first-child [data-col="submitter"]').inner_text().strip()  # a scored result's
    box.locator('select[data-filter="submitter"]').select_option(submitter)
    assert 0 < table.locator("tbody tr:not([hidden])").count() < table.locator("tbody tr").count()
    table.locator("tbody tr:not([hidden]) summary").first.click()  # with a detail view open
    page.evaluate(axe)
    assert page.evaluate(AXE_RUN) == []
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_article_tables_scroll_in_a_focusable_box_with_a_shadow_cue(browser, served, shipped_site, scheme):
    articles = sorted(p for p in shipped_site.glob("*/articles/*/index.html") if 'class="table-scroll"' in p.read_text())
    assert articles
    context = new_context(browser, 320, scheme)
    page = context.new_page()
    scrolled = 0
    for article in articles:
        page.goto(served + article.relative_to(shipped_site).as_posix())
        assert page.evaluate("document.documentElement.scrollWidth") <= 320, article
        for box in page.locator(".prose .table-scroll").all():
            assert box.get_attribute("tabindex") == "0"
            style = box.evaluate("b => { const s = getComputedStyle(b); return [s.overflowX, s.backgroundAttachment, "
                                 "s.backgroundImage]; }")
            assert style[0] == "auto" and style[1] == "local, local, scroll, scroll", (article, style)
            assert style[2].count("radial-gradient") == 2, (article, style)
            if box.evaluate("b => b.scrollWidth > b.clientWidth"):
                scrolled += 1
                box.focus()
                page.keyboard.press("ArrowRight")
                deadline = time.monotonic() + PATIENCE  # polled: wait_for_function would need eval, which CSP blocks
                while not box.evaluate("b => b.scrollLeft > 0"):
                    assert time.monotonic() < deadline
                    page.wait_for_timeout(100)
    assert scrolled > 0  # some article table is wider than a phone: the test saw the box scroll
    context.close()
