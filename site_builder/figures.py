"""Figures bound to data: `METRIC ARG... key=value` names a number, this module finds its rows and computes it.

Articles cite figures with `{{< fig METRIC ARGS >}}` and the claims registry names its computations the
same way, so prose, claims and tables share one vocabulary and one lookup. A result is named by a
reference `[ROUND:]BENCHMARK/SYSTEM_ID`, `[ROUND:]BENCHMARK/SUBMITTER/SYSTEM_ID` (when two submitters
share a system id) or `[ROUND:]BENCHMARK/fastest`; the round defaults to the site's main round.

Metrics (the README has examples):
- of one result: `score`, `accelerators`, `nodes`, `runs`, `rcp`, `acc-minutes` (time x accelerators),
  `unscaled` (the time before RCP normalization: the olympic mean of the logged runs, or score / RCP factor
  without them), `run REF n=K` (minutes of its K-th run log);
- of two results: `efficiency SMALL LARGE` (scaling efficiency), `speedup BEFORE AFTER` (before / after),
  `time-saved BEFORE AFTER` (1 - after / before), `gap A B` (A / B - 1: how much slower A is),
  `ratio A B` (A / B);
- of a round: `organizations`, `results`, `scored-results`, `systems`, `accelerator-types`,
  `accelerator-vendors` (makers of the accelerators), `benchmarks`, `largest-scale`, `multi-node-share`,
  optionally restricted by `round=`, by `min-accelerators=N` (results on at least N accelerators) and by column
  filters such as `hosting=cloud` or `accelerator_vendor=Acme`; `benchmarks-led` counts the benchmarks whose fastest scored
  result matches the filters (`benchmarks-led accelerator_vendor=Acme`), and names those results.
Options: `decimals=N` rounds for prose (never adds digits the source does not have).
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal

import pandas as pd

from site_builder import metrics, paths
from site_builder.data import Dataset

FASTEST = "fastest"
DEFAULT_SCORE_DECIMALS = 4  # the scoring rules' precision: computed and summarizer scores have 4 decimals
MAX_DECIMALS = 6


class FigureError(Exception):
    """A figure that cannot be computed; the caller adds the file, line and column."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message, self.hint = message, hint


@dataclass(frozen=True)
class FigureContext:
    dataset: Dataset
    round: str
    previous_round: str | None = None
    site_rounds: tuple[str, ...] = ()  # every round a figure may name; without them, the two above
    main_round: str | None = None  # the site's main round (its pages have no section folder); default: `round`

    @property
    def rounds(self) -> list[str]:
        return list(self.site_rounds) or [r for r in (self.round, self.previous_round) if r]

    def section(self, round_name: str) -> str:
        """The folder of a round's pages (`paths.round_section`), where a result's row is linked to."""
        return paths.round_section(round_name, round_name == (self.main_round or self.round))

    def remembered(self, key: tuple, compute):
        """compute() once per context and key: the same figures and findings are asked for by a page in each
        language (a cache on a frozen value, as `Dataset.round`'s; never pickled with it)."""
        known = self.__dict__.setdefault("_remembered", {})
        if key not in known:
            known[key] = compute()
        return known[key]

    def __getstate__(self) -> dict:
        return {name: value for name, value in self.__dict__.items() if name != "_remembered"}


def round_contexts(dataset: Dataset, rounds: list[str], main_round: str,
                   compared: str | None = None) -> dict[str, FigureContext]:
    """Each round's context: its figures default to it and compare with the round before it (`compared` for the
    main round, when set); a figure may name any of `rounds`."""
    from site_builder.rounds import previous_of

    return {name: FigureContext(dataset, name, compared if name == main_round and compared else
                                previous_of(rounds, name), tuple(rounds), main_round) for name in rounds}


@dataclass(frozen=True)
class ResultRef:
    """One result row that a figure was computed from."""

    round: str
    benchmark: str
    submitter: str
    system_id: str
    row: pd.Series = field(compare=False, repr=False)
    section: str = ""  # the folder of its round's pages: its row is on that round's benchmark page

    @property
    def reference(self) -> str:
        return f"{self.round}:{self.benchmark}/{self.submitter}/{self.system_id}"

    @property
    def score(self) -> float:
        return float(self.row["score_minutes"])

    @property
    def accelerators(self) -> int:
        return int(self.row["total_accelerators"])

    @property
    def score_decimals(self) -> int:
        return _score_decimals(self.row)


