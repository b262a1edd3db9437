"""Reading input files safely: text decoding with located errors, and which files of a folder count.

Shared by the loaders of content/, data/ and locales/ so that every input gets the same rules:
UTF-8 with or without a byte order mark, any line ending, no symlink that leaves the project,
and editor or hidden files ignored with a note instead of being read.
"""

from __future__ import annotations

import csv
import functools
import io
import re
import unicodedata
from pathlib import Path

from site_builder.errors import Collector, Problem, display_path, project_root

# Names that editors, file managers and version control leave beside the files a writer saves.
_EDITOR_LEFTOVER = re.compile(r"""
    ^\.                 # hidden: .DS_Store, .#draft.md (Emacs lock), .draft.md.swp (Vim swap)
  | ^\#.*\#$            # Emacs auto-save: #draft.md#
  | ~$                  # backup: draft.md~
  | \.(swp|swo|swx|tmp|bak|orig|rej)$
""", re.VERBOSE)


def is_editor_leftover(name: str) -> bool:
    return bool(_EDITOR_LEFTOVER.search(name))


def shown_path(path: Path, root: Path | None) -> str:
    """A folder entry as the user names it, relative to the project, without following a symlink."""
    return f"{_shown_folder(path.parent, root if root is not None else project_root())}/{path.name}"


@functools.lru_cache(maxsize=1024)  # thousands of articles share a few folders; resolving each costs syscalls
def _shown_folder(folder: Path, root: Path | None) -> str:
    return display_path(folder, root)


def decode_text(raw: bytes, shown: str) -> tuple[str | None, Problem | None]:
    """UTF-8 text (a leading byte order mark dropped) or a problem naming the line, column and byte."""
    try:
        return raw.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        start = exc.start + (3 if raw.startswith(b"\xef\xbb\xbf") else 0)
        line = raw.count(b"\n", 0, start) + 1
        col = start - (raw.rfind(b"\n", 0, start) + 1) + 1
        return None, Problem(f"not UTF-8: byte 0x{raw[start]:02x} at offset {start} ({exc.reason}); "
                             "save the file as UTF-8", shown, line, col)


def normalize_newlines(text: str) -> str:
    """Windows (CRLF) and old Mac (CR) line endings read as LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def leaves(path: Path, bases: list[Path]) -> bool:
    """True when `path`, once symlinks are followed, is inside none of `bases`."""
    target = path.resolve()
    return not any(target.is_relative_to(base.resolve()) for base in bases)


def check_entry(path: Path, shown: str, bases: list[Path], wanted_suffix: str | None = None) -> Problem | None:
    """Why a folder entry is not read (a note, or an error for a symlink leaving the project), or None.

    Editor and hidden files, dangling symlinks, folders and files of another kind get a note;
    a symlink that resolves outside `bases` is an error, since it would publish a file from elsewhere.
    """
    name = path.name
    if is_editor_leftover(name):
        return Problem("editor or hidden file; ignored", shown, severity="note")
    if path.is_symlink():
        if not path.exists():
            return Problem("dangling symlink; ignored", shown, severity="note")
        if leaves(path, bases):
            return Problem(f"symlink to {path.resolve()}, outside the project; refusing to read it", shown,
                           hint="copy the file into the project instead of linking to it")
    if wanted_suffix is not None and name.endswith(wanted_suffix) and not path.is_file():
        return Problem(f"not a regular file, though named *{wanted_suffix}; ignored", shown, severity="note")
    if wanted_suffix is not None and not name.endswith(wanted_suffix):
        return Problem(f"not a *{wanted_suffix} file; ignored", shown, severity="note")
    return None


def read_small_csv(path: Path, shown: str, required: tuple[str, ...], problems: Collector,
                   optional: tuple[str, ...] = ()) -> list[tuple[int, dict[str, str]]]:
    """(line, row) pairs of a small curated table (accelerators, vendors, display names), read by the same
    rules as every input: UTF-8 with or without a byte order mark, any line ending, NFC text. A missing or
    unknown column, an empty required cell, a row of the wrong length or a broken quote is a problem naming
    the line; such rows are left out."""
    text, problem = decode_text(path.read_bytes(), shown)
    if problem is not None:
        problems.problems.append(problem)
        return []
    reader = csv.reader(io.StringIO(text, newline=""))
    rows = []
    try:
        header = [cell.strip() for cell in next(reader, [])]
        missing = [c for c in required if c not in header]
        unknown = [c for c in header if c not in required + optional]
        if missing or unknown:
            for name in missing:
                problems.error(f"missing column '{name}'", shown, 1)
            for name in unknown:
                problems.error(f"unknown column '{name}'", shown, 1, hint="columns: " + ", ".join(required + optional))
            return []
        for cells in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) != len(header):
                problems.error(f"row has {len(cells)} fields, the header has {len(header)}", shown, line)
                continue
            values = {name: unicodedata.normalize("NFC", cell.strip()) for name, cell in zip(header, cells)}
            empty = [c for c in required if not values[c]]
            if empty:
                problems.error(f"column '{empty[0]}' is empty", shown, line)
                continue
            rows.append((line, values))
    except csv.Error as exc:
        problems.error(f"unreadable CSV: {exc}", shown, reader.line_num or 1)
    return rows
