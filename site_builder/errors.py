"""One error type that carries its location, and a collection for reporting them all at once."""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """A located diagnostic; `str()` reads like a compiler message: `file:line:col: error: ...`."""

    message: str
    path: str | None = None
    line: int | None = None
    col: int | None = None
    hint: str | None = None
    severity: str = "error"

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = self.path
            if self.line is not None:
                where += f":{self.line}"
                if self.col is not None:
                    where += f":{self.col}"
            where += ": "
        text = f"{where}{self.severity}: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class SiteError(Exception):
    """Raised with every problem found by a stage, so the user sees all of them in one run."""

    def __init__(self, problems: list[Problem] | Problem):
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    def __reduce__(self):  # from a worker process: the problems, not the message split into characters
        return type(self), (self.problems,)


_project: ContextVar[Path | None] = ContextVar("project", default=None)


@contextlib.contextmanager
def shown_from(root: Path):
    """While this holds, problems name files relative to `root` (the project folder): the build and the commands
    say once where the project is, instead of handing its folder down to every stage that reads a file."""
    token = _project.set(root)
    try:
        yield
    finally:
        _project.reset(token)


def project_root() -> Path | None:
    """The project folder problems are shown relative to (`shown_from`), if any."""
    return _project.get()


def display_path(path: Path | str, root: Path | None = None) -> str:
    """A path as the user typed it: relative to the project root (`root`, else `shown_from`'s) where possible."""
    path = Path(path)
    root = root if root is not None else _project.get()
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return path.as_posix()


class Collector:
    """Gathers problems across a stage; `raise_if_any()` fails once with the full list."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def error(self, message: str, path: str | None = None, line: int | None = None,
              col: int | None = None, hint: str | None = None) -> None:
        self.problems.append(Problem(message, path, line, col, hint))

    def extend(self, error: SiteError) -> None:
        self.problems.extend(error.problems)

    def raise_if_any(self) -> None:
        if self.problems:
            raise SiteError(self.problems)
