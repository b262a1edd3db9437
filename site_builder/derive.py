"""Derive the project's data/rounds/<round>/results.csv from the published results tables.

The source is the tidy MLPerf Training table set (one `results.csv` per round, see
../shared/data/mlperf-training/README.md). Derivation keeps every figure as written in the
source (no float round-trip), keeps each score's `score_source`, and adds the normalized
accelerator name and vendor that the site groups by (from data/accelerators.csv: the first row whose
pattern matches the submitter's model name), the score's method as an id and its precision, and each
result's per-run minutes, so that pages never parse prose. The per-run figures come from the round's run tables
(site_builder/runs.py): the source's `runs_extracted.csv` and the project's own `data/rounds/<round>/runs.csv`;
a result the source has no score for is scored from them, as the summarizer would, when every run was read.
A result whose runs are runs of a result of an earlier round (the same logs published again; the earlier rounds'
run tables, data/rounds/<round>/runs.csv) names that result in `carried_over_from`. The rounds are the configuration's round and previous round. Rows are sorted so
the output is stable.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from site_builder import rcp
from site_builder import runs as run_tables
from site_builder import sources
from site_builder.errors import Collector
from site_builder.hardware import Hardware

# Derived file columns, in order; documented in data/README.md.
COLUMNS = (
    "round", "division", "availability", "hosting", "submitter", "submitter_dir", "system_name", "system_id",
    "accelerator", "accelerator_vendor", "accelerator_model", "accelerators_per_node",
    "number_of_nodes", "total_accelerators", "host_processor", "framework", "benchmark",
    "score_minutes", "score_decimals", "number_of_runs", "run_minutes", "rcp_scaling_factor", "score_method",
    "score_source", "metadata_source", "notes", "carried_over_from",
)
# Carried over only when the source has it (MLCommons result ids such as 6.0-0012).
OPTIONAL_SOURCE_COLUMNS = ("result_id",)

# How a score was obtained, as an id the pages translate; matched on the start of the source's
# `score_source` text (the data set's README defines these kinds). The full text stays in `score_source`.
SCORE_METHODS = (
    ("official-summarizer", "mlperf_logging.result_summarizer"),
    ("computed-from-logs", "computed here from the result logs"),
    ("submitter-summary", "submitter-committed summary.json"),
    ("published-by-submitter", "published by the submitter"),
    ("not-computed", "not computed"),
)
# Scores computed by the summarizer's rules carry its 4 decimals; a published figure keeps the decimals
# its publisher wrote (Lambda's 18.35 is not 18.3500).
COMPUTED_DECIMALS = 4

HOSTING = {"Available cloud": "cloud", "Available on-premise": "on-premise", "": ""}


# Source columns the derivation reads by name; the other output columns are copied when present.
SOURCE_REQUIRED = ("accelerator_model", "availability_raw", "benchmark", "score_source", "submitter", "system_id")


def score_method(score_source: str) -> str | None:
    for method, prefix in SCORE_METHODS:
        if score_source.startswith(prefix):
            return method
    return None


def score_decimals(score: str, method: str) -> str:
    """Decimals to show: as written for a published figure, the summarizer's precision otherwise."""
    if not score:
        return ""
    if method == "published-by-submitter":
        return str(len(score.partition(".")[2]))
    return str(COMPUTED_DECIMALS)


# How a score computed here from a run table is described; its start is the computed-from-logs method's.
FROM_RUN_TABLE = ("computed here from the result logs' run_start and run_stop ({table}): olympic mean by the "
                  "summarizer's rules, {scaling}; compliance not checked here")
# A score the source gives (a submitter's summary.json, say) whose runs the project read too: the two must agree.
RECOMPUTED = "recomputed here from {table}: {score:.4f} min ({difference:+.3f} %)"


def _run_minutes(runs: list[run_tables.Run]) -> str:
    """Per-run minutes in run order, ";"-separated, an empty item for a run that is not counted."""
    return ";".join(run.shown_minutes for run in runs)


