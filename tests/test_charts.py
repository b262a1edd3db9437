import csv
import json
import re

import altair as alt
import jsonschema
import pytest

from site_builder.charts import _spec_validator, build_charts, catalog, load_inputs, localize, validate_spec
from site_builder.i18n import load_language
from tests.conftest import PATIENCE, ROOT


@pytest.fixture(scope="module")
def inputs():
    return load_inputs(ROOT / "data", "v6.0", "v5.1", ROOT)


@pytest.fixture(scope="module")
def languages():
    return [load_language(code, ROOT / "site_builder/theme/locales")[0] for code in ("en", "vi")]


@pytest.fixture(scope="module")
def chart_set(inputs, languages):
    return build_charts(inputs, languages)


@pytest.fixture(scope="module")
def charts(chart_set):
    return {(c.id, c.lang): c for c in chart_set.charts}


CATALOG = ["scaling-deepseekv3-671b", "fastest-per-benchmark", "accelerator-comparison", "mi355x-vs-b200",
           "round-over-round", "participation", "scale-distribution", "gpu-minutes", "results-deepseekv3-671b",
           "results-gpt-oss-20b", "results-llama31-405b", "results-llama31-8b", "results-llama2-70b-lora",
           "results-flux1", "results-dlrm-dcnv2",
           # across the site's rounds (here the main round and the one before it), built with the main round's
           "participation-over-rounds", "history-llama31-405b", "history-llama31-8b", "history-llama2-70b-lora",
           "history-flux1", "history-dlrm-dcnv2"]


def test_catalog_ids_are_stable(inputs):
    assert list(catalog(inputs)) == CATALOG  # ids are public URLs


@pytest.mark.slow
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
    unscored = sum(1 for row in _shipped_rows("v6.0") if not row["score_minutes"])
    assert en["fastest-per-benchmark"].unscored == unscored > 0 and en["mi355x-vs-b200"].unscored > 0


def test_head_to_head_gap_matches_the_data(charts):
    chart = charts[("mi355x-vs-b200", "en")]
    assert "MI355X is 5.6% slower" in chart.summary[1] and "Llama 3.1 8B" in chart.summary[1]
    assert "MI355X is 3.6% slower" in chart.summary[2] and "Llama 2 70B LoRA" in chart.summary[2]
    assert set(chart.rows["accelerator"]) == {"MI355X", "B200"}
    assert chart.spec["title"]["text"] == ["AMD MI355X against NVIDIA B200"]


def test_a_head_to_head_makes_room_for_its_labels(languages, charts):
    """v5.0's MI300X took 32 times B200's time on BERT: the narrow scale widens until each finding fits beside its
    bar (by the estimated width of its text), and a name too long for its short bar moves into the bar's label.
    v6.0's bars, close to one another, keep their names and the scale they had."""
    from site_builder.charts.compare import BESIDE_PX, CHAR_PX, NARROW_PLOT_PX, head_to_head
    vi = languages[1]
    draft = head_to_head("MI300X", "B200")(load_inputs(ROOT / "data", "v5.0", "v4.1", ROOT), vi)
    end = draft.narrow["domains"]["relative"][1]
    rows = draft.rows.set_index(["benchmark", "accelerator"])
    for label, relative in zip(draft.rows["gap_short"], draft.rows["relative"]):
        assert relative / end * NARROW_PLOT_PX + BESIDE_PX + len(label) * CHAR_PX <= NARROW_PLOT_PX + 0.5, label
    spec = draft.chart.to_dict()
    names_layer = next(layer for layer in spec["layer"]
                       if layer["encoding"].get("text", {}).get("field") == "name_inside")
    names = {(row["benchmark_name"], row["accelerator"]): (row["name_inside"], row["name_inside_narrow"])
             for row in spec["datasets"][names_layer["data"]["name"]]}
    assert names[("BERT-large", "MI300X")] == ("MI300X", "MI300X")  # the long bar keeps its name
    assert names[("BERT-large", "B200")] == ("", "") and rows.loc[("bert", "B200"), "gap_short"] == "B200"
    assert "name_inside" not in draft.rows  # where a name is drawn is not data
    assert rows.loc[("bert", "B200"), "minutes_label"] == "B200 · 3,47 phút"
    assert rows.loc[("llama2_70b_lora", "MI300X"), "gap_short"] == "MI300X chậm hơn 158,7%"
    current = charts[("mi355x-vs-b200", "en")]
    assert current.spec["usermeta"]["narrow"]["domains"] == {"relative": [0, 2.27]}
    assert "MI355X" not in " ".join(current.rows["gap_short"])  # both names stay inside their bars


