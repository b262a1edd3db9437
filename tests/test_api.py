"""The Python API as the README shows it: `from site_builder import build_site`, run exactly as written there."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def _readme_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Use from Python", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.mark.slow
def test_the_readme_example_builds_and_reports(mini_site, tmp_path, monkeypatch, capsys):
    shutil.copytree(mini_site, tmp_path / "work/my-report")
    monkeypatch.chdir(tmp_path / "work")
    exec(compile(_readme_example(), "README.md", "exec"), {})  # noqa: S102 - the documented example, verbatim
    printed = capsys.readouterr().out.splitlines()
    assert re.match(r"\d+ pages, \d+ charts, \d+ files \(\d+ written\) in \d+\.\d s", printed[0])
    from site_builder.stages import STAGES

    assert [line.split(":")[0] for line in printed[-len(STAGES) - 1:]] == [
        "checking inputs", *(stage.name for stage in STAGES)]
    assert (tmp_path / "work/public/en/index.html").is_file()


@pytest.mark.slow
def test_the_readme_example_prints_every_problem(mini_site, tmp_path, monkeypatch, capsys):
    shutil.copytree(mini_site, tmp_path / "work/my-report")
    (tmp_path / "work/my-report/content/en/hello.md").write_text("---\ntitle: x\n---\n")
    monkeypatch.chdir(tmp_path / "work")
    try:
        exec(compile(_readme_example(), "README.md", "exec"), {})  # noqa: S102
    except SystemExit as done:
        assert done.code == 1
    else:
        raise AssertionError("the example should stop with exit code 1")
    assert "content/en/hello.md:1: error: missing front matter key 'date'" in capsys.readouterr().out


@pytest.mark.slow
def test_importing_the_package_imports_no_build():
    code = ("import sys, site_builder\n"
            "print(sorted(m for m in ('site_builder.build', 'pandas', 'altair') if m in sys.modules))\n"
            "assert callable(site_builder.build_site) and 'site_builder.build' in sys.modules\n"
            "assert site_builder.SiteError.__name__ == 'SiteError' and site_builder.build_site.__doc__\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
