"""The only stage that touches the output folder.

`SiteFiles` is the guarded map of output path -> bytes. `out_dir_problems` refuses a bad --out before anything
is rendered. `write_site` takes a lock beside the output folder, removes what killed builds left there, writes
a staging folder and swaps it in, so that the site folder exists at every moment and a failure leaves the
previous site as it was.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import re
import shutil
import stat
import sys
import tempfile
import threading
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from site_builder.errors import Problem, SiteError, display_path

MARKER = ".site-builder"  # identifies a folder this tool wrote, so a rebuild may replace it
LOCK_TIMEOUT = 300.0  # seconds a build waits for another one writing the same folder (SITE_BUILDER_LOCK_TIMEOUT)
MAX_NAME_BYTES = 255  # the longest file name ext4, APFS and NTFS accept


@dataclass(frozen=True)
class Keep:
    """The content of a file the previous build wrote from the same inputs: carried over unread. `state` is
    (size, mtime in ns, inode) as the build found it; a file that differs when the site is written (another
    build wrote there meanwhile) fails the build rather than being carried over."""

    state: tuple[int, int, int]


@dataclass(frozen=True)
class FromFile:
    """Content that is already in a file (a rendering in the build cache, a page in the build's spool): read,
    copied or (`owned`: the build's own spool file) moved only when the site is written, so thousands of
    pages and images never sit in memory together."""

    path: str
    owned: bool = False
    skip: int = 0  # bytes in front of the content (a cache entry's seal, see `cache.seal`)


def spool_folder(out_dir: Path) -> Path:
    """A private folder beside the output for pages made before the site is written (on its filesystem, so
    they are moved into place, not copied). The build removes it; a killed build's is removed by the next
    build once its process is gone."""
    target = Path(os.path.realpath(out_dir))
    target.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{target.name}.spool-{os.getpid()}-", dir=target.parent))


class SiteFiles:
    """Output path -> bytes, or Keep for a file of the previous site that the build found still current (by the
    key it was made from, see `uptodate`). Refuses paths that escape the site root, that no filesystem can
    hold, and paths written twice (also when they differ only in case or Unicode form: one file on
    macOS/Windows)."""

    def __init__(self) -> None:
        self._files: dict[str, bytes] = {}
        self._folded: dict[str, str] = {}
        self._folders: set[str] = set()

    def keep(self, path: str, state: tuple[int, int, int]) -> str:
        """The previous site's file at `path` (found with this size, mtime and inode) stays as it is."""
        return self.add(path, Keep(tuple(state)))

    def add(self, path: str, content: bytes | str | FromFile | Keep) -> str:
        normalized = _checked_path(path)
        folded = normalized.lower() if normalized.isascii() else unicodedata.normalize("NFC", normalized).casefold()
        if folded in self._folded:
            other = self._folded[folded]
            same = "" if other == normalized else f" ({other!r} is the same file on case-insensitive filesystems)"
            raise SiteError(Problem(f"two outputs want the same path {normalized!r}{same}"))
        clash = normalized if normalized in self._folders else None
        new_folders = []
        for parent in _parents(normalized):
            if parent in self._folders:  # and so are its own parents: none of them is a file
                break
            if parent in self._files:
                clash = clash or parent
                break
            new_folders.append(parent)
        if clash:
            raise SiteError(Problem(f"output path {normalized!r} needs {clash!r} to be both a file and a folder"))
        self._files[normalized] = content.encode("utf-8") if isinstance(content, str) else content
        self._folded[folded] = normalized
        self._folders.update(new_folders)
        return normalized

    def folders(self) -> set[str]:
        """Every folder the site's files are in (not the root)."""
        return set(self._folders)

    def __contains__(self, path: str) -> bool:
        return path in self._files

    def kept(self, path: str) -> bool:
        """Whether the output at `path` is the previous site's file, kept as it was."""
        return isinstance(self._files.get(path), Keep)

    def read(self, path: str, site: Path) -> bytes:
        """The bytes of the output at `path`. `site`: the folder of the previous site, for a kept file."""
        content = self._files[path]
        if isinstance(content, Keep):
            return (site / path).read_bytes()
        return _read(content) if isinstance(content, FromFile) else content

    def link(self, path: str, site: Path, to: Path) -> None:
        """Put the output at `path` in the file `to` (a hard link where it can be: nothing is read), for a tool
        that reads files (the search indexer). `site`: the folder of the previous site, for a kept file."""
        content = self._files[path]
        to.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, (Keep, FromFile)) and not getattr(content, "skip", 0):
            try:
                os.link(site / path if isinstance(content, Keep) else content.path, to)
                return
            except OSError:  # another filesystem, or one without hard links: copied
                pass
        if isinstance(content, Keep):
            shutil.copyfile(site / path, to)
        elif isinstance(content, FromFile):
            with open(content.path, "rb") as source, open(to, "wb") as target:
                source.seek(content.skip)
                shutil.copyfileobj(source, target)
        else:
            to.write_bytes(content)

    def __len__(self) -> int:
        return len(self._files)

    def paths(self) -> list[str]:
        return sorted(self._files)

    def items(self):
        return sorted(self._files.items())


def _parents(path: str) -> list[str]:
    """The folders a relative POSIX path is in, nearest first ("a/b/c" -> ["a/b", "a"]): PurePosixPath's
    parents without the root, as plain strings (13,000 paths a build)."""
    found, end = [], path.rfind("/")
    while end > 0:
        found.append(path[:end])
        end = path.rfind("/", 0, end)
    return found


_PLAIN_PATH = re.compile(r"[\x20-\x5b\x5d-\x7e]+")  # printable ASCII but the backslash


def _checked_path(path: str) -> str:
    if _PLAIN_PATH.fullmatch(path) and not path.startswith("/") and all(
            part not in ("", ".", "..", MARKER) and len(part) <= MAX_NAME_BYTES for part in path.split("/")):
        return path  # the common case, as the checks below would find it (and already in its normal form)
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or ".." in pure.parts or "\\" in path:
        reason = "it is outside the site root"
    elif not pure.parts:
        reason = "it names the site root itself"
    elif any(ord(char) < 32 or ord(char) == 127 for char in path):
        reason = "it contains a control character"
    elif MARKER in pure.parts:
        reason = f"{MARKER} is reserved for the marker of generated folders"
    else:
        try:
            too_long = any(len(part.encode("utf-8")) > MAX_NAME_BYTES for part in pure.parts)
        except UnicodeEncodeError:
            reason = "it is not valid Unicode"
        else:
            reason = f"a name in it is longer than {MAX_NAME_BYTES} bytes" if too_long else None
    if reason:
        raise SiteError(Problem(f"refusing to write {path!r}: {reason}"))
    return pure.as_posix()


def out_dir_problems(out_dir: Path, project: Path, inputs: dict[str, Path]) -> list[Problem]:
    """Everything wrong with `--out`, found before rendering: a folder the swap would destroy (the project,
    an input folder, someone else's files), one that feeds the site back into the inputs, a file, a folder
    that cannot be written. `inputs` maps a name ("content") to the input folder."""
    shown = out_dir.as_posix()
    hint = "choose a folder outside " + ", ".join(f"{name}/" for name in inputs) + ", such as _site"
    if out_dir.is_symlink() and not out_dir.exists():
        return [Problem("the output folder is a broken symbolic link", shown)]
    target, project = Path(os.path.realpath(out_dir)), project.resolve()
    if target == project or target in project.parents:
        return [Problem("the output folder is the project folder or contains it; a build replaces its output "
                        "folder", shown, hint=hint)]
    problems = []
    for name, folder in inputs.items():
        folder = folder.resolve()
        if target.is_relative_to(folder):
            problems.append(Problem(f"the output folder is inside the {name} folder "
                                    f"({display_path(folder, project)}), an input of the build", shown, hint=hint))
        elif folder.is_relative_to(target):
            problems.append(Problem(f"the output folder contains the {name} folder, an input of the build",
                                    shown, hint=hint))
    if problems:
        return problems
    try:
        _lock_timeout()
    except SiteError as error:
        problems += error.problems
    try:
        problems += _replace_problems(target, shown)
        ancestor = next(p for p in [target.parent, *target.parent.parents] if os.path.lexists(p))
        if not ancestor.is_dir():
            problems.append(Problem(f"the output folder cannot be created: {ancestor} is a file", shown))
        elif reason := _cannot_write(ancestor, target.name):
            problems.append(Problem(f"the output folder cannot be written: {ancestor}: {reason}", shown,
                                    hint="choose a folder you can write to"))
    except OSError as error:
        problems.append(Problem(f"cannot inspect the output folder: {error.strerror}", shown))
    return problems


def _cannot_write(folder: Path, name: str) -> str | None:
    """Why nothing can be created in `folder`, found by trying (permissions, read-only or special
    filesystems); the probe is named like a staging folder, so even a killed probe is cleaned up."""
    try:
        probe = tempfile.mkdtemp(prefix=f".{name}.new-", dir=folder)
    except OSError as error:
        return error.strerror or str(error)
    with contextlib.suppress(OSError):  # a build cleaning up leftovers right now may have removed it
        os.rmdir(probe)
    return None


def _replace_problems(target: Path, shown: str) -> list[Problem]:
    if os.path.lexists(target) and not target.is_dir():
        return [Problem("the output folder is a file", shown, hint="choose a folder, or remove the file")]
    if target.is_dir() and not (target / MARKER).exists() and any(target.iterdir()):
        return [Problem("the output folder exists, is not empty and was not written by site-builder; "
                        "refusing to replace it", shown, hint="choose another --out or empty the folder")]
    return []


MARKER_TEXT = b"This folder is generated by site-builder; it is replaced on each build.\n"


@dataclass
class WriteReport:
    """What a write did: files written anew and files carried over (hard links to the previous site's); the
    new site's files as (size, mtime, inode), when it was swapped in (so its tree need not be walked again)."""

    written: int = 0
    kept: int = 0
    swapped: bool = False
    state: dict[str, tuple[int, int, int]] | None = None


def write_site(files: SiteFiles, out_dir: Path, lock_timeout: float | None = None,
               background_removal: bool = False) -> WriteReport:
    """Put `files` at `out_dir`, holding the output's lock. When the site already holds exactly these bytes,
    nothing is touched. Otherwise a staging folder beside it gets the files: those whose bytes did not change
    are hard links to the current site's (not rewritten: same inode, same mtime), the others are written;
    then it is swapped in. With `background_removal` the previous tree is deleted by a thread after the swap
    (the process waits for it at exit, see `wait_for_removals`), off the build's critical path."""
    shown = out_dir.as_posix()
    target = Path(os.path.realpath(out_dir))  # a symlinked output folder is replaced where it points
    report = WriteReport()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with _locked(target, shown, lock_timeout):
            _remove_leftovers(target)
            problems = _replace_problems(target, shown)  # again: the folder may have changed while rendering
            if problems:
                raise SiteError(problems)
            if _holds_exactly(target, files):
                report.kept = len(files)
                return report
            staging = _staging(target)
            try:
                _fill(staging, files, target if target.is_dir() else None, report)
                old = _swap_in(staging, target)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
            report.swapped = True
            if old is not None and not (old == staging and _kept_as_spare(old, target)):
                # the previous site, already out of the way: its removal delays nobody
                if background_removal:
                    _remove_in_background(old)
                else:
                    shutil.rmtree(old, ignore_errors=True)
    except OSError as error:
        where = f" ({error.filename})" if error.filename else ""
        raise SiteError(Problem(f"cannot write the site: {error.strerror or error}{where}", shown)) from None
    return report


def _same_bytes(path: Path | str, content: bytes | FromFile) -> bool:
    """True when `path` is a regular file (not a link) holding exactly `content`."""
    try:
        status = os.lstat(path)
        if not stat.S_ISREG(status.st_mode):
            return False
        if isinstance(content, FromFile):
            if os.stat(content.path).st_size - content.skip != status.st_size:
                return False
            content = _read(content)
        if status.st_size != len(content):
            return False
        with open(path, "rb") as stream:
            return stream.read() == content
    except OSError:
        return False


def _holds_exactly(target: Path, files: SiteFiles) -> bool:
    """Whether the site folder already is this site: the same files with the same bytes, and nothing else."""
    if not target.is_dir() or target.is_symlink():
        return False
    if not all(_unchanged(os.path.join(target, relative), content) if isinstance(content, Keep)
               else _same_bytes(os.path.join(target, relative), content)
               for relative, content in files.items()):
        return False  # the common case of a build with changes: found before walking the whole tree
    expected = {relative for relative, _ in files.items()} | {MARKER}
    found = set()
    for folder, dirs, names in os.walk(target):
        base = os.path.relpath(folder, target)
        for name in names:
            found.add(name if base == "." else f"{base}/{name}")
        if not names and not dirs and folder != str(target):
            return False  # an empty folder the site does not have
    return found == expected and _same_bytes(target / MARKER, MARKER_TEXT)


def spare_path(target: Path) -> Path:
    """Where the site before the current one is kept: the next build's staging folder."""
    return target.parent / f".{target.name}.spare"


def _staging(target: Path) -> Path:
    """A staging folder: the spare (the site two builds ago, mostly hard links to the current one's files),
    brought up to date in place by `_fill`, which costs a few changed files instead of thousands of new
    folders and links; a new empty folder when there is no spare."""
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=target.parent))
    spare = spare_path(target)
    if spare.is_dir() and not spare.is_symlink():
        with contextlib.suppress(OSError):  # a rename onto an empty folder replaces it; a killed build
            os.rename(spare, staging)      # leaves it as a .new- leftover, removed by the next build
    elif os.path.lexists(spare):
        _remove(str(spare))
    return staging