def test_round_over_round_marks_points_that_are_not_like_for_like(charts):
    chart = charts[("round-over-round", "en")]
    rows = chart.rows.set_index("benchmark")
    flux = [row for row in _shipped_rows("v6.0") if row["benchmark"] == "flux1"]
    unscored = sum(1 for row in flux if not row["score_minutes"])
    assert f"{unscored} of {len(flux)} unscored in v6.0" in rows.loc["flux1", "caveat"]  # FLUX.1 looks "slower"
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


def _shipped_rows(round_name: str) -> list[dict[str, str]]:
    with (ROOT / "data" / "rounds" / round_name / "results.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


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
    shipped = [row for row in _shipped_rows("v6.0") if row["benchmark"] == "llama31_8b"]
    scored = sum(1 for row in shipped if row["score_minutes"])
    assert (len(llama.rows), llama.unscored, llama.in_scope) == (scored, len(shipped) - scored, 66)
    assert llama.rows["score_minutes"].notna().all()
    assert set(llama.rows.columns) >= {"submitter", "system_id", "score_source"}


def test_scaling_has_ideal_reference_and_log_scales(charts):
    en = charts[("scaling-deepseekv3-671b", "en")]
    ideal, measured, _points, *efficiency = en.spec["layer"]
    assert efficiency and all(layer["mark"]["type"] == "text" for layer in efficiency)  # efficiency labelled
    assert ideal["mark"]["strokeDash"] and ideal["encoding"]["y"]["field"] == "ideal_minutes"
    assert measured["encoding"]["x"]["scale"]["type"] == "log"
    assert measured["encoding"]["y"]["scale"]["type"] == "log"
    assert measured["encoding"]["x"]["axis"]["values"] == [256, 512, 2048, 4096, 8192]


def test_efficiency_labels_sit_clear_of_points_lines_and_one_another():
    """A label takes the first place beside its point that covers no point, no line of any series and no label
    already placed, the fastest result's first; with no such place it gives way. Checked on the geometry the
    chart is drawn with (log-log scales, Vega's padding) at each width."""
    import pandas as pd

    from site_builder.charts.scaling import PLACEMENTS, _crosses, _overlap, _Plot, place_labels
    # Two series, a at 8-16-32 accelerators and b at 16-32, b's points just above a's.
    rows = pd.DataFrame({"series": ["a", "a", "a", "b", "b"], "total_accelerators": [8, 16, 32, 16, 32],
                         "score_minutes": [40.0, 21.0, 11.0, 21.5, 11.3],
                         "ideal_minutes": [40.0, 20.0, 10.0, 21.5, 10.75]})
    labelled = rows.iloc[[1, 2, 4]].assign(efficiency_label=["95%", "91%", "95%"])
    for widths in ((480,), (480, 1000), (220,)):
        placed = place_labels(labelled, rows, widths)
        for width in widths:
            plot = _Plot(rows, width)
            boxes = [plot.label_box(labelled.loc[i], labelled.loc[i, "efficiency_label"], PLACEMENTS[name])
                     for i, name in placed.items()]
            for n, box in enumerate(boxes):
                assert all(not _overlap(box, other) for other in boxes[n + 1:])
                for (x, y) in (plot.at(a, m) for a, m in zip(rows["total_accelerators"], rows["score_minutes"])):
                    assert not _overlap(box, (x - 5, y - 5, x + 5, y + 5))
                for _name, group in rows.groupby("series"):
                    for field in ("score_minutes", "ideal_minutes"):
                        line = [plot.at(a, m) for a, m in zip(group["total_accelerators"], group[field])]
                        assert not any(_crosses(box, p, q) for p, q in zip(line, line[1:]))
    # One series alone, its points far apart: every label has room, at every width, the last one too (the x scale
    # leaves room beside the largest run).
    alone = rows[rows["series"] == "a"]
    assert len(place_labels(labelled.loc[[1, 2]], alone, (220, 480, 1000))) == 2


def test_a_scaling_chart_says_when_it_leaves_labels_out(languages, inputs):
    """v4.0's BERT has five series at 8 accelerators within a pixel of one another: not every label finds a place
    clear of the marks, the fastest's does, and the note says so; a chart says it only when a label gave way."""
    from site_builder.charts.scaling import scaling
    v4 = load_inputs(ROOT / "data", "v4.0", "v3.1", ROOT)
    en = languages[0]
    crowded = scaling("bert")(v4, en)
    spec = crowded.chart.to_dict()
    labels = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "text")
    shown = spec["datasets"][labels["data"]["name"]]
    every = crowded.rows["efficiency_vs_previous"].notna().sum()
    assert 0 < len(shown) < every
    fastest = crowded.rows.dropna(subset=["efficiency_vs_previous"]).sort_values("score_minutes").iloc[0]
    assert any(row["series"] == fastest["series"] and row["total_accelerators"] == fastest["total_accelerators"]
               for row in shown)
    assert "the table lists every one" in crowded.subtitle
    single = scaling("llama31_405b")(inputs, en)  # three series far apart: every label finds room, nothing is said
    layers = [layer for layer in single.chart.to_dict()["layer"] if layer["mark"]["type"] == "text"]
    kept = sum(len(single.chart.to_dict()["datasets"][layer["data"]["name"]]) for layer in layers[:1])
    assert ("the table lists every one" in single.subtitle) == (kept < single.rows["efficiency_vs_previous"].notna().sum())


