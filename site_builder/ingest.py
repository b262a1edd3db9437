"""Ingest a results repository in the official MLCommons training layout into our results schema.

Layout read (as in mlcommons/training_results_vX.Y):
    SUBMITTER/systems/SYSTEM.json
    SUBMITTER/results/SYSTEM/BENCHMARK/result_*.txt   (one MLLOG run log each)
    SUBMITTER/results/SYSTEM/BENCHMARK/scaling.json   (optional RCP normalization set in review)

Scores are computed by MLCommons' own `mlperf-logging`, never by rules re-implemented here:
`result_summarizer` gives each run's time (after the compliance checker accepts its log), the olympic
mean with its allowance for non-converged runs, and the scaling.json factor; `rcp_checker` gives the
RCP verdict. The repository is only read: the summarizer's own RCP step would write scaling.json
files, so it is called with set_scaling=False.

Each run's start, stop, status, samples and batch size are also kept, as a run table (site_builder/runs.py),
read with the summarizer's own parser and its choice of lines (the last run_start before the first run_stop):
a later round's results are compared with them to recognize logs published again.

System columns are normalized with derive.py's tables (accelerator type, vendor, hosting), so ingested
and derived rounds group the same way.
"""

from __future__ import annotations

import contextlib
import copy
import csv
import glob
import io
import json
import logging
import math
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from site_builder import parallel, rcp
from site_builder.derive import COLUMNS, HOSTING
from site_builder import runs as run_tables
from site_builder.runs import PROJECT_RUN_COLUMNS
from site_builder.errors import Collector, Problem, SiteError
from site_builder.hardware import Hardware
from site_builder.rounds import CheckerDeclaration

USAGE = "training"
# A run log is a few MB (the largest published ones under 20 MB); one over this is refused, not read.
LOG_LIMIT = 64 * 1024 * 1024
SMALL_LIMIT = 1024 * 1024  # a system description or scaling.json
INSTALL_HINT = "pip install 'site-builder[ingest]'"

# The system description's `status` (values allowed by mlperf_logging.system_desc_checker) -> our category.
AVAILABILITY = {
    "Available on-premise": "available",
    "Available cloud": "available",
    "Preview": "preview",
    "Research, Development, or Internal (RDI)": "rdi",
}
# Division as a few early descriptions spell it (the rules' two divisions are "closed" and "open").
DIVISION_SPELLING = {"close": "closed"}
# Before the 4.1 rules the checker took any status: submitters wrote the values of mlperf_logging.mllog.constants
# ("onprem", "cloud", "research") or the category in their own spelling ("Available in cloud"). Compared by letters
# only, lower case -> (availability, hosting).
OLDER_STATUS = {"onprem": ("available", "on-premise"), "availableonpremise": ("available", "on-premise"),
                "availableonprem": ("available", "on-premise"), "cloud": ("available", "cloud"),
                "availablecloud": ("available", "cloud"), "availableincloud": ("available", "cloud"),
                "available": ("available", ""), "preview": ("preview", ""), "research": ("rdi", ""),
                "rdi": ("rdi", "")}


@dataclass
class Ingested:
    """The round's results table as CSV text, and what went wrong on the way (warnings, with paths)."""

    csv_text: str
    rows: list[dict[str, str]]
    problems: list[Problem] = field(default_factory=list)
    tool: str = ""
    runs_csv_text: str = ""  # the run table: one row per run log (site_builder/runs.py)

    @property
    def failed(self) -> list[dict[str, str]]:
        return [row for row in self.rows if not row["score_minutes"]]


class _Failed(Exception):
    """One result that cannot be scored; the reason goes into score_source, what was learned into notes."""

    def __init__(self, reason: str, notes: list[str] | None = None):
        super().__init__(reason)
        self.notes = notes or []


def _tools():
    """Import mlperf-logging (an optional extra), or fail with the command that installs it."""
    try:
        from importlib.metadata import version

        from mlperf_logging.benchmark_meta import get_allowed_benchmarks, get_result_file_counts
        from mlperf_logging.compliance_checker import mlp_compliance
        from mlperf_logging.compliance_checker.mlp_parser import parse_file
        from mlperf_logging.rcp_checker import rcp_checker
        from mlperf_logging.result_summarizer import result_summarizer
    except ImportError:
        raise SiteError(Problem("the ingest command needs MLCommons' mlperf-logging, which is not installed",
                                hint=f"install it with: {INSTALL_HINT}")) from None
    return {"summarizer": result_summarizer, "rcp": rcp_checker, "compliance": mlp_compliance,
            "allowed": get_allowed_benchmarks, "counts": get_result_file_counts(USAGE), "parse": parse_file,
            "version": version("mlperf-logging")}


