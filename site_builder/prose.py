"""Numbers typed into article prose that look like results: what `site-builder check` flags.

A result figure in an article should be bound to its row (`{{< fig ... >}}`), so that it is computed,
localized and linked. This module reads an article's prose (the parser's text tokens: paragraphs, headings,
list items, table cells, footnotes, and the text of raw HTML blocks; never code, shortcodes, link targets or
bare URLs) and reports each number that looks like a result.

Flagged (first rule that applies):
  percentage       68.5 %, 3,6%, 12 per cent         a number followed by '%' or a percent word
  multiplier       2.74x, 1,65×, 1.65 times           glued 'x', '×', or a multiplier word after a number
                                                     that is not a small integer ("8 lần" counts runs)
  unit             2.02 minutes, 8 GPUs, 86,84 phút   a unit word of the article's language (UNITS)
  decimal          2.02, 5,54                         one decimal separator (either convention)
  thousands        8,192, 8.192, 8 192                groups of three digits
  integer          224, 1024                          a plain integer of 100 or more

Not flagged:
  - years (1900-2099 standing alone), dates (2026-06-16, 16.06.2026) and versions (v1.2, 4.1.68);
  - plain integers below 100 without a unit ("3 runs", "Llama 2");
  - numbers glued to letters, which read as names: 405B, XB300, H100X, 8x8, GPT-OSS-20B, FLUX.1, DeepSeek-V3.
    Units must be written apart ("2 min") unless the glued letters are themselves a unit ("2min", "3x");
  - names from the data that contain numbers ("Llama 3.1 405B", and its prefix "Llama 3.1"), passed in
    by the caller;
  - anything inside a shortcode: `{{< lit 2.02 minutes >}}` marks a literal number as not a result.

Number formats come from CLDR (Babel) per language, so the rules hold for any language of the site.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from babel.numbers import get_decimal_symbol, get_group_symbol

from site_builder.markup import Locator, parse

# Units, percent and multiplier words per language ("*": every language). Small on purpose: time, hardware
# and the round's counts (organizations, results, systems), not a dictionary. A language missing here gets
# "*" only.
UNITS = {
    "*": ("min", "h", "ms", "GPU", "GPUs", "TPU", "TPUs"),
    "en": ("minute", "minutes", "hour", "hours", "second", "seconds", "accelerator", "accelerators", "node",
           "nodes", "chips", "servers", "organizations", "submitters", "submissions", "results", "systems"),
    "nl": ("minuut", "minuten", "uur", "seconde", "seconden", "GPU's", "versneller", "versnellers", "accelerators",
           "node", "nodes", "knooppunten", "servers", "organisaties", "inzenders", "inzendingen", "resultaten",
           "systemen"),
    "it": ("minuto", "minuti", "ora", "ore", "secondo", "secondi", "acceleratore", "acceleratori", "nodo", "nodi",
           "server", "organizzazioni", "risultati", "sistemi"),
    "vi": ("phút", "giờ", "giây", "bộ tăng tốc", "nút", "máy chủ", "tổ chức", "kết quả", "hệ thống"),
}
PERCENT_WORDS = {"en": ("percent", "per cent"), "nl": ("procent",), "it": ("per cento",), "vi": ("phần trăm",)}
MULTIPLIER_WORDS = {"en": ("times",), "nl": ("keer", "maal"), "it": ("volte",), "vi": ("lần",)}

_SPACES = " \u00a0\u202f"  # space, no-break space, narrow no-break space (CLDR group separators)
_NUMBER = re.compile(rf"""
    (?<![\w.,])(?<![^\W\d_]-)               # starts a word; not the tail of a name such as GPT-OSS-20B
    (?:\d{{1,3}}(?:[{_SPACES}]\d{{3}})+(?!\d)(?:[.,]\d+)?   # 8 192, 8 192,5
     | \d+(?:[.,]\d+)*)                     # 2.02, 8,192, 1.234,5, 4.1.68
    (?![.,]?\d)
