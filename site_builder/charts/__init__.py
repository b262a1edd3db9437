"""The chart catalog: Altair charts with explicit channel classes, localized, validated.

Each catalog entry is a function from (data, language) to a `ChartDraft`: the Altair chart, its
translated titles, the plotted rows with their sources, a text alternative written from the data,
and the columns of its data table. `build_charts` adds the title (with a note when the chart's scope
has unscored results), the language's number and time locale, validates the Vega-Lite spec and
returns frozen `Chart`s. The catalog holds no benchmark, accelerator or round: what a round's charts
feature comes from `charts.features` (round.toml or the results).
Chart ids are part of the public URL scheme (charts/<lang>/<id>.vl.json): a renamed id keeps its old
URL through an alias in round.toml.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import altair as alt
import pandas as pd
from altair.utils.schemapi import debug_mode

from site_builder import cache
from site_builder.charts.base import (
    ChartDraft,
    ChartFactory,
    ChartInputs,
    Column,
    NoData,
    title_paragraphs,
    title_params,
    unscored_note,
)
from site_builder.charts.benchmark import benchmark_chart_id, benchmark_results
from site_builder.charts.compare import (
    accelerator_comparison,
    head_to_head,
    head_to_head_chart_id,
    round_over_round,
)
from site_builder.charts.features import Features, check_aliases, resolve_features
from site_builder.charts.overview import (
    fastest_per_benchmark,
    gpu_minutes,
    participation,
    scale_distribution,
)
from site_builder.charts.scaling import scaling, scaling_chart_id
from site_builder.data import Dataset
from site_builder.display_names import DisplayNames, load_display_names
from site_builder.errors import Collector, Problem, SiteError
from site_builder.hardware import DARK_COLOURS, Hardware
from site_builder.i18n import Language
from site_builder.rounds import RoundInfo

__all__ = ["Chart", "ChartDraft", "ChartInputs", "ChartSet", "Column", "Features", "NoData", "benchmark_chart_id",
           "build_chart", "build_charts", "catalog", "load_inputs", "localize", "prepare_inputs"]

# Browsers take the system font; vl-convert (static SVG, PNG) knows no "system-ui" and needs a named face.
CHART_FONT = "system-ui, -apple-system, Segoe UI, Roboto, DejaVu Sans, Liberation Sans, Arial, sans-serif"


@dataclass(frozen=True)
class Chart:
    id: str
    lang: str
    title: str
    description: str
    spec: dict
    rows: pd.DataFrame
    unscored: int
    summary: tuple[str, ...]
    columns: tuple[Column, ...]
    in_scope: int = 0
    benchmark: str | None = None  # the benchmark a per-benchmark chart shows

    @property
    def path(self) -> str:
        return f"{self.lang}/charts/{self.id}/index.html"


@dataclass(frozen=True)
class ChartSet:
    """The built charts, the charts left out (id -> why, a warning) and the features the round lacks (notes)."""

    charts: list[Chart]
    left_out: dict[str, Problem]
    notes: list[Problem]
    aliases: dict[str, str]  # old id -> current id, for charts that were built

    def ids(self) -> list[str]:
        return list(dict.fromkeys(chart.id for chart in self.charts))


def prepare_inputs(dataset: Dataset, hardware: Hardware, info: RoundInfo, round_name: str,
                   previous_round: str | None, problems: Collector, names: DisplayNames | None = None) -> ChartInputs:
    """Chart inputs with the round's features; unknown names in round.toml's [charts] go to `problems`."""
    features = resolve_features(info, dataset, round_name, hardware, problems)
    return ChartInputs(dataset, round_name, previous_round, hardware, features, names or DisplayNames())


def catalog(inputs: ChartInputs) -> dict[str, ChartFactory]:
    """Chart id -> factory, in display order: the round's charts, then one per benchmark."""
    features = inputs.features
    charts: dict[str, ChartFactory] = {}
    if features.scaling_benchmark:
        charts[scaling_chart_id(features.scaling_benchmark)] = scaling(features.scaling_benchmark)
    charts["fastest-per-benchmark"] = fastest_per_benchmark
    if features.single_node_benchmarks:
        charts["accelerator-comparison"] = accelerator_comparison
    if features.head_to_head:
        charts[head_to_head_chart_id(*features.head_to_head)] = head_to_head(*features.head_to_head)
    if inputs.previous_round:
        charts["round-over-round"] = round_over_round
    charts["participation"] = participation
    charts["scale-distribution"] = scale_distribution
    charts["gpu-minutes"] = gpu_minutes
    for benchmark in inputs.round_benchmarks():
        charts[benchmark_chart_id(benchmark)] = benchmark_results(benchmark)
    return charts