def _ruleset(round_name: str, ruleset: str | None, tools) -> str:
    """The rules version of a round: "vX.Y" -> "X.Y.0", unless given explicitly."""
    if ruleset is None:
        ruleset = rcp.rules_version(round_name)
    try:
        tools["allowed"](USAGE, ruleset)
    except ValueError:
        known = sorted(r for r in tools["compliance"].rule_choices() if _known_ruleset(tools, r))
        raise SiteError(Problem(f"mlperf-logging {tools['version']} has no {USAGE} rules {ruleset}",
                                hint=f"known: {', '.join(known)}; a newer mlperf-logging may know it")) from None
    return ruleset


def _known_ruleset(tools, ruleset: str) -> bool:
    try:
        tools["allowed"](USAGE, ruleset)
        return True
    except ValueError:
        return False


@contextlib.contextmanager
def _captured(messages: list[tuple[str | None, str]]):
    """Keep mlperf-logging's prints and log records off our stderr; collect them as (log file, message).

    The compliance checker logs "Running compliance on file: F" (INFO) before its findings on F, which
    is how each finding is tied to its run log.
    """
    current: list[str | None] = [None]

    class Handler(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            text = record.getMessage().strip()
            if record.msg == "Running compliance on file: %s":
                current[0] = str(record.args[0])
            elif record.levelno >= logging.WARNING and text:
                messages.append((current[0], text))

    # mlperf-logging logs through the root logger: give it only our handler for the duration
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    root.handlers, root.level = [Handler()], logging.INFO
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            yield
    finally:
        root.handlers, root.level = handlers, level
        messages.extend((None, line.strip()) for line in out.getvalue().splitlines() if line.strip())


def _why_not_counted(log: Path, messages: list[tuple[str | None, str]]) -> str:
    """The compliance checker's first finding on a run log, else result_summarizer's own message."""
    findings = [line.strip() for where, text in messages if where == str(log) for line in text.splitlines()
                if line.strip() and set(line.strip()) != {"-"}]
    if findings:
        more = len(findings) - 1
        return findings[0] + (f" (and {more} more compliance finding{'s' if more != 1 else ''})" if more else "")
    suffix = f" in {log}"
    said = [text[: -len(suffix)] for where, text in messages if where is None and text.endswith(suffix)]
    return said[0] if said else "not counted by result_summarizer"


def _refusal(path: Path, repo: Path, limit: int) -> str | None:
    """Why a file must not be read (it leaves the repository, is not a regular file or is too large), else None.

    Checked before anything opens it, mlperf-logging included: a FIFO or a symlink to /dev/zero would
    block or never end.
    """
    try:
        target = path.resolve(strict=True)
        if not target.is_relative_to(repo):
            return f"{path.name} is a symlink to {target}, outside the repository; refusing to read it"
        info = os.stat(target)
    except (OSError, RuntimeError) as error:  # RuntimeError: a symlink loop
        return f"{path.name} cannot be read: {getattr(error, 'strerror', None) or error}"
    if not stat.S_ISREG(info.st_mode):
        return f"{path.name} is not a regular file; refusing to read it"
    if info.st_size > limit:
        return f"{path.name} is {info.st_size} bytes; the limit is {limit}"
    return None


def _run_number(path: Path) -> tuple[int, str]:
    digits = re.sub(r"\D", "", path.stem)
    return (int(digits) if digits else -1, path.name)


def _format_factor(value: float) -> str:
    return repr(float(value))


def _system_columns(desc: dict, system_file: str, hardware: Hardware, problems: list[Problem]) -> dict[str, str]:
    """Our system columns from one system description; raises _Failed when a needed field is bad."""
    def text(key: str) -> str:
        value = desc.get(key, "")
        return "" if value is None else str(value).strip()

    def whole(key: str) -> int:  # "8", or 1.0 as some descriptions write a count
        number = float(text(key))
        if not number.is_integer():
            raise ValueError(key)
        return int(number)

    try:
        per_node, nodes = whole("accelerators_per_node"), whole("number_of_nodes")
    except (ValueError, OverflowError):
        raise _Failed(f"system description {system_file} has no integer accelerators_per_node and "
                      f"number_of_nodes") from None
    model = text("accelerator_model_name")
    accelerator = hardware.accelerator_type(model)
    vendor = hardware.vendor_of(accelerator) if accelerator else "other"
    if accelerator is None:
        problems.append(Problem(f"accelerator model {model!r} matches no accelerator type; the row keeps it "
                                f"as written, with vendor 'other'", system_file, severity="warning",
                                hint=f"add a row whose pattern matches it to {hardware.accelerators_file}"))
        accelerator = model
    status = text("status")
    availability, hosting = AVAILABILITY.get(status, ""), HOSTING.get(status, "")
    if status not in AVAILABILITY and re.sub("[^a-z]", "", status.lower()) in OLDER_STATUS:
        availability, hosting = OLDER_STATUS[re.sub("[^a-z]", "", status.lower())]
    elif status not in AVAILABILITY:
        problems.append(Problem(f"status {status!r} is not one of the official values "
                                f"({', '.join(AVAILABILITY)}); availability and hosting are left empty",
                                system_file, severity="warning"))
    submitter = {"submitter": text("submitter")} if text("submitter") else {}  # else the folder's name stays
    return {
        **submitter, "division": DIVISION_SPELLING.get(text("division").lower(), text("division").lower()), "availability": availability,
        "hosting": hosting, "system_name": text("system_name"),
        "accelerator": accelerator, "accelerator_vendor": vendor, "accelerator_model": model,
        "accelerators_per_node": str(per_node), "number_of_nodes": str(nodes),
        "total_accelerators": str(per_node * nodes), "host_processor": text("host_processor_model_name"),
        "framework": text("framework"), "metadata_source": f"system description {system_file}",
    }


def _system(org: Path, system: str, repo: Path, hardware: Hardware, problems: list[Problem]) -> dict[str, str] | str:
    """A system's columns, or the reason there are none (reported once per system, with its path)."""
    path = org / "systems" / f"{system}.json"
    shown = path.relative_to(repo).as_posix()
    problem = None
    if not path.is_file() and not path.is_symlink():
        problem = Problem(f"no system description {shown}", shown, severity="warning")
    elif refusal := _refusal(path, repo, SMALL_LIMIT):
        problem = Problem(f"unreadable system description: {refusal}", shown, severity="warning")
    else:
        try:
            desc = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(desc, dict):
                problem = Problem("unreadable system description: not a JSON object", shown, severity="warning")
        except json.JSONDecodeError as error:
            problem = Problem(f"unreadable system description: {error.msg}", shown, error.lineno, error.colno,
                              severity="warning")
        except (OSError, UnicodeDecodeError) as error:
            problem = Problem(f"unreadable system description: {error}", shown, severity="warning")
    if problem is None:
        try:
            return _system_columns(desc, shown, hardware, problems)
        except _Failed as failure:
            problem = Problem(str(failure), shown, severity="warning")
    problems.append(problem)
    return problem.message


def _score(folder: Path, benchmark: str, system: str, submitter: str, division: str, ruleset: str,
           tools, shown: str, problems: list[Problem], repo: Path) -> dict[str, str]:
    """Score one result directory with the official tools; raises _Failed with the reason."""
    summarizer = tools["summarizer"]
    if benchmark not in tools["allowed"](USAGE, ruleset):
        raise _Failed(f"benchmark {benchmark!r} is not in the {USAGE} {ruleset} rules")
    logs = sorted(folder.glob("result_*.txt"), key=_run_number)
    required = tools["counts"].get(benchmark)
    if len(logs) < (required or 1):
        raise _Failed(f"{len(logs)} run log{'s' if len(logs) != 1 else ''} (result_*.txt), "
                      f"the rules require {required}")
    for log in logs:  # before mlperf-logging opens them: it would hang on a FIFO or /dev/zero
        if refusal := _refusal(log, repo, LOG_LIMIT):
            raise _Failed(f"unreadable log {refusal}")
        try:
            with log.open("rb") as handle:
                handle.read(1)
        except OSError as error:
            raise _Failed(f"unreadable log {log.name}: {error.strerror or error}") from None
    scaling = folder / "scaling.json"  # read by result_summarizer and rcp_checker
    if (scaling.exists() or scaling.is_symlink()) and (refusal := _refusal(scaling, repo, SMALL_LIMIT)):
        raise _Failed(f"unreadable {refusal}")

    if glob.escape(str(folder)) != str(folder):  # result_summarizer globs the folder's path as written
        raise _Failed("the path has a glob character ([, ], * or ?), which result_summarizer cannot read")
    messages: list[tuple[str | None, str]] = []
    with _captured(messages):
        try:
            runs, _, score, _, factor = summarizer._compute_strong_score_standalone(
                benchmark, system, False, str(folder), USAGE, ruleset, desc={"submitter": submitter},
                return_full_scores=True)
        except Exception as error:  # the official tool itself broke on this directory
            raise _Failed(f"result_summarizer failed: {error}") from None
    minutes = {Path(name).name: value for name, value in runs.items()}
    dropped = [log for log in logs if log.name not in minutes]
    # one entry per run log, in run order, as in the published tables' notes
    notes = ["per-run minutes: " + ";".join(f"{minutes[log.name]:.4f}" if log.name in minutes else "not counted"
                                            for log in logs)]
    for log in dropped:
        reason = _why_not_counted(log, messages)
        notes.append(f"{log.name} not counted ({reason})")
        problems.append(Problem(f"run not counted: {reason}", f"{shown}/{log.name}", severity="warning"))
    if score is None:
        raise _Failed(f"{len(dropped)} of {len(logs)} runs did not converge or failed the compliance checker, "
                      f"more than the olympic mean allows", notes)
    if not math.isfinite(score) or score <= 0:
        raise _Failed(f"time to train is not positive ({score!r} minutes)", notes)

    has_scaling_json = (folder / "scaling.json").is_file()
    if has_scaling_json:
        notes.append(f"scaling.json factor {_format_factor(factor)}")
    if division == "closed":
        with _captured([]):
            try:
                passed, verdict, checker_factor = tools["rcp"].check_directory(
                    str(folder), USAGE, ruleset, False, False, rcp_file=None, rcp_pass="pruned_rcps",
                    rcp_bypass=False, set_scaling=False)
            except Exception as error:  # as result_summarizer does: the score stands without an RCP verdict
                passed, verdict, checker_factor = None, f"not checked ({error})", None
        notes.append(f"RCP {'pass' if passed else 'fail' if passed is False else 'check'}: {verdict}")
        if passed is False:
            problems.append(Problem(f"RCP check failed: {verdict}", shown, severity="warning"))
        if checker_factor is not None and abs(checker_factor - factor) > 1e-9:
            notes.append(f"rcp_checker factor {_format_factor(checker_factor)}")
            if not has_scaling_json:
                problems.append(Problem(
                    f"rcp_checker gives an RCP normalization factor of {checker_factor:.6f} but there is no "
                    f"scaling.json; as in result_summarizer, the score is not scaled", shown, severity="warning"))
    return {"score_minutes": f"{score:.4f}", "rcp_scaling_factor": _format_factor(factor),
            "score_method": "official-summarizer", "score_decimals": "4",
            "run_minutes": ";".join(f"{minutes[log.name]:.4f}" if log.name in minutes else "" for log in logs),
            "notes": "; ".join(notes)}


def _run_times(lines) -> tuple[int | None, int | None, str, str, str]:
    """(start, stop, status, samples, batch size) of a parsed log, as _query_run_start_stop reads them: the last
    run_start before the first run_stop."""
    start = stop = None
    status = samples = batch = ""
    for line in lines:
        value = line.value if isinstance(line.value, dict) else {}
        metadata = value.get("metadata") or {}
        if line.key == "global_batch_size" and not batch:
            batch = str(value.get("value", ""))
        if line.key == "run_start":
            start = int(line.timestamp)
        if line.key == "run_stop":
            stop = int(line.timestamp)
            status = str(metadata.get("status", ""))
            samples = str(metadata.get("samples_count", metadata.get("epoch_num", "")))
            break
    return start, stop, status, samples, batch


def _log_times(log: Path, ruleset: str, tools) -> tuple[int | None, int | None, str, str, str]:
    """A log's run times: what the summarizer's own parse of it gave, kept by _ParsedOnce while ingest runs (so
    that the log is not parsed again), else a parse of it."""
    from mlperf_logging.compliance_checker import mlp_parser

    parse = mlp_parser.parse_file
    try:
        if isinstance(parse, _ParsedOnce):
            return parse.times(str(log), ruleset)
        return _run_times(tools["parse"](str(log), ruleset=ruleset)[0])
    except (OSError, ValueError, UnicodeError):
        return None, None, "", "", ""


def _run_rows(folder: Path, row: dict[str, str], shared: "_Round", shown: str) -> list[dict[str, str]]:
    """One run-table row per run log of a result folder, read as result_summarizer reads a log's times."""
    rows = []
    for log in sorted(folder.glob("result_*.txt"), key=_run_number):
        start, stop, status, samples, batch = (_log_times(log, shared.ruleset, shared.tools)
                                               if _refusal(log, shared.repo, LOG_LIMIT) is None
                                               else (None, None, "", "", ""))
        minutes = f"{(stop - start) / 60 / 1000:.4f}" if start is not None and stop is not None and stop > start else ""
        rows.append({"round": row["round"], "submitter_dir": row["submitter_dir"], "system_id": row["system_id"],
                     "benchmark": row["benchmark"], "result_file": log.name,
                     "run_start_ms": "" if start is None else str(start), "run_stop_ms": "" if stop is None else str(stop),
                     "run_minutes": minutes if status == "success" else "", "samples_count_at_run_stop": samples,
                     "global_batch_size": batch, "run_stop_status": status if stop is not None else "", "notes": "",
                     "source": f"mlperf_logging {shared.tools['version']} log parser: {shown}/{log.name}"})
    return rows


def _organizations(repo: Path) -> list[Path]:
    def is_org(folder: Path) -> bool:
        return (folder / "systems").is_dir() and (folder / "results").is_dir()

    if is_org(repo):
        return [repo]
    return [folder for folder in sorted(repo.iterdir()) if folder.is_dir() and is_org(folder)]


def ingest_results(repo: Path, round_name: str, hardware: Hardware, ruleset: str | None = None,
                   progress: Callable[[int, int, str], None] | None = None, jobs: int = 1,
                   checker: CheckerDeclaration | None = None, earlier: dict | None = None) -> Ingested:
    """Read every result of an official training results repository (or one submitter's folder).

    `checker` (round.toml's [checker]) says what the round's own release of the compliance checker reported as
    warnings that today's package reports as errors: those findings count as warnings, as they did when the
    round was reviewed, and the score's source says which release's rules scored it. `earlier` (the earlier
    rounds' run tables, `runs.earlier_runs`): a result whose every run is one of theirs names it in
    `carried_over_from`, the same logs published again.

    Each result becomes one row of our schema, sorted by benchmark, submitter and system. A result
    that cannot be scored keeps its row, without a score and with the reason in score_source, and is
    reported as a warning naming its path. `hardware` (data/accelerators.csv) names the accelerators.
    Results are scored in `jobs` processes; the table is the same whatever `jobs` is.
    `progress(done, total, label)` is called once before the first result and after each one (label: the
    result just scored, in the table's order of reading).
    Raises SiteError when mlperf-logging is missing, the rules are unknown or nothing is found.
    """
    tools = _tools()
    ruleset = _ruleset(round_name, ruleset, tools)
    typed, repo = Path(repo).as_posix(), Path(repo).resolve()  # resolved: "." still has a submitter name
    orgs = _organizations(repo)
    results = [(org, system_dir, bench_dir)
               for org in orgs
               for system_dir in sorted(p for p in (org / "results").iterdir() if p.is_dir())
               for bench_dir in sorted(p for p in system_dir.iterdir() if p.is_dir())]
    if not results:
        raise SiteError(Problem("no results found: expected SUBMITTER/systems/*.json and "
                                "SUBMITTER/results/SYSTEM/BENCHMARK/result_*.txt", typed))
    rules = f"{USAGE} rules {ruleset}" + (f" as released in {checker.release}" if checker else "")
    tool = f"mlperf_logging.result_summarizer {tools['version']}, {rules} (ingested by site-builder)"
    problems: list[Problem] = []
    systems: dict[Path, dict[str, str] | str] = {}  # system folder -> its columns, or why there are none
    for org, system_dir, _ in results:
        if system_dir not in systems:
            systems[system_dir] = _system(org, system_dir.name, repo, hardware, problems)
    shared = _Round(tools, ruleset, repo, round_name, tool, systems, checker)
    if progress is not None:
        progress(0, len(results), "")
    rows = []
    run_rows = []
    with _linear_reading(), _as_released(checker):  # installed before the workers fork: they inherit them
        for done, (row, found, runs) in enumerate(parallel.each(_ingest_one, results, jobs, shared, chunk=1), 1):
            rows.append(row)
            run_rows += runs
            problems += found
            if progress is not None:
                progress(done, len(results), row["_shown"])
    for row in rows:
        del row["_shown"]
    run_rows.sort(key=lambda r: (r["submitter_dir"], r["system_id"], r["benchmark"], _run_number(Path(r["result_file"]))))
    runs_out = io.StringIO()
    writer = csv.DictWriter(runs_out, fieldnames=PROJECT_RUN_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(run_rows)
    if earlier:
        found = Collector()
        carried = run_tables.carried_over(run_tables.runs_of_text(runs_out.getvalue(), "runs", found,
                                                                  PROJECT_RUN_COLUMNS), earlier)
        for row in rows:
            owner = carried.get((row["submitter_dir"], row["system_id"], row["benchmark"]))
            row["carried_over_from"] = "/".join(owner[:3]) if owner else ""
    rows.sort(key=lambda r: (r["benchmark"], r["submitter"], r["system_id"]))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return Ingested(out.getvalue(), rows, problems, tool, runs_out.getvalue())


@dataclass
class _Round:
    """What every result's scoring reads: handed to the workers once, at their fork."""

    tools: dict
    ruleset: str
    repo: Path
    round_name: str
    tool: str
    systems: dict
    checker: CheckerDeclaration | None = None


def _ingest_one(shared: _Round, result: tuple[Path, Path, Path]
                ) -> tuple[dict[str, str], list[Problem], list[dict[str, str]]]:
    """One result's row (with "_shown", its path, for progress), the problems found on the way and its runs."""
    org, system_dir, bench_dir = result
    problems: list[Problem] = []
    system = system_dir.name
    benchmark = shared.tools["summarizer"]._benchmark_alias(bench_dir.name)  # old folder names, as the summarizer
    shown = bench_dir.relative_to(shared.repo).as_posix()
    columns = shared.systems[system_dir]
    row = dict.fromkeys(COLUMNS, "")
    row.update({"round": shared.round_name, "submitter": org.name, "submitter_dir": org.name, "system_id": system,
                "benchmark": benchmark, "number_of_runs": str(len(list(bench_dir.glob("result_*.txt"))))})
    try:
        if isinstance(columns, str):
            row["metadata_source"] = f"not available: {columns}"
            raise _Failed(columns)
        row.update(columns)
        row.update(_score(bench_dir, benchmark, system, row["submitter"], row["division"], shared.ruleset,
                          shared.tools, shown, problems, shared.repo))
        row["score_source"] = shared.tool
        if shared.checker is not None:
            row["notes"] = "; ".join([row["notes"], f"compliance as in {shared.checker.release}: {shared.checker.note}"])
    except _Failed as failure:
        row.update(score_minutes="", rcp_scaling_factor="", notes="; ".join(failure.notes),
                   score_source=f"not computed: {failure}", score_method="not-computed", score_decimals="",
                   run_minutes="")
        problems.append(Problem(f"result not scored: {failure}", shown, severity="warning"))
    row["_shown"] = shown
    return row, problems, _run_rows(bench_dir, row, shared, shown)


class _LinearStrip:
    """Stands in for the `re` module inside mlperf-logging's log readers, for one call only.

    They strip every log line with re.sub(".*:::MLLOG ", ":::MLLOG ", line). After its match, the regex
    engine tries every later position of the line, each scanning to the line's end: quadratic in the
    line's length, and over half of ingest's time. On a line with no newline before its end (as read
    from a file), the result is the token followed by what follows its last occurrence: that is computed
    here in linear time, and every other call goes to `re` itself.
    """

    def __init__(self, token: str):
        self.token, self.pattern = token, ".*" + token

    def sub(self, pattern, repl, string, count=0, flags=0):
        if pattern == self.pattern and repl == self.token and count == 0 and flags == 0 and isinstance(string, str) \
                and "\n" not in string[:-1]:
            _, found, rest = string.rpartition(self.token)
            return self.token + rest if found else string
        return re.sub(pattern, repl, string, count, flags)

    def __getattr__(self, name):
        return getattr(re, name)


class _RulesOnce:
    """Stands in for `yaml` in mlperf-logging's compliance checker: each rules file is parsed once per process.

    The checker parses its YAML rules again for every run log (three files a log: a fifth of ingest's
    time). The parsed rules are kept by file name and each caller gets its own deep copy, as a fresh
    parse would give it."""

    def __init__(self, yaml_module):
        self.yaml, self.parsed = yaml_module, {}

    def load(self, stream, Loader=None):
        name = getattr(stream, "name", None)
        if not isinstance(name, str):
            return self.yaml.load(stream, Loader=Loader)
        key = (os.path.realpath(name), Loader)
        if key not in self.parsed:
            self.parsed[key] = self.yaml.load(stream, Loader=Loader)
        return copy.deepcopy(self.parsed[key])

    def __getattr__(self, name):
        return getattr(self.yaml, name)


class _ParsedOnce:
    """Stands in for mlperf-logging's parse_file: a run log is parsed once, not twice.

    result_summarizer runs the compliance checker on a log, which parses it, and then parses the same log
    again for its start and stop. The last log parsed is kept (neither caller changes what it gets: the
    rules write only to their own state) and handed to the second caller while the file is unchanged. What
    each log's run lines say (a few values, `_run_times`) is kept too, for the run table."""

    def __init__(self, parse):
        self.parse, self.last, self.kept = parse, (None, None), {}

    @staticmethod
    def _key(filename, ruleset):
        info = os.stat(filename)
        return (os.path.realpath(filename), ruleset, info.st_mtime_ns, info.st_size)

    def __call__(self, filename, ruleset="0.6.0"):
        key = self._key(filename, ruleset)
        if self.last[0] != key:
            self.last = (None, None)  # a failed parse must not leave the previous log's lines behind
            self.last = (key, self.parse(filename, ruleset=ruleset))
            self.kept[key] = _run_times(self.last[1][0])
        return self.last[1]

    def times(self, filename, ruleset):
        """The run times of a log, from its parse if one was made, else from a parse made now."""
        key = self._key(filename, ruleset)
        if key not in self.kept:
            self(filename, ruleset)
        return self.kept[key]


@contextlib.contextmanager
def _as_released(checker: CheckerDeclaration | None):
    """While this holds, the compliance checker reports the findings `checker` names as warnings, as the round's
    own release did (its other findings are errors, as always)."""
    if checker is None or not checker.warnings:
        yield
        return
    from mlperf_logging.compliance_checker import mlp_compliance

    cls = mlp_compliance.ComplianceChecker
    original = cls.put_message
    accepted = tuple(checker.warnings)

    def put_message(self, msg, key=None):
        if isinstance(msg, str) and msg.startswith(accepted):
            self.warnings[key or msg] = msg
            return
        original(self, msg, key)

    cls.put_message = put_message
    try:
        yield
    finally:
        cls.put_message = original


@contextlib.contextmanager
def _linear_reading():
    """mlperf-logging's own readers and checks, with the three stand-ins above; restored on the way out."""
    import importlib
    import pkgutil

    from mlperf_logging.compliance_checker import mlp_compliance, mlp_parser
    from mlperf_logging.rcp_checker import rcp_checker
    from mlperf_logging.result_summarizer import result_summarizer as summarizer

    parsers = [importlib.import_module(f"{mlp_parser.__name__}.{info.name}")
               for info in pkgutil.iter_modules(mlp_parser.__path__)]
    swaps = [(module, "re", _LinearStrip(getattr(module, "TOKEN", ":::MLLOG ")))
             for module in [*parsers, rcp_checker] if getattr(module, "re", None) is re]
    swaps.append((mlp_compliance, "yaml", _RulesOnce(mlp_compliance.yaml)))
    parse_once = _ParsedOnce(mlp_parser.parse_file)
    swaps += [(mlp_parser, "parse_file", parse_once), (summarizer, "parse_file", parse_once)]
    originals = [(module, name, getattr(module, name)) for module, name, _ in swaps]
    try:
        for module, name, stand_in in swaps:
            setattr(module, name, stand_in)
        yield
    finally:
        for module, name, original in originals:
            setattr(module, name, original)
