"""Site search in a real browser, on the shipped site served from a sub-path: each language finds its own
words and the results' systems, submitters and accelerators, under the page's Content-Security-Policy; opened
from file:// it says why there is no search; without JavaScript it lists every page."""

from __future__ import annotations

import pytest

from tests.site_checks import wait_until
from tests.test_browser import LISTEN_FOR_VIOLATIONS, browser, served  # noqa: F401 - fixtures

pytestmark = pytest.mark.slow  # a real browser

FINISHED = "document.getElementById('search-results').children.length > 0 || " \
           "/“|‘|«/.test(document.getElementById('search-status').textContent)"


@pytest.mark.parametrize("lang, query, expected, first", [
    ("en", "methodology", "en/articles/methodology/index.html", True),
    ("nl", "methodologie", "nl/articles/methodologie/index.html", True),
    ("it", "metodologia", "it/articles/metodologia/index.html", True),
    ("vi", "phương pháp", "vi/articles/phuong-phap/index.html", True),
    ("nl", "RTX6000Pro_8x96GB", "nl/benchmarks/llama31-8b/index.html", False),  # a system
    ("it", "Krai", "it/benchmarks/llama2-70b-lora/index.html", False),  # a submitter
    ("vi", "GH200", "vi/benchmarks/llama2-70b-lora/index.html", False),  # an accelerator
    ("en", "Fujitsu", "en/benchmarks/", False),
])
def test_search_finds_the_page_in_the_page_language(browser, served, lang, query, expected, first):  # noqa: F811
    context = browser.new_context(viewport={"width": 360, "height": 800})
    context.add_init_script(LISTEN_FOR_VIOLATIONS)
    page = context.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{served}{lang}/search/index.html")
    assert page.is_visible("#search-query")
    page.fill("#search-query", query)
    wait_until(page, FINISHED)
    links = page.eval_on_selector_all("#search-results a", "links => links.map(a => a.href)")
    assert links, page.text_content("#search-status")
    assert all(link.startswith(f"{served}{lang}/") for link in links), links  # this language's pages only
    found = [link.removeprefix(served) for link in links]
    assert (found[0].startswith(expected) if first else any(f.startswith(expected) for f in found)), found
    assert query in page.text_content("#search-status")
    assert page.evaluate("window.__csp") == [] and errors == []
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")  # no sideways scroll at 360 px
    page.click("#search-results a")  # a result opens its page
    page.wait_for_load_state()
    assert page.url.split("#")[0].startswith(served + lang + "/")
    context.close()


def test_a_search_link_searches_and_nothing_found_says_so(browser, served):  # noqa: F811
    page = browser.new_page()
    page.goto(f"{served}nl/search/index.html?q=qqqqqqqqqq")
    wait_until(page, FINISHED)
    assert page.text_content("#search-status") == "Geen resultaten voor ‘qqqqqqqqqq’."
    assert page.input_value("#search-query") == "qqqqqqqqqq"
    page.close()


def test_from_file_urls_the_page_says_search_needs_a_server(browser, served):  # noqa: F811
    from tests.test_browser import served_root

    context = browser.new_context()
    context.add_init_script(LISTEN_FOR_VIOLATIONS)
    page = context.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(served_root(served).as_uri() + "/it/search/index.html")
    assert page.is_visible("#search-offline") and not page.is_visible("#search-query")
    assert "site-builder serve" in page.text_content("#search-offline")
    assert page.eval_on_selector_all(".search-browse a", "links => links.length") > 5  # every page, to browse
    assert page.evaluate("window.__csp") == [] and errors == []
    context.close()


def test_without_javascript_the_page_lists_every_page(browser, served):  # noqa: F811
    from tests.test_browser import served_root

    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{served}vi/search/index.html")
    assert not page.is_visible("#search-query") and not page.is_visible("#search-offline")
    assert "JavaScript" in page.text_content("noscript")
    links = page.eval_on_selector_all(".search-browse a", "links => links.map(a => a.getAttribute('href'))")
    root = served_root(served) / "vi/search"
    assert len(links) > 10 and all((root / link).resolve().is_file() for link in links)
    context.close()


def test_search_finds_pages_of_every_shard_of_the_language_index(browser, mini_site, warm_cache, tmp_path,  # noqa: F811
                                                                 monkeypatch):
    """A language's index in shards (small ones here): search.js merges the shards its first one lists, and finds
    pages of each."""
    import functools
    import http.server
    import threading

    from site_builder import search
    from site_builder.build import build_site
    from tests.test_search import shard_pages

    monkeypatch.setattr(search, "SHARD_PAGES", 2)
    out = tmp_path / "www" / "sub"
    build_site(mini_site, out, jobs=2)
    shards = shard_pages(out, "en")
    assert len(shards) > 2
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path / "www"))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        context = browser.new_context()
        context.add_init_script(LISTEN_FOR_VIOLATIONS)
        page = context.new_page()
        errors = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(f"http://127.0.0.1:{server.server_port}/sub/en/search/index.html")
        page.fill("#search-query", "MLPerf")
        wait_until(page, FINISHED)
        links = page.eval_on_selector_all("#search-results a", "links => links.map(a => new URL(a.href).pathname)")
        found = {link.removeprefix("/sub") for link in links}
        assert sum(bool(found & pages) for pages in shards) > 1, (found, shards)  # pages of several shards
        assert page.evaluate("window.__csp") == [] and errors == []
        context.close()
    finally:
        server.shutdown()
