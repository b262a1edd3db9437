"""Run tables: each run's start and stop as its log gives them, and a result scored from them by the rules of
MLCommons' result summarizer, for the results whose official score is not at hand.

A run table has one row per run log (`RUN_COLUMNS`, documented in data/README.md). A round's runs can come
from more than one table of that shape: the source data set's `runs_extracted.csv` and the project's own
`data/rounds/<round>/runs.csv` (runs read from the logs by the project, through a code index or from a
repository snapshot). A result's `scaling.json` factor, where the result has one, is in `scaling.csv`.

Scoring follows `mlperf_logging.result_summarizer` (`_compute_strong_score_standalone`): a run's time is
run_stop minus run_start; a run that did not converge (no run_stop, or a status other than success) is dropped,
and at most one may be; the olympic mean sorts the converged runs' times and drops the fastest, and the slowest
unless a run was dropped already (10 runs: the mean of 8; 3 runs: the median); the scaling.json factor, 1.0
without one, multiplies the mean. The compliance checker is not run: a score from a run table says so.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from site_builder import sources
from site_builder.errors import Collector, display_path

RUN_COLUMNS = ("round", "submitter_dir", "system_id", "benchmark", "result_file", "run_start_ms", "run_stop_ms",
               "run_minutes", "samples_count_at_run_stop", "global_batch_size", "run_stop_status", "notes")
# The project's own tables also name where each run was read (source data sets document theirs in a README).
PROJECT_RUN_COLUMNS = RUN_COLUMNS + ("source",)
SCALING_COLUMNS = ("submitter_dir", "system_id", "benchmark", "scaling_factor", "source")

ResultKey = tuple[str, str, str]  # (submitter_dir, system_id, benchmark)

# A time in a run table is epoch milliseconds; a written run_minutes may differ from the one the times give by
# its rounding to 4 decimals only.
MINUTES_TOLERANCE = 0.00005 + 1e-9


@dataclass(frozen=True)
class Run:
    """One run log's figures, with the table row they were read from."""

    result_file: str
    start_ms: int | None
    stop_ms: int | None
    status: str
    samples: str
    global_batch_size: str
    where: tuple[str, int]
    written_minutes: str = ""  # the table's run_minutes, as written (4 decimals)

    @property
    def number(self) -> int:
        digits = re.search(r"(\d+)", self.result_file)
        return int(digits.group(1)) if digits else -1

    @property
    def converged(self) -> bool:
        return self.start_ms is not None and self.stop_ms is not None and self.status == "success"

    @property
    def minutes(self) -> float | None:
        """Time to train as the summarizer computes it (ms to minutes), None for a run that is not counted."""
        return (self.stop_ms - self.start_ms) / 60 / 1000 if self.converged else None

    @property
    def shown_minutes(self) -> str:
        """Minutes to 4 decimals as the table writes them (computed where it leaves them out); "" if not counted."""
        if self.minutes is None:
            return ""
        return self.written_minutes or f"{self.minutes:.4f}"

    @property
    def interval(self) -> tuple[int, int] | None:
        """(start, stop) in epoch milliseconds: two logs with the same interval are the same run."""
        return (self.start_ms, self.stop_ms) if self.start_ms is not None and self.stop_ms is not None else None


def _milliseconds(value: str, column: str, where: tuple[str, int], problems: Collector) -> int | None:
    if value == "":
        return None
    if not value.isdigit():
        problems.error(f"{column} {value!r} is not a whole number of epoch milliseconds", *where)
        return None
    return int(value)


def read_runs(path: Path, problems: Collector, columns: tuple[str, ...] = RUN_COLUMNS) -> dict[ResultKey, list[Run]]:
    """A run table's runs by result, each result's in run order; {} for a table that does not exist.

    Every problem (a missing column, a time that is not a number, a stop before its start, a written
    run_minutes the times contradict, a run listed twice) is collected with its file and line."""
    text = _text_of(path, problems)
    return {} if text is None else runs_of_text(text, display_path(path), problems, columns)


