"""Figures computed from the shipped data: the numbers articles and claims cite."""

import pytest

from conftest import ROOT
from site_builder.data import Dataset, load_dataset
from site_builder.figures import FigureContext, FigureError, evaluate_expression, parse_expression

COREWEAVE = "deepseekv3_671b/CoreWeave_GB300_{}x4"


@pytest.fixture(scope="module")
def context():
    return FigureContext(load_dataset(ROOT / "data", ["v6.0", "v5.1"], ROOT), "v6.0", "v5.1")


def test_score_keeps_its_source_precision(context):
    quantity = evaluate_expression("score " + COREWEAVE.format(2048), context)
    assert (quantity.value, quantity.unit, quantity.decimals) == (2.0206, "minutes", 4)
    assert quantity.refs[0].system_id == "CoreWeave_GB300_2048x4"
    assert evaluate_expression("score " + COREWEAVE.format(2048) + " decimals=2", context).decimals == 2


def test_scaling_efficiency_of_the_near_linear_claim(context):
    quantity = evaluate_expression(f"efficiency {COREWEAVE.format(512)} {COREWEAVE.format(2048)}", context)
    assert round(quantity.value, 3) == 0.685 and quantity.unit == "percent"


def test_accelerator_minutes_is_time_times_accelerators(context):
    quantity = evaluate_expression("acc-minutes " + COREWEAVE.format(512), context)
    assert round(quantity.value) == 11336 and quantity.decimals == 0


def test_round_over_round_speedup_and_time_saved(context):
    before, after = "v5.1:llama31_8b/gb300_n18_ngc25.04_nemo", "llama31_8b/gb300_n18_ngc25.09_nemo"
    assert round(evaluate_expression(f"speedup {before} {after}", context).value, 2) == 1.23
    assert round(evaluate_expression(f"time-saved {before} {after}", context).value, 3) == 0.187


def test_fastest_and_round_figures(context):
    assert evaluate_expression("score deepseekv3_671b/fastest", context).value == 2.0206
    assert evaluate_expression("largest-scale", context).value == 8192
    assert evaluate_expression("results round=v5.1", context).value == 185
    assert evaluate_expression("results", context).value == 224
    assert evaluate_expression("accelerator-types", context).value == 13
    amd = evaluate_expression("organizations accelerator_vendor=AMD", context)
    assert 0 < amd.value < evaluate_expression("organizations", context).value


def test_accelerator_makers_and_a_minimum_of_accelerators(context):
    assert evaluate_expression("accelerator-vendors", context).value == 2
    assert evaluate_expression("accelerator-vendors benchmark=deepseekv3_671b", context).value == 1
    gb300 = "organizations benchmark=deepseekv3_671b accelerator=GB300"
    # at least N, N included: CoreWeave's largest entry has 8,192 GB300 GPUs, and 8,193 leaves none
    assert evaluate_expression(f"{gb300} min-accelerators=8192", context).value == 1
    assert evaluate_expression(f"{gb300} min-accelerators=8193", context).value == 0
    assert evaluate_expression(f"{gb300} min-accelerators=2049", context).value == 1
    assert evaluate_expression(gb300, context).value == 2
    quantity = evaluate_expression(f"{gb300} min-accelerators=2049", context)
    assert ("min-accelerators", "2049") in quantity.filters
    led = evaluate_expression("benchmarks-led min-accelerators=4096", context)
    assert {ref.benchmark for ref in led.refs} == {"deepseekv3_671b", "llama31_405b"}
    with pytest.raises(FigureError, match="must be a whole number"):
        evaluate_expression(f"{gb300} min-accelerators=2k", context)


@pytest.mark.parametrize("expression, message, hint", [
    ("score deepseekv3_671b/CoreWeave_GB300_2048x8", "no result", "CoreWeave_GB300_2048x4"),
    ("score deepseek_671b/fastest", "no results for benchmark", "deepseekv3_671b"),
    ("score v4.0:llama31_8b/fastest", "unknown round", "v6.0, v5.1"),
    ("speed " + COREWEAVE.format(512), "unknown metric", "speedup"),
    ("efficiency " + COREWEAVE.format(512), "takes 2 result references", "usage"),
    (f"efficiency {COREWEAVE.format(2048)} {COREWEAVE.format(512)}", "from the smaller to the larger", None),
    ("results hosting=moon", "no v6.0 result has hosting=moon", "cloud"),
    ("results colour=red", "unknown option or column", None),
    ("score deepseekv3_671b", "is not a result reference", "BENCHMARK/SYSTEM_ID"),
])
def test_bad_figures_say_what_would_work(context, expression, message, hint):
    with pytest.raises(FigureError) as error:
        evaluate_expression(expression, context)
    assert message in error.value.message
    if hint:
        assert hint in error.value.hint


