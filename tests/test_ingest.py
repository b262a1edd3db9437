"""`site-builder ingest`: official layout in, our results schema out, scores by mlperf-logging itself."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from site_builder import runs as run_tables
from site_builder.cli import main
from site_builder.data import load_dataset
from site_builder.errors import Collector
from site_builder.hardware import load_hardware
from site_builder.ingest import ingest_results
from site_builder.rounds import CheckerDeclaration
from tests.conftest import PATIENCE, ROOT, SHARED_DATA

pytest.importorskip("mlperf_logging", reason="mlperf-logging (the ingest extra) is not installed")

RAW_SAMPLE = SHARED_DATA / "v5.1" / "raw-sample"
HARDWARE = load_hardware(ROOT / "data")
BENCHMARK = "llama2_70b_lora"  # in the training 5.1.0 rules, 10 runs per result

SYSTEM = {
    "submitter": "Acme", "division": "closed", "status": "Available cloud", "system_name": "Acme Box 8x B200",
    "number_of_nodes": "2", "accelerators_per_node": "8", "accelerator_model_name": "NVIDIA B200-SXM-180GB",
    "host_processor_model_name": "Intel Xeon 8570", "host_processors_per_node": "2", "framework": "PyTorch 25.09",
    "host_processor_core_count": "56", "hw_notes": "", "sw_notes": "",
}


def mllog_run(path: Path, minutes: float, converged: bool = True, samples: int = 3456,
              start_ms: int = 1_760_000_000_000, omit: tuple[str, ...] = ()) -> None:
    """A small llama2_70b_lora run log, in the real `:::MLLOG {...}` format, that the 5.1.0 compliance
    checker accepts; a run that does not converge never reaches the quality target and stops 'aborted'."""
    # 3456 samples is above the RCP mean for batch size 8 (3179), so no RCP normalization applies
    t = start_ms
    lines = []

    def log(key, value=None, event="POINT_IN_TIME", at=None, **metadata):
        lines.append(":::MLLOG " + json.dumps({
            "namespace": "", "time_ms": at if at is not None else t, "event_type": event, "key": key,
            "value": value, "metadata": {"file": "train.py", "lineno": 1, **metadata}}))

    log("cache_clear", True)
    log("init_start", event="INTERVAL_START")
    for key, value in [("submission_benchmark", BENCHMARK), ("submission_org", "Acme"),
                       ("submission_division", "closed"), ("submission_status", "cloud"),
                       ("submission_platform", "2xB200"), ("seed", 1), ("global_batch_size", 8),
                       ("train_samples", 3901), ("eval_samples", 173), ("opt_learning_rate_warmup_factor", 0.0),
                       ("opt_adamw_weight_decay", 0.0001), ("opt_gradient_clip_norm", 0.3),
                       ("gradient_accumulation_steps", 1), ("opt_learning_rate_training_steps", 1024),
                       ("opt_base_learning_rate", 0.0004), ("lora_rank", 16), ("lora_alpha", 32)]:
        if key not in omit:
            log(key, value)
    t += 60_000
    log("init_stop", event="INTERVAL_END")
    log("run_start", event="INTERVAL_START")
    stop = t + round(minutes * 60_000)
    log("block_start", event="INTERVAL_START", samples_count=0)
    log("block_stop", event="INTERVAL_END", at=stop - 2, samples_count=samples)
    log("eval_start", event="INTERVAL_START", at=stop - 2, samples_count=samples)
    log("eval_accuracy", 0.920 if converged else 0.950, at=stop - 1, samples_count=samples)
    log("eval_stop", event="INTERVAL_END", at=stop - 1, samples_count=samples)
    log("run_stop", event="INTERVAL_END", at=stop, samples_count=samples,
        status="success" if converged else "aborted")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(["[rank 0] starting", *lines, ""]), encoding="utf-8")


MINUTES = [10.0, 10.5, 9.5, 11.0, 10.25, 9.75, 10.75, 12.0, 9.0, 10.137]
SCORE = "10.2359"  # olympic mean of MINUTES: the eight middle runs


def make_result(repo: Path, system: str = "acme_2x8", submitter: str = "Acme", benchmark: str = BENCHMARK,
                minutes=MINUTES, not_converged=(), system_json: dict | None = SYSTEM, samples: int = 3456,
                omit: tuple[str, ...] = (), start_ms: int = 1_760_000_000_000) -> Path:
    """SUBMITTER/results/SYSTEM/BENCHMARK/result_N.txt (+ SUBMITTER/systems/SYSTEM.json) under repo."""
    folder = repo / submitter / "results" / system / benchmark
    for number, value in enumerate(minutes):
        mllog_run(folder / f"result_{number}.txt", value, converged=number not in not_converged, samples=samples,
                  omit=omit, start_ms=start_ms + number * 100_000_000)
    (repo / submitter / "systems").mkdir(parents=True, exist_ok=True)
    if system_json is not None:
        (repo / submitter / "systems" / f"{system}.json").write_text(
            json.dumps({**system_json, "submitter": submitter, "system_name": f"{submitter} {system}"}),
            encoding="utf-8")
    return folder


def olympic(values: list[float]) -> float:
    ordered = sorted(values)
    return sum(ordered[1:-1]) / (len(ordered) - 2)


def by_system(rows):
    return {(row["submitter"], row["system_id"], row["benchmark"]): row for row in rows}


def messages(report) -> list[str]:
    return [str(problem) for problem in report.problems]


# --- the real thing -------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.skipif(not RAW_SAMPLE.is_dir(), reason="../shared/data/mlperf-training is not present "
                    "(it is beside the project checkout only, not in a user's clone)")
def test_raw_sample_scores_and_systems_equal_the_published_table():
    report = ingest_results(RAW_SAMPLE, "v5.1", HARDWARE)
    assert report.problems == []
    ingested = by_system(report.rows)
    published = by_system(csv.DictReader((SHARED_DATA / "v5.1" / "results.csv").open(encoding="utf-8")))
    ours = by_system(csv.DictReader((ROOT / "data/rounds/v5.1/results.csv").open(encoding="utf-8")))
    assert {key: row["score_minutes"] for key, row in ingested.items()} == {
        ("AMD", "MI355X_EPYC_9575F_pytorch", "llama2_70b_lora"): "10.1847",
        ("University-of-Florida", "hpg.dgxb200x8.n1", "dlrm_dcnv2"): "3.3085",
    }
    for key, row in ingested.items():
        assert row["score_minutes"] == published[key]["score_minutes"]
        assert float(row["rcp_scaling_factor"]) == float(published[key]["rcp_scaling_factor"])
        # every column but the provenance ones is the same as in the shipped table (whose v5.1 source
        # has no per-run minutes: ingest reads them from the logs)
        expected = {k: v for k, v in ours[key].items()
                    if k not in ("score_source", "metadata_source", "notes", "run_minutes")}
        assert {k: row[k] for k in expected} == expected
        assert row["run_minutes"].count(";") == int(row["number_of_runs"]) - 1
        assert row["score_source"].startswith("mlperf_logging.result_summarizer ")
        assert row["notes"].startswith("per-run minutes: ") and row["notes"].count(";") >= 9
    # the AMD result carries a scaling.json; the repository is only read (the summarizer's RCP step would write)
    assert "scaling.json factor 1.0033670033670032" in ingested[("AMD", "MI355X_EPYC_9575F_pytorch",
                                                                  "llama2_70b_lora")]["notes"]
    assert not (RAW_SAMPLE / "University-of-Florida/results/hpg.dgxb200x8.n1/dlrm_dcnv2/scaling.json").exists()
    assert [row["benchmark"] for row in report.rows] == ["dlrm_dcnv2", "llama2_70b_lora"]
    # the run table: the shipped v5.1 one was made by the same command on the whole repository
    shipped_runs = {(r["submitter_dir"], r["system_id"], r["benchmark"], r["result_file"]): r
                    for r in csv.DictReader((ROOT / "data/rounds/v5.1/runs.csv").open(encoding="utf-8"))}
    runs = list(csv.DictReader(io.StringIO(report.runs_csv_text)))
    assert len(runs) == 20
    for run in runs:
        assert run == shipped_runs[run["submitter_dir"], run["system_id"], run["benchmark"], run["result_file"]]
    for key, row in ingested.items():  # the summarizer's per-run minutes, to the digit
        assert ";".join(run["run_minutes"] for run in runs if (run["submitter_dir"], run["system_id"],
                                                                run["benchmark"]) == key) == row["run_minutes"]


# --- synthetic repositories -----------------------------------------------------------------------------

def test_scores_a_synthetic_repository_by_the_official_rules(tmp_path):
    make_result(tmp_path)
    report = ingest_results(tmp_path, "v5.1", HARDWARE)
    assert messages(report) == []
    [row] = report.rows
    assert row["score_minutes"] == f"{olympic(MINUTES):.4f}" == SCORE
    assert row["number_of_runs"] == "10" and row["rcp_scaling_factor"] == "1.0"
    assert row["notes"].startswith("per-run minutes: 10.0000;10.5000;9.5000;11.0000;")
    assert (row["accelerator"], row["accelerator_vendor"], row["hosting"], row["availability"]) == (
        "B200", "NVIDIA", "cloud", "available")
    assert (row["number_of_nodes"], row["accelerators_per_node"], row["total_accelerators"]) == ("2", "8", "16")
    assert row["metadata_source"] == "system description Acme/systems/acme_2x8.json"


@pytest.mark.slow
def test_scores_equal_the_official_summarizer_run_on_the_same_repository(tmp_path):
    from mlperf_logging.result_summarizer.result_summarizer import summarize_results

    repo = tmp_path / "repo"
    make_result(repo, system="plain")
    make_result(repo, system="one_failed", not_converged={3}, minutes=[m + 1.3 for m in MINUTES])
    (make_result(repo, system="scaled", minutes=[m * 0.7 for m in MINUTES]) / "scaling.json").write_text(
        '{"scaling_factor": 1.0213}')
    ours = {row["system_name"]: row["score_minutes"] for row in ingest_results(repo, "v5.1", HARDWARE).rows}
    copy = tmp_path / "copy"  # the summarizer writes scaling.json files into what it reads
    shutil.copytree(repo, copy)
    with contextlib.redirect_stdout(io.StringIO()):
        _, _, detailed, _ = summarize_results(str(copy / "Acme"), "training", "5.1.0")
    official = {row["system"]: f"{row[f'{BENCHMARK}:time_to_train']:.4f}" for _, row in detailed.iterrows()}
    assert ours == official and len(official) == 3


def test_scaling_json_is_applied_as_the_summarizer_does(tmp_path):
    folder = make_result(tmp_path)
    (folder / "scaling.json").write_text('{"scaling_factor": 1.05}')
    [row] = ingest_results(tmp_path, "v5.1", HARDWARE).rows
    assert row["score_minutes"] == f"{olympic(MINUTES) * 1.05:.4f}" and row["rcp_scaling_factor"] == "1.05"


def test_rcp_checker_verdict_and_factor_are_reported_not_applied_without_scaling_json(tmp_path):
    make_result(tmp_path, system="fast", samples=3072)  # converges faster than the RCP mean: factor > 1
    make_result(tmp_path, system="too_fast", samples=2688)  # faster than the RCP allows: RCP fails
    report = ingest_results(tmp_path, "v5.1", HARDWARE)
    rows = by_system(report.rows)
    fast, too_fast = rows[("Acme", "fast", BENCHMARK)], rows[("Acme", "too_fast", BENCHMARK)]
    assert fast["score_minutes"] == SCORE and fast["rcp_scaling_factor"] == "1.0"  # as result_summarizer
    assert "RCP pass: RCP found" in fast["notes"] and "rcp_checker factor 1.0347" in fast["notes"]
    assert too_fast["score_minutes"] == SCORE and "RCP fail: RCP found" in too_fast["notes"]
    found = messages(report)
    assert ("Acme/results/fast/llama2_70b_lora: warning: rcp_checker gives an RCP normalization factor of "
            "1.034722 but there is no scaling.json; as in result_summarizer, the score is not scaled") in found
    assert "Acme/results/too_fast/llama2_70b_lora: warning: RCP check failed: RCP found" in found


def test_one_non_converged_run_is_dropped_by_olympic_scoring(tmp_path):
    make_result(tmp_path, not_converged={7})
    report = ingest_results(tmp_path, "v5.1", HARDWARE)
    [row] = report.rows
    # the failed run takes the slowest place: only the fastest of the other nine is dropped
    counted = sorted(m for n, m in enumerate(MINUTES) if n != 7)[1:]
    assert row["score_minutes"] == f"{sum(counted) / len(counted):.4f}"
    assert "result_7.txt not counted (" in row["notes"]
    [problem] = messages(report)
    assert problem.startswith("Acme/results/acme_2x8/llama2_70b_lora/result_7.txt: warning: run not counted: ")


def test_two_non_converged_runs_leave_the_result_unscored(tmp_path):
    make_result(tmp_path, not_converged={2, 5})
    report = ingest_results(tmp_path, "v5.1", HARDWARE)
    [row] = report.rows
    assert row["score_minutes"] == "" and row["rcp_scaling_factor"] == ""
    assert row["score_source"].startswith("not computed: 2 of 10 runs did not converge")
    assert ("Acme/results/acme_2x8/llama2_70b_lora: warning: result not scored: 2 of 10 runs did not converge"
            in "\n".join(messages(report)))


def test_missing_runs_leave_the_result_unscored_and_others_come_through(tmp_path):
    make_result(tmp_path, system="short", minutes=MINUTES[:7])
    make_result(tmp_path, system="full")
    report = ingest_results(tmp_path, "v5.1", HARDWARE)
    rows = by_system(report.rows)
    short = rows[("Acme", "short", BENCHMARK)]
    assert short["score_minutes"] == "" and short["number_of_runs"] == "7"
    assert short["score_source"] == "not computed: 7 run logs (result_*.txt), the rules require 10"
    assert rows[("Acme", "full", BENCHMARK)]["score_minutes"] == SCORE
    assert messages(report) == ["Acme/results/short/llama2_70b_lora: warning: result not scored: "
                                "7 run logs (result_*.txt), the rules require 10"]


def test_unreadable_log_leaves_the_result_unscored(tmp_path):
    folder = make_result(tmp_path)
    (folder / "result_3.txt").unlink()
    (folder / "result_3.txt").mkdir()  # cannot be read as a file
    report = ingest_results(tmp_path, "v5.1", HARDWARE)
    [row] = report.rows
    assert row["score_minutes"] == "" and row["score_source"].startswith("not computed: unreadable log result_3.txt")
    assert messages(report)[0].startswith("Acme/results/acme_2x8/llama2_70b_lora: warning: result not scored: "
                                          "unreadable log result_3.txt")


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


def _huge(path: Path) -> None:
    with path.open("wb") as handle:  # sparse: 1 GB without a newline, no disk used
        handle.truncate(1024 ** 3)


def _outside(path: Path) -> None:
    elsewhere = path.parents[6] / "elsewhere.txt"
    elsewhere.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(elsewhere)


@pytest.mark.slow
@pytest.mark.parametrize("spoil, reason", [
    (_fifo, "is not a regular file"), (_dev_zero, "is a symlink to /dev/zero, outside the repository"),
    (_huge, "is 1073741824 bytes; the limit is 67108864"), (_outside, "outside the repository")])
def test_a_fifo_dev_zero_huge_or_outside_log_is_refused_by_name_without_reading(tmp_path, spoil, reason):
    folder = make_result(tmp_path / "out" / "repo")
    spoil(folder / "result_3.txt")
    data = project(tmp_path / "p") / "data"
    # a subprocess with a timeout: before the fix, the FIFO and /dev/zero made ingest never return
    result = subprocess.run([sys.executable, "-m", "site_builder", "ingest", str(tmp_path / "out" / "repo"),
                             "--round", "v5.1", "--root", str(tmp_path / "p"), "--out", "-"],
                            capture_output=True, text=True, timeout=PATIENCE)
    assert result.returncode == 0, result.stderr
    assert ("Acme/results/acme_2x8/llama2_70b_lora: warning: result not scored: unreadable log result_3.txt"
            in result.stderr) and reason in result.stderr
    [row] = csv.DictReader(io.StringIO(result.stdout))
    assert row["score_minutes"] == "" and reason in row["score_source"]
    assert data.is_dir()


def test_a_system_description_that_is_dev_zero_is_refused(tmp_path):
    make_result(tmp_path)
    description = tmp_path / "Acme" / "systems" / "acme_2x8.json"
    description.unlink()
    description.symlink_to("/dev/zero")
    report = ingest_results(tmp_path, "v5.1", HARDWARE)
    assert ("Acme/systems/acme_2x8.json: warning: unreadable system description: acme_2x8.json is a symlink "
            "to /dev/zero, outside the repository; refusing to read it") in messages(report)


def test_a_log_without_mllog_lines_counts_as_a_failed_run(tmp_path):
    folder = make_result(tmp_path)
    (folder / "result_4.txt").write_bytes(b"\x00\xff garbage, no MLLOG line\n")
    report = ingest_results(tmp_path, "v5.1", HARDWARE)
    [row] = report.rows
    counted = sorted(m for n, m in enumerate(MINUTES) if n != 4)[1:]
    assert row["score_minutes"] == f"{sum(counted) / len(counted):.4f}"
    assert any(m.startswith("Acme/results/acme_2x8/llama2_70b_lora/result_4.txt: warning: run not counted")
               for m in messages(report))


def test_missing_system_description_is_reported_and_the_row_kept_without_score(tmp_path):
    make_result(tmp_path, system="ghost", system_json=None)
    make_result(tmp_path, system="broken", system_json=SYSTEM)
    (tmp_path / "Acme/systems/broken.json").write_text('{"submitter": "Acme",\n  "division": }')
    report = ingest_results(tmp_path, "v5.1", HARDWARE)
    rows = by_system(report.rows)
    ghost = rows[("Acme", "ghost", BENCHMARK)]
    assert ghost["score_minutes"] == "" and ghost["accelerator"] == ""
    assert ghost["score_source"] == "not computed: no system description Acme/systems/ghost.json"
    assert rows[("Acme", "broken", BENCHMARK)]["score_source"].startswith("not computed: unreadable system")
    found = messages(report)
    assert "Acme/systems/ghost.json: warning: no system description Acme/systems/ghost.json" in found
    assert any(m.startswith("Acme/systems/broken.json:2:15: warning: unreadable system description") for m in found)


def test_a_benchmark_the_rules_do_not_know_is_not_scored(tmp_path):
    make_result(tmp_path, benchmark="resnet")  # retired before the 5.1 rules
    report = ingest_results(tmp_path, "v5.1", HARDWARE)
    [row] = report.rows
    assert row["score_source"] == "not computed: benchmark 'resnet' is not in the training 5.1.0 rules"
    assert row["accelerator"] == "B200"  # the system columns still come through


def test_a_path_result_summarizer_cannot_glob_is_refused_with_a_reason(tmp_path):
    make_result(tmp_path / "copy [2]")
    [row] = ingest_results(tmp_path / "copy [2]", "v5.1", HARDWARE).rows
    assert row["score_source"] == ("not computed: the path has a glob character ([, ], * or ?), "
                                   "which result_summarizer cannot read")


def test_rows_are_sorted_and_output_is_deterministic(tmp_path):
    make_result(tmp_path, submitter="Zed", system="z1")
    make_result(tmp_path, submitter="Acme", system="b2")
    make_result(tmp_path, submitter="Acme", system="a1", benchmark="resnet")
    calls = []
    first = ingest_results(tmp_path, "v5.1", HARDWARE, progress=lambda *args: calls.append(args))
    assert calls == [(0, 3, ""), (1, 3, "Acme/results/a1/resnet"), (2, 3, f"Acme/results/b2/{BENCHMARK}"),
                     (3, 3, f"Zed/results/z1/{BENCHMARK}")]
    assert [(r["benchmark"], r["submitter"], r["system_id"]) for r in first.rows] == [
        (BENCHMARK, "Acme", "b2"), (BENCHMARK, "Zed", "z1"), ("resnet", "Acme", "a1")]
    assert ingest_results(tmp_path, "v5.1", HARDWARE).csv_text == first.csv_text


def test_written_csv_loads_through_the_data_schema(tmp_path):
    repo = tmp_path / "repo"
    make_result(repo, system="full")
    make_result(repo, system="short", minutes=MINUTES[:5])
    data = tmp_path / "data"
    (data / "rounds/v5.1").mkdir(parents=True)
    catalog = (ROOT / "data/benchmarks.csv").read_text(encoding="utf-8")
    (data / "benchmarks.csv").write_text(catalog, encoding="utf-8")
    result = CliRunner().invoke(main, ["ingest", str(repo), "--round", "v5.1", "--root", str(project(tmp_path / "p")),
                                       "--out", str(data / "rounds/v5.1/results.csv")])
    assert result.exit_code == 0, result.output
    dataset = load_dataset(data, ["v5.1"])
    scored = dataset.results.set_index("system_id")["score_minutes"]
    assert scored["full"] == float(SCORE) and scored.isna()["short"]


def project(folder: Path) -> Path:
    """A project folder for the CLI: site.toml and the accelerator tables that name the hardware."""
    (folder / "data").mkdir(parents=True, exist_ok=True)
    (folder / "site.toml").write_text((ROOT / "site.toml").read_text(encoding="utf-8"), encoding="utf-8")
    for name in ("accelerators.csv", "vendors.csv"):
        (folder / "data" / name).write_text((ROOT / "data" / name).read_text(encoding="utf-8"), encoding="utf-8")
    return folder


# --- command line ---------------------------------------------------------------------------------------

def test_cli_default_output_summary_and_strict(tmp_path, monkeypatch):
    make_result(tmp_path / "repo", system="full")
    make_result(tmp_path / "repo", system="short", minutes=MINUTES[:3])
    project(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["ingest", "repo", "--round", "v5.1"])
    assert result.exit_code == 0, result.output
    written = Path("data/rounds/v5.1/results.csv")
    assert len(list(csv.DictReader(written.open()))) == 2
    assert "repo/Acme/results/short/llama2_70b_lora" not in result.stderr  # paths are relative to PATH
    assert "Acme/results/short/llama2_70b_lora: warning: result not scored: 3 run logs" in result.stderr
    assert f"wrote {written}: 2 results, 1 scored, 1 not scored, 1 warning" in result.stderr
    strict = CliRunner().invoke(main, ["ingest", "repo", "--round", "v5.1", "--out", "-", "--strict"])
    assert strict.exit_code == 1 and "1 result not scored (--strict)" in strict.stderr
    assert list(csv.DictReader(io.StringIO(strict.stdout)))[0]["system_id"] == "full"


def test_cli_errors_name_the_problem_without_traceback(tmp_path, monkeypatch):
    monkeypatch.chdir(project(tmp_path / "p"))
    (tmp_path / "empty").mkdir()
    nothing = CliRunner().invoke(main, ["ingest", str(tmp_path / "empty"), "--round", "v5.1", "--out", "-"])
    assert nothing.exit_code == 1 and "error: no results found" in nothing.stderr
    assert nothing.stdout == ""
    make_result(tmp_path / "repo")
    unknown = CliRunner().invoke(main, ["ingest", str(tmp_path / "repo"), "--round", "v99.1"])
    assert unknown.exit_code == 1 and "mlperf-logging 4.1.68 has no training rules 99.1.0" in unknown.stderr
    explicit = CliRunner().invoke(main, ["ingest", str(tmp_path / "repo"), "--round", "v99.1", "--ruleset", "5.1.0",
                                         "--out", "-"])
    assert explicit.exit_code == 0 and "v99.1,closed," in explicit.stdout
    assert isinstance(unknown.exception, SystemExit)


@pytest.mark.parametrize("name", ["next", "../../x", "v5.1/../../x", "5.1"])
def test_a_round_that_is_not_v_and_two_numbers_is_refused_before_reading(tmp_path, monkeypatch, name):
    monkeypatch.chdir(project(tmp_path / "p"))
    make_result(tmp_path / "repo")
    result = CliRunner().invoke(main, ["ingest", str(tmp_path / "repo"), "--round", name])
    assert result.exit_code == 1
    assert f"error: --round {name!r} is not 'v' and two numbers, as in site.toml (like v2.3)" in result.stderr
    assert "nothing was read" in result.stderr and not (tmp_path / "x").exists()
    assert sorted(p.name for p in (tmp_path / "p").rglob("*")) == ["accelerators.csv", "data", "site.toml",
                                                                  "vendors.csv"]


def _as_fifo(path: Path) -> None:
    os.mkfifo(path)


def _as_folder(path: Path) -> None:
    path.mkdir()


def _as_symlink_to_dev_null(path: Path) -> None:
    path.symlink_to("/dev/null")


def _as_symlink_inside(path: Path) -> None:
    (path.parent / "real.csv").write_text("kept\n")
    path.symlink_to("real.csv")


@pytest.mark.parametrize("make, kind", [(_as_fifo, "a device, FIFO or socket"), (_as_folder, "a folder"),
                                        (_as_symlink_to_dev_null, "a symlink"), (_as_symlink_inside, "a symlink")])
def test_out_that_is_not_a_regular_file_is_refused_and_left_alone(tmp_path, monkeypatch, make, kind):
    monkeypatch.chdir(project(tmp_path / "p"))
    make_result(tmp_path / "repo")
    target = tmp_path / "p" / "data" / "rounds" / "v5.1" / "results.csv"
    target.parent.mkdir(parents=True)
    make(target)
    before = os.lstat(target)
    result = CliRunner().invoke(main, ["ingest", str(tmp_path / "repo"), "--round", "v5.1"])  # the default --out
    assert result.exit_code == 1
    assert f"{target.relative_to(tmp_path / 'p')}: error: --out is {kind}, not a regular file; refusing to " \
           f"replace it" in result.stderr
    after = os.lstat(target)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert sorted(p.name for p in target.parent.iterdir()) == sorted(["results.csv"] + (
        ["real.csv"] if make is _as_symlink_inside else []))


def test_out_replaces_a_regular_file_atomically_and_dash_is_stdout(tmp_path, monkeypatch):
    monkeypatch.chdir(project(tmp_path / "p"))
    make_result(tmp_path / "repo")
    target = tmp_path / "p" / "old.csv"
    target.write_text("old\n")
    result = CliRunner().invoke(main, ["ingest", str(tmp_path / "repo"), "--round", "v5.1", "--out", "old.csv"])
    assert result.exit_code == 0, result.stderr
    assert target.read_text().startswith("round,") and oct(target.stat().st_mode & 0o777) != oct(0o600)
    assert not [p for p in target.parent.iterdir() if p.name.startswith(".old.csv")]  # no temporary left
    dash = CliRunner().invoke(main, ["ingest", str(tmp_path / "repo"), "--round", "v5.1", "--out", "-"])
    assert dash.exit_code == 0 and dash.stdout.startswith("round,")


def test_missing_mlperf_logging_says_how_to_install_it(tmp_path, monkeypatch):
    make_result(tmp_path)
    for name in [m for m in sys.modules if m == "mlperf_logging" or m.startswith("mlperf_logging.")]:
        monkeypatch.setitem(sys.modules, name, None)  # import now raises ImportError
    monkeypatch.setitem(sys.modules, "mlperf_logging", None)
    monkeypatch.chdir(project(tmp_path / "p"))
    result = CliRunner().invoke(main, ["ingest", str(tmp_path), "--round", "v5.1", "--out", "-"])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "error: the ingest command needs MLCommons' mlperf-logging, which is not installed" in result.stderr
    assert "pip install 'site-builder[ingest]'" in result.stderr and "Traceback" not in result.output


def test_ingested_rows_carry_their_method_precision_and_runs(tmp_path):
    make_result(tmp_path, system="full")
    make_result(tmp_path, system="short", minutes=MINUTES[:3])
    rows = {row["system_id"]: row for row in ingest_results(tmp_path, "v5.1", HARDWARE).rows}
    assert (rows["full"]["score_method"], rows["full"]["score_decimals"]) == ("official-summarizer", "4")
    assert rows["full"]["run_minutes"].count(";") == len(MINUTES) - 1 and rows["full"]["submitter_dir"]
    assert (rows["short"]["score_method"], rows["short"]["score_decimals"]) == ("not-computed", "")


# --- speed: the same table, read faster ------------------------------------------------------------------

TOKEN = ":::MLLOG "


@given(st.lists(st.sampled_from([TOKEN, ":::MLLOG", "MLLOG ", ":", " ", "x", "{\"key\": 1}", "é", "\r", "\t", "\x85"]),
                max_size=12), st.booleans())
def test_the_linear_strip_equals_the_regex_mlperf_logging_uses(pieces, newline):
    from site_builder.ingest import _LinearStrip

    line = "".join(pieces) + ("\n" if newline else "")
    assert _LinearStrip(TOKEN).sub(".*" + TOKEN, TOKEN, line) == re.sub(".*" + TOKEN, TOKEN, line)


def test_a_newline_inside_or_another_pattern_goes_to_re_itself():
    from site_builder.ingest import _LinearStrip

    strip = _LinearStrip(TOKEN)
    inside = f"a{TOKEN}1\nb{TOKEN}2\n"
    assert strip.sub(".*" + TOKEN, TOKEN, inside) == re.sub(".*" + TOKEN, TOKEN, inside) == f"{TOKEN}1\n{TOKEN}2\n"
    assert strip.sub("a+", "b", "caab") == "cbb" and strip.escape is re.escape


def test_the_table_is_the_same_whatever_the_jobs_and_the_stand_ins_are_removed_afterwards(tmp_path):
    from mlperf_logging.compliance_checker import mlp_compliance, mlp_parser
    from mlperf_logging.rcp_checker import rcp_checker

    before = (mlp_parser.parse_file, mlp_compliance.yaml, rcp_checker.re)
    for number in range(9):  # more than parallel.FEW, so two jobs do fork
        make_result(tmp_path, system=f"box{number}", minutes=MINUTES if number != 4 else MINUTES[:3],
                    not_converged=(2,) if number == 6 else ())
    one = ingest_results(tmp_path, "v5.1", HARDWARE, jobs=1)
    two = ingest_results(tmp_path, "v5.1", HARDWARE, jobs=2)
    assert two.csv_text == one.csv_text and messages(two) == messages(one)
    assert sum(1 for row in one.rows if row["score_minutes"]) == 8
    assert (mlp_parser.parse_file, mlp_compliance.yaml, rcp_checker.re) == before


def test_outside_a_terminal_ingest_says_how_far_it_is(tmp_path, monkeypatch):
    make_result(tmp_path / "repo", system="full")
    project(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["ingest", "repo", "--round", "v5.1", "--out", "-", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert re.search(r"scored 0 of 1 results \(0%\) in \d+ s\n", result.stderr)  # any speed: no clock assumed
    assert "scored 1 of 1 results (100%) in" in result.stderr and "last: Acme/results/full/llama2_70b_lora" in result.stderr
    assert re.search(r"1 scored, 0 not scored, 0 warnings in \d+ s \(", result.stderr)


@pytest.mark.parametrize("status, availability, hosting", [
    ("onprem", "available", "on-premise"), ("Cloud", "available", "cloud"), ("available", "available", ""),
    ("research", "rdi", ""), ("Available cloud", "available", "cloud"), ("Available in cloud", "available", "cloud"),
    ("available on premise", "available", "on-premise")])
def test_status_values_of_rules_before_4_1_are_understood(tmp_path, status, availability, hosting):
    make_result(tmp_path, system_json={**SYSTEM, "status": status})
    report = ingest_results(tmp_path, "v5.1", HARDWARE)
    [row] = report.rows
    assert (row["availability"], row["hosting"]) == (availability, hosting)
    assert not [p for p in messages(report) if "status" in p]


def test_a_count_written_as_a_whole_float_is_read_and_a_fraction_is_not(tmp_path):
    make_result(tmp_path, system="whole", system_json={**SYSTEM, "number_of_nodes": 1.0})
    make_result(tmp_path, system="half", system_json={**SYSTEM, "number_of_nodes": "1.5"})
    rows = {row["system_id"]: row for row in ingest_results(tmp_path, "v5.1", HARDWARE).rows}
    assert (rows["whole"]["number_of_nodes"], rows["whole"]["total_accelerators"]) == ("1", "8")
    assert rows["half"]["score_source"].startswith("not computed: system description Acme/systems/half.json has no integer")


def test_a_round_is_scored_by_the_checker_it_was_reviewed_with(tmp_path):
    """A finding the round's own release reported as a warning (round.toml [checker]) counts as one; any other
    finding still fails the run, and the score says which release's rules scored it."""
    make_result(tmp_path, omit=("lora_alpha",))
    make_result(tmp_path, system="other_2x8", omit=("lora_alpha", "lora_rank"))
    today = by_system(ingest_results(tmp_path, "v5.1", HARDWARE).rows)
    assert {row["score_minutes"] for row in today.values()} == {""}
    released = CheckerDeclaration(release="mlcommons/logging 5.1.0-rc9",
                                  warnings=("Required EXACTLY_ONE occurrence of 'lora_alpha'",),
                                  note="the release did not require lora_alpha")
    rows = by_system(ingest_results(tmp_path, "v5.1", HARDWARE, checker=released).rows)
    row = rows[("Acme", "acme_2x8", BENCHMARK)]
    assert row["score_minutes"] == SCORE
    assert "training rules 5.1.0 as released in mlcommons/logging 5.1.0-rc9" in row["score_source"]
    assert row["notes"].endswith("compliance as in mlcommons/logging 5.1.0-rc9: the release did not require lora_alpha")
    assert rows[("Acme", "other_2x8", BENCHMARK)]["score_minutes"] == ""  # lora_rank is still required


def test_logs_published_again_are_marked_carried_over(tmp_path):
    """The runs table of an earlier round: a result whose every run is one of its runs is carried over; one run
    of its own makes it a new result."""
    earlier_repo, later_repo = tmp_path / "earlier", tmp_path / "later"
    make_result(earlier_repo)
    first = ingest_results(earlier_repo, "v5.1", HARDWARE)
    table = tmp_path / "runs.csv"
    table.write_text(first.runs_csv_text, encoding="utf-8")
    found = Collector()
    earlier = {("v5.0", *key): runs for key, runs in run_tables.read_runs(
        table, found, run_tables.PROJECT_RUN_COLUMNS).items()}
    assert not found.problems and len(first.runs_csv_text.splitlines()) == 11
    make_result(later_repo, system="acme_2x8")  # the same logs
    make_result(later_repo, system="fresh_2x8", start_ms=1_770_000_000_000)  # new runs
    rows = by_system(ingest_results(later_repo, "v5.1", HARDWARE, earlier=earlier).rows)
    assert rows[("Acme", "acme_2x8", BENCHMARK)]["carried_over_from"] == "v5.0/Acme/acme_2x8"
    assert rows[("Acme", "fresh_2x8", BENCHMARK)]["carried_over_from"] == ""
