"""Load data/ into DataFrames against an explicit schema; every problem names file, line and column."""

from __future__ import annotations

import csv
import difflib
import io
import math
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from site_builder import sources
from site_builder.errors import Collector, SiteError, project_root
from site_builder.metrics import by_value

# Column -> kind. "str" may be empty unless listed in _REQUIRED; numbers may be empty only where
# listed in _OPTIONAL_NUMBERS (an empty score means "not available", shown as missing).
RESULT_SCHEMA = {
    "round": "str", "division": "str", "availability": "str", "hosting": "str",
    "submitter": "str", "system_name": "str", "system_id": "str", "accelerator": "str",
    "accelerator_vendor": "str", "accelerator_model": "str", "accelerators_per_node": "int",
    "number_of_nodes": "int", "total_accelerators": "int", "host_processor": "str",
    "framework": "str", "benchmark": "str", "score_minutes": "float", "number_of_runs": "int",
    "rcp_scaling_factor": "float", "score_source": "str", "metadata_source": "str", "notes": "str",
}
# Columns a results file may have or leave out (column -> kind); a missing column or an empty cell is
# a missing value. Any column in neither RESULT_SCHEMA nor here is refused, so a typo in a header
# cannot hide data. Adding an optional column is one line here (and a row in data/README.md).
RESULT_OPTIONAL_COLUMNS: dict[str, str] = {
    "submitter_dir": "str", "score_method": "str", "score_decimals": "int", "run_minutes": "str",
    "result_id": "str", "carried_over_from": "str",
}
_REQUIRED = {"round", "division", "submitter", "system_id", "accelerator", "benchmark",
             "score_source", "total_accelerators", "number_of_nodes", "accelerators_per_node"}
_OPTIONAL_NUMBERS = {"score_minutes", "rcp_scaling_factor", "number_of_runs", "score_decimals"}
_CHOICES = {
    "division": {"closed", "open"},
    "availability": {"available", "preview", "rdi", ""},
    "hosting": {"cloud", "on-premise", ""},
    "score_method": {"official-summarizer", "computed-from-logs", "submitter-summary", "published-by-submitter",
                     "not-computed", ""},
}  # accelerator_vendor is checked against data/vendors.csv (site_builder/hardware.py)
# Per-run minutes: numbers separated by ";", an empty item for a run that did not finish.
_RUN_MINUTES = re.compile(r"^(\d+(\.\d+)?)?(;(\d+(\.\d+)?)?)*$")
# An MLCommons result id, e.g. 6.0-0012.
_RESULT_ID = re.compile(r"^\d+\.\d+-\d+$")

BENCHMARK_SCHEMA = {
    "id": "str", "name": "str", "model": "str", "total_parameters_b": "float",
    "active_parameters_b": "float", "task": "str", "dataset": "str", "quality_target": "str",
    "runs_per_result": "int", "round_introduced": "str", "source": "str",
}
BENCHMARK_OPTIONAL_COLUMNS: dict[str, str] = {
}
_BENCHMARK_REQUIRED = {"id", "name", "model", "task", "quality_target", "runs_per_result",
                       "round_introduced", "source"}
_BENCHMARK_OPTIONAL_NUMBERS = {"total_parameters_b", "active_parameters_b"}
# The catalog's texts in other languages (optional): one row per benchmark and language; an empty cell shows
# the catalog's own text (a name is the same in every language).
BENCHMARK_TEXTS_FILE = "benchmarks_translated.csv"
BENCHMARK_TEXTS_SCHEMA = {"id": "str", "lang": "str", "model": "str", "dataset": "str", "source": "str"}

RESULT_KEY = ("round", "submitter", "system_id", "benchmark")
_INT64_MAX = 2**63 - 1  # pandas' nullable integers are 64-bit
# A non-zero decimal number lies in this range: beyond it a value is a typo, and a log axis or a ratio of
# it would overflow (1e308 minutes) or vanish (1e-300). Documented in data/README.md.
FLOAT_RANGE = (1e-6, 1e9)


