#!/usr/bin/env python3
"""Write the project's run table, scaling factors and second reading from the readers' records.

    python3 tools/index-reading/to_runs.py READING_DIR data/rounds/v6.0

READING_DIR holds assign/NAME.csv (what each reader was given) and out/NAME.jsonl (what each recorded, checked
by record.py): readers named reader_*, and a second, independent reader named verifier*. The round's folder
keeps what earlier sessions read, and this folder's records are added to it (running it twice adds nothing): runs.csv (every run read, the readers' records first, a verifier's where no reader read the
log), scaling.csv (the scaling.json factors read) and runs_second_reading.csv (a verifier's records of logs a
reader read too; tests/test_runs.py requires the two readings to agree). Only figures are written, never a
log's text. A log no one finished reading is left out, so that derive-data leaves its result unscored ("N of M
run logs were read") rather than guessing.
"""
import argparse
import csv
import json
from pathlib import Path

REPOSITORY = "Richardyu114/training_results_v6.0"
COMMIT = "eabf23a07b2a0c60a289ff871dc3a46fff0d0421"
READ_ON = "2026-12-04"
RUN_COLUMNS = ("round", "submitter_dir", "system_id", "benchmark", "result_file", "run_start_ms", "run_stop_ms",
               "run_minutes", "samples_count_at_run_stop", "global_batch_size", "run_stop_status", "notes", "source")


def text(value):
    return "" if value is None else str(value)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("reading", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--round", default="v6.0")
    args = parser.parse_args()
    readers = sorted(p.stem for p in (args.reading / "assign").glob("reader_*.csv"))
    verifiers = sorted(p.stem for p in (args.reading / "assign").glob("verifier*.csv"))
    # What earlier sessions read stays as it is; this folder's records are added to it.
    runs, second = existing(args.out / "runs.csv"), existing(args.out / "runs_second_reading.csv")
    factors = existing(args.out / "scaling.csv")
    log = lambda r: (r["submitter_dir"], r["system_id"], r["benchmark"], r["result_file"])  # noqa: E731
    result = lambda r: (r["submitter_dir"], r["system_id"], r["benchmark"])  # noqa: E731
    new_runs, new_factors = rows_of(args, readers)
    checked, more_factors = rows_of(args, verifiers)
    read = {log(r) for r in runs}
    runs += [r for r in new_runs if log(r) not in read]
    read = {log(r) for r in runs}
    read_twice = {log(r) for r in second}
    first_by = {log(r): r["source"] for r in runs}
    second += [r for r in checked if log(r) in read and log(r) not in read_twice and first_by[log(r)] != r["source"]]
    runs += [r for r in checked if log(r) not in read]
    known = {result(f) for f in factors}
    for factor in new_factors + more_factors:
        if result(factor) not in known:
            factors.append(factor)
            known.add(result(factor))
    write(args.out / "runs.csv", RUN_COLUMNS, runs)
    write(args.out / "runs_second_reading.csv", RUN_COLUMNS, second)
    write(args.out / "scaling.csv", ("submitter_dir", "system_id", "benchmark", "scaling_factor", "source"), factors)
    print(f"{len(runs)} runs, {len(second)} read a second time, {len(factors)} scaling factors")


def order(row):
    digits = "".join(c for c in row.get("result_file", "") if c.isdigit())
    return (row["submitter_dir"], row["system_id"], row["benchmark"], int(digits or -1))


def write(path, columns, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(sorted(rows, key=order))


def existing(path):
    if not path.is_file():
        return []
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def finished(record):
    """A log read to the end: a run_start and a run_stop seen, or the whole file read without one."""
    if str(record.get("note", "")).startswith("INCOMPLETE"):
        return False
    return not (record.get("run_start_ms") is None and record.get("run_stop_ms") is not None)


def rows_of(args, names):
    runs, factors = [], []
    for name in names:
        with open(args.reading / "assign" / f"{name}.csv", newline="") as f:
            owner = {row["path"]: row for row in csv.DictReader(f)}
        out = args.reading / "out" / f"{name}.jsonl"
        records = [json.loads(line) for line in out.read_text().splitlines() if line.strip()] if out.exists() else []
        for record in filter(finished, records):
            row = owner[record["path"]]
            key = {"submitter_dir": row["submitter_dir"], "system_id": row["system_id"], "benchmark": row["benchmark"]}
            source = f"{REPOSITORY}@{COMMIT[:8]} {record['path']}, read through the code index on {READ_ON} ({name})"
            file_name = record["path"].rsplit("/", 1)[1]
            if file_name == "scaling.json":
                factors.append({**key, "scaling_factor": text(record["scaling_factor"]), "source": source})
                continue
            if not file_name.startswith("result_"):
                continue  # an mlperf_logging.out: its lines are in the readers' notes, not data
            start, stop, status = record.get("run_start_ms"), record.get("run_stop_ms"), record.get("status")
            minutes = (f"{(stop - start) / 60 / 1000:.4f}" if start is not None and stop is not None
                       and status == "success" else "")
            # A log whose run_stop gives an epoch (DLRM-DCNv2) counts convergence in epochs, not samples: as in the
            # source's runs_extracted.csv, and as rcp_checker reads it, the epoch goes here.
            samples = record.get("samples_count")
            notes = []
            if record.get("epoch_num") is not None:
                samples = record["epoch_num"]
                notes.append("epoch_num at run_stop")
            elif record.get("samples_from") not in (None, "", "run_stop") and samples is not None:
                notes.append(f"samples_count from the {record['samples_from']} line")
            if record.get("run_start_all_ms"):
                notes.append(f"{len(record['run_start_all_ms'])} run_start lines")
            if record.get("note"):
                notes.append(record["note"])
            runs.append({"round": args.round, **key, "result_file": file_name, "run_start_ms": text(start),
                         "run_stop_ms": text(stop), "run_minutes": minutes, "samples_count_at_run_stop": text(samples),
                         "global_batch_size": text(record.get("global_batch_size")),
                         "run_stop_status": text(status) if stop is not None else "", "notes": "; ".join(notes),
                         "source": source})

    return runs, factors


if __name__ == "__main__":
    main()
