"""The shipped site, built once: every page type in every language, links, hreflang, formats, offline."""

import csv
import html
import json
import re
from pathlib import Path

import pytest

from site_builder.build import build_site
from tests.conftest import ROOT
from tests.site_checks import broken_links, external_resources, html_pages, scan

LANGUAGES = ("en", "nl", "it", "vi")
BENCHMARKS = ("deepseekv3-671b", "gpt-oss-20b", "llama31-405b", "llama31-8b", "llama2-70b-lora", "flux1",
              "dlrm-dcnv2")
ARTICLES = {"en": ["how-to-read-mlperf-training", "methodology"], "nl": ["ronde-v6-0", "methodologie"],
            "it": ["deepseek-v3-su-scala", "metodologia"], "vi": ["nguoi-tham-gia", "phuong-phap"]}


def test_every_page_type_exists_in_every_language(shipped_site: Path):
    for name in ("index.html", "404.html", "sitemap.xml", "robots.txt"):
        assert (shipped_site / name).is_file(), name
    for lang in LANGUAGES:
        assert (shipped_site / lang / "index.html").is_file()
        assert (shipped_site / lang / "feed.xml").is_file()
        for benchmark in BENCHMARKS:
            assert (shipped_site / lang / "benchmarks" / benchmark / "index.html").is_file(), (lang, benchmark)
        for slug in ARTICLES[lang]:
            assert (shipped_site / lang / "articles" / slug / "index.html").is_file(), (lang, slug)
        for chart in ("scaling-deepseekv3-671b", "fastest-per-benchmark"):
            spec = json.loads((shipped_site / "charts" / lang / f"{chart}.vl.json").read_text())
            assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
            assert (shipped_site / "charts" / lang / f"{chart}.svg").read_text().startswith("<svg")


def test_no_broken_links_and_nothing_loaded_from_elsewhere(shipped_site: Path):
    assert broken_links(shipped_site) == []
    assert external_resources(shipped_site) == []


def test_every_page_declares_its_language(shipped_site: Path):
    for page in html_pages(shipped_site):
        relative = page.relative_to(shipped_site).as_posix()
        lang = scan(page).html_lang
        parts = relative.removeprefix("embed/").split("/")
        expected = parts[0] if parts[0] in LANGUAGES else "en"
        assert lang == expected, relative


def test_hreflang_alternates_are_reciprocal(shipped_site: Path):
    base = "https://example.org/mlperf-training-v6.0/"
    pages = {p.relative_to(shipped_site).as_posix(): scan(p).alternates for p in html_pages(shipped_site)}
    checked = 0
    for relative, alternates in pages.items():
        for code, href in alternates.items():
            if code == "x-default":
                continue
            target = href[len(base):] + ("index.html" if href.endswith("/") else "")
            assert target in pages, (relative, href)
            own = base + relative.removesuffix("index.html")
            assert own in pages[target].values(), (relative, target)
            checked += 1
    assert checked > 100


def test_home_figures_are_computed_and_localized(shipped_site: Path):
    en = (shipped_site / "en/index.html").read_text()
    vi = (shipped_site / "vi/index.html").read_text()
    nl = (shipped_site / "nl/index.html").read_text()
    for text, fastest, share in ((en, "2.02", "60.2%"), (vi, "2,02", "60,2%"), (nl, "2,02", "60,2%")):
        assert re.search(r"<dd>\s*22\s*</dd>", text) and re.search(r"<dd>\s*113\s*</dd>", text)
        assert re.search(r"<dd>\s*224\s*</dd>", text) and re.search(r"<dd>\s*13\s*</dd>", text)
        assert share in text and fastest in text
    assert "8,192" in en and "8.192" in vi
    assert "juni 2026" in nl  # Dutch month names in article dates


BOUND = re.compile(r'<data value="([^"]*)">([^<]*)</data>')