@dataclass(frozen=True)
class Dataset:
    """Validated results of every round (one row per result) and the benchmark catalog."""

    results: pd.DataFrame
    benchmarks: pd.DataFrame
    benchmark_texts: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)  # (id, lang) -> texts
    # Across rounds (site_builder/history.py): each round's rules (data/rules.csv) and which benchmark replaced
    # which (data/successors.csv); empty where the project has neither.
    rules: pd.DataFrame = field(default_factory=pd.DataFrame)
    successors: pd.DataFrame = field(default_factory=pd.DataFrame)

    def round(self, name: str) -> pd.DataFrame:
        """One round's results (computed once: pages, charts and every bound figure ask again and again)."""
        frames = self.__dict__.get("_rounds")
        if frames is None:
            frames = by_value(self.results, "round")
            object.__setattr__(self, "_rounds", frames)  # a cache on a frozen value, not a change of it
        return frames.get(name, self.results.iloc[0:0])

    def entries(self, round_name: str, benchmark: str) -> pd.DataFrame:
        """One benchmark's results in one round (grouped once per round: every benchmark, home and figure asks)."""
        groups = self.__dict__.setdefault("_entries", {})  # a cache on a frozen value, as `round`'s
        if round_name not in groups:
            groups[round_name] = by_value(self.round(round_name), "benchmark")
        found = groups[round_name].get(benchmark)
        return found if found is not None else self.round(round_name).iloc[0:0]

    def benchmarks_in(self, round_name: str) -> list[str]:
        """Benchmark ids with results in a round, in catalog order."""
        present = set(self.round(round_name)["benchmark"])
        return [b for b in self.benchmarks.index if b in present]

    def benchmark(self, benchmark_id: str) -> pd.Series:
        return self.benchmarks.loc[benchmark_id]

    def translated(self, benchmark_id: str, lang: str) -> dict[str, str]:
        """The benchmark's texts written for a language (model, dataset, source); the catalog's own for the rest."""
        return self.benchmark_texts.get((benchmark_id, lang), {})


