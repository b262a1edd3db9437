"""Whole-site checks shared by the tests: links, resources and hreflang, read from the built HTML."""

from __future__ import annotations

import posixpath
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class PageScan(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.alternates: dict[str, str] = {}
        self.html_lang: str | None = None
        self.base: str | None = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "html":
            self.html_lang = attributes.get("lang")
        if tag == "base":
            self.base = attributes.get("href")
        if tag == "link" and attributes.get("rel") == "alternate" and attributes.get("hreflang"):
            self.alternates[attributes["hreflang"]] = attributes["href"]
        for name in ("href", "src"):
            if attributes.get(name) is not None:
                self.links.append((tag, name, attributes[name]))
        if tag == "link":
            self.links[-1:] = [(f"link[{attributes.get('rel')}]", n, v) for (_, n, v) in self.links[-1:]]


def scan(path: Path) -> PageScan:
    parser = PageScan()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def html_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def broken_links(site: Path) -> list[str]:
    """Every relative href/src that does not resolve to a file (or an anchor on the target page)."""
    problems = []
    for page in html_pages(site):
        relative_page = page.relative_to(site).as_posix()
        parsed = scan(page)
        for tag, _, value in parsed.links:
            parts = urlsplit(value)
            if parts.scheme or value.startswith("//") or value.startswith("#") or value.startswith("mailto:"):
                continue
            if parsed.base:  # the 404 page resolves links against the site's base URL
                start = ""
            else:
                start = posixpath.dirname(relative_page)
            target = posixpath.normpath(posixpath.join(start, unquote(parts.path)))
            if target.startswith("..") or not (site / target).is_file():
                problems.append(f"{relative_page}: {tag} -> {value}")
    return problems


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
