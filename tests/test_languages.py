"""Languages are configuration and content: adding one (even right-to-left) needs no code."""

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from site_builder.build import build_site
from site_builder.check import translation_status
from site_builder.content import load_articles
from site_builder.errors import SiteError
from tests.conftest import ROOT
from tests.site_checks import broken_links, scan

@pytest.mark.slow
def test_a_language_added_by_config_and_content_only(arabic_site, tmp_path):
    report = build_site(arabic_site, tmp_path / "out")
    out = tmp_path / "out"
    assert report.languages == ("en", "nl", "ar")
    assert [w.message for w in report.warnings if "placeholder" not in w.message] == [
        "no catalog for language 'ar': interface strings fall back to English"]
    home = scan(out / "ar/index.html")
    assert (home.html_lang, home.alternates["ar"]) == ("ar", "https://example.org/mini/ar/")
    assert 'dir="rtl"' in (out / "ar/index.html").read_text()
    assert 'dir="ltr"' in (out / "en/index.html").read_text()
    assert scan(out / "en/index.html").alternates["ar"] == "https://example.org/mini/ar/"
    assert "https://example.org/mini/ar/" in (out / "sitemap.xml").read_text()
    assert (out / "ar/feed.xml").is_file()
    article = (out / "ar/articles/natayij/index.html").read_text()
    assert re.search(r'<html lang="ar" dir="rtl">', article)
    assert broken_links(out) == []


def test_switcher_falls_back_to_the_article_list(mini_site, tmp_path):
    build_site(mini_site, tmp_path / "out")
    page = (tmp_path / "out/nl/articles/alleen/index.html").read_text()
    assert 'href="../../../en/articles/index.html#untranslated" hreflang="en"' in page
    assert "Dit artikel is alleen beschikbaar in het Nederlands." in page
    listing = (tmp_path / "out/en/articles/index.html").read_text()
    assert "Alleen in het Nederlands" in listing  # the other language's article, marked


def test_translation_of_and_stale_detection(mini_site):
    articles = load_articles(mini_site / "content", ("en", "nl"), mini_site)
    source = next(a for a in articles if a.lang == "en")
    dutch = mini_site / "content/nl/hallo.md"
    dutch.write_text(dutch.read_text().replace("key: hello", f"key: hello\ntranslation_of: en\n"
                                                             f"source_hash: {source.content_hash}"))
    articles = load_articles(mini_site / "content", ("en", "nl"), mini_site)
    assert [f.kind for f in translation_status(articles, ("en", "nl"))] == ["original"]  # only-dutch: nl only, by design

    english = mini_site / "content/en/hello.md"
    english.write_text(english.read_text().replace("Some text", "Changed text"))
    articles = load_articles(mini_site / "content", ("en", "nl"), mini_site)
    findings = translation_status(articles, ("en", "nl"))
    stale = [f for f in findings if f.kind == "stale"]
    assert len(stale) == 1 and stale[0].lang == "nl" and source.content_hash in stale[0].detail


def test_bad_translation_links_are_errors(mini_site):
    dutch = mini_site / "content/nl/alleen.md"
    dutch.write_text(dutch.read_text().replace("key: only-dutch", "key: only-dutch\ntranslation_of: en"))
    hallo = mini_site / "content/nl/hallo.md"
    hallo.write_text(hallo.read_text().replace("key: hello", "key: hello\nsource_hash: xyz"))
    with pytest.raises(SiteError) as caught:
        load_articles(mini_site / "content", ("en", "nl"), mini_site)
    text = str(caught.value)
    assert "content/nl/alleen.md:8: error: 'translation_of' names 'en', which has no article with key 'only-dutch'" in text
    assert "content/nl/hallo.md:8: error: 'source_hash' needs 'translation_of'" in text


def test_text_is_nfc_normalized_on_load(mini_site):
    decomposed = "Vie\u0302\u0323t"  # "Việt" written with combining marks
    english = mini_site / "content/en/hello.md"
    english.write_text(english.read_text().replace('title: "Hello, round"', f'title: "{decomposed}"'))
    [article] = [a for a in load_articles(mini_site / "content", ("en",), mini_site)]
    assert article.title == "Việt" and len(article.title) == 4