def absent_features(inputs: ChartInputs) -> list[Problem]:
    """Notes for the round's charts that the data does not call for (nothing declared, nothing found)."""
    features, scale = inputs.features, inputs.features.comparison_scale
    notes = []
    if not features.scaling_benchmark:
        notes.append(f"no scaling chart: no submitter has scored {inputs.round} results of one accelerator "
                     "at two scales")
    if not features.single_node_benchmarks:
        notes.append(f"no chart 'accelerator-comparison': no benchmark has scored {inputs.round} results of "
                     f"{scale} accelerators on two accelerator types")
    if not features.head_to_head:
        notes.append(f"no head-to-head chart: no two accelerators of different vendors have scored {inputs.round} "
                     f"results of {scale} accelerators on a shared benchmark")
    return [Problem(text, features.source, severity="note") for text in notes]


def localize(chart: alt.TopLevelMixin, lang: Language) -> dict:
    """Final Vega-Lite spec with the language's d3 number and time locale, validated once as a whole
    (Altair's to_dict(validate=True) also validates each layer again)."""
    padded = chart.properties(padding={"top": 12, "right": 12, "bottom": 6, "left": 6})
    configured = padded.configure(locale=alt.Locale(number=lang.d3_format_locale(), time=lang.d3_time_locale()),
                                  autosize=alt.AutoSizeParams(type="fit-x", contains="padding"),
                                  font=CHART_FONT, title=alt.TitleConfig(fontSize=15, subtitleFontSize=12))
    spec = configured.to_dict(validate=False)
    type(configured).validate(spec)
    return spec


def build_chart(chart_id: str, factory: ChartFactory, inputs: ChartInputs, lang: Language) -> Chart:
    """One chart in one language; raises NoData when its scope is empty, and SiteError naming the chart
    and the language for any library error (Altair, jsonschema, pandas): the stage's error boundary."""
    try:
        with debug_mode(False):  # no validation of every object as it is made: the whole spec is validated once
            return _build_chart(chart_id, factory, inputs, lang)
    except (NoData, SiteError):
        raise
    except Exception as error:  # noqa: BLE001 - the stage's error boundary: never a traceback
        message = str(error).strip().splitlines()[0][:300] if str(error).strip() else ""
        raise SiteError(Problem(f"chart '{chart_id}' ({lang.code}) could not be built: "
                                f"{type(error).__name__}: {message}")) from None


def _build_chart(chart_id: str, factory: ChartFactory, inputs: ChartInputs, lang: Language) -> Chart:
    draft = factory(inputs, lang)
    note = unscored_note(lang, draft.unscored, draft.in_scope)
    # usermeta tells site.js how to draw the chart at the page's width and colour scheme.
    usermeta = {"title": title_paragraphs(draft.heading, draft.subtitle, note), "narrow": draft.narrow,
                "dark": {"colours": DARK_COLOURS, "fields": draft.dark_fields}}
    titled = draft.chart.properties(title=title_params(draft.heading, draft.subtitle, note), usermeta=usermeta)
    summary = (*draft.summary, note) if note else tuple(draft.summary)
    benchmark = next((b for b in inputs.round_benchmarks() if benchmark_chart_id(b) == chart_id), None)
    # Readers see submitters by their display names, in marks, legends, tooltips and text alike (the same
    # whole-token swap everywhere keeps scale domains and data values matching); the CSV keeps raw ids.
    named = inputs.names.in_text
    return Chart(chart_id, lang.code, named(draft.title), named(draft.description),
                 _renamed(localize(titled, lang), named), draft.rows, draft.unscored, tuple(map(named, summary)),
                 tuple(draft.columns), draft.in_scope, benchmark)


