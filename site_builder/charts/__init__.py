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

import copy
import dataclasses
import difflib
import functools
import json
import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pandas as pd

from site_builder import cache, csv_out, images, parallel, paths
from site_builder.charts.base import (
    ChartDraft,
    ChartFactory,
    ChartInputs,
    Column,
    NoData,
    accelerator_encodings,
    minutes_axis,
    result_columns,
    result_tooltip,
    title_paragraphs,
    title_params,
    unscored_note,
)
from site_builder.charts.benchmark import benchmark_chart_id
from site_builder.charts.compare import head_to_head_chart_id
from site_builder.charts.features import Features, check_aliases, resolve_features
from site_builder.charts.lazy_altair import alt
from site_builder.charts.registry import (
    BoundChart,
    ChartEntry,
    chart,
    declared_in,
    error_line,
    expand,
    load_project_charts,
)
from site_builder.charts.scaling import scaling_chart_id
from site_builder.data import Dataset
from site_builder.display_names import DisplayNames, load_display_names
from site_builder.errors import Collector, Problem, SiteError
from site_builder.hardware import DEAL_ORDER, SHAPES, Hardware
from site_builder.i18n import ISOLATE, POP, Language
from site_builder.rounds import RoundInfo

__all__ = ["Chart", "ChartDraft", "ChartEntry", "ChartInputs", "ChartSet", "Column", "Features", "NoData",
           "accelerator_encodings", "benchmark_chart_id", "build_chart", "build_charts", "build_rounds",
           "catalog", "chart", "load_inputs", "load_project_charts", "localize", "minutes_axis",
           "prepare_inputs", "result_columns", "result_tooltip"]

# Browsers take the system font; vl-convert (static SVG, PNG) knows no "system-ui" and needs a named face.
RENDERING_KINDS = ("svg", "narrow-svg", "png")  # a chart's static renderings: wide, narrow (phones), Open Graph
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
    section: str = ""  # the folder of its round's pages (`paths.round_section`): "" for the main round's

    @property
    def path(self) -> str:
        return paths.chart(self.lang, self.id, self.section)

    def __identity__(self) -> tuple:  # in a planned page's key; what a chart is made from is the site's inputs
        return ("chart", self.lang, self.section, self.id)

    # A chart kept or sent once its files are computed holds its spec as text (`spec_text`) and its rows
    # pickled: their objects take several times the memory, and a build holds hundreds of charts that it mostly
    # does not read. Read, each is made again (the same values: JSON and pickle are exact) and not kept.
    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        if "spec_text" in state:
            state.pop("spec", None)
            if "rows" in state:
                state["rows_pickled"] = pickle.dumps(state.pop("rows"), protocol=pickle.HIGHEST_PROTOCOL)
        return state

    def __getattr__(self, name: str):  # only called for what the instance lacks
        kept = self.__dict__
        if name == "spec" and "spec_text" in kept:
            return json.loads(kept["spec_text"])
        if name == "rows" and "rows_pickled" in kept:
            return pickle.loads(kept["rows_pickled"])
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def compact(self) -> Chart:
        """The chart with its files' contents computed, held as it is kept (see `__getstate__`)."""
        self.spec_text, self.rows_csv, self.rendering_keys  # noqa: B018 - computed now, kept with the chart
        state = self.__getstate__()
        self.__dict__.clear()
        self.__dict__.update(state)
        return self

    def in_section(self, section: str) -> Chart:
        """The chart filed under another round's section; what its files are made from stays computed."""
        moved = copy.copy(self)  # not dataclasses.replace: that would read (parse) a spec kept as text
        moved.__dict__["section"] = section
        return moved

    # What the chart's files are made from, computed once: kept with the chart in the build cache, so that a
    # build whose charts all come from the cache does not write hundreds of specs and tables again to learn
    # that they did not change.
    @functools.cached_property
    def spec_text(self) -> str:
        return json.dumps(self.spec, ensure_ascii=False, indent=1, allow_nan=False) + "\n"

    @functools.cached_property
    def rows_csv(self) -> str:
        return csv_out.frame_csv(self.rows)

    @functools.cached_property
    def rendering_keys(self) -> dict[str, str]:
        """Static rendering kind ("svg", "narrow-svg", "png") -> `images.rendering_key`."""
        return {kind: images.rendering_key((kind, self.spec)) for kind in RENDERING_KINDS}


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
    hardware = hardware.shaped_for(dataset.results["accelerator"])
    features = resolve_features(info, dataset, round_name, hardware, problems)
    return ChartInputs(dataset, round_name, previous_round, hardware, features, names or DisplayNames())