def _kept_as_spare(old: Path, target: Path) -> bool:
    """Keep the previous site beside the new one for the next build to stage in; False when it cannot be."""
    try:
        os.rename(old, spare_path(target))
    except OSError:
        return False
    return True


def _existing(folder: Path) -> tuple[dict[str, os.stat_result], set[str]]:
    """Relative path -> lstat of every file (and link) under `folder`, and its folders."""
    files, folders = {}, set()
    for parent, dirs, names in os.walk(folder):
        base = os.path.relpath(parent, folder)
        prefix = "" if base == "." else base + "/"
        for name in dirs:  # a link to a folder is an entry to remove like a file, never a folder to write into
            path = os.path.join(parent, name)
            if os.path.islink(path):
                files[prefix + name] = os.lstat(path)
            else:
                folders.add(prefix + name)
        for name in names:
            with contextlib.suppress(OSError):
                files[prefix + name] = os.lstat(os.path.join(parent, name))
    return files, folders


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def _fill(staging: Path, files: SiteFiles, previous: Path | None, report: WriteReport) -> None:
    """Make `staging` hold exactly `files`: a file that is already the current site's (the same inode) stays,
    every other one is replaced (never written through: it may be a link to a live file); anything else goes."""
    staging.chmod(0o777 & ~_umask())  # mkdtemp makes 0700; a web server must be able to read the site
    wanted = [*files.items(), (MARKER, MARKER_TEXT)]  # paths checked by SiteFiles.add
    there, folders = _existing(staging)
    keep_folders = files.folders() | {"."}  # MARKER is at the top
    for relative in set(there) - {relative for relative, _ in wanted}:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(staging / relative)
    for folder in sorted(folders - keep_folders, key=len):
        if os.path.lexists(staging / folder):
            shutil.rmtree(staging / folder)  # folders the site no longer has (and with them their files)
    # The folders not there yet, each made once, parents first (a path sorts before the paths it begins), with
    # mkdir rather than makedirs, which looks at every parent again: a third of writing a site into a new folder.
    for folder in sorted(keep_folders - folders - {"."}):
        os.mkdir(os.path.join(staging, folder))
    for relative, content in wanted:
        path = os.path.join(staging, relative)
        source = os.path.join(previous, relative) if previous is not None else None
        status = there.get(relative)
        keep = isinstance(content, Keep)
        if keep and (source is None or not _unchanged(source, content)):
            raise SiteError(Problem(f"{relative} of the previous site changed during the build (another build "
                                    "writing there?); build again", str(previous)))
        if keep or (source is not None and _same_bytes(source, content)):
            if status is not None and _same_file(status, source):
                report.kept += 1
                continue
            if status is not None:
                _remove(path)
            if keep:
                _carry_over(previous, relative, path)
                report.kept += 1
                continue
            try:
                os.link(source, path)
                report.kept += 1
                continue
            except OSError:  # a filesystem without hard links, or a file that just went: write it
                pass
        elif status is not None:
            _remove(path)
        if isinstance(content, FromFile) and content.owned:
            try:
                os.rename(content.path, path)
                report.written += 1
                continue
            except OSError:  # not on the same filesystem after all: copy it
                pass
        _write_file(path, content)
        report.written += 1
    report.state = {}
    for relative, _ in wanted:
        status = os.lstat(os.path.join(staging, relative))
        report.state[relative] = (status.st_size, status.st_mtime_ns, status.st_ino)