def _renamed(value, named):
    """Every string of a spec with raw submitter ids replaced by display names."""
    if isinstance(value, str):
        return named(value)
    if isinstance(value, list):
        return [_renamed(item, named) for item in value]
    if isinstance(value, dict):
        return {key: _renamed(item, named) for key, item in value.items()}
    return value


def _declared_where(inputs: ChartInputs, chart_id: str) -> tuple[str | None, int | None]:
    """round.toml and the line of the declaration a chart comes from, when it was declared."""
    features = inputs.features
    keys = {"accelerator-comparison": "single_node_benchmarks"}
    if features.head_to_head:
        keys[head_to_head_chart_id(*features.head_to_head)] = "head_to_head"
    if features.scaling_benchmark:
        keys[scaling_chart_id(features.scaling_benchmark)] = "scaling_benchmark"
    key = keys.get(chart_id)
    if key in features.declared:
        return features.source, features.lines.get(key)
    return None, None


def build_charts(inputs: ChartInputs, languages: list[Language], inputs_keys: dict[str, str] | None = None) -> ChartSet:
    """Every chart of the catalog in every language. A chart whose scope is empty is left out with a
    warning; any library error (Altair, jsonschema, pandas) becomes a problem naming chart and language.
    `inputs_keys` (language code -> hash of the data and that language's catalog) lets a chart come from
    the build cache instead of being built and validated again."""
    problems = Collector()
    charts, left_out = [], {}
    for chart_id, factory in catalog(inputs).items():
        for lang in languages:
            try:
                if inputs_keys is None:
                    charts.append(build_chart(chart_id, factory, inputs, lang))
                else:
                    charts.append(_cached_chart(chart_id, factory, inputs, lang, inputs_keys[lang.code]))
            except NoData as reason:
                left_out[chart_id] = Problem(f"chart '{chart_id}' is left out: {reason}",
                                             *_declared_where(inputs, chart_id), severity="warning")
                break
            except SiteError as error:
                problems.extend(error)
    problems.raise_if_any()
    built = list(dict.fromkeys(chart.id for chart in charts))
    alias_problems = Collector()
    aliases = check_aliases(inputs.features, built, left_out, alias_problems)
    alias_problems.raise_if_any()
    return ChartSet(charts, left_out, absent_features(inputs), aliases)


def _cached_chart(chart_id: str, factory: ChartFactory, inputs: ChartInputs, lang: Language, inputs_key: str) -> Chart:
    """`build_chart` through the build cache: the key is the chart, the language, its inputs and Altair's version;
    a chart left out for want of data is remembered as such."""
    code = getattr(factory, "__code__", None)  # the factory itself: another function is another chart
    entry = cache.key("chart", cache.versions("altair", "pandas", "babel"), chart_id, lang.code, inputs_key,
                      getattr(factory, "__module__", ""), getattr(factory, "__qualname__", repr(type(factory))),
                      code.co_code if code is not None else b"")
    found = cache.load("chart", entry)
    if isinstance(found, Chart):
        return found
    if isinstance(found, str):
        raise NoData(found)
    try:
        chart = build_chart(chart_id, factory, inputs, lang)
    except NoData as reason:
        cache.save("chart", entry, str(reason))
        raise
    cache.save("chart", entry, chart)
    return chart


def load_inputs(data_dir: Path, round_name: str, previous_round: str | None, root: Path | None = None) -> ChartInputs:
    """Chart inputs read from a data folder, every problem reported together (for export and tests)."""
    from site_builder.data import load_dataset
    from site_builder.hardware import load_hardware
    from site_builder.rounds import load_round_info

    problems = Collector()

    def attempt(load, *args):
        try:
            return load(*args)
        except SiteError as error:
            problems.extend(error)
            return None

    rounds = [round_name] + ([previous_round] if previous_round else [])
    dataset = attempt(load_dataset, data_dir, rounds, root)
    hardware = attempt(load_hardware, data_dir, root)
    info = attempt(load_round_info, data_dir, round_name, root)
    names = attempt(load_display_names, data_dir, root)
    problems.raise_if_any()
    hardware.check_results(dataset.results, problems)
    inputs = prepare_inputs(dataset, hardware, info, round_name, previous_round, problems, names)
    problems.raise_if_any()
    return inputs
