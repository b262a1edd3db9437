"""Reader navigation and findings (issue 10): display names, headlines computed from the data, the header menu,
the benchmarks index, breadcrumbs, related links, and the placeholder base URL."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner

from site_builder.build import build_site
from site_builder.cli import main
from site_builder.config import load_config
from site_builder.content import load_articles
from site_builder.data import load_dataset
from site_builder.display_names import load_display_names
from site_builder.errors import SiteError
from tests.conftest import ROOT, csv_text
from tests.site_checks import broken_links

REAL_URL = "https://reports.example.co.uk/mini/"  # not a reserved name: no placeholder warning


def _text(html: str) -> str:
    """Visible text of a page's <main>, provenance tooltips left out, white space collapsed."""
    main = html[html.index("<main"):html.index("</main>")] if "<main" in html else html
    main = re.sub(r'<span class="figure-note".*?</span>', "", main, flags=re.DOTALL)
    main = re.sub(r"<script.*?</script>", "", main, flags=re.DOTALL)
    return re.sub(r"[ \t\r\n]+", " ", re.sub(r"<[^>]+>", " ", main)).replace(" ,", ",").replace(" .", ".")


# Display names ------------------------------------------------------------------------------------------

def test_every_submitter_of_every_round_has_a_display_name():
    """Fails as soon as a round's data brings a submitter that data/display_names.csv does not name."""
    config = load_config(ROOT)
    rounds = sorted(p.name for p in (config.data_dir / "rounds").iterdir() if (p / "results.csv").is_file())
    names = load_display_names(config.data_dir, ROOT)
    submitters = load_dataset(config.data_dir, rounds, ROOT).results["submitter"]
    assert len(rounds) >= 2 and submitters.nunique() > 20
    assert names.missing("submitter", submitters) == []


def test_every_author_has_a_display_name():
    config = load_config(ROOT)
    names = load_display_names(config.data_dir, ROOT)
    authors = {a for article in load_articles(config.content_dir, config.languages, ROOT, []) for a in article.authors}
    assert authors and names.missing("author", authors) == []


def test_display_name_file_errors_are_located_and_reported_together(tmp_path):
    (tmp_path / "display_names.csv").write_text(csv_text("""
        kind,id,display_name,note
        submitter,Google_1,Google,
        vendor,NVIDIA,NVIDIA,
        submitter,Google_1,Google LLC,
        author,,Desk,
        """), encoding="utf-8")
    with pytest.raises(SiteError) as error:
        load_display_names(tmp_path, tmp_path)
    messages = [str(p) for p in error.value.problems]
    assert messages[0].startswith("display_names.csv:3: error: unknown kind 'vendor'")
    assert messages[1].startswith("display_names.csv:4: error: duplicate submitter id 'Google_1'")
    assert "first given at line 2" in messages[1]
    assert messages[2].startswith("display_names.csv:5: error: column 'id' is empty")


def test_a_bad_display_name_file_fails_the_build_and_keeps_the_site(mini_site, tmp_path):
    (mini_site / "data/display_names.csv").write_text("kind,id,display_name\nsubmiter,Acme,Acme Corp\n")
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "data/display_names.csv:2: error: unknown kind 'submiter'" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.slow
def test_display_names_reach_readers_and_raw_ids_stay_in_anchors(mini_site, tmp_path):
    (mini_site / "data/display_names.csv").write_text(csv_text("""
        kind,id,display_name,note
        submitter,Acme,Acme Cloud Computing,
        submitter,Beta,Beta Labs,
        author,Test desk,The test desk,
        """), encoding="utf-8")
    build_site(mini_site, tmp_path / "out")
    out = tmp_path / "out"
    page = (out / "en/benchmarks/deepseekv3-671b/index.html").read_text()
    assert "Fastest: " in _text(page) and "Acme Cloud Computing, 2,048 × GB300" in _text(page)
    assert re.search(r'class="figure-note"[^>]*>[^<]*Acme Cloud Computing, a2048', page)  # the headline's provenance
    assert '<td data-col="submitter">Acme Cloud Computing</td>' in page and 'id="r-v6-0-acme-a2048"' in page  # anchor from the raw id
    home = _text((out / "en/index.html").read_text())
    assert "Acme Cloud Computing" in home and "Beta Labs" in home
    assert "The test desk" in (out / "en/articles/hello/index.html").read_text()
    assert "<author><name>The test desk</name></author>" in (out / "en/feed.xml").read_text()
    assert "Acme," in (out / "data/results-deepseekv3-671b.csv").read_text()  # CSV keeps raw ids


