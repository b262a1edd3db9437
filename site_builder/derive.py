"""Derive the project's data/rounds/<round>/results.csv from the published results tables.

The source is the tidy MLPerf Training table set (one `results.csv` per round, see
../shared/data/mlperf-training/README.md). Derivation keeps every figure as written in the
source (no float round-trip), keeps each score's `score_source`, and adds the normalized
accelerator name and vendor that the site groups by, the score's method as an id and its precision,
and each result's per-run minutes from the round's `runs_extracted.csv`, so that pages never parse prose.
Rows are sorted so the output is stable.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from site_builder.errors import Collector

ROUNDS = ("v6.0", "v5.1")

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

# Marketing names vary between submitters ("B300-SXM-270GB", "B300 Blackwell Ultra GPU"):
# the first pattern that matches gives the accelerator type that MLCommons counts.
ACCELERATOR_PATTERNS = (
    ("GB300", r"\bGB300\b"),
    ("GB200", r"\bGB200\b"),
    ("GH200", r"\bGH200\b"),
    ("B300", r"\bB300\b"),
    ("B200", r"\bB200\b"),
    ("H200-NVL", r"\bH200-NVL\b"),
    ("H200-SXM", r"\bH200-SXM"),
    ("H100-SXM", r"\bH100-SXM"),
    ("RTX PRO 6000 Blackwell", r"\bRTX PRO 6000\b"),
    ("MI355X", r"\bMI355X\b"),
    ("MI350X", r"\bMI350X\b"),
    ("MI325X", r"\bMI325X\b"),
    ("MI300X", r"\bMI300X\b"),
)
HOSTING = {"Available cloud": "cloud", "Available on-premise": "on-premise", "": ""}


def accelerator_type(model: str) -> str | None:
    for name, pattern in ACCELERATOR_PATTERNS:
        if re.search(pattern, model, flags=re.IGNORECASE):
            return name
    return None


def accelerator_vendor(accelerator: str) -> str:
    return "AMD" if accelerator.startswith("MI") else "NVIDIA"


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


def derive_round(source_csv: Path, problems: Collector) -> str:
    """Return the derived CSV text for one round's source table (and its runs_extracted.csv, if any)."""
    run_minutes = read_run_minutes(source_csv.parent / "runs_extracted.csv")
    with source_csv.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        columns = COLUMNS + tuple(c for c in OPTIONAL_SOURCE_COLUMNS if c in (reader.fieldnames or ()))
        rows = []
        for row in reader:
            where = (source_csv.as_posix(), reader.line_num)
            method = score_method(row["score_source"])
            if method is None:
                problems.error(f"unknown score_source {row['score_source']!r}", *where,
                               hint="add its kind to SCORE_METHODS in site_builder/derive.py")
                continue
            accelerator = accelerator_type(row["accelerator_model"])
            if accelerator is None:
                problems.error(f"unknown accelerator model {row['accelerator_model']!r}", *where,
                               hint="add it to ACCELERATOR_PATTERNS in site_builder/derive.py")
                continue
            if row["availability_raw"] not in HOSTING:
                problems.error(f"unknown availability {row['availability_raw']!r}", *where)
                continue
            rows.append({
                **{key: row[key] for key in columns if key in row},
                "hosting": HOSTING[row["availability_raw"]],
                "accelerator": accelerator,
                "accelerator_vendor": accelerator_vendor(accelerator),
                "score_method": method,
                "score_decimals": score_decimals(row["score_minutes"], method),
                "run_minutes": run_minutes.get((row["submitter_dir"], row["system_id"], row["benchmark"]), ""),
            })
    rows.sort(key=lambda r: (r["benchmark"], r["submitter"], r["system_id"]))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def derive_all(source_dir: Path) -> dict[str, str]:
    """Map of data-relative path -> CSV text for every round; all problems reported together."""
    problems = Collector()
    outputs = {}
    for round_name in ROUNDS:
        source = source_dir / round_name / "results.csv"
        if not source.is_file():
            problems.error(f"missing source table {source}")
            continue
        outputs[f"rounds/{round_name}/results.csv"] = derive_round(source, problems)
    problems.raise_if_any()
    return outputs


def write_derived(source_dir: Path, data_dir: Path) -> list[Path]:
    written = []
    for relative, text in derive_all(source_dir).items():
        target = data_dir / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="")
        written.append(target)
    return written
