"""Whole-site checks shared by the tests: links (with #fragments), resources, hreflang, the XML outputs and the
Content-Security-Policy, read from the built files; and where the external validators (npm, Java) live."""

from __future__ import annotations

import os
import posixpath
import re
import shutil
import xml.etree.ElementTree as ET
from datetime import datetime
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from tests.conftest import PATIENCE

ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"
XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"

# The policy every page carries (templates/_csp.html); the tests hold the templates to it.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "font-src 'self'; manifest-src 'self'; base-uri 'self'; form-action 'none'")
# The search pages' policy: the same, and WebAssembly (Pagefind's index reader) may be compiled; still no eval.
SEARCH_CSP = CSP.replace("script-src 'self';", "script-src 'self' 'wasm-unsafe-eval';")


class PageScan(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.alternates: dict[str, str] = {}
        self.ids: set[str] = set()
        self.html_lang: str | None = None
        self.base: str | None = None
        self.csp: list[str] = []
        self.inline: list[str] = []  # what a policy without 'unsafe-inline' blocks: inline script, style, handlers
        self.head_order: list[str] = []  # the first elements of <head>, to check where the policy sits

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        self.inline += [f"<{tag} {name}>" for name in attributes if name == "style" or name.startswith("on")]
        if tag == "style" or (tag == "script" and "src" not in attributes and attributes.get("type") != "application/json"):
            self.inline.append(f"<{tag}>")
        if (attributes.get("href") or "").strip().lower().startswith("javascript:"):
            self.inline.append(f"<{tag} href=javascript:>")
        if tag == "html":
            self.html_lang = attributes.get("lang")
        if tag == "base":
            self.base = attributes.get("href")
        if tag == "meta" and (attributes.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp.append(attributes.get("content") or "")
        if tag in {"meta", "base", "link", "script", "style", "title"} and len(self.head_order) < 3:
            self.head_order.append(tag if tag != "meta" else "meta:" + ("charset" if "charset" in attributes else
                                                                       (attributes.get("http-equiv") or "").lower()))
        if tag == "link" and attributes.get("rel") == "alternate" and attributes.get("hreflang"):
            self.alternates[attributes["hreflang"]] = attributes["href"]
        if tag == "meta" and attributes.get("property") in {"og:image", "og:url"}:  # absolute, into the site
            self.links.append((f"meta[{attributes['property']}]", "content", attributes.get("content") or ""))
        for name in ("href", "src"):
            if attributes.get(name) is not None:
                self.links.append((tag, name, attributes[name]))
        if tag == "link":
            self.links[-1:] = [(f"link[{attributes.get('rel')}]", n, v) for (_, n, v) in self.links[-1:]]


def scan(path: Path) -> PageScan:
    parser = PageScan()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def scan_text(text: str) -> PageScan:
    parser = PageScan()
    parser.feed(text)
    return parser


def html_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def _site_path(start: str, value: str, base_url: str | None) -> tuple[str | None, str] | None:
    """(path inside the site, fragment) a link points to; None for links to elsewhere (reading is fine);
    (None, ...) for a link that can never resolve in the site."""
    parts = urlsplit(value)
    if parts.scheme in {"mailto", "data", "tel"}:
        return None
    if parts.scheme or value.startswith("//"):
        if base_url and value.startswith(base_url):  # an absolute link to the site itself
            served = unquote(urlsplit(value[len(base_url):]).path)
            return (served + "index.html" if served == "" or served.endswith("/") else served), parts.fragment
        return None if parts.scheme in {"http", "https"} or value.startswith("//") else (None, "")
    if not parts.path:
        return start, parts.fragment  # "#x" on the page itself
    if parts.path.startswith("/"):  # from the site's path (the 404 page's links, with the site's address known)
        root = urlsplit(base_url).path if base_url else ""
        if not root or not parts.path.startswith(root):
            return None, ""
        served = unquote(parts.path[len(root):])
        return (served + "index.html" if served == "" or served.endswith("/") else served), parts.fragment
    target = posixpath.normpath(posixpath.join(posixpath.dirname(start), unquote(parts.path)))
    return (None if target.startswith("..") else target), parts.fragment


@lru_cache(maxsize=None)
def _ids(path: Path) -> frozenset[str]:
    return frozenset(scan(path).ids)


def _check(site: Path, where: str, start: str, tag: str, value: str, base_url: str | None) -> str | None:
    resolved = _site_path(start, value, base_url)
    if resolved is None:
        return None
    target, fragment = resolved
    if target is None or not (site / target).is_file():
        return f"{where}: {tag} -> {value}"
    if fragment and target.endswith(".html") and unquote(fragment) not in _ids((site / target).resolve()):
        return f"{where}: {tag} -> {value} (no id '{unquote(fragment)}' in {target})"
    return None


def broken_links(site: Path, base_url: str | None = None) -> list[str]:
    """Every relative href/src (and, given base_url, every absolute link into the site) that does not resolve
    to a file of the site, or whose #fragment is not an id of the target page."""
    _ids.cache_clear()
    problems = []
    for page in html_pages(site):
        relative_page = page.relative_to(site).as_posix()
        parsed = scan(page)
        # A page with <base href="/<site path>/"> (a project's template may have one): its links resolve against it.
        start = "index.html" if parsed.base else relative_page
        for tag, _, value in parsed.links:
            if tag == "base":  # the path of the site's address, so that the page works at any depth
                if base_url and value != urlsplit(base_url).path:
                    problems.append(f"{relative_page}: base -> {value} (the site is at {urlsplit(base_url).path})")
                continue
            problem = _check(site, relative_page, start, tag, value, base_url)
            if problem:
                problems.append(problem)
    return problems


def broken_xml_links(site: Path, base_url: str) -> list[str]:
    """Links in the feeds (feed and entry links, and the links inside each entry's HTML, resolved against its
    xml:base) and in the sitemap (loc and hreflang alternates) that do not lead to a page of the site."""
    _ids.cache_clear()
    problems = []
    for feed in sorted(site.glob("*/feed.xml")):
        where = feed.relative_to(site).as_posix()
        root = ET.parse(feed).getroot()
        for link in root.iter(f"{ATOM}link"):
            if not base_url_link(link.get("href"), base_url):
                problems.append(f"{where}: link -> {link.get('href')} (not under {base_url})")
            elif problem := _check(site, where, "", "link", link.get("href"), base_url):
                problems.append(problem)
        for entry in root.findall(f"{ATOM}entry"):
            entry_base = entry.get(XML_BASE) or ""
            content = entry.find(f"{ATOM}content")
            for tag, _, value in scan_text(content.text or "").links if content is not None else []:
                absolute = urljoin(entry_base, value)
                if urlsplit(absolute).scheme in {"http", "https"} and not base_url_link(absolute, base_url):
                    continue  # a link to read elsewhere
                if problem := _check(site, where, "", f"entry {tag}", absolute, base_url):
                    problems.append(problem)
    sitemap = site / "sitemap.xml"
    for element in ET.parse(sitemap).getroot().iter():
        value = element.text if element.tag == f"{SITEMAP}loc" else element.get("href")
        if element.tag in {f"{SITEMAP}loc", f"{XHTML}link"}:
            if not base_url_link(value, base_url):
                problems.append(f"sitemap.xml: {value} (not under {base_url})")
            elif problem := _check(site, "sitemap.xml", "", element.tag.split("}")[1], value, base_url):
                problems.append(problem)
    return problems


def base_url_link(value: str | None, base_url: str) -> bool:
    return bool(value) and value.startswith(base_url)


def external_resources(site: Path) -> list[str]:
    """Anything a page would load from another origin (links to read elsewhere are fine)."""
    found = []
    for page in html_pages(site):
        for tag, _, value in scan(page).links:
            loads = tag in {"script", "img", "iframe", "source", "video", "audio"} or tag == "link[stylesheet]" \
                or tag.startswith("link[icon") or tag == "link[preload]"
            if loads and (urlsplit(value).scheme or value.startswith("//")):
                found.append(f"{page.relative_to(site)}: {tag} {value}")
    return found


# --- XML outputs ------------------------------------------------------------------------------------------------

RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def is_rfc3339(value: str | None) -> bool:
    if not value or not RFC3339.match(value):
        return False
    datetime.fromisoformat(value.replace("Z", "+00:00"))  # raises on 2026-02-30 and the like
    return True


def atom_problems(path: Path, base_url: str, lang: str) -> list[str]:
    """RFC 4287 checked element by element: what a feed and each entry must carry, once; absolute IRIs; RFC 3339
    dates; unique entry ids; html content that is escaped text (no child elements) and that parses back to HTML."""
    problems: list[str] = []
    root = ET.parse(path).getroot()  # raises on XML that is not well-formed

    def need_one(element: ET.Element, name: str, where: str) -> ET.Element | None:
        found = element.findall(f"{ATOM}{name}")
        if len(found) != 1:
            problems.append(f"{where}: {len(found)} <{name}> elements, Atom requires exactly one")
            return None
        return found[0]

    def text_construct(element: ET.Element | None, where: str) -> None:
        if element is None:
            return
        if element.get("type", "text") not in {"text", "html"} or len(element) or not (element.text or "").strip():
            problems.append(f"{where}: <{element.tag[len(ATOM):]}> must be non-empty text or escaped html")

    if root.tag != f"{ATOM}feed":
        return [f"{path}: root is {root.tag}, not an Atom feed"]
    if root.get("{http://www.w3.org/XML/1998/namespace}lang") != lang:
        problems.append(f"feed: xml:lang is {root.get('{http://www.w3.org/XML/1998/namespace}lang')}, not {lang}")
    feed_id = need_one(root, "id", "feed")
    if feed_id is not None and not urlsplit(feed_id.text or "").scheme:
        problems.append(f"feed: id {feed_id.text!r} is not an absolute IRI")
    text_construct(need_one(root, "title", "feed"), "feed")
    updated = need_one(root, "updated", "feed")
    if updated is not None and not is_rfc3339(updated.text):
        problems.append(f"feed: updated {updated.text!r} is not an RFC 3339 date-time")
    links = {(link.get("rel", "alternate"), link.get("type"), link.get("hreflang")): link.get("href")
             for link in root.findall(f"{ATOM}link")}
    if len(links) != len(root.findall(f"{ATOM}link")):
        problems.append("feed: two links share rel, type and hreflang")
    if links.get(("self", None, None)) != f"{base_url}{lang}/feed.xml":
        problems.append(f"feed: rel=self is {links.get(('self', None, None))!r}, not its own address")
    if links.get(("alternate", "text/html", None)) != f"{base_url}{lang}/":
        problems.append("feed: no rel=alternate link to the language's home page")
    feed_has_author = bool(root.findall(f"{ATOM}author"))
    for author in root.findall(f"{ATOM}author"):
        need_one(author, "name", "feed author")
    ids = []
    entries = root.findall(f"{ATOM}entry")
    for number, entry in enumerate(entries, 1):
        where = f"entry {number}"
        entry_id = need_one(entry, "id", where)
        if entry_id is not None:
            ids.append(entry_id.text)
            if not urlsplit(entry_id.text or "").scheme:
                problems.append(f"{where}: id {entry_id.text!r} is not an absolute IRI")
        text_construct(need_one(entry, "title", where), where)
        entry_updated = need_one(entry, "updated", where)
        if entry_updated is not None:
            if not is_rfc3339(entry_updated.text):
                problems.append(f"{where}: updated {entry_updated.text!r} is not an RFC 3339 date-time")
            elif updated is not None and is_rfc3339(updated.text) and entry_updated.text > updated.text:
                problems.append(f"{where}: updated after the feed itself")
        for published in entry.findall(f"{ATOM}published"):
            if not is_rfc3339(published.text):
                problems.append(f"{where}: published {published.text!r} is not an RFC 3339 date-time")
        if not feed_has_author and not entry.findall(f"{ATOM}author"):
            problems.append(f"{where}: no author (nor one on the feed)")
        for author in entry.findall(f"{ATOM}author"):
            need_one(author, "name", f"{where} author")
        alternates = [link for link in entry.findall(f"{ATOM}link") if link.get("rel", "alternate") == "alternate"]
        if len(alternates) != 1 or not base_url_link(alternates[0].get("href"), base_url):
            problems.append(f"{where}: needs one rel=alternate link into the site")
        content = entry.find(f"{ATOM}content")
        if content is None:
            text_construct(need_one(entry, "summary", where), where)  # without content, a summary is required
        else:
            if content.get("type") != "html" or len(content):
                problems.append(f"{where}: <content> must be type=\"html\" holding escaped HTML, no child elements")
            body = content.text or ""
            if "<p>" not in body and "<p " not in body:
                problems.append(f"{where}: <content> does not hold the article's HTML")
            if re.search(r"&(?!(#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);)", body, re.I):
                problems.append(f"{where}: <content> HTML has a bare '&' (escaped once instead of twice?)")
    if len(set(ids)) != len(ids):
        problems.append(f"entry ids are not unique: {sorted(i for i in set(ids) if ids.count(i) > 1)}")
    return problems


def sitemap_problems(path: Path, base_url: str) -> list[str]:
    root = ET.parse(path).getroot()
    problems = [] if root.tag == f"{SITEMAP}urlset" else [f"root is {root.tag}, not a sitemap urlset"]
    locs = [url.findtext(f"{SITEMAP}loc") for url in root.findall(f"{SITEMAP}url")]
    if not locs:
        problems.append("the sitemap lists no page")
    if len(set(locs)) != len(locs):
        problems.append("a page is listed twice")
    for url in root.findall(f"{SITEMAP}url"):
        alternates = [link.get("hreflang") for link in url.findall(f"{XHTML}link")]
        if len(set(alternates)) != len(alternates):
            problems.append(f"{url.findtext(f'{SITEMAP}loc')}: an hreflang is given twice")
    return problems + [f"{loc} is not an absolute address under {base_url}" for loc in locs
                       if not base_url_link(loc, base_url)]


# --- external validators ----------------------------------------------------------------------------------------

NODE_MODULES = Path(__file__).resolve().parent / "node_modules"
VALIDATORS_REQUIRED = os.environ.get("SITE_BUILDER_REQUIRE_VALIDATORS") == "1"  # .ci/run sets it: no skip there
INSTALL_HINT = "run `npm ci` in tests/ (and install Java 17) or set SITE_BUILDER_REQUIRE_VALIDATORS=1 to fail instead"


def validator_file(relative: str) -> Path:
    """A file of an npm package under tests/node_modules; skips the test when it is missing, unless required."""
    path = NODE_MODULES / relative
    if not path.is_file():
        message = f"{path} is missing: {INSTALL_HINT}"
        if VALIDATORS_REQUIRED:
            pytest.fail(message)
        pytest.skip(message)
    return path


def java() -> str:
    found = shutil.which("java")
    if not found:
        message = f"java is not installed: {INSTALL_HINT}"
        if VALIDATORS_REQUIRED:
            pytest.fail(message)
        pytest.skip(message)
    return found


def wait_until(page, expression: str, timeout: float = PATIENCE) -> None:
    """Poll a JavaScript expression (or function) until it is truthy. Playwright's wait_for_function evaluates
    its predicate with eval once its first try fails, which the site's Content-Security-Policy blocks; a plain
    evaluate goes through the debugging protocol, which the policy does not govern."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        try:
            if page.evaluate(expression):
                return
        except Exception as error:  # the page is navigating (a reload): its context is gone for a moment
            if "context was destroyed" not in str(error) and "navigat" not in str(error):
                raise
        assert time.monotonic() < deadline, f"still false after {timeout} s: {expression}"
        page.wait_for_timeout(100)