def test_display_names_in_generated_sentences_replace_whole_ids_only(shipped_site):
    names = load_display_names(ROOT / "data", ROOT)
    assert names.in_text("slowest: 49.44 minutes (Google_1, 256 × GB200); Azure_GB200 by Azure.") == \
        "slowest: 49.44 minutes (Google, 256 × GB200); Azure_GB200 by Microsoft Azure."
    page = _text((shipped_site / "en/charts/results-deepseekv3-671b/index.html").read_text())
    assert "(Google, 256 × GB200)" in page and "Google_1" not in page


@pytest.mark.slow
def test_a_submitter_without_a_display_name_is_a_note(mini_site, tmp_path):
    (mini_site / "data/display_names.csv").write_text("kind,id,display_name\nsubmitter,Acme,Acme Corp\n")
    report = build_site(mini_site, tmp_path / "out")
    notes = [str(p) for p in report.warnings if p.severity == "note"]
    assert "data/display_names.csv: note: no display name for submitter 'Beta'; shown as the raw id" in notes


# Headlines --------------------------------------------------------------------------------------------

def test_benchmark_headline_states_the_finding_before_chart_and_spec_sheet(shipped_site):
    for lang, fastest in (("en", "Fastest: 2.0206\u00a0min"), ("nl", "Snelste: 2,0206\u00a0min"),
                          ("it", "Il più veloce: 2,0206\u00a0min"), ("vi", "Nhanh nhất: 2,0206\u00a0phút")):
        html = (shipped_site / f"{lang}/benchmarks/deepseekv3-671b/index.html").read_text()
        finding = html.index('<div class="finding">')
        assert finding < html.index('class="vega-chart') < html.index('<details class="spec-sheet">')
        text = _text(html[finding:html.index("</div>", finding)])
        assert text.strip().startswith(fastest), (lang, text)
        assert "8,192 × GB300" in text or "8.192 × GB300" in text
        # the number is a bound figure: linked to its row, with its provenance
        assert re.search(r'<a href="index.html#r-v6-0-coreweave-coreweave-gb300-2048x4--minutes" aria-describedby="finding-0">'
                         r'<data value="2.0206">', html), lang


@pytest.mark.slow
def test_ties_are_named_and_no_score_is_said(mini_site, tmp_path):
    results = mini_site / "data/rounds/v6.0/results.csv"
    text = results.read_text().replace("Acme,a512,a512,GB300,NVIDIA,GB300,4,128,512,Grace,PyTorch,deepseekv3_671b,20.5",
                                       "Acme,a512,a512,GB300,NVIDIA,GB300,4,128,512,Grace,PyTorch,deepseekv3_671b,6.25")
    text = text.replace("llama31_8b,86.8446,10,1.0,computed here from the result logs",
                        "llama31_8b,,10,,not computed (result logs not read)")
    results.write_text(text)
    build_site(mini_site, tmp_path / "out")
    deepseek = _text((tmp_path / "out/en/benchmarks/deepseekv3-671b/index.html").read_text())
    assert "Fastest: 6.2500\u00a0min, a tie between Acme (512 × GB300) and Acme (2,048 × GB300)." in deepseek
    llama = _text((tmp_path / "out/en/benchmarks/llama31-8b/index.html").read_text())
    assert "No result is scored yet: none of the 2 results has a score in our data." in llama
    index = _text((tmp_path / "out/nl/benchmarks/index.html").read_text())
    assert "Nog geen resultaat met een score: geen van de 2 resultaten heeft een score" in index


def test_home_headline_comes_from_the_data(shipped_site):
    html = (shipped_site / "en/index.html").read_text()
    finding = html.index('<div class="finding">')
    assert finding < html.index('<p class="lede">')
    text = _text(html[finding:html.index("</div>", finding)])
    assert "Fastest DeepSeek-V3 671B: 2.0206\u00a0min, CoreWeave, 8,192 × GB300." in text
    assert "22 organizations submitted 224 results on 13 accelerator types." in text
    vi = _text((shipped_site / "vi/index.html").read_text())
    assert "22 tổ chức đã nộp 224 kết quả trên 13 loại bộ tăng tốc." in vi


