"""Results tables read on a phone, in a real browser (Debian chromium driven by Playwright): at 320, 360 and
1280 px, light and dark, in every language, the minutes sit beside the first column, rows stay one line high, the
page never scrolls sideways; the filters (free text, submitter, accelerator, scored only) show the right rows and
say how many; without JavaScript the full table is there; a filtered page passes axe. Article tables scroll in a
focusable box that shows where more is to see."""

import functools
import http.server
from collections import Counter
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


LAYOUT = """(nameLines = 3) => {
  const tables = [...document.querySelectorAll('table.data-table')].filter(t => t.offsetParent !== null);
  return {
    pageWidth: document.documentElement.scrollWidth,
    tables: tables.map(t => {
      const first = t.tBodies[0].rows[0];
      const head = t.tHead.rows[0].cells[1].textContent.trim();
      const cell = first.cells[1].getBoundingClientRect(), firstCell = first.cells[0].getBoundingClientRect();
      // A row's height, less what a system's name wrapped on more than `nameLines` lines adds (a name wraps
      // rather than be cut).
      const heights = [...t.tBodies[0].rows].filter(r => !r.hidden).map(r => {
        const name = r.cells[0].querySelector(".result-detail summary"), height = r.getBoundingClientRect().height;
        if (!name) return height;
        const line = parseFloat(getComputedStyle(name).lineHeight);
        return height - Math.max(0, name.getBoundingClientRect().height - nameLines * line);
      });
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
        layout = page.evaluate(LAYOUT, 3 if width < 640 else 2)
        assert layout["pageWidth"] <= width, f"{path} scrolls sideways at {width} px: {layout['pageWidth']}"
        assert layout["tables"], path
        for table in layout["tables"]:
            assert table["head"], path
            assert 0 <= table["left"] and table["right"] <= width, f"{path} {table}: minutes off-screen at {width} px"
            assert table["left"] >= table["firstRight"] - 1, f"{path} {table}: minutes not beside the first column"
            # A system's name up to three lines on a phone, two when wide (a longer one adds its lines); wide, a
            # score source label may take two lines, never three.
            tallest = 72 if width < 640 else 80
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
    .filter(d => d.checkVisibility())  // the language switcher is not printed at all
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


# --- Systems by their names, sorting against the data, figure links ------------------------------------------

def _results_by_anchor() -> dict[str, dict]:
    """Each result of the site's rounds by its benchmark page's folder and its row anchor, with what its cells
    should show (from the data)."""
    from site_builder.data import load_dataset
    from site_builder.display_names import load_display_names
    from site_builder.paths import result_anchor, slugify

    config = load_config(ROOT)
    dataset = load_dataset(ROOT / "data", [config.round, config.compared_round], ROOT)
    names = load_display_names(ROOT / "data", ROOT)
    found = {}
    for _, row in dataset.results.iterrows():
        score = row["score_minutes"]
        found[slugify(row["benchmark"]), result_anchor(row["round"], row["submitter"], row["system_id"])] = {
            "round": row["round"], "benchmark": row["benchmark"],
            "system": row["system"], "system_id": row["system_id"],
            "minutes": None if score != score else float(score),
            "submitter": names.submitter(row["submitter"]), "accelerator": row["accelerator"],
            "accelerators": float(row["total_accelerators"]), "nodes": float(row["number_of_nodes"]),
            "framework": row["framework"] or None}
    return found


# A results table's columns (benchmark.html) and the data each one sorts by; the source label and the result id
# are checked by their cells in the test above.
RESULT_COLUMNS = ("system", "minutes", "submitter", "accelerator", "accelerators", "nodes", "framework")
ROW_IDS = """table => Array.from(
  document.querySelectorAll("table.results, table.results-previous")[table].tBodies[0].rows,
  r => [r.id, r.cells[0].getAttribute("data-sort")])"""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_results_tables_sort_by_every_column_in_the_order_of_the_data(browser, served, shipped_site, lang):
    """Every results table of every benchmark page, by each column both ways: the rows come in the order of the
    data's values (a system by its name, a submitter by its display name), in the page's language, blanks last."""
    data = _results_by_anchor()
    context = new_context(browser, 1280)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    checked = set()
    for path in table_pages(shipped_site, lang)[1:]:
        page.goto(served + path)
        benchmark = path.split("/")[-2]
        tables = page.locator("table.results, table.results-previous")
        for table in range(tables.count()):
            rows = page.evaluate(ROW_IDS, table)
            for anchor, key in rows:  # sorted by the name (a variant's with its id: see the next test)
                assert key in (data[benchmark, anchor]["system"],
                               f'{data[benchmark, anchor]["system"]} ({data[benchmark, anchor]["system_id"]})'), path
            buttons = tables.nth(table).locator("thead th button")
            for column, name in enumerate(RESULT_COLUMNS):
                for direction in ("ascending", "descending"):
                    buttons.nth(column).evaluate("button => button.click()")  # hidden columns too
                    values = [data[benchmark, anchor][name] for anchor, _ in page.evaluate(ROW_IDS, table)]
                    present = [v for v in values if v is not None]
                    where = f"{path} table {table} {name} {direction}: {values}"
                    assert values[len(present):] == [None] * (len(values) - len(present)), where  # blanks last
                    ordered = present if direction == "ascending" else present[::-1]
                    if name in ("minutes", "accelerators", "nodes"):
                        assert ordered == sorted(ordered), where
                    else:
                        assert page.evaluate(IN_ORDER, [ordered, lang]), where
                    checked.add(name)
    assert checked == set(RESULT_COLUMNS) and errors == []
    context.close()


# The page's visible text, with every earlier round's results opened (their rows are on the page too) and each
# result's detail view left closed (where the id is shown, on purpose).
VISIBLE_TEXT = """() => {
  document.querySelectorAll("details:not(.result-detail)").forEach(d => { d.open = true; });
  document.querySelectorAll("details.result-detail").forEach(d => { d.open = false; });
  return document.body.innerText;
}"""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_system_id_is_shown_where_the_data_has_a_name(browser, served, shipped_site, lang):
    """Home, benchmark and chart pages show a system by its description's name; its id (folder name) only in the
    detail view, anchors and downloads. A system whose description has no other name is shown by its id."""
    data = _results_by_anchor().values()
    named = {r["system"] for r in data}  # an id is a name where some round's data has no other (not read)
    # Variants of one system (one name, submitter and scale in a table) are told apart by their ids, after the name.
    alike = Counter((r["round"], r["benchmark"], r["system"], r["submitter"], r["accelerators"], r["nodes"])
                    for r in data)
    variants = {r["system_id"] for r in data
                if alike[r["round"], r["benchmark"], r["system"], r["submitter"], r["accelerators"], r["nodes"]] > 1}
    ids = {r["system_id"] for r in data
           if r["system_id"] not in r["system"] and r["system_id"] not in named | variants}
    assert 0 < len(variants) < 10
    assert len(ids) > 50
    pattern = re.compile(r"(?<![\w.-])(" + "|".join(map(re.escape, sorted(ids, key=len, reverse=True))) + r")(?![\w-])")
    charts = sorted(p.relative_to(shipped_site).as_posix()
                    for p in (shipped_site / lang / "charts").glob("*/index.html")
                    if 'http-equiv="refresh"' not in p.read_text(encoding="utf-8"))
    context = new_context(browser, 1280)
    page = context.new_page()
    shown = 0
    for path in [*table_pages(shipped_site, lang), *charts]:
        page.goto(served + path)
        text = page.evaluate(VISIBLE_TEXT)
        assert pattern.findall(text) == [], path
        shown += sum(r["system"] in text for r in data if r["system_id"] in ids)
    assert shown > 50  # the names are there instead
    context.close()


# Where a linked cell, its row's first cell (the system, which stays in place) and its table's header are in the
# window, and whether the page scrolls sideways.
LANDED = """anchor => {
  const cell = document.getElementById(anchor), row = cell.closest("tr"), head = row.closest("table").tHead;
  const box = r => {
    const b = r.getBoundingClientRect();
    return {top: b.top, bottom: b.bottom, left: b.left, right: b.right};
  };
  return {cell: box(cell), first: box(row.cells[0]), head: box(head), row: box(row), target: location.hash.slice(1),
          height: innerHeight, width: innerWidth, pageWidth: document.documentElement.scrollWidth};
}"""


def _in_view(box, landed) -> bool:
    return (0 <= box["top"] and box["bottom"] <= landed["height"]
            and 0 <= box["left"] and box["right"] <= landed["width"])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_figure_link_at_360_px_lands_on_its_value_below_the_tables_header(browser, served, shipped_site, lang):
    """An article's figure links to the cell of its value in a results table: at 360 px the page scrolls so that
    the table's header, the row's system and the cell (scrolled into view inside its box) are all on screen,
    whether the link leads to another page or to the same one; nothing moves afterwards."""
    articles = [p for p in sorted((shipped_site / lang / "articles").glob("*/index.html"))
                if re.search(r'href="[^"]*#r-[^"]*--accelerators"', p.read_text(encoding="utf-8"))]
    assert articles
    context = browser.new_context(viewport={"width": 360, "height": 800})  # the charts drawn, as a reader sees them
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(served + articles[0].relative_to(shipped_site).as_posix())
    link = page.locator('.figure a[href*="--accelerators"]').first
    anchor = link.get_attribute("href").split("#")[1]
    link.evaluate("a => a.click()")
    page.wait_for_load_state("load")
    page.wait_for_timeout(1000)  # charts drawn, fonts in
    landed = page.evaluate(LANDED, anchor)
    assert landed["target"] == anchor and landed["pageWidth"] <= 360, landed
    assert _in_view(landed["cell"], landed) and _in_view(landed["first"], landed), landed
    assert landed["cell"]["left"] >= landed["first"]["right"] - 1, landed  # not under the first column
    assert 0 <= landed["head"]["top"] and landed["head"]["bottom"] <= landed["row"]["top"], landed
    page.wait_for_timeout(500)
    assert page.evaluate(LANDED, anchor)["cell"] == landed["cell"]  # no layout shift
    # On the benchmark page itself: the finding's figure links to its minutes in the same table.
    page.evaluate("() => window.scrollTo(0, 0)")
    finding = page.locator(".finding .figure a").first
    anchor = finding.get_attribute("href").split("#")[1]
    finding.evaluate("a => a.click()")
    page.wait_for_timeout(300)
    landed = page.evaluate(LANDED, anchor)
    assert landed["target"] == anchor and _in_view(landed["cell"], landed) and _in_view(landed["first"], landed)
    assert 0 <= landed["head"]["top"] and landed["head"]["bottom"] <= landed["row"]["top"], landed
    assert errors == []
    context.close()
