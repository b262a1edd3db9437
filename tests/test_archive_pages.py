"""The pages and charts across rounds: built in every shipped language, their figures recomputed by hand."""

import glob
import re
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from site_builder import archive_pages, charts as chart_catalog, paths
from site_builder.build import build_site
from site_builder.charts import build_chart, catalog
from site_builder.config import load_config
from site_builder.display_names import DisplayNames
from site_builder.i18n import load_language
from site_builder.rounds import discover_rounds

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
LANGUAGES = ("en", "nl", "it", "vi")


def _languages():
    return [load_language(code, ROOT / "site_builder/theme/locales")[0] for code in LANGUAGES]


@pytest.fixture(scope="module")
def inputs():
    """Chart inputs of the main round with every round of the data folder (what the site's build gives them)."""
    return chart_catalog.load_inputs(DATA, "v6.0", "v5.1", rounds=discover_rounds(DATA))


@pytest.fixture(scope="module")
def raw():
    return pd.concat([pd.read_csv(path) for path in sorted(glob.glob(str(DATA / "rounds/*/results.csv")))],
                     ignore_index=True)


def test_charts_across_rounds_need_several_rounds_and_the_main_round(inputs):
    ids = list(catalog(inputs))
    assert "participation-over-rounds" in ids and "history-gpt3" in ids and "history-llama31-405b" not in ids
    assert not [i for i in catalog(replace(inputs, main=False)) if i.startswith(("history-", "participation-over"))]
    assert not [i for i in catalog(replace(inputs, rounds=("v6.0",))) if i.startswith("history-")]


@pytest.mark.parametrize("lang", _languages(), ids=LANGUAGES)
def test_family_chart_in_every_language_marks_changes_and_counts_unscored(inputs, raw, lang):
    chart = build_chart("history-gpt3", catalog(inputs)["history-gpt3"], inputs, lang)
    family = raw[raw["benchmark"].isin(["gpt3", "llama31_405b"])]
    assert (chart.unscored, chart.in_scope) == (family["score_minutes"].isna().sum(), len(family))
    v40 = family[family["round"] == "v4.0"]["score_minutes"].min()  # GPT-3's fastest in v4.0, by hand
    row = chart.rows[(chart.rows["benchmark"] == "gpt3") & (chart.rows["round"] == "v4.0")].iloc[0]
    assert row["score_minutes"] == v40
    text = " ".join(chart.summary)
    assert lang.number(v40, 2) in text
    # the rule changes are drawn (rules and markers) and said
    layers = chart.spec["layer"]
    assert any(layer["mark"]["type"] == "rule" for layer in layers)
    assert lang.gettext("retired") in str(chart.spec) and lang.gettext("new benchmark") in text
    if lang.code != "en":
        assert chart.title != "GPT-3 175B → Llama 3.1 405B across rounds"


@pytest.mark.parametrize("lang", _languages(), ids=LANGUAGES)
def test_participation_chart_counts_by_hand(inputs, raw, lang):
    chart = build_chart("participation-over-rounds", catalog(inputs)["participation-over-rounds"], inputs, lang)
    v11 = raw[raw["round"] == "v1.1"]
    organizations = chart.rows[(chart.rows["round"] == "v1.1") & (chart.rows["measure"] == lang.gettext(
        "Organizations"))]["count"].iloc[0]
    assert organizations == v11["submitter"].nunique()
    assert lang.number(int(v11["score_minutes"].isna().sum())) in " ".join(chart.summary)


