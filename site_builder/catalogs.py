"""The translation workflow of a project: `site-builder extract`, `update` and `check --catalogs`.

Babel's extract and update, wrapped for a project (pybabel's steps, without its command line):

- `extract` collects the msgids of the project's own templates (`templates/**.html`, `**.xml`) and chart
  modules (`charts/**.py`, keywords `_`, `gettext`, `ngettext`) into the project's `locales/messages.pot`.
  The packaged theme's msgids are not in it: they are in `site_builder/theme/locales/messages.pot`.
- `update` makes `locales/<lang>/LC_MESSAGES/messages.po` for each site language (created when missing,
  updated otherwise, without fuzzy matching). A project catalog is read before the packaged one, message by
  message, and an empty msgstr means "not translated here" (the packaged translation, else English, is
  shown). So a project catalog holds what that language needs beyond the package: the project's own msgids,
  the packaged msgids the package does not translate into that language (all of them for a language the
  package lacks, such as `de`; none for `nl`), and the packaged msgids it already translates itself (a
  project's own wording, kept). A language the package translates is not filled with hundreds of empty
  entries that would only look like work to do.
- English catalogs (`en`, `en-*`) get each new msgid as its own translation, as the packaged one has: the
  msgids are English.
"""

from __future__ import annotations

import datetime as dt
import io
import os
from dataclasses import dataclass
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from site_builder import __version__
from site_builder.config import SiteConfig
from site_builder.errors import Collector, Problem, SiteError, display_path
from site_builder.i18n import DOMAIN, Gap, catalog_path, read_catalog, template_path, untranslated_messages
from site_builder.theme import PACKAGED

KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2)}
TEMPLATE_METHODS = [("**.html", "jinja2"), ("**.xml", "jinja2")]
TEMPLATE_OPTIONS = {"**.html": {"extensions": "jinja2.ext.i18n"}, "**.xml": {"extensions": "jinja2.ext.i18n"}}
CHARTS_DIR = "charts"  # a project's own chart modules, beside site.toml
PACKAGED_LOCALES = PACKAGED / "locales"


@dataclass(frozen=True)
class Written:
    path: str  # as shown to the user
    action: str  # "created", "updated" or "unchanged"
    messages: int
    to_translate: int = 0


def _own_locales(config: SiteConfig) -> Path:
    """The project's locales folder, refused when it is the packaged theme's (that one has its own workflow,
    site_builder/theme/locales/README.md)."""
    if _same(config.locales_dir, PACKAGED_LOCALES):
        raise SiteError(Problem(f"locales_dir is the packaged theme's folder ({PACKAGED_LOCALES}): extract and "
                                "update write a project's own catalogs", "site.toml",
                                hint="leave locales_dir out of site.toml (default: locales), or see "
                                     "site_builder/theme/locales/README.md to change the packaged catalogs"))
    return config.locales_dir


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def project_sources(config: SiteConfig) -> list[Path]:
    """The folders `extract` reads: the project's templates/ and charts/ (when it has them)."""
    folders = []
    if config.templates_dir.is_dir() and not _same(config.templates_dir, PACKAGED / "templates"):
        folders.append(config.templates_dir)
    if (config.root / CHARTS_DIR).is_dir():
        folders.append(config.root / CHARTS_DIR)
    return folders


def _now() -> dt.datetime:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isascii() and epoch.isdigit() and len(epoch) <= 12:  # not '²', nor 5,000 digits
        return dt.datetime.fromtimestamp(int(epoch), tz=dt.timezone.utc)
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    temporary.replace(path)


def _entries(catalog: Catalog) -> list[tuple]:
    """What a catalog says, without its dates: for "unchanged" (a rerun does not touch the file)."""
    return sorted((str(m.id), m.context or "", str(m.string or ""), tuple(sorted(m.flags)), tuple(m.locations))
                  for m in catalog if m.id)


def extract(config: SiteConfig) -> Written:
    """Write the project's `locales/messages.pot` from its templates and chart modules."""
    locales = _own_locales(config)
    root = config.root
    path = template_path(locales)
    if not project_sources(config):
        return Written(display_path(path, root), "nothing to extract", 0)
    template = Catalog(domain=DOMAIN, project=f"{root.resolve().name}", version=__version__,
                       creation_date=_now(), fuzzy=False)
    problems = Collector()
    for folder in project_sources(config):
        is_charts = folder == root / CHARTS_DIR
        methods = [("**.py", "python")] if is_charts else TEMPLATE_METHODS
        options = {} if is_charts else TEMPLATE_OPTIONS
        try:
            for filename, lineno, message, comments, context in extract_from_dir(
                    folder, methods, options, keywords=KEYWORDS, comment_tags=("Translators:",),
                    strip_comment_tags=True,
                    directory_filter=lambda path: os.path.basename(path) not in ("assets", "__pycache__")):
                shown = display_path(folder / filename, root)
                template.add(message, None, [(shown, lineno)], auto_comments=comments, context=context)
        except Exception as exc:  # noqa: BLE001 - a template Jinja cannot parse: say where, not a traceback
            problems.error(f"cannot extract messages: {exc}", display_path(folder, root),
                           getattr(exc, "lineno", None))
    problems.raise_if_any()
    shown = display_path(path, root)
    existing = _read_template(path)
    if existing is not None and _entries(existing) == _entries(template):
        return Written(shown, "unchanged", len([m for m in template if m.id]))
    buffer = io.BytesIO()
    write_po(buffer, template, width=76, sort_output=True)
    _write_atomically(path, buffer.getvalue())
    return Written(shown, "created" if existing is None else "updated", len([m for m in template if m.id]))


