"""Across rounds: the fastest time per benchmark and round (at any scale and at a fixed one), benchmark families
(a benchmark and the one that replaced it), rule changes between rounds, participation per round, and each
benchmark's record. Pure functions of the loaded data; which benchmark replaced which, and the rules of each
round, are data too (data/successors.csv, data/rules.csv), each row with its source."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from site_builder import metrics
from site_builder.rounds import round_order

# The fixed scale of the like-for-like series: one node of eight accelerators, the most common system size.
FIXED_SCALE = 8
SUCCESSORS_FILE = "successors.csv"
RESULT_FIELDS = ["score_minutes", "submitter", "system_id", "system", "accelerator", "accelerator_vendor",
                 "total_accelerators", "score_source", "availability", "carried_over_from"]
# The kinds of rule change, in the order a chart lists them.
CHANGE_KINDS = ("new", "target", "rcp", "retired")


def load_successors(data_dir: Path) -> pd.DataFrame:
    """data/successors.csv: benchmark, replaced_by, source (empty where the project has none)."""
    path = data_dir / SUCCESSORS_FILE
    columns = ["benchmark", "replaced_by", "source"]
    if not path.is_file():
        return pd.DataFrame(columns=columns)
    return pd.read_csv(path, dtype=str, keep_default_na=False)[columns]


def _ordered(rounds) -> list[str]:
    return sorted(rounds, key=round_order)


def _in_rounds(results: pd.DataFrame, rounds: list[str]) -> pd.DataFrame:
    return results[results["round"].isin(rounds)]


def rounds_of(results: pd.DataFrame, benchmark: str, rounds: list[str]) -> list[str]:
    """The rounds (of `rounds`, oldest first) in which a benchmark has results."""
    present = set(results.loc[results["benchmark"] == benchmark, "round"])
    return [r for r in _ordered(rounds) if r in present]


def families(results: pd.DataFrame, catalog: list[str], rounds: list[str],
             successors: pd.DataFrame) -> list[tuple[str, ...]]:
    """Every benchmark with results in `rounds`, grouped with the benchmarks it replaced and that replaced it, oldest
    first; families in catalog order of their newest member. Only replacements data/successors.csv cites count."""
    present = set(_in_rounds(results, rounds)["benchmark"])
    after = {b: r for b, r in zip(successors["benchmark"], successors["replaced_by"]) if b in present and r in present}
    before = {r: b for b, r in after.items()}
    chains = []
    for benchmark in catalog:
        if benchmark not in present or benchmark in before:
            continue
        chain = [benchmark]
        while chain[-1] in after and after[chain[-1]] not in chain:
            chain.append(after[chain[-1]])
        chains.append(tuple(chain))
    position = {b: i for i, b in enumerate(catalog)}
    return sorted(chains, key=lambda chain: position.get(chain[-1], len(position)))


def fastest_by_round(results: pd.DataFrame, benchmarks, rounds: list[str], scale: int | None = None) -> pd.DataFrame:
    """One row per benchmark and round with closed-division results in scope (all of them, or those of `scale`
    accelerators): the fastest scored result (ties: submitter, then system id, as `metrics.fastest_per_benchmark`;
    one whose logs are an earlier round's says so in `carried_over_from`: a round whose best is carried over made no
    progress, and its point is the earlier round's time, not a new one), and how many
    results the scope has and how many of them are unscored. A scope without a score keeps its row, score empty."""
    rows = []
    scope = metrics.closed(_in_rounds(results, rounds))
    if scale is not None:
        scope = scope[scope["total_accelerators"] == scale]
    by_benchmark = metrics.by_value(scope, "benchmark")
    for benchmark in benchmarks:
        entries = by_benchmark.get(benchmark, scope.iloc[0:0])
        by_round = metrics.by_value(entries, "round")
        for round_name in _ordered(set(by_round)):
            group = by_round[round_name]
            scored = metrics.scored(group)
            row = {"benchmark": benchmark, "round": round_name, "results": len(group),
                   "unscored": len(group) - len(scored)}
            if len(scored):
                best = scored.sort_values(["score_minutes", "submitter", "system_id"]).iloc[0]
                row.update({name: best[name] for name in RESULT_FIELDS})
            else:
                row.update({name: None for name in RESULT_FIELDS})
                row["score_minutes"] = float("nan")
            rows.append(row)
    return pd.DataFrame(rows, columns=["benchmark", "round", "results", "unscored", *RESULT_FIELDS])


def rule_changes(results: pd.DataFrame, rounds: list[str], rules: pd.DataFrame, benchmarks=None) -> pd.DataFrame:
    """What changed for each benchmark, and in which round: `new` (its first round, unless that is the first round
    of `rounds`: what came before is not in the data), `retired` (its last round, unless that is the last of
    `rounds`), `target` (the compliance checker's quality target differs from the benchmark's previous round) and
    `rcp` (its reference convergence points differ). `before`/`after` hold the targets or RCP batch sizes."""
    ordered = _ordered(rounds)
    scope = _in_rounds(results, ordered)
    wanted = list(benchmarks) if benchmarks is not None else list(dict.fromkeys(scope["benchmark"]))
    keyed = {(r, b): row for r, b, row in zip(rules["round"], rules["benchmark"], rules.to_dict("records"))}
    rows = []
    for benchmark in wanted:
        ran = rounds_of(scope, benchmark, ordered)
        if not ran:
            continue
        if ran[0] != ordered[0]:
            rows.append({"benchmark": benchmark, "round": ran[0], "kind": "new", "before": "", "after": "",
                         "source": f"first round with results in data/rounds/ ({ran[0]})"})
        for earlier, later in zip(ran, ran[1:]):
            old, new = keyed.get((earlier, benchmark)), keyed.get((later, benchmark))
            if old is None or new is None:
                continue
            source = "data/rules.csv: " + new["source"]
            if old["quality_check"] and new["quality_check"] and old["quality_check"] != new["quality_check"]:
                rows.append({"benchmark": benchmark, "round": later, "kind": "target", "before": old["quality_target"],
                             "after": new["quality_target"], "source": source})
            if old["rcp_digest"] and new["rcp_digest"] and old["rcp_digest"] != new["rcp_digest"]:
                rows.append({"benchmark": benchmark, "round": later, "kind": "rcp", "before": old["rcp_batch_sizes"],
                             "after": new["rcp_batch_sizes"], "source": source})
        if ran[-1] != ordered[-1]:
            rows.append({"benchmark": benchmark, "round": ran[-1], "kind": "retired", "before": "", "after": "",
                         "source": f"last round with results in data/rounds/ ({ran[-1]})"})
    frame = pd.DataFrame(rows, columns=["benchmark", "round", "kind", "before", "after", "source"])
    if frame.empty:
        return frame
    frame["order"] = [(round_order(r), CHANGE_KINDS.index(k)) for r, k in zip(frame["round"], frame["kind"])]
    return frame.sort_values("order", kind="stable").drop(columns="order").reset_index(drop=True)


def participation(results: pd.DataFrame, rounds: list[str]) -> pd.DataFrame:
    """Per round, oldest first: organizations (distinct submitters), systems, accelerator types, results, and
    how many of them are scored and unscored (counted as each round's home page counts them)."""
    rows = []
    for round_name in _ordered(rounds):
        entries = results[results["round"] == round_name]
        if entries.empty:
            continue
        headline = metrics.headline(entries)
        rows.append({"round": round_name, "organizations": headline.organizations, "systems": headline.systems,
                     "accelerator_types": headline.accelerator_types, "results": headline.results,
                     "scored": headline.scored_results, "unscored": headline.results - headline.scored_results})
    return pd.DataFrame(rows, columns=["round", "organizations", "systems", "accelerator_types", "results",
                                       "scored", "unscored"])


def records(results: pd.DataFrame, catalog: list[str], rounds: list[str]) -> pd.DataFrame:
    """Each benchmark's fastest scored closed-division result in `rounds` (catalog order), the round that set it,
    the rounds the benchmark ran in (first, last) and how many of its closed results have no score. Each round's rules apply to its own
    results: a record set under other rules is marked by `rule_changes`, not adjusted."""
    scope = metrics.closed(_in_rounds(results, rounds))
    rows = []
    for benchmark in catalog:
        entries = scope[scope["benchmark"] == benchmark]
        if entries.empty:
            continue
        ran = rounds_of(entries, benchmark, rounds)
        scored = metrics.scored(entries)
        row = {"benchmark": benchmark, "first_round": ran[0], "last_round": ran[-1], "rounds": len(ran),
               "results": len(entries), "unscored": len(entries) - len(scored)}
        scored = metrics.new_runs(scored)  # logs published again set no record: their first round did
        if len(scored):
            # a tie goes to the earlier round (it set the time first), then as in `fastest_by_round`
            position = scored["round"].map({r: i for i, r in enumerate(_ordered(rounds))})
            best = scored.assign(position=position).sort_values(
                ["score_minutes", "position", "submitter", "system_id"]).iloc[0]
            row.update({"round": best["round"], **{name: best[name] for name in RESULT_FIELDS}})
        else:
            row.update({"round": None, **{name: None for name in RESULT_FIELDS}, "score_minutes": float("nan")})
        rows.append(row)
    return pd.DataFrame(rows, columns=["benchmark", "round", *RESULT_FIELDS, "first_round", "last_round", "rounds",
                                       "results", "unscored"])
