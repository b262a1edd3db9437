"""`site-builder build --report FILE.json`: the build's outcome for programs (CI, dashboards), written
atomically, with a fixed key order, for a full, a no-op and a failed build alike (standard library only, so a
no-op build imports nothing heavy).

```
{"ok": true, "out_dir": "_site", "up_to_date": false, "languages": ["en", "nl"],
 "pages": 40, "charts": 20, "files": 310, "files_written": 12,
 "errors": [], "warnings": [{"path": "site.toml", "line": 5, "col": null, "severity": "warning",
                             "message": "...", "hint": "..."}], "notes": [],
 "seconds": 3.412, "stages": [{"stage": "checking inputs", "seconds": 0.05}, ...]}
```
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from site_builder.errors import Problem, SiteError

FORMAT = 1


def problem_dict(problem: Problem) -> dict:
    return {"path": problem.path, "line": problem.line, "col": problem.col, "severity": problem.severity,
            "message": problem.message, "hint": problem.hint}


def document(report=None, error: SiteError | None = None, seconds: float = 0.0, out_dir: Path | None = None,
             languages: Iterable[str] = ()) -> dict:
    """The report of a finished build (`report`: a BuildReport, or the no-op build's record) or of a failed one
    (`error`)."""
    if report is not None:
        warnings = [w for w in report.warnings if w.severity != "note"]
        notes = [*report.notes, *(w for w in report.warnings if w.severity == "note")]
        stages = list(getattr(report, "stages", ()) or ())
        return {
            "format": FORMAT, "ok": True, "out_dir": str(report.out_dir), "up_to_date": not stages,
            "languages": list(report.languages), "pages": report.pages, "charts": report.charts,
            "files": report.files, "files_written": report.written, "errors": [],
            "warnings": [problem_dict(w) for w in warnings], "notes": [problem_dict(n) for n in notes],
            "seconds": round(report.seconds, 3),
            "stages": [{"stage": name, "seconds": round(took, 3)} for name, took in stages],
        }
    problems = error.problems if error is not None else []
    return {
        "format": FORMAT, "ok": False, "out_dir": str(out_dir) if out_dir is not None else None, "up_to_date": False,
        "languages": list(languages), "pages": None, "charts": None, "files": None, "files_written": 0,
        "errors": [problem_dict(p) for p in problems if p.severity == "error"],
        "warnings": [problem_dict(p) for p in problems if p.severity == "warning"],
        "notes": [problem_dict(p) for p in problems if p.severity == "note"],
        "seconds": round(seconds, 3), "stages": [],
    }


def write(path: Path, data: dict) -> None:
    """Write the report beside its target and rename it into place: a reader never sees half a report."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
