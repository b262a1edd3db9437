"""Incremental and parallel builds: the build cache, writing only what changed, --jobs, cheap social cards."""

from __future__ import annotations

import inspect
import io
import json
import os
import re
import shutil
import struct
import textwrap
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder import cache, content, images, output, parallel, stages
from site_builder import charts as chart_catalog
from site_builder.build import build_site
from site_builder.cli import main
from site_builder.errors import SiteError
from site_builder.output import MARKER, SiteFiles, write_site
from tests.conftest import MINI_ARTICLES, beside


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def identities(folder: Path) -> dict[str, tuple[int, int]]:
    """Path -> (inode, mtime): a file rewritten or replaced gets a new one."""
    return {p.relative_to(folder).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def site_of(**files: str) -> SiteFiles:
    site = SiteFiles()
    for name, text in files.items():
        site.add(name.replace("__", "/"), text)
    return site



# --- writing only what changed ---------------------------------------------------------------------------

def test_unchanged_files_are_not_rewritten_and_changed_ones_are(tmp_path):
    out = tmp_path / "out"
    write_site(site_of(a="same", b__c="old", gone="x"), out)
    before = identities(out)
    report = write_site(site_of(a="same", b__c="new", d="added"), out)
    after = identities(out)
    assert (report.written, report.kept) == (2, 2)  # b/c and d written; a and the marker kept
    assert after["a"] == before["a"] and after[MARKER] == before[MARKER]
    assert after["b/c"] != before["b/c"]
    assert snapshot(out) == {"a": b"same", "b/c": b"new", "d": b"added", MARKER: output.MARKER_TEXT}
    assert beside(tmp_path) == ["out"]


def test_the_same_files_again_touch_nothing(tmp_path):
    out = tmp_path / "out"
    write_site(site_of(a="1", b__c="2"), out)
    before, folder = identities(out), out.stat().st_ino
    report = write_site(site_of(a="1", b__c="2"), out)
    assert (report.written, report.swapped) == (0, False)
    assert identities(out) == before and out.stat().st_ino == folder


@pytest.mark.parametrize("change", ["extra file", "extra folder", "edited", "symlink"])
def test_a_site_changed_by_hand_is_replaced(tmp_path, change):
    out = tmp_path / "out"
    write_site(site_of(a="1", b__c="2"), out)
    if change == "extra file":
        (out / "stray.html").write_text("?")
    elif change == "extra folder":
        (out / "empty").mkdir()
    elif change == "edited":
        (out / "b" / "c").write_text("3")
    else:
        (out / "a").unlink()
        (out / "a").symlink_to(out / "b" / "c")
    report = write_site(site_of(a="1", b__c="2"), out)
    assert report.swapped and snapshot(out) == {"a": b"1", "b/c": b"2", MARKER: output.MARKER_TEXT}
    assert not (out / "a").is_symlink()


def test_the_previous_site_is_kept_beside_as_the_next_builds_staging(tmp_path):
    """The site before the current one stays as a hidden spare (mostly hard links to the current files): the
    next build brings it up to date in place and swaps it in, making no new folders for unchanged files."""
    out, spare = tmp_path / "out", output.spare_path(tmp_path / "out")
    write_site(site_of(a="1", b__c="2", d__e__f="3"), out)
    assert not spare.exists()
    write_site(site_of(a="1", b__c="changed", d__e__f="3"), out)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.spare", "out"]
    assert snapshot(spare) == {"a": b"1", "b/c": b"2", "d/e/f": b"3", MARKER: output.MARKER_TEXT}
    assert (spare / "a").stat().st_ino == (out / "a").stat().st_ino  # shared, not copied
    folders = {p.relative_to(spare).as_posix(): p.stat().st_ino for p in spare.rglob("*") if p.is_dir()}
    report = write_site(site_of(a="1", b__c="changed", d__e__f="new", g="4"), out)
    assert (report.written, report.kept) == (2, 3)  # d/e/f and g; a, b/c and the marker stay
    assert snapshot(out) == {"a": b"1", "b/c": b"changed", "d/e/f": b"new", "g": b"4", MARKER: output.MARKER_TEXT}
    assert {p.relative_to(out).as_posix(): p.stat().st_ino for p in out.rglob("*") if p.is_dir()} == folders
    # The spare is now the second site: its d/e/f, a link shared with the third's staging, was not written through.
    assert snapshot(spare) == {"a": b"1", "b/c": b"changed", "d/e/f": b"3", MARKER: output.MARKER_TEXT}


@pytest.mark.parametrize("damage", ["extra file", "file for folder", "folder for file", "link to outside",
                                    "live file linked", "emptied"])
def test_a_damaged_spare_still_makes_exactly_the_site(tmp_path, damage):
    out, spare, outside = tmp_path / "out", output.spare_path(tmp_path / "out"), tmp_path / "outside"
    outside.mkdir()
    write_site(site_of(a="1", b__c="2"), out)
    write_site(site_of(a="1", b__c="3"), out)
    if damage == "extra file":
        (spare / "stray.html").write_text("?")
    elif damage == "file for folder":
        shutil.rmtree(spare / "b")
        (spare / "b").write_text("not a folder")
    elif damage == "folder for file":
        (spare / "a").unlink()
        (spare / "a").mkdir()
        (spare / "a" / "inside").write_text("x")
    elif damage == "link to outside":
        shutil.rmtree(spare / "b")
        (spare / "b").symlink_to(outside, target_is_directory=True)
    elif damage == "live file linked":  # a spare file that is the live one: writing through would change the site
        (spare / "b" / "c").unlink()
        os.link(out / "b" / "c", spare / "b" / "c")
    else:
        shutil.rmtree(spare)
        spare.mkdir()
    live = snapshot(out)
    write_site(site_of(a="1", b__c="4", x__y="5"), out)
    assert snapshot(out) == {"a": b"1", "b/c": b"4", "x/y": b"5", MARKER: output.MARKER_TEXT}
    assert snapshot(spare) == live and list(outside.iterdir()) == []


def test_the_previous_tree_is_removed_in_the_background(tmp_path):
    out = tmp_path / "out"
    write_site(site_of(a="1"), out)
    write_site(site_of(a="2"), out, background_removal=True)
    output.wait_for_removals()
    assert snapshot(out)["a"] == b"2" and beside(tmp_path) == ["out"]


def test_a_build_with_no_change_writes_nothing(mini_site, warm_cache, tmp_path):
    out = tmp_path / "out"
    first = build_site(mini_site, out, jobs=1)
    before, folder = identities(out), out.stat().st_ino
    again = build_site(mini_site, out, jobs=1)
    assert first.written == first.files + 1 and again.written == 0  # + the marker
    assert identities(out) == before and out.stat().st_ino == folder


@pytest.mark.slow
def test_an_edit_renders_only_the_pages_it_changes(mini_site, warm_cache, tmp_path, monkeypatch):
    """A page is made again only when what it is made from changed. Its plan's digest once depended on whether
    equal strings were one object (charts just built) or several (charts read back from the cache)."""
    for entry in (warm_cache / "values").glob("*.chart"):
        entry.unlink()  # the first build builds its charts, the second reads them from the cache
    build_site(mini_site, tmp_path / "out", jobs=1)
    rendered, real = [], stages._render_page
    monkeypatch.setattr(stages, "_render_page", lambda shared, index: rendered.append(shared[0][index].path)
                        or real(shared, index))
    article = mini_site / "content/en/hello.md"
    article.write_text(article.read_text().replace("Some text", "Some edited text"))
    build_site(mini_site, tmp_path / "out", jobs=1)
    assert rendered == ["en/articles/hello/index.html"]  # lists show titles and dates, not bodies


def test_an_edit_rewrites_only_what_changed_and_equals_a_cold_build(mini_site, warm_cache, tmp_path, monkeypatch):
    incremental = tmp_path / "incremental"
    build_site(mini_site, incremental, jobs=1)
    before = identities(incremental)
    article = mini_site / "content/en/hello.md"
    article.write_text(article.read_text().replace("Some text", "Some edited text"))
    report = build_site(mini_site, incremental, jobs=1)
    after = identities(incremental)
    changed = {path for path in after if after[path] != before.get(path)}
    assert "en/articles/hello/index.html" in changed and "en/feed.xml" in changed
    assert "nl/articles/hallo/index.html" not in changed and not any(p.startswith("assets/") for p in changed)
    assert report.written == len(changed) < report.files / 4
    # The same inputs built from nothing, in a new folder with two workers: a cache holding vl-convert's renderings
    # alone (each is named by the hash of its whole spec: a chart that changed is rendered again), nothing else.
    cold_cache = tmp_path / "renderings-only"
    shutil.copytree(warm_cache / "renders", cold_cache / "renders")
    for name in (cache.TAG_NAME, cache.KEY_NAME):  # entries are sealed with the cache's key
        shutil.copy2(warm_cache / name, cold_cache / name)
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(cold_cache))
    cold = tmp_path / "cold"
    build_site(mini_site, cold, jobs=2)
    assert snapshot(incremental) == snapshot(cold)