@dataclass(frozen=True)
class Quantity:
    """A computed figure: its value, how to show it and the rows it comes from."""

    metric: str
    value: float
    unit: str  # minutes, count, factor, percent, times
    decimals: int
    refs: tuple[ResultRef, ...] = ()
    round: str | None = None  # for round figures: the round counted
    filters: tuple[tuple[str, str], ...] = ()  # for round figures: the column filters applied


@dataclass(frozen=True)
class _Metric:
    arity: int  # number of result references; 0 for round figures
    unit: str
    decimals: int | None  # None: the precision of the source value
    help: str


METRICS: dict[str, _Metric] = {
    "score": _Metric(1, "minutes", None, "time to train of one result"),
    "accelerators": _Metric(1, "count", 0, "accelerators of one result's system"),
    "nodes": _Metric(1, "count", 0, "nodes of one result's system"),
    "runs": _Metric(1, "count", 0, "runs in one result"),
    "rcp": _Metric(1, "factor", None, "RCP scaling factor applied to one result"),
    "acc-minutes": _Metric(1, "count", 0, "time to train x accelerators of one result"),
    "run": _Metric(1, "minutes", 4, "minutes of one run of a result, n=K for its K-th run log"),
    "unscaled": _Metric(1, "minutes", None, "time before RCP normalization (from the runs, else score / RCP factor)"),
    "efficiency": _Metric(2, "percent", 1, "scaling efficiency from the smaller to the larger result"),
    "speedup": _Metric(2, "times", 2, "time of the first result / time of the second"),
    "time-saved": _Metric(2, "percent", 1, "1 - time of the second / time of the first"),
    "gap": _Metric(2, "percent", 1, "time of the first / time of the second - 1"),
    "ratio": _Metric(2, "times", 2, "time of the first / time of the second"),
    "organizations": _Metric(0, "count", 0, "submitting organizations"),
    "results": _Metric(0, "count", 0, "results"),
    "scored-results": _Metric(0, "count", 0, "results with a score"),
    "systems": _Metric(0, "count", 0, "distinct systems"),
    "accelerator-types": _Metric(0, "count", 0, "accelerator types"),
    "accelerator-vendors": _Metric(0, "count", 0, "makers of the accelerators"),
    "benchmarks": _Metric(0, "count", 0, "benchmarks with results"),
    "largest-scale": _Metric(0, "count", 0, "accelerators of the largest system"),
    "multi-node-share": _Metric(0, "percent", 1, "share of systems with more than one node"),
    "benchmarks-led": _Metric(0, "count", 0, "benchmarks whose fastest scored result matches the filters"),
}
RESERVED_OPTIONS = {"decimals", "round", "min-accelerators"}
# The metrics computed from scores, so only as independent as the scores of their rows (claims.py, rule 7).
READS_SCORES = frozenset({"score", "acc-minutes", "unscaled", "efficiency", "speedup", "time-saved", "gap", "ratio",
                          "benchmarks-led"})


def parse_expression(text: str) -> tuple[str, list[str], dict[str, str]]:
    """`efficiency a/b c/d decimals=1` -> ("efficiency", ["a/b", "c/d"], {"decimals": "1"})."""
    words = text.split()
    if not words:
        raise FigureError("empty figure: name a metric", hint="metrics: " + ", ".join(METRICS))
    args = [w for w in words[1:] if "=" not in w]
    options = dict(w.split("=", 1) for w in words[1:] if "=" in w)
    return words[0], args, options


def evaluate_expression(text: str, context: FigureContext) -> Quantity:
    return evaluate(*parse_expression(text), context)


def evaluate(metric: str, args: list[str], options: dict[str, str], context: FigureContext) -> Quantity:
    """Compute one figure (once per context); every way it can fail is a FigureError with the candidates that
    would work (raised again each time it is asked for)."""
    return context.remembered(("figure", metric, tuple(args), tuple(sorted(options.items()))),
                              lambda: _evaluate(metric, args, options, context))


