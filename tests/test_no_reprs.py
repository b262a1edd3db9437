"""No Python (or JavaScript) repr reaches a reader: a site without an optional input (here `previous_round`)
has no "None", "nan", "[]" or "undefined" in any text a page, feed, spec or CSV shows."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from site_builder.build import build_site
from tests.conftest import write_files
from tests.test_translation_workflow import CLAIMS

REPRS = re.compile(r"\bNone\b|\bnan\b|\bNaN\b|\[\]|\{\}|\bundefined\b")
SKIPPED = {"code", "pre", "script", "style"}


class _Texts(HTMLParser):
    """Text nodes outside code, pre, script and style, and every attribute value, with their line."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.skipping: list[str] = []
        self.found: list[tuple[int, str]] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value:
                self.found.append((self.getpos()[0], f"{tag}[{name}]={value}"))
        if tag in SKIPPED:
            self.skipping.append(tag)

    def handle_endtag(self, tag):
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()

    def handle_data(self, data):
        if not self.skipping and data.strip():
            self.found.append((self.getpos()[0], data))


def _json_strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _json_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _json_strings(item)
    elif isinstance(value, float) and value != value:
        yield "NaN"


def reprs_in(out: Path) -> list[str]:
    """Every text of the built site that shows a repr: `path:line: text`."""
    found = []
    for path in sorted(out.rglob("*")):
        relative = path.relative_to(out).as_posix()
        if path.suffix == ".html":
            parser = _Texts()
            parser.feed(path.read_text(encoding="utf-8"))
            texts = parser.found
        elif path.suffix == ".xml":
            root = ET.fromstring(path.read_bytes())
            texts = [(0, text) for element in root.iter()
                     for text in [element.text, element.tail, *element.attrib.values()] if text and text.strip()]
        elif path.suffix == ".json":
            texts = [(0, text) for text in _json_strings(json.loads(path.read_text(encoding="utf-8")))]
        elif path.suffix == ".csv":
            texts = [(number, cell) for number, row in enumerate(csv.reader(io.StringIO(path.read_text("utf-8"))), 1)
                     for cell in row]
        else:
            continue
        found += [f"{relative}:{line}: {text.strip()[:160]}" for line, text in texts if REPRS.search(text)]
    return found


@pytest.mark.slow
def test_a_site_without_a_previous_round_shows_no_reprs(mini_site, tmp_path):
    config = mini_site / "site.toml"
    # and no earlier round in the data: otherwise the round before in data/rounds is the one compared with
    config.write_text(config.read_text().replace('previous_round = "v5.1"\n', ""))
    shutil.rmtree(mini_site / "data/rounds/v5.1")
    write_files(mini_site, {"data/rounds/v6.0/claims.yaml": CLAIMS})  # the claims page too, one claim without a date
    report = build_site(mini_site, tmp_path / "out")
    assert report.pages > 0
    assert reprs_in(tmp_path / "out") == []
    footer = (tmp_path / "out/nl/index.html").read_text()
    assert "Data: resultaten van MLPerf Training v6.0, gepubliceerd door MLCommons" in footer


def test_the_scanner_finds_reprs(tmp_path):
    (tmp_path / "a.html").write_text('<p title="None">x</p><code>None</code><p>and nan results</p>'
                                     '<script>undefined</script>')
    (tmp_path / "b.csv").write_text("a,b\n1,[]\n")
    (tmp_path / "c.json").write_text('{"x": [], "y": "{}"}')
    assert reprs_in(tmp_path) == ["a.html:1: p[title]=None", "a.html:1: and nan results", "b.csv:2: []",
                                  "c.json:0: {}"]
