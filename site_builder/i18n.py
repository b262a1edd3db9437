"""Locale as data: gettext catalogs for interface strings and CLDR formats through Babel.

Every format takes an explicit language; nothing reads the process locale.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import hashlib
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import re

from babel import Locale, UnknownLocaleError, dates, lists, numbers
from babel.messages.catalog import Catalog, Message
from babel.messages.checkers import PYTHON_FORMAT
from babel.messages.mofile import write_mo
from babel.messages.pofile import PoFileError, read_po
from babel.support import NullTranslations, Translations

from site_builder import sources
from site_builder.errors import Problem, display_path, project_root

DOMAIN = "messages"
# Unicode's FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE: text between them takes the direction of its own
# first letter and leaves the text around it alone.
ISOLATE, POP = "\u2068", "\u2069"
SOURCE_LANGUAGE = "en"  # the language msgids are written in


@dataclass(frozen=True)
class Language:
    """A language the site is built in: its code, CLDR locale and compiled interface strings."""

    code: str
    locale: Locale
    translations: NullTranslations
    translated: frozenset[str] | None = None
    """The msgids its catalogs translate; None for the language msgids are written in (nothing falls back)."""
    isolating: bool = False
    """A string shown in English for want of a translation is isolated (see `for_pages`)."""

    def __identity__(self) -> tuple:  # in a planned page's key; its catalogs are among the site's inputs
        return ("language", self.code)

    def falls_back(self, message: str) -> bool:
        """True when `message` is shown in English because no catalog of the language translates it."""
        return self.translated is not None and message not in self.translated

    @property
    def native_name(self) -> str:
        name = self.locale.get_display_name(self.locale) or self.code
        return name[:1].upper() + name[1:]

    @property
    def direction(self) -> str:
        return "rtl" if self.locale.character_order == "right-to-left" else "ltr"

    def for_pages(self) -> Language:
        """The language as its pages' texts take it. On a right-to-left page, a string shown in English for want
        of a translation is wrapped in Unicode's FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE, so that it
        reads left to right with its punctuation at its end (".Fastest: 2.02 min" otherwise): the templates'
        strings and those the pages' contexts make (findings, labels, titles) alike. A chart's texts and the
        data's files keep plain strings."""
        return dataclasses.replace(self, isolating=True) if self.direction == "rtl" and self.translated is not None \
            else self

    def gettext(self, message: str) -> str:
        text = self.translations.gettext(message)
        return f"{ISOLATE}{text}{POP}" if self.isolating and self.falls_back(message) else text

    def ngettext(self, singular: str, plural: str, count: int) -> str:
        text = self.translations.ngettext(singular, plural, count)
        return f"{ISOLATE}{text}{POP}" if self.isolating and self.falls_back(singular) else text

    # Formats: the locale's own symbols and patterns (2.02 -> "2,02" in nl, it, vi). Digits are Latin (Babel's
    # default numbering system, "latn", also for Persian whose CLDR default is Extended Arabic-Indic), as in the
    # charts' d3 locale.
    def number(self, value: float | int | None, decimals: int | None = None) -> str:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "—"
        try:  # a results table repeats the same few hundred numbers on many pages: each is formatted once
            return _formatted_number(self, type(value), value, decimals)
        except TypeError:  # unhashable
            return _formatted_number.__wrapped__(self, type(value), value, decimals)

    def percent(self, value: float, decimals: int = 1) -> str:
        pattern = "#,##0" + ("." + "0" * decimals if decimals else "") + "%"
        return self._cldr_signs(numbers.format_percent(value, format=pattern, locale=self.locale,
                                                       decimal_quantization=True))

    def _symbols(self) -> dict:
        return self.locale.number_symbols.get("latn", self.locale.number_symbols)

    def _cldr_signs(self, text: str) -> str:
        """Babel writes a pattern's minus and percent signs as plain "-" and "%"; CLDR gives some locales other
        symbols: Arabic, Hebrew and Persian put a left-to-right mark before the minus, so that in right-to-left
        text it stays on the left of the digits ("-5", not "5-"). The locale's symbols, as in d3_format_locale."""
        symbols = self._symbols()
        if text.startswith("-"):
            text = symbols.get("minusSign", "-") + text[1:]
        return text.replace("%", symbols.get("percentSign", "%"))

    def date(self, value: dt.date, form: str = "long") -> str:
        return dates.format_date(value, format=form, locale=self.locale)

    def list(self, items: list[str]) -> str:
        return lists.format_list(items, locale=self.locale)

    def d3_format_locale(self) -> dict:
        """d3-format locale built from CLDR, so charts use the page's symbols (d3 has no vi-VN)."""
        symbols = self._symbols()
        return {
            "decimal": symbols["decimal"],
            "thousands": symbols["group"],
            "grouping": [3],
            "currency": ["", ""],
            "minus": symbols.get("minusSign", "-"),
            "percent": symbols.get("percentSign", "%"),
        }

    def d3_time_locale(self) -> dict:
        """d3-time-format locale from CLDR month and day names."""
        months = dates.get_month_names("wide", locale=self.locale)
        short_months = dates.get_month_names("abbreviated", locale=self.locale)
        days = dates.get_day_names("wide", locale=self.locale)
        short_days = dates.get_day_names("abbreviated", locale=self.locale)
        # CLDR numbers weekdays from Monday (0); d3 lists them from Sunday.
        order = [6, 0, 1, 2, 3, 4, 5]
        periods = dates.get_period_names(locale=self.locale)
        return {
            "dateTime": "%x, %X",
            "date": "%d/%m/%Y" if self.locale.language != "en" else "%m/%d/%Y",
            "time": "%H:%M:%S",
            "periods": [periods.get("am", "AM"), periods.get("pm", "PM")],
            "days": [days[i] for i in order],
            "shortDays": [short_days[i] for i in order],
            "months": [months[i] for i in range(1, 13)],
            "shortMonths": [short_months[i] for i in range(1, 13)],
        }


