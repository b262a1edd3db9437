import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from site_builder import __version__
from site_builder.cli import main


def test_help_does_not_import_heavy_libraries():
    code = ("import sys; from site_builder.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('pandas', 'altair', 'vl_convert', 'markdown') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip().endswith("[]")


def test_version_and_module_entry_point():
    result = subprocess.run([sys.executable, "-m", "site_builder", "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == f"site-builder, version {__version__}"


@pytest.mark.slow
def test_build_prints_summary_and_exits_zero(mini_site, tmp_path):
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "out"),
                                       "--base-url", "https://example.net/reports/v6/"])
    assert result.exit_code == 0, result.output
    assert "2 languages (en, nl)" in result.stderr and "pages" in result.stderr and "charts" in result.stderr
    assert "https://example.net/reports/v6/" in (tmp_path / "out/sitemap.xml").read_text()


def test_build_errors_exit_one_and_name_the_place(mini_site, tmp_path):
    (mini_site / "content/en/hello.md").write_text("---\ntitle: x\n---\n")
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "content/en/hello.md:1: error: missing front matter key 'date'" in result.stderr
    assert "the previous site is unchanged" in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_strict_turns_warnings_into_errors(mini_site, tmp_path):
    text = (mini_site / "site.toml").read_text()
    (mini_site / "site.toml").write_text(text.replace('["en", "nl"]', '["en", "nl", "de"]').replace(
        'nl = "Mini-rapport"', 'nl = "Mini-rapport"\nde = "Minibericht"'))
    (mini_site / "content/de").mkdir()
    (mini_site / "content/de/hallo.md").write_text((mini_site / "content/nl/hallo.md").read_text())
    lenient = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "a")])
    assert lenient.exit_code == 0 and "warning: no catalog for language 'de'" in lenient.stderr
    strict = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "b"), "--strict"])
    assert strict.exit_code == 1 and "error: no catalog for language 'de'" in strict.stderr


def test_check_reports_originals_and_parallel_originals_without_failing(mini_site):
    lenient = CliRunner().invoke(main, ["check", "--root", str(mini_site)])
    assert lenient.exit_code == 0
    assert lenient.output.splitlines() == [
        "en: 1 article, 0 missing, 0 stale, 1 written for other languages only",
        "  parallel: hello: parallel originals in en, nl",
        "  original: only-dutch: written for nl only (no article declares translation_of)",
        "nl: 2 articles, 0 missing, 0 stale, 0 written for other languages only",
        "  parallel: hello: parallel originals in en, nl",
    ]
    assert CliRunner().invoke(main, ["check", "--root", str(mini_site), "--strict"]).exit_code == 0


@pytest.mark.slow
def test_chart_export(tmp_path):
    from tests.conftest import ROOT

    svg = CliRunner().invoke(main, ["chart", "mi355x-vs-b200", "--lang", "vi", "--format", "svg", "--root", str(ROOT)])
    assert svg.exit_code == 0 and svg.stdout_bytes.startswith(b"<svg")
    assert "3,6%" in svg.stdout_bytes.decode()
    out = tmp_path / "chart.png"
    # an old id (an alias in round.toml) still exports its chart
    png = CliRunner().invoke(main, ["chart", "deepseek-scaling", "--lang", "it", "--format", "png", "-o", str(out),
                                    "--root", str(ROOT)])
    assert png.exit_code == 0 and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    spec = CliRunner().invoke(main, ["chart", "participation", "--lang", "nl", "--format", "json", "--root", str(ROOT)])
    assert '"decimal": ","' in spec.stdout
    wrong = CliRunner().invoke(main, ["chart", "amd-vs-nvdia", "--lang", "en", "--root", str(ROOT)])
    assert wrong.exit_code == 1 and "did you mean 'amd-vs-nvidia'?" in wrong.stderr