def _evaluate(metric: str, args: list[str], options: dict[str, str], context: FigureContext) -> Quantity:
    spec = METRICS.get(metric)
    if spec is None:
        raise FigureError(f"unknown metric '{metric}'", hint=_suggest(metric, list(METRICS), "metrics"))
    if len(args) != spec.arity:
        usage = " ".join(["REF"] * spec.arity) or "[round=ROUND] [COLUMN=VALUE ...]"
        raise FigureError(f"'{metric}' takes {spec.arity} result reference{'s' if spec.arity != 1 else ''}, "
                          f"got {len(args)}", hint=f"usage: fig {metric} {usage} ({spec.help})")
    decimals = _decimals_option(options)
    if spec.arity == 0:
        quantity = _round_figure(metric, spec, options, context)
    else:
        allowed = {"decimals", "n"} if metric == "run" else {"decimals"}
        unknown = sorted(set(options) - allowed)
        if unknown:
            raise FigureError(f"unknown option '{unknown[0]}' for '{metric}'",
                              hint="options: " + ", ".join(f"{name}=N" for name in sorted(allowed)))
        quantity = _result_figure(metric, spec, [resolve(ref, context) for ref in args], options)
    if decimals is not None:
        quantity = Quantity(quantity.metric, quantity.value, quantity.unit, min(decimals, quantity.decimals),
                            quantity.refs, quantity.round, quantity.filters)
    return quantity


def _decimals_option(options: dict[str, str]) -> int | None:
    if "decimals" not in options:
        return None
    if not re.fullmatch(r"[0-9]", options["decimals"]):
        raise FigureError(f"decimals={options['decimals']!r} must be a digit from 0 to 9")
    return int(options["decimals"])


def resolve(reference: str, context: FigureContext) -> ResultRef:
    """The one result a reference names, or a FigureError listing the references that exist."""
    round_name, _, path = reference.rpartition(":") if ":" in reference else (context.round, "", reference)
    round_name = round_name or context.round
    if round_name not in context.rounds:
        raise FigureError(f"unknown round '{round_name}' in '{reference}'",
                          hint="rounds of this site: " + ", ".join(context.rounds))
    parts = path.split("/")
    if len(parts) not in (2, 3) or not all(parts):
        raise FigureError(f"'{reference}' is not a result reference",
                          hint="write BENCHMARK/SYSTEM_ID, BENCHMARK/SUBMITTER/SYSTEM_ID or BENCHMARK/fastest, "
                               "optionally after ROUND:")
    benchmark = parts[0]
    entries = context.dataset.entries(round_name, benchmark)
    if entries.empty:
        raise FigureError(f"no results for benchmark '{benchmark}' in {round_name}",
                          hint=_suggest(benchmark, context.dataset.benchmarks_in(round_name), "benchmarks"))
    prefix = "" if round_name == context.round else f"{round_name}:"
    if len(parts) == 2 and parts[1] == FASTEST:
        with_score = metrics.scored(metrics.closed(entries))  # the closed division's, as every ranking here
        if with_score.empty:
            raise FigureError(f"no closed-division result of '{benchmark}' in {round_name} has a score")
        return _ref(context, with_score.sort_values(["score_minutes", "submitter", "system_id"]).iloc[0])
    system_id = parts[-1]
    matches = entries[entries["system_id"] == system_id]
    if len(parts) == 3:
        matches = matches[matches["submitter"] == parts[1]]
    candidates = [f"{prefix}{benchmark}/{system}" for system in sorted(entries["system_id"])]
    if matches.empty:
        raise FigureError(f"no result '{reference}' in {round_name}", hint=_suggest(
            f"{prefix}{benchmark}/{system_id}", candidates, "results of this benchmark"))
    if len(matches) > 1:
        raise FigureError(f"'{reference}' is ambiguous: {len(matches)} submitters have a system '{system_id}'",
                          hint="write one of: " + ", ".join(
                              f"{prefix}{benchmark}/{row['submitter']}/{system_id}" for _, row in matches.iterrows()))
    return _ref(context, matches.iloc[0])