def test_one_colour_per_accelerator_in_every_chart(inputs, chart_set):
    """An accelerator has its family's colour (data/accelerators.csv) unless a sibling drawn before it in the same
    chart has it; then the palette's next free colour: no two accelerators of a chart of at most eight share one.
    A legend lists only what is drawn."""
    seen = 0
    for chart in chart_set.charts:
        for layer in chart.spec.get("layer", [chart.spec]):
            colour = layer.get("encoding", {}).get("color", {})
            if colour.get("field") != "accelerator":
                continue
            scale = colour["scale"]
            assert scale["range"] == inputs.hardware.colours(scale["domain"]), chart.id
            families = {}
            for accelerator, value in zip(scale["domain"], scale["range"]):
                family = inputs.hardware.accelerators[accelerator].family
                if family not in families:  # the first of its family in the chart keeps the family's colour
                    assert value == inputs.hardware.accelerators[accelerator].colour, (chart.id, accelerator)
                families.setdefault(family, value)
            if len(scale["domain"]) <= 8:
                assert len(set(scale["range"])) == len(scale["range"]), chart.id
            assert set(scale["domain"]) == set(chart.rows["accelerator"]), chart.id
            seen += 1
    assert seen >= 10


def test_colours_are_dealt_so_that_no_two_series_share_one():
    from site_builder.hardware import DEAL_ORDER, distinct_colours
    blue, orange = DEAL_ORDER[0], DEAL_ORDER[1]
    # the second blue takes the first colour no series prefers, not the orange a later series wants
    assert distinct_colours([blue, blue, orange]) == [blue, DEAL_ORDER[2], orange]
    assert len(set(distinct_colours([blue] * 8))) == 8
    assert distinct_colours([blue] * 9)[8] == blue  # past eight, a series keeps its own; its shape tells it apart


def test_titles_follow_the_language(charts):
    en, vi = charts[("fastest-per-benchmark", "en")], charts[("fastest-per-benchmark", "vi")]
    assert en.spec["title"]["text"] != vi.spec["title"]["text"]
    assert "8.192" in " ".join(vi.rows["label"]) and "8,192" in " ".join(en.rows["label"])


def test_invalid_spec_is_refused(languages):
    broken = alt.Chart(alt.Data(values=[{"a": 1}])).mark_point().encode(x=alt.X("a:Q"))
    broken.height = "tall"  # attribute assignment is not validated; to_dict(validate=True) must catch it
    with pytest.raises(Exception, match="tall"):
        localize(broken, languages[0])


def test_every_chart_is_validated_by_the_fast_validator(chart_set):
    """Each spec passes jsonschema-rs's check by itself: had its schema (or its references) been read wrong, every
    spec would go to Altair's slow validation and the build would be no faster, yet none the wiser."""
    assert chart_set.charts
    for chart in chart_set.charts:
        assert _spec_validator(alt.TopLevelLayerSpec._schema["$ref"] if "layer" in chart.spec else
                               alt.TopLevelUnitSpec._schema["$ref"]).is_valid(chart.spec), chart.id