def _text_of(path: Path, problems: Collector) -> str | None:
    """A table's UTF-8 text; None for a table that does not exist or cannot be decoded (a problem then)."""
    if not path.is_file():
        return None
    text, problem = sources.decode_text(path.read_bytes(), display_path(path))
    if problem is not None:
        problems.problems.append(problem)
    return text


def _reader(text: str, shown: str, columns: tuple[str, ...], problems: Collector) -> csv.DictReader | None:
    """A reader over a table's rows, or None (a problem at line 1) when it lacks one of `columns`."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in columns if c not in (reader.fieldnames or [])]
    if missing:
        problems.error(f"missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}", shown, 1)
        return None
    return reader


def runs_of_text(text: str, shown: str, problems: Collector, columns: tuple[str, ...] = RUN_COLUMNS
                 ) -> dict[ResultKey, list[Run]]:
    """`read_runs` of a table's text (`shown` names it in problems)."""
    reader = _reader(text, shown, columns, problems)
    if reader is None:
        return {}
    runs: dict[ResultKey, dict[str, Run]] = {}
    for row in reader:
        where = (shown, reader.line_num)
        if None in row or None in row.values():
            problems.error(f"row has a different number of fields than the header ({len(reader.fieldnames)})", *where)
            continue
        if not re.fullmatch(r"result_[^/\\]+\.txt", row["result_file"]):  # as the summarizer's glob result_*.txt
            problems.error(f"result_file {row['result_file']!r} is not a run log's name (result_*.txt)", *where)
            continue
        start = _milliseconds(row["run_start_ms"], "run_start_ms", where, problems)
        stop = _milliseconds(row["run_stop_ms"], "run_stop_ms", where, problems)
        if start is not None and stop is not None and stop <= start:
            problems.error(f"run_stop_ms {stop} is not after run_start_ms {start}", *where)
        if stop is not None and not row["run_stop_status"]:
            problems.error("a run with a run_stop time needs its run_stop_status", *where)
        run = Run(row["result_file"], start, stop, row["run_stop_status"], row["samples_count_at_run_stop"],
                  row["global_batch_size"], where, row["run_minutes"])
        written = row["run_minutes"]
        if written and run.interval is not None:
            computed = (stop - start) / 60 / 1000
            try:
                wrong = abs(float(written) - computed) > MINUTES_TOLERANCE
            except ValueError:
                wrong = True
            if wrong:
                problems.error(f"run_minutes {written!r} is not (run_stop_ms - run_start_ms) in minutes "
                               f"({computed:.4f})", *where)
        key = (row["submitter_dir"], row["system_id"], row["benchmark"])
        if row["result_file"] in runs.setdefault(key, {}):
            problems.error(f"{'/'.join(key)}/{row['result_file']} is listed twice (first at line "
                           f"{runs[key][row['result_file']].where[1]})", *where)
            continue
        runs[key][row["result_file"]] = run
    return {key: sorted(items.values(), key=lambda r: (r.number, r.result_file)) for key, items in runs.items()}


def earlier_runs(data_dir: Path, round_name: str, problems: Collector) -> dict[tuple[str, ...], list[Run]]:
    """Every run of the rounds before `round_name` that have a run table (data/rounds/<round>/runs.csv), keyed
    (round, submitter_dir, system_id, benchmark): what a round's results are compared with to find logs
    published again."""
    from site_builder.rounds import discover_rounds, round_order

    found: dict[tuple[str, ...], list[Run]] = {}
    for name in discover_rounds(data_dir):
        if round_order(name) < round_order(round_name):
            table = read_runs(data_dir / "rounds" / name / "runs.csv", problems, PROJECT_RUN_COLUMNS)
            found.update({(name, *key): items for key, items in table.items()})
    return found


