"""Static assets: the theme's CSS and JS (templates/assets, the project's over the package's), and the offline
Vega bundle.

Every asset is written under a content-hashed name, so hosts can cache them forever.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from site_builder.errors import Problem, SiteError


@dataclass(frozen=True)
class Asset:
    path: str  # output path, e.g. assets/site.3f2a1b4c.css
    content: bytes


def hashed(name: str, content: bytes) -> Asset:
    stem, dot, suffix = name.rpartition(".")
    digest = hashlib.sha256(content).hexdigest()[:10]
    return Asset(f"assets/{stem}.{digest}.{suffix}", content)


def theme_assets(files: dict[str, Path]) -> dict[str, Asset]:
    """Name (e.g. "site.css") -> hashed asset, for the theme's asset files (`Theme.assets()`)."""
    return {name: hashed(name, path.read_bytes()) for name, path in files.items()}


def cache_dir() -> Path:
    """Where renderings and the Vega bundle are kept between builds: outside the project (never shipped,
    never committed). Everything in it can be deleted at any time; it is produced again when needed."""
    base = os.environ.get("SITE_BUILDER_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "site-builder")
    return Path(base)


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


def _cache_entries() -> list[Path]:
    """Only what site-builder itself puts in the cache folder, so clearing a mistyped
    SITE_BUILDER_CACHE (say, the home folder) removes nothing else."""
    folder = cache_dir()
    renders = folder / "renders"
    return sorted([*folder.glob("vega-bundle-*.js"), *folder.glob("vega-bundle-*.tmp"),
                   *(renders.iterdir() if renders.is_dir() else [])])


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
    removed = cache_usage()
    for path in _cache_entries():
        path.unlink(missing_ok=True)
    return removed


def vega_bundle(cached_only: bool = False) -> Asset | None:
    """vega + vega-lite + vega-embed as one classic script, from vl-convert (no network).

    Producing it takes about two seconds, so it is cached per vl-convert version. With `cached_only`,
    None when it is not cached (nothing is produced).
    """
    import vl_convert

    version = getattr(vl_convert, "__version__", "unknown")
    cached = cache_dir() / f"vega-bundle-{version}.js"
    try:
        return hashed("vega.js", cached.read_bytes())
    except OSError:
        if cached_only:
            return None
    content = vl_convert.javascript_bundle().encode("utf-8")
    store(cached, content)
    return hashed("vega.js", content)


def vega_bundle_task(_shared, _item) -> Asset:
    """`vega_bundle()` as a task of `parallel.run`, for a worker process."""
    return vega_bundle()


def store(path: Path, content: bytes) -> None:
    """Put a file in the cache, atomically so that concurrent builds never read half of it. Best effort:
    a cache that cannot be written (read-only home, full disk) only makes the next build slower."""
    partial = path.with_name(f"{path.stem}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_bytes(content)
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink()
