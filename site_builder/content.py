"""Articles: Markdown files with YAML front matter, one folder per language, grouped by `key`."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import os
import re
import unicodedata
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from slugify import slugify

from site_builder import cache, freshness, parallel, paths, safe_yaml, sources
from site_builder.errors import Collector, Problem, display_path, project_root
from site_builder.markup import Shortcode, render

# Parsing is linear now, but an article is prose: 30 times the longest shipped one is surely a mistake
# (pasted data or a log), and it would make a page no reader can load on a phone.
MAX_ARTICLE_BYTES = 512 * 1024
# C0 controls other than tab and newline, and DEL: invisible, and not allowed in XML 1.0.
CONTROL_CHARACTER = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Longest slug (a URL path segment); longer ones are refused with a hint to set `slug:`, rather than cut
# silently, because a truncated URL surprises a writer more than a clear error does.
SLUG_MAX_LENGTH = 80

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
    "round": (str, False),  # the round its figures, claims and charts are of (default: the site's main round)
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
    round: str | None = None  # front matter `round`: None is the site's main round
    charts: tuple[tuple[str, int], ...] = ()  # (chart id, line) of each {{< chart ID >}} shortcode
    shortcodes: tuple[Shortcode, ...] = ()  # every shortcode; the HTML has <!--sc:N--> for fig and claim
    body: str = field(default="", compare=False, repr=False)  # the Markdown, for `check` to read its prose
    body_line: int = 1  # line of the file where the body starts
    line_of: dict = field(default_factory=dict, compare=False, repr=False)  # front matter key -> line
    digest: str = field(default="", compare=False, repr=False)  # sha256 of the file's bytes: its page's inputs
    packed: bytes = field(default=b"", compare=False, repr=False)  # the HTML, compressed, in compact articles

    @property
    def path(self) -> str:
        return paths.article(self.lang, self.slug)

    # The output being made records each field it reads (see `freshness`): a list page depends on the titles
    # and dates it shows, an article page on the body too, and neither has to say so.
    def __getattribute__(self, name: str):
        if name in _FIELDS and freshness.recording():
            freshness.read(("article", object.__getattribute__(self, "source"), name),
                           lambda: self.field_digest(name))
        return object.__getattribute__(self, name)

    def __getstate__(self) -> dict:  # the digests taken by one build stay out of the cache and the workers
        state = dict(object.__getattribute__(self, "__dict__"))
        state.pop("_field_digests", None)
        return state

    def field_digest(self, name: str) -> str:
        # An article is frozen: each field's digest is taken once, though thousands of pages read it.
        memo = object.__getattribute__(self, "__dict__").setdefault("_field_digests", {})
        if name not in memo:
            memo[name] = freshness.digest(object.__getattribute__(self, name))
        return memo[name]

    def __identity__(self) -> tuple:  # in a planned page's key: the article's fields count as they are read
        return ("article", object.__getattribute__(self, "source"))


_FIELDS = frozenset(f.name for f in dataclasses.fields(Article))


def _nfc(value):
    """NFC-normalize every string in front matter, so equal-looking text compares equal."""
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, list):
        return [_nfc(v) for v in value]
    return value


class _DuplicateKeys:
    """Safe YAML that notes duplicate keys (PyYAML keeps the last one silently) with both lines."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[tuple[object, object, object]] = []  # (key, first mark, second mark)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node.start_mark)
                except TypeError:  # unhashable key: PyYAML reports it below
                    continue
                if first is not key_node.start_mark:
                    self.duplicates.append((key, first, key_node.start_mark))
        return super().construct_mapping(node, deep=deep)


# Bounded as claims.yaml is (site_builder/safe_yaml.py). libyaml's parser, when PyYAML was built with it, is
# about ten times faster; a text it refuses is parsed again by the pure-Python loader, whose messages are the
# ones reported.
_FrontMatterLoader = safe_yaml.loader_class(yaml.SafeLoader, _DuplicateKeys)
_FastLoader = safe_yaml.loader_class(yaml.CSafeLoader, _DuplicateKeys) if yaml.__with_libyaml__ else None


