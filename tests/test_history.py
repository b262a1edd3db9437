"""Cross-round figures recomputed by hand from the committed CSVs (pandas here, not the module's code)."""

import glob
from pathlib import Path

import pandas as pd
import pytest

from site_builder import history, rules_data
from site_builder.data import load_dataset
from site_builder.rounds import discover_rounds, round_order

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.fixture(scope="module")
def site():
    rounds = discover_rounds(DATA)
    dataset = load_dataset(DATA, rounds)
    return dataset, rounds


@pytest.fixture(scope="module")
def raw():
    """Every results.csv as written, with the folder's benchmark name."""
    return pd.concat([pd.read_csv(path, dtype={"score_minutes": float}) for path in
                      sorted(glob.glob(str(DATA / "rounds" / "*" / "results.csv")))], ignore_index=True)


def _fastest(rows: pd.DataFrame) -> pd.Series:
    return rows.dropna(subset=["score_minutes"]).sort_values(["score_minutes", "submitter", "system_id"]).iloc[0]


def test_fastest_per_round_of_a_renamed_benchmark_comes_from_its_old_folder(site, raw):
    dataset, rounds = site
    table = history.fastest_by_round(dataset.results, ["retinanet", "ssd"], rounds)
    # the v2.0 folder 'ssd' held RetinaNet (round.toml same_as): it counts as retinanet
    by_hand = _fastest(raw[(raw["round"] == "v2.0") & (raw["benchmark"] == "ssd")])
    row = table[(table["benchmark"] == "retinanet") & (table["round"] == "v2.0")].iloc[0]
    assert (row["score_minutes"], row["submitter"], row["system_id"]) == (
        by_hand["score_minutes"], by_hand["submitter"], by_hand["system_id"])
    # the v1.0 'ssd' (SSD with ResNet-34) stays its own benchmark, and ends in v1.1
    assert set(table.loc[table["benchmark"] == "ssd", "round"]) == {"v1.0", "v1.1"}
    assert "v1.0" not in set(table.loc[table["benchmark"] == "retinanet", "round"])
    v10 = raw[(raw["round"] == "v1.0") & (raw["benchmark"] == "ssd")]
    assert table[(table["benchmark"] == "ssd") & (table["round"] == "v1.0")].iloc[0]["score_minutes"] == \
        v10["score_minutes"].min()


def test_fastest_at_the_fixed_scale_and_an_unscored_round(site, raw):
    dataset, rounds = site
    table = history.fastest_by_round(dataset.results, ["llama2_70b_lora", "bert"], rounds, scale=8)
    lora = raw[(raw["round"] == "v5.0") & (raw["benchmark"] == "llama2_70b_lora") & (raw["total_accelerators"] == 8)]
    row = table[(table["benchmark"] == "llama2_70b_lora") & (table["round"] == "v5.0")].iloc[0]
    assert row["score_minutes"] == _fastest(lora)["score_minutes"] and row["submitter"] == _fastest(lora)["submitter"]
    assert row["results"] == len(lora) and row["unscored"] == lora["score_minutes"].isna().sum()
    assert (table["total_accelerators"].dropna() == 8).all()
    # a round whose eight-accelerator results all lack a score keeps its row, with no time (v1.1's BERT, its
    # scores taken away: scored by the round's own checker, they all have one)
    results = dataset.results.copy()
    bert = (results["round"] == "v1.1") & (results["benchmark"] == "bert") & (results["total_accelerators"] == 8)
    assert bert.sum() and results.loc[bert, "score_minutes"].notna().all()
    results.loc[bert, "score_minutes"] = float("nan")
    table = history.fastest_by_round(results, ["bert"], rounds, scale=8)
    row = table[table["round"] == "v1.1"].iloc[0]
    assert pd.isna(row["score_minutes"]) and row["unscored"] == row["results"] == bert.sum()


def test_families_follow_the_cited_replacements_only(site):
    dataset, rounds = site
    successors = history.load_successors(DATA)
    assert successors["source"].str.contains("https://").all()  # every replacement names its source
    found = history.families(dataset.results, list(dataset.benchmarks.index), rounds, successors)
    assert ("gpt3", "llama31_405b") in found and ("bert", "llama31_8b") in found
    assert ("retinanet",) in found and ("ssd",) in found  # no cited source: not joined
    members = [b for family in found for b in family]
    assert len(members) == len(set(members)) == dataset.results["benchmark"].nunique()


