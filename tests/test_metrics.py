import pytest

from site_builder import metrics
from site_builder.data import load_dataset
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def dataset():
    return load_dataset(ROOT / "data", ["v6.0", "v5.1"], ROOT)


def test_headline_matches_the_public_data(dataset):
    headline = metrics.headline(dataset.round("v6.0"))
    assert headline.organizations == 22
    assert headline.systems == 113
    assert headline.accelerator_types == 13
    assert headline.results == 224
    assert headline.scored_results == dataset.round("v6.0")["score_minutes"].notna().sum() >= 96
    assert (headline.multi_node_systems, round(headline.multi_node_share * 100, 1)) == (68, 60.2)
    assert headline.largest_scale == 8192
    # a tie: three systems share the largest scale, and the headline carries all of them
    assert list(headline.largest_scale_systems["system_id"]) == [
        "2048xAzure_GB200", "CoreWeave_GB300_2048x4", "tyche-hsg_ngpu8192_ngc26.04_nemo"]


def test_fastest_per_benchmark_keeps_sources(dataset):
    fastest = metrics.fastest_per_benchmark(dataset.round("v6.0")).set_index("benchmark")
    assert fastest.loc["deepseekv3_671b", "score_minutes"] == 2.0206
    assert fastest.loc["llama31_405b", "submitter"] == "Azure"
    assert fastest.loc["llama31_405b", "score_minutes"] == 7.0686
    assert all(isinstance(s, str) and s for s in fastest["score_source"])


def test_benchmark_without_scores_keeps_a_missing_row(dataset):
    current = dataset.round("v6.0")
    only_unscored = current[current["score_minutes"].isna()].head(3).assign(benchmark="flux1")
    result = metrics.fastest_per_benchmark(only_unscored)
    assert len(result) == 1 and result.iloc[0]["unscored"] == 3
    assert result["score_minutes"].isna().all()


def test_deepseek_scaling_efficiency_matches_claims(dataset):
    series = metrics.scaling_series(dataset.round("v6.0"), "deepseekv3_671b")
    coreweave = series[series["submitter"] == "CoreWeave"].set_index("total_accelerators")
    assert round(coreweave.loc[4096, "efficiency_vs_previous"] * 100, 1) == 89.5
    assert round(coreweave.loc[8192, "efficiency_vs_previous"] * 100, 1) == 76.5
    rows = series[series["submitter"] == "CoreWeave"].set_index("total_accelerators", drop=False)
    overall = metrics.scaling_efficiency(rows.loc[2048], rows.loc[8192])
    assert round(overall * 100, 1) == 68.5  # "near-linear" is overstated
    assert coreweave.loc[8192, "ideal_minutes"] == pytest.approx(5.5354 / 4)


def test_round_over_round(dataset):
    table = metrics.round_over_round(dataset.round("v6.0"), dataset.round("v5.1")).set_index("benchmark")
    assert "deepseekv3_671b" not in table.index  # new in v6.0
    assert table.loc["llama31_405b", "speedup"] == pytest.approx(9.9945 / 7.0686)
    flags = table[["different_scale", "different_accelerator", "incomplete"]].astype(bool)
    assert flags.loc["flux1"].tolist() == [True, True, True]  # most v6.0 results unscored, looks slower
    assert flags.loc["llama31_405b"].tolist() == [True, False, False]
    assert flags.loc["llama31_8b"].tolist() == [True, True, False]
    assert flags.loc["dlrm_dcnv2"].tolist() == [False, True, False]
    assert flags.loc["llama2_70b_lora"].tolist() == [False, False, False]
    flux = dataset.round("v6.0").query("benchmark == 'flux1'")
    assert (table.loc["flux1", "current_unscored"], table.loc["flux1", "current_results"]) == (
        flux["score_minutes"].isna().sum(), 16)


def test_features_are_derived_from_the_results(dataset):
    current, order = dataset.round("v6.0"), dataset.benchmarks_in("v6.0")
    # NVIDIA's GB200 series runs from 512 to 8,192 accelerators: the widest range of one series
    assert metrics.widest_scaling_benchmark(current, order) == "deepseekv3_671b"
    assert metrics.single_node_benchmarks(current, 8, order) == [
        "gpt_oss_20b", "llama31_8b", "llama2_70b_lora", "dlrm_dcnv2"]
    previous = dataset.round("v5.1")
    assert metrics.widest_scaling_benchmark(previous, dataset.benchmarks_in("v5.1")) == "flux1"  # 16 to 1,152
    vendor = dict(zip(dataset.results["accelerator"], dataset.results["accelerator_vendor"]))
    pair = metrics.head_to_head_pair(current, vendor.get, 8, order)
    assert vendor[pair[0]] != vendor[pair[1]]
    assert vendor[pair[0]] == "AMD"  # the challenger is the vendor with fewer results
    assert len(metrics.shared_benchmarks(current, *pair, 8, order)) == 2
    nvidia_only = current[current["accelerator_vendor"] == "NVIDIA"]
    assert metrics.head_to_head_pair(nvidia_only, vendor.get, 8, order) is None
    assert metrics.widest_scaling_benchmark(current[current["total_accelerators"] == 8], order) is None


def test_headline_of_a_round_with_one_largest_system(dataset):
    headline = metrics.headline(dataset.round("v5.1"))
    assert len(headline.largest_scale_systems) >= 1
    assert (headline.largest_scale_systems["total_accelerators"] == headline.largest_scale).all()
