"""The build cache, one subsystem: where it lives, how entries are named, sealed, stored, trimmed and cleared.

Everything a build keeps between runs is an entry named by `key()` (one key function: a hash of everything the
value is made from, including this package's source and the versions of the libraries that shape it, so an entry
is never stale: it is found or it is not) in one of the cache folder's namespaces (`NAMESPACES`):

- `renders/`: chart SVG and PNG renderings and Open Graph cards (`images`);
- `values/`: pickled values: articles, chart specs, the data as the charts take it, computed figures (`load`,
  `save`);
- `templates/`: compiled Jinja templates (`render.TemplateCache`);
- `builds/`: each output folder's last build: its inputs and what each output read (`uptodate`).

Each entry is sealed with the cache's secret key (`seal`): a corrupt or truncated entry, or one written by anyone
without the key, is ignored (and then made again), never unpickled or used. The namespaces share one size bound
(`SITE_BUILDER_CACHE_MAX_MB`), kept by evicting the least recently used entries after a build (`trim`), and
`site-builder cache clear` empties them all.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import os
import pickle
import re
import secrets
import stat
import sys
from importlib import metadata
from pathlib import Path

from site_builder.errors import Problem, SiteError

NAMESPACES = ("renders", "values", "templates", "builds")


def cache_dir() -> Path:
    """Where renderings and the Vega bundle are kept between builds: outside the project (never shipped,
    never committed). Everything in it can be deleted at any time; it is produced again when needed."""
    base = os.environ.get("SITE_BUILDER_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "site-builder")
    return Path(base)


# The cache is data, not code: every entry is sealed with an HMAC under a random key kept in the cache
# folder (owner-only), so an entry written by anyone without the key is ignored and made again. The folder
# is recognised as site-builder's by its CACHEDIR.TAG (https://bford.info/cachedir/).
TAG_NAME, KEY_NAME = "CACHEDIR.TAG", "cache.key"
TAG = (b"Signature: 8a477f597d28d172789f06886806bc55\n"
       b"# This file is a cache directory tag created by site-builder.\n"
       b"# For information about cache directory tags, see https://bford.info/cachedir/\n")
MAC_SIZE = 32  # bytes of the HMAC-SHA256 in front of each entry
_keys: dict[str, tuple[tuple, bytes]] = {}  # cache folder -> (the key file's identity, the key)


def _ours(folder: Path) -> bool:
    try:
        return (folder / TAG_NAME).read_bytes().startswith(TAG[:43])
    except OSError:
        return False


def _earlier_cache(folder: Path) -> bool:
    """A cache an earlier site-builder made, before the tag: nothing but its bundle and its renders/ entries.
    It is taken over (tagged); its unsigned entries are never trusted, only made again."""
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name in NAMESPACES and entry.is_dir(follow_symlinks=False):
                    with os.scandir(entry.path) as renders:
                        if not all(is_entry(item) for item in renders):
                            return False
                elif not (re.fullmatch(r"vega-bundle-[\w.+-]+\.(?:js|tmp)", entry.name)
                          and entry.is_file(follow_symlinks=False)):
                    return False
    except OSError:
        return False
    return True


def open_cache() -> None:
    """Refuse a SITE_BUILDER_CACHE that holds something and is not a cache site-builder made (a mistyped
    path, say the home folder): the build would otherwise write and trim in it."""
    folder = cache_dir()
    try:
        foreign = any(folder.iterdir()) and not _ours(folder) and not _earlier_cache(folder)
    except OSError:  # missing or unreadable: made when needed, or the build goes without
        return
    if foreign:
        raise SiteError(Problem(f"the cache folder {folder} is not empty and was not made by site-builder (no "
                                f"{TAG_NAME}); nothing in it was touched", hint="point SITE_BUILDER_CACHE at an "
                                "empty or missing folder"))


@functools.cache
def _warn(message: str) -> None:
    """Say it once a process (the cache is looked at once an entry)."""
    sys.stderr.write(f"warning: {message}\n")


def secret() -> bytes | None:
    """The cache's key, made with the folder when there is none; None when the cache is not to be used
    (a folder that is not ours or not private to this user; a cache that cannot be written)."""
    folder = cache_dir()
    path = folder / KEY_NAME
    try:
        status = os.stat(path, follow_symlinks=False)
        known = _keys.get(str(folder))
        identity = (status.st_dev, status.st_ino, status.st_mtime_ns, status.st_mode, status.st_uid)
        if known and known[0] == identity:
            return known[1]
    except OSError:
        status = None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _ours(folder):
            if any(folder.iterdir()) and not _earlier_cache(folder):
                return None  # see open_cache
            (folder / TAG_NAME).write_bytes(TAG)
        folder_status = folder.stat()
        if folder_status.st_uid != os.getuid():
            _warn(f"the cache folder {folder} belongs to another user: building without the cache")
            return None
        if folder_status.st_mode & 0o077:
            os.chmod(folder, 0o700)
        if status is not None and (not stat.S_ISREG(status.st_mode) or status.st_mode & 0o077
                                   or status.st_uid != os.getuid()):
            _warn(f"{path} could be read or written by others: it is not trusted, a new cache key is made "
                  "(and the cache made again)")
            path.unlink()
            status = None
        if status is None:
            partial = folder / f"{KEY_NAME}.{os.getpid()}.tmp"
            descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "wb") as stream:
                stream.write(secrets.token_bytes(32))
            try:
                with contextlib.suppress(FileExistsError):  # a concurrent build's key, made first, wins
                    os.link(partial, path)
            finally:
                partial.unlink()
        status = os.stat(path, follow_symlinks=False)
        key = path.read_bytes()
    except OSError:
        return None
    if len(key) != 32:
        return None
    _keys[str(folder)] = ((status.st_dev, status.st_ino, status.st_mtime_ns, status.st_mode, status.st_uid), key)
    return key


def seal(content: bytes) -> bytes | None:
    """The seal an entry holds in front of `content` (its HMAC with the cache's key), which `unseal` checks; None
    when there is no usable cache."""
    key = secret()
    return None if key is None else hmac.digest(key, content, "sha256")


def unseal(raw: bytes) -> bytes | None:
    """The content of a sealed entry, or None when it was not sealed with this cache's key."""
    content = _unsealed_view(raw)
    return None if content is None else bytes(content)


def _unsealed_view(raw: bytes) -> memoryview | None:
    """`unseal` without a copy of the content (an entry may be tens of megabytes)."""
    key = secret()
    if key is None or len(raw) < MAC_SIZE:
        return None
    content = memoryview(raw)[MAC_SIZE:]
    return content if hmac.compare_digest(raw[:MAC_SIZE], hmac.digest(key, content, "sha256")) else None


# Default bound of the render cache (SITE_BUILDER_CACHE_MAX_MB overrides): room for a site of every round (the
# shipped one takes about 210 MB) and some history. Below a site's own need, each build evicts part of what the
# next one needs again, and makes it again.
CACHE_MAX_MB = 1000


def cache_limit() -> int:
    """The render cache's size bound in bytes."""
    raw = os.environ.get("SITE_BUILDER_CACHE_MAX_MB")
    if raw is None:
        return CACHE_MAX_MB * 1_000_000
    try:
        megabytes = float(raw)
        if 0 <= megabytes < float("inf"):
            return int(megabytes * 1_000_000)
    except ValueError:
        pass
    raise SiteError(Problem(f"SITE_BUILDER_CACHE_MAX_MB={raw!r} is not a size in megabytes (0 or more)"))


# The names site-builder gives what it keeps in its namespaces (a hash and a kind; the partial of one being
# written): trimming and clearing touch nothing else.
ENTRY_NAME = re.compile(r"[0-9a-f]{40,64}\.(?:[a-z]+|\d+\.tmp)")


def is_entry(entry: os.DirEntry) -> bool:
    return ENTRY_NAME.fullmatch(entry.name) is not None and entry.is_file(follow_symlinks=False)


def _cache_entries() -> list[Path]:
    """Only what site-builder itself puts in the cache folder, so clearing a mistyped
    SITE_BUILDER_CACHE (say, the home folder) removes nothing else."""
    folder = cache_dir()
    if not _ours(folder):
        return []
    renders = []
    for namespace in NAMESPACES:
        with contextlib.suppress(OSError), os.scandir(folder / namespace) as entries:
            renders += [Path(entry.path) for entry in entries if is_entry(entry)]
    bundles = [*folder.glob("vega-bundle-*.js"), *folder.glob("vega-bundle-*.tmp")]
    return sorted([*(path for path in bundles if path.is_file() and not path.is_symlink()), *renders])


def cache_usage() -> tuple[int, int]:
    """(bytes, files) held in the cache."""
    sizes = []
    for path in _cache_entries():
        try:
            sizes.append(path.stat().st_size)
        except FileNotFoundError:  # another build evicted it meanwhile
            pass
    return sum(sizes), len(sizes)


def clear_cache() -> tuple[int, int]:
    """Delete every cached file; returns (bytes, files) removed. Always safe: builds produce them again."""
    open_cache()
    removed = cache_usage()
    for path in _cache_entries():
        path.unlink(missing_ok=True)
    return removed


def store(path: Path, content: bytes) -> bool:
    """Put a file in the cache, sealed (see `seal`), atomically so that concurrent builds never read half of
    it; whether it was written. Best effort: a cache that cannot be written (read-only home, full disk) only
    makes the next build slower."""
    mac = seal(content)
    if mac is None:
        return False
    partial = path.with_name(f"{path.stem}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(partial, "wb") as file:  # the seal, then the content: no sealed copy of it in memory
            file.write(mac)
            file.write(content)
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink()
        return False
    return True


def trim(limit: int) -> int:
    """Evict the least recently used renderings until the cache holds at most `limit` bytes (run after a
    build, so a build never loses what it is using); returns the bytes removed."""
    files = []
    for namespace in NAMESPACES:
        folder = cache_dir() / namespace
        try:
            with os.scandir(folder) as entries:
                for entry in filter(is_entry, entries):  # only what site-builder writes there
                    with contextlib.suppress(OSError):  # evicted by a concurrent build meanwhile
                        status = entry.stat(follow_symlinks=False)
                        files.append((status.st_mtime_ns, entry.path, status.st_size))
        except OSError:
            continue
    total, removed = sum(size for _, _, size in files), 0
    for _, path, size in sorted(files):
        if total - removed <= limit:
            break
        with contextlib.suppress(OSError):  # best effort: a file that stays is only a few bytes too many
            os.unlink(path)
            removed += size
    return removed


@functools.cache
def code_fingerprint() -> str:
    """Hash of this package's source: a code change makes every entry it could have shaped unreachable."""
    digest = hashlib.sha256()
    package = Path(__file__).parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.cache
def package_version(name: str) -> str:
    """An installed package's version, from its metadata: importing the package to ask it can cost megabytes
    (vl-convert's module: 13 MB in a build that renders nothing)."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


@functools.cache
def versions(*packages: str) -> tuple[str, ...]:
    found = []
    for name in packages:
        try:
            found.append(f"{name}=={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name}==?")
    return tuple(found)


def key(*parts) -> str:
    """A cache key from strings, bytes and numbers (and tuples of them), with the code fingerprint."""
    digest = hashlib.sha256(code_fingerprint().encode())
    _feed(digest, parts)
    return digest.hexdigest()


def _feed(digest, value) -> None:
    if isinstance(value, (tuple, list)):
        digest.update(b"(%d" % len(value))
        for item in value:
            _feed(digest, item)
        digest.update(b")")
        return
    if isinstance(value, str):
        value = value.encode("utf-8", "surrogatepass")
    elif not isinstance(value, bytes):
        value = repr(value).encode()
    digest.update(b"%d:" % len(value) + value)


def files_fingerprint(folder: Path) -> str:
    """Hash of every file's path and bytes under `folder` (an input folder such as data/), links followed as the
    build reads them; a file reached through a link also counts where it really is, since a link leaving the
    project is refused: a file replaced by a link to the same bytes elsewhere is a change."""
    digest = hashlib.sha256()
    for path, linked in _files_under(folder):
        relative = os.path.relpath(path, folder).replace(os.sep, "/")
        digest.update(relative.encode("utf-8", "surrogateescape") + b"\0")
        if linked:
            digest.update(b"-> " + os.fsencode(os.path.realpath(path)) + b"\0")
        with contextlib.suppress(OSError):
            with open(path, "rb") as stream:
                digest.update(hashlib.sha256(stream.read()).digest())
    return digest.hexdigest()


def _files_under(folder: Path) -> list[tuple[str, bool]]:
    """(path, whether a link leads to it) of every file under `folder`, in path order, linked folders entered
    once (a link back up is no loop)."""
    found: list[tuple[tuple[str, ...], str, bool]] = []
    entered: set[str] = set()

    def walk(current: str, parts: tuple[str, ...], linked: bool) -> None:
        real = os.path.realpath(current)
        if real in entered:
            return
        entered.add(real)
        try:
            entries = list(os.scandir(current))
        except OSError:
            return
        for entry in entries:
            through_link = linked or entry.is_symlink()
            try:
                if entry.is_dir():
                    walk(entry.path, (*parts, entry.name), through_link)
                elif entry.is_file():
                    found.append(((*parts, entry.name), entry.path, through_link))
            except OSError:  # a link that leads nowhere: not a file the build can read
                continue

    if folder.is_dir():
        walk(str(folder), (), False)
    return [(path, linked) for _parts, path, linked in sorted(found)]


def entry(namespace: str, entry_key: str, kind: str) -> Path:
    """Where the entry `entry_key` of `kind` lives in `namespace` (one of `NAMESPACES`)."""
    return cache_dir() / namespace / f"{entry_key}.{kind}"


def _path(kind: str, entry_key: str) -> Path:
    return entry("builds" if kind == "built" else "values", entry_key, kind)


def load(kind: str, entry_key: str):
    """The cached value, or None when there is none or it does not check out."""
    path = _path(kind, entry_key)
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    payload = _unsealed_view(raw)
    if payload is None:
        return None
    try:
        value = pickle.loads(payload)
    except Exception:  # noqa: BLE001 - a payload from another Python or library version: rebuild it
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # recently used entries are evicted last
    return value


def save(kind: str, entry_key: str, value) -> None:
    """Keep a value (best effort: a cache that cannot be written only makes the next build slower)."""
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    store(_path(kind, entry_key), payload)
