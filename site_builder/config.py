"""Site configuration: `site.toml` read against a declared schema into a frozen `SiteConfig`."""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from site_builder.errors import Collector, Problem, SiteError
from site_builder.sources import decode_text
from site_builder.theme import Theme, theme_for

CONFIG_FILE = "site.toml"


@dataclass(frozen=True)
class SiteConfig:
    root: Path
    """Project directory holding site.toml; every other directory is relative to it."""
    title: dict[str, str]
    """Site title per language code, shown in page headers, feeds and the chooser page."""
    languages: tuple[str, ...]
    """Language codes to build (BCP 47 / CLDR, e.g. "en", "nl"); each has content/<lang>/."""
    default_language: str
    """The language of the x-default pages; must be one of `languages`."""
    base_url: str
    """Absolute URL the site is served from (ends with "/"); used only where the web needs
    absolute URLs: sitemap, feeds, canonical links, the 404 page."""
    round: str
    """The MLPerf round the site reports on: its folder in data/rounds/, "v" and two numbers."""
    previous_round: str | None
    """The round to compare against, in the same form; optional: without it the site has no round-over-round
    comparisons."""
    content_dir: Path
    data_dir: Path
    templates_dir: Path
    """The project's own templates (and templates/assets/), each overriding the packaged theme's file of that
    name; optional."""
    locales_dir: Path
    """The project's own catalogs, read before the packaged theme's, message by message; optional."""
    charts_dir: Path = Path("charts")
    """The project's own charts: Python modules declaring charts with `@chart` (README, "Add a chart");
    optional."""
    archive: bool = True
    """Every round in data/rounds/ gets its section (an archive); `archive = false` reads only `round` and
    `previous_round`."""
    search: bool = True
    """A search page per language, with an index made by Pagefind (the `pagefind` package, its binary
    included); `search = false` builds the site without them, and without needing Pagefind."""

    def __identity__(self) -> tuple:  # in a planned page's key: site.toml is among the site's inputs (`uptodate`)
        return ("config",)

    @property
    def rounds(self) -> list[str]:
        """The round, then the round it is compared with when there is one."""
        return [self.round] + ([self.previous_round] if self.previous_round else [])

    # Each read once per loaded config (a build loads its own): templates ask for them on every page, and each
    # answer lists data/rounds/.
    @functools.cached_property
    def compared_round(self) -> str | None:
        """The round the main round is compared with: `previous_round`, else the one before it in data/rounds/
        (with or without the archive: a round's claims and articles compare with it)."""
        from site_builder.rounds import discover_rounds, previous_of

        return self.previous_round or previous_of(discover_rounds(self.data_dir), self.round)

    @functools.cached_property
    def site_rounds(self) -> list[str]:
        """Every round the site has a section for, oldest first: with `archive`, each round folder holding
        results; without, the main round and the one it is compared with (a configured round the data lacks is
        reported by the data stage)."""
        from site_builder.rounds import discover_rounds, round_order

        found = discover_rounds(self.data_dir) if self.archive else []
        compared = [self.compared_round] if self.compared_round else []
        return sorted(set(found) | set(self.rounds) | set(compared), key=round_order)

    @property
    def theme(self) -> Theme:
        """Templates, assets and catalogs: the project's own folders first, then the packaged theme."""
        return theme_for(self.templates_dir, self.locales_dir)

    @property
    def base_url_is_placeholder(self) -> bool:
        """True while the base URL names no public deployment (example.org, localhost, a reserved test name):
        pages say so where they print it (embed code, citation)."""
        return is_placeholder_url(self.base_url)

    @property
    def base_path_is_known(self) -> bool:
        """False for a documentation name (example.org, *.test): its path says nothing about where the site is
        served. A local address (the preview server's) is where the site is served."""
        return not _DOCUMENTATION_HOST.match(urlsplit(self.base_url).hostname or "")


# Names that can never be where a site is published: RFC 2606 documentation names, and local addresses.
_DOCUMENTATION_HOST = re.compile(r"^(?:[\w-]+\.)*(?:example\.(?:org|com|net)|example|test|invalid)$", re.IGNORECASE)
_LOCAL_HOST = re.compile(r"^(?:[\w-]+\.)*localhost$|^127\.\d+\.\d+\.\d+$|^::1$", re.IGNORECASE)