def catalog(inputs: ChartInputs, project: Sequence[ChartEntry] = ()) -> dict[str, BoundChart]:
    """Chart id -> chart, in display order: the package's charts (`charts.builtin`), then the project's."""
    from site_builder.charts import builtin

    return expand([*declared_in(vars(builtin)), *project], inputs)


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


def localize(chart: alt.TopLevelMixin, lang: Language, **properties) -> dict:
    """Final Vega-Lite spec with the language's d3 number and time locale and the top-level `properties`,
    validated once as a whole (Altair's to_dict(validate=True) also validates each layer again).

    The chart is finished in place (each of these properties is set anew, should a draft's chart be shared):
    Altair's `properties()` and `configure()` copy the chart, and copying a layered chart combines its layers'
    parameters again, a deep copy of every layer, for the same spec."""
    properties.update(padding={"top": 12, "right": 12, "bottom": 6, "left": 6},
                      config=alt.Config(locale=alt.Locale(number=lang.d3_format_locale(), time=lang.d3_time_locale()),
                                        autosize=alt.AutoSizeParams(type="fit-x", contains="padding"),
                                        font=CHART_FONT, title=alt.TitleConfig(fontSize=15, subtitleFontSize=12)))
    for name, value in properties.items():
        setattr(chart, name, value)
    spec = chart.to_dict(validate=False)
    validate_spec(type(chart), spec)
    return spec


def validate_spec(kind: type, spec: dict) -> None:
    """Raise Altair's own error when `spec` is not a valid Vega-Lite spec of the top-level `kind` (Chart,
    LayerChart...). The schema is checked by jsonschema-rs first (about 0.05 ms a spec, against 10-15 ms for
    the Python jsonschema Altair uses: a fifth of a chart's time); only a spec it refuses goes to Altair, whose
    message names the property, and which decides should the two ever disagree."""
    ref = kind._schema.get("$ref") if isinstance(kind._schema, dict) else None
    if ref is None or not _spec_validator(ref).is_valid(spec):
        kind.validate(spec)


@functools.cache
def _spec_validator(ref: str):
    """A compiled validator of the Vega-Lite schema rooted at `ref` (once per process, about 0.15 s). The schema's
    definition names hold characters a URI may not (`MarkPropDef<(Gradient|string|null)>`): its references are
    percent-encoded, which a JSON pointer in a URI fragment decodes back."""
    import jsonschema_rs

    def encoded(node):
        if isinstance(node, dict):
            return {k: quote(v, safe="#/") if k == "$ref" and isinstance(v, str) else encoded(v)
                    for k, v in node.items()}
        return [encoded(item) for item in node] if isinstance(node, list) else node

    return jsonschema_rs.validator_for({**encoded(alt.Chart._rootschema), "$ref": quote(ref, safe="#/")})


# The colours for categories a chart gives no colours of its own (`hardware.CHART_COLOURS`: 3:1 on the light
# and the dark background alike), the most distinct first.
CATEGORY_COLOURS = DEAL_ORDER[:7]  # the olive last of the eight only where a chart deals eight series
_COLOUR_CHANNELS = ("color", "fill", "stroke")


def with_palette(spec: dict) -> dict:
    """Every colour scale of a nominal or ordinal field without a range or scheme of its own gets the site's
    colours, and the chart's marks (but text) without a colour get its first one, so a project's chart looks
    like the built-in ones in light, dark and print without calling any helper. Points coloured by a category
    without a shape get a shape per category as well: colour is never all that tells them apart."""
    marks: set[str] = set()

    def visit(view: dict) -> None:
        mark = view.get("mark")
        kind = mark.get("type") if isinstance(mark, dict) else mark
        marks.add(kind) if mark else None
        encodings = view.get("encoding") or {}
        for channel in _COLOUR_CHANNELS:
            encoding = encodings.get(channel)
            if isinstance(encoding, dict) and encoding.get("field") and encoding.get("type") in ("nominal", "ordinal") \
                    and encoding.get("scale", {}) is not None:
                scale = encoding.setdefault("scale", {})
                if "range" not in scale and "scheme" not in scale:
                    scale["range"] = list(CATEGORY_COLOURS)
                if kind == "point" and "shape" not in encodings:
                    encodings["shape"] = {"field": encoding["field"], "type": encoding["type"],
                                          "scale": {"range": list(SHAPES)},
                                          **{k: encoding[k] for k in ("title", "legend", "sort") if k in encoding}}
        for key in ("layer", "hconcat", "vconcat", "concat"):
            for child in view.get(key, []):
                visit(child)
        if isinstance(view.get("spec"), dict):
            visit(view["spec"])

    visit(spec)
    config = spec.setdefault("config", {})
    for mark in sorted(m for m in marks - {"text"} if isinstance(m, str)):
        config.setdefault(mark, {}).setdefault("color", CATEGORY_COLOURS[0])
        if mark in ("point", "circle", "square", "tick"):  # Vega-Lite draws them at 0.7 opacity: under 3:1
            config[mark].setdefault("opacity", 1)
    return spec


