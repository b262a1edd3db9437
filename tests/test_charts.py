import json

import altair as alt
import pytest

from site_builder.charts import ChartInputs, build_charts, catalog, localize
from site_builder.data import load_dataset
from site_builder.i18n import load_language
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def inputs():
    return ChartInputs(load_dataset(ROOT / "data", ["v6.0", "v5.1"], ROOT), "v6.0", "v5.1")


@pytest.fixture(scope="module")
def languages():
    return [load_language(code, ROOT / "locales")[0] for code in ("en", "vi")]


CATALOG = ["deepseek-scaling", "fastest-per-benchmark", "accelerator-comparison", "amd-vs-nvidia",
           "round-over-round", "participation", "scale-distribution", "gpu-minutes", "results-deepseekv3-671b",
           "results-gpt-oss-20b", "results-llama31-405b", "results-llama31-8b", "results-llama2-70b-lora",
           "results-flux1", "results-dlrm-dcnv2"]


def test_catalog_ids_are_stable(inputs):
    assert list(catalog(inputs)) == CATALOG  # ids are public URLs


def test_every_chart_is_valid_localized_described_and_free_of_nan(inputs, languages):
    charts = build_charts(inputs, languages)
    assert len(charts) == len(CATALOG) * 2
    for chart in charts:
        text = json.dumps(chart.spec, allow_nan=False)  # raises on NaN or Infinity
        assert chart.spec["config"]["locale"]["number"]["decimal"] == ("." if chart.lang == "en" else ",")
        assert chart.spec["width"] == "container"
        assert "title" in chart.spec and text
        assert len(chart.summary) >= 2, chart.id  # a text alternative: what it shows and its extremes
        assert {column.field for column in chart.columns} <= set(chart.rows.columns), chart.id
        assert len(chart.rows) > 0, chart.id


def test_amd_vs_nvidia_gap_matches_the_data(inputs, languages):
    chart = next(c for c in build_charts(inputs, languages[:1]) if c.id == "amd-vs-nvidia")
    assert "MI355X is 3.6% slower" in chart.summary[1] and "Llama 2 70B LoRA" in chart.summary[1]
    assert "MI355X is 3.4% slower" in chart.summary[2]
    assert set(chart.rows["accelerator"]) == {"MI355X", "B200"}


def test_text_alternatives_state_the_key_comparison(inputs, languages):
    charts = {(c.id, c.lang): c for c in build_charts(inputs, languages)}
    scaling = " ".join(charts[("deepseek-scaling", "en")].summary)
    assert "From 2,048 to 8,192 GPUs, CoreWeave · GB300 went from 5.54 to 2.02 minutes" in scaling
    assert "scaling efficiency of 68.5%" in scaling
    assert "2,02" in " ".join(charts[("deepseek-scaling", "vi")].summary)
    participation = " ".join(charts[("participation", "en")].summary)
    assert "22 organizations submitted 224 results." in participation
    assert "60.2%" in " ".join(charts[("scale-distribution", "en")].summary)
    assert "FLUX.1 looks slower" in " ".join(charts[("round-over-round", "en")].summary)


def test_unscored_results_are_counted_not_plotted(inputs, languages):
    charts = {(c.id, c.lang): c for c in build_charts(inputs, languages)}
    llama = charts[("results-llama31-8b", "en")]
    assert (len(llama.rows), llama.unscored) == (17, 49)
    assert llama.rows["score_minutes"].notna().all()
    assert set(llama.rows.columns) >= {"submitter", "system_id", "score_source"}


def test_deepseek_scaling_has_ideal_reference_and_log_scales(inputs, languages):
    en = next(c for c in build_charts(inputs, languages) if c.id == "deepseek-scaling" and c.lang == "en")
    ideal, measured, efficiency = en.spec["layer"]
    assert efficiency["mark"]["type"] == "text"  # efficiency labelled between points
    assert ideal["mark"]["strokeDash"] and ideal["encoding"]["y"]["field"] == "ideal_minutes"
    assert measured["encoding"]["x"]["scale"]["type"] == "log"
    assert measured["encoding"]["y"]["scale"]["type"] == "log"
    assert measured["encoding"]["x"]["axis"]["values"] == [256, 512, 2048, 4096, 8192]


def test_titles_follow_the_language(inputs, languages):
    en, vi = (c for c in build_charts(inputs, languages) if c.id == "fastest-per-benchmark")
    assert en.spec["title"]["text"] != vi.spec["title"]["text"]
    assert "8.192" in " ".join(vi.rows["label"]) and "8,192" in " ".join(en.rows["label"])


def test_invalid_spec_is_refused(languages):
    broken = alt.Chart(alt.Data(values=[{"a": 1}])).mark_point().encode(x=alt.X("a:Q"))
    broken.height = "tall"  # attribute assignment is not validated; to_dict(validate=True) must catch it
    with pytest.raises(Exception, match="tall"):
        localize(broken, languages[0])
