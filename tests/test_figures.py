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