@functools.lru_cache(maxsize=65536)
def _formatted_number(lang: Language, _kind: type, value, decimals: int | None) -> str:
    """`Language.number` (the value's type is part of the key: 1 and 1.0 are equal keys)."""
    if decimals is None:
        return lang._cldr_signs(numbers.format_decimal(value, locale=lang.locale))
    pattern = "#,##0" + ("." + "0" * decimals if decimals else "")
    return lang._cldr_signs(numbers.format_decimal(value, format=pattern, locale=lang.locale,
                                                   decimal_quantization=True))


def catalog_path(locales_dir: Path, code: str) -> Path:
    return locales_dir / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def template_path(locales_dir: Path) -> Path:
    """The catalog template (`messages.pot`) of a locales folder: the msgids its templates and code use."""
    return locales_dir / f"{DOMAIN}.pot"


def load_language(code: str, locale_dirs: Path | Sequence[Path], root: Path | None = None,
                  own: Path | None = None) -> tuple[Language, list[Problem]]:
    """`_load_language`, once per process for the same catalog files (by their bytes): reading and checking a
    catalog costs 30 ms, and `serve` or a test run builds many times from the same catalogs."""
    folders = (locale_dirs,) if isinstance(locale_dirs, Path) else tuple(locale_dirs)
    read = tuple(_file_digest(path) for folder in folders for path in (catalog_path(folder, code), template_path(folder)))
    shown_from = root if root is not None else project_root()  # where its problems' paths are shown from
    language, problems = _loaded_language(code, folders, root, own, (read, shown_from))
    return language, list(problems)


def _file_digest(path: Path) -> str | None:
    try:
        return hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()
    except OSError:
        return None


@functools.lru_cache(maxsize=32)
def _loaded_language(code: str, folders: tuple[Path, ...], root: Path | None, own: Path | None,
                     _read: tuple) -> tuple[Language, tuple[Problem, ...]]:
    language, problems = _load_language(code, folders, root, own)
    return language, tuple(problems)