def merge_runs(tables: list[dict[ResultKey, list[Run]]], problems: Collector) -> dict[ResultKey, list[Run]]:
    """One round's runs from several tables; a result's runs must come from one table only (the reading of a
    result is one act, and two readings of it would have to agree: that is a check, not a merge)."""
    merged: dict[ResultKey, list[Run]] = {}
    for table in tables:
        for key, runs in table.items():
            if key in merged:
                first, again = merged[key][0].where, runs[0].where
                problems.error(f"the runs of {'/'.join(key)} are in two tables (also {first[0]}:{first[1]})", *again)
                continue
            merged[key] = runs
    return merged


def read_scaling(path: Path, problems: Collector) -> dict[ResultKey, str]:
    """Result -> the `scaling_factor` of its scaling.json, as written; {} for a table that does not exist."""
    shown, text = display_path(path), _text_of(path, problems)
    reader = None if text is None else _reader(text, shown, SCALING_COLUMNS, problems)
    if reader is None:
        return {}
    factors: dict[ResultKey, str] = {}
    for row in reader:
        where = (shown, reader.line_num)
        key = (row["submitter_dir"], row["system_id"], row["benchmark"])
        try:
            good = float(row["scaling_factor"]) >= 1.0
        except (TypeError, ValueError):
            good = False
        if not good:
            problems.error(f"scaling_factor {row['scaling_factor']!r} is not a number of at least 1.0", *where)
        elif key in factors:
            problems.error(f"{'/'.join(key)} has two scaling factors", *where)
        else:
            factors[key] = row["scaling_factor"]
    return factors


def olympic_mean(minutes: list[float | None], max_dropped: int = 1) -> float | None:
    """The summarizer's olympic mean of per-run minutes (None: a run not counted); None when too many runs
    were not counted or none is left."""
    dropped = sum(1 for m in minutes if m is None)
    if dropped > max_dropped:
        return None
    scores = sorted(m for m in minutes if m is not None)
    countable = scores[max_dropped:len(scores) - (max_dropped - dropped)]
    return sum(countable) / len(countable) if countable else None


@dataclass(frozen=True)
class Scored:
    """A result scored from its run table, or why it could not be (score None)."""

    score: float | None
    factor: float
    unscaled: float | None
    reason: str


def score_runs(runs: list[Run], runs_required: int, number_of_runs: int, factor: float) -> Scored:
    """Score one result from its runs: every run log of the result must have been read (`number_of_runs`,
    the folder's count), at least as many as the rules require, and at most one not converged."""
    if len(runs) != number_of_runs:
        return Scored(None, factor, None, f"{len(runs)} of the result's {number_of_runs} run logs were read")
    if number_of_runs < runs_required:
        return Scored(None, factor, None, f"{number_of_runs} run logs, the rules require {runs_required}")
    minutes = [run.minutes for run in runs]
    mean = olympic_mean(minutes)
    if mean is None:
        not_counted = sum(1 for m in minutes if m is None)
        return Scored(None, factor, None, f"{not_counted} of {len(runs)} runs did not converge, more than the "
                                          f"olympic mean allows")
    return Scored(mean * factor, factor, mean, "")


def carried_over(runs: dict[ResultKey, list[Run]], earlier: dict[tuple[str, ...], list[Run]]
                 ) -> dict[ResultKey, tuple[str, ...]]:
    """Results whose every run is a run of one earlier result (the same start and stop, to the millisecond):
    the same logs published again, not new runs. Result -> the earlier result's key (the first one a run
    belongs to, in the order of `earlier`: the oldest round first, as `earlier_runs` reads them)."""
    owner: dict[tuple[int, int], tuple[str, ...]] = {}
    for key, items in earlier.items():
        for run in items:
            if run.interval is not None:
                owner.setdefault(run.interval, key)
    found = {}
    for key, items in runs.items():
        owners = {owner.get(run.interval) for run in items}
        if len(owners) == 1 and None not in owners and all(run.interval is not None for run in items):
            found[key] = owners.pop()
    return found
