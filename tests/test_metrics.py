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
    assert headline.scored_results == 65
    assert (headline.multi_node_systems, round(headline.multi_node_share * 100, 1)) == (68, 60.2)
    assert headline.largest_scale == 8192
    assert headline.fastest_deepseek["score_minutes"] == 2.0206
    assert headline.fastest_deepseek["system_id"] == "CoreWeave_GB300_2048x4"


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
