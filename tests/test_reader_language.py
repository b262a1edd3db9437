"""A Dutch, Italian or Vietnamese page speaks its reader's language: no English sentence from the interface
catalog or from the data's English texts (score and metadata sources, notes, benchmark sources) is left in what a
reader sees or hears (text, title, aria-label, alt). English kept on purpose is marked with its own `lang` (a
language's own name in the switcher, a note quoted from the data set in English) and is not counted; neither is
code (`<code>`, `<pre>`, chart data blocks)."""

from __future__ import annotations

import csv
import re
from html.parser import HTMLParser

import pytest
from babel.messages.pofile import read_po

from site_builder.i18n import catalog_path
from tests.conftest import ROOT

LANGUAGES = ("nl", "it", "vi")
SPOKEN_ATTRIBUTES = ("title", "aria-label", "alt", "placeholder")
SKIPPED = {"script", "style", "code", "pre", "template", "textarea"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# Stretches of English msgids that a translation rightly shares, word for word: the benchmark's proper name with
# a word Dutch and Italian spell the same ("benchmark(s) in MLPerf Training").
ALLOWED = {"in MLPerf Training", "benchmarks in MLPerf Training", "benchmark in MLPerf Training"}


class _Spoken(HTMLParser):
    """Text and spoken attributes of a page, outside code and outside elements marked as another language."""

    def __init__(self, lang: str):
        super().__init__(convert_charrefs=True)
        self.lang, self.stack, self.parts = lang, [], []

    def _quiet(self) -> bool:
        return any(tag in SKIPPED or self._other(lang) for tag, lang in self.stack)

    def _other(self, lang) -> bool:
        return bool(self.lang and lang and lang != self.lang)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "html":
            return
        if not self._quiet() and not self._other(attrs.get("lang")):
            self.parts += [attrs[name] for name in SPOKEN_ATTRIBUTES if attrs.get(name)]
        if tag not in VOID:
            self.stack.append((tag, attrs.get("lang")))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        if not self._quiet():
            self.parts.append(data)

    def text(self) -> str:
        return re.sub(r"\s+", " ", " ".join(self.parts))


def _chunks(text: str) -> list[str]:
    """The literal stretches of an English text worth looking for: two words or more, ten characters or more,
    cut at placeholders and at the clause separators of the data's source texts."""
    pieces = re.split(r"%\([a-z_]+\)[sd]|%%|; |\{[a-z_]+\}", text)
    found = []
    for piece in pieces:
        piece = piece.strip(" .,:;()\"'–-")
        if len(piece) >= 10 and " " in piece and piece not in ALLOWED:
            found.append(piece)
    return found


def _english_phrases(code: str) -> set[str]:
    """Catalog msgids the language translates differently, and the data's English texts."""
    with catalog_path(ROOT / "site_builder/theme/locales", code).open("rb") as f:
        catalog = read_po(f)
    phrases = set()
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for msgid in ids:
            if msgid not in strings:
                phrases.update(_chunks(msgid))
    for path, columns in ((ROOT / "data/rounds/v6.0/results.csv", ("score_source", "metadata_source")),
                          (ROOT / "data/rounds/v5.1/results.csv", ("score_source", "metadata_source")),
                          (ROOT / "data/benchmarks.csv", ("source",))):
        with open(path, encoding="utf-8") as f:
            for row in csv.DictReader(f):
                for column in columns:
                    phrases.update(_chunks(row[column]))
    return phrases


def english_pattern(code: str) -> re.Pattern:
    """Any of the English phrases, as a whole phrase, longest first."""
    phrases = sorted(_english_phrases(code), key=len, reverse=True)
    assert len(phrases) > 200
    return re.compile("|".join(rf"(?<![\w-]){re.escape(p)}(?![\w-])" for p in phrases))


@pytest.mark.parametrize("code", LANGUAGES)
def test_no_english_left_on_translated_pages(shipped_site, code):
    pattern = english_pattern(code)
    found = {}
    pages = sorted((shipped_site / code).rglob("*.html")) + sorted((shipped_site / "embed" / code).rglob("*.html"))
    assert len(pages) > 25
    for page in pages:
        spoken = _Spoken(code)
        spoken.feed(page.read_text(encoding="utf-8"))
        for match in pattern.finditer(spoken.text()):
            found.setdefault(match.group(0), str(page.relative_to(shipped_site)))
    assert not found, found


def test_filter_expressions_are_not_shown(shipped_site):
    """A chart's data filter ("benchmark = ...") is the build's business, never a reader's."""
    shown = [str(p.relative_to(shipped_site)) for p in shipped_site.rglob("*.html")
             if re.search(r"\(\s*\w+\s*(=|==)\s*[\w.-]+\s*\)", _visible(p.read_text(encoding="utf-8")))]
    assert not shown, shown


def _visible(html: str) -> str:
    spoken = _Spoken("")  # every language
    spoken.feed(html)
    return spoken.text()
