"""Time the shipped site with every round (`archive = true`) against the same site with its round and the one it
is compared with only (`archive = false`), side by side, in one run.

    python benchmarks/archive.py [--repeat 1] [--jobs 2] [--work DIR] [--keep] [--no-serve]

Two copies of the shipped project (site.toml, content/, data/ and the project's own templates/, locales/ and
charts/ where it has them) are written to WORK, differing only in site.toml's `archive` key. Each gets its own
render cache (SITE_BUILDER_CACHE, and XDG_CACHE_HOME so nothing lands in the user's ~/.cache) and output folder.
Cases, per copy: a cold build (empty cache, no output), a rebuild with nothing changed, a rebuild after
appending a sentence to one article (restored afterwards), and, unless --no-serve, `site-builder serve` started
on that warm cache: the seconds its log gives for the builds after a first and a second edit. Each build is a
child process (`benchmarks/run.py`'s `measure`: wall time, the peak resident size of its largest process from
os.wait4's resource usage, and its process tree's sampled peak PSS); `build --report` gives the pages and
files written. Each repetition runs both copies, in an order that alternates, so a burst of load on the shared
machine does not fall on one copy only; the table gives medians and the ratio archive / single round per case.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import queue
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench_run  # measure() and project_env(), beside this script

ROOT = Path(__file__).resolve().parent.parent
PROJECT_PARTS = ("site.toml", "content", "data", "templates", "locales", "charts")
VARIANTS = {"single round": False, "archive": True}  # label -> the value of site.toml's `archive`
CASES = ("cold build", "no-op rebuild", "one-article edit", "serve: first edit", "serve: second edit")


@dataclass
class Run:
    seconds: float
    pages: int | None = None
    files: int | None = None
    written: int | None = None
    max_rss_mb: float | None = None
    tree_pss_mb: float | None = None


@dataclass
class Variant:
    name: str
    site: Path
    cache: Path
    out: Path
    runs: dict[str, list[Run]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def env(self) -> dict:
        return dict(bench_run.project_env(self.cache), XDG_CACHE_HOME=str(self.cache.parent / f"xdg-{self.cache.name}"))


def with_archive(site_toml: str, archive: bool) -> str:
    """site.toml with its top-level `archive` key set (replaced where it is written, else added first)."""
    line = f"archive = {'true' if archive else 'false'}"
    if re.search(r"(?m)^archive\s*=", site_toml):
        return re.sub(r"(?m)^archive\s*=.*$", line, site_toml, count=1)
    return f"{line}  # set by benchmarks/archive.py\n{site_toml}"


def copy_project(dest: Path, archive: bool) -> Path:
    """The shipped project's inputs, copied to `dest` with `archive` set."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for part in PROJECT_PARTS:
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, dest / part)
        elif source.is_file():
            shutil.copy2(source, dest / part)
    toml = dest / "site.toml"
    toml.write_text(with_archive(toml.read_text(encoding="utf-8"), archive), encoding="utf-8")
    return dest


def site_rounds(site: Path) -> list[str]:
    """The rounds a copy has a section for, as its config says (in a child: this checkout's site_builder)."""
    code = ("import json, sys; from pathlib import Path; from site_builder.config import load_config; "
            "c = load_config(Path(sys.argv[1])); print(json.dumps(getattr(c, 'site_rounds', c.rounds)))")
    done = subprocess.run([sys.executable, "-c", code, str(site)], env=bench_run.project_env(), capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


def build(variant: Variant, jobs: int) -> Run:
    report = variant.cache.parent / f"report-{variant.cache.name}.json"
    report.unlink(missing_ok=True)
    command = [sys.executable, "-m", "site_builder", "build", "--root", str(variant.site), "--out", str(variant.out),
               "--jobs", str(jobs), "--report", str(report)]
    sample = bench_run.measure(command, variant.env())
    data = json.loads(report.read_text(encoding="utf-8"))
    return Run(sample.seconds, data.get("pages"), data.get("files"), data.get("files_written"), sample.max_rss_mb,
               sample.tree_pss_mb or None)  # None: the build ended before the first 0.2 s sample


def edited_article(site: Path) -> Path:
    return min((site / "content").rglob("*.md"))  # the same article in both copies


def serve_edits(variant: Variant, repetition: int) -> list[Run]:
    """`site-builder serve` on the variant's warm cache: the build seconds its log gives after two edits."""
    command = [sys.executable, "-m", "site_builder", "serve", "--root", str(variant.site), "--port", "0"]
    process = subprocess.Popen(command, env=variant.env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, encoding="utf-8")
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stderr], daemon=True).start()
    article = edited_article(variant.site)
    original = article.read_text(encoding="utf-8")

    def built() -> float:
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline:
            with contextlib.suppress(queue.Empty):
                line = lines.get(timeout=1)
                if found := re.match(r"built: .* in ([\d.]+) s", line):
                    return float(found.group(1))
                if line.startswith("build failed"):
                    raise RuntimeError(line.strip())
            if process.poll() is not None and lines.empty():
                raise RuntimeError(f"serve exited {process.returncode}")
        raise RuntimeError("serve printed no build in 900 s")

    try:
        built()  # the first build, before serving
        runs = []
        for number in (1, 2):
            time.sleep(1)  # past the watcher's debounce
            article.write_text(original + f"\nA sentence written under serve, edit {number}, repetition "
                               f"{repetition}.\n", encoding="utf-8")
            runs.append(Run(built()))
        return runs
    finally:
        article.write_text(original, encoding="utf-8")
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(60)