def _ref(context: FigureContext, row: pd.Series) -> ResultRef:
    return ResultRef(str(row["round"]), str(row["benchmark"]), str(row["submitter"]), str(row["system_id"]), row,
                     context.section(str(row["round"])))


def _suggest(word: str, known: list[str], what: str) -> str:
    close = difflib.get_close_matches(word, known, n=5, cutoff=0.5)
    if close:
        return "did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
    shown = known if len(known) <= 12 else known[:12] + [f"... ({len(known) - 12} more)"]
    return f"{what}: " + ", ".join(shown)


def _score_decimals(row: pd.Series) -> int:
    """How many decimals the source of a score has (a published 18.35 has 2)."""
    value = row.get("score_decimals")
    if value is not None and not pd.isna(value):
        return int(value)
    return DEFAULT_SCORE_DECIMALS


def _source_decimals(value: float) -> int:
    """Decimals of a plain value as written (1.038889 -> 6), capped."""
    text = repr(float(value))
    return min(len(text.split(".")[1].rstrip("0")) if "." in text and "e" not in text else 0, MAX_DECIMALS)


def _needs_score(ref: ResultRef, metric: str) -> float:
    if pd.isna(ref.row["score_minutes"]):
        raise FigureError(f"'{metric}' needs a score, and {ref.reference} has none",
                          hint=f"its source says: {ref.row['score_source']}")
    return ref.score


def _run_minutes(ref: ResultRef, number: str | None) -> float:
    """Minutes of the K-th run log of a result (from the derived `run_minutes` column)."""
    runs = str(ref.row.get("run_minutes") or "")
    if not runs:
        raise FigureError(f"{ref.reference} has no per-run minutes in the data")
    items = runs.split(";")
    # ASCII digits only: str.isdigit() takes '²' (which int() refuses) and int() reads '٣' as 3
    if number is None or not re.fullmatch(r"[0-9]{1,6}", number) or not 1 <= int(number) <= len(items):
        raise FigureError(f"'run' needs n=K with K from 1 to {len(items)} for {ref.reference}")
    if not items[int(number) - 1]:
        raise FigureError(f"run {number} of {ref.reference} did not finish (no run_stop in its log)")
    return float(items[int(number) - 1])


def runs_mean(row: pd.Series) -> float | None:
    """The time to train before RCP normalization, from a result's logged runs as `result_summarizer` takes it:
    the runs sorted, the fastest dropped, and the slowest too unless a run did not finish (an empty item, which
    takes the slowest's place); the mean of the rest (the median of three runs). None without per-run minutes
    or with more unfinished runs than the rules allow: then only score / factor is left, which starts from the
    rounded score. (The summarizer drops more runs for one retired 40-run benchmark, absent from these data.)"""
    runs = row.get("run_minutes")
    if not isinstance(runs, str) or not runs:
        return None
    items = runs.split(";")
    finished = sorted(float(item) for item in items if item)
    unfinished = len(items) - len(finished)
    kept = finished[1:len(finished) - 1 + unfinished] if unfinished <= 1 else []
    return sum(kept) / len(kept) if kept else None


