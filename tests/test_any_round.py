"""The tool works for any round: no round in the code, features from data, charts left out with a reason."""

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder import charts as chart_catalog
from site_builder.cli import main
from site_builder.config import load_config
from site_builder.errors import SiteError
from site_builder.i18n import load_language
from tests.conftest import HEADER, ROOT, csv_text, write_files

CODE = ROOT / "site_builder"


def _column(path: Path, name: str) -> list[str]:
    with path.open(newline="", encoding="utf-8") as handle:
        return [row[name] for row in csv.DictReader(handle)]


def test_no_benchmark_accelerator_vendor_or_round_in_the_code():
    """Names are taken from the data files, so a new round's names are checked without editing this test."""
    rounds = [folder.name for folder in (ROOT / "data/rounds").iterdir() if folder.is_dir()]
    names = (_column(ROOT / "data/benchmarks.csv", "id") + _column(ROOT / "data/accelerators.csv", "accelerator")
             + [v for v in _column(ROOT / "data/vendors.csv", "vendor") if v[:1].isupper()]  # "other" is a word
             + rounds)
    assert len(names) > 20 and "v6.0" in names
    found = []
    for source in sorted(CODE.rglob("*.py")):
        text = source.read_text(encoding="utf-8")
        for name in names:
            for match in re.finditer(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{source.relative_to(ROOT)}:{line}: {name}")
    assert found == []


def test_the_literal_check_itself_finds_a_name(tmp_path):
    sample = "SINGLE = ['llama31_8b']  # MI355X vs B200 in v6.0\n"
    hits = [name for name in ("llama31_8b", "MI355X", "B200", "v6.0", "GB200")
            if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", sample)]
    assert hits == ["llama31_8b", "MI355X", "B200", "v6.0"]


def _project(root: Path, round_name: str, previous: str | None, languages=("en",)) -> Path:
    """A scratch project using the shipped templates and catalogs."""
    titles = "\n".join(f'{code} = "Report {round_name}"' for code in languages)
    previous_line = f'previous_round = "{previous}"\n' if previous else ""
    (root / "site.toml").parent.mkdir(parents=True, exist_ok=True)
    (root / "site.toml").write_text(
        f'languages = {json.dumps(list(languages))}\ndefault_language = "en"\n'
        f'base_url = "https://example.org/r/"\nround = "{round_name}"\n{previous_line}'
        f'templates_dir = "{ROOT / "site_builder/theme/templates"}"\nlocales_dir = "{ROOT / "site_builder/theme/locales"}"\n\n[title]\n{titles}\n',
        encoding="utf-8")
    return root


ARTICLE = """
    ---
    title: "A round"
    date: 2026-01-10
    summary: "A test article."
    authors: ["Test desk"]
    tags: ["mlperf"]
    key: a-round
    ---
    ## Figures

    {{{{< chart {chart} >}}}}
    """


def test_previous_round_is_optional(tmp_path):
    config = load_config(_project(tmp_path, "v5.1", None))
    assert config.previous_round is None and config.rounds == ["v5.1"]


@pytest.mark.slow
def test_v51_as_main_round_without_a_previous_round(tmp_path):
    root = _project(tmp_path / "site", "v5.1", None)
    shutil.copytree(ROOT / "data/rounds/v5.1", root / "data/rounds/v5.1")
    for name in ("benchmarks.csv", "accelerators.csv", "vendors.csv"):
        shutil.copy(ROOT / "data" / name, root / "data" / name)
    write_files(root, {"content/en/a-round.md": ARTICLE.format(chart="scaling-flux1")})
    result = CliRunner().invoke(main, ["build", "--root", str(root), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output + str(result.exception)
    built = {p.stem.removesuffix(".vl") for p in (tmp_path / "out/charts/en").glob("*.vl.json")}
    assert {"scaling-flux1", "fastest-per-benchmark", "accelerator-comparison", "participation",
            "scale-distribution", "gpu-minutes", "results-retinanet", "results-rgat"} <= built
    assert "round-over-round" not in built  # no previous round: no round-over-round chart
    assert not any("deepseek" in name for name in built)
    assert any(re.fullmatch(r"mi[\w-]+-vs-[\w-]+", name) for name in built)  # a head-to-head pair found in v5.1
    home = (tmp_path / "out/en/index.html").read_text()
    assert "Fastest FLUX.1" in home  # the home page's showcase is the derived scaling benchmark
    page = (tmp_path / "out/en/benchmarks/llama31-8b/index.html").read_text()
    assert "Compared with" not in page


# A round of two benchmarks with neither DeepSeek nor AMD, one of them unknown to the interface's
# task vocabulary, a Google accelerator, and no round.toml.
FIXTURE_BENCHMARKS = """
    id,name,model,total_parameters_b,active_parameters_b,task,dataset,quality_target,runs_per_result,round_introduced,source
    llama31_8b,Llama 3.1 8B,Llama 3.1 8B,8,8,llm-pretraining,C4,eval_accuracy <= 3.3,10,v5.1,test fixture
    whisper_x,Whisper X,Whisper,1.5,1.5,speech-recognition,LibriSpeech,wer <= 0.05,5,v9.0,test fixture
    """

FIXTURE_RESULTS = HEADER + """
    v9.0,closed,available,cloud,Acme,a8,a8,B200,NVIDIA,B200,8,1,8,Xeon,PyTorch,llama31_8b,80.5,10,1.0,computed here from the result logs,systems json,
    v9.0,closed,available,cloud,Beta,b8,b8,H100-SXM,NVIDIA,H100-SXM,8,1,8,Xeon,PyTorch,llama31_8b,120.25,10,1.0,computed here from the result logs,systems json,
    v9.0,closed,available,cloud,Beta,b16,b16,H100-SXM,NVIDIA,H100-SXM,8,2,16,Xeon,PyTorch,whisper_x,,5,,not computed (result logs not read),systems json,
    v9.0,closed,available,cloud,Gamma,g64,g64,TPU-Z,Google,TPU-Z,4,16,64,EPYC,JAX,whisper_x,12.5,5,1.0,published by the submitter,systems json,
    """


def _fixture_round(root: Path) -> Path:
    _project(root, "v9.0", None, ("en", "nl"))
    accelerators = (ROOT / "data/accelerators.csv").read_text() + "TPU-Z,Google,TPU-Z,\\bTPU-Z\\b,#CC79A7\n"
    return write_files(root, {
        "data/benchmarks.csv": csv_text(FIXTURE_BENCHMARKS),
        "data/rounds/v9.0/results.csv": csv_text(FIXTURE_RESULTS),
        "data/accelerators.csv": accelerators,
        "data/vendors.csv": (ROOT / "data/vendors.csv").read_text(),
        "content/en/a-round.md": ARTICLE.format(chart="accelerator-comparison"),
        "content/nl/een-ronde.md": ARTICLE.format(chart="participation"),
    })


@pytest.mark.slow
def test_fixture_round_without_deepseek_or_amd_builds(tmp_path):
    root = _fixture_round(tmp_path / "site")
    result = CliRunner().invoke(main, ["build", "--root", str(root), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output + str(result.exception)
    built = sorted(p.name.removesuffix(".vl.json") for p in (tmp_path / "out/charts/en").glob("*.vl.json"))
    assert built == ["accelerator-comparison", "fastest-per-benchmark", "gpu-minutes", "participation",
                     "results-llama31-8b", "results-whisper-x", "scale-distribution"]
    # the charts the round does not call for are named, with the reason, as notes (not failures)
    assert "note: no scaling chart" in result.output and "note: no head-to-head chart" in result.output
    assert "Traceback" not in result.output
    # the Google result has its vendor's colour and is counted in the participation summary
    spec = json.loads((tmp_path / "out/charts/en/participation.vl.json").read_text())
    scale = spec["encoding"]["color"]["scale"]
    assert scale["domain"] == ["NVIDIA", "Google"] and scale["range"][1] == "#009E73"
    page = (tmp_path / "out/en/charts/participation/index.html").read_text()
    assert "Google 25.0%" in page
    # a task id the interface does not know is shown as it is
    assert "speech-recognition" in (tmp_path / "out/en/benchmarks/whisper-x/index.html").read_text()
    # the benchmark chart whose results are all unscored or few says how many are unscored
    whisper = json.loads((tmp_path / "out/charts/en/results-whisper-x.vl.json").read_text())
    assert "1 of 2 results has no score" in " ".join(whisper["title"]["subtitle"])


def test_a_results_row_without_an_accelerator_row_names_the_csv_row(tmp_path):
    root = _fixture_round(tmp_path / "site")
    (root / "data/accelerators.csv").write_text((ROOT / "data/accelerators.csv").read_text())  # no TPU-Z
    result = CliRunner().invoke(main, ["build", "--root", str(root), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert ("data/rounds/v9.0/results.csv:5: error: accelerator 'TPU-Z' has no row in data/accelerators.csv"
            in result.output)


def test_round_toml_charts_table_is_validated_with_lines(mini_site):
    (mini_site / "data/rounds/v6.0/round.toml").write_text(
        'label = "Mini"\n\n[charts]\nscaling_benchmark = "resnet"\nhead_to_head = ["MI355X", "Z9"]\n'
        'single_node_benchmarks = ["llama31_8b"]\ncolours = 3\ncomparison_scale = 0\n\n'
        '[charts.aliases]\nold-id = "NOT AN ID"\n')
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(mini_site / "out")])
    assert result.exit_code == 1
    shown = "data/rounds/v6.0/round.toml"
    assert f"{shown}:7: error: unknown key 'colours' in [charts]" in result.output
    assert f"{shown}:8: error: 'comparison_scale' must be a whole number" in result.output
    assert f"{shown}:11: error: alias 'old-id' must map a chart id to a chart id" in result.output
    (mini_site / "data/rounds/v6.0/round.toml").write_text(
        '[charts]\nscaling_benchmark = "resnet"\nhead_to_head = ["MI355X", "Z9"]\n')
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(mini_site / "out")])
    assert result.exit_code == 1
    assert f"{shown}:2: error: [charts] scaling_benchmark: unknown benchmark 'resnet'" in result.output
    assert f"{shown}:3: error: [charts] head_to_head: unknown accelerator 'Z9'" in result.output


@pytest.mark.slow
def test_a_shortcode_naming_a_left_out_chart_is_an_error_at_its_line(mini_site):
    # MI355X and GB300 share no benchmark at 8 accelerators in the mini round: the declared chart is left out
    (mini_site / "data/rounds/v6.0/round.toml").write_text('[charts]\nhead_to_head = ["MI355X", "GB300"]\n')
    article = mini_site / "content/en/hello.md"
    article.write_text(article.read_text() + "\n{{< chart mi355x-vs-gb300 >}}\n")
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(mini_site / "out")])
    assert result.exit_code == 1
    assert "content/en/hello.md:19: error: chart 'mi355x-vs-gb300' is left out of this build" in result.output
    assert "share no benchmark with scored results of 8 accelerators" in result.output
    article.write_text(article.read_text().replace("{{< chart mi355x-vs-gb300 >}}", ""))
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(mini_site / "out")])
    assert result.exit_code == 0, result.output
    assert "data/rounds/v6.0/round.toml:2: warning: chart 'mi355x-vs-gb300' is left out" in result.output
    strict = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(mini_site / "out"),
                                       "--strict"])
    assert strict.exit_code == 1 and "error: chart 'mi355x-vs-gb300' is left out" in strict.output