def _load_language(code: str, locale_dirs: Path | Sequence[Path], root: Path | None = None,
                   own: Path | None = None) -> tuple[Language, list[Problem]]:
    """Compile `<locales>/<code>/LC_MESSAGES/messages.po` in memory (no committed .mo needed).

    `locale_dirs` are looked up in order (the project's folder, then the packaged theme's): a message is
    taken from the first catalog that translates it. Returns the language and its problems: errors for a
    catalog that would publish wrong or broken text (a syntax error, a placeholder the code does not
    supply), and one warning per catalog that counts its untranslated, fuzzy and missing messages (English
    is shown for them; `untranslated_messages` lists them). A language without any catalog falls back to
    the English source strings, with a warning naming where its catalog would be: in `own`, the project's
    locales folder, when given (else the first of `locale_dirs`).
    """
    folders = [locale_dirs] if isinstance(locale_dirs, Path) else list(locale_dirs)
    try:
        locale = Locale.parse(code.replace("-", "_"))
    except (UnknownLocaleError, ValueError) as exc:
        return Language(code, Locale("en"), NullTranslations()), [
            Problem(f"language '{code}' is not a locale Babel knows: {exc}")]
    catalogs, errors = _read_catalogs(code, folders, locale, root)
    if errors:
        return Language(code, locale, NullTranslations()), errors
    if not catalogs:
        home = own if own is not None else folders[0] if folders else None
        shown = display_path(catalog_path(home, code), root) if home is not None else None
        return Language(code, locale, NullTranslations(), _translated_ids(code, [])), [Problem(
            f"no catalog for language '{code}': interface strings fall back to English", shown,
            hint=f"create one with: site-builder update --language {code}", severity="warning")]
    translations: NullTranslations | None = None
    for path, catalog in reversed(catalogs):  # the first folder's catalog is asked first
        buffer = io.BytesIO()
        try:
            write_mo(buffer, catalog)
            buffer.seek(0)
            compiled = Translations(buffer, domain=DOMAIN)
        except Exception as exc:  # noqa: BLE001 - Babel wrote what gettext cannot read back (a plural header)
            return Language(code, locale, NullTranslations()), [Problem(
                f"invalid .po file: it compiles to a catalog gettext cannot read ({type(exc).__name__}: {exc})",
                display_path(path, root), hint="check the header entry (msgid \"\") and plural entries")]
        if translations is not None:
            compiled.add_fallback(translations)
        translations = compiled
    gaps = untranslated_messages(code, folders, root, catalogs)
    warnings = []
    if gaps:
        counts = {kind: sum(1 for gap in gaps if gap.kind == kind) for kind in ("untranslated", "fuzzy", "missing")}
        detail = ", ".join(f"{count} {kind}" for kind, count in counts.items() if count)
        warnings.append(Problem(
            f"{len(gaps)} interface string{'s' if len(gaps) != 1 else ''} of language '{code}' "
            f"{'are' if len(gaps) != 1 else 'is'} not translated ({detail}): English is shown for "
            f"{'them' if len(gaps) != 1 else 'it'}", display_path(catalogs[0][0], root),
            hint=f"list them with: site-builder check --catalogs --language {code}", severity="warning"))
    return Language(code, locale, translations, _translated_ids(code, [c for _, c in catalogs])), warnings


def _translated_ids(code: str, catalogs: list[Catalog]) -> frozenset[str] | None:
    """The msgids some catalog translates wholly (not fuzzy, every plural form); None in the source language."""
    if code.split("-")[0].split("_")[0] == SOURCE_LANGUAGE:
        return None
    found = set()
    for catalog in catalogs:
        for message in catalog:
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            if message.id and not message.fuzzy and all(strings):
                found.add(_message_id(message))
    return frozenset(found)


@dataclass(frozen=True)
class Gap:
    """A message a language shows in English: `kind` is untranslated (empty msgstr), fuzzy, or missing (a msgid
    of the catalog template that no catalog of the language holds)."""

    msgid: str
    kind: str
    path: str | None
    line: int | None


def untranslated_messages(code: str, locale_dirs: Sequence[Path], root: Path | None = None,
                          catalogs: list[tuple[Path, Catalog]] | None = None) -> list[Gap]:
    """Every message of `code` that is shown in English, over the whole lookup chain: a message counts as
    translated when any catalog of the chain translates it (not fuzzy, every plural form)."""
    if catalogs is None:
        catalogs, _ = _read_catalogs(code, list(locale_dirs), Locale.parse(code.replace("-", "_")), root)
    translated: set[str] = set()
    seen: dict[str, Gap] = {}
    for path, catalog in catalogs:
        shown = display_path(path, root)
        for message in catalog:
            if not message.id:
                continue
            msgid = _message_id(message)
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            if not message.fuzzy and all(strings):
                translated.add(msgid)
            elif msgid not in seen:
                seen[msgid] = Gap(msgid, "fuzzy" if message.fuzzy else "untranslated", shown, message.lineno)
    source_language = code.split("-")[0].split("_")[0] == SOURCE_LANGUAGE
    for folder in [] if source_language else locale_dirs:  # a msgid is English text: never missing in English
        pot = template_path(folder)
        if not pot.is_file():
            continue
        try:
            template = read_po(io.BytesIO(pot.read_bytes()), domain=DOMAIN)
        except Exception:  # noqa: BLE001 - a broken template only loses the "missing" count
            continue
        for message in template:
            msgid = _message_id(message) if message.id else None
            if msgid and msgid not in translated and msgid not in seen:
                seen[msgid] = Gap(msgid, "missing", display_path(pot, root), message.lineno)
    return [gap for msgid, gap in seen.items() if msgid not in translated]


def _read_catalogs(code: str, folders: list[Path], locale: Locale,
                   root: Path | None) -> tuple[list[tuple[Path, Catalog]], list[Problem]]:
    catalogs, errors = [], []
    for folder in folders:
        path = catalog_path(folder, code)
        if not path.is_file():
            continue
        catalog, found = read_catalog(path, display_path(path, root), locale)
        errors += found
        if catalog is not None:
            catalogs.append((path, catalog))
    return catalogs, errors


