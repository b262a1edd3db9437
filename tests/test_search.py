"""Site search: the Pagefind index is an output of the build like the others: made with the site, made again
when a page it indexes changed, untouched otherwise, byte-identical from one build to the next; search = false
and a missing Pagefind."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from site_builder import output, search
from site_builder.build import build_site
from site_builder.errors import SiteError
from tests.test_incremental import identities, snapshot


def indexed_text(site: Path) -> str:
    """Every page's text as the indexes hold it (each fragment is "pagefind_dcd" and JSON, gzipped)."""
    texts = []
    for fragment in sorted((site / "pagefind").glob("*/fragment/*")):
        data = json.loads(gzip.decompress(fragment.read_bytes()).removeprefix(b"pagefind_dcd"))
        texts.append(f"{data['url']} {data['content']}")
    return "\n".join(texts)


def index_files(site: Path) -> dict:
    return {path: value for path, value in identities(site).items() if path.startswith("pagefind/")}


def test_the_index_covers_each_language_main_content_not_menus(mini_site, warm_cache, tmp_path):
    out = tmp_path / "out"
    build_site(mini_site, out, jobs=1)
    for lang in ("en", "nl"):  # an index per language, of that language's pages
        assert list(json.loads((out / f"pagefind/{lang}/pagefind-entry.json").read_text())["languages"]) == [lang]
    text = indexed_text(out)
    assert "/en/articles/hello/index.html" in text and "/nl/articles/alleen/index.html" in text
    assert "Skip to content" not in text and "Atom feed" not in text  # header and footer are not indexed
    assert "/search/" not in text and "/embed/" not in text  # nor the search pages, nor embeds
    assert not list((out / "pagefind").glob("*/pagefind-ui*"))  # Pagefind's own UI is not shipped
    for lang in ("en", "nl"):
        page = (out / f"{lang}/search/index.html").read_text()
        assert "'wasm-unsafe-eval'" in page and f'data-index="../../pagefind/{lang}/pagefind.js"' in page
        assert "'wasm-unsafe-eval'" not in (out / f"{lang}/index.html").read_text()  # only where it is needed


def test_a_label_and_its_value_stay_apart_in_the_index(mini_site, warm_cache, tmp_path):
    """A search result's excerpt is the indexed text: Pagefind joins elements' texts as they are written, so a
    label (dt) written right against its value (dd) read "Runs per result5" and "Parametersnot in our sources"."""
    import re

    out = tmp_path / "out"
    build_site(mini_site, out, jobs=1)
    text = "\n".join(line for line in indexed_text(out).splitlines() if line.startswith("/en/"))
    labels = ["Runs per result", "In MLPerf Training since", "Organizations"]
    assert all(label in text for label in labels)
    assert not [match for label in labels for match in re.findall(re.escape(label) + r"[^\s.,:;)]", text)]


def test_an_edit_remakes_the_index_and_a_change_elsewhere_leaves_it(mini_site, warm_cache, tmp_path, monkeypatch):
    runs = []
    real = search._start_pagefind
    monkeypatch.setattr(search, "_start_pagefind", lambda *args: runs.append(args[0].parent.name) or real(*args))
    shutil.copytree(Path(search.__file__).parent / "theme/templates", mini_site / "templates")
    toml = mini_site / "site.toml"
    toml.write_text("\n".join(line for line in toml.read_text().splitlines() if not line.startswith("templates_dir")))
    out = tmp_path / "out"
    build_site(mini_site, out, jobs=1)
    first = index_files(out)
    article = mini_site / "content/en/hello.md"
    article.write_text(article.read_text().replace("Some text", "Some zanzibarian text"))
    build_site(mini_site, out, jobs=1)
    assert runs == ["en", "nl", "en"]  # the edit makes only its language's index again
    assert "zanzibarian" in indexed_text(out) and index_files(out) != first
    second = index_files(out)
    # What no indexed page reads changes (the feeds' template): the index is kept, Pagefind not run.
    feed = mini_site / "templates/feed.xml"
    feed.write_text(feed.read_text().replace("<feed ", "<!-- edited -->\n<feed ", 1))
    report = build_site(mini_site, out, jobs=1)
    assert report.written == 2 and index_files(out) == second and len(runs) == 3  # the two feeds
    # A file of the index removed by hand: the index is made again, whole.
    next((out / "pagefind/nl/fragment").iterdir()).unlink()
    feed.write_text(feed.read_text() + "\n")
    build_site(mini_site, out, jobs=1)
    assert runs[3:] == ["nl"] and set(index_files(out)) == set(second)