def _read_template(path: Path) -> Catalog | None:
    if not path.is_file():
        return None
    try:
        return read_po(io.BytesIO(path.read_bytes()), domain=DOMAIN)
    except Exception as exc:  # noqa: BLE001
        raise SiteError(Problem(f"invalid catalog template: {exc}", str(path), getattr(exc, "lineno", None))) from None


def _translated_ids(catalog: Catalog | None) -> set:
    if catalog is None:
        return set()
    found = set()
    for message in catalog:
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.id and not message.fuzzy and all(strings):
            found.add((message.id if isinstance(message.id, str) else message.id[0], message.context))
    return found


def update(config: SiteConfig, languages: list[str] | None = None) -> list[Written]:
    """Create or update the project's catalog of each language (default: every site language)."""
    locales = _own_locales(config)
    root = config.root
    codes = list(languages or config.languages)
    project_pot = template_path(locales)
    own = _read_template(project_pot)
    if own is None and project_sources(config):
        raise SiteError(Problem("no catalog template for the project's templates and charts",
                                display_path(project_pot, root), hint="make it with: site-builder extract"))
    packaged = _read_template(template_path(PACKAGED_LOCALES))
    problems = Collector()
    written = []
    for code in codes:
        try:
            locale = Locale.parse(code.replace("-", "_"))
        except (UnknownLocaleError, ValueError) as exc:
            problems.error(f"language '{code}' is not a locale Babel knows: {exc}")
            continue
        path = catalog_path(locales, code)
        shown = display_path(path, root)
        catalog = None
        if path.is_file():
            catalog, found = read_catalog(path, shown, locale)
            if catalog is None:
                problems.problems += found
                continue
        packaged_catalog = None
        if catalog_path(PACKAGED_LOCALES, code).is_file():
            packaged_catalog, _found = read_catalog(catalog_path(PACKAGED_LOCALES, code),
                                                    str(catalog_path(PACKAGED_LOCALES, code)), locale)
        by_package = _translated_ids(packaged_catalog)
        by_project = _translated_ids(catalog)
        template = Catalog(locale=locale, domain=DOMAIN, fuzzy=False)
        for message in own or ():
            if message.id:
                template[message.id] = message.clone()  # keeps locations, flags and comments (a copy: update reuses it)
        for message in packaged or ():
            key = (message.id if isinstance(message.id, str) else message.id[0], message.context) if message.id else None
            if key and (key not in by_package or key in by_project) and template.get(message.id, message.context) is None:
                template[message.id] = message.clone()
        before = _entries(catalog) if catalog is not None else None
        if catalog is None:
            catalog = Catalog(locale=locale, domain=DOMAIN, project=root.resolve().name, version=__version__,
                              creation_date=_now(), revision_date=_now(), fuzzy=False)
        catalog.update(template, no_fuzzy_matching=True, update_creation_date=False)
        if locale.language == "en":  # the msgids are English: they are their own translation
            for message in catalog:
                if message.id and not any(message.string if isinstance(message.string, tuple) else (message.string,)):
                    message.string = message.id if isinstance(message.id, str) else tuple(
                        message.id[min(i, len(message.id) - 1)] for i in range(catalog.num_plurals))
        count = [m for m in catalog if m.id]
        to_translate = len(untranslated_in(catalog))
        if before is not None and before == _entries(catalog):
            written.append(Written(shown, "unchanged", len(count), to_translate))
            continue
        catalog.revision_date = _now()
        buffer = io.BytesIO()
        write_po(buffer, catalog, width=76, ignore_obsolete=True, sort_output=True)
        _write_atomically(path, buffer.getvalue())
        written.append(Written(shown, "created" if before is None else "updated", len(count), to_translate))
    problems.raise_if_any()
    return written


def untranslated_in(catalog: Catalog) -> list:
    return [m for m in catalog if m.id and (m.fuzzy or not all(
        m.string if isinstance(m.string, tuple) else (m.string,)))]


def catalog_gaps(config: SiteConfig, languages: list[str] | None = None) -> dict[str, list[Gap]]:
    """Language -> every message it shows in English (untranslated, fuzzy, or missing from its catalogs)."""
    locale_dirs = list(config.theme.locale_dirs)
    gaps = {}
    for code in languages or config.languages:
        try:
            Locale.parse(code.replace("-", "_"))
        except (UnknownLocaleError, ValueError) as exc:
            raise SiteError(Problem(f"language '{code}' is not a locale Babel knows: {exc}")) from None
        gaps[code] = untranslated_messages(code, locale_dirs, config.root)
    return gaps