def test_chart_page_opens_with_its_finding_and_links_its_benchmark(shipped_site):
    html = (shipped_site / "it/charts/results-llama31-8b/index.html").read_text()
    finding = html.index('<div class="finding">')
    assert finding < html.index('class="vega-chart')
    assert "Il più veloce: 4,46 minuti (NVIDIA, 1.024 × GB200)" in _text(html[finding:])
    assert '<a href="../../benchmarks/llama31-8b/index.html">Tutti i risultati di Llama 3.1 8B</a>' in html
    scaling = (shipped_site / "en/charts/scaling-deepseekv3-671b/index.html").read_text()
    assert 'href="../../benchmarks/deepseekv3-671b/index.html"' in scaling


# Navigation -------------------------------------------------------------------------------------------

class _Menu(HTMLParser):
    def __init__(self):
        super().__init__()
        self.inside, self.links, self.crumbs, self.in_crumbs = False, [], [], False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "nav" and attrs.get("class") == "site-menu":
            self.inside = True
        if tag == "nav" and attrs.get("class") == "crumbs":
            self.in_crumbs = True
        if tag == "a" and self.inside:
            self.links.append((attrs["href"], attrs.get("aria-current")))
        if tag == "a" and self.in_crumbs:
            self.crumbs.append(attrs["href"])

    def handle_endtag(self, tag):
        if tag == "nav":
            self.inside = self.in_crumbs = False


@pytest.mark.parametrize("path, current", [
    ("en/index.html", None), ("nl/benchmarks/index.html", "benchmarks"), ("it/benchmarks/flux1/index.html", "benchmarks"),
    ("vi/charts/index.html", "charts"), ("en/charts/participation/index.html", "charts"),
    ("nl/articles/index.html", "articles"), ("en/claims/index.html", "claims")])
def test_every_page_has_the_menu_with_its_section_marked(shipped_site, path, current):
    menu = _Menu()
    menu.feed((shipped_site / path).read_text())
    page = shipped_site / path
    sections = [page.parent.joinpath(href).resolve().relative_to(shipped_site.resolve()).parts[1]
                for href, _ in menu.links]
    assert sections == ["benchmarks", "charts", "articles", "claims", "rounds", "search"]
    marked = [section for section, (_, mark) in zip(sections, menu.links) if mark]
    assert marked == ([current] if current else [])
    own_index = path.endswith(f"{current}/index.html") and path.count("/") == 2
    if current:
        assert menu.links[sections.index(current)][1] == ("page" if own_index else "true")


def test_menu_is_on_every_language_page(shipped_site):
    pages = [p for p in shipped_site.glob("*/**/*.html") if not p.relative_to(shipped_site).parts[0] in ("embed",)
             and 'http-equiv="refresh"' not in p.read_text()]
    missing = [str(p.relative_to(shipped_site)) for p in pages if 'class="site-menu"' not in p.read_text()]
    assert len(pages) > 100 and missing == []


def test_benchmarks_index_in_every_language_sitemap_and_switcher(shipped_site):
    sitemap = (shipped_site / "sitemap.xml").read_text()
    for lang in ("en", "nl", "it", "vi"):
        html = (shipped_site / f"{lang}/benchmarks/index.html").read_text()
        assert html.count('<li>\n    <h2><a href="') == 7, lang
        assert f"https://example.org/mlperf-training-v6.0/{lang}/benchmarks/</loc>" in sitemap
        for other in ("en", "nl", "it", "vi"):
            if other != lang:
                assert f'href="../../{other}/benchmarks/index.html" hreflang="{other}"' in html
    text = _text((shipped_site / "en/benchmarks/index.html").read_text())
    assert "Llama 3.1 405B" in text and "7 results, 5 scored" in text
    assert "Fastest: 7.0686\u00a0min, Microsoft Azure, 8,192 × GB200." in text


def test_breadcrumbs_link_to_pages_that_exist(shipped_site):
    for path in ("en/benchmarks/llama31-8b/index.html", "nl/charts/results-flux1/index.html",
                 "vi/benchmarks/index.html", "it/charts/index.html"):
        menu = _Menu()
        menu.feed((shipped_site / path).read_text())
        assert menu.crumbs and all((shipped_site / path).parent.joinpath(href).resolve().is_file()
                                   for href in menu.crumbs), path
    menu = _Menu()
    menu.feed((shipped_site / "en/benchmarks/llama31-8b/index.html").read_text())
    assert menu.crumbs == ["../../index.html", "../index.html"]
    assert broken_links(shipped_site) == []