def _read_table(path: Path, schema: dict[str, str], optional_columns: dict[str, str], required: set[str],
                optional_numbers: set[str], problems: Collector, shown: str) -> pd.DataFrame | None:
    """Parse one CSV cell by cell so each error can name its line (quoted fields may span lines).

    UTF-8 with or without a byte order mark and any line ending are accepted; an encoding error
    names its line and byte.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        problems.error(f"cannot read: {exc.strerror}", shown)
        return None
    text, problem = sources.decode_text(raw, shown)
    if problem is not None:
        problems.problems.append(problem)
        return None
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if header is None:
            problems.error("empty CSV file", shown, 1)
            return None
        header = [name.strip() for name in header]
        if not _check_header(header, schema, optional_columns, problems, shown):
            return None
        columns = {**schema, **{name: kind for name, kind in optional_columns.items() if name in header}}
        index = {name: header.index(name) for name in columns}
        records, lines = [], []
        for cells in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) != len(header):
                problems.error(f"row has {len(cells)} fields, the header has {len(header)}", shown, line)
                continue
            record = {}
            for name, kind in columns.items():
                raw_cell = unicodedata.normalize("NFC", cells[index[name]].strip())
                record[name] = _convert(raw_cell, name, kind, required, optional_numbers | set(optional_columns),
                                        problems, shown, line)
            records.append(record)
            lines.append(line)
    except csv.Error as exc:  # a NUL byte, a field over the size limit, an unterminated quote
        problems.error(f"unreadable CSV: {exc}", shown, reader.line_num or 1)
        return None
    all_columns = {**schema, **optional_columns}
    frame = pd.DataFrame.from_records(records, columns=list(all_columns))
    frame["line"] = lines
    for name, kind in all_columns.items():
        if kind == "int":
            frame[name] = frame[name].astype("Int64")
        elif kind == "float":
            frame[name] = frame[name].astype("float64")
        elif name not in columns:  # an optional text column the file leaves out
            frame[name] = ""
    return frame


def _check_header(header: list[str], schema: dict[str, str], optional_columns: dict[str, str],
                  problems: Collector, shown: str) -> bool:
    """Every schema column once, no unknown column; report them all."""
    count = len(problems.problems)
    for number, name in enumerate(header, start=1):
        if name in header[:number - 1]:
            problems.error(f"column '{name}' appears twice in the header", shown, 1)
        elif name not in schema and name not in optional_columns:
            close = difflib.get_close_matches(name, [*schema, *optional_columns], n=1)
            problems.error(f"unknown column '{name}'" if name else f"column {number} has no name", shown, 1,
                           hint=f"did you mean '{close[0]}'?" if close else
                           "optional columns: " + (", ".join(optional_columns) or "none") + " (data/README.md)")
    for name in schema:
        if name not in header:
            problems.error(f"missing column '{name}'", shown, 1)
    return len(problems.problems) == count


def _convert(raw: str, name: str, kind: str, required: set[str], optional_numbers: set[str],
             problems: Collector, shown: str, line: int):
    if raw == "":
        if name in required:
            problems.error(f"column '{name}' is empty", shown, line)
        if kind == "str":
            return ""
        if name not in optional_numbers and name not in required:
            problems.error(f"column '{name}' is empty", shown, line)
        return None
    control = next((c for c in raw if (ord(c) < 32 and c not in "\t\n") or 0x7f <= ord(c) < 0xa0), None)
    if control is not None:
        problems.error(f"column '{name}' has the control character U+{ord(control):04X}", shown, line)
        return "" if kind == "str" else None
    if kind == "str":
        allowed = _CHOICES.get(name)
        if allowed is not None and raw not in allowed:
            problems.error(f"column '{name}' has {raw!r}; expected one of {sorted(allowed)}", shown, line)
        return raw
    try:
        value = int(raw) if kind == "int" else float(raw)
    except (ValueError, OverflowError):
        problems.error(f"column '{name}' has {raw!r}, which is not a{'n integer' if kind == 'int' else ' number'}",
                       shown, line)
        return None
    if not math.isfinite(value):
        problems.error(f"column '{name}' has the non-finite value {raw!r}", shown, line)
        return None
    if value < 0:
        problems.error(f"column '{name}' has the negative value {raw!r}", shown, line)
        return None
    if kind == "int" and value > _INT64_MAX:
        problems.error(f"column '{name}' has {raw!r}, which is too large", shown, line)
        return None
    if kind == "float" and value != 0 and not FLOAT_RANGE[0] <= value <= FLOAT_RANGE[1]:
        problems.error(f"column '{name}' has {raw!r}, outside the range {FLOAT_RANGE[0]:g} to {FLOAT_RANGE[1]:g} "
                       "of a number in this data", shown, line)
        return None
    return value


def _check_provenance(row: pd.Series, problems: Collector, shown: str) -> None:
    """The optional provenance columns agree with the score they describe."""
    scored = pd.notna(row["score_minutes"])
    method, decimals = row.get("score_method", ""), row.get("score_decimals")
    runs, result_id = row.get("run_minutes", ""), row.get("result_id", "")
    if method == "not-computed" and scored:
        problems.error("column 'score_method' is 'not-computed' but the row has a score", shown, row["line"])
    if method not in ("", "not-computed") and not scored:
        problems.error(f"column 'score_method' is {method!r} but the row has no score", shown, row["line"])
    if pd.notna(decimals) and decimals > 9:
        problems.error(f"column 'score_decimals' has {decimals}; at most 9 decimals are shown", shown, row["line"])
    if runs and not _RUN_MINUTES.match(runs):
        problems.error(f"column 'run_minutes' has {runs!r}; expected minutes separated by ';'", shown, row["line"])
    if result_id and not _RESULT_ID.match(result_id):
        problems.error(f"column 'result_id' has {result_id!r}; expected an MLCommons id such as 6.0-0012",
                       shown, row["line"])


def load_dataset(data_dir: Path, rounds: list[str], root: Path | None = None) -> Dataset:
    """Read data/benchmarks.csv and data/rounds/<round>/results.csv for each round; fail once with all problems."""
    problems = Collector()
    bases = [base for base in (root if root is not None else project_root(), data_dir) if base is not None]
    bench_path = data_dir / "benchmarks.csv"
    bench_shown = sources.shown_path(bench_path, root)
    benchmarks = None
    if _readable(bench_path, bench_shown, bases, "missing benchmark catalog", problems):
        benchmarks = _guarded(_read_table, bench_shown, problems)(
            bench_path, BENCHMARK_SCHEMA, BENCHMARK_OPTIONAL_COLUMNS, _BENCHMARK_REQUIRED,
            _BENCHMARK_OPTIONAL_NUMBERS, problems, bench_shown)
    if benchmarks is not None and benchmarks.empty:
        problems.error("the benchmark catalog has a header but no benchmarks", bench_shown, 1)
    if benchmarks is not None:
        for _, row in benchmarks[benchmarks.duplicated("id", keep="first")].iterrows():
            problems.error(f"duplicate benchmark id {row['id']!r}", bench_shown, row["line"])
        benchmarks = benchmarks.drop_duplicates("id").set_index("id", drop=False)
    known_benchmarks = set(benchmarks["id"]) if benchmarks is not None else set()
    texts = _benchmark_texts(data_dir / BENCHMARK_TEXTS_FILE, root, bases, known_benchmarks, problems)

    frames = []
    round_names: dict[str, dict] = {}  # round -> its round.toml's [benchmarks]
    for round_name in rounds:
        path = data_dir / "rounds" / round_name / "results.csv"
        shown = sources.shown_path(path, root)
        if not _readable(path, shown, bases, f"missing results for round {round_name}", problems):
            continue
        frame = _guarded(_read_table, shown, problems)(
            path, RESULT_SCHEMA, RESULT_OPTIONAL_COLUMNS, _REQUIRED, _OPTIONAL_NUMBERS, problems, shown)
        if frame is None:
            continue
        if frame.empty:
            problems.error(f"no results: the file of round {round_name} has a header but no rows", shown, 1)
            continue
        frame["file"] = shown
        # a benchmark of an earlier round that the catalog does not describe is named in that round's round.toml
        named_here = _round_benchmarks(data_dir, round_name, root)
        round_names[round_name] = named_here
        if _guarded(_check_results, shown, problems)(frame, round_name, benchmarks, known_benchmarks | set(named_here),
                                                      problems, shown) is not None:
            frames.append(_as_catalogued(frame, named_here))
    problems.raise_if_any()
    results = pd.concat(frames, ignore_index=True)
    benchmarks = _with_round_benchmarks(benchmarks, round_names, results)
    # A system as readers see it (tables, tooltips, notes): the name its description gives; where the data has
    # no name, its id is its name. The id stays for anchors, CSV downloads and the detail view.
    named = results["system_name"].fillna("").str.strip()
    results["system"] = named.where(named != "", results["system_id"])
    from site_builder.history import load_successors
    from site_builder.rules_data import load_rules

    return Dataset(results=results, benchmarks=benchmarks, benchmark_texts=texts, rules=load_rules(data_dir),
                   successors=load_successors(data_dir))


def _benchmark_texts(path: Path, root: Path | None, bases: list[Path], known: set[str],
                     problems: Collector) -> dict[tuple[str, str], dict[str, str]]:
    """data/benchmarks_translated.csv, when there is one: (id, lang) -> its non-empty texts."""
    shown = sources.shown_path(path, root)
    if not path.exists() and not path.is_symlink():
        return {}
    if not _readable(path, shown, bases, "unreadable benchmark translations", problems):
        return {}
    frame = _guarded(_read_table, shown, problems)(path, BENCHMARK_TEXTS_SCHEMA, {}, {"id", "lang"}, set(),
                                                    problems, shown)
    texts: dict[tuple[str, str], dict[str, str]] = {}
    for _, row in (frame.iterrows() if frame is not None else ()):
        if known and row["id"] not in known:
            problems.error(f"unknown benchmark id {row['id']!r}", shown, row["line"], hint="known: "
                           + ", ".join(sorted(known)) + " (data/benchmarks.csv)")
        elif (row["id"], row["lang"]) in texts:
            problems.error(f"benchmark {row['id']!r} has a second row for language {row['lang']!r}", shown, row["line"])
        else:
            texts[(row["id"], row["lang"])] = {name: row[name] for name in ("model", "dataset", "source") if row[name]}
    return texts


def _readable(path: Path, shown: str, bases: list[Path], missing: str, problems: Collector) -> bool:
    """A data file exists, is a regular file and, through any symlink, stays inside the project."""
    if path.is_symlink() and not path.exists():
        problems.error(f"{missing}: dangling symlink to {os.readlink(path)}", shown)
        return False
    if not path.is_file():
        problems.error(missing if not path.exists() else f"{missing}: not a regular file", shown)
        return False
    if sources.leaves(path, bases):
        problems.error(f"symlink to {path.resolve()}, outside the project; refusing to read it", shown,
                       hint="copy the file into the project instead of linking to it")
        return False
    return True


def _guarded(function, shown: str, problems: Collector):
    """Call `function`; an exception pandas raises on input it did not expect becomes a problem naming
    the file instead of a traceback (None is returned then)."""
    def call(*args):
        try:
            return function(*args)
        except (ValueError, TypeError, KeyError, OverflowError, IndexError) as exc:
            problems.error(f"could not load the table: {type(exc).__name__}: {exc}", shown)
            return None
    return call


def _round_benchmarks(data_dir: Path, round_name: str, root: Path | None) -> dict:
    from site_builder.rounds import load_round_info

    try:
        return load_round_info(data_dir, round_name, root).benchmarks
    except SiteError:  # the build reports round.toml's own problems where it reads the round (once, not twice)
        return {}


def _as_catalogued(frame: pd.DataFrame, named_here: dict) -> pd.DataFrame:
    """One id per benchmark across rounds: a result filed under a folder that a later round renamed (round.toml's
    `same_as`) takes the benchmark's later id; `benchmark_dir` keeps the folder name (links to the repository)."""
    frame["benchmark_dir"] = frame["benchmark"]
    renamed = {folder: name.same_as for folder, name in named_here.items() if name.same_as}
    if renamed:
        frame["benchmark"] = frame["benchmark"].map(lambda b: renamed.get(b, b))
    return frame