# A .po line: blank, a comment, a keyword with a quoted string, or a quoted continuation. Babel's reader
# accepts `msgstr Text"` and silently drops the first letter, so the syntax is checked here first.
_PO_KEYWORD = re.compile(r'^(msgctxt|msgid|msgid_plural|msgstr(\[\d+\])?)\s+(.*)$')
_PO_STRING = re.compile(r'^"(?:[^"\\]|\\.)*"\s*$')


def read_catalog(path: Path, shown: str, locale: Locale) -> tuple[Catalog | None, list[Problem]]:
    """Read a .po catalog strictly: syntax errors and placeholder mismatches are errors with file:line."""
    text, problem = sources.decode_text(path.read_bytes(), shown)
    if problem is not None:
        return None, [problem]
    errors = []
    for number, line in enumerate(sources.normalize_newlines(text).split("\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        keyword = _PO_KEYWORD.match(stripped)
        quoted = keyword.group(3) if keyword else stripped
        if not _PO_STRING.match(quoted):
            where = f"after '{keyword.group(1)}' " if keyword else ""
            errors.append(Problem(f"invalid .po line: {where}a string in double quotes is expected, not "
                                  f"{quoted[:40]!r}", shown, number, line.rindex(quoted) + 1 if quoted else None,
                                  hint='each string is written "like this", with \\" for a quote inside'))
    # Read on after syntax errors, so the placeholder checks of the other entries report too.
    try:
        catalog = read_po(io.StringIO(text), locale=locale, domain=DOMAIN, abort_invalid=True)
    except (PoFileError, ValueError, UnknownLocaleError) as exc:
        line = getattr(exc, "lineno", None)
        return None, errors or [Problem(f"invalid .po file: {exc}", shown, line)]
    checked = set()
    for message, found in catalog.check():
        checked.add(message.lineno)
        for error in found:
            errors.append(Problem(f"message {_message_id(message)!r}: {error}", shown, message.lineno))
    for message in catalog:
        error = _markup_error(message) or (None if message.lineno in checked else _format_error(message))
        if error:
            errors.append(Problem(f"message {_message_id(message)!r}: {error}", shown, message.lineno))
    return catalog, errors


def _message_id(message: Message) -> str:
    return message.id[0] if isinstance(message.id, tuple) else message.id


# An HTML tag, comment or declaration (`<img`, `</b`, `<!--`); a lone "<" as in "a < b" is text.
_TAG = re.compile(r"<(/?[A-Za-z][\w:-]*|!)")


def _markup_error(message: Message) -> str | None:
    """Interface strings are text (escaped in pages), so markup in a translation is a mistake or an attack:
    an error, unless the source string has the same tag (it is then shown as text in every language)."""
    if not message.id:  # the header (its Last-Translator is "NAME <EMAIL>")
        return None
    ids = message.id if isinstance(message.id, tuple) else (message.id,)
    strings = message.string if isinstance(message.string, tuple) else (message.string,)
    allowed = {tag.lower() for source in ids if source for tag in _TAG.findall(source)}
    for string in strings:
        for tag in _TAG.findall(string or ""):
            if tag.lower() not in allowed:
                return f"the translation holds markup '<{tag}', which the source string does not have"
    return None


def _format_error(message: Message) -> str | None:
    """The error a translation raises when it is formatted with the values its source string takes.

    Babel's checker tolerates a translation that introduces placeholders of its own, which either fails
    at render time (templates format every string) or shows "%(name)s" to readers; a stray "%" in a
    formatted entry fails too. Both are caught here by formatting with stand-in values.
    """
    if not message.id or not message.string:
        return None
    ids = message.id if isinstance(message.id, tuple) else (message.id,)
    strings = message.string if isinstance(message.string, tuple) else (message.string,)
    values: dict[str, object] = {}
    for source in ids:
        for name, _flags, kind in PYTHON_FORMAT.findall(source):
            if name:
                values[name] = 1 if kind in "diouxXc" else 1.5 if kind in "eEfFgG" else "x"
    formatted = "python-format" in message.flags
    for string in strings:
        if not string:
            continue
        unknown = sorted({name for name, _flags, _kind in PYTHON_FORMAT.findall(string) if name} - set(values))
        if unknown:
            return f"the translation uses placeholder '{unknown[0]}', which the source string does not have"
        if formatted:
            try:
                string % values
            except (KeyError, ValueError, TypeError) as exc:
                return f"the translation cannot be formatted: {exc}"
    return None