def build_chart(chart_id: str, factory: ChartFactory, inputs: ChartInputs, lang: Language) -> Chart:
    """One chart in one language; raises NoData when its scope is empty, and SiteError naming the chart
    and the language for any library error (Altair, jsonschema, pandas): the stage's error boundary. A
    project's chart is located at the line of its file that failed (or of its declaration)."""
    entry = factory.entry if isinstance(factory, BoundChart) else None
    where = (entry.path, entry.line) if entry is not None and entry.path else (None, None)
    try:
        # The package's charts are not validated object by object as they are made (the whole spec is validated
        # once); a project's are, so that a mistake is reported at its line with Altair's own message
        # ("`MarkDef` has no parameter named 'colour'").
        from altair.utils.schemapi import debug_mode

        with debug_mode(where[0] is not None):
            return _build_chart(chart_id, factory, inputs, lang)
    except NoData:
        raise
    except SiteError as error:
        if where[0] is None:
            raise
        raise SiteError([Problem(p.message, p.path or where[0], p.line if p.path else where[1], p.col, p.hint)
                         for p in error.problems]) from None
    except (Exception, SystemExit) as error:  # noqa: BLE001 - the stage's error boundary: never a traceback
        message = str(error).strip().splitlines()[0][:300] if str(error).strip() else ""
        line = (error_line(error, entry.file) or where[1]) if where[0] else None
        raise SiteError(Problem(f"chart '{chart_id}' ({lang.code}) could not be built: "
                                f"{type(error).__name__}: {message}", where[0], line)) from None


def _build_chart(chart_id: str, factory: ChartFactory, inputs: ChartInputs, lang: Language) -> Chart:
    # The chart's texts as its pages show them: on a right-to-left page, one shown in English for want of a
    # translation is isolated (`Language.for_pages`). Its spec and table, which Vega draws and readers download,
    # keep plain strings.
    shown = lang.for_pages()
    draft = factory(inputs, shown)
    check_draft(chart_id, draft, lang)
    note = unscored_note(shown, draft.unscored, draft.in_scope)
    # usermeta tells site.js how to draw the chart at the page's width and colour scheme.
    usermeta = {"title": title_paragraphs(draft.heading, draft.subtitle, note), "narrow": draft.narrow,
                "dark": {"fields": draft.dark_fields}}
    summary = (*draft.summary, note) if note else tuple(draft.summary)
    benchmark = next((b for b in inputs.round_benchmarks() if benchmark_chart_id(b) == chart_id), None)
    # Readers see submitters by their display names, in marks, legends, tooltips and text alike (the same
    # whole-token swap everywhere keeps scale domains and data values matching); the CSV keeps raw ids.
    named = inputs.names.in_text
    spec = with_palette(localize(draft.chart, lang, title=title_params(draft.heading, draft.subtitle, note),
                                 usermeta=usermeta))
    rows = draft.rows
    if shown.isolating:
        spec = without_isolates(spec)
        rows = rows.assign(**{name: rows[name].map(without_isolates) for name in rows.columns
                              if rows[name].dtype == object or pd.api.types.is_string_dtype(rows[name])})
    check_fields(chart_id, lang, spec)
    return Chart(chart_id, lang.code, named(draft.title), named(draft.description),
                 _renamed(spec, named), rows, draft.unscored, tuple(map(named, summary)),
                 tuple(draft.columns), draft.in_scope, benchmark)


