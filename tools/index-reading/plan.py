#!/usr/bin/env python3
"""Plan a session's reading of v6.0 run logs through the code index: what is left, most useful first.

    python3 tools/index-reading/plan.py SHARED_ROUND_DIR READING_DIR [--budget 900] [--readers 6]

SHARED_ROUND_DIR is the data set's v6.0 folder (index-map.csv: every result's folder and log count). The plan
takes every result the project's derived table (data/rounds/v6.0/results.csv) leaves unscored, and the
submitter summary.json results whose runs have not been read (their scores are the method's check), orders
them (below), keeps as many whole results as the session's look-up budget allows, and deals them to readers,
a result to one reader. It also draws, at random, runs already read that have no second reading, for a
verifier, enough to keep the second reading at 6 % of all runs read. It writes READING_DIR/assign/*.csv for
record.py and the readers (PROMPT.md).

Order: (1) results at the round's comparison scale on its single-node benchmarks and those of its head-to-head
accelerators (round.toml [charts]: what the round's comparisons rest on), (2) at least five summary.json
results, (3) the rest, the largest scale first. A result half read by an earlier session comes first of its
group, so that the logs already read count.
"""
import argparse
import csv
import random
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROUND = ROOT / "data" / "rounds" / "v6.0"
# Look-ups a log costs on average (a first page, its end; NeMo logs with a configuration dump a page or two more).
LOOKUPS_PER_LOG = 2.6
SECOND_READING_SHARE = 0.06


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("shared", type=Path)
    parser.add_argument("reading", type=Path)
    parser.add_argument("--budget", type=int, default=900, help="look-ups this session may spend on reading")
    parser.add_argument("--readers", type=int, default=6)
    args = parser.parse_args()

    charts = tomllib.loads((ROUND / "round.toml").read_text())["charts"]
    scale, single = charts["comparison_scale"], set(charts["single_node_benchmarks"])
    pair = set(charts["head_to_head"])
    index = {(r["submitter_dir"], r["system_id"], r["benchmark"]): r for r in rows(args.shared / "index-map.csv")}
    read = {}
    for run in rows(ROUND / "runs.csv"):
        read.setdefault((run["submitter_dir"], run["system_id"], run["benchmark"]), set()).add(run["result_file"])
    wanted = []
    for result in rows(ROUND / "results.csv"):
        key = (result["submitter_dir"], result["system_id"], result["benchmark"])
        summary = result["score_method"] == "submitter-summary"
        if (result["score_minutes"] and not summary) or (summary and key in read):
            continue
        accelerators = int(result["total_accelerators"])
        group = (0 if accelerators == scale and (result["benchmark"] in single or result["accelerator"] in pair)
                 else 1 if summary else 2)
        wanted.append((group, -len(read.get(key, ())), -accelerators, key))
    wanted.sort()
    # the verifier's share first: its look-ups come out of the same budget
    seconds = {(r["submitter_dir"], r["system_id"], r["benchmark"], r["result_file"])
               for r in rows(ROUND / "runs_second_reading.csv")}
    already = sum(len(v) for v in read.values())
    draw = max(0, round(SECOND_READING_SHARE * (already + args.budget / LOOKUPS_PER_LOG)) - len(seconds))
    budget = args.budget - draw * LOOKUPS_PER_LOG
    summaries = sum(1 for w in wanted if w[0] == 1)
    plan, cost = [], 0.0
    for group, _, _, key in wanted:
        if group == 1 and summaries > 5 and sum(1 for p in plan if p[0] == 1) >= 5:
            continue
        entry = index[key]
        width = len(entry["result_index_first"])
        files = [f"result_{str(i).zfill(width)}.txt"
                 for i in range(int(entry["result_index_first"]), int(entry["result_index_last"]) + 1)]
        left = [f for f in files if f not in read.get(key, set())]
        extra = ["scaling.json"] if entry["scaling_json"] == "yes" else []
        need = len(left) * LOOKUPS_PER_LOG + len(extra)
        if cost + need > budget:
            continue
        plan.append((group, key, left + extra))
        cost += need
    folder = args.reading / "assign"
    folder.mkdir(parents=True, exist_ok=True)
    loads = [0] * args.readers
    deal = [[] for _ in range(args.readers)]
    for group, key, files in plan:
        reader = min(range(args.readers), key=lambda j: loads[j])
        deal[reader] += [(*key, f"{key[0]}/results/{key[1]}/{key[2]}/{name}") for name in files]
        loads[reader] += len(files)
    for number, items in enumerate(deal, 1):
        write(folder / f"reader_{number}.csv", items)
    candidates = sorted((key, name) for key, names in read.items() for name in names
                        if (*key, name) not in seconds)
    sample = random.Random(len(candidates)).sample(candidates, min(draw, len(candidates)))
    write(folder / "verifier.csv", [(*key, f"{key[0]}/results/{key[1]}/{key[2]}/{name}") for key, name in sorted(sample)])
    print(f"{len(plan)} results, {sum(len(f) for _, _, f in plan)} files for {args.readers} readers "
          f"(about {cost:.0f} look-ups), {len(sample)} runs for the verifier (about {len(sample) * LOOKUPS_PER_LOG:.0f}); "
          f"{len(wanted) - len(plan)} results left for later sessions")


def write(path, items):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["submitter_dir", "system_id", "benchmark", "path"])
        writer.writerows(items)


if __name__ == "__main__":
    main()