def _write_file(path: str, content: bytes | FromFile) -> None:
    with open(path, "wb") as stream:
        stream.write(_read(content) if isinstance(content, FromFile) else content)


def _read(content: FromFile) -> bytes:
    try:
        with open(content.path, "rb") as stream:
            stream.seek(content.skip)
            return stream.read()
    except FileNotFoundError:
        raise SiteError(Problem("a rendering left the build cache during the build (another build trimming it?); "
                                "build again", content.path, hint="SITE_BUILDER_CACHE_MAX_MB may be too small")) from None


def _same_file(status: os.stat_result, other: str | None) -> bool:
    """Whether a staged entry is a regular file that is the same file (a hard link) as `other`."""
    if other is None or not stat.S_ISREG(status.st_mode):
        return False
    try:
        found = os.lstat(other)
    except OSError:
        return False
    return stat.S_ISREG(found.st_mode) and (found.st_ino, found.st_dev) == (status.st_ino, status.st_dev)


def _unchanged(path: str, kept: Keep) -> bool:
    """Whether a file is still the one the build decided to keep (same size, mtime and inode)."""
    try:
        status = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(status.st_mode) and (status.st_size, status.st_mtime_ns, status.st_ino) == kept.state


def _carry_over(previous: Path | None, relative: str, path: str) -> None:
    """The previous site's file, linked (or copied where hard links fail); it was checked unchanged when the
    build began, so its going missing since means someone changed the output folder during the build."""
    try:
        if previous is None:
            raise FileNotFoundError(relative)
        try:
            os.link(os.path.join(previous, relative), path)
        except OSError:
            shutil.copyfile(os.path.join(previous, relative), path)
    except OSError:
        raise SiteError(Problem(f"{relative} of the previous site changed during the build; build again",
                                previous.as_posix() if previous is not None else None)) from None