""", re.X)
_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}")


@dataclass(frozen=True)
class TypedNumber:
    """A number in prose that looks like a result, where it is, and which rule matched."""

    path: str
    line: int
    col: int
    text: str  # the number with its unit or sign, as typed
    rule: str


@lru_cache(maxsize=None)
def _suffixes(lang: str) -> re.Pattern:
    """What may follow a number in `lang`: a symbol or a word, apart (space or hyphen) or glued."""
    base = lang.split("_")[0].split("-")[0]

    def words(table: dict) -> str:
        found = sorted({*table.get("*", ()), *table.get(base, ())}, key=len, reverse=True)
        return "|".join(re.escape(word) for word in found) or "(?!)"
    return re.compile(rf"""
        (?P<percent>[{_SPACES}]?%|[{_SPACES}](?:{words(PERCENT_WORDS)})(?!\w))
      | (?P<multiplier>[{_SPACES}]?×|x(?!\w))
      | (?P<times>[{_SPACES}](?:{words(MULTIPLIER_WORDS)})(?!\w))
      | (?P<unit>[{_SPACES}-]?(?:{words(UNITS)})(?!\w))
      | (?P<glued>[^\W\d_])
    """, re.X | re.I)


@lru_cache(maxsize=None)
def _symbols(lang: str) -> tuple[str, str]:
    try:
        return get_decimal_symbol(lang), get_group_symbol(lang)
    except Exception:  # a language CLDR does not know: English conventions; the rules accept both anyway
        return ".", ","


def _shape(number: str, lang: str) -> str | None:
    """'decimal', 'thousands' or 'integer' (None for versions and dates, which are not results)."""
    decimal, group = _symbols(lang)
    parts = re.split(r"([.,\u00a0\u202f ])", number)
    digits, separators = parts[0::2], parts[1::2]
    if not separators:
        return "integer"
    for dec, grp in ((decimal, group), (group, decimal)):  # this language's convention, then the other one
        body, rest = (separators[:-1], digits[1:-1]) if separators[-1] == dec else (separators, digits[1:])
        if body and all(s in (grp, *_SPACES) for s in body) and all(len(d) == 3 for d in rest) \
                and len(digits[0]) <= 3 and len(set(body)) == 1:
            return "thousands"
    if len(separators) == 1:
        return "decimal"
    return None  # 4.1.68, 16.06.2026: a version or a date


class _NameMask:
    """Names from the data that contain numbers (and their prefixes that end in a number)."""

    def __init__(self, names: Iterable[str]):
        phrases = set()
        for name in names:
            words = re.sub(r"\s*\(.*?\)\s*", " ", str(name)).split()
            for end, word in enumerate(words, 1):
                if any(ch.isdigit() for ch in word):
                    phrases.add(" ".join(words[:end]))
        ordered = sorted(phrases, key=len, reverse=True)
        self.pattern = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, ordered)) + r")(?!\w)") if ordered else None

    def spans(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in self.pattern.finditer(text)] if self.pattern else []


def find_numbers(text: str, lang: str, names: _NameMask | None = None) -> Iterator[tuple[int, str, str]]:
    """(offset, typed text, rule) of each number in a piece of prose that looks like a result."""
    masked = names.spans(text) if names else []
    dates = [m.span() for m in _DATE.finditer(text)]
    for match in _NUMBER.finditer(text):
        start, end = match.span()
        if any(a <= start < b for a, b in masked + dates):
            continue
        suffix = _suffixes(lang).match(text, end)
        kind = suffix.lastgroup if suffix else None
        if kind == "glued":
            continue  # 405B, XB300 (the letter before is excluded by the pattern): a name
        shape = _shape(match.group(0), lang)
        if shape is None:
            continue
        typed = text[start:suffix.end() if suffix else end]
        if kind == "times":  # "1.65 times" is a ratio; "the other 8 times" (vi "8 lần") counts runs
            if shape == "integer" and _integer(match.group(0)) < 100:
                continue
            kind = "multiplier"
        if kind is not None:
            yield start, typed, kind
        elif shape != "integer":
            yield start, typed, shape
        else:
            value = _integer(match.group(0))
            if value >= 100 and not (1900 <= value <= 2099 and len(match.group(0)) == 4):
                yield start, typed, "integer"


def _integer(digits: str) -> float:
    """An integer typed in prose; one over 18 digits is just large (int() refuses 4,300 digits)."""
    return int(digits) if len(digits) <= 18 else math.inf


_MARKUP = re.compile(r"<[^>]*>|&#?\w+;")


def _prose(tokens) -> Iterator[tuple[object, int | None, str]]:
    """(token, offset in its content or None when not found, text) of each piece of prose."""
    for block in tokens:
        if block.type == "html_block":  # raw HTML is published too: read its text, tags blanked out
            yield block, 0, _MARKUP.sub(lambda m: " " * len(m.group(0)), block.content)
        if block.type != "inline":
            continue
        content, cursor, in_url = block.content, 0, False
        for child in block.children or []:
            kind = child.type
            if kind == "shortcode":
                cursor = child.meta["pos"] + len(child.meta["raw"])
            elif kind == "link_open" and child.markup in ("linkify", "autolink"):
                in_url = True  # the link text is the URL itself
            elif kind == "link_close" and in_url:
                in_url = False
            elif kind == "link_close" and content.startswith("](", cursor):
                cursor = max(content.find(")", cursor), cursor)  # past the link target
            elif kind in ("code_inline", "html_inline", "text") and child.content:
                found = content.find(child.content, cursor)
                if kind == "text" and not in_url:
                    yield block, (found if found >= 0 else None), child.content
                if found >= 0:
                    cursor = found + len(child.content)


def typed_numbers(body: str, first_line: int, lang: str, path: str, names: Iterable[str] = ()) -> list[TypedNumber]:
    """Every number in the article body's prose that looks like a result, with file, line and column."""
    tokens, _env = parse(body)
    locator, mask, found = Locator(body, first_line), _NameMask(names), []
    for block, offset, text in _prose(tokens):
        for start, typed, rule in find_numbers(text, lang, mask):
            pos = offset + start if offset is not None else max(block.content.find(typed), 0)
            line, col = locator.place(block, pos, typed)
            found.append(TypedNumber(path, line, col, typed, rule))
    return found