def test_every_bound_figure_carries_the_number_it_shows(shipped_site: Path):
    """`<data value>` is the shown number to its last digit: a percentage as its fraction (68.5% is 0.685)."""
    from decimal import Decimal

    from site_builder.i18n import load_language

    checked = 0
    for code in LANGUAGES:
        symbols = load_language(code, ROOT / "site_builder/theme/locales", ROOT)[0]._symbols()
        for page in (shipped_site / code).rglob("*.html"):
            for value, shown in BOUND.findall(page.read_text(encoding="utf-8")):
                shown = html.unescape(shown)
                digits = re.sub(r"[^0-9" + re.escape(symbols["decimal"]) + "]", "", shown)
                number = Decimal(digits.replace(symbols["decimal"], "."))
                if shown.startswith(symbols.get("minusSign", "-")):
                    number = -number
                expected = number.scaleb(-2) if symbols.get("percentSign", "%") in shown else number
                assert value == f"{expected:f}", (page.relative_to(shipped_site).as_posix(), value, shown)
                checked += 1
    assert checked > 900

def test_benchmark_page_lists_every_result_including_unscored(shipped_site: Path):
    page = (shipped_site / "en/benchmarks/llama31-8b/index.html").read_text()
    body = page.split('<table class="sortable data-table results" id="table-results">')[1].split("</table>")[0]
    assert body.count("<tr") - 1 == 66  # header row + 66 results
    with (ROOT / "data/rounds/v6.0/results.csv").open(newline="", encoding="utf-8") as handle:
        unscored = sum(1 for r in csv.DictReader(handle) if r["benchmark"] == "llama31_8b" and not r["score_minutes"])
    assert body.count('class="unscored"') == unscored > 0
    assert "Compared with v5.1" in page


def test_article_links_to_its_translations(shipped_site: Path):
    page = (shipped_site / "nl/articles/methodologie/index.html").read_text()
    for href in ("../../../en/articles/methodology/index.html", "../../../it/articles/metodologia/index.html",
                 "../../../vi/articles/phuong-phap/index.html"):
        assert f'href="{href}"' in page


def test_vietnamese_chart_carries_decimal_comma_locale(shipped_site: Path):
    spec = json.loads((shipped_site / "charts/vi/scaling-deepseekv3-671b.vl.json").read_text())
    assert spec["config"]["locale"]["number"]["decimal"] == ","
    assert spec["config"]["locale"]["number"]["thousands"] == "."
    nl = json.loads((shipped_site / "charts/nl/scaling-deepseekv3-671b.vl.json").read_text())
    en = json.loads((shipped_site / "charts/en/scaling-deepseekv3-671b.vl.json").read_text())
    assert nl["title"]["text"] != en["title"]["text"]


