import json

import altair as alt
import pytest

from site_builder.charts import build_charts, catalog, load_inputs, localize
from site_builder.i18n import load_language
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def inputs():
    return load_inputs(ROOT / "data", "v6.0", "v5.1", ROOT)


@pytest.fixture(scope="module")
def languages():
    return [load_language(code, ROOT / "locales")[0] for code in ("en", "vi")]


@pytest.fixture(scope="module")
def chart_set(inputs, languages):
    return build_charts(inputs, languages)


@pytest.fixture(scope="module")
def charts(chart_set):
    return {(c.id, c.lang): c for c in chart_set.charts}


CATALOG = ["scaling-deepseekv3-671b", "fastest-per-benchmark", "accelerator-comparison", "mi355x-vs-b200",
           "round-over-round", "participation", "scale-distribution", "gpu-minutes", "results-deepseekv3-671b",
           "results-gpt-oss-20b", "results-llama31-405b", "results-llama31-8b", "results-llama2-70b-lora",
           "results-flux1", "results-dlrm-dcnv2"]


def test_catalog_ids_are_stable(inputs):
    assert list(catalog(inputs)) == CATALOG  # ids are public URLs


def test_renamed_ids_are_declared_aliases(chart_set):
    assert chart_set.aliases == {"deepseek-scaling": "scaling-deepseekv3-671b", "amd-vs-nvidia": "mi355x-vs-b200"}
    assert chart_set.left_out == {} and chart_set.notes == []


def test_every_chart_is_valid_localized_described_and_free_of_nan(chart_set):
    assert len(chart_set.charts) == len(CATALOG) * 2
    for chart in chart_set.charts:
        text = json.dumps(chart.spec, allow_nan=False)  # raises on NaN or Infinity
        assert chart.spec["config"]["locale"]["number"]["decimal"] == ("." if chart.lang == "en" else ",")
        assert chart.spec["width"] == "container"
        assert "title" in chart.spec and text
        assert len(chart.summary) >= 2, chart.id  # a text alternative: what it shows and its extremes
        assert {column.field for column in chart.columns} <= set(chart.rows.columns), chart.id
        assert len(chart.rows) > 0, chart.id


def test_charts_with_unscored_results_say_so_on_the_chart(chart_set):
    checked = 0
    for chart in chart_set.charts:
        subtitle = " ".join(chart.spec["title"]["subtitle"])
        if chart.unscored and chart.lang == "en":
            assert "not a random sample" in subtitle, chart.id
            assert f"{chart.unscored:,} of {chart.in_scope:,}" in subtitle.replace("\n", " "), chart.id
            checked += 1
        elif not chart.unscored:
            assert "random sample" not in subtitle, chart.id
    assert checked >= 8  # fastest-per-benchmark and the head-to-head included
    en = {c.id: c for c in chart_set.charts if c.lang == "en"}
    assert en["fastest-per-benchmark"].unscored == 159 and en["mi355x-vs-b200"].unscored > 0


def test_head_to_head_gap_matches_the_data(charts):
    chart = charts[("mi355x-vs-b200", "en")]
    assert "MI355X is 3.4% slower" in chart.summary[1] and "Llama 3.1 8B" in chart.summary[1]
    assert "MI355X is 3.6% slower" in chart.summary[2] and "Llama 2 70B LoRA" in chart.summary[2]
    assert set(chart.rows["accelerator"]) == {"MI355X", "B200"}
    assert chart.spec["title"]["text"] == ["AMD MI355X against NVIDIA B200"]