def parse_front_matter(text: str, first_line: int, shown: str, problems: Collector) -> tuple[dict, dict] | None:
    """YAML front matter (starting on file line `first_line`) -> (mapping, key -> line), or None after
    reporting why not. Never raises: every YAML or value error becomes a located problem."""
    def line_of(mark) -> int:  # YAML also breaks lines at U+0085, U+2028 and U+2029: count "\n" only
        return first_line + text.count("\n", 0, mark.index)

    if _FastLoader is not None:
        parsed = _parse_fast(text, line_of)
        if parsed is not None:
            return parsed
    try:
        loader = _FrontMatterLoader(text)
    except yaml.reader.ReaderError as exc:  # a control character: PyYAML checks the whole text first
        line = first_line + text.count("\n", 0, exc.position)
        problems.error(f"invalid YAML front matter: character U+{exc.character:04X} is not allowed", shown, line)
        return None
    try:
        node = safe_yaml.single_node(loader)
        if node is not None and not isinstance(node, yaml.MappingNode):
            problems.error("front matter must be a mapping of keys to values", shown, first_line)
            return None
        meta = loader.construct_document(node) if node is not None else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = line_of(mark) if mark is not None else first_line
        problems.error(f"invalid YAML front matter: {getattr(exc, 'problem', None) or exc}", shown, line)
        return None
    except RecursionError:
        problems.error("front matter is nested too deeply", shown, first_line)
        return None
    finally:
        loader.dispose()
    for key, first, second in loader.duplicates:
        problems.error(f"duplicate front matter key '{key}', first on line {line_of(first)}",
                       shown, line_of(second), hint="keep one of them")
    if loader.duplicates:
        return None
    key_lines = {}
    for key_node, _ in node.value if node is not None else ():
        key_lines.setdefault(str(key_node.value), line_of(key_node.start_mark))
    return meta, key_lines


def _parse_fast(text: str, line_of) -> tuple[dict, dict] | None:
    """The front matter through libyaml, or None when it has any problem (the slow path reports it)."""
    loader = _FastLoader(text)
    try:
        node = safe_yaml.single_node(loader)
        if node is None or not isinstance(node, yaml.MappingNode):
            return None
        meta = loader.construct_document(node)
    except (yaml.YAMLError, RecursionError, ValueError):
        return None
    finally:
        loader.dispose()
    if loader.duplicates:
        return None
    key_lines = {}
    for key_node, _ in node.value:
        key_lines.setdefault(str(key_node.value), line_of(key_node.start_mark))
    return meta, key_lines


