"""What a round is, read from data/rounds/<round>/round.toml: its label, dates and where its results live.

A round is data: everything the site says about a round that is not a result row comes from this file,
so a new round needs a folder, not a code change. The file is optional; without it the round's label is
its name and no repository links are shown.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from site_builder.errors import Collector, Problem, SiteError, display_path

ROUND_FILE = "round.toml"


@dataclass(frozen=True)
class RoundInfo:
    name: str
    """The round's folder name, e.g. "v6.0"."""
    label: str
    """How readers see the round named, e.g. "MLPerf Training v6.0"."""
    published: dt.date | None = None
    """The day the results were published."""
    announcement: str | None = None
    """URL of the organizer's announcement of the results."""
    results_repository: str | None = None
    """URL of the public results repository; a result's folder is <url>/tree/main/<submitter>/results/<system>/<benchmark>."""


# key -> (type, description); unknown keys are errors.
_SCHEMA = {
    "label": (str, "how readers see the round named"),
    "published": (dt.date, "the day the results were published"),
    "announcement": (str, "URL of the announcement"),
    "results_repository": (str, "URL of the public results repository"),
}


def _line_of(text: str, key: str) -> int | None:
    for number, line in enumerate(text.splitlines(), start=1):
        if re.match(rf"^\s*{re.escape(key)}\s*=", line):
            return number
    return None


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
    for key, value in raw.items():
        if key not in _SCHEMA:
            problems.error(f"unknown key '{key}'", shown, _line_of(text, key),
                           hint="known keys: " + ", ".join(_SCHEMA))
        elif not isinstance(value, _SCHEMA[key][0]) or isinstance(value, dt.datetime):
            problems.error(f"'{key}' must be {'a date (YYYY-MM-DD)' if _SCHEMA[key][0] is dt.date else 'text'}",
                           shown, _line_of(text, key))
        elif key in ("announcement", "results_repository") and not re.match(r"^https?://\S+$", value):
            problems.error(f"'{key}' must be an absolute http(s) URL", shown, _line_of(text, key))
    problems.raise_if_any()
    return RoundInfo(name=round_name, label=raw.get("label", round_name), published=raw.get("published"),
                     announcement=raw.get("announcement"),
                     results_repository=raw.get("results_repository", "").rstrip("/") or None)


def result_folder_url(info: RoundInfo, submitter_dir: str, system_id: str, benchmark: str) -> str | None:
    """Link to one result's folder in the public results repository, when the round declares one."""
    if not info.results_repository or not submitter_dir:
        return None
    return f"{info.results_repository}/tree/main/{submitter_dir}/results/{system_id}/{benchmark}"
