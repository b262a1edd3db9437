"""Every round in one site: a section per round, articles bound to their round, stable URLs when the main
round changes."""

import csv
import io
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder.cli import main
from site_builder.config import load_config
from site_builder.rounds import discover_rounds, load_round_info, round_order
from tests.conftest import ROOT, write_files
from tests.site_checks import broken_links

ROUNDS = discover_rounds(ROOT / "data")
MAIN = load_config(ROOT).round


def _slug(round_name: str) -> str:
    return round_name.replace(".", "-")


def _project(root: Path, main_round: str) -> Path:
    """A copy of the shipped project with another main round."""
    root.mkdir(parents=True)
    shutil.copytree(ROOT / "content", root / "content")
    shutil.copytree(ROOT / "data", root / "data")
    text = (ROOT / "site.toml").read_text(encoding="utf-8")
    (root / "site.toml").write_text(re.sub(r'(?m)^round = ".*"$', f'round = "{main_round}"', text), encoding="utf-8")
    return root


def _build(root: Path, out: Path):
    result = CliRunner().invoke(main, ["build", "--root", str(root), "--out", str(out)])
    assert result.exit_code == 0, result.output + str(result.exception)
    return result


def _article_pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.glob("*/articles/**/index.html"))


def test_rounds_are_ordered_by_their_numbers():
    assert sorted(["v10.0", "v9.1", "v1.0", "v1.1"], key=round_order) == ["v1.0", "v1.1", "v9.1", "v10.0"]
    assert ROUNDS[0] == "v1.0" and len(ROUNDS) >= 11


@pytest.mark.slow
def test_every_round_has_its_section(shipped_site):
    for round_name in ROUNDS:
        page = shipped_site / "en/rounds" / _slug(round_name) / "index.html"
        text = page.read_text(encoding="utf-8")
        if round_name == MAIN:  # the main round's pages are at the language's root; its round address leads there
            assert 'http-equiv="refresh" content="0; url=../../index.html"' in text
            continue
        label = load_round_info(ROOT / "data", round_name).label
        assert f"<h1>{label}</h1>" in text
        bar = text[text.index('class="round-bar"'):text.index("</nav>", text.index('class="round-bar"'))]
        assert '<a href="../index.html">Every round</a>' in bar  # the round's bar leads to the list of rounds
        with (ROOT / "data/rounds" / round_name / "results.csv").open(encoding="utf-8") as handle:
            folders = {row["benchmark"] for row in csv.DictReader(handle)}
        pages = list((page.parent / "benchmarks").glob("*/index.html"))
        assert len(pages) == len(folders), round_name  # one page per benchmark (a renamed folder is its successor)


@pytest.mark.slow
def test_a_benchmark_page_links_the_same_benchmark_in_every_round(shipped_site):
    # RetinaNet ran in a folder named for its predecessor in some rounds (round.toml `same_as`): one benchmark.
    text = (shipped_site / "en/rounds/v4-0/benchmarks/retinanet/index.html").read_text(encoding="utf-8")
    across = text[text.index('class="across-rounds"'):text.index("</nav>", text.index('class="across-rounds"'))]
    linked = re.findall(r'href="\.\./\.\./\.\./([^"]+)/benchmarks/retinanet/index\.html"', across)
    assert "v2-0" in linked and "v5-1" in linked and 'aria-current="page">v4.0' in across
    assert not (shipped_site / "en/rounds/v2-0/benchmarks/ssd").exists()
    assert (shipped_site / "en/rounds/v1-0/benchmarks/ssd/index.html").exists()  # SSD (ResNet-34): another one


@pytest.mark.slow
def test_another_main_round_keeps_every_article_at_its_url(shipped_site, tmp_path, warm_cache):
    root = _project(tmp_path / "site", "v5.1")
    out = tmp_path / "out"
    _build(root, out)
    assert _article_pages(out) == _article_pages(shipped_site)
    # The articles are of their own round: their figures link to its rows, now in the round's own section.
    article = (out / "en/articles/methodology/index.html").read_text(encoding="utf-8")
    assert re.search(r'href="\.\./\.\./rounds/v6-0/benchmarks/[a-z0-9-]+/index\.html#r-v6-0-', article)
    assert "<h1>MLPerf Training v6.0</h1>" in (out / "en/rounds/v6-0/index.html").read_text(encoding="utf-8")
    assert 'url=../../index.html"' in (out / "en/rounds/v5-1/index.html").read_text(encoding="utf-8")
    assert broken_links(out) == []