def file_slug(stem: str) -> str:
    """Slug from a file name: transliterated to [a-z0-9-]; a name with no letters or digits at all
    (emoji, punctuation) gets a stable slug from its hash instead of none."""
    slug = slugify(stem)
    if not slug:
        slug = "article-" + hashlib.sha256(stem.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return slug


def split_front_matter(text: str) -> tuple[list[str], str, int] | None:
    """Return (front matter lines, body, line number of the body's first line), or None without front matter."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return None
    for end in range(1, len(lines)):
        if lines[end].rstrip() == "---":  # at the start of a line: an indented --- is YAML text
            return lines[1:end], "\n".join(lines[end + 1:]), end + 2
    return None


def load_article(path: Path, lang: str, problems: Collector, root: Path | None = None) -> Article | None:
    shown = sources.shown_path(path, root)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        problems.error(f"cannot read: {exc.strerror}", shown)
        return None
    if len(raw) > MAX_ARTICLE_BYTES:
        problems.error(f"article is {len(raw)} bytes; the limit is {MAX_ARTICLE_BYTES}", shown)
        return None
    text, problem = sources.decode_text(raw, shown)
    if problem is not None:
        problems.problems.append(problem)
        return None
    text = unicodedata.normalize("NFC", sources.normalize_newlines(text))
    controls = list(CONTROL_CHARACTER.finditer(text))
    for match in controls:  # XML (the feeds) forbids them, and no writer means one: name each
        line = text.count("\n", 0, match.start()) + 1
        col = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
        problems.error(f"control character U+{ord(match.group()):04X} in the text; remove it", shown, line, col)
    if controls:
        return None
    split = split_front_matter(text)
    if split is None:
        problems.error("no front matter: the file must start with a '---' line and close it with another",
                       shown, 1)
        return None
    front_lines, body, body_line = split
    count = len(problems.problems)
    parsed = parse_front_matter("\n".join(front_lines), 2, shown, problems)
    if parsed is None:
        return None
    meta, key_lines = parsed
    for key, value in meta.items():
        line = key_lines.get(str(key), 1)
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
        elif expected is str and not value.strip() and not (key == "summary" and meta.get("draft") is True):
            # A draft (`site-builder new article`) may wait for its summary; it is not published.
            problems.error(f"front matter '{key}' is empty", shown, line)
        elif any(isinstance(text, str) and "{{<" in text for text in (value if isinstance(value, list) else [value])):
            # Front matter is shown as it is (titles, feeds, <meta>): a shortcode would be published as typed.
            source = front_lines[line - 2] if 2 <= line < len(front_lines) + 2 else ""
            problems.error(f"a shortcode in front matter '{key}' is not run; shortcodes go in the article body only",
                           shown, line, source.find("{{<") + 1 if "{{<" in source else None)
    for key, (_, required) in FRONT_MATTER.items():
        if required and key not in meta:
            problems.error(f"missing front matter key '{key}'", shown, 1)
    if len(problems.problems) > count:
        return None
    meta = {key: _nfc(value) for key, value in meta.items()}
    slug_line = key_lines.get("slug", 1)
    if "slug" in meta:
        slug = slugify(meta["slug"])
        if not slug:
            problems.error(f"front matter 'slug' {meta['slug']!r} has no letters or digits to make a URL from",
                           shown, slug_line)
            return None
    else:
        slug = file_slug(path.stem)
    if len(slug) > SLUG_MAX_LENGTH:
        origin = "front matter 'slug'" if "slug" in meta else "the file name"
        problems.error(f"the slug from {origin} is {len(slug)} characters; the limit is {SLUG_MAX_LENGTH}",
                       shown, slug_line, hint="set a shorter 'slug:' in the front matter")
        return None
    content_hash = hashlib.sha256("\n".join([meta["title"], meta["summary"], body.strip()]).encode()).hexdigest()[:12]
    try:
        rendered = render(body, body_line, shown, problems)  # the whole article is cached (_ArticleBook)
    except RecursionError:
        problems.error("Markdown is nested too deeply to render", shown, body_line)
        return None
    if len(problems.problems) > count:
        return None
    return Article(lang=lang, key=meta["key"], slug=slug, title=meta["title"], date=meta["date"],
                   summary=meta["summary"], authors=tuple(meta["authors"]), tags=tuple(meta["tags"]),
                   html=rendered.html, source=shown, content_hash=content_hash, draft=bool(meta.get("draft", False)),
                   translation_of=meta.get("translation_of"), source_hash=meta.get("source_hash"), round=meta.get("round"),
                   charts=rendered.charts, shortcodes=rendered.shortcodes, body=body, body_line=body_line,
                   line_of={key: key_lines.get(key, 1) for key in meta}, digest=hashlib.sha256(raw).hexdigest())


MARKDOWN_LIBRARIES = ("markdown-it-py", "mdit-py-plugins", "linkify-it-py", "nh3")


def _packed(article: Article) -> Article:
    return dataclasses.replace(article, html="", packed=zlib.compress(article.html.encode("utf-8"), 1))


def _unpacked(article: Article) -> Article:
    return dataclasses.replace(article, html=html_of(article), packed=b"")


def html_of(article: Article) -> str:
    """The article's HTML, compact or not."""
    return zlib.decompress(article.packed).decode("utf-8") if article.packed else article.html


class _ArticleBook:
    """The articles of one content folder as the last build read them, in one cache entry (one file to read on
    an edit, not thousands): file key (its bytes, name, language and the Markdown libraries) -> (the Article
    without its Markdown, the Markdown compressed: a build holds thousands and reads none). An article with any
    problem is never kept, so its problems are reported on every build."""

    def __init__(self, content_dir: Path) -> None:
        self.entry = cache.key("articles", os.path.realpath(content_dir))
        found = cache.load("articles", self.entry)
        self.known: dict[str, tuple[Article, bytes]] = found if isinstance(found, dict) else {}
        self.kept: dict[str, tuple[Article, bytes]] = {}
        self.libraries = cache.versions("pyyaml", *MARKDOWN_LIBRARIES)  # once, not per article

    def key(self, path: Path, lang: str, root: Path | None) -> str | None:
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        return cache.key("packed article", self.libraries, raw, path.name, lang, sources.shown_path(path, root))

    def get(self, key: str | None, compact: bool) -> Article | None:
        """The article the book holds for `key`, with its Markdown unless `compact`."""
        found = self.known.get(key) if key is not None else None
        if not (isinstance(found, tuple) and len(found) == 2 and isinstance(found[0], Article)):
            return None
        article, body = found
        return article if compact else dataclasses.replace(article, body=zlib.decompress(body).decode("utf-8"))

    def keep(self, key: str | None, made: Article | None, problems: list[Problem]) -> None:
        """Keep the article of `key`: `made` from its file, or (None) the one the book holds."""
        if key is None or problems:
            return
        if made is None:
            self.kept[key] = self.known[key]
        else:
            self.kept[key] = (dataclasses.replace(made, body=""), zlib.compress(made.body.encode("utf-8"), 1))

    def save(self) -> None:
        """Keep this build's articles (only those: removed files leave the book) when they changed."""
        if self.kept.keys() != self.known.keys():
            cache.save("articles", self.entry, self.kept)


def _load_one(shared: tuple[Path | None, Callable | None],
              task: tuple[Path, str]) -> tuple[Article | None, list[Problem]]:
    """One article and its problems (a task of `parallel.run`: the problems travel back with it)."""
    root, also = shared
    path, lang = task
    found = Collector()
    article = load_article(path, lang, found, root)
    if also is not None and article is not None and not found.problems and not article.draft:
        also(article)
    return (_packed(article) if article else None), found.problems


def load_articles(content_dir: Path, languages: tuple[str, ...], root: Path | None = None,
                  warnings: list[Problem] | None = None, jobs: int = 1, compact: bool = False,
                  also: Callable[[Article], None] | None = None) -> list[Article]:
    """Every non-draft article of every language, sorted; all problems reported together. `compact` articles
    (for a build, which holds thousands) leave out their Markdown (`check` reads it) and keep their HTML
    compressed: read it with `html_of`. `also` is called on each article read from its file (not from the
    cache), in the worker that read it (the build draws its card there).

    Notes and warnings (ignored files, a folder of a language the site does not build) are appended
    to `warnings` when given; they never fail the build by themselves. The files are read and rendered
    in `jobs` processes; problems come out in file order whatever `jobs` is.
    """
    problems = Collector()
    notes: list[Problem] = warnings if warnings is not None else []
    bases = [base for base in (root if root is not None else project_root(), content_dir) if base is not None]
    articles: list[Article] = []
    _note_unknown_folders(content_dir, languages, root, notes)
    steps: list[tuple[str, object]] = []  # ("language", code), ("problem", Problem) or ("load", (path, code))
    for lang in languages:
        folder = content_dir / lang
        if not folder.is_dir():  # a language added before its articles: the lists show the others' (--strict: error)
            steps.append(("problem", Problem(f"no content folder for language '{lang}': its pages list the other "
                                             "languages' articles", display_path(folder, root),
                                             hint=f"write its articles in {display_path(folder, root)}/",
                                             severity="warning")))
            continue
        try:
            entries = sorted(folder.iterdir())
        except OSError as exc:
            steps.append(("problem", Problem(f"cannot list the folder: {exc.strerror}", display_path(folder, root))))
            continue
        steps.append(("language", lang))
        for path in entries:
            skipped = sources.check_entry(path, sources.shown_path(path, root), bases, ".md")
            steps.append(("problem", skipped) if skipped is not None else ("load", (path, lang)))
    tasks = [value for kind, value in steps if kind == "load"]
    book = _ArticleBook(content_dir)
    file_keys = [book.key(path, lang, root) for path, lang in tasks]
    known = [book.get(key, compact) for key in file_keys]
    made = iter(parallel.run(_load_one, [task for task, found in zip(tasks, known) if found is None], jobs,
                             (root, also)))
    loaded = [(found, []) if found is not None else next(made) for found in known]
    for key, found, (article, its_problems) in zip(file_keys, known, loaded):
        if article is not None:
            book.keep(key, article if found is None else None, its_problems)
    book.save()
    del book  # its entry (every Markdown, compressed) goes before this build's copies of the articles are made
    # Articles are loaded (and cached) with their HTML compressed: a build keeps them so, without the Markdown.
    finish = (lambda a: a if not a.body else dataclasses.replace(a, body="")) if compact else _unpacked
    loaded = iter([(finish(article) if article else article, found) for article, found in loaded])
    seen: dict[str, Article] = {}
    keys: dict[str, Article] = {}
    for kind, value in steps:
        if kind == "language":
            seen, keys = {}, {}
            continue
        if kind == "problem":
            (notes if value.severity != "error" else problems.problems).append(value)
            continue
        article, found = next(loaded)
        problems.problems += found
        if article is None or article.draft:
            continue
        if article.slug in seen:
            first = seen[article.slug]
            problems.error(f"slug '{article.slug}' is also the slug of {first.source}:{first.line_of.get('slug', 1)}",
                           article.source, article.line_of.get("slug", 1),
                           hint="set a different 'slug' in the front matter")
            continue
        if article.key in keys:
            first = keys[article.key]
            problems.error(f"key '{article.key}' is also the key of {first.source}:{first.line_of.get('key', 1)}; "
                           "a language has one article per key", article.source, article.line_of.get("key", 1))
            continue
        seen[article.slug] = keys[article.key] = article
        articles.append(article)
    _check_translation_links(articles, languages, problems)
    problems.raise_if_any()
    return sorted(articles, key=lambda a: (a.lang, -a.date.toordinal(), a.slug))


def _note_unknown_folders(content_dir: Path, languages: tuple[str, ...], root: Path | None,
                          notes: list[Problem]) -> None:
    """content/ holds one folder per language of site.toml; anything else is ignored, and said so."""
    if not content_dir.is_dir():
        return
    for path in sorted(content_dir.iterdir()):
        shown = sources.shown_path(path, root)
        if path.name in languages:
            continue
        if sources.is_editor_leftover(path.name):
            notes.append(Problem("editor or hidden file; ignored", shown, severity="note"))
        elif path.is_dir():
            notes.append(Problem(f"folder of language '{path.name}', which is not in 'languages' of site.toml; "
                                 "its articles are not built", shown, severity="warning",
                                 hint=f"add '{path.name}' to 'languages' (and a [title]) or move the folder away"))
        else:
            notes.append(Problem("not a language folder; ignored", shown, severity="note"))


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