def test_a_value_remembered_for_many_outputs_counts_as_read_by_each_of_them():
    """A value computed once for many pages (the articles citing each benchmark) is recorded as read, with what it
    was computed from, by every output that uses it, not only by the first."""
    from site_builder import freshness
    memo, computed = {}, []

    def citing() -> list[str]:
        freshness.read(("article", "content/en/a.md", "shortcodes"), "d1")
        computed.append(1)
        return ["a"]

    with freshness.Recorder() as first:
        assert freshness.remembered(memo, ("citing", "en"), citing) == ["a"]
    with freshness.Recorder() as second:
        freshness.read(("site",), "s")
        assert freshness.remembered(memo, ("citing", "en"), citing) == ["a"]
    assert freshness.remembered(memo, ("citing", "en"), citing) == ["a"]  # no output is being made: nothing noted
    assert computed == [1]
    assert first.reads == {("article", "content/en/a.md", "shortcodes"): "d1"}
    assert second.reads == {("site",): "s", ("article", "content/en/a.md", "shortcodes"): "d1"}


def test_a_value_computed_from_every_article_counts_as_a_few_reads_of_whole_fields():
    """A value computed by going through every article (the articles citing a benchmark) notes one read per field
    it looked at, across the collection, instead of one per article: a page using it records a few reads, and an
    edit of that field in any article, or an article added, reads differently."""
    from dataclasses import dataclass

    from site_builder import freshness

    @dataclass
    class Item:
        source: str
        lang: str
        title: str

        def __getattribute__(self, name):
            if name in ("lang", "title"):
                freshness.read(("article", object.__getattribute__(self, "source"), name), lambda: self.field_digest(name))
            return object.__getattribute__(self, name)

        def field_digest(self, name):
            return freshness.digest(object.__getattribute__(self, name))

    def collection(*items):
        return freshness.Collection("articles", list(items), identity=lambda item: item.source, item_reads="article")

    items = collection(Item("a.md", "en", "A"), Item("b.md", "nl", "B"))
    with freshness.Recorder() as page:
        freshness.read(("article", "elsewhere.md", "title"), "t")
        english = freshness.remembered({}, ("en",), lambda: [i.source for i in items if i.lang == "en"], items)
    assert english == ["a.md"]
    assert page.reads == {("article", "elsewhere.md", "title"): "t", ("collection", "articles"): items.membership(),
                          ("collection field", "articles", "lang"): items.field_digest("lang")}

    def answers(collection):
        return freshness.Answers("site", lambda name: None, {}, {"articles": collection})

    assert answers(items).fresh(page.reads.items() - {(("article", "elsewhere.md", "title"), "t")})
    for changed in (collection(Item("a.md", "en", "A"), Item("b.md", "en", "B")),
                    collection(Item("a.md", "en", "A"), Item("b.md", "nl", "B"), Item("c.md", "nl", "C"))):
        assert not answers(changed).answer(("collection field", "articles", "lang")) == items.field_digest("lang")
    same_langs = collection(Item("a.md", "en", "A, edited"), Item("b.md", "nl", "B"))
    assert answers(same_langs).answer(("collection field", "articles", "lang")) == items.field_digest("lang")

