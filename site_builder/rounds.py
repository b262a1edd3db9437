"""What a round is, read from data/rounds/<round>/round.toml: its label, dates and where its results live.

A round is data: everything the site says about a round that is not a result row comes from this file,
so a new round needs a folder, not a code change. The file is optional; without it the round's label is
its name and no repository links are shown.

Its optional `[charts]` table declares what the round's charts feature (see `ChartsDeclaration`); what
it leaves out is derived from the results. Names in it are checked against the data once the data is
loaded (`site_builder.charts.features`), with the line of this file. Its optional `[checker]` table says where
the compliance checker the round was reviewed with differs from today's mlperf-logging (`CheckerDeclaration`),
so that `site-builder ingest` scores the round's results as they were scored when they were published.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from site_builder.errors import Collector, Problem, SiteError, display_path

ROUND_FILE = "round.toml"


@dataclass(frozen=True)
class ChartsDeclaration:
    """The `[charts]` table of round.toml: what the round's charts feature, where the editors choose.

    Every key is optional; a missing one is derived from the results (site_builder/metrics.py)."""

    path: str
    """round.toml as shown in messages."""
    lines: dict[str, int] = field(default_factory=dict)
    """key (or "aliases.<old id>") -> line in round.toml, for errors found against the data."""
    scaling_benchmark: str | None = None
    """Benchmark id of the scaling showcase (time to train against accelerators, per series)."""
    head_to_head: tuple[str, str] | None = None
    """Two accelerators compared head to head on the same benchmarks at the same scale: challenger, reference."""
    single_node_benchmarks: tuple[str, ...] | None = None
    """Benchmark ids of the accelerator comparison, in display order."""
    comparison_scale: int | None = None
    """Accelerators per system in the accelerator comparison and the head-to-head (default 8, one node)."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Old chart id -> current chart id: old public URLs lead to the current chart."""


@dataclass(frozen=True)
class CheckerDeclaration:
    """The `[checker]` table of round.toml: what the round's own release of the compliance checker accepted that
    today's mlperf-logging refuses. A published result is scored by its round's rules as they were released."""

    release: str
    """The checker the round was reviewed with (e.g. "mlcommons/logging 1.1.0-rc4")."""
    warnings: tuple[str, ...]
    """The starts of the findings that release reported as warnings and today's package reports as errors; a run
    whose only errors start so is counted, as it was then."""
    note: str
    """Which rule changed, since which version, with its source: the difference written down as a fact."""


@dataclass(frozen=True)
class BenchmarkName:
    """How one of the round's benchmark ids is shown, and which benchmark it is in later rounds."""

    name: str
    """The benchmark's display name in this round."""
    same_as: str | None = None
    """The id the same benchmark has in data/benchmarks.csv, when this round's folder name differs."""


@dataclass(frozen=True)
class RoundInfo:
    name: str
    """The round's folder name in data/rounds/."""
    label: str
    """How readers see the round named, e.g. "MLPerf Training" and the round's name."""
    published: dt.date | None = None
    """The day the results were published."""
    announcement: str | None = None
    """URL of the organizer's announcement of the results."""
    results_repository: str | None = None
    """URL of the public results repository; a result's folder is <url>/tree/main/<submitter>/results/<system>/<benchmark>."""
    charts: ChartsDeclaration | None = None
    """What the round's charts feature, when the file declares it."""
    benchmarks: dict[str, BenchmarkName] = field(default_factory=dict)
    """The `[benchmarks]` table: benchmark id as the round's results name it -> its display name, and the id it
    has in data/benchmarks.csv when that differs (a folder still named for the model the benchmark replaced)."""
    checker: CheckerDeclaration | None = None
    """Where the round's own compliance checker differs from today's, when the file says so."""