@pytest.mark.parametrize("lang", _languages(), ids=LANGUAGES)
def test_record_rows_equal_a_hand_computation(inputs, raw, lang):
    config = load_config(ROOT)
    rounds = list(inputs.rounds)
    rows = {row["benchmark"]: row for row in
            archive_pages.record_rows(inputs.dataset, rounds, "v6.0", config, lang, DisplayNames())}
    for benchmark in ("llama2_70b_lora", "bert", "dlrm"):
        entries = raw[raw["benchmark"] == benchmark].dropna(subset=["score_minutes"])
        best = entries.sort_values(["score_minutes", "submitter", "system_id"]).iloc[0]
        row = rows[benchmark]
        assert (row["minutes"], row["round"], row["accelerators"]) == (
            best["score_minutes"], best["round"], best["total_accelerators"])
        assert row["path"].startswith(paths.benchmark(lang.code, benchmark, paths.round_section(
            best["round"], best["round"] == "v6.0")))
        assert row["path"].endswith("#" + paths.result_anchor(best["round"], best["submitter"], best["system_id"]))
    assert not rows["bert"]["current"] and rows["llama2_70b_lora"]["current"]
    # a record set before the RCPs were revised says so
    assert "v5.1" in rows["llama31_405b"]["rules_changed_in"] or rows["llama31_405b"]["round"] >= "v5.1"
    rounds_rows = archive_pages.round_rows(inputs.dataset, rounds, "v6.0", config, lang)
    assert [r["round"] for r in rounds_rows][:2] == ["v6.0", "v5.1"]
    first = next(r for r in rounds_rows if r["round"] == "v6.0")
    assert first["main"] and first["path"] == paths.home(lang.code) and first["published"]
    assert first["results"] == (raw["round"] == "v6.0").sum()


def _built(folder: Path, languages: tuple[str, ...]) -> Path:
    """The mini site in `languages`, with its rounds in the main chart inputs."""
    from tests.conftest import mini_site_files, write_files

    root = write_files(folder / "site", mini_site_files())
    config = root / "site.toml"
    titles = {"it": 'it = "Mini rapporto"', "vi": 'vi = "Báo cáo nhỏ"'}
    config.write_text(config.read_text().replace('["en", "nl"]', "[" + ", ".join(f'"{c}"' for c in languages) + "]")
                      .replace('nl = "Mini-rapport"', "\n".join(['nl = "Mini-rapport"', *(
                          titles[c] for c in languages if c in titles)])))
    build_site(root, root / "_site", jobs=1)
    return root / "_site"


@pytest.fixture(scope="module")
def built_mini(tmp_path_factory) -> Path:
    """The mini site in its two languages."""
    return _built(tmp_path_factory.mktemp("archive"), ("en", "nl"))


@pytest.fixture(scope="module")
def built_mini_everywhere(tmp_path_factory) -> Path:
    """The mini site in every shipped language."""
    return _built(tmp_path_factory.mktemp("archive"), LANGUAGES)


@pytest.mark.parametrize("code", ("en", "nl"))
def test_records_and_rounds_pages_build(built_mini, code):
    check_records_and_rounds(built_mini, code)


@pytest.mark.slow  # a build in four languages (two more languages' charts and renderings)
@pytest.mark.parametrize("code", LANGUAGES)
def test_records_and_rounds_pages_build_in_every_language(built_mini_everywhere, code):
    check_records_and_rounds(built_mini_everywhere, code)


def check_records_and_rounds(out: Path, code: str) -> None:
    lang = load_language(code, ROOT / "site_builder/theme/locales")[0]
    records = (out / paths.records(code)).read_text(encoding="utf-8")
    rounds = (out / paths.rounds_index(code)).read_text(encoding="utf-8")
    # mini data: Llama 3.1 8B's fastest is Beta's 86.8446 in v6.0 (99.5 in v5.1); DeepSeek's Acme's 6.25
    row = re.search(r'<tr id="record-llama31_8b">(.*?)</tr>', records, re.S).group(1)
    assert lang.number(86.8446, 4) in row and "v6.0" in row
    target = paths.benchmark(code, "llama31_8b").removeprefix(f"{code}/")
    assert f'href="../{target}#{paths.result_anchor("v6.0", "Beta", "b8")}"' in row
    assert lang.number(6.25, 4) in records
    assert lang.gettext("Records") in records and lang.gettext("Rounds") in rounds
    # participation: v6.0 has 4 results, 1 without a score; v5.1 one result
    row = re.search(r'<tr id="round-v6.0">(.*?)</tr>', rounds, re.S).group(1)
    cells = re.findall(r'<td class="num">([^<]*)</td>', row)
    assert cells[-3:] == [lang.number(4), lang.number(3), lang.number(1)]
    assert (out / paths.chart(code, "participation-over-rounds")).is_file()
    assert (out / paths.chart(code, "history-llama31-8b")).is_file()
    assert not (out / paths.chart(code, "history-deepseekv3-671b")).exists()  # one round: no history yet
