import pytest

from site_builder.build import build_site
from site_builder.errors import SiteError
from site_builder.output import MARKER, SiteFiles, write_site
from site_builder.render import relative_url


@pytest.mark.parametrize("path", ["../evil.html", "/etc/passwd", "a/../../b", "a\\b", "", MARKER])
def test_paths_outside_the_root_are_refused(path):
    with pytest.raises(SiteError, match="refusing to write outside the site root"):
        SiteFiles().add(path, "x")


def test_a_path_written_twice_is_refused():
    files = SiteFiles()
    files.add("a/index.html", "1")
    with pytest.raises(SiteError, match="two outputs want the same path 'a/index.html'"):
        files.add("a/./index.html", "2")


def test_write_replaces_previous_site_and_leaves_no_temp_dirs(tmp_path):
    out = tmp_path / "_site"
    first = SiteFiles()
    first.add("old.html", "old")
    write_site(first, out)
    second = SiteFiles()
    second.add("new/index.html", "new")
    write_site(second, out)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [MARKER, "new/index.html"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_site"]


def test_refuses_to_replace_a_folder_it_did_not_write(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "precious.txt").write_text("keep me")
    files = SiteFiles()
    files.add("index.html", "x")
    with pytest.raises(SiteError, match="was not written by site-builder"):
        write_site(files, tmp_path / "docs")
    assert (tmp_path / "docs" / "precious.txt").read_text() == "keep me"


def test_failed_build_keeps_previous_site_and_reports_every_problem(mini_site, tmp_path):
    out = tmp_path / "out"
    build_site(mini_site, out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    csv = mini_site / "data/rounds/v6.0/results.csv"
    csv.write_text(csv.read_text().replace(",20.5,", ",-1,"))
    article = mini_site / "content/en/hello.md"
    article.write_text(article.read_text().replace("key: hello", "key: hello\nmood: happy"))
    with pytest.raises(SiteError) as caught:
        build_site(mini_site, out)
    messages = [str(p) for p in caught.value.problems]
    assert any(m.startswith("data/rounds/v6.0/results.csv:2: error: column 'score_minutes' has the negative value")
               for m in messages)
    assert any(m.startswith("content/en/hello.md:8: error: unknown front matter key 'mood'") for m in messages)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "site"]


@pytest.mark.parametrize("source, target, expected", [
    ("index.html", "en/index.html", "en/index.html"),
    ("en/index.html", "en/benchmarks/flux1/index.html", "benchmarks/flux1/index.html"),
    ("en/benchmarks/flux1/index.html", "assets/site.css", "../../../assets/site.css"),
    ("nl/articles/x/index.html", "it/", "../../../it/index.html"),
])
def test_relative_urls(source, target, expected):
    assert relative_url(source, target) == expected