# key -> (type, description); unknown keys are errors.
_SCHEMA = {
    "label": (str, "how readers see the round named"),
    "published": (dt.date, "the day the results were published"),
    "announcement": (str, "URL of the announcement"),
    "results_repository": (str, "URL of the public results repository"),
    "charts": (dict, "what the round's charts feature"),
    "benchmarks": (dict, "benchmark id = display name, or = { name = ..., same_as = id }"),
    "checker": (dict, "release, warnings and note: where the round's own compliance checker differs from today's"),
}
_CHARTS_SCHEMA = {
    "scaling_benchmark": "benchmark id of the scaling showcase",
    "head_to_head": "[challenger, reference]: two accelerators compared head to head",
    "single_node_benchmarks": "benchmark ids of the accelerator comparison",
    "comparison_scale": "accelerators per system in the accelerator comparison and head to head",
    "aliases": "old chart id = current chart id",
}
_CHART_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def _line_of(text: str, key: str, table: str | None = None) -> int | None:
    """Line of `key = ...` at the top level or inside `[table]`; tomllib keeps no positions."""
    current = None
    for number, line in enumerate(text.splitlines(), start=1):
        header = re.match(r"^\s*\[([^\[\]]+)\]\s*(#.*)?$", line)
        if header:
            current = header.group(1).strip()
            if table is None and current == key:
                return number
            continue
        if current == table and re.match(rf'^\s*"?{re.escape(key)}"?\s*=', line):
            return number
    return None


def _is_text_list(value) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) and item for item in value)


def _charts_declaration(raw: dict, text: str, shown: str, problems: Collector) -> ChartsDeclaration:
    """The [charts] table, checked for unknown keys and types; names are checked later against the data."""
    lines = {key: _line_of(text, key, "charts") or _line_of(text, f"charts.{key}") or _line_of(text, "charts")
             for key in raw}
    values: dict = {}
    for key, value in raw.items():
        line = lines[key]
        if key not in _CHARTS_SCHEMA:
            problems.error(f"unknown key '{key}' in [charts]", shown, line,
                           hint="known keys: " + ", ".join(_CHARTS_SCHEMA))
        elif key == "scaling_benchmark":
            if isinstance(value, str) and value:
                values[key] = value
            else:
                problems.error("'scaling_benchmark' must be a benchmark id", shown, line)
        elif key == "head_to_head":
            if _is_text_list(value) and len(value) == 2 and value[0] != value[1]:
                values[key] = (value[0], value[1])
            else:
                problems.error("'head_to_head' must list two different accelerators: [challenger, reference]",
                               shown, line)
        elif key == "single_node_benchmarks":
            if _is_text_list(value) and value and len(set(value)) == len(value):
                values[key] = tuple(value)
            else:
                problems.error("'single_node_benchmarks' must be a list of benchmark ids, each once", shown, line)
        elif key == "comparison_scale":
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                values[key] = value
            else:
                problems.error("'comparison_scale' must be a whole number of accelerators above 0", shown, line)
        elif key == "aliases":
            if not isinstance(value, dict):
                problems.error("'aliases' must be a table: old chart id = current chart id", shown, line)
                continue
            aliases = {}
            for old, new in value.items():
                where = _line_of(text, old, "charts.aliases") or _line_of(text, "aliases", "charts") or line
                lines[f"aliases.{old}"] = where
                if not _CHART_ID.match(old) or not isinstance(new, str) or not _CHART_ID.match(new):
                    problems.error(f"alias '{old}' must map a chart id to a chart id (lower case, digits, '-')",
                                   shown, where)
                elif old == new:
                    problems.error(f"alias '{old}' points to itself", shown, where)
                else:
                    aliases[old] = new
            values[key] = aliases
    return ChartsDeclaration(path=shown, lines=lines, **values)


def _benchmark_names(raw: dict, text: str, shown: str, problems: Collector) -> dict[str, BenchmarkName]:
    """The [benchmarks] table: `id = "Name"` or `id = { name = "Name", same_as = "id" }`."""
    names = {}
    for benchmark, value in raw.items():
        line = _line_of(text, benchmark, "benchmarks") or _line_of(text, "benchmarks")
        if isinstance(value, str) and value.strip():
            names[benchmark] = BenchmarkName(value.strip())
        elif (isinstance(value, dict) and set(value) <= {"name", "same_as"} and isinstance(value.get("name"), str)
              and value["name"].strip() and isinstance(value.get("same_as", ""), str)):
            names[benchmark] = BenchmarkName(value["name"].strip(), value.get("same_as") or None)
        else:
            problems.error(f"benchmark '{benchmark}' must be a display name, or a table with 'name' and optional "
                           f"'same_as' (the benchmark's id in benchmarks.csv)", shown, line)
    return names