def _result_figure(metric: str, spec: _Metric, refs: list[ResultRef], options: dict[str, str]) -> Quantity:
    first = refs[0]
    if metric == "score":
        return Quantity(metric, _needs_score(first, metric), spec.unit, first.score_decimals, (first,))
    if metric in ("accelerators", "nodes", "runs"):
        column = {"accelerators": "total_accelerators", "nodes": "number_of_nodes", "runs": "number_of_runs"}[metric]
        if pd.isna(first.row[column]):
            raise FigureError(f"{first.reference} has no value for '{column}'")
        return Quantity(metric, int(first.row[column]), spec.unit, 0, (first,))
    if metric == "rcp":
        factor = first.row["rcp_scaling_factor"]
        if pd.isna(factor):
            raise FigureError(f"{first.reference} has no RCP scaling factor")
        return Quantity(metric, float(factor), spec.unit, _source_decimals(factor), (first,))
    if metric == "acc-minutes":
        return Quantity(metric, _needs_score(first, metric) * first.accelerators, spec.unit, 0, (first,))
    if metric == "run":
        return Quantity(metric, _run_minutes(first, options.get("n")), spec.unit, 4, (first,))
    if metric == "unscaled":
        score = _needs_score(first, metric)
        factor = first.row["rcp_scaling_factor"]
        factor = 1.0 if pd.isna(factor) else float(factor)
        if not factor > 0:  # the loader refuses it; a frame built elsewhere must not divide by zero
            raise FigureError(f"{first.reference} has the RCP scaling factor {factor:g}; it must be greater than 0")
        value = runs_mean(first.row)  # the rounded score over the factor can be off in the last digit
        if value is None:
            value = score / factor
        elif (Decimal(repr(value)).scaleb(first.score_decimals) % 1) == Decimal("0.5"):
            # a mean of runs rounded to 4 decimals can land on a tie (10.21705) that they cannot break: the
            # exact mean lies on the side of score / factor (the score was rounded from it times the factor)
            value = math.nextafter(value, score / factor)
        return Quantity(metric, value, spec.unit, first.score_decimals, (first,))
    a, b = (_needs_score(ref, metric) for ref in refs)
    if metric == "efficiency":
        small, large = refs
        if small.accelerators >= large.accelerators:
            raise FigureError(f"'efficiency' goes from the smaller to the larger system: {small.reference} has "
                              f"{small.accelerators} accelerators, {large.reference} {large.accelerators}")
        value = metrics.scaling_efficiency(small.row, large.row)
    else:
        value = {"speedup": a / b, "ratio": a / b, "time-saved": 1 - b / a, "gap": a / b - 1}[metric]
    return Quantity(metric, float(value), spec.unit, spec.decimals, tuple(refs))


def _round_figure(metric: str, spec: _Metric, options: dict[str, str], context: FigureContext) -> Quantity:
    round_name = options.get("round", context.round)
    if round_name not in context.rounds:
        raise FigureError(f"unknown round '{round_name}'", hint="rounds of this site: " + ", ".join(context.rounds))
    results = everything = context.dataset.round(round_name)
    filters = tuple(sorted((k, v) for k, v in options.items() if k not in RESERVED_OPTIONS))
    for column, value in filters:
        if column not in results.columns:
            raise FigureError(f"unknown option or column '{column}'",
                              hint=_suggest(column, sorted(RESERVED_OPTIONS | set(results.columns)), "columns"))
        values = sorted({str(v) for v in results[column].dropna()})
        if value not in values:
            raise FigureError(f"no {round_name} result has {column}={value}", hint=_suggest(value, values, "values"))
        results = results[results[column].astype(str) == value]
    minimum = options.get("min-accelerators")
    if minimum is not None:
        if not re.fullmatch(r"[0-9]{1,9}", minimum):
            raise FigureError(f"min-accelerators={minimum!r} must be a whole number")
        results = results[results["total_accelerators"] >= int(minimum)]
    if metric == "benchmarks-led":
        # The filters select among the fastest results, not before: "led by one vendor" compares with everyone.
        fastest = metrics.fastest_per_benchmark(metrics.scored(everything))
        for column, value in filters:
            fastest = fastest[fastest[column].astype(str) == value]
        if minimum is not None:
            fastest = fastest[fastest["total_accelerators"] >= int(minimum)]
            filters += (("min-accelerators", minimum),)
        refs = tuple(_ref(context, row) for _, row in fastest.iterrows())
        return Quantity(metric, float(len(fastest)), spec.unit, spec.decimals, refs, round_name, filters)
    if minimum is not None:
        filters += (("min-accelerators", minimum),)
    system_rows = metrics.systems(results)
    value = {
        "organizations": lambda: results["submitter"].nunique(),
        "results": lambda: len(results),
        "scored-results": lambda: int(results["score_minutes"].notna().sum()),
        "systems": lambda: len(system_rows),
        "accelerator-types": lambda: results["accelerator"].nunique(),
        "accelerator-vendors": lambda: results["accelerator_vendor"].nunique(),
        "benchmarks": lambda: results["benchmark"].nunique(),
        "largest-scale": lambda: int(results["total_accelerators"].max()),
        "multi-node-share": lambda: (system_rows["number_of_nodes"] > 1).sum() / len(system_rows),
    }[metric]()
    return Quantity(metric, float(value), spec.unit, spec.decimals, (), round_name, filters)
