"""Derive the project's data/rounds/<round>/results.csv from the published results tables.

The source is the tidy MLPerf Training table set (one `results.csv` per round, see
../shared/data/mlperf-training/README.md). Derivation keeps every figure as written in the
source (no float round-trip), keeps each score's `score_source`, and adds the normalized
accelerator name and vendor that the site groups by (from data/accelerators.csv: the first row whose
pattern matches the submitter's model name), the score's method as an id and its precision, and each
result's per-run minutes from the round's `runs_extracted.csv`, so that pages never parse prose. The
rounds are the configuration's round and previous round. Rows are sorted so the output is stable.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from site_builder import sources
from site_builder.errors import Collector
from site_builder.hardware import Hardware

# Derived file columns, in order; documented in data/README.md.
COLUMNS = (
    "round", "division", "availability", "hosting", "submitter", "submitter_dir", "system_name", "system_id",
    "accelerator", "accelerator_vendor", "accelerator_model", "accelerators_per_node",
    "number_of_nodes", "total_accelerators", "host_processor", "framework", "benchmark",
    "score_minutes", "score_decimals", "number_of_runs", "run_minutes", "rcp_scaling_factor", "score_method",
    "score_source", "metadata_source", "notes",
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


def read_run_minutes(runs_csv: Path) -> dict[tuple[str, str, str], str]:
    """(submitter_dir, system_id, benchmark) -> per-run minutes in result file order, ";"-separated.

    A run whose log has no run_stop (not converged) is an empty item, so the list keeps one item per run.
    """
    if not runs_csv.is_file():
        return {}
    runs: dict[tuple[str, str, str], list[tuple[int, str]]] = {}
    with runs_csv.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            number = int(re.search(r"(\d+)", row["result_file"]).group(1))
            key = (row["submitter_dir"], row["system_id"], row["benchmark"])
            runs.setdefault(key, []).append((number, row["run_minutes"]))
    return {key: ";".join(minutes for _, minutes in sorted(items)) for key, items in runs.items()}


# The source's mark for a value its extraction did not read: a missing value here (shown as missing, in the reader's
# language), the row's metadata_source saying why.
NOT_READ = "(not read)"


def _written(value: str) -> str:
    return "" if value == NOT_READ else value


def derive_round(source_csv: Path, hardware: Hardware, problems: Collector) -> str | None:
    """Return the derived CSV text for one round's source table and its runs_extracted.csv, if any
    (None when it cannot be read)."""
    shown = source_csv.as_posix()
    run_minutes = read_run_minutes(source_csv.parent / "runs_extracted.csv")
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
                "run_minutes": run_minutes.get((row.get("submitter_dir", ""), row["system_id"], row["benchmark"]), ""),
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


def derive_all(source_dir: Path, rounds: list[str], hardware: Hardware) -> dict[str, str]:
    """Map of data-relative path -> CSV text for every round; all problems reported together."""
    problems = Collector()
    outputs = {}
    for round_name in rounds:
        source = source_dir / round_name / "results.csv"
        if not source.is_file():
            problems.error(f"missing source table {source}")
            continue
        derived = derive_round(source, hardware, problems)
        if derived is not None:
            outputs[f"rounds/{round_name}/results.csv"] = derived
    problems.raise_if_any()
    return outputs


def write_derived(source_dir: Path, data_dir: Path, rounds: list[str], hardware: Hardware) -> list[Path]:
    written = []
    for relative, text in derive_all(source_dir, rounds, hardware).items():
        target = data_dir / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="")
        written.append(target)
    return written
