"""The build: a list of named stages (`stages.STAGES`) run in order over one `BuildState`.

The list drives the progress bar, the timings of the build report and the error boundaries: whatever a stage
raises becomes a problem that names the stage (and the page or file, where the stage knows it), never a
traceback. This module imports nothing heavy: a build whose inputs and output are unchanged since the last one
is found (`uptodate`) and answered before pandas, Altair or markdown-it are loaded.
"""

from __future__ import annotations

import dataclasses
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from site_builder import cache, parallel, uptodate
from site_builder.config import load_config
from site_builder.errors import Problem, SiteError, shown_from


@dataclass(frozen=True)
class BuildReport:
    """What a successful build made (the result of `build_site`)."""

    out_dir: Path
    """The folder the site was written to."""
    languages: tuple[str, ...]
    """The languages built, in site.toml's order."""
    pages: int
    """HTML pages (without the embed pages)."""
    charts: int
    """Charts, one per chart id and language."""
    files: int
    """Files in the output folder."""
    warnings: tuple[Problem, ...]
    """Warnings (and notes) found in the inputs, each located; with `strict=True` a warning fails the build."""
    seconds: float
    """Wall time of the build."""
    notes: tuple[Problem, ...] = ()
    """What the round's data does not call for (a chart it has no use for)."""
    written: int = 0
    """Files whose bytes changed (the others were left as they were)."""
    stages: tuple[tuple[str, float], ...] = ()
    """(stage, seconds) in build order: "checking inputs", then each of `stages.STAGES`. Empty for a build that
    found nothing changed (and did nothing)."""


UNTIMED_FIELDS = ("out_dir", "languages", "pages", "charts", "files", "warnings", "notes")  # kept for a no-op build


@dataclass(frozen=True)
class Stage:
    name: str
    run: Callable
    gate: bool = False
    """Problems found so far (this stage's and earlier ones') stop the build after this stage: the stages before
    a gate each report what they find, so that one run lists every problem of the inputs."""


def build_site(root: Path, out_dir: Path | None = None, base_url: str | None = None,
               strict: bool = False, jobs: int | None = None,
               progress: Callable[[int, int, str], None] | None = None) -> BuildReport:
    """Build the site of the project in `root` (the folder holding site.toml) and return its `BuildReport`.

    - `out_dir`: where the site goes (default: `root / "_site"`); replaced atomically, so it never holds half a
      site. Not inside content/, data/, templates/ or locales/.
    - `base_url`: the address the site is served from, instead of site.toml's.
    - `strict`: warnings (a missing translation, a placeholder base URL, ...) fail the build.
    - `jobs`: worker processes for charts, Markdown, pages and images (default: one per CPU; 1: none, but one for
      the charts the cache lacks).
    - `progress(done, total, stage)`: called as each stage starts (the CLI draws a bar with it).

    Raises `SiteError` when the inputs have problems: its `.problems` lists every one found in the run (each a
    `Problem` with `message`, `path`, `line`, `col`, `hint` and `severity`; `str(problem)` reads
    `file:line: error: message`), and the previous site in `out_dir` is left untouched. A build whose inputs and
    output are unchanged since the last one does nothing and returns that build's report (with `written == 0`
    and no `stages`). Same as `site-builder build`, which calls it.
    """
    with shown_from(root):  # every problem of the build names its file relative to the project
        return _build(root, out_dir, base_url, strict, jobs, progress)


def _build(root: Path, out_dir: Path | None, base_url: str | None, strict: bool, jobs: int | None,
           progress: Callable[[int, int, str], None] | None) -> BuildReport:
    started = time.perf_counter()
    config = load_config(root, base_url)
    out_dir = out_dir if out_dir is not None else root / "_site"
    cache_limit = cache.cache_limit()
    cache.open_cache()
    # Before reading anything: an edit made while the build runs counts as a change for the next one.
    snapshot = uptodate.Snapshot.take(config, out_dir, strict)
    if (previous := snapshot.previous_report()) is not None:
        return BuildReport(**previous, seconds=time.perf_counter() - started)  # the site is already this build

    from site_builder import stages  # the build's libraries: only now that there is something to build

    state = stages.BuildState(config=config, out_dir=out_dir, strict=strict, base_url=base_url,
                              jobs=parallel.default_jobs() if jobs is None else max(1, jobs),
                              snapshot=snapshot, cache_limit=cache_limit)
    progress = progress or (lambda done, total, stage: None)
    timings = [("checking inputs", time.perf_counter() - started)]
    try:
        for done, stage in enumerate(stages.STAGES):
            progress(done, len(stages.STAGES), stage.name)
            began = time.perf_counter()
            try:
                stage.run(state)
            except SiteError as error:
                state.problems.extend(error)
            except Exception as error:  # noqa: BLE001 - a bug, reported as a problem of its stage, not a traceback
                state.problems.problems.append(internal_problem(error, f"while {stage.name}"))
            timings.append((stage.name, time.perf_counter() - began))
            if state.problems.problems and (stage.gate or not _collecting(stages.STAGES, done)):
                raise SiteError(state.problems.problems)
    finally:
        state.close()
    report = state.report
    return dataclasses.replace(report, seconds=time.perf_counter() - started, stages=tuple(timings))


def _collecting(stage_list, done: int) -> bool:
    """Whether a gate is still to come: until then, stages go on finding problems."""
    return any(stage.gate for stage in stage_list[done + 1:])


def internal_problem(error: BaseException, where: str) -> Problem:
    """An unexpected exception as a problem: what it was, where (the innermost frame of this package) and when."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if "site_builder" in frame.filename]
    at = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno} ({frames[-1].name})" if frames else ""
    return Problem(f"internal error {where}: {type(error).__name__}: {error}",
                   hint=f"this is a bug in site-builder{at}; please report it with the inputs that caused it")
