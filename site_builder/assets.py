"""Static assets: the theme's CSS and JS (templates/assets, the project's over the package's), and the offline
Vega bundle (kept per vl-convert version; the build cache, `cache`, holds it when it cannot be kept).

Every asset is written under a content-hashed name, so hosts can cache them forever.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from site_builder import paths
from site_builder.cache import cache_dir, package_version, store, unseal
from site_builder.images import RENDERER


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
    name = f"vega-bundle-{bundle_version()}.js"
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
    import vl_convert  # only now: its module is 13 MB of a process

    content = vl_convert.javascript_bundle().encode("utf-8")
    if kept is not None:
        _keep(kept, name, content)
    else:
        store(cached, content)
    return hashed("vega.js", content)


def bundle_version() -> str:
    """The version of vl-convert, which makes the bundle (the kept bundle's name)."""
    return package_version(RENDERER)


def vega_bundle_task(_shared, _item) -> Asset:
    """`vega_bundle()` as a task of `parallel.run`, for a worker process."""
    return vega_bundle()