def without_isolates(value):
    """`value` (a spec, or any value of it) with the isolates of English fallbacks taken out of its strings."""
    if isinstance(value, str):
        return value.translate(_NO_ISOLATES)
    if isinstance(value, dict):
        return {without_isolates(key): without_isolates(item) for key, item in value.items()}
    return [without_isolates(item) for item in value] if isinstance(value, list) else value


_NO_ISOLATES = str.maketrans("", "", ISOLATE + POP)


def check_draft(chart_id: str, draft, lang: Language) -> None:
    """What the pages need of a draft: an Altair chart, titles, plotted rows with a source column, a text
    alternative, and table columns that name columns of the rows."""
    where = f"chart '{chart_id}' ({lang.code})"
    if not isinstance(draft, ChartDraft):
        raise SiteError(Problem(f"{where} returned {type(draft).__name__}, not a ChartDraft",
                                hint="return ChartDraft(chart, title, heading, subtitle, description, rows, ...)"))
    problems = Collector()
    if not isinstance(draft.chart, alt.TopLevelMixin):
        problems.error(f"{where}: 'chart' is a {type(draft.chart).__name__}, not an Altair chart")
    for name in ("title", "heading", "description"):
        if not isinstance(getattr(draft, name), str) or not getattr(draft, name).strip():
            problems.error(f"{where}: '{name}' must be a non-empty text")
    if not isinstance(draft.rows, pd.DataFrame):
        problems.error(f"{where}: 'rows' is a {type(draft.rows).__name__}, not a pandas DataFrame")
    else:
        if not any(str(column).endswith("source") for column in draft.rows.columns):
            problems.error(f"{where}: the plotted rows have no source column",
                           hint="keep the results' 'score_source' column (or add a 'source' column) in the rows")
        unknown = [column.field for column in draft.columns if column.field not in draft.rows.columns]
        if unknown:
            problems.error(f"{where}: the data table's column '{unknown[0]}' is not a column of the rows",
                           hint="columns of the rows: " + ", ".join(map(str, draft.rows.columns)))
    if not draft.summary:
        problems.error(f"{where}: 'summary' (the text alternative, sentence by sentence) is empty")
    problems.raise_if_any()


def check_fields(chart_id: str, lang: Language, spec: dict) -> None:
    """Every field an encoding names exists in the data it draws (Vega-Lite draws nothing for a mistyped field
    and says nothing): fields of the inline datasets, plus those the view's transforms make."""
    # An empty dataset names no columns: nothing to check its encodings against.
    datasets = {name: set().union(*(row.keys() for row in rows))
                for name, rows in spec.get("datasets", {}).items() if rows}
    problems = Collector()

    def visit(view: dict, columns: set[str] | None) -> None:
        data = view.get("data")
        if isinstance(data, dict) and data.get("name") in datasets:
            columns = set(datasets[data["name"]])
        if columns is not None:
            columns = columns | _made_by(view.get("transform", []))
        for channel, encoding in (view.get("encoding") or {}).items():
            for definition in encoding if isinstance(encoding, list) else [encoding]:
                field = definition.get("field") if isinstance(definition, dict) else None
                if isinstance(field, str) and columns is not None and field.split(".")[0] not in columns:
                    close = difflib.get_close_matches(field, sorted(columns), n=1)
                    problems.error(f"chart '{chart_id}' ({lang.code}): the {channel} encoding names the field "
                                   f"'{field}', which is not in the chart's data",
                                   hint=f"did you mean '{close[0]}'?" if close else
                                   "fields: " + ", ".join(sorted(columns)))
        for key in ("layer", "hconcat", "vconcat", "concat"):
            for child in view.get(key, []):
                visit(child, columns)
        if isinstance(view.get("spec"), dict):
            visit(view["spec"], columns)

    visit(spec, None)
    problems.raise_if_any()


def _made_by(transforms: list) -> set[str]:
    """Fields that a view's transforms add (`as` names of calculate, aggregate, window, fold, ...)."""
    made: set[str] = set()

    def collect(value) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "as":
                    made.update([item] if isinstance(item, str) else [v for v in item if isinstance(v, str)])
                else:
                    collect(item)
        elif isinstance(value, list):
            for item in value:
                collect(item)

    collect(transforms)
    return made


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