@pytest.mark.slow
def test_old_chart_ids_lead_to_the_new_chart(mini_site):
    (mini_site / "data/rounds/v6.0/round.toml").write_text(
        '[charts.aliases]\ndeepseek-scaling = "scaling-deepseekv3-671b"\n')
    out = mini_site / "out"
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(out)])
    assert result.exit_code == 0, result.output
    for lang in ("en", "nl"):
        page = (out / lang / "charts/deepseek-scaling/index.html").read_text()
        assert '<meta http-equiv="refresh" content="0; url=../scaling-deepseekv3-671b/index.html">' in page
        assert (f'<link rel="canonical" href="https://example.org/mini/{lang}/charts/scaling-deepseekv3-671b/">'
                in page)
        assert '<a href="../scaling-deepseekv3-671b/index.html">' in page
        embed = (out / "embed" / lang / "deepseek-scaling.html").read_text()
        assert 'url=scaling-deepseekv3-671b.html' in embed
        for suffix in (".vl.json", ".svg", ".png"):
            assert (out / "charts" / lang / f"deepseek-scaling{suffix}").read_bytes() == (
                out / "charts" / lang / f"scaling-deepseekv3-671b{suffix}").read_bytes()
    assert (out / "data/deepseek-scaling.csv").read_bytes() == (out / "data/scaling-deepseekv3-671b.csv").read_bytes()
    assert "deepseek-scaling" not in (out / "sitemap.xml").read_text()
    # an article still naming the old id is told the new one
    article = mini_site / "content/en/hello.md"
    article.write_text(article.read_text() + "\n{{< chart deepseek-scaling >}}\n")
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(out)])
    assert "content/en/hello.md:19: error: chart 'deepseek-scaling' is now called 'scaling-deepseekv3-671b'" in (
        result.output)


