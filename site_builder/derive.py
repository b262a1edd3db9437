"""Derive the project's data/rounds/<round>/results.csv from the published results tables.

The source is the tidy MLPerf Training table set (one `results.csv` per round, see
../shared/data/mlperf-training/README.md). Derivation keeps every figure as written in the
source (no float round-trip), keeps each score's `score_source`, and adds the normalized
accelerator name and vendor that the site groups by (from data/accelerators.csv: the first row whose
pattern matches the submitter's model name). The rounds are the configuration's round and previous
round. Rows are sorted so the output is stable.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from site_builder import sources
from site_builder.errors import Collector
from site_builder.hardware import Hardware

# Derived file columns, in order; documented in data/README.md.
COLUMNS = (
    "round", "division", "availability", "hosting", "submitter", "system_name", "system_id",
    "accelerator", "accelerator_vendor", "accelerator_model", "accelerators_per_node",
    "number_of_nodes", "total_accelerators", "host_processor", "framework", "benchmark",
    "score_minutes", "number_of_runs", "rcp_scaling_factor", "score_source",
    "metadata_source", "notes",
)

HOSTING = {"Available cloud": "cloud", "Available on-premise": "on-premise", "": ""}


# Source columns the derivation reads by name; the other output columns are copied when present.
SOURCE_REQUIRED = ("accelerator_model", "availability_raw", "benchmark", "submitter", "system_id")


def derive_round(source_csv: Path, hardware: Hardware, problems: Collector) -> str | None:
    """Return the derived CSV text for one round's source table (None when it cannot be read)."""
    shown = source_csv.as_posix()
    text, problem = sources.decode_text(source_csv.read_bytes(), shown)
    if problem is not None:
        problems.problems.append(problem)
        return None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    rows = []
    try:
        fields = reader.fieldnames or []
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
            accelerator = hardware.accelerator_type(row["accelerator_model"])
            if accelerator is None:
                problems.error(f"unknown accelerator model {row['accelerator_model']!r}", *where,
                               hint="add a row whose pattern matches it to data/accelerators.csv")
                continue
            if row["availability_raw"] not in HOSTING:
                problems.error(f"unknown availability {row['availability_raw']!r}", *where)
                continue
            rows.append({
                **{key: row.get(key, "") for key in COLUMNS},
                "hosting": HOSTING[row["availability_raw"]],
                "accelerator": accelerator,
                "accelerator_vendor": hardware.vendor_of(accelerator),
            })
    except csv.Error as exc:
        problems.error(f"unreadable CSV: {exc}", shown, reader.line_num or 1)
        return None
    rows.sort(key=lambda r: (r["benchmark"], r["submitter"], r["system_id"]))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
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
