"""Property-based tests of the input loaders: whatever a file holds, the loader returns a value or a
located problem (SiteError), never another exception."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import tempfile
import unicodedata
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from site_builder.content import SLUG_MAX_LENGTH, file_slug, load_article, parse_front_matter
from site_builder.data import load_dataset
from site_builder.errors import Collector, SiteError
from tests.conftest import MINI_BENCHMARKS, MINI_V51, MINI_V60, csv_text

pytestmark = pytest.mark.slow  # hypothesis property tests

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CSV_SETTINGS = settings(SETTINGS, max_examples=60)  # each example loads a whole dataset
SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


# Slugs ------------------------------------------------------------------------------------------

@SETTINGS
@given(st.text(max_size=400))
def test_a_file_slug_is_never_empty_and_only_lowercase_ascii(stem):
    slug = file_slug(stem)
    assert SLUG.fullmatch(slug), slug
    assert file_slug(stem) == slug  # stable: the same name gives the same URL


def _article(front_matter: str, name: str = "a.md", body: str = "Text.\n") -> tuple[object, Collector]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text(f"---\n{front_matter}\n---\n{body}", encoding="utf-8")
        problems = Collector()
        return load_article(path, "en", problems, Path(folder)), problems


VALID = 'title: "T"\ndate: 2026-06-20\nsummary: "S"\nauthors: ["A"]\ntags: ["t"]\nkey: k'


@SETTINGS
@given(st.text(max_size=300))
def test_an_article_slug_is_capped_or_refused(value):
    article, problems = _article(VALID + "\nslug: " + yaml.safe_dump(value).removesuffix("\n...\n").strip())
    if article is None:
        assert problems.problems and all(p.path and p.line for p in problems.problems)
    else:
        assert SLUG.fullmatch(article.slug) and len(article.slug) <= SLUG_MAX_LENGTH


@SETTINGS
@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="/\x00"),
               min_size=1, max_size=250).filter(lambda s: s not in (".", "..")))
def test_a_file_name_gives_an_article_or_a_located_problem(stem):
    try:
        article, problems = _article(VALID, stem + ".md")
    except OSError:  # the file system refuses the name itself (too long in bytes): not our input
        return
    if article is None:
        assert problems.problems
    else:
        assert SLUG.fullmatch(article.slug) and len(article.slug) <= SLUG_MAX_LENGTH


# Front matter ------------------------------------------------------------------------------------

@SETTINGS
@given(st.text(max_size=600))
def test_any_front_matter_text_gives_a_mapping_or_problems(text):
    problems = Collector()
    parsed = parse_front_matter(text, 2, "a.md", problems)
    if parsed is None:
        assert problems.problems and all(p.path == "a.md" and p.line for p in problems.problems)
    else:
        meta, lines = parsed
        assert isinstance(meta, dict) and all(isinstance(line, int) for line in lines.values())


@SETTINGS
@given(st.binary(max_size=800))
def test_any_file_bytes_give_an_article_or_problems(raw):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "a.md"
        path.write_bytes(b"---\n" + raw)
        problems = Collector()
        article = load_article(path, "en", problems, Path(folder))
    assert article is not None or problems.problems


_TEXT = st.text(st.characters(blacklist_categories=["Cs", "Cc"]), min_size=1, max_size=60).filter(
    lambda s: s.strip() and s.strip() != "---")


@SETTINGS
@given(title=_TEXT, summary=_TEXT, key=_TEXT, authors=st.lists(_TEXT, min_size=1, max_size=3),
       tags=st.lists(_TEXT, max_size=3), date=st.dates(dt.date(1900, 1, 1), dt.date(2200, 12, 31)),
       draft=st.booleans())
def test_valid_front_matter_round_trips(title, summary, key, authors, tags, date, draft):
    meta = {"title": title, "date": date, "summary": summary, "authors": authors, "tags": tags, "key": key,
            "slug": "fixed", "draft": draft}
    article, problems = _article(yaml.safe_dump(meta, allow_unicode=True, sort_keys=False).strip())
    assert problems.problems == [] and article is not None
    nfc = lambda value: unicodedata.normalize("NFC", value)  # noqa: E731
    assert (article.title, article.summary, article.key) == (nfc(title), nfc(summary), nfc(key))
    assert article.authors == tuple(map(nfc, authors)) and article.tags == tuple(map(nfc, tags))
    assert (article.date, article.draft, article.slug) == (date, draft, "fixed")
    assert article.line_of["title"] == 2 and article.line_of["draft"] > article.line_of["slug"]


# CSV loader --------------------------------------------------------------------------------------

def _load_with(rows: list[list[str]]):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "data/rounds/v6.0").mkdir(parents=True)
        (root / "data/rounds/v5.1").mkdir(parents=True)
        (root / "data/benchmarks.csv").write_text(csv_text(MINI_BENCHMARKS), encoding="utf-8")
        (root / "data/rounds/v5.1/results.csv").write_text(csv_text(MINI_V51), encoding="utf-8")
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(rows)
        (root / "data/rounds/v6.0/results.csv").write_text(buffer.getvalue(), encoding="utf-8", errors="surrogatepass")
        return load_dataset(root / "data", ["v6.0", "v5.1"], root)


_GOOD_ROWS = list(csv.reader(io.StringIO(csv_text(MINI_V60))))


@CSV_SETTINGS
@given(st.lists(st.tuples(st.integers(1, len(_GOOD_ROWS) - 1), st.integers(0, len(_GOOD_ROWS[0]) - 1),
                          st.text(max_size=30) | st.sampled_from(["nan", "-0", "1e400", "9" * 30, "0x10", " 7 ",
                                                                   "1_000", "NA", "None", "\x00", '"', "\r\n"])),
                min_size=1, max_size=6))
def test_random_cell_values_load_or_give_problems(edits):
    rows = [list(row) for row in _GOOD_ROWS]
    for row, column, value in edits:
        rows[row][column] = value
    try:
        dataset = _load_with(rows)
    except SiteError as error:
        assert error.problems and all(p.path for p in error.problems)
    else:
        assert len(dataset.round("v6.0")) == len(rows) - 1


@CSV_SETTINGS
@given(st.lists(st.lists(st.text(max_size=12), max_size=25), max_size=6))
def test_random_tables_load_or_give_problems(rows):
    try:
        _load_with(rows)
    except SiteError as error:
        assert error.problems


# Catalogs ----------------------------------------------------------------------------------------

_PO_LINES = st.sampled_from([
    'msgid ""', 'msgstr ""', '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"', '"Plural-Forms: nplurals=x;\\n"',
    '"Content-Type: text/plain; charset=latin-1\\n"', '#, python-format', '#, fuzzy', '#~ msgid "old"',
    'msgid "%(n)s result"', 'msgid_plural "%(n)s results"', 'msgstr[0] "%(n)s resultaat"', 'msgstr[5] "x"',
    'msgstr "%(count)d"', 'msgstr "100%"', 'msgctxt "ctx"', 'msgid "A"', 'msgstr "B"', '"continued"', "",
    'msgstr Benchmarks"', '"\\x"', "msgid", '"unterminated',
]) | st.text(max_size=20)


@SETTINGS
@given(st.lists(_PO_LINES, max_size=14))
def test_any_catalog_gives_a_language_or_located_problems(lines):
    from site_builder.i18n import catalog_path, load_language

    with tempfile.TemporaryDirectory() as folder:
        path = catalog_path(Path(folder), "nl")
        path.parent.mkdir(parents=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
        language, problems = load_language("nl", Path(folder), Path(folder))
    assert language.gettext("Benchmarks")
    assert all(p.path for p in problems)