ONLY_DUTCH = "content/nl/alleen.md"
EDITS = {  # name -> (file, old text, new text): each kind of input a page can depend on
    "body": ("content/en/hello.md", "Some text", "Some edited text"),
    "title": ("content/en/hello.md", 'title: "Hello, round"', 'title: "Hello again, round"'),
    "summary": ("content/nl/alleen.md", "Bestaat niet", "Bestaat nog niet"),
    "date": ("content/nl/alleen.md", "2026-06-22", "2026-06-30"),  # the site's "updated" date too
    "cited benchmark": ("content/nl/alleen.md", "Alleen hier.", "Alleen hier: {{< fig score llama31_8b/fastest >}}."),
    "translation added": (ONLY_DUTCH.replace("nl/alleen", "en/only"), None, MINI_ARTICLES[ONLY_DUTCH].replace(
        'title: "Alleen in het Nederlands"', 'title: "Only in Dutch, once"')),
    "article removed": (ONLY_DUTCH, None, None),
    "template": ("templates/article.html", '<article class="article">', '<article class="article edited">'),
    "data": ("data/rounds/v6.0/results.csv", None, None),
}


@pytest.mark.slow
@pytest.mark.parametrize("edit", list(EDITS))
def test_an_incremental_build_equals_a_cold_one_whatever_changed(mini_site, warm_cache, tmp_path, monkeypatch, edit):
    """Pages are carried over by the key of their inputs: every kind of change must make exactly the site a
    build from nothing makes (an empty cache, a new folder)."""
    shutil.copytree(Path(__file__).resolve().parent.parent / "site_builder/theme/templates", mini_site / "templates")
    toml = mini_site / "site.toml"
    toml.write_text("\n".join(line for line in toml.read_text().splitlines() if not line.startswith("templates_dir")))
    incremental = tmp_path / "incremental"
    build_site(mini_site, incremental, jobs=1)
    before = identities(incremental)
    name, old, new = EDITS[edit]
    path = mini_site / name
    if edit == "data":  # the fastest result of a benchmark gets slower: tables, findings and charts change
        lines = path.read_text().splitlines()
        header = lines[0].split(",")
        column = header.index("score_minutes")
        rows = [line.split(",") for line in lines[1:]]
        rows[0][column] = str(round(float(rows[0][column]) * 3, 4))
        path.write_text("\n".join([lines[0], *(",".join(row) for row in rows)]) + "\n")
    elif new is None:
        path.unlink()
    elif old is None:
        path.write_text(textwrap.dedent(new).lstrip())
    else:
        assert old in path.read_text()
        path.write_text(path.read_text().replace(old, new, 1))
    report = build_site(mini_site, incremental, jobs=1)
    after = identities(incremental)
    assert report.written == len({p for p in after if after[p] != before.get(p)}) > 0
    if edit == "body":  # an edit of the text alone makes its page, its feed and the search index again
        changed = {p for p in after if after[p] != before.get(p)}
        assert {p for p in changed if not p.startswith("pagefind/")} == {"en/articles/hello/index.html",
                                                                         "en/feed.xml"}
        assert "pagefind/en/pagefind-entry.json" in changed and not any(p.startswith("pagefind/nl/") for p in changed)
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "empty-cache"))
    cold = tmp_path / "cold"
    build_site(mini_site, cold, jobs=2)
    assert snapshot(incremental) == snapshot(cold)


def test_a_page_replaced_while_a_build_renders_is_never_carried_over(mini_site, warm_cache, tmp_path, monkeypatch):
    """Another build (or a hand) replaces a page between this build's planning and its write: the page it
    meant to keep is not the one there any more, so the build fails and says so instead of keeping it."""
    out = tmp_path / "out"
    build_site(mini_site, out, jobs=1)
    article = mini_site / "content/en/hello.md"
    article.write_text(article.read_text().replace("Some text", "Some edited text"))
    page, real_write = out / "nl/articles/alleen/index.html", output.write_site

    def write_after_a_race(files, out_dir, **kwargs):
        replaced = page.read_text().replace("Alleen hier.", "Written by another build.")
        page.unlink()
        page.write_text(replaced)
        return real_write(files, out_dir, **kwargs)

    monkeypatch.setattr(output, "write_site", write_after_a_race)
    with pytest.raises(SiteError, match="changed during the build"):
        build_site(mini_site, out, jobs=1)
    assert "Written by another build." in page.read_text()  # the site as the other build left it


def test_a_kept_page_edited_by_hand_is_made_again(mini_site, warm_cache, tmp_path):
    out = tmp_path / "out"
    build_site(mini_site, out, jobs=1)
    page = out / "nl/articles/alleen/index.html"
    page.write_text(page.read_text().replace("Alleen hier.", "Changed by hand."))
    article = mini_site / "content/en/hello.md"
    article.write_text(article.read_text().replace("Some text", "Some edited text"))
    build_site(mini_site, out, jobs=1)
    assert "Alleen hier." in page.read_text() and "Changed by hand." not in page.read_text()


# --- the build cache -------------------------------------------------------------------------------------

class Calls:
    """The first arguments of a function's calls, noted in a file: calls made in a forked worker count too (the
    charts a build lacks are built in one, even with one job)."""

    def __init__(self, path) -> None:
        self.path = path

    def note(self, value) -> None:
        with open(self.path, "a", encoding="utf-8") as file:
            file.write(f"{value!r}\n")

    def __len__(self) -> int:
        return len(self.path.read_text(encoding="utf-8").splitlines()) if self.path.exists() else 0


