"""The public chart API: `@chart` declares a chart, `load_project_charts` reads a project's `charts/*.py`.

A chart is a function of the round's data (`ChartInputs`) and a `Language` that returns a `ChartDraft`: the
Altair chart, its translated titles, the plotted rows with their sources, a text alternative and the columns
of its data table. The package's own charts (`charts.builtin`) and a project's are declared the same way and
get the same treatment: localization, colours, dark and print themes, validation, permalink, embed, CSV,
SVG/PNG, `{{< chart ID >}}`, `site-builder chart`, and incremental rebuilds.

    from site_builder.charts import chart

    @chart("gpu-count")                                      # one chart
    def gpu_count(inputs, lang): ...

    @chart("best-{item}", each=lambda inputs: inputs.round_benchmarks())   # one chart per item
    def best(inputs, lang, benchmark): ...

The decorator only marks the function; nothing is registered globally, so loading a project twice (the
preview server rebuilding) never declares a chart twice.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from slugify import slugify

from site_builder.errors import Collector, Problem, display_path

MARK = "__site_builder_chart__"
CHART_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass(frozen=True)
class ChartEntry:
    """A declared chart: its id (or id pattern), the function that drafts it, and where it was declared."""

    chart_id: str | Callable[..., str]
    factory: Callable
    each: Callable | None = None  # inputs -> the items to make one chart each for
    when: Callable | None = None  # inputs -> whether the round calls for the chart
    path: str | None = None  # the project file that declares it (None for the package's charts)
    line: int | None = None
    source: bytes = b""  # the declaring file's bytes: an edit to it makes the chart again
    file: str | None = None  # the declaring file's absolute path, to find its lines in a traceback

    def ids(self, inputs) -> list[tuple[str, object]]:
        """(chart id, item) for each chart the entry makes for this round (item None without `each`)."""
        if self.when is not None and not self.when(inputs):
            return []
        if self.each is None:
            return [(self.chart_id if isinstance(self.chart_id, str) else self.chart_id(), None)]
        made = []
        for item in self.each(inputs):
            if callable(self.chart_id):
                made.append((self.chart_id(*item) if isinstance(item, tuple) else self.chart_id(item), item))
            else:
                made.append((self.chart_id.format(item=slugify(str(item))), item))
        return made


def chart(chart_id: str | Callable[..., str], *, each: Callable | None = None,
          when: Callable | None = None) -> Callable:
    """Declare a chart. `chart_id` is part of the public URLs (charts/<lang>/<id>.vl.json): lower-case words
    joined by '-'. With `each` (a function of the inputs returning items), the function is called as
    `f(inputs, lang, item)` once per item and `chart_id` holds `{item}` (the item, slugified) or is a
    function of the item. `when` (a function of the inputs) leaves the chart out of rounds it does not fit."""
    def mark(factory: Callable) -> Callable:
        code = getattr(factory, "__code__", None)
        setattr(factory, MARK, ChartEntry(chart_id, factory, each, when,
                                          line=code.co_firstlineno if code is not None else None))
        return factory
    return mark


@dataclass(frozen=True)
class BoundChart:
    """One chart of one round, ready to draft in any language: a `ChartFactory`."""

    chart_id: str
    entry: ChartEntry
    item: object = None

    def __call__(self, inputs, lang):
        if self.entry.each is None:
            return self.entry.factory(inputs, lang)
        return self.entry.factory(inputs, lang, self.item)

    @property
    def identity(self) -> tuple:
        """What makes this chart this chart, for the build cache: the function, the item, and for a project's
        chart its file's bytes (the package's own source is in every cache key already)."""
        factory = self.entry.factory
        return (getattr(factory, "__module__", ""), getattr(factory, "__qualname__", repr(factory)),
                repr(self.item), self.entry.path or "", self.entry.source)


def declared_in(namespace: dict) -> list[ChartEntry]:
    """The charts a module declares, in the order of their definitions."""
    entries = [getattr(value, MARK) for value in namespace.values() if callable(value) and hasattr(value, MARK)]
    return sorted(dict.fromkeys(entries), key=lambda entry: entry.line or 0)


def load_project_charts(charts_dir: Path, root: Path | None = None) -> tuple[list[ChartEntry], list[Problem]]:
    """Every chart declared in the project's `charts/*.py` (files in name order) and warnings (a file that
    declares none), or every error: an exception while a file is read is `charts/x.py:LINE: error: ...`,
    never a traceback."""
    if not charts_dir.is_dir():
        return [], []
    problems = Collector()
    warnings: list[Problem] = []
    entries: list[ChartEntry] = []
    for path in sorted(charts_dir.glob("*.py")):
        if path.name.startswith((".", "_")) or not path.is_file():
            continue
        shown = display_path(path, root)
        try:
            source = path.read_bytes()
        except OSError as error:
            problems.error(f"cannot read the chart module: {error.strerror}", shown)
            continue
        name = "site_builder_project_charts." + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12] \
            + "_" + re.sub(r"\W", "_", path.stem)
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # dataclasses and pickling look their module up
            # The bytes just read, compiled here: no __pycache__, whose mtime-and-size check would run an edit
            # saved within the same second at the same size as the old code.
            exec(compile(source, str(path), "exec"), module.__dict__)  # noqa: S102 - the project's own chart code
        except SyntaxError as error:
            problems.error(f"syntax error: {error.msg}", shown, error.lineno, error.offset)
            continue
        except (Exception, SystemExit) as error:  # noqa: BLE001 - the project's code: located, never a traceback
            problems.error(f"{type(error).__name__} while reading the chart module: {error}", shown,
                           error_line(error, path))
            continue
        found = [ChartEntry(e.chart_id, e.factory, e.each, e.when, shown, e.line, source, str(path.resolve()))
                 for e in declared_in(vars(module)) if getattr(e.factory, "__module__", None) == name]
        if not found:
            warnings.append(Problem("declares no chart", shown, hint="decorate a function with "
                                    "@chart(\"my-chart\") (from site_builder.charts import chart)",
                                    severity="warning"))
        entries += found
    problems.raise_if_any()
    return entries, warnings


def error_line(error: BaseException, path: Path | str) -> int | None:
    """The line of `path` where `error` was raised (its innermost frame in that file)."""
    wanted = str(Path(path).resolve())
    line = None
    for frame in traceback.extract_tb(error.__traceback__):
        if str(Path(frame.filename).resolve()) == wanted:
            line = frame.lineno
    return line


def expand(entries: Iterable[ChartEntry], inputs) -> dict[str, BoundChart]:
    """Chart id -> the chart, in declaration order; a project chart whose id another chart has is an error."""
    problems = Collector()
    charts: dict[str, BoundChart] = {}
    for entry in entries:
        try:
            made = entry.ids(inputs)
        except (Exception, SystemExit) as error:  # noqa: BLE001 - a project's `each` or `when`: located
            if entry.path is None:
                raise
            problems.error(f"{type(error).__name__} while listing the charts: {error}", entry.path,
                           error_line(error, entry.file) or entry.line)
            continue
        for chart_id, item in made:
            if entry.path is not None and not (isinstance(chart_id, str) and CHART_ID.match(chart_id)):
                problems.error(f"chart id {chart_id!r} is not lower-case words joined by '-'", entry.path,
                               entry.line, hint="the id is part of the chart's URL, e.g. 'gpu-count'")
                continue
            if chart_id in charts:
                problems.error(f"chart id '{chart_id}' is already taken"
                               + (f" by {charts[chart_id].entry.path}" if charts[chart_id].entry.path else
                                  " by a chart of site-builder"), entry.path, entry.line,
                               hint="give the chart another id")
                continue
            charts[chart_id] = BoundChart(chart_id, entry, item)
    problems.raise_if_any()
    return charts