def test_benchmark_page_links_its_charts_and_the_articles_that_cite_it(shipped_site):
    html = (shipped_site / "en/benchmarks/deepseekv3-671b/index.html").read_text()
    related = html[html.index('<ul class="related">'):html.index("</ul>", html.index('<ul class="related">'))]
    assert 'href="../../charts/scaling-deepseekv3-671b/index.html"' in related
    assert 'href="../../charts/results-deepseekv3-671b/index.html"' in related
    assert 'href="../../articles/' in related
    # an article cites a benchmark through a chart or a bound figure: FLUX.1 is cited only by figures
    flux = (shipped_site / "en/benchmarks/flux1/index.html").read_text()
    assert "Articles that cite it:" in flux


# Base URL ---------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_placeholder_base_url_warns_with_its_line_and_fails_strict(mini_site, tmp_path):
    lenient = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "a")])
    assert lenient.exit_code == 0
    assert "site.toml:3: warning: base URL https://example.org/mini/ is a placeholder" in lenient.stderr
    strict = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "b"), "--strict"])
    assert strict.exit_code == 1 and "site.toml:3: error: base URL https://example.org/mini/ is a placeholder" \
        in strict.stderr
    real = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "c"), "--strict",
                                     "--base-url", REAL_URL])
    assert real.exit_code == 0, real.stderr
    assert "is a placeholder" not in real.stderr


@pytest.mark.slow
def test_embed_code_and_citation_say_when_the_address_is_a_placeholder(mini_site, tmp_path):
    build_site(mini_site, tmp_path / "a")
    chart = (tmp_path / "a/en/charts/fastest-per-benchmark/index.html").read_text()
    assert chart.count('class="placeholder-warning"') == 2
    citation = chart[chart.index('<p class="citation">'):chart.index("</p>", chart.index('<p class="citation">'))]
    assert "example.org" not in citation
    build_site(mini_site, tmp_path / "b", base_url=REAL_URL)
    chart = (tmp_path / "b/en/charts/fastest-per-benchmark/index.html").read_text()
    assert 'class="placeholder-warning"' not in chart
    assert f"{REAL_URL}en/charts/fastest-per-benchmark/</p>" in chart


@pytest.mark.slow
def test_404_links_are_relative_with_a_placeholder_and_start_at_the_site_path_with_a_real_address(mini_site, tmp_path):
    build_site(mini_site, tmp_path / "a")
    assert "<base" not in (tmp_path / "a/404.html").read_text()
    assert broken_links(tmp_path / "a") == []
    build_site(mini_site, tmp_path / "b", base_url=REAL_URL)
    page = (tmp_path / "b/404.html").read_text()
    # No <base>: its links start at the site's path, so "Skip to content" stays on the page at any address.
    assert "<base" not in page and 'href="/mini/en/index.html"' in page and 'class="skip" href="#main"' in page
    assert re.search(r'<link rel="stylesheet" href="/mini/assets/site\.[0-9a-f]+\.css">', page)
    assert broken_links(tmp_path / "b", REAL_URL) == []


@pytest.mark.parametrize("url, placeholder", [
    ("https://example.org/x/", True), ("https://www.example.com/", True), ("https://site.test/", True),
    ("http://localhost:8000/", True), ("http://127.0.0.1:8000/", True), ("http://[::1]/", True),
    ("https://mlcommons.org/x/", False), ("https://exampleorg.com/", False), ("https://example.org.uk/", False)])
def test_which_addresses_are_placeholders(url, placeholder):
    from site_builder.config import is_placeholder_url
    assert is_placeholder_url(url) is placeholder


@pytest.mark.slow
def test_base_url_option_placeholders_warn_but_a_local_preview_address_does_not(mini_site, tmp_path):
    doc = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "a"),
                                    "--base-url", "https://example.com/x/"])
    assert "warning: base URL https://example.com/x/ is a placeholder" in doc.stderr and "(from --base-url)" in doc.stderr
    local = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "b"), "--strict",
                                      "--base-url", "http://127.0.0.1:8000/"])
    assert local.exit_code == 0 and "is a placeholder" not in local.stderr
    assert 'href="/en/index.html"' in (tmp_path / "b/404.html").read_text()  # the preview serves the site there