@pytest.mark.parametrize("damage", [
    lambda spec: spec.update(height="tall"),
    lambda spec: spec["encoding"]["x"].update(type="quantitativ"),
    lambda spec: spec.update(mark={"type": "bar", "colour": "red"}),
    lambda spec: spec.update(datasets={"rows": [{"a": 1}, float("inf")]}),
])
def test_a_spec_the_fast_validator_refuses_is_reported_with_altairs_message(damage):
    spec = alt.Chart(alt.Data(values=[{"a": 1}])).mark_point().encode(x=alt.X("a:Q")).to_dict()
    damage(spec)
    assert not _spec_validator(alt.Chart._schema["$ref"]).is_valid(spec)
    with pytest.raises(jsonschema.ValidationError):  # Altair's validation, which names what is wrong
        validate_spec(alt.Chart, spec)


def _layers(spec: dict) -> list[dict]:
    return spec.get("layer", [spec])


def _encodings(spec: dict, channel: str) -> list[dict]:
    return [layer["encoding"][channel] for layer in _layers(spec) if channel in layer.get("encoding", {})]


def _field_values(spec: dict, field: str) -> set:
    return {row[field] for rows in spec.get("datasets", {}).values() for row in rows if field in row}


def test_titles_keep_their_paragraphs_for_the_browser_and_fit_the_static_width(charts):
    """site.js wraps usermeta's paragraphs by measured width; the spec's own lines suit the 640 px static image."""
    from site_builder.charts.base import SUBTITLE_CHARACTERS, TITLE_CHARACTERS

    for chart in charts.values():
        title, meta = chart.spec["title"], chart.spec["usermeta"]["title"]
        assert " ".join(title["text"]) == meta["heading"], chart.id  # same words, unwrapped
        assert " ".join(title["subtitle"]) == " ".join(meta["subtitle"]), chart.id
        assert all(len(line) <= TITLE_CHARACTERS for line in title["text"]), chart.id
        assert all(len(line) <= SUBTITLE_CHARACTERS for line in title["subtitle"]), chart.id
        assert len(title["text"]) <= 2, (chart.id, chart.lang)  # was up to 8 lines at 38 characters
    assert chart.spec["config"]["title"] == {"fontSize": 15, "subtitleFontSize": 12}  # the sizes site.js measures


def test_every_long_axis_title_has_a_short_one_for_narrow_charts(charts):
    """On a phone, axis titles give way to short ones; dropped layers and swapped fields exist in the spec."""
    for chart in charts.values():
        narrow = chart.spec["usermeta"]["narrow"]
        for layer in _layers(chart.spec):
            for channel in ("x", "y"):
                title = layer.get("encoding", {}).get(channel, {}).get("title")
                if isinstance(title, str) and len(title) > 30:  # about 200 px of bold 11 px text
                    assert title in narrow["titles"], (chart.id, chart.lang, title)
        assert all(len(short) <= 26 for short in narrow["titles"].values()), chart.id
        names = {layer.get("name") for layer in _layers(chart.spec)}
        assert set(narrow["drop"]) <= names, chart.id
        for long_field, short_field in narrow["fields"].items():
            assert _field_values(chart.spec, long_field) and _field_values(chart.spec, short_field), chart.id
        assert all(_field_values(chart.spec, name) for name in narrow["domains"]), chart.id
    assert charts[("fastest-per-benchmark", "en")].spec["usermeta"]["narrow"]["titles"] == {
        "Time to train (minutes) (log scale)": "Minutes (log)", "Time to train (minutes)": "Minutes (log)"}
    head = charts[("mi355x-vs-b200", "en")].spec
    assert {"3.6% slower", "5.6% slower"} <= _field_values(head, "gap_short")  # the finding survives on a phone
    assert charts[("round-over-round", "vi")].spec["usermeta"]["narrow"]["drop"] == ["caveats"]