def _with_round_benchmarks(catalog: pd.DataFrame, round_names: dict[str, dict], results: pd.DataFrame) -> pd.DataFrame:
    """The catalog, and after it each benchmark that only a round's round.toml names (a retired benchmark): its
    name as the latest round that ran it gives it, the first round it ran in; what the catalog would say beyond
    that is not known here, so it stays empty."""
    from site_builder.rounds import round_order

    rows = {}
    for round_name in sorted(round_names, key=round_order):
        ran = set(results.loc[results["round"] == round_name, "benchmark"])
        for folder, name in round_names[round_name].items():
            benchmark = name.same_as or folder
            if benchmark in catalog.index or benchmark not in ran:
                continue
            first = rows.get(benchmark, {}).get("round_introduced", round_name)
            rows[benchmark] = {"id": benchmark, "name": name.name, "model": "", "task": "", "dataset": "",
                               "quality_target": "", "runs_per_result": pd.NA, "round_introduced": first,
                               "source": f"data/rounds/{round_name}/round.toml"}
    if not rows:
        return catalog
    extra = pd.DataFrame(list(rows.values())).set_index("id", drop=False)
    return pd.concat([catalog, extra.astype({c: catalog[c].dtype for c in extra.columns if c in catalog})])


def _check_results(frame: pd.DataFrame, round_name: str, benchmarks: pd.DataFrame | None,
                   known_benchmarks: set[str], problems: Collector, shown: str) -> bool:
    """Checks across columns and rows of one round's results."""
    for _, row in frame.iterrows():
        if row["round"] != round_name:
            problems.error(f"column 'round' has {row['round']!r} in the folder of {round_name}", shown, row["line"])
        if benchmarks is not None and row["benchmark"] and row["benchmark"] not in known_benchmarks:
            problems.error(f"column 'benchmark' has unknown benchmark {row['benchmark']!r}", shown, row["line"],
                           hint=f"known: {', '.join(sorted(known_benchmarks)) or 'none'} (data/benchmarks.csv, "
                                f"and the [benchmarks] of the round's round.toml)")
        if (pd.notna(row["number_of_nodes"]) and pd.notna(row["accelerators_per_node"])
                and pd.notna(row["total_accelerators"])
                and int(row["number_of_nodes"]) * int(row["accelerators_per_node"]) != int(row["total_accelerators"])):
            problems.error("column 'total_accelerators' is not number_of_nodes x accelerators_per_node",
                           shown, row["line"])
        if pd.notna(row["score_minutes"]) and row["score_minutes"] == 0:
            problems.error("column 'score_minutes' is zero; leave it empty when there is no score",
                           shown, row["line"])
        if pd.notna(row["rcp_scaling_factor"]) and row["rcp_scaling_factor"] == 0:  # a score is divided by it
            problems.error("column 'rcp_scaling_factor' is zero; it must be greater than 0 (empty means 1)",
                           shown, row["line"])
        _check_provenance(row, problems, shown)
    # One submitter may hold two folders of a round (a power submission beside the plain one, as in one round's
    # results repository): rows that differ by their folder are two results.
    key = [*RESULT_KEY, "submitter_dir"] if "submitter_dir" in frame else list(RESULT_KEY)
    keyed = frame[key].fillna("")
    duplicated = frame[keyed.duplicated(keep="first")]
    for index, row in duplicated.iterrows():
        first = frame[(keyed == keyed.loc[index]).all(axis=1)]["line"].iloc[0]
        problems.error(f"duplicate result ({', '.join(str(row[k]) for k in RESULT_KEY)}), first on line {first}",
                       shown, row["line"])
    return True
