#!/usr/bin/env python3
"""Append run records read from the index, checked; or say what is left to read.

    python3 /work/reading/record.py NAME todo [N]      # the next N paths of NAME's list not yet recorded
    python3 /work/reading/record.py NAME <<'EOF'       # one JSON object per line, appended once checked
    {...}
    EOF
"""
import csv
import json
import sys
from pathlib import Path

HERE = Path(__file__).parent
INT_OR_NULL = ("total_chars", "run_start_ms", "after_start_ms", "run_stop_ms", "before_stop_ms",
               "samples_count", "global_batch_size")
RUN_KEYS = {"path", "total_chars", "run_start_ms", "after_start_ms", "run_stop_ms", "before_stop_ms",
            "status", "samples_count", "samples_from", "epoch_num", "global_batch_size",
            "run_start_lines_seen", "run_stop_lines_seen", "run_start_all_ms", "run_stop_all_ms", "reads", "note"}


def assigned(name):
    with open(HERE / "assign" / f"{name}.csv", newline="") as f:
        return [row["path"] for row in csv.DictReader(f)]


def recorded(name):
    out = HERE / "out" / f"{name}.jsonl"
    if not out.exists():
        return {}
    return {json.loads(line)["path"]: json.loads(line) for line in out.read_text().splitlines() if line.strip()}


def problems_of(record, paths):
    problems = []
    path = record.get("path")
    if path not in paths:
        problems.append(f"path {path!r} is not in this list")
        return problems
    if path.endswith("scaling.json") or not path.rsplit("/", 1)[-1].startswith("result_"):
        if path.endswith("scaling.json") and not isinstance(record.get("scaling_factor"), (int, float)):
            problems.append("a scaling.json record needs a number in scaling_factor")
        return problems
    unknown = set(record) - RUN_KEYS
    if unknown:
        problems.append(f"unknown keys {sorted(unknown)}")
    for key in INT_OR_NULL:
        if key in record and record[key] is not None and not isinstance(record[key], int):
            problems.append(f"{key} must be an integer or null, not {record[key]!r}")
    for key in ("run_start_ms", "run_stop_ms", "status", "total_chars"):
        if key not in record:
            problems.append(f"missing {key}")
    start, stop = record.get("run_start_ms"), record.get("run_stop_ms")
    for key in ("run_start_ms", "run_stop_ms", "after_start_ms", "before_stop_ms"):
        value = record.get(key)
        if isinstance(value, int) and not (1_700_000_000_000 <= value <= 1_800_000_000_000):
            problems.append(f"{key} {value} is not an epoch-millisecond time of 2023-2027")
    if isinstance(start, int) and isinstance(stop, int):
        if stop <= start:
            problems.append("run_stop_ms is not after run_start_ms")
        elif stop - start > 3 * 24 * 3600 * 1000:
            problems.append("the run lasts more than three days: check the digits")
    if isinstance(start, int) and isinstance(record.get("after_start_ms"), int):
        gap = record["after_start_ms"] - start
        if not 0 <= gap <= 20 * 60 * 1000:
            problems.append(f"after_start_ms is {gap} ms from run_start_ms: check the digits")
    if isinstance(stop, int) and isinstance(record.get("before_stop_ms"), int):
        gap = stop - record["before_stop_ms"]
        if not 0 <= gap <= 20 * 60 * 1000:
            problems.append(f"before_stop_ms is {gap} ms before run_stop_ms: check the digits")
    if stop is not None and not record.get("status"):
        problems.append("a run_stop needs its status")
    return problems


def main():
    name = sys.argv[1]
    paths = assigned(name)
    if len(sys.argv) > 2 and sys.argv[2] == "todo":
        count = int(sys.argv[3]) if len(sys.argv) > 3 else 8
        done = recorded(name)
        left = [p for p in paths if p not in done]
        print(f"{len(done)} of {len(paths)} recorded; next:")
        for p in left[:count]:
            print(p)
        return
    done = recorded(name)
    out = HERE / "out" / f"{name}.jsonl"
    bad = 0
    with out.open("a") as f:
        for number, line in enumerate(sys.stdin.read().splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                print(f"line {number}: not JSON: {e}")
                bad += 1
                continue
            problems = problems_of(record, set(paths))
            if problems:
                print(f"line {number} ({record.get('path')}): NOT recorded: " + "; ".join(problems))
                bad += 1
                continue
            if record["path"] in done:
                print(f"line {number}: {record['path']} was already recorded; kept the first, this one ignored")
                continue
            f.write(json.dumps(record, sort_keys=True) + "\n")
            done[record["path"]] = record
            print(f"line {number}: recorded {record['path']}")
    print(f"{len(done)} of {len(paths)} recorded")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
