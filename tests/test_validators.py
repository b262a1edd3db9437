"""The built site against real validators: the Nu Html Checker (vnu-jar) over every page, every internal link and
#fragment, the XML outputs (a real XML parser; the feeds checked as Atom), and the Content-Security-Policy meta.

vnu needs `npm ci` in tests/ and Java; without them these tests skip with that reason, unless
SITE_BUILDER_REQUIRE_VALIDATORS=1 (set by .ci/run) makes them fail instead.
"""

from __future__ import annotations

import os
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from site_builder.build import build_site
from site_builder.config import load_config
from tests.conftest import PATIENCE, ROOT, write_files
from tests.site_checks import (ATOM, CSP, SEARCH_CSP, atom_problems, broken_links, broken_xml_links, html_pages,
                               java, scan, scan_text, sitemap_problems, validator_file)

pytestmark = pytest.mark.slow  # validators over the whole shipped site

GOLDEN_EXPECTED = ROOT / "tests" / "golden" / "expected"
BASE_URL = load_config(ROOT).base_url
LANGUAGES = load_config(ROOT).languages


def run_vnu(*targets: Path) -> list[str]:
    """Errors of the Nu Html Checker over the HTML, CSS and SVG files of files and folders, one line each
    (`"file:...":l.c-l.c: error: ...`)."""
    jar = validator_file("vnu-jar/build/dist/vnu.jar")
    # java takes its home folder from the password file, not $HOME: the run's temporary one (conftest)
    done = subprocess.run([java(), f"-Duser.home={os.environ['HOME']}", "-jar", str(jar), "--errors-only",
                           "--skip-non-html", "--also-check-css", "--also-check-svg", *map(str, targets)],
                          capture_output=True, text=True, timeout=2 * PATIENCE)  # every page of the site
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    if done.returncode not in (0, 1) or (done.returncode == 1 and not lines):
        pytest.fail(f"vnu did not run (exit {done.returncode}): {done.stderr[-2000:]}")
    return lines


def test_every_page_stylesheet_and_svg_passes_the_nu_html_checker(shipped_site, tmp_path):
    """One run (one JVM) over the shipped site (pages, site.css, chart SVGs, icon), the golden site, and a page, a
    stylesheet and an SVG that must fail, which proves the checker really reads each kind and reports it."""
    bad = write_files(tmp_path / "bad", {"page.html": '<!doctype html><html lang="en"><title>x</title><p><div></p>',
                                         "style.css": "p { colr: red; }",
                                         "image.svg": '<svg xmlns="http://www.w3.org/2000/svg"><rect widht="3"/></svg>'})
    golden_pages = sorted(GOLDEN_EXPECTED.rglob("*.html"))  # its SVGs are stored empty (compared by name only)
    errors = run_vnu(shipped_site, *golden_pages, bad)
    for name in ("page.html", "style.css", "image.svg"):
        assert [e for e in errors if f"/bad/{name}" in e], f"vnu reported nothing for a {name} with errors"
    site_errors = [e for e in errors if "/bad/" not in e]
    assert site_errors == [], f"{len(site_errors)} errors:\n" + "\n".join(site_errors[:60])


def test_every_internal_link_and_fragment_resolves(shipped_site):
    assert broken_links(shipped_site, BASE_URL) == []
    assert broken_xml_links(shipped_site, BASE_URL) == []