def test_unscored_result_is_not_a_number(context):
    results = context.dataset.round("v6.0")
    unscored = results[results["score_minutes"].isna()].iloc[0]
    with pytest.raises(FigureError, match="needs a score"):
        evaluate_expression(f"score {unscored['benchmark']}/{unscored['submitter']}/{unscored['system_id']}", context)


def test_parse_expression_splits_options():
    assert parse_expression("gap a/b c/d decimals=1") == ("gap", ["a/b", "c/d"], {"decimals": "1"})


def test_a_system_id_of_two_submitters_is_ambiguous_and_names_both(context):
    with pytest.raises(FigureError) as error:
        evaluate_expression("score llama31_8b/8xMI355X_2xEPYC_9575F", context)
    assert "ambiguous" in error.value.message and error.value.hint.count("llama31_8b/") == 2
    submitter = error.value.hint.split("write one of: ")[1].split(", ")[0].split("/")[1]
    assert evaluate_expression(f"accelerators llama31_8b/{submitter}/8xMI355X_2xEPYC_9575F", context).value == 8


def test_benchmarks_led_filters_the_fastest_results_not_the_field(context):
    led = evaluate_expression("benchmarks-led accelerator_vendor=NVIDIA", context)
    assert led.value == evaluate_expression("benchmarks", context).value == 7
    assert {ref.row["accelerator_vendor"] for ref in led.refs} == {"NVIDIA"} and len(led.refs) == 7
    # AMD has scored results, but leads no benchmark: the filter applies after picking the fastest.
    assert evaluate_expression("scored-results accelerator_vendor=AMD", context).value > 0
    assert evaluate_expression("benchmarks-led accelerator_vendor=AMD", context).value == 0


def test_runs_and_the_score_before_normalization(context):
    ref = COREWEAVE.format(2048)
    assert evaluate_expression(f"run {ref} n=2", context).value == 1.9450  # the median of three runs
    unscaled = evaluate_expression(f"unscaled {ref}", context)
    assert round(unscaled.value, 4) == 1.9450 and unscaled.decimals == 4
    with pytest.raises(FigureError, match="n=K with K from 1 to 3"):
        evaluate_expression(f"run {ref} n=4", context)
    with pytest.raises(FigureError, match="unknown option 'n'"):
        evaluate_expression(f"score {ref} n=1", context)


@pytest.mark.parametrize("number", ["²", "٣", "３", "1" * 5000])
def test_run_number_is_ascii_digits_only(context, number):
    # '²' passes str.isdigit() and fails int(); int() reads '٣' and '３' as 3; 5,000 digits exceed int()'s limit
    with pytest.raises(FigureError, match="n=K with K from 1 to 3"):
        evaluate_expression(f"run {COREWEAVE.format(2048)} n={number}", context)


def test_unscaled_with_a_zero_factor_is_a_figure_error(context):
    results = context.dataset.results.copy()
    results["rcp_scaling_factor"] = 0.0  # the loader refuses it; a frame built in code is not checked
    zero = FigureContext(Dataset(results, context.dataset.benchmarks), "v6.0", "v5.1")
    with pytest.raises(FigureError, match="RCP scaling factor 0; it must be greater than 0"):
        evaluate_expression(f"unscaled {COREWEAVE.format(2048)}", zero)


NVIDIA_8192 = "deepseekv3_671b/tyche-hsg_ngpu8192_ngc26.04_nemo"


def test_unscaled_is_the_median_of_the_logged_runs_not_the_rounded_score_over_the_factor(context):
    # runs 3.2310;3.1939;3.2153, score 3.3404 = round(3.2153 x 1.038889, 4); 3.3404 / 1.038889 rounds to 3.2154
    quantity = evaluate_expression(f"unscaled {NVIDIA_8192}", context)
    assert (quantity.value, quantity.decimals) == (3.2153, 4)


def test_unscaled_follows_the_summarizer_with_ten_runs_and_with_a_run_that_did_not_finish(context):
    results = context.dataset.results
    row = results[(results["benchmark"] == "llama31_8b") & (results["system_id"] == "MI325X_1node")].iloc[0]
    runs = [float(item) for item in row["run_minutes"].split(";") if item]
    assert row["run_minutes"].split(";").count("") == 1 and len(runs) == 9
    # the unfinished run takes the slowest's place: only the fastest finished run is dropped
    expected = sum(sorted(runs)[1:]) / 8
    unscaled = evaluate_expression(f"unscaled llama31_8b/{row['submitter']}/MI325X_1node", context)
    assert unscaled.value == pytest.approx(expected, abs=1e-12)
    assert round(expected * row["rcp_scaling_factor"], 4) == row["score_minutes"]


def test_a_mean_of_rounded_runs_on_a_rounding_tie_takes_the_side_of_the_score(context):
    # the eight kept runs average to 10.21705 exactly; the logs give 10.2171, and 10.2171 x 1.003367 = 10.2515
    from site_builder.inline import machine_value

    quantity = evaluate_expression("unscaled llama2_70b_lora/MI350X_EPYC_9575F_primus", context)
    assert quantity.value == pytest.approx(10.21705, abs=1e-12) and machine_value(quantity) == "10.2171"

