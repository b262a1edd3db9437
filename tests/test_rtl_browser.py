"""Right-to-left pages (Arabic, Hebrew) in a real browser at 320, 360 and 1280 px: no page scrolls sideways, the
page is mirrored (<html dir="rtl">) but every chart is drawn left to right with its title whole inside its
picture, the caption around it stays right-to-left, and the skip link is hidden without widening the page."""

from __future__ import annotations

import pytest

from site_builder.build import build_site
from tests.conftest import ARABIC_ARTICLE, mini_site_files, write_files
from tests.site_checks import wait_until
from tests.test_browser import ALL_CHARTS_DRAWN, browser  # noqa: F401  (the module skips without chromium)

pytestmark = pytest.mark.slow  # a real browser

WIDTHS = (320, 360, 1280)
TITLES = {"ar": "تقرير مصغر", "he": "דוח מקוצר"}
HEBREW_ARTICLE = """
    ---
    title: "תוצאות הסבב"
    date: 2026-06-25
    summary: "מאמר ניסיון בעברית."
    authors: ["צוות הנתונים"]
    tags: ["mlperf"]
    key: hebrew-only
    ---
    ## החלק הראשון

    טקסט קצר.
    """
# An article with a chart in it, in each language: the chart must stay left-to-right inside right-to-left prose.
CHART_ARTICLE = """
    ---
    title: "{title}"
    date: 2026-06-26
    summary: "{title}."
    authors: ["{title}"]
    tags: ["mlperf"]
    key: with-chart-{lang}
    ---
    {text}

    {{{{< chart gpu-minutes >}}}}

    {text}
    """
PAGES = ("{lang}/index.html", "{lang}/articles/index.html", "{lang}/articles/natayij/index.html",
         "{lang}/articles/rasm/index.html", "{lang}/charts/gpu-minutes/index.html",
         "{lang}/benchmarks/deepseekv3-671b/index.html", "{lang}/claims/index.html", "embed/{lang}/gpu-minutes.html")
CHART_PAGES = ("{lang}/charts/gpu-minutes/index.html", "{lang}/articles/rasm/index.html",
               "{lang}/benchmarks/deepseekv3-671b/index.html", "embed/{lang}/gpu-minutes.html", "{lang}/index.html")


@pytest.fixture(scope="module")
def rtl_site(tmp_path_factory):
    """The mini site (en, nl) plus Arabic and Hebrew, as the `arabic_site` fixture adds Arabic: configuration and
    content only. Built once for the module."""
    root = tmp_path_factory.mktemp("rtl")
    site = write_files(root / "site", mini_site_files())
    config = site / "site.toml"
    config.write_text(config.read_text().replace('["en", "nl"]', '["en", "nl", "ar", "he"]').replace(
        'nl = "Mini-rapport"', 'nl = "Mini-rapport"\n' + "\n".join(f'{c} = "{t}"' for c, t in TITLES.items())))
    write_files(site, {
        "content/ar/natayij.md": ARABIC_ARTICLE,
        "content/he/natayij.md": HEBREW_ARTICLE,
        "content/ar/rasm.md": CHART_ARTICLE.format(title="مقال مع رسم بياني", lang="ar",
                                                   text="يوضح الرسم البياني التالي دقائق المسرعات لكل معيار."),
        "content/he/rasm.md": CHART_ARTICLE.format(title="מאמר עם תרשים", lang="he",
                                                   text="התרשים הבא מציג את דקות המאיצים לכל מדד."),
    })
    build_site(site, root / "out")
    return root / "out"


@pytest.fixture
def open_page(browser):  # noqa: F811
    """Open a built page at a width (file://); errors collected; pages closed at the end of the test."""
    pages = []

    def opener(site, path: str, width: int, **context_options):
        context = browser.new_context(viewport={"width": width, "height": 800}, **context_options)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
        page.goto((site / path).as_uri())
        if context_options.get("java_script_enabled", True):
            wait_until(page, ALL_CHARTS_DRAWN)
        pages.append(context)
        return page

    yield opener
    for context in pages:
        context.close()


SIDEWAYS = "(() => { const s = document.scrollingElement; return [s.scrollWidth, s.clientWidth]; })()"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", ["ar", "he"])
def test_rtl_pages_are_mirrored_and_never_scroll_sideways(rtl_site, open_page, lang, width):
    for template in PAGES:
        path = template.format(lang=lang)
        page = open_page(rtl_site, path, width)
        assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == [lang, "rtl"], path
        scroll_width, client_width = page.evaluate(SIDEWAYS)
        assert scroll_width <= client_width, f"{path} at {width} px is {scroll_width} px wide"
        # Nothing to scroll to either side (in RTL Chromium scrolls into negative scrollLeft).
        page.evaluate("window.scrollTo(-10000, 0)")
        assert page.evaluate("window.scrollX") == 0, path
        assert page.errors == [], path