def _luminance(colour: str) -> float:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_every_chart_colour_stands_out_in_the_light_and_the_dark_theme(charts):
    """Every colour a chart scale uses reaches 3:1 (graphics) on the light and the dark chart background of
    site.js and of the static renderings, with no swap between themes; the palette keeps its colours apart,
    colour-blind safe (Okabe-Ito's hues), and text on bars reaches 4.5:1 on its bar."""
    import re

    from site_builder import images
    from site_builder.hardware import CHART_COLOURS, PALETTE

    script = (ROOT / "site_builder/theme/templates/assets/site.js").read_text()
    for theme, values in (("light", images.LIGHT_THEME), ("dark", images.DARK_THEME)):
        found = re.search(theme + r': \{ background: "(#[0-9a-f]{6})", ink: "(#[0-9a-f]{6})", soft: "(#[0-9a-f]{6})", '
                          r'grid: "(#[0-9a-f]{6})", domain: "(#[0-9a-f]{6})" \}', script)
        assert found and list(found.groups()) == list(values.values()), theme  # site.js and the static SVG agree
        assert _contrast(values["ink"], values["background"]) >= 4.5 and _contrast(values["soft"], values["background"]) >= 4.5
    backgrounds = (images.LIGHT_THEME["background"], images.DARK_THEME["background"])
    assert set(CHART_COLOURS) == set(PALETTE) and len(set(CHART_COLOURS.values())) == len(CHART_COLOURS)
    for colour in CHART_COLOURS.values():
        assert min(_contrast(colour, background) for background in backgrounds) >= 3, colour
    for chart in charts.values():
        assert "colours" not in chart.spec["usermeta"]["dark"]
        for channel in ("color", "fill", "stroke"):
            for encoding in _encodings(chart.spec, channel):
                for colour in (encoding.get("scale") or {}).get("range", []):
                    assert min(_contrast(colour, background) for background in backgrounds) >= 3, (chart.id, colour)
    head = charts[("mi355x-vs-b200", "en")].spec
    names = next(rows for rows in head["datasets"].values() if rows and "ink" in rows[0])
    hardware_colour = {"MI355X": CHART_COLOURS["#D55E00"], "B200": CHART_COLOURS["#56B4E9"]}
    for row in names:
        assert _contrast(row["ink"], hardware_colour[row["accelerator"]]) >= 4.5, row


def test_same_colour_for_an_accelerator_or_vendor_everywhere_and_no_legend_entry_without_a_mark(inputs, chart_set):
    """Colour and shape scales name only what the chart plots; accelerators and vendors keep their table colour
    where no other series of the chart has it (see test_one_colour_per_accelerator_in_every_chart); no chart uses
    more than eight colours."""
    hardware = inputs.hardware
    checked = {"accelerator": 0, "accelerator_vendor": 0}
    for chart in chart_set.charts:
        colours = set()
        for channel in ("color", "shape"):
            for encoding in _encodings(chart.spec, channel):
                scale = encoding.get("scale") or {}
                if "domain" not in scale:
                    continue
                plotted = _field_values(chart.spec, encoding["field"])
                assert set(scale["domain"]) == plotted, (chart.id, encoding["field"], set(scale["domain"]) - plotted)
                if channel != "color":
                    continue
                colours |= set(scale["range"])
                expected = {"accelerator": hardware.colours,
                            "accelerator_vendor": hardware.vendor_colours}.get(encoding["field"])
                if expected:
                    assert scale["range"] == expected(scale["domain"]), (chart.id, encoding["field"])
                    checked[encoding["field"]] += 1
        assert len(colours) <= 8, (chart.id, colours)
    assert checked["accelerator"] >= 20 and checked["accelerator_vendor"] >= 2


def test_charts_show_display_names_and_keep_raw_ids_in_their_csv(tmp_path):
    """A submitter's raw id ("Google_1") never reaches a chart reader; the chart's CSV keeps it."""
    from site_builder.charts import build_charts, load_inputs
    from site_builder.i18n import load_language
    from tests.conftest import ROOT

    inputs = load_inputs(ROOT / "data", "v6.0", "v5.1", ROOT)
    renamed = {raw: name for raw, name in inputs.names.names["submitter"].items() if raw != name}
    assert "Google_1" in renamed
    english = load_language("en", ROOT / "site_builder/theme/locales", ROOT)[0]
    charts = build_charts(inputs, [english]).charts
    showing = [chart for chart in charts if "Google_1" in set(chart.rows.get("submitter", []))]
    assert showing, "a chart plots the Google_1 results"
    for chart in showing:
        text = json.dumps(chart.spec, ensure_ascii=False) + " ".join(chart.summary)
        assert "Google_1" not in text and renamed["Google_1"] in text, chart.id