@dataclass(frozen=True)
class RoundRuns:
    """What a round's derivation reads besides its source table: runs, scaling factors, required run counts and
    the earlier rounds' runs (to recognize logs published again)."""

    runs: dict
    project_runs: frozenset
    scaling: dict
    runs_required: dict
    earlier: dict
    round_name: str

    def table_of(self, key) -> str:
        """Where a result's runs were read: the project's run table or the source's."""
        if key in self.project_runs:
            return f"data/rounds/{self.round_name}/runs.csv"
        return f"the source's {self.round_name}/runs_extracted.csv"

    def checked(self, row: dict[str, str], key) -> "rcp.Normalization | None":
        """The RCP checker's factor for a result whose every run was read (None before that)."""
        runs = self.runs[key]
        whole = len(runs) == int(row.get("number_of_runs") or 0)
        return rcp.normalization(row["benchmark"], self.round_name, runs) if whole else None

    def scored(self, row: dict[str, str], key, checked: "rcp.Normalization | None" = None) -> "run_tables.Scored":
        """As the submission does: its scaling.json factor, or (where the folder has none) the RCP checker's
        (`checked`, when the caller has it already)."""
        written = self.scaling.get(key)
        checked = None if written else checked or self.checked(row, key)
        factor = float(written) if written else checked.factor if checked is not None else 1.0
        score = run_tables.score_runs(self.runs[key], self.runs_required[row["benchmark"]],
                                      int(row.get("number_of_runs") or 0), factor if factor is not None else 1.0)
        if score.score is not None and factor is None:
            return run_tables.Scored(None, 1.0, score.unscaled, f"no RCP factor: {checked.how}")
        return score


def read_round_runs(source_dir: Path, data_dir: Path | None, round_name: str, problems: Collector) -> RoundRuns:
    shared = run_tables.read_runs(source_dir / round_name / "runs_extracted.csv", problems)
    project: dict = {}
    scaling: dict = {}
    earlier: dict = {}
    required: dict = {}
    if data_dir is not None:
        folder = data_dir / "rounds" / round_name
        project = run_tables.read_runs(folder / "runs.csv", problems, run_tables.PROJECT_RUN_COLUMNS)
        scaling = run_tables.read_scaling(folder / "scaling.csv", problems)
        earlier = run_tables.earlier_runs(data_dir, round_name, problems)
        benchmarks = data_dir / "benchmarks.csv"
        if benchmarks.is_file():
            with benchmarks.open(newline="", encoding="utf-8") as handle:
                required = {row["id"]: int(row["runs_per_result"]) for row in csv.DictReader(handle)
                            if row.get("runs_per_result", "").isdigit()}
    merged = run_tables.merge_runs([shared, project], problems)
    return RoundRuns(merged, frozenset(project), scaling, required, earlier, round_name)


def _scored_columns(row: dict[str, str], key, found: RoundRuns, where, problems: Collector) -> dict[str, str]:
    """Score, factor, method and source for a result the source table has no score for, from its runs."""
    runs = found.runs[key]
    factor_text = found.scaling.get(key)
    if row["benchmark"] not in found.runs_required:
        problems.error(f"benchmark {row['benchmark']!r} has no runs_per_result in data/benchmarks.csv", *where)
        return {}
    checked = found.checked(row, key)  # compared with scaling.json where the folder has one
    scored = found.scored(row, key, checked)
    if scored.score is None:
        return {"score_source": f"not computed: {scored.reason}"}
    if factor_text is not None:
        scaling = f"scaling.json factor {factor_text} applied"
        if checked.factor is None or abs(checked.factor - float(factor_text)) > 1e-9:  # the checker disagrees
            scaling += f" (rcp_checker: {checked.factor if checked.factor is not None else checked.how})"
    else:
        factor_text = f"{checked.factor:.6f}" if checked.factor != 1.0 else "1.0"
        scaling = f"no scaling.json: rcp_checker's factor {factor_text} applied, {checked.how}"
    if checked.passed is False:
        scaling += "; RCP check failed (faster convergence than the RCPs allow)"
    notes = [f"per-run minutes: {_run_minutes(runs)}", scaling]
    if factor_text != "1.0":
        notes.append(f"unscaled olympic mean {scored.unscaled:.4f} min")
    not_counted = [run.result_file for run in runs if run.minutes is None]
    if not_counted:
        notes.append(f"not counted (no run_stop, or a status other than success): {', '.join(not_counted)}")
    return {
        "score_minutes": f"{scored.score:.4f}",
        "rcp_scaling_factor": factor_text,
        "score_source": FROM_RUN_TABLE.format(table=found.table_of(key), scaling="scaling.json applied"
                                              if found.scaling.get(key) is not None else
                                              "the RCP factor of mlperf-logging's rcp_checker applied"),
        "notes": "; ".join(notes + ([row["notes"]] if row.get("notes") else [])),
    }


# The source's mark for a value its extraction did not read: a missing value here (shown as missing, in the reader's
# language), the row's metadata_source saying why.
NOT_READ = "(not read)"


def _written(value: str) -> str:
    return "" if value == NOT_READ else value