# Every text of a chart's picture (title, axis titles and labels, legend) inside the picture's box. In an RTL
# container Vega's start-anchored text runs out of the left of the SVG.
CHART_TEXT = """(() => [...document.querySelectorAll('.vega-chart')].map(chart => {
  const svg = chart.querySelector('svg.marks'), box = svg.getBoundingClientRect();
  const title = svg.querySelector('.role-title-text text, .role-title text');
  const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim());
  const outside = texts.filter(t => { const r = t.getBoundingClientRect();
    return r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1; });
  const caption = chart.closest('figure').querySelector('figcaption');
  return {direction: getComputedStyle(chart).direction, svgDirection: getComputedStyle(svg).direction,
          title: title ? title.textContent.trim() : '', titleBox: title ? title.getBoundingClientRect().width : 0,
          texts: texts.length, outside: outside.slice(0, 5).map(t => t.textContent),
          caption: caption ? getComputedStyle(caption).direction : null,
          figure: getComputedStyle(chart.closest('figure')).direction};
}))()"""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", ["ar", "he"])
def test_rtl_charts_are_drawn_left_to_right_with_their_text_whole(rtl_site, open_page, lang, width):
    for template in CHART_PAGES:
        path = template.format(lang=lang)
        page = open_page(rtl_site, path, width)
        charts = page.evaluate(CHART_TEXT)
        assert charts, path
        for chart in charts:
            where = f"{path} at {width} px: {chart}"
            assert chart["direction"] == "ltr" and chart["svgDirection"] == "ltr", where
            assert chart["figure"] == "rtl" and chart["caption"] in (None, "rtl"), where  # the text around stays RTL
            assert chart["title"] and chart["titleBox"] > 0 and chart["texts"] > 3, where
            assert chart["outside"] == [], where


@pytest.mark.parametrize("width", WIDTHS)
def test_rtl_static_chart_picture_without_javascript(rtl_site, open_page, width):
    """Without JavaScript the chart is its static SVG picture: left to right, within the page."""
    for template in ("{lang}/charts/gpu-minutes/index.html", "embed/{lang}/gpu-minutes.html"):
        page = open_page(rtl_site, template.format(lang="ar"), width, java_script_enabled=False)
        picture = page.evaluate("""(() => { const img = document.querySelector('img.chart-static');
            const r = img.getBoundingClientRect();
            return {direction: getComputedStyle(img).direction, left: r.left, right: r.right,
                    loaded: img.complete && img.naturalWidth > 0}; })()""")
        assert picture["direction"] == "ltr" and picture["loaded"], picture
        assert picture["left"] >= 0 and picture["right"] <= width, picture
        scroll_width, client_width = page.evaluate(SIDEWAYS)
        assert scroll_width <= client_width


SKIP = """(() => { const a = document.querySelector('a.skip'), r = a.getBoundingClientRect();
  return {left: r.left, right: r.right, width: r.width, height: r.height, focused: document.activeElement === a,
          view: document.documentElement.clientWidth}; })()"""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", ["ar", "en"])
def test_rtl_skip_link_is_hidden_without_overflow_and_shows_at_the_start_on_focus(rtl_site, open_page, lang, width):
    page = open_page(rtl_site, f"{lang}/index.html", width)
    hidden = page.evaluate(SKIP)
    # Not seen: off the page or clipped to nothing, and in neither case a reason to scroll.
    assert hidden["right"] <= 0 or hidden["left"] >= hidden["view"] or (hidden["width"] <= 1 and hidden["height"] <= 1), hidden
    assert page.evaluate(SIDEWAYS)[0] <= page.evaluate(SIDEWAYS)[1]
    page.keyboard.press("Tab")  # the first stop on the page
    shown = page.evaluate(SKIP)
    assert shown["focused"] and shown["width"] > 20 and 0 <= shown["left"] and shown["right"] <= shown["view"], shown
    if lang == "ar":  # at the inline start: the right edge
        assert shown["right"] > shown["view"] - 40, shown
    else:
        assert shown["left"] < 40, shown
    assert page.evaluate(SIDEWAYS)[0] <= page.evaluate(SIDEWAYS)[1]


@pytest.mark.parametrize("width", [360])
def test_rtl_code_reads_left_to_right(rtl_site, open_page, width):
    """The embed code, the resize script and inline code (a quality target) stay left to right in an RTL page."""
    page = open_page(rtl_site, "ar/charts/gpu-minutes/index.html", width)
    assert page.evaluate("['embed-code', 'resize-code'].map(id => getComputedStyle(document.getElementById(id))"
                         ".direction)") == ["ltr", "ltr"]
    page = open_page(rtl_site, "ar/benchmarks/deepseekv3-671b/index.html", width)
    code = page.evaluate("[...document.querySelectorAll('code')].filter(c => c.textContent.includes('<=')).map(c => "
                         "[getComputedStyle(c).direction, getComputedStyle(c).unicodeBidi])")
    assert code and all(found == ["ltr", "isolate"] for found in code), code