@pytest.mark.slow
def test_two_builds_are_byte_identical(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1781222400")  # 2026-06-12
    first, second = tmp_path / "a", tmp_path / "b"
    build_site(ROOT, first)
    build_site(ROOT, second)
    files = lambda root: {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    a, b = files(first), files(second)
    assert a.keys() == b.keys()
    assert [name for name in a if a[name] != b[name]] == []
    assert "June 12, 2026" in a["en/index.html"].decode()


def test_the_checks_themselves_catch_problems(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a/index.html").write_text('<html lang="en"><a href="../missing.html">x</a>'
                                           '<script src="https://cdn.example/x.js"></script>'
                                           '<a href="https://elsewhere.example/">reading is fine</a></html>')
    assert broken_links(tmp_path) == ["a/index.html: a -> ../missing.html"]
    assert external_resources(tmp_path) == ["a/index.html: script https://cdn.example/x.js"]


CHARTS = ["scaling-deepseekv3-671b", "fastest-per-benchmark", "accelerator-comparison", "mi355x-vs-b200", "round-over-round",
          "participation", "scale-distribution", "gpu-minutes"] + [f"results-{b}" for b in BENCHMARKS]


def test_every_chart_has_spec_svg_png_csv_permalink_and_embed_in_every_language(shipped_site: Path):
    for chart in CHARTS:
        assert (shipped_site / "data" / f"{chart}.csv").read_text().count("\n") >= 2, chart
        for lang in LANGUAGES:
            base = shipped_site / "charts" / lang / chart
            json.loads(base.with_suffix(".vl.json").read_text())
            assert base.with_suffix(".svg").read_text().startswith("<svg"), (lang, chart)
            assert base.with_suffix(".narrow.svg").read_text().startswith("<svg"), (lang, chart)
            assert base.with_suffix(".png").read_bytes()[:4] == b"\x89PNG", (lang, chart)
            permalink = (shipped_site / lang / "charts" / chart / "index.html").read_text()
            assert (f'<noscript><picture><source media="(max-width: 700px)" srcset="../../../charts/{lang}/{chart}'
                    f'.narrow.svg"><img class="chart-static"') in permalink
            assert 'id="embed-code"' in permalink and f"embed/{lang}/{chart}.html" in permalink
            code = html.unescape(re.search(r'id="embed-code"[^>]*>([^<]*)</textarea>', permalink).group(1))
            assert re.fullmatch(r'<iframe src="https://[^"]+" title="[^"]+" [^>]*></iframe>', code), code
            assert 'class="citation"' in permalink and f"data/{chart}.csv" in permalink
            embed = (shipped_site / "embed" / lang / f"{chart}.html").read_text()
            assert 'data-embed="' + chart + '"' in embed and 'name="robots" content="noindex"' in embed


def test_chart_pages_have_a_text_alternative_and_a_data_table_in_their_language(shipped_site: Path):
    vi = (shipped_site / "vi/charts/scaling-deepseekv3-671b/index.html").read_text()
    assert "2.048" in vi and "68,5%" in vi
    en = (shipped_site / "en/charts/mi355x-vs-b200/index.html").read_text()
    assert "MI355X is 3.6% slower" in en and "7.9813" in en and "8.2714" in en


def test_vega_bundle_only_on_pages_with_charts(shipped_site: Path):
    for page in html_pages(shipped_site):
        text = page.read_text()
        has_chart = 'class="vega-chart"' in text
        loads_bundle = re.search(r'src="[^"]*assets/vega\.[0-9a-f]+\.js"', text) is not None
        assert has_chart == loads_bundle, page.relative_to(shipped_site)


def test_articles_embed_charts_by_shortcode(shipped_site: Path):
    page = (shipped_site / "it/articles/deepseek-v3-su-scala/index.html").read_text()
    assert 'id="chart-scaling-deepseekv3-671b"' in page and "../../charts/scaling-deepseekv3-671b/index.html" in page
    feed = (shipped_site / "it/feed.xml").read_text()
    assert "https://example.org/mlperf-training-v6.0/it/charts/scaling-deepseekv3-671b/" in feed


def test_open_graph_images(shipped_site: Path):
    base = "https://example.org/mlperf-training-v6.0/"
    for page, image in (("en/index.html", "og/en/home.png"),
                        ("nl/articles/ronde-v6-0/index.html", "og/nl/articles/ronde-v6-0.png"),
                        ("vi/charts/participation/index.html", "charts/vi/participation.png")):
        text = (shipped_site / page).read_text()
        assert f'<meta property="og:image" content="{base}{image}">' in text
        assert (shipped_site / image).read_bytes()[:4] == b"\x89PNG"


def test_a_rounds_best_resting_on_a_minority_of_its_results_says_so_in_the_strip(shipped_site: Path):
    """"This benchmark in every round": a round whose best rests on fewer than half of its closed results carries
    how many it rests on, beside the time; one resting on half or more carries no such mark."""
    from slugify import slugify
    with (ROOT / "data/rounds/v6.0/results.csv").open(newline="", encoding="utf-8") as handle:
        closed = [r for r in csv.DictReader(handle) if r["division"] == "closed"]
    marked = unmarked = 0
    for benchmark in sorted({r["benchmark"] for r in closed}):
        rows = [r for r in closed if r["benchmark"] == benchmark]
        scored = sum(1 for r in rows if r["score_minutes"])
        if not scored:
            continue
        page = (shipped_site / f"en/benchmarks/{slugify(benchmark)}/index.html").read_text()
        if '<nav class="across-rounds"' not in page:  # a benchmark first run in this round has no strip
            continue
        strip = page.split('<nav class="across-rounds"')[1].split("</nav>")[0]
        mark = f'<span class="badge">{scored} of {len(rows)} scored</span>'
        if scored * 2 < len(rows):
            assert mark in strip, benchmark
            marked += 1
        else:
            assert "scored</span>" not in strip.split('aria-current')[-1].split("</li>")[0], benchmark
            unmarked += 1
    assert marked + unmarked >= 5 and marked >= 1  # today both cases occur in the main round


