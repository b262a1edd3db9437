"""Derived figures: pure functions of the results DataFrame, so charts, pages and tests agree."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

SYSTEM_KEY = ["submitter", "system_id"]


@dataclass(frozen=True)
class Headline:
    organizations: int
    systems: int
    accelerator_types: int
    results: int
    scored_results: int
    multi_node_systems: int
    multi_node_share: float
    largest_scale: int
    largest_scale_systems: pd.DataFrame
    """Every system at the largest scale (ties are named, not hidden), by submitter and system id."""


def by_value(frame: pd.DataFrame, column: str) -> dict[str, pd.DataFrame]:
    """The rows of each value of `column`, in their order: one pass over the rows, where filtering them once per
    value costs a pass each."""
    return {str(key): group for key, group in frame.groupby(column, sort=False)}


def scored(results: pd.DataFrame) -> pd.DataFrame:
    return results[results["score_minutes"].notna()]


def closed(results: pd.DataFrame) -> pd.DataFrame:
    """The closed division's results: the ones MLPerf ranks against each other. An open-division result (its own
    model changes allowed) is listed, labelled, but never ranked with them: every "fastest", record, comparison
    and trend here is the closed division's. (A frame without the column, made by hand, is taken whole.)"""
    if "division" not in results.columns:
        return results
    return results[results["division"] == "closed"]


def new_runs(results: pd.DataFrame) -> pd.DataFrame:
    """The results that are new runs: not an earlier round's logs published again (`carried_over_from`). A carried
    result is listed in its round, marked, but sets no record and is no round's progress."""
    if "carried_over_from" not in results.columns:
        return results
    return results[results["carried_over_from"].fillna("").astype(str) == ""]


def systems(results: pd.DataFrame) -> pd.DataFrame:
    """One row per (submitter, system_id), with the system columns of its first result."""
    return results.drop_duplicates(SYSTEM_KEY).sort_values(SYSTEM_KEY)


def headline(results: pd.DataFrame) -> Headline:
    system_rows = systems(results)
    multi = int((system_rows["number_of_nodes"] > 1).sum())
    largest_scale = int(results["total_accelerators"].max()) if len(results) else 0
    largest = system_rows[system_rows["total_accelerators"] == largest_scale].reset_index(drop=True)
    return Headline(
        organizations=results["submitter"].nunique(),
        systems=len(system_rows),
        accelerator_types=results["accelerator"].nunique(),
        results=len(results),
        scored_results=int(results["score_minutes"].notna().sum()),
        multi_node_systems=multi,
        multi_node_share=multi / len(system_rows) if len(system_rows) else 0.0,
        largest_scale=largest_scale,
        largest_scale_systems=largest,
    )


def fastest_per_benchmark(results: pd.DataFrame, benchmark_order: list[str] | None = None) -> pd.DataFrame:
    """The fastest scored closed-division result of each benchmark; a benchmark with no score keeps a row with a
    missing score.
    A tie goes to the submitter name that sorts first, then to the system id; `BENCHMARK/fastest` in a
    figure and `best_per_accelerator` choose the same way (tests/test_boundaries.py)."""
    results = closed(results)
    order = benchmark_order or sorted(results["benchmark"].unique())
    groups = by_value(results, "benchmark")
    rows = []
    for benchmark in order:
        entries = groups.get(benchmark)
        if entries is None:
            continue
        with_score = scored(entries)
        if with_score.empty:
            rows.append({"benchmark": benchmark, "score_minutes": float("nan"),
                         "unscored": len(entries)})
            continue
        best = with_score.sort_values(["score_minutes", "submitter", "system_id"]).iloc[0]
        rows.append({**best.to_dict(), "unscored": len(entries) - len(with_score)})
    return pd.DataFrame(rows)


def scaling_series(results: pd.DataFrame, benchmark: str) -> pd.DataFrame:
    """Scored entries of one benchmark with, per submitter and accelerator series, the ideal time
    (linear scaling from the series' smallest scale) and the efficiency against the previous point."""
    entries = scored(closed(results[results["benchmark"] == benchmark]))
    # A system without accelerators (CPU only, in early rounds) has no place on a scale of accelerators.
    entries = entries[entries["total_accelerators"] > 0].copy()
    entries["series"] = entries["submitter"] + " · " + entries["accelerator"]
    entries = entries.sort_values(["series", "total_accelerators", "score_minutes"])
    ideal, efficiency = [], []
    for _, group in entries.groupby("series", sort=True):
        base = group.iloc[0]
        previous = None
        for _, row in group.iterrows():
            ideal.append(base["score_minutes"] * base["total_accelerators"] / row["total_accelerators"])
            efficiency.append(scaling_efficiency(previous, row) if previous is not None else float("nan"))
            previous = row
    entries["ideal_minutes"] = ideal
    entries["efficiency_vs_previous"] = efficiency
    return entries


