"""Time `site-builder ingest` against MLCommons' own result_summarizer on one results repository, in one run.

    python benchmarks/ingest.py REPOSITORY --round v5.1 [--jobs 2] [--repeat 1] [--work DIR]
    python benchmarks/ingest.py --snapshot GIT_DIR --round v5.1     # a bare clone or mirror: its HEAD is
                                                                     # written out first (see snapshot.py)

Cases, repeated `--repeat` times and interleaved: the official summarizer, as its README runs it
(`python -m mlperf_logging.result_summarizer SUBMITTER_FOLDER training X.Y.0`, once per submitter folder, one
after the other, each a fresh process: the summarizer scores one submission package at a time), and
`site-builder ingest REPOSITORY --round vX.Y --jobs N`, as a user runs it. The summarizer writes scaling.json
files into what it reads, so it runs on a copy (made before the clock starts). Each case's wall time and
the CPU time of its processes (os.wait4 over the children) are recorded; the table gives medians and the
ratio the target is stated in (ingest at most 0.25x the summarizer's time). Ingest's table is written to
WORK and its row count checked against the repository's result folders.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import snapshot  # the writer of a bare repository's tree, beside this script

ROOT = Path(__file__).resolve().parent.parent
TARGET = 0.25


def timed(command: list[str], cwd: Path, log: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children) of one command; fails loudly on error."""
    started = time.monotonic()
    with log.open("ab") as out:
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=out)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed ({os.waitstatus_to_exitcode(status)}): {' '.join(command)}; see {log}")
    return wall, usage.ru_utime + usage.ru_stime


def organizations(repo: Path) -> list[Path]:
    return [folder for folder in sorted(repo.iterdir())
            if (folder / "systems").is_dir() and (folder / "results").is_dir()]


def summarizer(repo: Path, ruleset: str, log: Path) -> tuple[float, float]:
    wall = cpu = 0.0
    for org in organizations(repo):
        # the summarizer exits 0 on a package with failed results too; each folder is its own run, as published
        w, c = timed([sys.executable, "-m", "mlperf_logging.result_summarizer", str(org), "training", ruleset],
                     repo, log)
        wall, cpu = wall + w, cpu + c
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repository", nargs="?", type=Path, help="a results repository's folder")
    parser.add_argument("--snapshot", type=Path, help="a bare git repository whose HEAD is written out first")
    parser.add_argument("--round", required=True, help="the round, vX.Y (rules X.Y.0)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--work", type=Path, default=None, help="where copies, tables and logs go")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="sb-ingest-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    repo = args.repository
    if args.snapshot:
        repo = work / "repository"
        if not repo.is_dir():
            missing = snapshot.write_tree(args.snapshot, repo)
            print(f"wrote {args.snapshot}'s HEAD to {repo}; {len(missing)} file(s) missing from the snapshot")
    if repo is None:
        parser.error("give a REPOSITORY or --snapshot")
    repo = repo.resolve()
    ruleset = f"{args.round.lstrip('v')}.0"
    copy = work / "summarizer-copy"
    log = work / "log.txt"
    results = {"summarizer": [], "ingest": []}
    for repetition in range(args.repeat):
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(repo, copy, symlinks=True)
        cases = [("summarizer", lambda: summarizer(copy, ruleset, log)),
                 ("ingest", lambda: timed([sys.executable, "-m", "site_builder", "ingest", str(repo), "--round",
                                           args.round, "--jobs", str(args.jobs), "--root", str(ROOT),
                                           "--out", str(work / "ingested.csv")], ROOT, log))]
        for name, case in cases[repetition % 2:] + cases[:repetition % 2]:  # rotated: load bursts spread out
            results[name].append(case())
            print(f"{name}: {results[name][-1][0]:.1f} s wall, {results[name][-1][1]:.1f} s CPU", flush=True)
    folders = sum(1 for org in organizations(repo) for system in (org / "results").iterdir() if system.is_dir()
                  for bench in system.iterdir() if bench.is_dir())
    rows = sum(1 for _ in (work / "ingested.csv").open()) - 1
    if rows != folders:
        raise SystemExit(f"ingest wrote {rows} rows for {folders} result folders")
    summary = {name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
               for name, runs in results.items()}
    ratio = summary["ingest"][0] / summary["summarizer"][0]
    print(f"\n### `python benchmarks/ingest.py` on {args.round} ({rows} results, {os.cpu_count()} CPUs, "
          f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, median of {args.repeat})\n")
    print("| case | wall | CPU |\n|---|---:|---:|")
    print(f"| result_summarizer, each submitter folder in turn | {summary['summarizer'][0]:.1f} s | "
          f"{summary['summarizer'][1]:.1f} s |")
    print(f"| site-builder ingest --jobs {args.jobs} | {summary['ingest'][0]:.1f} s | {summary['ingest'][1]:.1f} s |")
    print(f"\ningest / summarizer: **{ratio:.2f}x** (target <= {TARGET}x: {'met' if ratio <= TARGET else 'NOT met'})")


if __name__ == "__main__":
    main()