def test_log_ticks_are_bounded_for_any_value():
    # 1e308 * 10 is infinite: the old loop never ended. A child process, so a regression fails, not hangs.
    import subprocess
    import sys
    code = ("import pandas as pd; from site_builder.charts.base import log_ticks\n"
            "for values in ([1e308], [1e-300, 1e308], [5e-324], [0.5, 20.5]):\n"
            "    print(log_ticks(pd.Series(values)))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=PATIENCE, check=True)
    lines = result.stdout.splitlines()
    assert len(lines) == 4 and all(line.count(",") < 100 for line in lines)
    assert lines[-1] == "[0.5, 1.0, 2.0, 5.0, 10.0, 20.0]"


def test_every_accelerator_has_a_shape_of_its_own_and_points_coloured_by_a_category_get_shapes(inputs):
    """No two accelerators of the site's rounds share a shape (so GB200 and GB300 differ by more than colour), and a
    project's point chart coloured by a category gets a shape per category too, in one legend."""
    from site_builder.charts import with_palette
    from site_builder.hardware import SHAPES

    shown = set(inputs.dataset.results["accelerator"])
    shapes = [a.shape for name, a in inputs.hardware.accelerators.items() if name in shown]
    assert len(set(shapes)) == len(shapes) and len(inputs.hardware.accelerators) > len(SHAPES) >= len(shapes)
    spec = with_palette({"mark": {"type": "point"}, "encoding": {
        "color": {"field": "kind", "type": "nominal", "title": "Kind"}, "x": {"field": "v", "type": "quantitative"}}})
    assert spec["encoding"]["shape"]["field"] == "kind" and spec["encoding"]["shape"]["title"] == "Kind"
    bars = with_palette({"mark": "bar", "encoding": {"color": {"field": "kind", "type": "nominal"}}})
    assert "shape" not in bars["encoding"]  # bars have no shape: their labels name them


def test_static_renderings_are_themed_dark_aware_and_legible_on_a_phone(charts):
    """The static SVG is drawn in the light theme with a style sheet for the dark one; the narrow rendering is
    the chart's narrow variant (short titles, narrow fields, dropped layers, the narrow subtitle) at 300 px with
    text of at least 11 px."""
    import re

    from site_builder import images

    spec = charts[("fastest-per-benchmark", "en")].spec
    wide, narrow = images.chart_svg(spec).decode(), images.chart_narrow_svg(spec).decode()
    for svg in (wide, narrow):
        assert "@media (prefers-color-scheme:dark)" in svg and 'fill="white"' not in svg
        assert images.LIGHT_THEME["ink"] in svg and images.DRAWN_FONT in svg
    assert 'width="300"' in narrow.split(">", 1)[0]
    assert min(float(size) for size in re.findall(r'font-size="([\d.]+)px"', narrow)) >= 11
    assert "label: accelerators." in narrow and "Minutes (log)" in narrow
    assert ">CoreWeave · 8,192 × GB300<" in wide and ">8,192 × GB300<" in narrow and ">CoreWeave" not in narrow
    caveats = images.narrow_spec(charts[("round-over-round", "en")].spec)
    assert all(layer.get("name") != "caveats" for layer in caveats["layer"])
    assert images.narrow_spec(spec) == images.narrow_spec(spec) and images.chart_narrow_svg(spec) == narrow.encode()


def test_a_cached_chart_keeps_what_its_files_are_made_from(inputs, languages):
    """A chart from the build cache brings its spec text, table and rendering keys (a build whose charts are all
    cached computes none of them), also when it is filed under another round's section; they are what the chart
    gives when computed afresh."""
    from site_builder import csv_out, images
    from site_builder.charts import _cached_chart, build_chart, catalog
    factory = catalog(inputs)["fastest-per-benchmark"]
    _cached_chart("fastest-per-benchmark", factory, inputs, languages[0], "key")
    cached = _cached_chart("fastest-per-benchmark", factory, inputs, languages[0], "key")
    moved = cached.in_section("rounds/v6-0")
    for chart in (cached, moved):
        assert {"spec_text", "rows_csv", "rendering_keys"} <= set(vars(chart))
    assert moved.section == "rounds/v6-0" and moved.spec_text == cached.spec_text
    assert cached.spec_text == json.dumps(cached.spec, ensure_ascii=False, indent=1, allow_nan=False) + "\n"
    assert cached.rows_csv == csv_out.frame_csv(cached.rows)
    assert cached.rendering_keys == {kind: images.rendering_key((kind, cached.spec))
                                     for kind in ("svg", "narrow-svg", "png")}
    # Held compact (spec as text, rows pickled: a tenth of the memory), read back exactly as built.
    fresh = build_chart("fastest-per-benchmark", factory, inputs, languages[0])
    for chart in (cached, moved):
        assert "spec" not in vars(chart) and "rows" not in vars(chart)
        assert chart.spec == fresh.spec and chart.rows.equals(fresh.rows)
    assert images.rendering_key(("svg", cached.spec_text)) == cached.rendering_keys["svg"]  # a task as text


@pytest.mark.slow
def test_charts_not_in_the_cache_are_built_in_workers_and_match_those_built_here(inputs, languages, chart_set,
                                                                                  tmp_path, monkeypatch):
    """A build's charts that the cache lacks are built in `jobs` worker processes, a chart to a task: they come
    back in catalog order, equal to those built in this process, and are stored for the next build, which reads
    them here."""
    import os

    from site_builder import charts as chart_catalog
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "cache"))
    task, pids = chart_catalog._chart_task, tmp_path / "pids"

    def noting_the_process(shared, item):
        with pids.open("a") as file:
            file.write(f"{os.getpid()}\n")
        return task(shared, item)

    monkeypatch.setattr(chart_catalog, "_chart_task", noting_the_process)
    keys = {"v6.0": {lang.code: "inputs" for lang in languages}}

    def made(built):
        return [(c.id, c.lang, c.spec_text, c.rows_csv) for c in built["v6.0"].charts], built["v6.0"].left_out

    expected = made({"v6.0": chart_set})
    assert made(chart_catalog.build_rounds({"v6.0": inputs}, languages, keys, jobs=2)) == expected
    workers = set(pids.read_text().split())
    assert len(workers) == 2 and str(os.getpid()) not in workers
    pids.unlink()
    assert made(chart_catalog.build_rounds({"v6.0": inputs}, languages, keys, jobs=2)) == expected
    assert not pids.exists()  # every chart read from the cache, in this process
    # With one job, in one worker all the same: Altair and its objects never stay in the build's process.
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "another cache"))
    assert made(chart_catalog.build_rounds({"v6.0": inputs}, languages, keys, jobs=1)) == expected
    workers = set(pids.read_text().split())
    assert len(workers) == 1 and str(os.getpid()) not in workers