def _checker_declaration(raw: dict, text: str, shown: str, problems: Collector) -> CheckerDeclaration | None:
    line = _line_of(text, "checker") or _line_of(text, "release", "checker")
    known = {"release": str, "warnings": list, "note": str}
    bad = False
    for key in raw:
        if key not in known:
            problems.error(f"unknown key '{key}' in [checker]", shown, _line_of(text, key, "checker") or line,
                           hint="known keys: " + ", ".join(known))
            bad = True
    for key, kind in known.items():
        value = raw.get(key)
        if value is None or not isinstance(value, kind) or (kind is list and not (value and _is_text_list(value))):
            problems.error(f"[checker] needs '{key}' as {'a list of texts' if kind is list else 'text'}", shown,
                           _line_of(text, key, "checker") or line)
            bad = True
    if bad:
        return None
    return CheckerDeclaration(release=raw["release"], warnings=tuple(raw["warnings"]), note=raw["note"])


def load_round_info(data_dir: Path, round_name: str, root: Path | None = None) -> RoundInfo:
    """The round's declared facts; every unknown key or wrong type is reported together."""
    path = data_dir / "rounds" / round_name / ROUND_FILE
    shown = display_path(path, root)
    if not path.is_file():
        return RoundInfo(name=round_name, label=round_name)
    text = path.read_text(encoding="utf-8-sig")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line, col = (int(match.group(1)), int(match.group(2))) if match else (None, None)
        raise SiteError(Problem(f"invalid TOML: {exc}", shown, line, col)) from None
    problems = Collector()
    charts, benchmarks, checker = None, {}, None
    for key, value in raw.items():
        if key not in _SCHEMA:
            problems.error(f"unknown key '{key}'", shown, _line_of(text, key),
                           hint="known keys: " + ", ".join(_SCHEMA))
        elif not isinstance(value, _SCHEMA[key][0]) or isinstance(value, dt.datetime):
            kind = {dt.date: "a date (YYYY-MM-DD)", dict: "a table"}.get(_SCHEMA[key][0], "text")
            problems.error(f"'{key}' must be {kind}", shown, _line_of(text, key))
        elif key in ("announcement", "results_repository") and not re.match(r"^https?://\S+$", value):
            problems.error(f"'{key}' must be an absolute http(s) URL", shown, _line_of(text, key))
        elif key == "charts":
            charts = _charts_declaration(value, text, shown, problems)
        elif key == "benchmarks":
            benchmarks = _benchmark_names(value, text, shown, problems)
        elif key == "checker":
            checker = _checker_declaration(value, text, shown, problems)
    problems.raise_if_any()
    return RoundInfo(name=round_name, label=raw.get("label", round_name), published=raw.get("published"),
                     announcement=raw.get("announcement"),
                     results_repository=raw.get("results_repository", "").rstrip("/") or None, charts=charts,
                     benchmarks=benchmarks, checker=checker)


def result_folder_url(info: RoundInfo, submitter_dir: str, system_id: str, benchmark: str) -> str | None:
    """Link to one result's folder in the public results repository, when the round declares one."""
    if not info.results_repository or not submitter_dir:
        return None
    # A folder name may hold a space (an early round's system ids): each segment is percent-encoded.
    path = "/".join(quote(part, safe="") for part in (submitter_dir, "results", system_id, benchmark))
    return f"{info.results_repository}/tree/main/{path}"


def round_order(name: str) -> tuple:
    """Sort key of a round name: its numbers as numbers ("v10.0" after "v9.1"), then the name."""
    return tuple(int(part) for part in re.findall(r"\d+", name)), name


def discover_rounds(data_dir: Path) -> list[str]:
    """Every round with a results table in data/rounds/, oldest first."""
    folder = data_dir / "rounds"
    found = [path.name for path in folder.iterdir() if (path / "results.csv").is_file()] if folder.is_dir() else []
    return sorted(found, key=round_order)


def previous_of(rounds: list[str], name: str) -> str | None:
    """The round before `name` in the site's rounds (oldest first), if any."""
    ordered = sorted(set(rounds) | {name}, key=round_order)
    index = ordered.index(name)
    return ordered[index - 1] if index > 0 else None
