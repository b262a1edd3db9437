"""Static assets: the theme's CSS and JS (templates/assets, the project's over the package's), and the offline
Vega bundle.

Every asset is written under a content-hashed name, so hosts can cache them forever.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import os
import re
import secrets
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from site_builder import paths
from site_builder.errors import Problem, SiteError


@dataclass(frozen=True)
class Asset:
    path: str  # output path, e.g. assets/site.3f2a1b4c.css
    content: bytes


def hashed(name: str, content: bytes) -> Asset:
    stem, dot, suffix = name.rpartition(".")
    digest = hashlib.sha256(content).hexdigest()[:10]
    return Asset(paths.asset(stem, digest, suffix), content)


def theme_assets(files: dict[str, Path]) -> dict[str, Asset]:
    """Name (e.g. "site.css") -> hashed asset, for the theme's asset files (`Theme.assets()`)."""
    return {name: hashed(name, path.read_bytes()) for name, path in files.items()}


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
                if entry.name == "renders" and entry.is_dir(follow_symlinks=False):
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
    """`content` with the HMAC that `unseal` checks in front; None when there is no usable cache."""
    key = secret()
    return None if key is None else hmac.digest(key, content, "sha256") + content


def unseal(raw: bytes) -> bytes | None:
    """The content of a sealed entry, or None when it was not sealed with this cache's key."""
    key = secret()
    if key is None or len(raw) < MAC_SIZE:
        return None
    content = raw[MAC_SIZE:]
    return content if hmac.compare_digest(raw[:MAC_SIZE], hmac.digest(key, content, "sha256")) else None


CACHE_MAX_MB = 200  # default bound of the render cache; SITE_BUILDER_CACHE_MAX_MB overrides


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


# The names site-builder gives what it keeps in renders/ (a hash and a kind; the partial of one being
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
    with contextlib.suppress(OSError), os.scandir(folder / "renders") as entries:
        renders = [Path(entry.path) for entry in entries if is_entry(entry)]
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


def kept_dir() -> Path | None:
    """A folder of this user's, outside the cache, for what depends only on a library's version (the Vega
    bundle): a new or cleared cache does not make it again. In the temporary folder, never under $HOME;
    None when it is not private to this user (someone else made it, or could write in it)."""
    if not hasattr(os, "getuid"):
        return None
    folder = Path(tempfile.gettempdir()) / f"site-builder-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        status = os.lstat(folder)
    except OSError:
        return None
    private = stat.S_ISDIR(status.st_mode) and status.st_uid == os.getuid() and not status.st_mode & 0o022
    return folder if private else None


def _read_kept(path: Path) -> bytes | None:
    """A kept file's content, checked against the SHA-256 in front of it (written whole, never garbled)."""
    try:
        with open(path, "rb", opener=lambda name, flags: os.open(name, flags | os.O_NOFOLLOW)) as stream:
            raw = stream.read()
    except OSError:
        return None
    content = raw[32:]
    return content if len(raw) >= 32 and hashlib.sha256(content).digest() == raw[:32] else None


def _keep(folder: Path, name: str, content: bytes) -> None:
    """Keep `name` (best effort; other versions' stay, for other environments, until the system clears its
    temporary folder: about 1 MB each)."""
    partial = folder / f"{name}.{os.getpid()}.tmp"
    with contextlib.suppress(OSError):
        partial.write_bytes(hashlib.sha256(content).digest() + content)
        os.replace(partial, folder / name)
    with contextlib.suppress(OSError):
        partial.unlink()


def vega_bundle(cached_only: bool = False) -> Asset | None:
    """vega + vega-lite + vega-embed as one classic script, from vl-convert (no network).

    Producing it takes about two seconds, so it is kept per vl-convert version (in `kept_dir`, and in the
    cache when there is no such folder). With `cached_only`, None when it is not kept (nothing is produced).
    """
    import vl_convert

    version = getattr(vl_convert, "__version__", "unknown")
    name = f"vega-bundle-{version}.js"
    kept = kept_dir()
    content = _read_kept(kept / name) if kept is not None else None
    if content is not None:
        return hashed("vega.js", content)
    cached = cache_dir() / name
    with contextlib.suppress(OSError):
        content = unseal(cached.read_bytes())
        if content is not None:
            if kept is not None:
                _keep(kept, name, content)
            return hashed("vega.js", content)
    if cached_only:
        return None
    content = vl_convert.javascript_bundle().encode("utf-8")
    if kept is not None:
        _keep(kept, name, content)
    else:
        store(cached, content)
    return hashed("vega.js", content)


def vega_bundle_task(_shared, _item) -> Asset:
    """`vega_bundle()` as a task of `parallel.run`, for a worker process."""
    return vega_bundle()


def store(path: Path, content: bytes) -> bool:
    """Put a file in the cache, sealed (see `seal`), atomically so that concurrent builds never read half of
    it; whether it was written. Best effort: a cache that cannot be written (read-only home, full disk) only
    makes the next build slower."""
    content = seal(content)
    if content is None:
        return False
    partial = path.with_name(f"{path.stem}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_bytes(content)
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink()
        return False
    return True