def test_aliases_must_lead_to_a_chart_and_not_hide_one(mini_site):
    (mini_site / "data/rounds/v6.0/round.toml").write_text(
        '[charts.aliases]\nparticipation = "gpu-minutes"\nold = "no-such-chart"\n')
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(mini_site / "out")])
    assert result.exit_code == 1
    assert "round.toml:2: error: [charts.aliases] 'participation' is the id of a chart of this round" in result.output
    assert "round.toml:3: error: [charts.aliases] 'old' leads to unknown chart 'no-such-chart'" in result.output


@pytest.mark.slow
def test_a_library_error_in_a_chart_names_the_chart_and_language(mini_site, tmp_path, monkeypatch):
    def broken(inputs, lang):
        return inputs.current.loc["no such row"]  # a pandas KeyError

    from site_builder.charts import overview

    monkeypatch.setattr(overview, "participation", broken)
    # a cache of its own: a chart another test built is reused by its key, which knows nothing of the patch
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "cache"))
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(mini_site / "out")])
    assert result.exit_code == 1
    # One problem for a mistake every language meets, naming them all.
    assert "error: chart 'participation' (en, nl) could not be built: KeyError" in result.output
    assert "Traceback" not in result.output and not (mini_site / "out").exists()


def test_scope_without_data_leaves_the_chart_out_not_a_type_error(mini_site):
    inputs = chart_catalog.load_inputs(mini_site / "data", "v6.0", "v5.1", mini_site)
    no_scores = inputs.dataset.results.assign(score_minutes=float("nan"))
    empty = chart_catalog.ChartInputs(
        type(inputs.dataset)(no_scores, inputs.dataset.benchmarks), inputs.round, inputs.previous_round,
        inputs.hardware, inputs.features)
    lang = load_language("en", ROOT / "site_builder/theme/locales")[0]
    built = chart_catalog.build_charts(empty, [lang])
    assert set(built.left_out) == {"scaling-deepseekv3-671b", "fastest-per-benchmark", "round-over-round",
                                   "gpu-minutes"}
    assert "no result of v6.0 has a score" in built.left_out["fastest-per-benchmark"].message
    assert {"participation", "scale-distribution", "results-llama31-8b"} <= set(built.ids())