def shard_pages(site: Path, lang: str) -> list[set[str]]:
    """The pages each shard of a language's index holds, the first shard first (as its shards.json lists them)."""
    first = site / "pagefind" / lang
    folders = [first, *((first / folder).resolve() for folder in json.loads((first / "shards.json").read_text()))]
    return [{json.loads(gzip.decompress(fragment.read_bytes()).removeprefix(b"pagefind_dcd"))["url"]
             for fragment in (folder / "fragment").iterdir()} for folder in folders]


def test_shards_hold_each_page_once_and_keep_their_pages_as_pages_come_and_go():
    pages = [f"en/articles/a{number}/index.html" for number in range(1000)]
    parts = search.shards(pages)
    assert len(parts) == 4 and sorted(p for part in parts for p in part) == sorted(pages)
    assert all(200 < len(part) < 300 for part in parts)  # even by the hash
    assert search.shards(pages[:-1]) == [[p for p in part if p != pages[-1]] for part in parts]  # no page moves
    assert search.shards(pages[:300]) == [sorted(pages[:300])] and search.shards([]) == [[]]


@pytest.fixture
def sharded(mini_site, warm_cache, tmp_path, monkeypatch):
    """The mini site built with shards of two pages, and the Pagefind runs (their folder's names)."""
    monkeypatch.setattr(search, "SHARD_PAGES", 2)
    runs = []
    real = search._start_pagefind
    monkeypatch.setattr(search, "_start_pagefind", lambda *args: runs.append(args[0].parent.name) or real(*args))
    build_site(mini_site, tmp_path / "out", jobs=2)
    return tmp_path / "out", runs


def test_a_language_index_comes_in_shards_which_its_first_lists(sharded):
    """Pagefind's time and memory grow faster than the pages it indexes: a language's pages are indexed in shards
    (each page in one, named by its path's hash), which its first shard lists for search.js to merge."""
    out, runs = sharded
    en = shard_pages(out, "en")
    assert len(en) > 2 and all(en) and sum(map(len, en)) == len(set().union(*en))  # each page in one shard
    assert "/en/articles/hello/index.html" in set().union(*en) and len(runs) == len(en) + len(shard_pages(out, "nl"))
    assert set(json.loads((out / "pagefind/en/shards.json").read_text())) == \
        {f"../{folder.name}/" for folder in (out / "pagefind").glob("en.*")}
    assert all(list(json.loads((folder / "pagefind-entry.json").read_text())["languages"]) == ["en"]
               for folder in (out / "pagefind").glob("en*"))


@pytest.mark.slow
def test_an_edit_remakes_the_shard_of_its_page_only(sharded, mini_site, monkeypatch):
    out, runs = sharded
    en = shard_pages(out, "en")
    article = mini_site / "content/en/hello.md"
    article.write_text(article.read_text().replace("Some text", "Some zanzibarian text"))
    del runs[:]
    build_site(mini_site, out, jobs=2)
    holding = next(number for number, pages in enumerate(en) if "/en/articles/hello/index.html" in pages)
    assert runs == ["en" if holding == 0 else f"en.{holding + 1}"] and shard_pages(out, "en") == en
    assert "zanzibarian" in indexed_text(out)
    monkeypatch.setattr(search, "SHARD_PAGES", 300)  # one shard again: the others' folders go
    article.write_text(article.read_text().replace("zanzibarian", "zanzibarese"))
    build_site(mini_site, out, jobs=2)
    assert shard_pages(out, "en") == [set().union(*en)] and not list((out / "pagefind").glob("en.*"))