def test_unknown_chart_in_an_article_names_file_line_and_closest_id(mini_site, tmp_path):
    article = mini_site / "content/en/hello.md"
    article.write_text(article.read_text() + "\n{{< chart scaling-deepseekv3-671 >}}\n")
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "content/en/hello.md:19: error: unknown chart 'scaling-deepseekv3-671'" in result.stderr
    assert "did you mean 'scaling-deepseekv3-671b'?" in result.stderr


@pytest.mark.slow
def test_the_console_script_exits_with_its_code_and_says_everything_first(mini_site, tmp_path):
    """`python -m site_builder` (and the site-builder script) skip tearing objects down at exit: the exit code,
    and every line written before it, must still come out."""
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "site_builder", *args], capture_output=True, text=True,
                              env={**os.environ, "SITE_BUILDER_CACHE": str(tmp_path / "cache")})

    built = run("build", "--root", str(mini_site), "--out", str(tmp_path / "out"), "--jobs", "1")
    assert built.returncode == 0 and built.stderr.rstrip().splitlines()[-1].startswith("built ")
    failed = run("build", "--root", str(tmp_path / "nowhere"))
    assert failed.returncode == 1 and "no site.toml" in failed.stderr and "build failed" in failed.stderr
    assert run("no-such-command").returncode == 2
    version = run("--version")
    assert version.returncode == 0 and version.stdout.startswith("site-builder, version ")



REPORT_KEYS = ["format", "ok", "out_dir", "up_to_date", "languages", "pages", "charts", "files", "files_written",
               "errors", "warnings", "notes", "seconds", "stages"]


def test_build_report_for_a_build_a_no_op_build_and_a_failed_one(mini_site, tmp_path):
    import json

    out, path = tmp_path / "out", tmp_path / "reports/build.json"
    built = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(out), "--report", str(path)])
    assert built.exit_code == 0, built.output
    report = json.loads(path.read_text())
    assert list(report) == REPORT_KEYS
    assert (report["ok"], report["up_to_date"], report["languages"]) == (True, False, ["en", "nl"])
    assert report["pages"] > 0 and report["charts"] > 0 and report["files"] > 0 and report["files_written"] > 0
    from site_builder.stages import STAGES

    assert [stage["stage"] for stage in report["stages"]] == ["checking inputs", *(s.name for s in STAGES)]
    assert all(stage["seconds"] >= 0 for stage in report["stages"])
    [placeholder] = report["warnings"]
    assert list(placeholder) == ["path", "line", "col", "severity", "message", "hint"]
    assert (placeholder["path"], placeholder["line"], placeholder["severity"]) == ("site.toml", 3, "warning")
    assert not list(path.parent.glob(".*"))  # written atomically: no temporary file left

    again = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(out), "--report", str(path)])
    assert again.exit_code == 0
    no_op = json.loads(path.read_text())
    assert list(no_op) == REPORT_KEYS
    assert (no_op["ok"], no_op["up_to_date"], no_op["files_written"], no_op["stages"]) == (True, True, 0, [])
    assert (no_op["pages"], no_op["warnings"]) == (report["pages"], report["warnings"])

    (mini_site / "content/en/hello.md").write_text("---\ntitle: x\n---\n")
    failed = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(out), "--report", str(path)])
    assert failed.exit_code == 1
    broken = json.loads(path.read_text())
    assert list(broken) == REPORT_KEYS and broken["ok"] is False and broken["pages"] is None
    assert {"path": "content/en/hello.md", "line": 1, "col": None, "severity": "error",
            "message": "missing front matter key 'date'", "hint": None} in broken["errors"]

    inside = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(out),
                                       "--report", str(out / "report.json")])
    assert inside.exit_code == 1 and "is inside the output folder" in inside.stderr
    assert not (out / "report.json").exists()


def test_screenshot_errors_are_clear_before_any_browser_starts(tmp_path, monkeypatch):
    from site_builder import screenshot
    from site_builder.errors import SiteError

    with pytest.raises(SiteError, match="no such page"):
        screenshot.screenshot(tmp_path / "missing.html", tmp_path / "x.png")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SiteError, match="no Chromium found on PATH"):
        screenshot.find_chromium()