def count_calls(monkeypatch, module, name, folder: Path) -> Calls:
    calls, real = Calls(folder / f"calls of {name}"), getattr(module, name)

    def counted(*args, **kwargs):
        calls.note(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_markdown_is_rendered_once_per_version_of_an_article(mini_site, tmp_path, monkeypatch):
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "cache"))
    renders = count_calls(monkeypatch, content, "render", tmp_path)
    first = content.load_articles(mini_site / "content", ("en", "nl"), mini_site)
    assert len(renders) == 3
    assert content.load_articles(mini_site / "content", ("en", "nl"), mini_site) == first and len(renders) == 3
    article = mini_site / "content/nl/alleen.md"
    article.write_text(article.read_text().replace("Alleen hier.", "Alleen hier, en nu ook dit."))
    edited = content.load_articles(mini_site / "content", ("en", "nl"), mini_site)
    assert len(renders) == 4 and "nu ook dit" in next(a.html for a in edited if a.key == "only-dutch")


def test_a_markdown_problem_is_reported_on_every_build(mini_site, tmp_path, monkeypatch):
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "cache"))
    article = mini_site / "content/en/hello.md"
    article.write_text(article.read_text() + "\n{{< nonsense x >}}\n")
    for _ in range(2):
        with pytest.raises(SiteError) as caught:
            content.load_articles(mini_site / "content", ("en", "nl"), mini_site)
        assert "hello.md" in str(caught.value)


@pytest.mark.slow
def test_charts_are_built_once_per_inputs(mini_site, warm_cache, tmp_path, monkeypatch):
    for entry in (warm_cache / "values").glob("*.chart"):
        entry.unlink()  # kept by another build of the same site
    builds = count_calls(monkeypatch, chart_catalog, "build_chart", tmp_path)
    build_site(mini_site, tmp_path / "a", jobs=1)
    built = len(builds)
    assert built > 0
    build_site(mini_site, tmp_path / "b", jobs=1)
    assert len(builds) == built  # every chart and left-out chart from the cache
    moved = shutil.copytree(mini_site, tmp_path / "elsewhere" / "project")  # moved, or checked out elsewhere
    build_site(moved, tmp_path / "moved", jobs=1)
    assert len(builds) == built  # the cache serves the project wherever it lies
    assert snapshot(tmp_path / "moved") == snapshot(tmp_path / "b")
    config = mini_site / "site.toml"
    config.write_text(config.read_text().replace('en = "Mini report"', 'en = "Renamed report"'))
    build_site(mini_site, tmp_path / "retitled", jobs=1)
    assert len(builds) == built  # no chart shows the site's title: none is built again
    assert "Renamed report" in (tmp_path / "retitled/en/index.html").read_text()
    catalog = mini_site / "data/benchmarks.csv"
    catalog.write_text(catalog.read_text().replace("DeepSeek-V3 671B", "DeepSeek-V3 (671B)"))
    build_site(mini_site, tmp_path / "c", jobs=1)
    assert len(builds) == 2 * built  # the data changed: every chart again
    assert "DeepSeek-V3 (671B)" in (tmp_path / "c/charts/en/fastest-per-benchmark.vl.json").read_text()


@pytest.mark.slow
def test_the_data_is_read_once_per_version_and_its_problems_on_every_build(mini_site, warm_cache, tmp_path,
                                                                          monkeypatch):
    """The data as the charts take it is kept in the cache (checking every round's rows costs an edit most of a
    second); data with a problem is never kept, so every build reports the problem."""
    for entry in (warm_cache / "values").glob("*.inputs"):
        entry.unlink()  # kept by another build of the same site
    reads = count_calls(monkeypatch, chart_catalog, "load_inputs", tmp_path)
    build_site(mini_site, tmp_path / "a", jobs=1)
    build_site(mini_site, tmp_path / "b", jobs=1)
    assert len(reads) == 1 and snapshot(tmp_path / "a") == snapshot(tmp_path / "b")
    results = mini_site / "data/rounds/v6.0/results.csv"
    results.write_text(results.read_text().replace(",6.25,", ",twenty,"))
    for attempt in range(2):
        with pytest.raises(SiteError, match="results.csv") as caught:
            build_site(mini_site, tmp_path / "c", jobs=1)
        assert caught.value.problems[0].line == 3
    results.write_text(results.read_text().replace(",twenty,", ",6.125,"))
    build_site(mini_site, tmp_path / "d", jobs=1)
    assert len(reads) == 4 and "6.125" in (tmp_path / "d/charts/en/fastest-per-benchmark.vl.json").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "flipped"])