def test_the_link_checker_catches_missing_files_fragments_and_feed_links(tmp_path):
    site = write_files(tmp_path / "site", {
        "index.html": '<p id="top"><a href="a/index.html#here">ok</a> <a href="#top">ok</a> <a href="#gone">x</a>'
                      '<a href="a/">dir</a><a href="https://example.org/s/a/index.html#nowhere">abs</a>'
                      '<a href="https://elsewhere.example/x">fine</a><a href="mailto:a@b.example">fine</a>',
        "a/index.html": '<h2 id="here">Here</h2>',
        "en/feed.xml": '<feed xmlns="http://www.w3.org/2005/Atom"><link rel="self" href="https://example.org/s/en/fed.xml"/>'
                       '<entry xml:base="https://example.org/s/a/"><content type="html">&lt;a href="#here"&gt;ok&lt;/a&gt;'
                       '&lt;a href="../missing/"&gt;x&lt;/a&gt;&lt;a href="#nope"&gt;x&lt;/a&gt;</content></entry></feed>',
        "sitemap.xml": '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.org/s/</loc>'
                       '</url><url><loc>https://example.org/s/b/</loc></url></urlset>',
    })
    assert broken_links(site, "https://example.org/s/") == [
        "index.html: a -> #gone (no id 'gone' in index.html)",
        "index.html: a -> a/",
        "index.html: a -> https://example.org/s/a/index.html#nowhere (no id 'nowhere' in a/index.html)",
    ]
    assert broken_xml_links(site, "https://example.org/s/") == [
        "en/feed.xml: link -> https://example.org/s/en/fed.xml",
        "en/feed.xml: entry a -> https://example.org/s/missing/",
        "en/feed.xml: entry a -> https://example.org/s/a/#nope (no id 'nope' in a/index.html)",
        "sitemap.xml: loc -> https://example.org/s/b/",
    ]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_feed_is_valid_atom_with_every_article(shipped_site, lang):
    feed = shipped_site / lang / "feed.xml"
    assert atom_problems(feed, BASE_URL, lang) == []
    entries = ET.parse(feed).getroot().findall(f"{ATOM}entry")
    articles = [p for p in (shipped_site / lang / "articles").glob("*/index.html")]
    assert len(entries) == len(articles) > 0


def test_sitemap_parses_and_lists_each_page_once(shipped_site):
    assert sitemap_problems(shipped_site / "sitemap.xml", BASE_URL) == []


def test_feed_escapes_what_articles_contain(mini_site, tmp_path):
    """Entities, markup-like text and ampersands in titles and bodies come out as XML that parses, with the
    article's HTML as escaped text that readers turn back into the same HTML."""
    write_files(mini_site, {"content/en/hostile.md": """
        ---
        title: "R&D <b>not bold</b> & “quotes”"
        date: 2026-06-23
        summary: "Fish & chips <i>x</i>"
        authors: ["A & B"]
        tags: ["mlperf"]
        key: hostile
        ---
        ## Non-breaking&nbsp;space &amp; 3 < 4

        Tom &amp; Jerry, 5&nbsp;%, &copy; and &#8212; and a [link](#non-breaking-space-3-4).[^n]

        [^n]: A note.
        """})
    out = tmp_path / "out"
    build_site(mini_site, out)
    feed = out / "en" / "feed.xml"
    assert atom_problems(feed, "https://example.org/mini/", "en") == []
    entry = next(e for e in ET.parse(feed).getroot().findall(f"{ATOM}entry")
                 if e.findtext(f"{ATOM}title").startswith("R&D"))
    assert entry.findtext(f"{ATOM}title") == "R&D <b>not bold</b> & “quotes”"
    assert entry.findtext(f"{ATOM}summary") == "Fish & chips <i>x</i>"
    body = entry.findtext(f"{ATOM}content")
    page_body = (out / "en/articles/hostile/index.html").read_text()
    assert "<h2" in body and "Tom &amp; Jerry" in body and "3 &lt; 4" in body
    assert re.sub(r"\s+", " ", body).strip()[:200] in re.sub(r"\s+", " ", page_body)  # the page's own HTML
    assert broken_xml_links(out, "https://example.org/mini/") == []


