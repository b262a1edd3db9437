"""Languages are configuration and content: adding one (even right-to-left) needs no code."""

import re

import pytest

from site_builder.build import build_site
from site_builder.check import translation_status
from site_builder.content import load_articles
from site_builder.errors import SiteError
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
    assert 'href="../../../en/articles/index.html" hreflang="en"' in page
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