def is_placeholder_url(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    return bool(_DOCUMENTATION_HOST.match(host) or _LOCAL_HOST.match(host))


def placeholder_base_url_problem(config: SiteConfig, override: str | None = None) -> Problem | None:
    """A warning (an error with --strict) while the base URL is a placeholder, at site.toml's line or naming
    the --base-url option."""
    if not config.base_url_is_placeholder:
        return None
    if override is not None and config.base_path_is_known:  # a deliberate local build (the preview server's)
        return None
    message = f"base URL {config.base_url} is a placeholder: feeds, the sitemap, canonical links and embed codes " \
              f"will point to it, and the 404 page, not knowing the site's path, finds its styles and links only " \
              f"at the site's top level"
    hint = "set base_url to the address the site is published at, or pass --base-url"
    if override is not None:
        return Problem(message + " (from --base-url)", hint="pass the address the site is published at",
                       severity="warning")
    path = config.root / CONFIG_FILE
    try:
        line = _line_of(decode_text(path.read_bytes(), CONFIG_FILE)[0] or "", "base_url")
    except OSError:
        line = None
    return Problem(message, CONFIG_FILE, line, hint=hint, severity="warning")


# name -> (python type, required, description); types are checked before conversion.
_SCHEMA: dict[str, tuple[type, bool, str]] = {
    "title": (dict, True, "site title per language"),
    "languages": (list, True, "language codes to build"),
    "default_language": (str, True, "language of the x-default pages"),
    "base_url": (str, True, "absolute URL the site is served from"),
    "round": (str, True, "the round reported on"),
    "previous_round": (str, False, "the round compared against (optional)"),
    "content_dir": (str, False, "folder of Markdown articles (default: content)"),
    "data_dir": (str, False, "folder of CSV data (default: data)"),
    "templates_dir": (str, False, "folder of Jinja2 templates (default: templates)"),
    "locales_dir": (str, False, "folder of gettext catalogs (default: locales)"),
    "charts_dir": (str, False, "folder of the project's chart modules (default: charts)"),
    "search": (bool, False, "a search page per language, indexed by Pagefind (default: true)"),
    "archive": (bool, False, "a section for every round in data/rounds (default: true)"),
}
_DEFAULT_DIRS = {"content_dir": "content", "data_dir": "data",
                 "templates_dir": "templates", "locales_dir": "locales", "charts_dir": "charts"}
_LANG_CODE = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")
_ROUND = re.compile(r"^v\d+\.\d+$")


def _line_of(text: str, key: str, table: str | None = None) -> int | None:
    """Line number of `key = ...` (inside `[table]` when given); tomllib keeps no positions."""
    current = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        header = re.match(r"^\[([^\[\]]+)\]\s*(#.*)?$", stripped)
        if header:
            current = header.group(1).strip().strip('"')
            if (table is None and current == key) or (table is not None and current == f"{table}.{key}"):
                return number
            continue
        if current == table and re.match(rf'^["\']?{re.escape(key)}["\']?\s*=', stripped):
            return number
    return None


def _item_line(text: str, key: str, item: str) -> int | None:
    """Line of one item of a (possibly multi-line) array: the first line from `key`'s on quoting it."""
    start = _line_of(text, key)
    if start is None:
        return None
    lines = text.splitlines()
    for number in range(start, len(lines) + 1):
        if re.search(rf"""["']{re.escape(item)}["']""", lines[number - 1]):
            return number
        if number > start and re.match(r"^\s*(\[|[\w\"'-]+\s*=)", lines[number - 1]):
            break
    return start


def _bad_character(text: str) -> str | None:
    """The first control character or Unicode noncharacter (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF) of a text, as
    U+XXXX: TOML's escapes let them into a title, and a chart renderer (vl-convert) panics on U+FFFE."""
    for char in text:
        code = ord(char)
        if code < 0x20 or 0x7F <= code < 0xA0 or 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE:
            return f"U+{code:04X}"
    return None


def _check_characters(raw: dict, text: str, problems: Collector, shown: str) -> None:
    """Every text of site.toml (a value, a list item, a value of a table) is free of `_bad_character`s."""
    for key, value in raw.items():
        items = value.items() if isinstance(value, dict) else [(None, v) for v in (value if isinstance(value, list)
                                                                                   else [value])]
        for inner, item in items:
            bad = _bad_character(item) if isinstance(item, str) else None
            if bad:
                name = f"{key}.{inner}" if inner is not None else key
                line = _line_of(text, inner, key) if inner is not None else _line_of(text, key)
                problems.error(f"'{name}' holds the character {bad}, a control character or a Unicode "
                               "noncharacter", CONFIG_FILE, line)


def _known_to_babel(code: str) -> str | None:
    """Why Babel cannot format dates and numbers for `code`, or None when it can."""
    from babel import Locale, UnknownLocaleError

    try:
        Locale.parse(code.replace("-", "_"))
    except (UnknownLocaleError, ValueError) as exc:
        return str(exc)
    return None


def load_config(root: Path, base_url: str | None = None) -> SiteConfig:
    """Read `root/site.toml`; every unknown key, wrong type or bad value is reported together."""
    path = root / CONFIG_FILE
    shown = CONFIG_FILE
    try:
        raw_bytes = path.read_bytes()
    except FileNotFoundError:
        raise SiteError(Problem(f"no {CONFIG_FILE} in {root}", hint="run site-builder in the project folder "
                                "or pass --root")) from None
    except OSError as exc:
        raise SiteError(Problem(f"cannot read {CONFIG_FILE}: {exc.strerror}", shown)) from None
    text, problem = decode_text(raw_bytes, shown)
    if problem is not None:
        raise SiteError(problem)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line, col = (int(match.group(1)), int(match.group(2))) if match else (None, None)
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise SiteError(Problem(f"invalid TOML: {message}", shown, line, col)) from None

    # Every check runs on every key whose type is right, so one run reports every problem.
    problems = Collector()
    valid: dict[str, object] = {}
    for key, value in raw.items():
        if key not in _SCHEMA:
            problems.error(f"unknown key '{key}'", shown, _line_of(text, key),
                           hint="known keys: " + ", ".join(sorted(_SCHEMA)))
            continue
        expected = _SCHEMA[key][0]
        if not isinstance(value, expected):
            problems.error(f"'{key}' must be a {expected.__name__}, not {type(value).__name__}",
                           shown, _line_of(text, key))
            continue
        valid[key] = value
    _check_characters(valid, text, problems, shown)
    for key, (_, required, description) in _SCHEMA.items():
        if required and key not in raw:
            problems.error(f"missing required key '{key}' ({description})", shown, 1)

    languages = [lang for lang in valid.get("languages", []) if isinstance(lang, str)]
    for lang in valid.get("languages", []):
        if not isinstance(lang, str) or not _LANG_CODE.match(lang):
            problems.error(f"'languages' holds {lang!r}, which is not a language code",
                           shown, _item_line(text, "languages", str(lang)))
            continue
        unknown = _known_to_babel(lang)
        if unknown:
            problems.error(f"'languages' holds '{lang}', a language Babel has no locale data for ({unknown})",
                           shown, _item_line(text, "languages", lang),
                           hint="use a CLDR language code such as 'nl', 'pt-BR' or 'zh-Hant'")
    if "languages" in valid and not languages:
        problems.error("'languages' is empty", shown, _line_of(text, "languages"))
    if len(set(languages)) != len(languages):
        problems.error("'languages' lists a language twice", shown, _line_of(text, "languages"))
    if "default_language" in valid and "languages" in valid and valid["default_language"] not in languages:
        problems.error(f"'default_language' {valid['default_language']!r} is not in 'languages'",
                       shown, _line_of(text, "default_language"))
    for key in ("round", "previous_round"):
        if key in valid and not _ROUND.match(valid[key]):
            problems.error(f"'{key}' must be 'v' and two numbers (like v2.3), not {valid[key]!r}", shown,
                           _line_of(text, key))
    if "round" in valid and valid.get("previous_round") == valid["round"]:
        problems.error(f"'previous_round' is the same round as 'round' ({valid['round']}); "
                       "a round cannot be compared with itself", shown, _line_of(text, "previous_round"))
    for lang, title in valid.get("title", {}).items():
        if "languages" in valid and lang not in languages:
            problems.error(f"unknown key '{lang}' in [title]: not one of 'languages'",
                           shown, _line_of(text, lang, "title"))
        elif not isinstance(title, str):
            problems.error(f"title.{lang} must be a str, not {type(title).__name__}",
                           shown, _line_of(text, lang, "title"))
        elif not title.strip():
            problems.error(f"title.{lang} is empty", shown, _line_of(text, lang, "title"))
    if "title" in valid:
        for lang in languages:
            if lang not in valid["title"]:
                problems.error(f"[title] has no title for language '{lang}'", shown, _line_of(text, "title"))
    for key in _DEFAULT_DIRS:
        if key in valid and not valid[key].strip():
            problems.error(f"'{key}' is empty", shown, _line_of(text, key))
        elif key in ("templates_dir", "locales_dir", "charts_dir") and key in valid and not (root / valid[key]).is_dir():
            problems.error(f"'{key}' names {valid[key]!r}, which is not a folder", shown, _line_of(text, key),
                           hint=f"remove '{key}' to use the packaged theme alone, or create the folder")

    url = base_url if base_url is not None else valid.get("base_url")
    if url is not None and not re.match(r"^https?://[^/\s]+(/\S*)?$", url):
        problems.error(f"base URL {url!r} must be an absolute http(s) URL",
                       None if base_url is not None else shown,
                       None if base_url is not None else _line_of(text, "base_url"))
    problems.raise_if_any()
    if not url.endswith("/"):
        url += "/"

    dirs = {key: root / raw.get(key, default) for key, default in _DEFAULT_DIRS.items()}
    return SiteConfig(
        root=root,
        title=dict(raw["title"]),
        languages=tuple(languages),
        default_language=raw["default_language"],
        base_url=url,
        round=raw["round"],
        previous_round=raw.get("previous_round"),
        search=raw.get("search", True),
        archive=raw.get("archive", True),
        **dirs,
    )
