"""Golden test: build tests/golden/site and compare with tests/golden/expected, file by file.

Files are compared by what they mean, not by their bytes: HTML as a sequence of elements (attributes sorted),
texts (white space collapsed) and parsed JSON data blocks; XML through a real parser (which fails on output that
is not well-formed, so the golden files cannot lock in a broken feed), with the feeds' escaped HTML compared as
HTML; JSON as data. The expected files must themselves be valid: the feeds are checked as Atom here, and
test_validators runs the Nu Html Checker over the expected pages. Byte-for-byte determinism is test_site's job.

Regenerate after an intended change with `python -m pytest tests/test_golden.py --update-golden`
and review the diff in git. Some files are compared by name only: the vega bundle (a vendored
0.9 MB script whose name already carries its content hash), and the static SVG and PNG renderings
(their text metrics depend on the fonts installed on the machine), and the search indexes' files but their entries
(Pagefind's own scripts and WebAssembly, and binary index files named by their content's hash).
"""

from __future__ import annotations

import difflib
import json
import re
import shutil
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from site_builder.build import build_site
from tests.site_checks import ATOM, atom_problems

GOLDEN = Path(__file__).parent / "golden"
NAME_ONLY = re.compile(r"(^assets/vega\.[0-9a-f]+\.js$|\.svg$|\.png$|^pagefind/(?![^/]+/pagefind-entry\.json$))")
GOLDEN_BASE_URL = "https://example.org/mini/"  # tests/golden/site/site.toml
KEEP_WHITESPACE = {"pre", "textarea"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Structure(HTMLParser):
    """An HTML document as lines: `<tag a="1" b="2">`, `"text"`, `</tag>`, nested by indentation."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.stack: list[str] = []
        self.json_block = False

    def handle_decl(self, decl):
        self.lines.append(f"<!{decl.lower()}>")

    def handle_starttag(self, tag, attrs):
        shown = " ".join(f'{name}="{value}"' if value is not None else name for name, value in sorted(attrs))
        self.lines.append("  " * len(self.stack) + f"<{tag}{' ' + shown if shown else ''}>")
        self.json_block = tag == "script" and ("type", "application/json") in attrs
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass
        self.lines.append("  " * len(self.stack) + f"</{tag}>")

    def handle_data(self, data):
        if self.json_block:  # chart specs: compare the data, one key per line
            self.json_block = False
            self.lines += ["  " * len(self.stack) + line
                           for line in json.dumps(json.loads(data), indent=1, sort_keys=True).splitlines()]
            return
        text = data if self.stack and self.stack[-1] in KEEP_WHITESPACE else " ".join(data.split())
        if text:
            self.lines.append("  " * len(self.stack) + json.dumps(text, ensure_ascii=False))


def html_structure(text: str) -> list[str]:
    parser = _Structure()
    parser.feed(text)
    parser.close()
    return parser.lines


def xml_structure(text: str) -> list[str]:
    """Element by element, attributes sorted, text stripped; an Atom entry's html content as HTML structure."""
    lines: list[str] = []

    def walk(element: ET.Element, depth: int) -> None:
        attrs = " ".join(f'{k}="{v}"' for k, v in sorted(element.attrib.items()))
        lines.append("  " * depth + f"<{element.tag}{' ' + attrs if attrs else ''}>")
        text = (element.text or "").strip()
        if element.tag == f"{ATOM}content" and element.get("type") == "html":
            lines.extend("  " * (depth + 1) + line for line in html_structure(text))
        elif text:
            lines.append("  " * (depth + 1) + json.dumps(" ".join(text.split()), ensure_ascii=False))
        for child in element:
            walk(child, depth + 1)
            if (child.tail or "").strip():
                lines.append("  " * (depth + 1) + json.dumps(child.tail.strip(), ensure_ascii=False))

    walk(ET.fromstring(text.encode("utf-8")), 0)  # raises ParseError on XML that is not well-formed
    return lines


def meaning(name: str, content: bytes) -> list[str]:
    text = content.decode("utf-8")
    if name.endswith(".html"):
        return html_structure(text)
    if name.endswith(".xml"):
        return xml_structure(text)
    if name.endswith(".json"):
        return json.dumps(json.loads(text), indent=1, sort_keys=True, ensure_ascii=False).splitlines()
    return text.splitlines()


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_golden_site(tmp_path, monkeypatch, update_golden):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1781222400")
    out = tmp_path / "out"
    build_site(GOLDEN / "site", out)
    built = _files(out)
    expected_dir = GOLDEN / "expected"
    if update_golden:
        shutil.rmtree(expected_dir, ignore_errors=True)
        for name, content in built.items():
            target = expected_dir / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(b"" if NAME_ONLY.search(name) else content)
    expected = _files(expected_dir)
    assert sorted(built) == sorted(expected), "the set of output files changed"
    diffs = []
    for name in sorted(built):
        if NAME_ONLY.search(name):
            continue
        want, got = meaning(name, expected[name]), meaning(name, built[name])
        if want != got:
            diffs.append("\n".join(difflib.unified_diff(want, got, f"expected/{name}", f"built/{name}", n=2,
                                                        lineterm=""))[:3000])
    assert not diffs, "\n".join(diffs) + "\n(run pytest --update-golden if the change is intended)"


def test_golden_feeds_and_sitemap_are_valid():
    """The expected outputs are held to the same rules as the built site: they cannot lock in broken XML."""
    expected = GOLDEN / "expected"
    feeds = sorted(expected.glob("*/feed.xml"))
    assert feeds
    for feed in feeds:
        assert atom_problems(feed, GOLDEN_BASE_URL, feed.parent.name) == [], feed
    ET.parse(expected / "sitemap.xml")


def test_the_comparison_sees_structure_and_text_but_not_layout():
    assert html_structure('<p class="a"  id="b">Hello\n  world</p>') == html_structure("<p id=b class=a>Hello world</p>")
    assert html_structure("<p>Hello</p>") != html_structure("<p>Hallo</p>")
    assert html_structure("<p><a href=x>y</a></p>") != html_structure("<p><a href=z>y</a></p>")
    assert html_structure('<script type="application/json">{"a": 1, "b": 2}</script>') == \
        html_structure('<script type="application/json">{"b":2,"a":1}</script>')
    feed = '<feed xmlns="http://www.w3.org/2005/Atom"><content type="html">&lt;p&gt;a  b&lt;/p&gt;</content></feed>'
    assert xml_structure(feed) == xml_structure(feed.replace("a  b", "a b"))
    assert xml_structure(feed) != xml_structure(feed.replace("&lt;p&gt;", "&lt;div&gt;").replace("/p&gt;", "/div&gt;"))
    try:
        xml_structure(feed.replace("a  b", "a&nbsp;b"))
    except ET.ParseError:
        pass
    else:
        raise AssertionError("an undefined entity must not pass as XML")
