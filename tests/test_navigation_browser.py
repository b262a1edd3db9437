"""Navigation and findings in a real browser, at 320, 360 and 1280 px, light and dark, in every language: no
sideways scroll, every menu link and breadcrumb resolves, the finding comes before the chart and the spec sheet,
no raw submitter id and no English in what readers see of the menu, breadcrumbs and findings. And the 404 page
at any depth, for a site served at the root and at a sub-path."""

from __future__ import annotations

import csv
import functools
import http.server
import io
import threading
from pathlib import Path

import pytest

from site_builder.build import build_site
from site_builder.config import load_config
from tests.conftest import PATIENCE, ROOT
from tests.test_browser import browser, served  # noqa: F401  (fixtures shared with the browser tests)

pytestmark = pytest.mark.slow  # a real browser

LANGUAGES = load_config(ROOT).languages
WIDTHS = (320, 360, 1280)
PAGES = ("index.html", "benchmarks/index.html", "benchmarks/deepseekv3-671b/index.html",
         "charts/results-deepseekv3-671b/index.html")
# What readers see of the navigation and the findings (tables and charts have their own tests).
OWN_PARTS = ".site-menu, nav.crumbs, .finding, .related, .benchmark-index, .spec-sheet > summary, .figures"
# English wording this slice adds; none of it may show on a page in another language.
ENGLISH = ("Fastest", "a tie between", "Articles that cite it", "Charts:", "Claims", "About this benchmark",
           "All results of", "No result is scored yet", "organizations submitted", "no score yet",
           "Every benchmark with its finding", "Articles")


def raw_ids() -> list[str]:
    """Submitter ids that readers must not see: those whose display name is not the id itself (nor contains it)."""
    with open(ROOT / "data/display_names.csv", encoding="utf-8") as handle:
        return [row["id"] for row in csv.DictReader(handle)
                if row["kind"] == "submitter" and row["id"] not in row["display_name"]]


def test_raw_ids_list_is_not_empty():
    assert {"Google_1", "Quanta_Cloud_Technology"} <= set(raw_ids())


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_navigation_and_findings_at_phone_and_desktop_widths(browser, served, lang, scheme):  # noqa: F811
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    ids = raw_ids()
    checked_links: dict[str, int] = {}
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        for path in PAGES:
            where = f"{lang}/{path} at {width} px ({scheme})"
            page.goto(served + f"{lang}/{path}")
            page.wait_for_load_state("networkidle")
            assert page.evaluate("document.documentElement.scrollWidth") <= width, where
            menu = page.locator(".site-menu a")
            assert menu.count() == 6, where  # with Rounds and Search
            for box in menu.evaluate_all("links => links.map(a => a.getBoundingClientRect().toJSON())"):
                assert box["right"] <= width and box["width"] > 0, where
            for href in page.locator(".site-menu a, nav.crumbs a").evaluate_all("links => links.map(a => a.href)"):
                if href not in checked_links:
                    checked_links[href] = page.request.get(href).status
                assert checked_links[href] == 200, f"{where}: {href}"
            if path.startswith("benchmarks/") and path != "benchmarks/index.html":
                top = page.evaluate("""[".finding", ".vega-chart", ".spec-sheet"].map(s =>
                    document.querySelector(s).getBoundingClientRect().top + scrollY)""")
                assert top == sorted(top), where
                if width <= 360:  # on a phone the chart starts near the top
                    assert top[1] < 900, where
            if path.startswith("charts/"):
                assert page.evaluate("document.querySelector('.finding').getBoundingClientRect().top < "
                                     "document.querySelector('.vega-chart').getBoundingClientRect().top"), where
            text = "\n".join(page.locator(OWN_PARTS).all_inner_texts())
            assert text.strip(), where
            assert [i for i in ids if i in text] == [], where
            if lang != "en":
                assert [w for w in ENGLISH if w in text] == [], where
    assert errors == []
    context.close()


class _SiteWith404(http.server.SimpleHTTPRequestHandler):
    """Serves a folder like a static host: a missing address gets the site's 404.html, status 404."""

    site_prefix = "/"

    def log_message(self, *args):
        pass

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.exists():
            return super().send_head()
        body = (Path(self.directory) / self.site_prefix.strip("/") / "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


def _serve(root: Path, prefix: str):
    handler = functools.partial(type("H", (_SiteWith404,), {"site_prefix": prefix}), directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"


@pytest.mark.parametrize("prefix", ["/", "/reports/v6/"])
def test_404_page_works_at_any_depth_at_the_root_and_at_a_sub_path(browser, mini_site, tmp_path, prefix):  # noqa: F811
    root = tmp_path / "www"
    build_site(mini_site, root / prefix.strip("/"), base_url=f"https://reports.example.co.uk{prefix}")
    server, origin = _serve(root, prefix)
    try:
        page = browser.new_page(viewport={"width": 360, "height": 800})
        failed = []
        # A request cut short by the next navigation (the favicon, fetched late) is not a missing file: those
        # come back 404, which the response listener catches.
        page.on("requestfailed", lambda r: failed.append(f"{r.url} {r.failure}") if r.failure != "net::ERR_ABORTED"
                else None)
        page.on("response", lambda r: failed.append(r.url) if r.status >= 400 and r.request.resource_type != "document"
                else None)
        for missing in ("nothing.html", "en/no/such/page/"):
            response = page.goto(f"{origin}{prefix}{missing}")
            assert response.status == 404
            page.wait_for_load_state("networkidle")
            assert page.evaluate("getComputedStyle(document.body).backgroundColor") != "rgba(0, 0, 0, 0)", missing
            links = page.locator(".chooser a").evaluate_all("links => links.map(a => a.href)")
            assert links and all(page.request.get(href).status == 200 for href in links), (missing, links)
            assert page.evaluate("document.documentElement.scrollWidth") <= 360
            page.locator("a.skip").focus()
            page.keyboard.press("Enter")  # to this page's own content, not to the home page
            page.wait_for_url(f"{origin}{prefix}{missing}#main", timeout=PATIENCE * 1000)
        assert failed == []
        page.close()
    finally:
        server.shutdown()


def test_404_page_with_a_placeholder_address_requests_nothing_from_the_placeholder_path(browser, served):  # noqa: F811
    page = browser.new_page(viewport={"width": 360, "height": 800})
    requested = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(served + "404.html")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != "rgba(0, 0, 0, 0)"
    assert all("/reports/v6/" in url for url in requested), requested
    links = page.locator(".chooser a").evaluate_all("links => links.map(a => a.href)")
    assert links and all(page.request.get(href).status == 200 for href in links)
    page.close()