def test_participation_per_round_by_hand(site, raw):
    dataset, rounds = site
    table = history.participation(dataset.results, rounds).set_index("round")
    for round_name in ("v2.1", "v6.0"):
        rows = raw[raw["round"] == round_name]
        row = table.loc[round_name]
        assert row["organizations"] == rows["submitter"].nunique()
        assert row["systems"] == len(rows.drop_duplicates(["submitter", "system_id"]))
        assert row["accelerator_types"] == rows["accelerator"].nunique()
        assert (row["results"], row["unscored"]) == (len(rows), rows["score_minutes"].isna().sum())
        assert row["scored"] + row["unscored"] == row["results"]
    assert list(table.index) == sorted(rounds, key=round_order)


def test_records_are_the_fastest_ever_and_name_their_round(site, raw):
    dataset, rounds = site
    table = history.records(dataset.results, list(dataset.benchmarks.index), rounds).set_index("benchmark")
    lora = _fastest(raw[raw["benchmark"] == "llama2_70b_lora"])
    row = table.loc["llama2_70b_lora"]
    assert (row["score_minutes"], row["round"], row["submitter"]) == (
        lora["score_minutes"], lora["round"], lora["submitter"])
    # GPT-3 ran from v3.0 to v4.1; its record is the fastest of those rounds
    gpt3 = raw[raw["benchmark"] == "gpt3"]
    assert (table.loc["gpt3", "first_round"], table.loc["gpt3", "last_round"]) == ("v3.0", "v4.1")
    assert table.loc["gpt3", "score_minutes"] == gpt3["score_minutes"].min()
    # unscored results are counted, never taken for a record
    bert = raw[raw["benchmark"] == "bert"]
    assert table.loc["bert", "unscored"] == bert["score_minutes"].isna().sum() > 0
    # retinanet's record counts its results under the old folder name
    retina = raw[(raw["benchmark"] == "retinanet") | ((raw["benchmark"] == "ssd") & ~raw["round"].isin(["v1.0", "v1.1"]))]
    assert table.loc["retinanet", "score_minutes"] == retina["score_minutes"].min()
    assert table.loc["retinanet", "results"] == len(retina)


def test_rule_changes_from_the_rules_table(site):
    dataset, rounds = site
    rules = rules_data.load_rules(DATA)
    changes = history.rule_changes(dataset.results, rounds, rules)
    kinds = {(b, r, k) for b, r, k in zip(changes["benchmark"], changes["round"], changes["kind"])}
    assert {("gpt3", "v4.1", "retired"), ("llama31_405b", "v5.0", "new"), ("ssd", "v1.1", "retired"),
            ("retinanet", "v2.0", "new")} <= kinds
    assert not any(k == "new" and r == rounds[0] for _b, r, k in kinds)  # what came before v1.0 is not in the data
    assert not any(k == "retired" and r == rounds[-1] for _b, r, k in kinds)
    # Llama 3.1 405B's RCPs differ between the 5.0.0 and 5.1.0 rules files: by hand from rules.csv
    raw_rules = pd.read_csv(DATA / "rules.csv", dtype=str, keep_default_na=False).set_index(["round", "benchmark"])
    before, after = raw_rules.loc[("v5.0", "llama31_405b")], raw_rules.loc[("v5.1", "llama31_405b")]
    assert before["rcp_digest"] != after["rcp_digest"]
    row = changes[(changes["benchmark"] == "llama31_405b") & (changes["kind"] == "rcp")].iloc[0]
    assert (row["round"], row["before"], row["after"]) == ("v5.1", before["rcp_batch_sizes"], after["rcp_batch_sizes"])
    # the same rules file in two rounds is no change
    assert not ((changes["benchmark"] == "llama2_70b_lora") & (changes["kind"] == "rcp")).any()


def test_a_changed_quality_target_is_marked():
    results = pd.DataFrame({"round": ["v1.0", "v2.0"], "benchmark": ["b", "b"]})
    rules = pd.DataFrame([
        {"round": "v1.0", "benchmark": "b", "quality_target": "eval_accuracy >= 0.23", "quality_check": "x >= 0.23",
         "rcp_digest": "a", "rcp_batch_sizes": "8", "source": "s1"},
        {"round": "v2.0", "benchmark": "b", "quality_target": "eval_accuracy >= 0.34", "quality_check": "x >= 0.34",
         "rcp_digest": "a", "rcp_batch_sizes": "8", "source": "s2"}])
    changes = history.rule_changes(results, ["v1.0", "v2.0"], rules)
    assert changes[["round", "kind", "before", "after"]].values.tolist() == [
        ["v2.0", "target", "eval_accuracy >= 0.23", "eval_accuracy >= 0.34"]]