_removals: list[threading.Thread] = []


def _remove_in_background(folder: Path) -> None:
    thread = threading.Thread(target=shutil.rmtree, args=(folder,), kwargs={"ignore_errors": True},
                              name=f"remove {folder.name}")
    thread.start()  # not a daemon: the interpreter waits for it before exiting
    _removals[:] = [*(other for other in _removals if other.is_alive()), thread]  # one per build, not per rebuild


def wait_for_removals() -> None:
    """Wait until the previous trees handed to background removal are gone."""
    while _removals:
        _removals.pop().join()


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _swap_in(staging: Path, target: Path) -> Path | None:
    """Put `staging` at `target`; return the folder now holding the previous site, if any."""
    if not os.path.lexists(target):
        os.rename(staging, target)
        return None
    if _exchange(staging, target):
        return staging
    # Fallback where renameat2 is unavailable (not Linux, old C library, a filesystem without
    # RENAME_EXCHANGE): two renames, between which the site folder is briefly missing.
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    moved = False
    try:
        os.rename(target, old / "site")
        moved = True
        os.rename(staging, target)
    except BaseException:
        if moved:
            os.rename(old / "site", target)  # put the previous site back
        shutil.rmtree(old, ignore_errors=True)
        raise
    return old


_AT_FDCWD, _RENAME_EXCHANGE = -100, 2  # from <fcntl.h> and <linux/fs.h>