def test_a_corrupt_cache_entry_is_ignored_and_rebuilt(mini_site, warm_cache, tmp_path, damage):
    def entries_of_this_build() -> list:
        return [p for folder in ("values", "templates") for p in (warm_cache / folder).glob("*")
                if p.suffix in (".articles", ".chart", ".jinja")]

    for entry in entries_of_this_build():  # only this build's entries, all damaged below
        entry.unlink()
    build_site(mini_site, tmp_path / "good", jobs=1)
    entries = entries_of_this_build()
    assert {entry.suffix for entry in entries} == {".articles", ".chart", ".jinja"}
    for entry in entries:
        raw = entry.read_bytes()
        entry.write_bytes({"garbage": b"\x80not a pickle", "truncated": raw[: len(raw) // 2], "empty": b"",
                           "flipped": raw[:-1] + bytes([raw[-1] ^ 1])}[damage])
    build_site(mini_site, tmp_path / "again", jobs=1)
    assert snapshot(tmp_path / "again") == snapshot(tmp_path / "good")
    assert all(cache.load(entry.suffix[1:], entry.stem) is not None for entry in entries  # rebuilt
               if entry.suffix != ".jinja")


def test_cache_keys_depend_on_every_part():
    assert cache.key("a", "b") != cache.key("ab") != cache.key(("a", "b"))
    assert cache.key("a", b"b", 1) == cache.key("a", b"b", 1)


def test_an_input_folders_fingerprint_follows_links_and_counts_where_they_lead(tmp_path):
    """A file replaced by a link to the same bytes outside the project is a change (the build refuses such a
    link); a linked folder's files count (a file edited in it is a change); a link back up is no loop."""
    data, outside = tmp_path / "data", tmp_path / "outside"
    (data / "rounds").mkdir(parents=True)
    outside.mkdir()
    (data / "a.csv").write_text("x\n")
    (outside / "a.csv").write_text("x\n")
    (outside / "round").mkdir()
    (outside / "round" / "results.csv").write_text("1\n")
    plain = cache.files_fingerprint(data)
    assert cache.files_fingerprint(data) == plain and cache.files_fingerprint(tmp_path / "none") != plain
    (data / "a.csv").unlink()
    (data / "a.csv").symlink_to(outside / "a.csv")
    linked = cache.files_fingerprint(data)
    assert linked != plain
    (data / "rounds" / "v1").symlink_to(outside / "round")
    (data / "rounds" / "loop").symlink_to(data)
    with_folder = cache.files_fingerprint(data)
    (outside / "round" / "results.csv").write_text("2\n")
    assert len({plain, linked, with_folder, cache.files_fingerprint(data)}) == 4
    (data / "gone.csv").symlink_to(tmp_path / "nothing")
    assert cache.files_fingerprint(data) == cache.files_fingerprint(data)  # a dangling link is no file


def test_clearing_the_cache_removes_build_entries(mini_site, warm_cache, tmp_path):
    build_site(mini_site, tmp_path / "out", jobs=1)
    assert any(p.suffix == ".chart" for p in (warm_cache / "values").iterdir())
    assert CliRunner().invoke(main, ["cache", "clear"]).exit_code == 0
    assert not any(any((warm_cache / namespace).iterdir()) for namespace in cache.NAMESPACES)


# --- --jobs ----------------------------------------------------------------------------------------------

def test_workers_return_results_in_order_and_one_job_uses_no_pool(monkeypatch):
    assert parallel.run(lambda shared, item: shared * item, range(50), 3, 2) == [2 * i for i in range(50)]
    monkeypatch.setattr(parallel, "ProcessPoolExecutor", None)  # a pool would fail
    assert parallel.run(lambda shared, item: os.getpid(), range(5), 1) == [os.getpid()] * 5


@pytest.mark.slow
def test_page_problems_from_workers_are_reported_together(mini_site, warm_cache, tmp_path):
    templates = mini_site / "templates"
    shutil.copytree(Path(__file__).resolve().parent.parent / "site_builder/theme/templates", templates)
    toml = mini_site / "site.toml"
    toml.write_text("\n".join(line for line in toml.read_text().splitlines() if not line.startswith("templates_dir")))
    base = templates / "article.html"
    base.write_text(base.read_text().replace("{{ article.title }}", "{{ article.no_such_field }}", 1))
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "out"), "-j", "2"])
    assert result.exit_code == 1 and "templates/article.html:" in result.stderr
    assert "no_such_field" in result.stderr and "Traceback" not in result.output + result.stderr


def test_jobs_must_be_positive(mini_site, tmp_path):
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "o"), "--jobs", "0"])
    assert result.exit_code == 2 and "--jobs" in result.stderr


# --- social cards ----------------------------------------------------------------------------------------

def test_a_card_is_drawn_without_vl_convert_when_a_font_is_found(tmp_path, monkeypatch):
    if images.card_fonts() is None:
        pytest.skip("no DejaVu Sans font installed")
    from PIL import Image

    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(images, "card_vega", None)  # would fail if called
    card = images.card_png("Đọc kết quả MLPerf Training mà không tự lừa mình", "Báo cáo", "18 tháng 6, 2026")
    image = Image.open(io.BytesIO(card))
    assert image.size == (images.CARD_WIDTH, images.CARD_HEIGHT) and image.format == "PNG"
    assert len(image.getcolors(100_000)) > 20  # text was drawn (antialiased), not a plain background
    assert images.card_png("Đọc kết quả MLPerf Training mà không tự lừa mình", "Báo cáo", "18 tháng 6, 2026") == card
    assert images.card_png("Another title", "Báo cáo", "18 tháng 6, 2026") != card


@pytest.mark.parametrize("title", ["Field notes on training run 12", "Đọc kết quả MLPerf Training mà không tự lừa mình " * 3,
                                   "W" * 90, "Ωμέγα Жж … gypq ẪẪẪ ỹỹ", ""])
def test_a_card_has_the_pixels_of_drawing_it_line_by_line(title, tmp_path, monkeypatch):
    """Cards are pasted from line masks and encoded band by band (blank rows spliced in): the same pixels as
    drawing each line with ImageDraw on the whole card, in a PNG whose zlib stream checks out."""
    if images.card_fonts() is None:
        pytest.skip("no DejaVu Sans font installed")
    import struct
    import zlib

    from PIL import Image, ImageChops, ImageDraw

    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "cache"))
    regular, bold = images.card_fonts()
    kicker, footer = "MLPerf Training report " * (4 if not title else 1), "18 tháng 6, 2026"
    card = images.card_png(title, kicker, footer)
    expected = Image.new("L", (images.CARD_WIDTH, images.CARD_HEIGHT), 0)
    draw, width = ImageDraw.Draw(expected), images.CARD_TEXT_WIDTH
    small, large, face = images._face(regular, 30), images._face(bold, 62), images._face(regular, 28)
    draw.text((72, 80), images._fit(draw, kicker, small, width), font=small, fill=images.CARD_MUTED_LEVEL)
    for number, line in enumerate(images._wrap(draw, title, large, width, images.CARD_TITLE_LINES)):
        draw.text((72, 150 + number * 76), line, font=large, fill=255)
    draw.text((72, images.CARD_HEIGHT - 110), images._fit(draw, footer, face, width), font=face,
              fill=images.CARD_MUTED_LEVEL)
    expected.putpalette(images._card_palette())
    drawn = Image.open(io.BytesIO(card))
    assert drawn.mode == "P" and ImageChops.difference(drawn.convert("RGB"), expected.convert("RGB")).getbbox() is None
    start = card.index(b"IDAT") - 4
    (size,) = struct.unpack(">I", card[start:start + 4])
    assert len(zlib.decompress(card[start + 8:start + 8 + size])) == images.CARD_HEIGHT * (images.CARD_WIDTH + 1)