class _VisibleText(HTMLParser):
    """What a reader sees of a page: its text, without scripts, styles, JSON data blocks and templates."""

    HIDDEN = {"script", "style", "template", "head"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth, self.parts = 0, []

    def handle_starttag(self, tag, attrs):
        self.depth += tag in self.HIDDEN

    def handle_endtag(self, tag):
        self.depth -= tag in self.HIDDEN

    def handle_data(self, data):
        if not self.depth:
            self.parts.append(data)


def visible_text(path: Path) -> str:
    parser = _VisibleText()
    parser.feed(path.read_text(encoding="utf-8"))
    return " ".join(" ".join(parser.parts).split())


# English a reader of a Dutch, Italian or Vietnamese page used to meet (issue 18, "Words"), and the Italian
# participle that did not agree with "Organizzazioni".
LEFT_IN_ENGLISH = ("Sources:", "CC12M (train) and COCO-2014 (validation)", "(not read)", "training reference",
                   "not in the project's sources", "target, runs and round")
FILTER_COLUMNS = ("benchmark", "submitter", "submitter_dir", "system_id", "accelerator", "accelerator_vendor",
                  "availability", "hosting", "score_method", "division", "number_of_nodes")


def test_translated_pages_show_no_english_catalog_text_and_no_raw_filter(shipped_site):
    # "1 node × 1 accelerator = 1" is a scale in words (Dutch "accelerator"), not a filter: a count comes before it
    raw_filter = re.compile(r"(?<!\d )\b(" + "|".join(FILTER_COLUMNS) + r") = ")
    found = []
    for lang in ("nl", "it", "vi"):
        for page in sorted((shipped_site / lang).rglob("*.html")):
            text = visible_text(page)
            where = page.relative_to(shipped_site).as_posix()
            found += [(where, words) for words in LEFT_IN_ENGLISH if words in text]
            found += [(where, match.group(0)) for match in raw_filter.finditer(text)]
            if lang == "it":
                found += [(where, "contati") for _ in re.finditer(r", contati nei risultati", text)]
    assert found == []
    flux = visible_text(shipped_site / "nl/benchmarks/flux1/index.html")
    assert "CC12M (training) en COCO-2014 (validatie)" in flux and "Bronnen: dataset: referentie-implementatie" in flux


def test_counts_of_nodes_and_accelerators_take_the_plural_they_need(shipped_site):
    expected = {"en": ("1 node × 8 accelerators = 8", "18 nodes × 4 accelerators = 72"),
                "nl": ("1 node × 8 accelerators = 8", "18 nodes × 4 accelerators = 72"),
                "it": ("1 nodo × 8 acceleratori = 8", "18 nodi × 4 acceleratori = 72"),
                "vi": ("1 nút × 8 bộ tăng tốc = 8", "18 nút × 4 bộ tăng tốc = 72")}
    for lang, (one, many) in expected.items():
        text = visible_text(shipped_site / lang / "benchmarks/flux1/index.html")
        text += visible_text(shipped_site / lang / "benchmarks/llama31-8b/index.html")
        assert one in text and many in text, lang
    assert "1 nodes" not in visible_text(shipped_site / "en/benchmarks/llama31-8b/index.html")


def test_a_figure_names_its_filters_as_a_reader_would(shipped_site):
    text = visible_text(shipped_site / "nl/articles/ronde-v6-0/index.html")
    assert "geteld in de resultaten van v6.0 (Benchmark: DeepSeek-V3 671B)." in text
    # The round article names benchmarks, not their ids (ids stay in shortcodes, which readers never see).
    assert not re.search(r"\b(deepseekv3_671b|gpt_oss_20b|llama31_8b|llama31_405b|llama2_70b_lora|dlrm_dcnv2)\b",
                         text)


def test_every_benchmark_has_its_texts_in_every_other_language():
    import csv

    from site_builder.config import load_config
    config = load_config(ROOT)
    catalog = list(csv.DictReader((ROOT / "data/benchmarks.csv").open(encoding="utf-8")))
    rows = {(row["id"], row["lang"]): row
            for row in csv.DictReader((ROOT / "data/benchmarks_translated.csv").open(encoding="utf-8"))}
    for lang in config.languages:
        if lang == config.default_language:
            continue
        for benchmark in catalog:
            row = rows.get((benchmark["id"], lang))
            assert row is not None and row["source"], (benchmark["id"], lang)
            assert row["source"] != benchmark["source"], (benchmark["id"], lang)


def test_a_scaling_charts_tooltip_never_says_null(shipped_site):
    """The first point of a series has no previous one to compare with: its tooltip says so in the reader's
    language (Vega writes a missing value as "null")."""
    import json

    expected = {"en": "not applicable: the first point of its series",
                "nl": "niet van toepassing: het eerste punt van de reeks"}
    for lang, text in expected.items():
        specs = [p for p in (shipped_site / "charts" / lang).glob("scaling-*.vl.json")]
        assert specs
        for path in specs:
            spec = json.loads(path.read_text(encoding="utf-8"))
            rows = [row for values in spec["datasets"].values() for row in values if "efficiency_text" in row]
            assert rows and all(isinstance(row["efficiency_text"], str) and row["efficiency_text"] for row in rows)
            assert text in {row["efficiency_text"] for row in rows}, path
            tooltips = json.dumps(spec)
            assert '"efficiency_vs_previous", "type": "quantitative", "title"' not in tooltips