def derive_round(source_csv: Path, hardware: Hardware, problems: Collector, found: RoundRuns | None = None
                 ) -> str | None:
    """Return the derived CSV text for one round's source table and its run tables, if any (None when it cannot
    be read)."""
    shown = source_csv.as_posix()
    if found is None:
        found = read_round_runs(source_csv.parent.parent, None, source_csv.parent.name, problems)
    carried = run_tables.carried_over(found.runs, found.earlier)
    text, problem = sources.decode_text(source_csv.read_bytes(), shown)
    if problem is not None:
        problems.problems.append(problem)
        return None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    rows = []
    try:
        fields = reader.fieldnames or []
        columns = COLUMNS + tuple(c for c in OPTIONAL_SOURCE_COLUMNS if c in fields)
        missing = [name for name in SOURCE_REQUIRED if name not in fields]
        for name in missing:
            problems.error(f"missing column '{name}'", shown, 1)
        if missing:
            return None
        for row in reader:
            where = (shown, reader.line_num)
            if None in row or None in row.values():  # DictReader's marks for too many or too few fields
                problems.error(f"row has a different number of fields than the header ({len(fields)})", *where)
                continue
            key = (row.get("submitter_dir", ""), row["system_id"], row["benchmark"])
            if not row.get("score_minutes") and key in found.runs:
                row = {**row, **_scored_columns(row, key, found, where, problems)}
            elif key in found.project_runs and row["benchmark"] in found.runs_required:
                again = found.scored(row, key).score
                if again is not None:
                    published = float(row["score_minutes"])
                    check = RECOMPUTED.format(table=found.table_of(key), score=again,
                                              difference=(again - published) / published * 100)
                    row = {**row, "notes": "; ".join(n for n in (row.get("notes", ""), check) if n)}
            method = score_method(row["score_source"])
            if method is None:
                problems.error(f"unknown score_source {row['score_source']!r}", *where,
                               hint="add its kind to SCORE_METHODS in site_builder/derive.py")
                continue
            accelerator = hardware.accelerator_type(row["accelerator_model"])
            if accelerator is None:
                problems.error(f"unknown accelerator model {row['accelerator_model']!r}", *where,
                               hint="add a row whose pattern matches it to data/accelerators.csv")
                continue
            if row["availability_raw"] not in HOSTING:
                problems.error(f"unknown availability {row['availability_raw']!r}", *where)
                continue
            rows.append({
                **{key: _written(row.get(key, "")) for key in columns},
                "hosting": HOSTING[row["availability_raw"]],
                "accelerator": accelerator,
                "accelerator_vendor": hardware.vendor_of(accelerator),
                "score_method": method,
                "score_decimals": score_decimals(row.get("score_minutes", ""), method),
                # a result's runs only once every log of it was read: a part would look like the whole
                "run_minutes": _run_minutes(found.runs[key]) if len(found.runs.get(key, ())) == int(
                    row.get("number_of_runs") or -1) else "",
                "carried_over_from": "/".join(carried[key][:3]) if key in carried else "",
            })
    except csv.Error as exc:
        problems.error(f"unreadable CSV: {exc}", shown, reader.line_num or 1)
        return None
    rows.sort(key=lambda r: (r["benchmark"], r["submitter"], r["system_id"]))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def derived_rounds(config) -> list[str]:
    """The rounds derive-data derives: the configuration's round, then its previous round."""
    return [config.round] + ([config.compared_round] if config.compared_round else [])


def derive_all(source_dir: Path, rounds: list[str], hardware: Hardware, data_dir: Path | None = None
               ) -> dict[str, str]:
    """Map of data-relative path -> CSV text for every round; all problems reported together.

    `data_dir`, the project's data folder, holds the project's own run tables and scaling factors, and the run
    tables of earlier rounds."""
    problems = Collector()
    outputs = {}
    for round_name in rounds:
        source = source_dir / round_name / "results.csv"
        if not source.is_file():
            problems.error(f"missing source table {source}")
            continue
        found = read_round_runs(source_dir, data_dir, round_name, problems)
        derived = derive_round(source, hardware, problems, found)
        if derived is not None:
            outputs[f"rounds/{round_name}/results.csv"] = derived
    problems.raise_if_any()
    return outputs


def write_derived(source_dir: Path, data_dir: Path, rounds: list[str], hardware: Hardware) -> list[Path]:
    written = []
    for relative, text in derive_all(source_dir, rounds, hardware, data_dir).items():
        target = data_dir / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="")
        written.append(target)
    return written
