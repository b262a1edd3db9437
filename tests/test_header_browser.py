"""The header on a phone, by keyboard and without script; the language switch of an untranslated article; and
an article and a results page on paper. In a real browser, on the shipped site."""

from __future__ import annotations

import re

import pytest

from site_builder.config import load_config
from tests.conftest import ROOT
from tests.test_browser import browser, served  # noqa: F401  (fixtures shared with the browser tests)

pytestmark = pytest.mark.slow  # a real browser

LANGUAGES = load_config(ROOT).languages
# An article written only in English, and what its switch says in English about the other languages.
ENGLISH_ONLY = "en/articles/how-to-read-mlperf-training/index.html"


def _focus_order(page, count: int) -> list[dict]:
    """The next `count` elements Tab reaches from the top of the page: what they are and where they are."""
    page.evaluate("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
    order = []
    for _ in range(count):
        page.keyboard.press("Tab")
        order.append(page.evaluate("""(() => { const e = document.activeElement, r = e.getBoundingClientRect();
            return {what: e.tagName + (e.className ? '.' + e.className : ''), text: e.textContent.trim(),
                    top: r.top, left: r.left, height: r.height}; })()"""))
    return order


@pytest.mark.parametrize("width", [320, 360])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_phone_header_is_compact_and_tab_follows_the_screen(browser, served, lang, width):  # noqa: F811
    page = browser.new_page(viewport={"width": width, "height": 800})
    page.goto(served + f"{lang}/index.html")
    header = page.evaluate("document.querySelector('.site-header').getBoundingClientRect().height")
    assert header <= 800 / 6, f"{lang} at {width} px: the header takes {header:.0f} px"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # Skip link, site name, language switch, then the four sections, then the page: the order they are seen in.
    order = _focus_order(page, 7)
    assert [o["what"] for o in order[:3]] == ["A.skip", "A.brand", "SUMMARY"], order
    assert len({o["text"] for o in order[3:]}) == 4 and page.evaluate(
        "document.activeElement.closest('.site-menu') !== null"), order
    for before, after in zip(order[1:], order[2:]):  # each one further along the same line, or on a line below
        same_line = after["top"] < before["top"] + before["height"] and before["top"] < after["top"] + after["height"]
        assert (same_line and after["left"] > before["left"]) or after["top"] >= before["top"] + before["height"] / 2, order
    # The switch opens from the keyboard; its list stays on screen and comes next in the tab order.
    page.evaluate("document.activeElement.blur()")
    page.focus(".lang-switch > summary")
    page.keyboard.press("Enter")
    assert page.evaluate("document.querySelector('.lang-switch').open")
    links = page.locator(".lang-switch nav a")
    assert links.count() == len(LANGUAGES) - 1
    for box in links.evaluate_all("links => links.map(a => a.getBoundingClientRect().toJSON())"):
        assert 0 <= box["left"] and box["right"] <= width and box["width"] > 0
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('.lang-switch nav') !== null")
    # The switch is named in the page's language.
    name = page.evaluate("document.querySelector('.lang-switch > summary').textContent")
    label = page.evaluate("document.querySelector('.lang-switch > nav').getAttribute('aria-label')")
    assert name.startswith(label + ":")
    page.close()


@pytest.mark.parametrize("width", [320, 1280])
def test_language_switch_works_without_javascript(browser, served, width):  # noqa: F811
    context = browser.new_context(java_script_enabled=False, viewport={"width": width, "height": 800})
    page = context.new_page()
    page.goto(served + "it/benchmarks/index.html")
    assert not page.locator(".lang-switch nav a").first.is_visible()  # closed until asked
    page.click(".lang-switch > summary")
    page.click(".lang-switch a[hreflang='vi']")
    page.wait_for_url("**/vi/benchmarks/index.html")
    assert page.evaluate("document.documentElement.lang") == "vi"
    context.close()


def test_untranslated_article_says_where_its_switch_leads(browser, served):  # noqa: F811
    page = browser.new_page(viewport={"width": 360, "height": 800})
    page.goto(served + ENGLISH_ONLY)
    page.click(".lang-switch > summary")
    dutch = page.locator(".lang-switch a[hreflang='nl']")
    assert dutch.is_visible()
    note = dutch.locator(".lang-note")
    assert note.is_visible() and note.inner_text() == "(not translated: list of articles)"  # the reader's language
    dutch.click()
    page.wait_for_url("**/nl/articles/index.html#untranslated")
    notice = page.locator("#untranslated")
    assert notice.is_visible() and "niet in deze taal vertaald" in notice.inner_text()
    # The list reached any other way does not show it.
    page.goto(served + "nl/articles/index.html")
    assert not page.locator("#untranslated").is_visible()
    page.close()


@pytest.mark.parametrize("path", [ENGLISH_ONLY, "nl/articles/methodologie/index.html",
                                  "it/benchmarks/llama2-70b-lora/index.html"])
def test_pages_print_whole(browser, served, path):  # noqa: F811
    """On paper: every <details> open, no cell cut to an ellipsis, no footnote back-link arrows, no interactive
    header, headings kept with what follows, and the footer's credit printed near the top (never a page alone)."""
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    page.goto(served + path)
    page.wait_for_load_state("networkidle")
    page.emulate_media(media="print")
    text = page.evaluate("document.body.innerText")
    assert "↩" not in text and "…" not in text
    assert page.evaluate("""Array.from(document.querySelectorAll('details')).filter(d => !d.closest('.lang-switch'))
        .every(d => Array.from(d.children).filter(c => c.tagName !== 'SUMMARY')
                      .every(c => getComputedStyle(c).display === 'none' || c.getBoundingClientRect().height > 0))""")
    clipped = page.evaluate("""Array.from(document.querySelectorAll('main *')).filter(e => {
        const s = getComputedStyle(e);
        return s.textOverflow === 'ellipsis' && s.overflow !== 'visible' && e.scrollWidth > e.clientWidth + 1;
    }).map(e => e.textContent.slice(0, 40))""")
    assert clipped == []
    assert not page.locator(".lang-switch").is_visible() and not page.locator(".site-menu").is_visible()
    assert page.evaluate("Array.from(document.querySelectorAll('main h2, main h3')).every(h => "
                         "getComputedStyle(h).breakAfter === 'avoid')")
    footer, main = page.evaluate("['.site-footer', 'main'].map(s => document.querySelector(s)"
                                 ".getBoundingClientRect().top)")
    assert footer < main
    assert len(page.pdf(format="A4")) > 10_000  # Chromium prints it
    page.close()


@pytest.mark.parametrize("lang", ["nl", "it", "vi"])
def test_drawn_charts_speak_the_page_language(browser, served, shipped_site, lang):  # noqa: F811
    """What Vega draws (titles, axes, legends, labels) holds no English phrase of the catalog or the data, and no
    filter expression such as "(benchmark = ...)"."""
    from tests.test_reader_language import english_pattern

    pattern = english_pattern(lang)
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    found = {}
    for chart in sorted((shipped_site / lang / "charts").glob("*/index.html")):
        page.goto(served + str(chart.relative_to(shipped_site)))
        page.wait_for_function("document.querySelector('.vega-chart svg.marks') !== null")
        drawn = " | ".join(page.eval_on_selector_all(".vega-chart svg text", "ts => ts.map(t => t.textContent)"))
        for match in pattern.finditer(drawn):
            found.setdefault(match.group(0), chart.parent.name)
        for expression in re.findall(r"\(\s*[a-z_]+\s*==?\s*[\w.-]+\s*\)", drawn):
            found.setdefault(expression, chart.parent.name)
    assert not found, found
    page.close()
