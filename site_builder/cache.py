"""The build cache: values computed from inputs (rendered Markdown, chart specs), kept between builds.

An entry's key is a hash of everything the value is made from, including this package's own source and the
versions of the libraries that shape the value, so an entry is never stale: it is found or it is not. Entries
live beside the renderings in the user's cache folder (`assets.cache_dir()`), share their size bound and LRU
trimming, and go with `site-builder cache clear`. Each entry is sealed with the cache's secret key
(`assets.seal`): a corrupt or truncated entry, or one written by anyone without the key, is ignored (and then
rebuilt), never unpickled.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
from importlib import metadata
from pathlib import Path

from site_builder.assets import cache_dir, store, unseal


@functools.cache
def code_fingerprint() -> str:
    """Hash of this package's source: a code change makes every entry it could have shaped unreachable."""
    digest = hashlib.sha256()
    package = Path(__file__).parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


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
    """Hash of every file's path and bytes under `folder` (an input folder such as data/)."""
    digest = hashlib.sha256()
    if folder.is_dir():
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
            with contextlib.suppress(OSError):
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _path(kind: str, entry_key: str) -> Path:
    return cache_dir() / "renders" / f"{entry_key}.{kind}"


def load(kind: str, entry_key: str):
    """The cached value, or None when there is none or it does not check out."""
    path = _path(kind, entry_key)
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    payload = unseal(raw)
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
