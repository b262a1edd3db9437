"""Curated display names (data/display_names.csv): what readers see instead of a raw submitter, system or
author id. Raw ids stay for anchors, CSV downloads and the result detail view."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from site_builder.errors import Collector, display_path
from site_builder.sources import read_small_csv

FILE_NAME = "display_names.csv"
KINDS = ("submitter", "system", "author")
COLUMNS = ("kind", "id", "display_name", "note")


@dataclass(frozen=True)
class DisplayNames:
    """kind -> id -> display name; an id without an entry is shown as it is."""

    names: dict[str, dict[str, str]] = field(default_factory=dict)

    def __identity__(self) -> tuple:  # in a planned page's key: data/display_names.csv is among the site's inputs
        return ("display names",)

    def name(self, kind: str, raw_id) -> str:
        return self.names.get(kind, {}).get(str(raw_id), str(raw_id))

    def submitter(self, raw_id) -> str:
        return self.name("submitter", raw_id)

    def system(self, raw_id) -> str:
        return self.name("system", raw_id)

    def author(self, raw_id) -> str:
        return self.name("author", raw_id)

    def authors(self, raw_ids) -> list[str]:
        return [self.author(raw_id) for raw_id in raw_ids]

    def in_text(self, text: str) -> str:
        """A generated sentence (a chart's text alternative) with each submitter id that has a different display
        name replaced, as a whole token only: "Acme_1" becomes "Acme Corp", "Acme_1_system" stays as it is."""
        renamed, pattern = self._renaming
        if pattern is None:
            return text
        return pattern.sub(lambda match: renamed[match.group(1)], text)

    @functools.cached_property
    def _renaming(self) -> tuple[dict[str, str], re.Pattern | None]:
        """The ids to rename and one pattern for all of them, made once (charts rename every string of a spec)."""
        renamed = {raw: name for raw, name in self.names.get("submitter", {}).items() if raw != name}
        if not renamed:
            return renamed, None
        return renamed, re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, sorted(renamed, key=len, reverse=True)))
                                   + r")(?![\w-])")

    def missing(self, kind: str, ids) -> list[str]:
        """Ids of a kind that have no curated name, sorted (for the completeness test and the build note)."""
        known = self.names.get(kind, {})
        return sorted({str(i) for i in ids} - set(known))


def load_display_names(data_dir: Path, root: Path | None = None) -> DisplayNames:
    """Read and check the file: every problem (unknown kind, duplicate id, empty name) at file:line at once.
    A data folder without the file has no curated names (ids are shown as they are)."""
    path = data_dir / FILE_NAME
    if not path.exists():
        return DisplayNames()
    shown = display_path(path, root)
    problems = Collector()
    names: dict[str, dict[str, str]] = {kind: {} for kind in KINDS}
    first_line: dict[tuple[str, str], int] = {}
    for line, row in read_small_csv(path, shown, COLUMNS[:3], problems, optional=COLUMNS[3:]):
        kind, raw_id, display = row["kind"], row["id"], row["display_name"]
        if kind not in KINDS:
            problems.error(f"unknown kind '{kind}'", shown, line, hint="kinds: " + ", ".join(KINDS))
        elif (kind, raw_id) in first_line:
            problems.error(f"duplicate {kind} id '{raw_id}'", shown, line,
                           hint=f"first given at line {first_line[(kind, raw_id)]}")
        else:
            first_line[(kind, raw_id)] = line
            names[kind][raw_id] = display
    problems.problems.sort(key=lambda problem: problem.line or 0)  # in file order, whichever check found them
    problems.raise_if_any()
    return DisplayNames(names)