def test_a_card_in_a_script_that_needs_shaping_goes_to_vl_convert(monkeypatch):
    drawn = []
    monkeypatch.setattr(images, "card_vega", lambda *text: drawn.append(text) or b"png")
    monkeypatch.setattr(images, "card_fast", lambda *args: pytest.fail("drawn letter by letter"))
    assert images.card_png("نتائج الجولة", "تقرير", "2026") == b"png" and drawn


def test_a_right_to_left_card_is_laid_out_from_the_right_a_line_a_mark(monkeypatch):
    """A card of a right-to-left page goes to vl-convert even in Latin letters (Pillow draws left to right only);
    each line is a mark of its own (resvg moved only the first letter of a right-to-left line of a multi-line
    text down), aligned right and opened with a RIGHT-TO-LEFT ISOLATE, since Vega writes no `direction`. A card
    of a left-to-right page is as it was; a bidi control makes a card vl-convert's (Pillow drew it as a box)."""
    drawn = []
    monkeypatch.setattr(images, "card_vega", lambda *text: drawn.append(text) or b"png")
    monkeypatch.setattr(images, "card_fast", lambda *args: pytest.fail("drawn letter by letter"))
    assert images.card_png("MLPerf Training v6.0", "Report", "2026", "rtl") == b"png"
    assert images.card_png("\u2068Benchmarks\u2069", "Report", "2026") == b"png"
    assert drawn == [("MLPerf Training v6.0", "Report", "2026", "rtl"), ("\u2068Benchmarks\u2069", "Report", "2026", "ltr")]
    title = "MLPerf Training v6.0: نظرة أولى على جولة"
    marks = [layer["mark"] for layer in images._card_vega_spec(title, "تقرير", "3 ديسمبر 2026", "rtl")["layer"]]
    assert [mark["text"] for mark in marks] == ["\u2067تقرير\u2069", "\u2067MLPerf Training v6.0: نظرة\u2069",
                                                 "\u2067أولى على جولة\u2069", "\u20673 ديسمبر 2026\u2069"]
    assert {(mark["x"], mark["align"]) for mark in marks} == {(images.CARD_WIDTH - images.CARD_MARGIN, "right")}
    assert [mark["y"] for mark in marks][1:3] == [150, 224]
    ltr = [layer["mark"] for layer in images._card_vega_spec(title, "Report", "2026")["layer"]]
    assert [mark["text"] for mark in ltr][1:3] == ["MLPerf Training v6.0: نظرة", "أولى على جولة"]
    assert {(mark["x"], mark["align"]) for mark in ltr} == {(images.CARD_MARGIN, "left")}


def test_long_titles_wrap_to_four_lines_with_an_ellipsis():
    if images.card_fonts() is None:
        pytest.skip("no DejaVu Sans font installed")
    from PIL import Image, ImageDraw, ImageFont

    draw = ImageDraw.Draw(Image.new("RGB", (10, 10)))
    font = ImageFont.truetype(io.BytesIO(images.card_fonts()[1]), 62)
    lines = images._wrap(draw, "word " * 80 + "Pneumonoultramicroscopicsilicovolcanoconiosis" * 3, font, 1056, 4)
    assert len(lines) == 4 and lines[-1].endswith("…")
    assert all(draw.textlength(line, font=font) <= 1056 for line in lines)


def test_each_card_is_drawn_once_the_articles_beside_their_markdown_and_none_is_cached(mini_site, warm_cache,
                                                                                       tmp_path, monkeypatch):
    if images.card_fonts() is None:
        pytest.skip("no DejaVu Sans font installed")
    for entry in (warm_cache / "values").glob("*.articles"):
        entry.unlink()  # every article read from its file, as in a cold build
    drawn, real_draw = [], images.draw_card

    def draw_card(task, file):
        drawn.append((task, "reading its article" if any(s.function == "_load_one" for s in inspect.stack())
                      else "later"))
        return real_draw(task, file)

    monkeypatch.setattr(images, "draw_card", draw_card)
    out = tmp_path / "out"
    build_site(mini_site, out, jobs=1)
    cards = sorted(out.glob("og/*/articles/*.png")) + sorted(out.glob("og/**/home.png"))  # every round's home
    assert cards and len(drawn) == len(cards) == len({task for task, _ in drawn})  # each once
    articles = {task[1][0] for task, when in drawn if when == "reading its article"}
    assert articles == {a.title for a in content.load_articles(mini_site / "content", ("en", "nl"))}
    assert all(when == "later" for task, when in drawn if task[1][0] not in articles)  # the home pages' cards
    cached = {p.read_bytes()[cache.MAC_SIZE:] for p in (warm_cache / "renders").glob("*.png")}
    assert not cached & {card.read_bytes() for card in cards}  # written once: into the site, not the cache
    title, kicker, footer, direction = next(task[1] for task, when in drawn if when == "reading its article")
    assert images.card_png(title, kicker, footer, direction) in {card.read_bytes() for card in cards}


def _square(_shared, number: int) -> int:
    return number * number


@pytest.mark.slow
def test_vl_convert_renders_while_this_process_forks_its_workers(tmp_path, monkeypatch):
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "cache"))
    spec = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "mark": "point",
            "data": {"values": [{"a": 1}]}, "encoding": {"x": {"field": "a", "type": "quantitative"}}}
    worker = images.FreshWorkers(images.stored_task, [("svg", {**spec, "title": "one"}),
                                                      ("svg", {**spec, "title": "two"})])
    assert threading.active_count() == 1  # nothing here waits on the worker: forking stays safe
    assert parallel.run(_square, range(40), 2) == [number * number for number in range(40)]
    first, second = worker.results()
    assert b">one<" in Path(first.path).read_bytes() and b">two<" in Path(second.path).read_bytes()


