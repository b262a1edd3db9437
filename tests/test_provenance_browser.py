"""A result's detail view in a real browser: it opens by keyboard on a phone-sized screen without widening the
page, and a link to a row of the previous round's (collapsed) table lands on a visible row."""

import pytest

from tests.test_browser import _open, browser, served  # noqa: F401  (fixtures shared with the browser tests)
from site_builder.paths import result_anchor

pytestmark = pytest.mark.slow  # a real browser


def test_detail_view_opens_by_keyboard_at_360_px_without_widening_the_page(browser, served):  # noqa: F811
    page, errors, foreign = _open(browser, served + "nl/benchmarks/deepseekv3-671b/index.html", width=360)
    row = page.locator("#" + result_anchor("v6.0", "CoreWeave", "CoreWeave_GB300_1024x4"))
    details = row.locator("details.result-detail")
    assert details.get_attribute("open") is None
    row.locator("summary").focus()
    page.keyboard.press("Enter")
    assert details.get_attribute("open") is not None
    panel = details.locator("dl")
    assert panel.is_visible() and "RCP-factor" in panel.inner_text()
    box = panel.bounding_box()
    assert box["width"] >= 250  # readable, not squeezed into a narrow column
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # the table scrolls, not the page
    assert errors == [] and foreign == []
    page.close()


def test_link_to_a_previous_round_row_opens_its_table(browser, served):  # noqa: F811
    anchor = result_anchor("v5.1", "NVIDIA", "theia_ngpu512_ngc25.09_nemo")
    page, errors, _ = _open(browser, served + f"en/benchmarks/llama31-8b/index.html#{anchor}", width=1280)
    assert page.locator("details.previous-results").get_attribute("open") is not None
    target = page.locator("#" + anchor)
    assert target.is_visible()
    top = target.evaluate("el => el.getBoundingClientRect().top")
    assert -2 <= top < 900  # scrolled to (sub-pixel rounding aside)
    assert errors == []
    page.close()