def run_variant(variant: Variant, jobs: int, repetition: int, serve: bool) -> None:
    """The variant's cases, in order; a failure is recorded (and shown in the table) and ends its repetition."""
    def record(case: str, one: Run) -> None:
        variant.runs.setdefault(case, []).append(one)
        print(f"  {variant.name}: {case}: {one.seconds:.2f} s", file=sys.stderr)

    shutil.rmtree(variant.cache, ignore_errors=True)
    shutil.rmtree(variant.out, ignore_errors=True)
    variant.cache.mkdir(parents=True)
    article = edited_article(variant.site)
    original = article.read_text(encoding="utf-8")
    case = "cold build"
    try:
        record(case, build(variant, jobs))
        case = "no-op rebuild"
        record(case, build(variant, jobs))
        case = "one-article edit"
        article.write_text(original + f"\nOne more sentence, written in repetition {repetition}.\n", encoding="utf-8")
        record(case, build(variant, jobs))
        article.write_text(original, encoding="utf-8")
        if serve:
            case = "serve: first edit"
            first, second = serve_edits(variant, repetition)
            record(case, first)
            record("serve: second edit", second)
    except (RuntimeError, OSError, ValueError, subprocess.SubprocessError) as error:
        variant.errors.setdefault(case, str(error)[:300])
        print(f"  {variant.name}: {case}: FAILED: {error}", file=sys.stderr)
    finally:
        article.write_text(original, encoding="utf-8")


def report(variants: list[Variant], header: list[str]) -> str:
    single, archive = variants

    def median(variant: Variant, case: str, attribute: str = "seconds") -> float | None:
        values = [getattr(r, attribute) for r in variant.runs.get(case, []) if getattr(r, attribute) is not None]
        return statistics.median(values) if values else None

    def both(case: str, attribute: str, form: str) -> str:
        values = [median(v, case, attribute) for v in variants]
        return " / ".join("-" if value is None else form.format(value) for value in values)

    lines = [*header, "",
             "| case | single round s | archive s | archive / single | pages | files (written) | max RSS MB "
             "(largest process) | tree PSS MB (sampled) | runs |",
             "|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for case in CASES:
        if not any(case in v.runs or case in v.errors for v in variants):
            continue
        failed = [f"{v.name}: {v.errors[case]}" for v in variants if case in v.errors]
        if failed:
            lines.append(f"| {case} | failed: {'; '.join(failed)} | | | | | | | |")
            continue
        a, b = median(single, case), median(archive, case)
        ratio = f"{b / a:.2f} x" if a and b else "-"
        files = " / ".join("-" if median(v, case, "files") is None else
                           f"{median(v, case, 'files'):,.0f} ({median(v, case, 'written'):,.0f})" for v in variants)
        runs = " / ".join(str(len(v.runs.get(case, []))) for v in variants)
        seconds = " | ".join("-" if x is None else f"{x:.2f}" for x in (a, b))
        lines.append(f"| {case} | {seconds} | {ratio} | {both(case, 'pages', '{:,.0f}')} | {files} "
                     f"| {both(case, 'max_rss_mb', '{:.0f}')} | {both(case, 'tree_pss_mb', '{:.0f}')} | {runs} |")
    lines.append("")
    lines.append("Pairs are single round / archive; seconds and counts are medians over the runs.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="repetitions, alternating the copies (medians reported)")
    parser.add_argument("--jobs", type=int, default=2, help="`build --jobs` (serve uses its own default)")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "site-builder-bench",
                        help="folder for the copies, caches and outputs (its archive/ subfolder is replaced)")
    parser.add_argument("--keep", action="store_true", help="keep WORK/archive/ (copies, caches, sites) afterwards")
    parser.add_argument("--no-serve", action="store_true", help="skip the edits under `site-builder serve`")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.jobs < 1:
        parser.error("--repeat and --jobs must be at least 1")
    work = args.work.resolve() / "archive"
    if work == ROOT or ROOT in work.parents:
        parser.error("--work must be outside the repository (generated sites are never committed)")
    shutil.rmtree(work, ignore_errors=True)
    variants = [Variant(name, copy_project(work / f"site-{index}", flag), work / f"cache-{index}",
                        work / f"out-{index}") for index, (name, flag) in enumerate(VARIANTS.items())]
    rounds = [site_rounds(v.site) for v in variants]
    results = sum(max(0, len(p.read_text(encoding="utf-8").splitlines()) - 1)
                  for p in (ROOT / "data" / "rounds").glob("*/results.csv"))
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip() or "unknown"
    load_before, start = bench_run.load_average(), dt.datetime.now().astimezone()
    started = time.perf_counter()
    try:
        for repetition in range(args.repeat):
            order = variants if repetition % 2 == 0 else variants[::-1]
            print(f"repetition {repetition + 1}/{args.repeat}: {', '.join(v.name for v in order)}", file=sys.stderr)
            for variant in order:
                run_variant(variant, args.jobs, repetition, not args.no_serve)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    header = [
        f"date: {start:%Y-%m-%d %H:%M %Z}; commit {commit}; machine: {os.cpu_count()} cores, {platform.machine()}, "
        f"Python {platform.python_version()}; build --jobs {args.jobs}; {args.repeat} repetition(s)",
        f"site: the shipped project ({results:,} result rows in data/rounds/); sections: single round "
        f"{len(rounds[0])} ({', '.join(rounds[0])}), archive {len(rounds[1])} ({', '.join(rounds[1])})",
        f"load average (1, 5, 15 min) before: {load_before}, after: {bench_run.load_average()}; "
        f"total {time.perf_counter() - started:.0f} s",
    ]
    print(report(variants, header))


if __name__ == "__main__":
    main()