def test_unscaled_without_runs_falls_back_to_score_over_factor(context):
    results = context.dataset.results.copy()
    results["run_minutes"] = ""
    bare = FigureContext(Dataset(results, context.dataset.benchmarks), "v6.0", "v5.1")
    quantity = evaluate_expression(f"unscaled {NVIDIA_8192}", bare)
    assert quantity.value == pytest.approx(3.3404 / 1.038889) and round(quantity.value, 4) == 3.2154


def test_every_figure_kind_recomputed_from_the_table(context):
    """Each metric against the CSV read directly (pandas on the file, not the site's helpers)."""
    import pandas as pd

    table = pd.read_csv(ROOT / "data/rounds/v6.0/results.csv", dtype={"run_minutes": str})
    previous = pd.read_csv(ROOT / "data/rounds/v5.1/results.csv")

    def row(benchmark, system, frame=table):
        found = frame[(frame["benchmark"] == benchmark) & (frame["system_id"] == system)]
        assert len(found) == 1
        return found.iloc[0]

    def figure(expression):
        return evaluate_expression(expression, context).value

    small, large = row("deepseekv3_671b", "CoreWeave_GB300_512x4"), row("deepseekv3_671b", "CoreWeave_GB300_2048x4")
    lora = row("llama2_70b_lora", "Isambard-AI-Phase2-GH200-96GB_n2_v6.0")
    ref_small, ref_large = COREWEAVE.format(512), COREWEAVE.format(2048)
    ref_lora = "llama2_70b_lora/Isambard-AI-Phase2-GH200-96GB_n2_v6.0"
    assert figure(f"score {ref_lora}") == lora["score_minutes"]
    assert figure(f"accelerators {ref_large}") == large["total_accelerators"] == 8192
    assert figure(f"nodes {ref_large}") == large["number_of_nodes"] == 2048
    assert figure(f"runs {ref_lora}") == lora["number_of_runs"] == 10
    assert figure(f"rcp {ref_lora}") == lora["rcp_scaling_factor"] == 1.0681
    assert figure(f"run {ref_lora} n=10") == float(lora["run_minutes"].split(";")[9])
    assert figure(f"acc-minutes {ref_lora}") == lora["score_minutes"] * lora["total_accelerators"]
    # ten runs: the mean of the eight left when the fastest and slowest are dropped, before the factor
    kept = sorted(float(m) for m in lora["run_minutes"].split(";"))[1:-1]
    assert figure(f"unscaled {ref_lora}") == pytest.approx(sum(kept) / 8, abs=1e-12)
    assert round(figure(f"unscaled {ref_lora}") * lora["rcp_scaling_factor"], 4) == lora["score_minutes"]
    a, b = small["score_minutes"], large["score_minutes"]
    assert figure(f"efficiency {ref_small} {ref_large}") == pytest.approx(a * 2048 / (b * 8192), abs=1e-15)
    assert figure(f"speedup {ref_small} {ref_large}") == figure(f"ratio {ref_small} {ref_large}") == a / b
    assert figure(f"time-saved {ref_small} {ref_large}") == pytest.approx(1 - b / a, abs=1e-15)
    assert figure(f"gap {ref_small} {ref_large}") == pytest.approx(a / b - 1, abs=1e-15)
    before = row("llama31_8b", "gb300_n18_ngc25.04_nemo", previous)["score_minutes"]
    after = row("llama31_8b", "gb300_n18_ngc25.09_nemo")["score_minutes"]
    assert figure("speedup v5.1:llama31_8b/gb300_n18_ngc25.04_nemo llama31_8b/gb300_n18_ngc25.09_nemo") \
        == before / after

    systems = table.drop_duplicates(["submitter", "system_id"])
    cloud = table[table["hosting"] == "cloud"]
    assert figure("organizations") == table["submitter"].nunique()
    assert figure("organizations hosting=cloud") == cloud["submitter"].nunique()
    assert figure("results") == len(table) and figure("results round=v5.1") == len(previous)
    assert figure("scored-results") == table["score_minutes"].notna().sum()
    assert figure("systems") == len(systems)
    assert figure("systems hosting=cloud") == len(cloud.drop_duplicates(["submitter", "system_id"]))
    assert figure("accelerator-types") == table["accelerator"].nunique()
    assert figure("benchmarks") == table["benchmark"].nunique() == 7
    assert figure("largest-scale") == table["total_accelerators"].max() == 8192
    assert figure("multi-node-share") == (systems["number_of_nodes"] > 1).sum() / len(systems)
    fastest = table.dropna(subset=["score_minutes"]).sort_values(["score_minutes", "submitter", "system_id"]) \
        .drop_duplicates("benchmark")
    assert figure("benchmarks-led accelerator_vendor=NVIDIA") == (fastest["accelerator_vendor"] == "NVIDIA").sum()