def test_home_page_names_every_system_at_the_largest_scale(shipped_site):
    home = (shipped_site / "en/index.html").read_text()
    note = home.split("Largest scale")[1].split("</div>")[0]
    # every system at that scale, by the display name of its submitter (not a raw id)
    for system in ("Microsoft Azure (8,192 × GB200)", "CoreWeave (8,192 × GB300)", "NVIDIA (8,192 × GB200)"):
        assert system in note
    assert "Fastest DeepSeek-V3 671B" in home  # the showcase benchmark, derived from the results


def test_archive_pages_say_what_the_data_knows(shipped_site):
    """Two systems alike in submitter and scale are said once with their count (not "NVIDIA and NVIDIA"), and the
    archive's first round calls its benchmarks the first in the archive, not new (they ran before it)."""
    v11 = (shipped_site / "en/rounds/v1-1/index.html").read_text()
    note = v11.split("Largest scale")[1].split("</div>")[0]
    assert "NVIDIA (4,320 × A100-SXM), 2 systems" in note and " and NVIDIA" not in note
    v10 = (shipped_site / "en/rounds/v1-0/index.html").read_text()
    assert 'class="badge">new<' not in v10 and 'class="badge">first round in this archive<' in v10
    assert 'class="badge">new<' in (shipped_site / "en/index.html").read_text()  # v6.0's new benchmarks


def test_bad_accelerator_tables_are_errors_with_lines(tmp_path):
    from site_builder.hardware import load_hardware

    write_files(tmp_path, {
        "vendors.csv": "vendor,colour\nNVIDIA,#0072B2\nAcme,#123456\n",
        "accelerators.csv": ("accelerator,vendor,family,pattern,colour\nB200,NVIDIA,Blackwell,\\bB200\\b,#56B4E9\n"
                             "GB200,NVIDIA,Blackwell,\\bGB200\\b,#0072B2\nX1,Nobody,X,\\bX1\\b,#000000\n"
                             "Y1,NVIDIA,Y,([,#000000\n"),
    })
    with pytest.raises(SiteError) as error:
        load_hardware(tmp_path)
    text = str(error.value)
    assert "vendors.csv:3: error: colour '#123456' is not in the colour-blind-safe palette" in text
    assert "accelerators.csv:3: error: family 'Blackwell' has colour #56B4E9 on line 2, not #0072B2" in text
    assert "accelerators.csv:4: error: vendor 'Nobody' has no row" in text
    assert "accelerators.csv:5: error: pattern '([' is not a regular expression" in text


def test_text_on_a_coloured_bar_takes_the_ink_that_reads_better():
    from site_builder.hardware import ink_on

    assert ink_on("#56B4E9") == "#000000"  # white on sky blue is about 2:1
    assert ink_on("#0072B2") == "#FFFFFF"
