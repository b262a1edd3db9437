"""Run tables and the scores computed from them: the summarizer's rules, located errors, the project's own
reading checked against a second reading, and the shipped scores equal to their runs."""

import csv
import random
import re

import pytest

from site_builder import rcp
from site_builder import runs as run_tables
from site_builder.errors import Collector
from tests.conftest import ROOT, SHARED_DATA

HEADER = ",".join(run_tables.RUN_COLUMNS)
V60 = ROOT / "data" / "rounds" / "v6.0"


def _rows(path):
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _run(number, minutes, status="success"):
    start = 1_778_000_000_000 + number * 10_000_000
    stop = None if minutes is None else start + round(minutes * 60_000)
    return run_tables.Run(f"result_{number}.txt", start, stop, status if stop is not None else "", "", "", ("t", 1))


# --- the rules ----------------------------------------------------------------------------------------------

def test_the_olympic_mean_is_the_summarizers():
    """Against mlperf_logging's own function, on random times with and without a run that did not converge."""
    summarizer = pytest.importorskip("mlperf_logging.result_summarizer.result_summarizer")
    generator = random.Random(36)
    for _ in range(500):
        count = generator.choice([3, 5, 10])
        minutes = [generator.uniform(1, 100) for _ in range(count)]
        dropped = generator.choice([0, 0, 1, 2])
        ours = run_tables.olympic_mean(minutes[dropped:] + [None] * dropped)
        theirs = (summarizer._compute_olympic_average(sorted(minutes[dropped:]), dropped, 1)
                  if dropped <= 1 else None)
        assert ours == (pytest.approx(theirs) if theirs is not None else None)


def test_a_result_is_scored_only_from_all_its_runs():
    ten = [_run(n, 10.0 + n) for n in range(10)]
    scored = run_tables.score_runs(ten, 10, 10, 1.5)
    assert scored.unscaled == pytest.approx(sum(range(1, 9)) / 8 + 10)  # fastest and slowest dropped
    assert scored.score == pytest.approx(scored.unscaled * 1.5)
    assert run_tables.score_runs(ten[:3], 3, 3, 1.0).score == pytest.approx(11.0)  # the median of three
    one_failed = ten[:9] + [_run(9, None)]
    assert run_tables.score_runs(one_failed, 10, 10, 1.0).unscaled == pytest.approx(sum(range(1, 9)) / 8 + 10)
    aborted = ten[:9] + [_run(9, 1.0, status="aborted")]  # an aborted run is never the fastest
    assert run_tables.score_runs(aborted, 10, 10, 1.0).unscaled == pytest.approx(sum(range(1, 9)) / 8 + 10)
    assert run_tables.score_runs(ten[:4], 10, 10, 1.0).reason == "4 of the result's 10 run logs were read"
    assert run_tables.score_runs(ten[:5], 10, 5, 1.0).reason == "5 run logs, the rules require 10"
    two_failed = ten[:8] + [_run(8, None), _run(9, None)]
    assert run_tables.score_runs(two_failed, 10, 10, 1.0).reason == (
        "2 of 10 runs did not converge, more than the olympic mean allows")


def test_every_problem_of_a_run_table_is_located(tmp_path):
    table = tmp_path / "runs.csv"
    table.write_text(HEADER + "\n" + "\n".join([
        "v6.0,A,s,b,result_0.txt,1778000000000,1778000060000,1.0000,,,success,",
        "v6.0,A,s,b,result_1.txt,17780000x0000,1778000060000,,,,success,",
        "v6.0,A,s,b,result_2.txt,1778000060000,1778000000000,,,,success,",
        "v6.0,A,s,b,result_3.txt,1778000000000,1778000060000,2.0000,,,success,",
        "v6.0,A,s,b,result_0.txt,1778000000000,1778000060000,1.0000,,,success,",
        "v6.0,A,s,b,result_4.txt,1778000000000,1778000060000,,,,,",
        "v6.0,A,s,b,log.txt,,,,,,,",
    ]) + "\n")
    problems = Collector()
    run_tables.read_runs(table, problems)
    assert [(p.line, p.message) for p in problems.problems] == [
        (3, "run_start_ms '17780000x0000' is not a whole number of epoch milliseconds"),
        (4, "run_stop_ms 1778000000000 is not after run_start_ms 1778000060000"),
        (5, "run_minutes '2.0000' is not (run_stop_ms - run_start_ms) in minutes (1.0000)"),
        (6, "A/s/b/result_0.txt is listed twice (first at line 2)"),
        (7, "a run with a run_stop time needs its run_stop_status"),
        (8, "result_file 'log.txt' is not a run log's name (result_*.txt)"),
    ]


def test_a_result_read_in_two_tables_is_an_error():
    problems = Collector()
    first = {("A", "s", "b"): [_run(0, 1.0)]}
    second = {("A", "s", "b"): [run_tables.Run("result_0.txt", 1, 2, "success", "", "", ("other.csv", 4))]}
    run_tables.merge_runs([first, second], problems)
    assert [str(p) for p in problems.problems] == ["other.csv:4: error: the runs of A/s/b are in two tables (also t:1)"]


def test_logs_published_again_are_recognized_by_their_times():
    earlier = {("A", "old", "b"): [_run(n, 5.0 + n) for n in range(10)]}
    again = {("A", "new", "b"): [_run(n, 5.0 + n) for n in range(10)],
             ("A", "partly", "b"): [_run(n, 5.0 + n) for n in range(5)] + [_run(n + 20, 5.0) for n in range(5)],
             ("A", "fresh", "b"): [_run(n + 50, 5.0) for n in range(10)]}
    assert run_tables.carried_over(again, earlier) == {("A", "new", "b"): ("A", "old", "b")}