@pytest.mark.slow
def test_an_edit_reads_only_the_pages_made_again_and_links_only_its_shards_pages(sharded, mini_site, monkeypatch):
    """A kept page's digest is the one the last build took (its file is unchanged): the index's keys cost no
    read of the thousands of pages an edit keeps, and only the remade shard's pages are put before Pagefind."""
    out, runs = sharded
    en = shard_pages(out, "en")
    read, linked = [], []
    del runs[:]
    real_read, real_link = output.SiteFiles.read, output.SiteFiles.link
    monkeypatch.setattr(output.SiteFiles, "read", lambda self, path, site: read.append(path)
                        or real_read(self, path, site))
    monkeypatch.setattr(output.SiteFiles, "link", lambda self, path, site, to: linked.append(path)
                        or real_link(self, path, site, to))
    article = mini_site / "content/en/hello.md"
    article.write_text(article.read_text().replace("Some text", "Some zanzibarian text"))
    build_site(mini_site, out, jobs=2)
    assert read == ["en/articles/hello/index.html"]
    shard = next(pages for pages in en if "/en/articles/hello/index.html" in pages)
    assert len(runs) == 1 and shard <= {f"/{path}" for path in linked} and len(linked) < sum(map(len, en))
    assert all(path.startswith("en/") for path in linked)
    assert "zanzibarian" in indexed_text(out)
    # A kept page changed by hand since is read again: its file is not the one the digest was taken of.
    page = next(path for path in sorted(set().union(*en)) if "hello" not in path)
    (out / page.lstrip("/")).write_text((out / page.lstrip("/")).read_text() + " ")
    del read[:]
    build_site(mini_site, out, jobs=2)
    assert read == [page.lstrip("/")]


def test_the_index_is_byte_identical_from_one_build_to_the_next(mini_site, warm_cache, tmp_path):
    """With one job and with two: the index, and with it the whole site, byte for byte."""
    one, two = tmp_path / "one", tmp_path / "two"
    build_site(mini_site, one, jobs=1)
    build_site(mini_site, two, jobs=2)
    assert any(path.startswith("pagefind/") for path in snapshot(one))
    assert snapshot(one) == snapshot(two)


def test_search_off_makes_no_index_no_search_page_and_no_link(mini_site, warm_cache, tmp_path, monkeypatch):
    toml = mini_site / "site.toml"
    toml.write_text("search = false\n" + toml.read_text())  # a top-level key: before any [table]
    monkeypatch.setattr(search, "binary", lambda: pytest.fail("Pagefind was run"))
    out = tmp_path / "out"
    build_site(mini_site, out, jobs=1)
    assert not (out / "pagefind").exists() and not (out / "en/search").exists()
    assert "search/index.html" not in (out / "en/index.html").read_text()


def test_a_missing_pagefind_fails_the_build_with_what_to_do(mini_site, warm_cache, tmp_path, monkeypatch):
    import_module = search.importlib.import_module

    def no_pagefind(name, *args):  # only Pagefind is missing: a lazily loaded library (Altair's schemas) is not
        if name.startswith("pagefind"):
            raise ImportError(name)
        return import_module(name, *args)

    monkeypatch.setattr(search.importlib, "import_module", no_pagefind)
    with pytest.raises(SiteError) as raised:
        build_site(mini_site, tmp_path / "out", jobs=1)
    problem = raised.value.problems[0]
    assert "needs Pagefind" in problem.message and "search = false" in problem.hint
    assert not (tmp_path / "out").exists()  # nothing was written


def test_a_pagefind_that_fails_is_reported(mini_site, warm_cache, tmp_path, monkeypatch):
    broken = tmp_path / "pagefind"
    broken.write_text("#!/bin/sh\necho 'cannot index' >&2\nexit 3\n")
    broken.chmod(0o755)
    monkeypatch.setattr(search, "binary", lambda: broken)
    with pytest.raises(SiteError, match=r"Pagefind failed \(exit status 3\): cannot index"):
        build_site(mini_site, tmp_path / "out", jobs=1)