def test_readable_targets_drop_the_sanity_bounds():
    assert rules_data.readable_target("v['value'] >= 0.340 and v['value'] < 1.0") == "eval_accuracy >= 0.340"
    assert rules_data.readable_target("(v['value'] <= 2.69) and v['value'] > 2.6") == "eval_accuracy <= 2.69"
    assert rules_data.readable_target("(0.0 <= v['value']['FID'] <= 90.0) and (0.15 <= v['value']['CLIP'] <= 1.0)") \
        == "eval_accuracy[FID] <= 90.0, eval_accuracy[CLIP] >= 0.15"


def test_the_ruleset_of_a_round(site):
    dataset, _rounds = site
    assert rules_data.round_ruleset(dataset.round("v2.1"), "v2.1") == ("2.1.0", "score_source")
    assert rules_data.round_ruleset(dataset.round("v5.1"), "v5.1") == ("5.1.0", "round name")


def test_the_committed_rules_table_is_what_mlperf_logging_gives(site):
    """data/rules.csv is regenerated from the installed mlperf-logging (`site-builder rules-data`)."""
    logging = pytest.importorskip("mlperf_logging")
    from importlib.metadata import version

    dataset, rounds = site
    rows = rules_data.rules_rows(dataset, rounds, Path(logging.__file__).parent, version("mlperf-logging"))
    committed = pd.read_csv(DATA / "rules.csv", dtype=str, keep_default_na=False)
    assert committed.to_dict("records") == [{k: str(v) for k, v in row.items()} for row in rows]


def test_logs_published_again_set_no_record_and_are_marked_as_a_rounds_best(site):
    """A carried-over result (the same logs as an earlier round's) is counted in its round; made the fastest by
    hand, it is the round's best with its mark (no progress), and never a record."""
    dataset, rounds = site
    results = dataset.results.copy()
    carried = (results["round"] == "v6.0") & (results["system_id"] == "Zeus_16xH100_SXM_80GB") & (
        results["benchmark"] == "llama2_70b_lora")
    assert results.loc[carried, "carried_over_from"].tolist() == ["v5.1/Cisco/hpf_n16"]
    results.loc[carried, "score_minutes"] = 0.001  # faster than anything: still no record
    table = history.fastest_by_round(results, ["llama2_70b_lora"], rounds).set_index("round")
    assert table.loc["v6.0", "carried_over_from"] == "v5.1/Cisco/hpf_n16"  # the round's best says what it is
    assert table.loc["v6.0", "results"] == (dataset.round("v6.0")["benchmark"] == "llama2_70b_lora").sum()
    record = history.records(results, ["llama2_70b_lora"], rounds).iloc[0]
    assert record["system_id"] != "Zeus_16xH100_SXM_80GB"


def test_the_open_division_is_listed_but_never_ranked(site):
    """An open-division result (its own model changes allowed), made faster by hand than every closed one, sets no
    round's best and no record; the results table lists it after the closed division's, labelled."""
    from site_builder import metrics, pages
    from site_builder.i18n import load_language

    dataset, rounds = site
    results = dataset.results.copy()
    bert = (results["round"] == "v2.1") & (results["benchmark"] == "bert")
    opened = bert & (results["division"] == "open") & results["score_minutes"].notna()
    assert opened.sum() >= 1
    results.loc[opened, "score_minutes"] = 0.0001
    closed_best = results[bert & (results["division"] == "closed")]["score_minutes"].min()
    row = metrics.fastest_per_benchmark(results[bert]).iloc[0]
    assert row["division"] == "closed" and row["score_minutes"] == closed_best
    by_round = history.fastest_by_round(results, ["bert"], rounds).set_index("round")
    assert by_round.loc["v2.1", "score_minutes"] == closed_best
    assert history.records(results, ["bert"], rounds).iloc[0]["score_minutes"] > 0.0001
    lang = load_language("en", DATA.parent / "site_builder/theme/locales")[0]
    rows = pages.result_rows(results[bert].assign(system=results[bert]["system_id"]), lang)
    divisions = [r["open_division"] for r in rows]
    assert divisions == sorted(divisions) and any(divisions)  # every closed row before every open one


def test_a_record_set_by_a_preview_system_says_so(site):
    from site_builder import archive_pages
    from site_builder.config import load_config
    from site_builder.display_names import DisplayNames
    from site_builder.i18n import load_language

    dataset, rounds = site
    lang = load_language("en", DATA.parent / "site_builder/theme/locales")[0]
    rows = archive_pages.record_rows(dataset, rounds, "v6.0", load_config(DATA.parent), lang, DisplayNames())
    table = history.records(dataset.results, list(dataset.benchmarks.index), rounds).set_index("benchmark")
    for row in rows:
        availability = table.loc[row["benchmark"], "availability"]
        assert bool(row["availability"]) == (availability in ("preview", "rdi")), row["benchmark"]
    assert any(row["availability"] == "preview" for row in rows)  # DLRM's record is a preview system