def test_a_mistake_every_round_meets_is_reported_once(inputs, languages, monkeypatch):
    from site_builder import charts as chart_catalog
    from site_builder.charts import round_inputs
    rounds = round_inputs(inputs, ROOT / "data", ROOT)
    assert list(rounds) == ["v5.1", "v6.0"]

    def broken(*args):
        raise KeyError("nope")

    monkeypatch.setattr(chart_catalog, "catalog", lambda inputs, project=(): {"broken": broken})
    with pytest.raises(chart_catalog.SiteError) as raised:
        chart_catalog.build_rounds(rounds, languages)
    assert [str(p) for p in raised.value.problems] == [
        "error: chart 'broken' (en, vi) could not be built: KeyError: 'nope'"]


@pytest.mark.slow
def test_a_build_loads_altair_only_where_charts_are_built(mini_site):
    """Altair (25 MB with its schema) is loaded on a chart's first build, and the charts a build lacks are built
    in a worker even with one job: the build's own process never loads it, whether its charts are built (in a
    worker) or read from the cache (the run's: either may happen here, and both must keep Altair out)."""
    import subprocess
    import sys

    program = ("import importlib.util, sys; from pathlib import Path; from site_builder.build import build_site; "
               "build_site(Path(sys.argv[1]), jobs=1); "
               "print(type(sys.modules['altair']).__name__, 'vl_convert' in sys.modules)")
    shown = subprocess.run([sys.executable, "-c", program, str(mini_site)], capture_output=True, text=True,
                           timeout=PATIENCE)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split() == ["_LazyModule", "False"]


def test_a_results_chart_draws_the_closed_division_only_and_says_so(languages):
    """v2.1's BERT results include the open division's (Samsung, MosaicML): not drawn, and the chart says why."""
    from site_builder.charts.benchmark import benchmark_results

    inputs = load_inputs(ROOT / "data", "v2.1", "v2.0", ROOT)
    bert = inputs.current[inputs.current["benchmark"] == "bert"]
    assert (bert["division"] == "open").any()
    draft = benchmark_results("bert")(inputs, languages[0])
    closed = bert[bert["division"] == "closed"]
    assert set(draft.rows["system_id"]) == set(closed.dropna(subset=["score_minutes"])["system_id"])
    assert draft.in_scope == len(closed)
    assert "Open-division results are not drawn" in draft.description