def test_round_over_round_marks_points_that_are_not_like_for_like(charts):
    chart = charts[("round-over-round", "en")]
    rows = chart.rows.set_index("benchmark")
    assert "13 of 16 unscored in v6.0" in rows.loc["flux1", "caveat"]  # FLUX.1 looks 0.33x "slower"
    assert "different scale: 5,120 → 8,192" in rows.loc["llama31_405b", "caveat"]
    assert "different scale: 512 → 1,024" in rows.loc["llama31_8b", "caveat"]
    assert "different chip: GB200 → GB300" in rows.loc["dlrm_dcnv2", "caveat"]
    assert rows.loc["llama2_70b_lora", "caveat"] == ""  # same scale, same chip, 1 of 63 unscored
    assert rows.loc["flux1", "comparison"] == "not like for like"
    # the caveat is drawn: a hollow layer and a text layer whose labels come from the rows
    layers = chart.spec["layer"]
    assert any(layer["mark"].get("filled") is False for layer in layers)
    assert any(layer["mark"]["type"] == "text" and layer["encoding"]["text"]["field"] == "caveat"
               for layer in layers)
    colours = next(layer for layer in layers if "color" in layer.get("encoding", {}))["encoding"]["color"]["scale"]
    assert colours["domain"] == ["faster", "not like for like"]  # no legend entry without a mark
    assert "#c8102e" not in json_text(chart) and "#D55E00" not in colours["range"]
    assert "FLUX.1 is not compared like for like" in " ".join(chart.summary)
    vi = charts[("round-over-round", "vi")]
    assert vi.rows.set_index("benchmark").loc["flux1", "caveat"] != rows.loc["flux1", "caveat"]  # translated


def json_text(chart) -> str:
    return json.dumps(chart.spec)


def test_text_alternatives_state_the_key_comparison(charts):
    scaling = " ".join(charts[("scaling-deepseekv3-671b", "en")].summary)
    assert "From 2,048 to 8,192 accelerators, CoreWeave · GB300 went from 5.54 to 2.02 minutes" in scaling
    assert "scaling efficiency of 68.5%" in scaling
    assert "2,02" in " ".join(charts[("scaling-deepseekv3-671b", "vi")].summary)
    participation = " ".join(charts[("participation", "en")].summary)
    assert "22 organizations submitted 224 results." in participation
    assert "NVIDIA 87.1% and AMD 12.9%" in participation  # 195 and 29 of 224
    assert "60.2%" in " ".join(charts[("scale-distribution", "en")].summary)


def test_unscored_results_are_counted_not_plotted(charts):
    llama = charts[("results-llama31-8b", "en")]
    assert (len(llama.rows), llama.unscored, llama.in_scope) == (17, 49, 66)
    assert llama.rows["score_minutes"].notna().all()
    assert set(llama.rows.columns) >= {"submitter", "system_id", "score_source"}


def test_scaling_has_ideal_reference_and_log_scales(charts):
    en = charts[("scaling-deepseekv3-671b", "en")]
    ideal, measured, _points, efficiency = en.spec["layer"]
    assert efficiency["mark"]["type"] == "text"  # efficiency labelled between points
    assert ideal["mark"]["strokeDash"] and ideal["encoding"]["y"]["field"] == "ideal_minutes"
    assert measured["encoding"]["x"]["scale"]["type"] == "log"
    assert measured["encoding"]["y"]["scale"]["type"] == "log"
    assert measured["encoding"]["x"]["axis"]["values"] == [256, 512, 2048, 4096, 8192]


def test_one_colour_per_accelerator_in_every_chart(inputs, chart_set):
    """The same accelerator has the same colour (its family's, from data/accelerators.csv) wherever it is drawn,
    and a legend lists only what is drawn."""
    seen = 0
    for chart in chart_set.charts:
        for layer in chart.spec.get("layer", [chart.spec]):
            colour = layer.get("encoding", {}).get("color", {})
            if colour.get("field") != "accelerator":
                continue
            scale = colour["scale"]
            for accelerator, value in zip(scale["domain"], scale["range"]):
                assert value == inputs.hardware.accelerators[accelerator].colour, (chart.id, accelerator)
            assert set(scale["domain"]) == set(chart.rows["accelerator"]), chart.id
            seen += 1
    assert seen >= 10


def test_titles_follow_the_language(charts):
    en, vi = charts[("fastest-per-benchmark", "en")], charts[("fastest-per-benchmark", "vi")]
    assert en.spec["title"]["text"] != vi.spec["title"]["text"]
    assert "8.192" in " ".join(vi.rows["label"]) and "8,192" in " ".join(en.rows["label"])


def test_invalid_spec_is_refused(languages):
    broken = alt.Chart(alt.Data(values=[{"a": 1}])).mark_point().encode(x=alt.X("a:Q"))
    broken.height = "tall"  # attribute assignment is not validated; to_dict(validate=True) must catch it
    with pytest.raises(Exception, match="tall"):
        localize(broken, languages[0])
