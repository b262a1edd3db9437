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
    largest_scale_system: pd.Series
    fastest_deepseek: pd.Series | None


def scored(results: pd.DataFrame) -> pd.DataFrame:
    return results[results["score_minutes"].notna()]


def systems(results: pd.DataFrame) -> pd.DataFrame:
    """One row per (submitter, system_id), with the system columns of its first result."""
    return results.drop_duplicates(SYSTEM_KEY).sort_values(SYSTEM_KEY)


def headline(results: pd.DataFrame) -> Headline:
    system_rows = systems(results)
    multi = int((system_rows["number_of_nodes"] > 1).sum())
    largest = results.sort_values(["total_accelerators", "submitter", "system_id"],
                                  ascending=[False, True, True]).iloc[0]
    deepseek = fastest_per_benchmark(results)
    deepseek = deepseek[deepseek["benchmark"] == "deepseekv3_671b"]
    fastest_deepseek = None
    if len(deepseek) and pd.notna(deepseek.iloc[0]["score_minutes"]):
        fastest_deepseek = deepseek.iloc[0]
    return Headline(
        organizations=results["submitter"].nunique(),
        systems=len(system_rows),
        accelerator_types=results["accelerator"].nunique(),
        results=len(results),
        scored_results=int(results["score_minutes"].notna().sum()),
        multi_node_systems=multi,
        multi_node_share=multi / len(system_rows) if len(system_rows) else 0.0,
        largest_scale=int(largest["total_accelerators"]),
        largest_scale_system=largest,
        fastest_deepseek=fastest_deepseek,
    )


def fastest_per_benchmark(results: pd.DataFrame, benchmark_order: list[str] | None = None) -> pd.DataFrame:
    """The fastest scored result of each benchmark; a benchmark with no score keeps a row with a missing score."""
    order = benchmark_order or sorted(results["benchmark"].unique())
    rows = []
    for benchmark in order:
        entries = results[results["benchmark"] == benchmark]
        if entries.empty:
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
    entries = scored(results[results["benchmark"] == benchmark]).copy()
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
    """Best time per benchmark present in both rounds, and the speed-up previous / current."""
    now = fastest_per_benchmark(current).set_index("benchmark")
    before = fastest_per_benchmark(previous).set_index("benchmark")
    shared = [b for b in now.index if b in before.index]
    rows = []
    for benchmark in shared:
        cur, prev = now.loc[benchmark], before.loc[benchmark]
        rows.append({
            "benchmark": benchmark,
            "previous_minutes": prev["score_minutes"], "previous_system": prev.get("system_id"),
            "previous_submitter": prev.get("submitter"), "previous_accelerators": prev.get("total_accelerators"),
            "current_minutes": cur["score_minutes"], "current_system": cur.get("system_id"),
            "current_submitter": cur.get("submitter"), "current_accelerators": cur.get("total_accelerators"),
            "speedup": prev["score_minutes"] / cur["score_minutes"],
            "previous_source": prev.get("score_source"), "current_source": cur.get("score_source"),
        })
    return pd.DataFrame(rows)


def best_per_accelerator(results: pd.DataFrame, benchmarks: list[str], accelerators: int = 8) -> pd.DataFrame:
    """Fastest scored result per (benchmark, accelerator type) among systems of exactly `accelerators`."""
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
    """Scored results with time to train x accelerators, a rough proxy for the cost of a result."""
    entries = scored(results).copy()
    entries["gpu_minutes"] = entries["score_minutes"] * entries["total_accelerators"]
    return entries.sort_values(["benchmark", "gpu_minutes", "submitter", "system_id"]).reset_index(drop=True)