@pytest.mark.slow  # three vl-convert workers started
def test_many_renderings_are_made_by_a_worker_per_job_and_come_back_in_order(tmp_path, monkeypatch):
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(images, "RENDERINGS_PER_WORKER", 2)  # thousands, for a site with every round
    spec = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "mark": "point",
            "data": {"values": [{"a": 1}]}, "encoding": {"x": {"field": "a", "type": "quantitative"}}}
    titles = ["one", "two", "three", "four", "five", "six"]
    tasks = [("svg", {**spec, "title": title}) for title in titles]
    first = images.Renderings(tasks[:2], jobs=2)  # made first: found in the cache below
    assert len(first.vega._running) == 1  # two to make, fewer than two workers' worth: one worker
    first.results()
    made = images.Renderings([tasks[0], *tasks[2:], tasks[1]], jobs=2)
    assert [found is not None for found in made.found] == [True, False, False, False, False, True]
    assert len(made.vega._running) == 2  # four to make: a worker per job
    results = made.results()
    assert [f">{title}<".encode() in Path(result.path).read_bytes() for title, result in
            zip(["one", "three", "four", "five", "six", "two"], results)] == [True] * 6


def _square_when_told(_shared, item: tuple[int, str]) -> tuple[int, int]:
    """The first item waits until the last one is made (a file it writes), for two minutes at most."""
    import time

    number, told = item
    if number == 0:
        deadline = time.monotonic() + 120
        while not os.path.exists(told) and time.monotonic() < deadline:
            time.sleep(0.01)
        if not os.path.exists(told):
            return -1, os.getpid()
    if number == 19:
        Path(told).write_text("done")
    return number * number, os.getpid()


@pytest.mark.slow  # two spawned workers
def test_a_worker_takes_the_next_unit_when_it_is_done_so_none_waits_on_the_other(tmp_path):
    """Units are taken as the workers come free, not dealt beforehand: while one worker is held on the first unit
    (until the last item is made), the other makes every other unit, whatever the speed of the machine. Dealt in
    turn, the last item would have waited behind the first, which waits for it."""
    told = str(tmp_path / "told")
    made = images.FreshWorkers(_square_when_told, [(number, told) for number in range(20)],
                               [[number] for number in range(20)], workers=2).results()
    assert [square for square, _pid in made] == [number * number for number in range(20)]
    assert len({pid for _square, pid in made[1:]}) == 1 and made[0][1] != made[1][1]


@pytest.mark.slow
def test_a_worker_that_dies_fails_its_item_alone_and_the_rest_is_made(tmp_path, monkeypatch):
    """A panic that aborts a worker in the middle of a unit: that item fails, the rest of its unit and every unit
    nobody took yet are made by new workers, in order."""
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "cache"))
    spec = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "mark": "point",
            "data": {"values": [{"a": 1}]}, "encoding": {"x": {"field": "a", "type": "quantitative"}}}
    titles = ["one", "bad\ufffe", "three", "four", "five"]  # U+FFFE aborts vl-convert's process
    made = images.FreshWorkers(images.stored_task, [("svg", {**spec, "title": title}) for title in titles],
                               [[0, 1, 2], [3], [4]], workers=1).results()
    assert [isinstance(result, images.RenderFailure) for result in made] == [False, True, False, False, False]
    assert [f">{title}<".encode() in Path(result.path).read_bytes() for title, result in
            zip(titles, made) if not isinstance(result, images.RenderFailure)] == [True] * 4


def test_a_worker_that_fails_as_it_starts_is_an_error_and_not_a_hang(monkeypatch):
    """A process that fails before it takes any work (here an executable that exits at once; in life, a script
    that builds without the `__main__` guard) is an error naming why, at once: never a wait on a pipe nobody
    reads (multiprocessing holds its reading end), nor a process started again and again."""
    import multiprocessing.spawn
    import shutil
    import threading

    from site_builder.errors import SiteError

    multiprocessing.get_context("spawn").Value("q", 0)  # its resource tracker starts before the executable changes
    monkeypatch.setattr(multiprocessing.spawn, "_python_exe", os.fsencode(shutil.which("false")))
    items = [("svg", "x" * 100_000)] * 3  # far more than a pipe holds
    outcome = []

    def run():
        try:
            outcome.append(images.FreshWorkers(images.stored_task, items, workers=2).results())
        except SiteError as error:
            outcome.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(120)  # seconds: generous; the failure is found in well under one
    assert outcome, "the build still waits on a process that is gone"
    assert isinstance(outcome[0], SiteError) and "failed as it started (exit status 1)" in str(outcome[0])
    assert "__main__" in outcome[0].problems[0].hint


def test_a_charts_open_graph_image_is_its_wide_svg_rasterized_in_the_worker_that_made_the_svg(tmp_path,
                                                                                            monkeypatch):
    """A chart's renderings go to one worker, in order, so that its PNG finds the wide SVG made just before it
    (rasterizing it costs a third of drawing the chart again with Vega)."""
    import vl_convert

    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(images, "RENDERINGS_PER_WORKER", 2)
    spec = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "mark": "point",
            "data": {"values": [{"a": 1}]}, "encoding": {"x": {"field": "a", "type": "quantitative"}}}
    specs = [json.dumps({**spec, "title": title}) for title in ("one", "two", "three")]
    tasks = [(kind, text) for text in specs for kind in ("svg", "narrow-svg", "png")]
    made = images.Renderings(tasks, jobs=2)
    assert len(made.vega._running) == 2 and made.vega.units == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]  # a chart: a unit
    results = [Path(result.path).read_bytes()[cache.MAC_SIZE:] for result in made.results()]
    for wide, _narrow, png in zip(results[0::3], results[1::3], results[2::3]):
        assert png == vl_convert.svg_to_png(wide.decode(), scale=images.OPEN_GRAPH_SCALE)
        assert round(struct.unpack(">I", png[16:20])[0] / images.OPEN_GRAPH_SCALE) == \
            round(float(re.search(rb'<svg[^>]* width="([0-9.]+)"', wide)[1]))