def test_a_rounds_best_resting_on_a_minority_of_its_results_is_hollow_and_says_so(chart_set):
    """History charts: a point whose round has fewer than half its results scored is drawn hollow, its tooltip
    and the text alternative say how many it rests on."""
    checked = 0
    for chart in (c for c in chart_set.charts if c.lang == "en" and c.id.startswith("history-")):
        rows = chart.rows
        assert (rows["incomplete"] == (rows["scored"] * 2 < rows["results"])).all(), chart.id
        points = next(layer for layer in chart.spec["layer"] if "fillOpacity" in layer.get("encoding", {}))
        assert points["encoding"]["fillOpacity"]["condition"]["test"] == "datum.incomplete"
        for _, row in rows[rows["incomplete"]].iterrows():
            assert f"{row['round']}, {row['series']}: a hollow point, resting on {row['scored_of']}" in " ".join(
                chart.summary), chart.id
            checked += 1
    assert checked >= 1  # v6.0's Llama 3.1 8B at any scale rests on a minority of its results today


def test_a_rounds_best_on_a_preview_system_is_marked_in_the_history_chart(languages):
    """DLRM's v2.1 best is a preview system: the history chart's row says so (tooltip and data table)."""
    from site_builder.charts.history import family_history
    from site_builder.rounds import discover_rounds

    every_round = load_inputs(ROOT / "data", "v6.0", "v5.1", ROOT, discover_rounds(ROOT / "data"))
    draft = family_history(("dlrm",))(every_round, languages[0])
    rows = draft.rows.set_index(["round", "series"])
    assert rows.loc[("v2.1", "fastest at any scale"), "availability"] == "preview"
    assert "availability" in {column.field for column in draft.columns}


@pytest.mark.parametrize("round_name", ["v1.0", "v2.1", "v3.0", "v3.1"])
def test_results_charts_of_every_round_keep_zero_accelerators_off_the_log_axis(round_name, languages):
    """CPU-only results (0 accelerators) broke the log axis of 48 charts: each benchmark's results chart of the
    rounds that have them draws its other results on ticks, lists the CPU-only ones in its table and says so."""
    import vl_convert

    from site_builder.charts.benchmark import benchmark_results
    from site_builder.rounds import discover_rounds, previous_of

    rounds = discover_rounds(ROOT / "data")
    inputs = load_inputs(ROOT / "data", round_name, previous_of(rounds, round_name), ROOT)
    zero = 0
    for benchmark in sorted(set(inputs.current["benchmark"])):
        draft = benchmark_results(benchmark)(inputs, languages[0])
        if not (draft.rows["total_accelerators"] <= 0).any():
            continue
        zero += 1
        spec = localize_spec(draft)
        assert {"filter": "datum.total_accelerators > 0"} in spec.get("transform", []), benchmark
        assert all(v > 0 for v in spec["encoding"]["x"]["axis"]["values"]), benchmark
        assert "CPU only" in draft.description
        svg = vl_convert.vegalite_to_svg(spec)
        labels = [len(re.findall(r"<text", group)) for group in re.findall(r"role-axis-label[^>]*>(.*?)</g>", svg, re.S)]
        assert len(labels) == 2 and min(labels) > 0, (benchmark, labels)  # both axes keep labelled ticks
    assert zero >= 1  # each of these rounds has CPU-only results


def localize_spec(draft):
    return draft.chart.to_dict(validate=False)


def test_a_results_chart_without_its_cpu_only_results_names_none_in_its_legend_or_summary(languages):
    from site_builder.charts.benchmark import benchmark_results

    inputs = load_inputs(ROOT / "data", "v1.0", None, ROOT)
    draft = benchmark_results("resnet")(inputs, languages[0])
    cpu = draft.rows[draft.rows["total_accelerators"] == 0]
    assert len(cpu) and set(cpu["accelerator"]).isdisjoint(
        draft.chart.to_dict(validate=False)["encoding"]["color"]["scale"]["domain"])
    assert f"{len(draft.rows) - len(cpu)} scored results of ResNet-50, from 4 to" in draft.summary[0]
