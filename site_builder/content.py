"""Articles: Markdown files with YAML front matter, one folder per language, grouped by `key`."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from slugify import slugify

from site_builder.errors import Collector, display_path
from site_builder.markup import CHART_MARKER, Shortcode, render, render_markdown  # noqa: F401 (re-exported)

# Parsing is linear now, but an article is prose: 30 times the longest shipped one is surely a mistake
# (pasted data or a log), and it would make a page no reader can load on a phone.
MAX_ARTICLE_BYTES = 512 * 1024

# Front matter key -> (accepted types, required).
FRONT_MATTER = {
    "title": (str, True),
    "date": (dt.date, True),
    "summary": (str, True),
    "authors": (list, True),
    "tags": (list, True),
    "key": (str, True),
    "slug": (str, False),
    "draft": (bool, False),
    "translation_of": (str, False),  # language of the article this one translates
    "source_hash": (str, False),  # that article's content_hash when it was translated
}


@dataclass(frozen=True)
class Article:
    lang: str
    key: str
    slug: str
    title: str
    date: dt.date
    summary: str
    authors: tuple[str, ...]
    tags: tuple[str, ...]
    html: str
    source: str
    content_hash: str  # of title, summary and body: tells translators when the source changed
    draft: bool = False
    translation_of: str | None = None
    source_hash: str | None = None
    charts: tuple[tuple[str, int], ...] = ()  # (chart id, line) of each {{< chart ID >}} shortcode
    shortcodes: tuple[Shortcode, ...] = ()  # every shortcode; the HTML has <!--sc:N--> for fig and claim
    body: str = field(default="", compare=False, repr=False)  # the Markdown, for `check` to read its prose
    body_line: int = 1  # line of the file where the body starts
    line_of: dict = field(default_factory=dict, compare=False, repr=False)  # front matter key -> line

    @property
    def path(self) -> str:
        return f"{self.lang}/articles/{self.slug}/index.html"


def _nfc(value):
    """NFC-normalize every string in front matter, so equal-looking text compares equal."""
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, list):
        return [_nfc(v) for v in value]
    return value


def _key_line(front_lines: list[str], key: str, first_line: int) -> int:
    for offset, line in enumerate(front_lines):
        if re.match(rf"^{re.escape(key)}\s*:", line):
            return first_line + offset
    return first_line - 1


def split_front_matter(text: str) -> tuple[list[str], str, int] | None:
    """Return (front matter lines, body, line number of the body's first line), or None without front matter."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return None
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            return lines[1:end], "\n".join(lines[end + 1:]), end + 2
    return None


def load_article(path: Path, lang: str, problems: Collector, root: Path | None = None) -> Article | None:
    shown = display_path(path, root)
    raw = path.read_bytes()
    if len(raw) > MAX_ARTICLE_BYTES:
        problems.error(f"article is {len(raw)} bytes; the limit is {MAX_ARTICLE_BYTES}", shown)
        return None
    try:
        text = unicodedata.normalize("NFC", raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        problems.error(f"not UTF-8: {exc.reason} at byte {exc.start}", shown)
        return None
    text = text.replace("\r\n", "\n")
    split = split_front_matter(text)
    if split is None:
        problems.error("no front matter: the file must start with a '---' line and close it with another",
                       shown, 1)
        return None
    front_lines, body, body_line = split
    try:
        meta = yaml.safe_load("\n".join(front_lines)) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        problems.error(f"invalid YAML front matter: {getattr(exc, 'problem', exc)}", shown, line)
        return None
    if not isinstance(meta, dict):
        problems.error("front matter must be a mapping of keys to values", shown, 2)
        return None
    count = len(problems.problems)
    for key, value in meta.items():
        line = _key_line(front_lines, str(key), 2)
        if key not in FRONT_MATTER:
            problems.error(f"unknown front matter key '{key}'", shown, line,
                           hint="known keys: " + ", ".join(FRONT_MATTER))
            continue
        expected = FRONT_MATTER[key][0]
        if expected is dt.date and isinstance(value, dt.datetime):
            value = meta[key] = value.date()
        if not isinstance(value, expected) or (expected is list and not all(isinstance(v, str) for v in value)):
            wanted = {"date": "a date (YYYY-MM-DD)", "list": "a list of strings"}.get(
                "date" if expected is dt.date else expected.__name__, f"a {expected.__name__}")
            problems.error(f"front matter '{key}' must be {wanted}", shown, line)
        elif expected is str and not value.strip():
            problems.error(f"front matter '{key}' is empty", shown, line)
    for key, (_, required) in FRONT_MATTER.items():
        if required and key not in meta:
            problems.error(f"missing front matter key '{key}'", shown, 1)
    if len(problems.problems) > count:
        return None
    meta = {key: _nfc(value) for key, value in meta.items()}
    slug = slugify(meta.get("slug") or path.stem)
    if not slug:
        problems.error("the article's slug is empty after transliteration", shown, _key_line(front_lines, "slug", 2))
        return None
    content_hash = hashlib.sha256("\n".join([meta["title"], meta["summary"], body.strip()]).encode()).hexdigest()[:12]
    try:
        rendered = render(body, body_line, shown, problems)
    except RecursionError:
        problems.error("Markdown is nested too deeply to render", shown, body_line)
        return None
    if len(problems.problems) > count:
        return None
    return Article(lang=lang, key=meta["key"], slug=slug, title=meta["title"], date=meta["date"],
                   summary=meta["summary"], authors=tuple(meta["authors"]), tags=tuple(meta["tags"]),
                   html=rendered.html, source=shown, content_hash=content_hash, draft=bool(meta.get("draft", False)),
                   translation_of=meta.get("translation_of"), source_hash=meta.get("source_hash"),
                   charts=rendered.charts, shortcodes=rendered.shortcodes, body=body, body_line=body_line,
                   line_of={key: _key_line(front_lines, key, 2) for key in meta})


def load_articles(content_dir: Path, languages: tuple[str, ...], root: Path | None = None) -> list[Article]:
    """Every non-draft article of every language, sorted; all problems reported together."""
    problems = Collector()
    articles: list[Article] = []
    for lang in languages:
        folder = content_dir / lang
        if not folder.is_dir():
            problems.error(f"missing content folder for language '{lang}'", display_path(folder, root))
            continue
        seen: dict[str, Article] = {}
        keys: dict[str, Article] = {}
        for path in sorted(folder.glob("*.md")):
            article = load_article(path, lang, problems, root)
            if article is None or article.draft:
                continue
            if article.slug in seen:
                problems.error(f"slug '{article.slug}' is also the slug of {seen[article.slug].source}",
                               article.source, hint="set a different 'slug' in the front matter")
                continue
            if article.key in keys:
                problems.error(f"key '{article.key}' is also the key of {keys[article.key].source}; "
                               "a language has one article per key", article.source)
                continue
            seen[article.slug] = keys[article.key] = article
            articles.append(article)
    _check_translation_links(articles, languages, problems)
    problems.raise_if_any()
    return sorted(articles, key=lambda a: (a.lang, -a.date.toordinal(), a.slug))


def _check_translation_links(articles: list[Article], languages: tuple[str, ...], problems: Collector) -> None:
    by_key = {(a.lang, a.key) for a in articles}
    for article in articles:
        if article.source_hash and not article.translation_of:
            problems.error("'source_hash' needs 'translation_of' (the language of the source article)",
                           article.source, article.line_of.get("source_hash"))
        if article.source_hash and not re.fullmatch(r"[0-9a-f]{12}", article.source_hash):
            problems.error(f"'source_hash' {article.source_hash!r} is not a content hash (12 hex digits; "
                           "`site-builder check` prints the current one)", article.source,
                           article.line_of.get("source_hash"))
        if article.translation_of is None:
            continue
        line = article.line_of.get("translation_of")
        if article.translation_of == article.lang or article.translation_of not in languages:
            problems.error(f"'translation_of' {article.translation_of!r} is not another language of the site",
                           article.source, line)
        elif (article.translation_of, article.key) not in by_key:
            problems.error(f"'translation_of' names {article.translation_of!r}, which has no article with key "
                           f"'{article.key}'", article.source, line)


def translations_of(article: Article, articles: list[Article]) -> list[Article]:
    """The same article in the other languages (same key)."""
    return [other for other in articles if other.key == article.key and other.lang != article.lang]