def build_charts(inputs: ChartInputs, languages: list[Language], inputs_keys: dict[str, str] | None = None,
                 project: Sequence[ChartEntry] = ()) -> ChartSet:
    """Every chart of the catalog in every language. A chart whose scope is empty is left out with a
    warning; any library error (Altair, jsonschema, pandas) becomes a problem naming chart and language.
    `inputs_keys` (language code -> hash of the data and that language's catalog) lets a chart come from
    the build cache instead of being built and validated again. `project`: the project's own charts
    (`load_project_charts`), after the package's."""
    name = inputs.round
    return build_rounds({name: inputs}, languages, {name: inputs_keys} if inputs_keys is not None else None,
                        project)[name]


# What became of one chart in every language: its charts, why it is left out (or None), and its problems by
# language code.
_Outcome = tuple[list[Chart], Problem | None, list[tuple[str, Problem]]]


def build_rounds(round_inputs: dict[str, ChartInputs], languages: list[Language],
                 inputs_keys: dict[str, dict[str, str]] | None = None, project: Sequence[ChartEntry] = (),
                 jobs: int = 1) -> dict[str, ChartSet]:
    """`build_charts` for each round (round -> its chart inputs, and its `inputs_keys`), every problem of every
    round reported together. The charts the build cache holds are read here; the others are built in `jobs`
    worker processes, a chart (in every language) to a task, since no chart depends on another."""
    catalogs = {name: catalog(inputs, project) for name, inputs in round_inputs.items()}
    outcomes: dict[tuple[str, str], _Outcome] = {}
    missing = []
    for name, charts in catalogs.items():
        keys = (inputs_keys or {}).get(name)
        for chart_id, factory in charts.items():
            found = _cached_outcome(chart_id, factory, round_inputs[name], languages, keys) if keys else None
            if found is None:
                missing.append((name, chart_id))
            else:
                outcomes[name, chart_id] = found
    # Isolated: even with one job, Altair and its objects (about 80 MB for a site of every round) never stay in
    # the build's process.
    made = parallel.run(_chart_task, missing, jobs, (round_inputs, catalogs, languages, inputs_keys), isolated=True)
    outcomes.update(zip(missing, made))
    problems = Collector()
    chart_sets = {}
    for name, charts in catalogs.items():
        try:
            chart_sets[name] = _chart_set(round_inputs[name], {chart_id: outcomes[name, chart_id] for chart_id in charts})
        except SiteError as error:
            problems.extend(error)
    problems.problems = list(dict.fromkeys(problems.problems))  # a project chart's mistake meets every round
    problems.raise_if_any()
    return chart_sets


def _chart_task(shared: tuple, item: tuple[str, str]) -> _Outcome:
    """One chart in every language (a task of `parallel.run`)."""
    round_inputs, catalogs, languages, inputs_keys = shared
    name, chart_id = item
    return _chart_outcome(chart_id, catalogs[name][chart_id], round_inputs[name], languages,
                          (inputs_keys or {}).get(name))


def _chart_outcome(chart_id: str, factory: ChartFactory, inputs: ChartInputs, languages: list[Language],
                   keys: dict[str, str] | None) -> _Outcome:
    charts, problems = [], []
    for lang in languages:
        try:
            charts.append(build_chart(chart_id, factory, inputs, lang) if keys is None else
                          _cached_chart(chart_id, factory, inputs, lang, keys[lang.code]))
        except NoData as reason:
            return charts, _left_out(chart_id, factory, inputs, reason), problems
        except SiteError as error:
            problems += [(lang.code, problem) for problem in error.problems]
    return charts, None, problems


def _cached_outcome(chart_id: str, factory: ChartFactory, inputs: ChartInputs, languages: list[Language],
                    keys: dict[str, str]) -> _Outcome | None:
    """The chart's outcome when the build cache holds it in every language, else None."""
    charts = []
    for lang in languages:
        found = cache.load("chart", _chart_entry(chart_id, factory, lang, keys[lang.code]))
        if isinstance(found, str):
            return charts, _left_out(chart_id, factory, inputs, NoData(found)), []
        if not isinstance(found, Chart):
            return None
        charts.append(found)
    return charts, None, []


def _left_out(chart_id: str, factory: ChartFactory, inputs: ChartInputs, reason: NoData) -> Problem:
    where = (factory.entry.path, factory.entry.line) if isinstance(factory, BoundChart) and \
        factory.entry.path else _declared_where(inputs, chart_id)
    return Problem(f"chart '{chart_id}' is left out: {reason}", *where, severity="warning")