def _renameat2():
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError, TypeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one atomic step (Linux renameat2 RENAME_EXCHANGE); False where unsupported."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def remove_leftovers(out_dir: Path, lock_timeout: float | None = None) -> None:
    """For a build that writes nothing: remove what killed builds left beside `out_dir`, holding the lock
    (so it also waits for a build writing there right now)."""
    target = Path(os.path.realpath(out_dir))
    if not target.parent.is_dir():
        return
    try:
        with _locked(target, out_dir.as_posix(), lock_timeout):
            _remove_leftovers(target)
    except OSError as error:
        raise SiteError(Problem(f"cannot write the site: {error.strerror or error}", out_dir.as_posix())) from None


def _remove_leftovers(target: Path) -> None:
    """Remove the staging and old folders of killed builds into `target`. Called with the lock held, when no
    live build can own one; other outputs' folders in the same parent do not match."""
    leftover = re.compile(rf"\.{re.escape(target.name)}\.(?:(new|old)|spool-([0-9]+))-[a-z0-9_]+")
    for entry in target.parent.iterdir():
        found = leftover.fullmatch(entry.name)
        if found and entry.is_dir() and not entry.is_symlink() and not (found[2] and _alive(int(found[2]))):
            shutil.rmtree(entry, ignore_errors=True)