def scaling_efficiency(small: pd.Series, large: pd.Series) -> float:
    """Share of ideal linear speed-up achieved going from `small` to `large` accelerators."""
    return (small["score_minutes"] * small["total_accelerators"]) / (
        large["score_minutes"] * large["total_accelerators"])


def round_over_round(current: pd.DataFrame, previous: pd.DataFrame) -> pd.DataFrame:
    """Best time per benchmark present in both rounds, the speed-up previous / current, and whether the
    two fastest results compare like with like: same scale, same accelerator, and not mostly unscored
    where unscored results could reverse the direction (an unscored result can only be faster than the
    fastest known: a "slower" point is in doubt when most of the current round is unscored, a "faster"
    one when most of the previous round is)."""
    current, previous = closed(current), closed(previous)
    now = fastest_per_benchmark(current).set_index("benchmark")
    before = fastest_per_benchmark(previous).set_index("benchmark")
    shared = [b for b in now.index if b in before.index]
    rows = []
    for benchmark in shared:
        cur, prev = now.loc[benchmark], before.loc[benchmark]
        speedup = prev["score_minutes"] / cur["score_minutes"]
        previous_results = int((previous["benchmark"] == benchmark).sum())
        current_results = int((current["benchmark"] == benchmark).sum())
        rows.append({
            "benchmark": benchmark,
            "previous_minutes": prev["score_minutes"], "previous_system": prev.get("system_id"),
            "previous_submitter": prev.get("submitter"), "previous_accelerators": prev.get("total_accelerators"),
            "previous_accelerator": prev.get("accelerator"),
            "previous_results": previous_results,
            "previous_unscored": int(prev["unscored"]),
            "current_minutes": cur["score_minutes"], "current_system": cur.get("system_id"),
            "current_submitter": cur.get("submitter"), "current_accelerators": cur.get("total_accelerators"),
            "current_accelerator": cur.get("accelerator"),
            "current_results": current_results,
            "current_unscored": int(cur["unscored"]),
            "speedup": speedup,
            "different_scale": prev.get("total_accelerators") != cur.get("total_accelerators"),
            "different_accelerator": prev.get("accelerator") != cur.get("accelerator"),
            "incomplete": bool((speedup < 1 and cur["unscored"] * 2 > current_results)
                               or (speedup > 1 and prev["unscored"] * 2 > previous_results)),
            "previous_source": prev.get("score_source"), "current_source": cur.get("score_source"),
        })
    return pd.DataFrame(rows)


def best_per_accelerator(results: pd.DataFrame, benchmarks: list[str], accelerators: int = 8) -> pd.DataFrame:
    """Fastest scored closed-division result per (benchmark, accelerator type) among systems of exactly
    `accelerators`."""
    results = closed(results)
    entries = scored(results[results["benchmark"].isin(benchmarks) & (results["total_accelerators"] == accelerators)])
    best = entries.sort_values(["benchmark", "accelerator", "score_minutes", "submitter", "system_id"])
    return best.drop_duplicates(["benchmark", "accelerator"]).reset_index(drop=True)


def head_to_head(results: pd.DataFrame, challenger: str, reference: str, benchmarks: list[str],
                 accelerators: int = 8) -> pd.DataFrame:
    """Best `challenger` against best `reference` accelerator per benchmark at the same scale;
    `gap` > 0 means the challenger is slower by that fraction."""
    best = best_per_accelerator(results, benchmarks, accelerators).set_index(["benchmark", "accelerator"])
    rows = []
    for benchmark in benchmarks:
        if (benchmark, challenger) in best.index and (benchmark, reference) in best.index:
            ours, theirs = best.loc[(benchmark, challenger)], best.loc[(benchmark, reference)]
            rows.append({"benchmark": benchmark,
                         "challenger_minutes": ours["score_minutes"], "challenger_system": ours["system_id"],
                         "challenger_submitter": ours["submitter"],
                         "reference_minutes": theirs["score_minutes"], "reference_system": theirs["system_id"],
                         "reference_submitter": theirs["submitter"],
                         "gap": ours["score_minutes"] / theirs["score_minutes"] - 1})
    return pd.DataFrame(rows)