def _chart_set(inputs: ChartInputs, outcomes: dict[str, _Outcome]) -> ChartSet:
    """A round's charts from their outcomes (chart id -> outcome, in catalog order); its problems, one per mistake,
    raised."""
    charts = [chart for made, _, _ in outcomes.values() for chart in made]
    left_out = {chart_id: reason for chart_id, (_, reason, _) in outcomes.items() if reason is not None}
    found = [problem for _, _, problems in outcomes.values() for problem in problems]
    if found:
        raise SiteError(_across_languages(found))
    built = list(dict.fromkeys(chart.id for chart in charts))
    alias_problems = Collector()
    aliases = check_aliases(inputs.features, built, left_out, alias_problems)
    alias_problems.raise_if_any()
    return ChartSet(charts, left_out, absent_features(inputs), aliases)


def _across_languages(found: list[tuple[str, Problem]]) -> list[Problem]:
    """One problem for a mistake that every language meets: "chart 'x' (en, nl) could not be built: ..."."""
    groups: dict[tuple, list[str]] = {}
    for code, problem in found:
        general = dataclasses.replace(problem, message=problem.message.replace(f"({code})", "(LANGS)", 1))
        groups.setdefault(general, []).append(code)
    return [dataclasses.replace(problem, message=problem.message.replace("(LANGS)", "(" + ", ".join(codes) + ")"))
            for problem, codes in groups.items()]


def _chart_entry(chart_id: str, factory: ChartFactory, lang: Language, inputs_key: str) -> str:
    """The chart's build cache key: the chart, the language, its inputs and the libraries' versions."""
    if isinstance(factory, BoundChart):
        identity = factory.identity  # the function, its item, and a project chart's file
    else:
        code = getattr(factory, "__code__", None)  # the factory itself: another function is another chart
        identity = (getattr(factory, "__module__", ""), getattr(factory, "__qualname__", repr(type(factory))),
                    code.co_code if code is not None else b"")
    return cache.key("chart", cache.versions("altair", "pandas", "babel", "vl-convert-python"), chart_id, lang.code,
                     inputs_key, identity)


def _cached_chart(chart_id: str, factory: ChartFactory, inputs: ChartInputs, lang: Language, inputs_key: str) -> Chart:
    """`build_chart` through the build cache (`_chart_entry`); a chart left out for want of data is remembered as
    such."""
    entry = _chart_entry(chart_id, factory, lang, inputs_key)
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
    cache.save("chart", entry, chart.compact())
    return chart


def load_inputs(data_dir: Path, round_name: str, previous_round: str | None, root: Path | None = None,
                rounds: Sequence[str] = ()) -> ChartInputs:
    """The main round's chart inputs read from a data folder, with the results of `rounds` too (every round of
    the site, for its archive); every problem reported together."""
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

    from site_builder.rounds import round_order

    rounds = sorted({*rounds, round_name, *([previous_round] if previous_round else [])}, key=round_order)
    dataset = attempt(load_dataset, data_dir, rounds, root)
    hardware = attempt(load_hardware, data_dir, root)
    info = attempt(load_round_info, data_dir, round_name, root)
    names = attempt(load_display_names, data_dir, root)
    problems.raise_if_any()
    hardware.check_results(dataset.results, problems)
    inputs = prepare_inputs(dataset, hardware, info, round_name, previous_round, problems, names)
    problems.raise_if_any()
    return dataclasses.replace(inputs, rounds=tuple(rounds), main=True)


def round_inputs(main: ChartInputs, data_dir: Path, root: Path | None = None) -> dict[str, ChartInputs]:
    """Every round's chart inputs, oldest first: the main round's, and each other round's with its own round.toml
    features and the round before it to compare with; the data, hardware and names are shared."""
    from site_builder.rounds import load_round_info, previous_of

    problems = Collector()
    found = {}
    for name in main.rounds:
        if name == main.round:
            found[name] = main
            continue
        try:
            info = load_round_info(data_dir, name, root)
        except SiteError as error:
            problems.extend(error)
            continue
        inputs = prepare_inputs(main.dataset, main.hardware, info, name, previous_of(list(main.rounds), name),
                                problems, main.names)
        found[name] = dataclasses.replace(inputs, rounds=main.rounds, main=False)
    problems.raise_if_any()
    return found
