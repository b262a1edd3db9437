"""Locale as data: gettext catalogs for interface strings and CLDR formats through Babel.

Every format takes an explicit language; nothing reads the process locale.
"""

from __future__ import annotations

import datetime as dt
import io
import math
from dataclasses import dataclass
from pathlib import Path

from babel import Locale, dates, lists, numbers
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

from site_builder.errors import Problem, display_path

DOMAIN = "messages"


@dataclass(frozen=True)
class Language:
    """A language the site is built in: its code, CLDR locale and compiled interface strings."""

    code: str
    locale: Locale
    translations: NullTranslations

    @property
    def native_name(self) -> str:
        name = self.locale.get_display_name(self.locale) or self.code
        return name[:1].upper() + name[1:]

    @property
    def direction(self) -> str:
        return "rtl" if self.locale.character_order == "right-to-left" else "ltr"

    def gettext(self, message: str) -> str:
        return self.translations.gettext(message)

    def ngettext(self, singular: str, plural: str, count: int) -> str:
        return self.translations.ngettext(singular, plural, count)

    # Formats: the locale's own symbols and patterns (2.02 -> "2,02" in nl, it, vi).
    def number(self, value: float | int | None, decimals: int | None = None) -> str:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "—"
        if decimals is None:
            return numbers.format_decimal(value, locale=self.locale)
        pattern = "#,##0" + ("." + "0" * decimals if decimals else "")
        return numbers.format_decimal(value, format=pattern, locale=self.locale, decimal_quantization=True)

    def percent(self, value: float, decimals: int = 1) -> str:
        pattern = "#,##0" + ("." + "0" * decimals if decimals else "") + "%"
        return numbers.format_percent(value, format=pattern, locale=self.locale, decimal_quantization=True)

    def date(self, value: dt.date, form: str = "long") -> str:
        return dates.format_date(value, format=form, locale=self.locale)

    def list(self, items: list[str]) -> str:
        return lists.format_list(items, locale=self.locale)

    def d3_format_locale(self) -> dict:
        """d3-format locale built from CLDR, so charts use the page's symbols (d3 has no vi-VN)."""
        symbols = self.locale.number_symbols.get("latn", self.locale.number_symbols)
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


def catalog_path(locales_dir: Path, code: str) -> Path:
    return locales_dir / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def load_language(code: str, locales_dir: Path, root: Path | None = None) -> tuple[Language, list[Problem]]:
    """Compile `<locales>/<code>/LC_MESSAGES/messages.po` in memory (no committed .mo needed).

    A language without a catalog falls back to the English source strings, with a warning.
    """
    warnings: list[Problem] = []
    locale = Locale.parse(code.replace("-", "_"))
    path = catalog_path(locales_dir, code)
    shown = display_path(path, root)
    if not path.is_file():
        warnings.append(Problem(f"no catalog for language '{code}': interface strings fall back to English",
                                shown, severity="warning"))
        return Language(code, locale, NullTranslations()), warnings
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=locale, domain=DOMAIN)
    for message in catalog:
        if message.id and (message.fuzzy or not message.string or
                           (isinstance(message.string, tuple) and not all(message.string))):
            line = message.lineno
            warnings.append(Problem(f"untranslated or fuzzy message {message.id!r}: English is shown",
                                    shown, line, severity="warning"))
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Language(code, locale, Translations(buffer, domain=DOMAIN)), warnings
