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


def derive_round(source_csv: Path, hardware: Hardware, problems: Collector) -> str:
    """Return the derived CSV text for one round's source table."""
    with source_csv.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        rows = []
        for row in reader:
            where = (source_csv.as_posix(), reader.line_num)
            accelerator = hardware.accelerator_type(row["accelerator_model"])
            if accelerator is None:
                problems.error(f"unknown accelerator model {row['accelerator_model']!r}", *where,
                               hint="add a row whose pattern matches it to data/accelerators.csv")
                continue
            if row["availability_raw"] not in HOSTING:
                problems.error(f"unknown availability {row['availability_raw']!r}", *where)
                continue
            rows.append({
                **{key: row[key] for key in COLUMNS if key in row},
                "hosting": HOSTING[row["availability_raw"]],
                "accelerator": accelerator,
                "accelerator_vendor": hardware.vendor_of(accelerator),
            })
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
        outputs[f"rounds/{round_name}/results.csv"] = derive_round(source, hardware, problems)
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