def results_per_organization(results: pd.DataFrame) -> pd.DataFrame:
    """Result counts per submitter and accelerator vendor, largest submitters first."""
    counts = results.groupby(["submitter", "accelerator_vendor"]).size().rename("results").reset_index()
    totals = counts.groupby("submitter")["results"].transform("sum")
    return counts.assign(total=totals).sort_values(["total", "submitter", "accelerator_vendor"],
                                                   ascending=[False, True, True]).reset_index(drop=True)


def systems_by_scale(results: pd.DataFrame) -> pd.DataFrame:
    """Number of distinct systems per total accelerator count, split single-node / multi-node."""
    system_rows = systems(results).assign(multi_node=lambda s: s["number_of_nodes"] > 1)
    counts = system_rows.groupby(["total_accelerators", "multi_node"]).size().rename("systems").reset_index()
    return counts.sort_values(["total_accelerators", "multi_node"]).reset_index(drop=True)


def gpu_minutes(results: pd.DataFrame) -> pd.DataFrame:
    """Scored closed-division results with time to train x accelerators, a rough proxy for the cost of a result."""
    entries = scored(closed(results)).copy()
    entries["gpu_minutes"] = entries["score_minutes"] * entries["total_accelerators"]
    return entries.sort_values(["benchmark", "gpu_minutes", "submitter", "system_id"]).reset_index(drop=True)


# What a round's charts feature, derived from its results where round.toml does not declare it.

def widest_scaling_benchmark(results: pd.DataFrame, benchmark_order: list[str]) -> str | None:
    """The benchmark with the widest scored scale range (largest / smallest accelerators) of one
    submitter and accelerator series; ties go to more points, then catalog order. None if no series
    has two scales."""
    entries = scored(results)
    best, best_key = None, None
    for (benchmark, _submitter, _accelerator), group in entries.groupby(
            ["benchmark", "submitter", "accelerator"], sort=True):
        scales = group["total_accelerators"].nunique()
        if scales < 2:
            continue
        spread = int(group["total_accelerators"].max()) / int(group["total_accelerators"].min())
        order = benchmark_order.index(benchmark) if benchmark in benchmark_order else len(benchmark_order)
        key = (-spread, -scales, order)
        if best_key is None or key < best_key:
            best, best_key = benchmark, key
    return best


def single_node_benchmarks(results: pd.DataFrame, scale: int, benchmark_order: list[str]) -> list[str]:
    """Benchmarks with scored results of systems of `scale` accelerators on at least two accelerator types."""
    entries = scored(results[results["total_accelerators"] == scale])
    types = entries.groupby("benchmark")["accelerator"].nunique()
    return [b for b in benchmark_order if types.get(b, 0) >= 2]


def shared_benchmarks(results: pd.DataFrame, first: str, second: str, scale: int,
                      benchmark_order: list[str]) -> list[str]:
    """Benchmarks where both accelerators have a scored result with `scale` accelerators."""
    entries = scored(results[results["total_accelerators"] == scale])
    ran = entries.groupby("accelerator")["benchmark"].agg(set)
    both = ran.get(first, set()) & ran.get(second, set())
    return [b for b in benchmark_order if b in both]


def head_to_head_pair(results: pd.DataFrame, vendor_of, scale: int,
                      benchmark_order: list[str]) -> tuple[str, str] | None:
    """Two accelerators of different vendors to compare: the pair sharing the most benchmarks at
    `scale`, then the one with the most scored results at that scale, then by name. The challenger is
    the accelerator whose vendor has fewer results in the round; None when no such pair exists."""
    entries = scored(results[results["total_accelerators"] == scale])
    counts = entries.groupby("accelerator").size()
    per_vendor = results.groupby("accelerator_vendor").size()
    accelerators = sorted(counts.index)
    best, best_key = None, None
    for i, first in enumerate(accelerators):
        for second in accelerators[i + 1:]:
            if vendor_of(first) == vendor_of(second):
                continue
            shared = len(shared_benchmarks(results, first, second, scale, benchmark_order))
            if not shared:
                continue
            key = (-shared, -(int(counts[first]) + int(counts[second])), first, second)
            if best_key is None or key < best_key:
                best, best_key = (first, second), key
    if best is None:
        return None
    first, second = best
    if (per_vendor.get(vendor_of(first), 0), first) > (per_vendor.get(vendor_of(second), 0), second):
        first, second = second, first
    return first, second