@pytest.mark.slow
def test_a_newer_round_becomes_the_main_round(tmp_path, warm_cache):
    """A fixture round after the shipped ones (the shipped main round's results again, as the next round's): every
    article keeps building, at the same URL, with its figures in its own round."""
    root = _project(tmp_path / "site", "v99.0")
    rows = list(csv.DictReader(io.StringIO((ROOT / f"data/rounds/{MAIN}/results.csv").read_text(encoding="utf-8"))))
    for row in rows:
        row["round"] = "v99.0"
    folder = root / "data/rounds/v99.0"
    folder.mkdir()
    with (folder / "results.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    (folder / "round.toml").write_text('label = "MLPerf Training v99.0 (fixture)"\n', encoding="utf-8")
    out = tmp_path / "out"
    _build(root, out)
    articles = _article_pages(out)
    assert articles and all(not path.startswith(("rounds/", "en/rounds/")) for path in articles)
    assert "rounds/v6-0/benchmarks" in (out / "en/articles/methodology/index.html").read_text(encoding="utf-8")
    assert '<h1>MLPerf Training v99.0 (fixture)</h1>' not in (out / "en/index.html").read_text(encoding="utf-8")
    assert (out / f"en/rounds/{_slug(MAIN)}/benchmarks/index.html").read_text(encoding="utf-8").count("round-bar")


def test_an_article_of_a_round_the_site_lacks_is_an_error_at_its_line(mini_site):
    write_files(mini_site, {"content/en/later.md": """
        ---
        title: "A later round"
        date: 2026-06-23
        summary: "Names a round with no data."
        authors: ["Test desk"]
        tags: ["mlperf"]
        key: later
        round: v9.9
        ---
        Text.
        """})
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(mini_site / "_site")])
    assert result.exit_code != 0
    assert "content/en/later.md:8: error: front matter 'round' names 'v9.9', a round this site does not have" \
        in result.output
    assert "rounds of this site: v5.1, v6.0" in result.output


def test_a_figure_resolves_in_its_article_round(mini_site):
    """The same reference names a row of the article's round: `llama31_8b/b8` is v5.1's 99.5 in an article of
    v5.1, and v6.0's 86.8446 in one of the main round."""
    write_files(mini_site, {"content/en/before.md": """
        ---
        title: "The round before"
        date: 2026-06-23
        summary: "An article of the previous round."
        authors: ["Test desk"]
        tags: ["mlperf"]
        key: before
        round: v5.1
        ---
        It took {{< fig score llama31_8b/b8 >}} minutes; now {{< fig score v6.0:llama31_8b/b8 >}}.
        """})
    _build(mini_site, mini_site / "_site")
    text = (mini_site / "_site/en/articles/before/index.html").read_text(encoding="utf-8")
    values = re.findall(r'<data value="([\d.]+)">', text)
    assert values == ["99.5000", "86.8446"]
    assert 'href="../../rounds/v5-1/benchmarks/llama31-8b/index.html#r-v5-1-beta-b8--minutes"' in text
    assert 'href="../../benchmarks/llama31-8b/index.html#r-v6-0-beta-b8--minutes"' in text


def test_without_the_archive_the_round_before_is_still_the_one_compared_with(tmp_path):
    """`archive = false` keeps the main round and the round before it in data/rounds/ (its claims and figures
    compare with that round), and no other."""
    root = _project(tmp_path / "site", MAIN)
    text = (root / "site.toml").read_text(encoding="utf-8")
    (root / "site.toml").write_text(text.replace(f'round = "{MAIN}"\n', f'round = "{MAIN}"\narchive = false\n'),
                                    encoding="utf-8")
    config = load_config(root)
    before = ROUNDS[ROUNDS.index(MAIN) - 1]
    assert config.compared_round == before and config.site_rounds == [before, MAIN]
    assert load_config(ROOT).site_rounds == ROUNDS