# --- a build with nothing to do --------------------------------------------------------------------------

def test_an_unchanged_build_does_no_work(mini_site, warm_cache, tmp_path, monkeypatch):
    from site_builder import pages

    out = tmp_path / "out"
    first = build_site(mini_site, out, jobs=1)
    monkeypatch.setattr(pages, "plan_pages", lambda *args: pytest.fail("the site was planned again"))
    again = build_site(mini_site, out, jobs=1)
    assert (again.files, again.pages, again.charts, again.warnings, again.notes, again.written) == (
        first.files, first.pages, first.charts, first.warnings, first.notes, 0)


@pytest.mark.slow
@pytest.mark.parametrize("change", ["article", "template", "catalog", "data", "site.toml", "date", "strict",
                                    "output edited", "output file added", "cache cleared"])
def test_any_change_makes_a_real_build(mini_site, warm_cache, tmp_path, monkeypatch, change):
    from site_builder import pages

    templates = mini_site / "templates"
    shutil.copytree(Path(__file__).resolve().parent.parent / "site_builder/theme/templates", templates)
    toml = mini_site / "site.toml"
    toml.write_text("\n".join(line for line in toml.read_text().splitlines() if not line.startswith("templates_dir"))
                    .replace("https://example.org/mini/", "https://reports.mini-report.net/mini/"))  # --strict: a real URL
    out = tmp_path / "out"
    build_site(mini_site, out, jobs=1)
    strict = False
    edits = {
        "article": (mini_site / "content/en/hello.md", "Some text", "Some other text"),
        "template": (templates / "robots.txt", "\n", "\n\n"),
        "data": (mini_site / "data/benchmarks.csv", "test fixture", "test fixture."),
        "site.toml": (toml, "Mini report", "Mini-report"),
    }
    if change in edits:
        path, old, new = edits[change]
        assert old in path.read_text()
        path.write_text(path.read_text().replace(old, new, 1))
    elif change == "catalog":
        catalog = Path(__file__).resolve().parent.parent / "site_builder/theme/locales"
        shutil.copytree(catalog, mini_site / "locales")
        toml.write_text("\n".join(line for line in toml.read_text().splitlines() if not line.startswith("locales_dir")))
    elif change == "date":
        monkeypatch.setenv("SOURCE_DATE_EPOCH", "1781000000")
    elif change == "strict":
        strict = True
    elif change == "output edited":
        (out / "robots.txt").write_text("edited by hand\n")
    elif change == "output file added":
        (out / "stray.html").write_text("?")
    else:
        for namespace in cache.NAMESPACES:
            shutil.rmtree(warm_cache / namespace, ignore_errors=True)
    planned = count_calls(monkeypatch, pages, "plan_pages", tmp_path)
    report = build_site(mini_site, out, jobs=1, strict=strict)
    assert len(planned) == 1
    assert not (out / "stray.html").exists() and (out / "robots.txt").read_text() != "edited by hand\n"
    assert report.written == (1 if change == "output edited" else report.written)


def test_an_unchanged_build_from_the_command_line_loads_no_heavy_library(mini_site, warm_cache, tmp_path):
    import subprocess
    import sys

    out = tmp_path / "out"
    build_site(mini_site, out, jobs=1)
    script = ("import sys; from site_builder.cli import main\n"
              "try: main(['build', '--root', sys.argv[1], '--out', sys.argv[2]])\n"
              "except SystemExit: pass\n"
              "print(sorted(name for name in ('pandas', 'altair', 'jinja2', 'vl_convert') if name in sys.modules))")
    result = subprocess.run([sys.executable, "-c", script, str(mini_site), str(out)], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert result.stdout.strip() == "[]", result.stderr
    assert "built " in result.stderr and "(0 written)" in result.stderr


# --- charts: built and validated once --------------------------------------------------------------------

def chart_inputs():
    from site_builder import i18n
    from site_builder.config import load_config

    root = Path(__file__).resolve().parent.parent
    config = load_config(root, None)
    languages = [i18n.load_language(code, config.theme.locale_dirs, root)[0] for code in config.languages[:2]]
    return chart_catalog.load_inputs(config.data_dir, config.round, config.compared_round, root), languages


@pytest.mark.slow
def test_each_chart_is_validated_once_per_language_by_the_fast_validator(monkeypatch, tmp_path):
    """Once per chart and language, as a whole (not layer by layer), and by jsonschema-rs alone: Altair's own
    validation, ten to a hundred times slower, is only for a spec the fast one refuses."""
    from altair.utils import schemapi

    inputs, languages = chart_inputs()
    validated, slow = Calls(tmp_path / "validated"), Calls(tmp_path / "slow")  # noted in a worker too
    real_spec, real_slow = chart_catalog.validate_spec, schemapi.SchemaBase.validate.__func__

    def validate_spec(kind, spec):
        validated.note(kind.__name__)
        return real_spec(kind, spec)

    def validate(cls, instance, schema=None):
        slow.note(cls.__name__)
        return real_slow(cls, instance, schema)

    monkeypatch.setattr(chart_catalog, "validate_spec", validate_spec)
    monkeypatch.setattr(schemapi.SchemaBase, "validate", classmethod(validate))
    built = chart_catalog.build_charts(inputs, languages)
    assert len(validated) == len(built.charts) > 0 and len(slow) == 0


def test_an_invalid_spec_is_still_an_error_naming_the_chart(monkeypatch):
    import altair as alt

    inputs, languages = chart_inputs()

    def broken(inputs, lang):
        chart = alt.Chart(alt.Data(values=[{"a": 1}])).mark_point().encode(
            x=alt.X("a:Q", scale=alt.Scale(type="no-such-scale")))
        return chart_catalog.ChartDraft(chart, "t", "h", "s", "d", inputs.current.iloc[0:0], 0, 0, ["A summary."])

    with pytest.raises(SiteError, match=r"chart 'broken' \(en\) could not be built: ValidationError: 'no-such-scale'"):
        chart_catalog.build_chart("broken", broken, inputs, languages[0])