def _alive(pid: int) -> bool:
    """Whether a process is running (a build still writing its spool folder)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, owned by someone else
        return True
    return True


def lock_path(out_dir: Path) -> Path:
    target = Path(os.path.realpath(out_dir))
    return target.parent / f".{target.name}.lock"


@contextlib.contextmanager
def _locked(target: Path, shown: str, timeout: float | None):
    """An exclusive flock on `.<name>.lock` beside the output. The kernel drops it when a build dies, so it
    never goes stale; the file is removed on release, while still locked, so it is left behind only by a
    killed build (and then harmless)."""
    path = lock_path(target)
    timeout = _lock_timeout() if timeout is None else timeout
    deadline, told = time.monotonic() + timeout, False
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if time.monotonic() >= deadline:
                raise SiteError(Problem(f"another build is writing to the output folder; gave up after waiting "
                                        f"{timeout:g} s", shown, hint=f"try again when it has finished (lock "
                                        f"file {path}; SITE_BUILDER_LOCK_TIMEOUT sets the wait)")) from None
            if not told:
                print(f"{shown}: waiting for another build writing to this folder...", file=sys.stderr)
                told = True
            time.sleep(0.05)
            continue
        try:  # the previous holder may have removed the file we opened: only the current file counts
            current = os.stat(path)
            held = os.fstat(fd)
            if (current.st_dev, current.st_ino) == (held.st_dev, held.st_ino):
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        os.close(fd)


def _lock_timeout() -> float:
    raw = os.environ.get("SITE_BUILDER_LOCK_TIMEOUT")
    if raw is None:
        return LOCK_TIMEOUT
    try:
        value = float(raw)
        if value >= 0 and value != float("inf"):
            return value
    except ValueError:
        pass
    raise SiteError(Problem(f"SITE_BUILDER_LOCK_TIMEOUT={raw!r} is not a number of seconds (0 or more)"))
