"""Articles cite numbers and claims through shortcodes: built pages show them localized, linked to their
rows, with their provenance; a wrong reference fails the build at file:line:col."""

import re

from click.testing import CliRunner

from site_builder.cli import main
from tests.conftest import write_files
from tests.site_checks import broken_links

CLAIMS = """
    - id: acme-scaling
      statement: {en: "Acme says its runs scale near-linearly.", nl: "Acme zegt bijna lineair te schalen."}
      source: {outlet: "Acme", url: "https://example.com/acme", date: 2026-06-16}
      interpretation: {en: "Read as at least 90 % efficiency.", nl: "Gelezen als minstens 90 % efficiëntie."}
      checks:
        - figure: "efficiency deepseekv3_671b/a512 deepseekv3_671b/a2048"
          asserts: ">= 90 %"
    """

ARTICLE = """
    ---
    title: "Scaling at Acme"
    date: 2026-06-20
    summary: "Bound figures."
    authors: ["Test desk"]
    tags: ["mlperf"]
    key: bound
    ---
    Acme needed {{< fig score deepseekv3_671b/a2048 >}} on {{< fig accelerators deepseekv3_671b/a2048 >}} GPUs,
    an efficiency of {{< fig efficiency deepseekv3_671b/a512 deepseekv3_671b/a2048 >}} {{< claim acme-scaling >}}.
    Beta saved {{< fig time-saved v5.1:llama31_8b/b8 llama31_8b/b8 >}} of its time. `{{< fig score x/y >}}` is code.
    """


def _site(mini_site, article=ARTICLE):
    return write_files(mini_site, {"data/rounds/v6.0/claims.yaml": CLAIMS, "content/nl/gebonden.md": article})


def test_bound_figures_and_claims_render_in_the_page_language(mini_site, tmp_path):
    site = _site(mini_site)
    result = CliRunner().invoke(main, ["build", "--root", str(site), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "out/nl/articles/gebonden/index.html").read_text()
    text = re.sub(r"<[^>]+>", "", page)
    # a512: 20.5 min x 512; a2048: 6.25 min x 2048 -> efficiency 20.5*512 / (6.25*2048) = 82.0 %
    assert "6,2500\u00a0min" in text and "2.048" in text and "82,0%" in text
    assert "12,7%" in text  # Beta: 1 - 86.8446 / 99.5 = 0.1272
    # each number links to the cell of its value in its row: the minutes, the accelerators
    assert 'href="../../benchmarks/deepseekv3-671b/index.html#r-v6-0-acme-a2048--minutes"' in page
    assert 'href="../../benchmarks/deepseekv3-671b/index.html#r-v6-0-acme-a2048--accelerators"' in page
    assert 'href="../../rounds/v5-1/benchmarks/llama31-8b/index.html#r-v5-1-beta-b8--minutes"' in page  # the previous round's
    target = (tmp_path / "out/nl/benchmarks/deepseekv3-671b/index.html").read_text()
    assert 'id="r-v6-0-acme-a2048--minutes"' in target and 'id="r-v6-0-acme-a2048--accelerators"' in target
    assert 'role="tooltip"' in page and "Acme, a2048 (2.048 × GB300)" in text
    assert "Overdreven" in text  # the claim's verdict (82 % against at least 90 %), in Dutch
    assert 'href="../../claims/index.html#claim-acme-scaling"' in page
    assert "{{&lt; fig score x/y &gt;}}" in page  # shown, not run, in inline code
    assert broken_links(tmp_path / "out") == []  # every figure and claim link lands on an existing anchor


def test_wrong_references_fail_with_file_line_column_and_candidates(mini_site, tmp_path):
    site = _site(mini_site, ARTICLE.replace("deepseekv3_671b/a2048 >}} on", "deepseekv3_671b/a4096 >}} on")
                 .replace("claim acme-scaling", "claim acme-scalling"))
    result = CliRunner().invoke(main, ["build", "--root", str(site), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "content/nl/gebonden.md:9:13: error: no result 'deepseekv3_671b/a4096' in v6.0" in result.stderr
    assert "'deepseekv3_671b/a2048'" in result.stderr
    assert "content/nl/gebonden.md:10:" in result.stderr and "unknown claim 'acme-scalling'" in result.stderr
    assert "did you mean 'acme-scaling'?" in result.stderr
    assert not (tmp_path / "out").exists()