# --- the shipped data ---------------------------------------------------------------------------------------

def _runs_of(path, columns):
    problems = Collector()
    found = run_tables.read_runs(path, problems, columns)
    problems.raise_if_any()
    return found


def test_the_second_reading_agrees_with_the_first():
    """Runs drawn at random before the reading began, read again by a separate reader: no difference."""
    first = {(r["submitter_dir"], r["system_id"], r["benchmark"], r["result_file"]): r for r in _rows(V60 / "runs.csv")}
    second = _rows(V60 / "runs_second_reading.csv")
    assert len(second) >= 0.05 * len(first)
    for again in second:
        read = first[again["submitter_dir"], again["system_id"], again["benchmark"], again["result_file"]]
        for column in ("run_start_ms", "run_stop_ms", "run_stop_status", "samples_count_at_run_stop"):
            assert read[column] == again[column], (again["source"], column)
        # A reader that went straight to run_start (past a long configuration dump) never saw the batch size: a
        # value not seen is no disagreement, two values seen must be one.
        if read["global_batch_size"] and again["global_batch_size"]:
            assert read["global_batch_size"] == again["global_batch_size"], again["source"]
        assert read["source"] != again["source"]  # another reader


def test_every_score_computed_from_runs_is_the_olympic_mean_of_its_runs_times_its_factor():
    """Each computed score of the shipped round, the project's and the source's alike, recomputed from the run
    tables: the project's to the last digit, the source's within its 4 decimals and its factors' 6 (1e-4 min)."""
    runs = {**_runs_of(V60 / "runs.csv", run_tables.PROJECT_RUN_COLUMNS)}
    if SHARED_DATA.is_dir():
        runs.update(_runs_of(SHARED_DATA / "v6.0" / "runs_extracted.csv", run_tables.RUN_COLUMNS))
    factors = {key: float(value) for key, value in run_tables.read_scaling(V60 / "scaling.csv", Collector()).items()}
    checked = 0
    for row in _rows(V60 / "results.csv"):
        if row["score_method"] != "computed-from-logs":
            continue
        key = (row["submitter_dir"], row["system_id"], row["benchmark"])
        if key not in runs:
            assert not SHARED_DATA.is_dir(), key
            continue
        mean = run_tables.olympic_mean([run.minutes for run in runs[key]])
        if "data/rounds/v6.0/runs.csv" in row["score_source"]:
            # the result's scaling.json, or where it has none the RCP checker's factor, as the submission applies it
            factor = factors[key] if key in factors else rcp.normalization(row["benchmark"], "v6.0", runs[key]).factor
            assert row["score_minutes"] == f"{mean * factor:.4f}", key
            assert row["rcp_scaling_factor"] == (str(factors[key]) if key in factors else
                                                 "1.0" if factor == 1.0 else f"{factor:.6f}"), key
        else:
            assert float(row["score_minutes"]) == pytest.approx(mean * float(row["rcp_scaling_factor"]), abs=1e-4), key
        assert row["run_minutes"].count(";") == int(row["number_of_runs"]) - 1
        checked += 1
    ours = sum(1 for row in _rows(V60 / "results.csv") if "data/rounds/v6.0/runs.csv" in row["score_source"])
    assert ours >= 31 and checked >= (72 if SHARED_DATA.is_dir() else ours)  # the source's runs: beside the checkout


def test_the_rcp_checkers_factor_is_the_one_each_scaling_json_read_holds():
    """A result folder's scaling.json is the factor the submission checker wrote: computed here from the runs'
    batch size and samples at run_stop, it comes out the same, so a folder without one is scaled as it would be."""
    runs = _runs_of(V60 / "runs.csv", run_tables.PROJECT_RUN_COLUMNS)
    factors = run_tables.read_scaling(V60 / "scaling.csv", Collector())
    checked = 0
    for key, written in factors.items():
        if key in runs and all(run.converged for run in runs[key]):
            assert rcp.normalization(key[2], "v6.0", runs[key]).factor == pytest.approx(float(written), abs=1e-9), key
            checked += 1
    assert checked >= 3


def test_a_result_whose_logs_were_partly_read_keeps_no_score():
    read = _runs_of(V60 / "runs.csv", run_tables.PROJECT_RUN_COLUMNS)
    for row in _rows(V60 / "results.csv"):
        key = (row["submitter_dir"], row["system_id"], row["benchmark"])
        if key in read and len(read[key]) < int(row["number_of_runs"]):
            assert row["score_minutes"] == "" and row["run_minutes"] == "", key
            assert row["score_source"] == f"not computed: {len(read[key])} of the result's {row['number_of_runs']} " \
                                          "run logs were read"


def test_a_submitters_own_score_is_reproduced_from_its_runs():
    """A summary.json score whose runs were read too: the two agree within 0.1 %."""
    for row in _rows(V60 / "results.csv"):
        for difference in re.findall(r"recomputed here from [^:]+: [\d.]+ min \(([+-][\d.]+) %\)", row["notes"]):
            assert abs(float(difference)) <= 0.1, row["system_id"]


def test_v6_results_that_are_v5_1_logs_are_marked():
    carried = {(r["submitter_dir"], r["system_id"], r["benchmark"]): r["carried_over_from"]
               for r in _rows(V60 / "results.csv") if r["carried_over_from"]}
    assert carried[("Cisco", "Zeus_16xH100_SXM_80GB", "llama2_70b_lora")] == "v5.1/Cisco/hpf_n16"
    assert carried[("Krai", "PowerEdge-XE9680-MI300X-192GB_n1_v5.1", "llama2_70b_lora")] == (
        "v5.1/Krai/PowerEdge-XE9680-MI300X-192GB_n1_v5.1")