def test_the_atom_checker_catches_broken_feeds(tmp_path):
    head = '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">'
    good_entry = ('<entry><id>https://x.example/a/</id><title>A</title><updated>2026-06-01T00:00:00Z</updated>'
                  '<link href="https://x.example/a/"/><author><name>N</name></author>'
                  '<content type="html">&lt;p&gt;x&lt;/p&gt;</content></entry>')
    feed_meta = ('<id>https://x.example/en/</id><title>T</title><updated>2026-06-02T00:00:00Z</updated>'
                 '<link rel="self" href="https://x.example/en/feed.xml"/>'
                 '<link rel="alternate" type="text/html" href="https://x.example/en/"/>')
    cases = {
        "good": head + feed_meta + good_entry + "</feed>",
        "no id": head + feed_meta.replace("<id>https://x.example/en/</id>", "") + good_entry + "</feed>",
        "date": head + feed_meta.replace("2026-06-02T00:00:00Z", "2026-06-02") + good_entry + "</feed>",
        "bad day": head + feed_meta.replace("2026-06-02T", "2026-02-30T") + good_entry + "</feed>",
        "duplicate": head + feed_meta + good_entry + good_entry + "</feed>",
        "no author": head + feed_meta + good_entry.replace("<author><name>N</name></author>", "") + "</feed>",
        "raw html": head + feed_meta + good_entry.replace("&lt;p&gt;x&lt;/p&gt;", "<p xmlns=''>x</p>") + "</feed>",
        "once escaped": head + feed_meta + good_entry.replace("&lt;p&gt;x", "&lt;p&gt;R&amp;D x") + "</feed>",
    }
    results = {}
    for name, text in cases.items():
        path = tmp_path / f"{name}.xml"
        path.write_text(text)
        try:
            results[name] = atom_problems(path, "https://x.example/", "en")
        except ValueError as exc:  # 2026-02-30 is not a date
            results[name] = [str(exc)]
    assert results["good"] == []
    assert all(results[name] for name in cases if name != "good"), results
    with pytest.raises(ET.ParseError):
        (tmp_path / "entity.xml").write_text(head + feed_meta + "<title>a&nbsp;b</title></feed>")
        atom_problems(tmp_path / "entity.xml", "https://x.example/", "en")


def test_every_page_carries_the_content_security_policy(shipped_site):
    assert "unsafe" not in CSP and "http" not in CSP and "*" not in CSP
    assert CSP.startswith("default-src 'none';")
    assert SEARCH_CSP != CSP and "unsafe" not in SEARCH_CSP.replace("'wasm-unsafe-eval'", "")
    wrong = []
    for page in html_pages(shipped_site):
        parsed = scan(page)
        # First in <head> after the charset, so that it covers every element that follows.
        where = page.relative_to(shipped_site).as_posix()
        if not parsed.csp:
            wrong.append(f"{where}: no Content-Security-Policy meta (include _csp.html after <meta charset>)")
        elif parsed.csp != [SEARCH_CSP if where.endswith("/search/index.html") else CSP]:
            wrong.append(f"{where}: a different policy {parsed.csp}")
        elif parsed.head_order[:2] != ["meta:charset", "meta:content-security-policy"]:
            wrong.append(f"{where}: the policy is not first after the charset: {parsed.head_order}")
    assert wrong == []


def test_pages_have_no_inline_script_or_style(shipped_site):
    """What the policy would block: executable inline scripts, <style>, style and event-handler attributes."""
    offenders = {page.relative_to(shipped_site).as_posix(): sorted(set(scan(page).inline))
                 for page in html_pages(shipped_site)}
    assert {page: found for page, found in offenders.items() if found} == {}


def test_the_inline_scan_finds_what_the_policy_blocks():
    page = ('<script>alert(1)</script><script type="application/json">{}</script><script src="a.js"></script>'
            '<style>p{}</style><p style="color:red" onclick="x()"><a href="javascript:x()">x</a>'
            '<textarea>&lt;p style="x"&gt;</textarea>')
    assert sorted(scan_text(page).inline) == ["<a href=javascript:>", "<p onclick>", "<p style>", "<script>",
                                              "<style>"]


def test_feed_stays_xml_when_an_article_holds_control_characters(mini_site, tmp_path):
    """XML 1.0 forbids most C0 control characters, which HTML pages tolerate: such an article is refused with
    its file, line and column (a numeric reference such as &#1; is replaced by the Markdown parser)."""
    from site_builder.errors import SiteError

    write_files(mini_site, {"content/en/control.md": """
        ---
        title: "Control characters"
        date: 2026-06-23
        summary: "A test."
        authors: ["Test desk"]
        tags: ["mlperf"]
        key: control
        ---
        Form\x0bfeed, unit\x1fseparator and &#1; a numeric one.
        """})
    with pytest.raises(SiteError) as caught:
        build_site(mini_site, tmp_path / "out")
    text = str(caught.value)
    assert "content/en/control.md:9:5: error: control character U+000B in the text; remove it" in text
    assert "content/en/control.md:9:16: error: control character U+001F" in text


def test_robots_txt_points_at_the_sitemap(shipped_site):
    lines = (shipped_site / "robots.txt").read_text().splitlines()
    sitemaps = [line.split(":", 1)[1].strip() for line in lines if line.lower().startswith("sitemap:")]
    assert sitemaps == [f"{BASE_URL}sitemap.xml"]
