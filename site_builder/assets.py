"""Static assets: the theme's CSS and JS from templates/assets, and the offline Vega bundle.

Every asset is written under a content-hashed name, so hosts can cache them forever.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Asset:
    path: str  # output path, e.g. assets/site.3f2a1b4c.css
    content: bytes


def hashed(name: str, content: bytes) -> Asset:
    stem, dot, suffix = name.rpartition(".")
    digest = hashlib.sha256(content).hexdigest()[:10]
    return Asset(f"assets/{stem}.{digest}.{suffix}", content)


def theme_assets(templates_dir: Path) -> dict[str, Asset]:
    """Name (e.g. "site.css") -> hashed asset, for every file in templates/assets."""
    folder = templates_dir / "assets"
    return {path.name: hashed(path.name, path.read_bytes())
            for path in sorted(folder.iterdir()) if path.is_file()} if folder.is_dir() else {}


def cache_dir() -> Path:
    base = os.environ.get("SITE_BUILDER_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "site-builder")
    return Path(base)


def vega_bundle() -> Asset:
    """vega + vega-lite + vega-embed as one classic script, from vl-convert (no network).

    Producing it takes about two seconds, so it is cached per vl-convert version.
    """
    import vl_convert

    version = getattr(vl_convert, "__version__", "unknown")
    cached = cache_dir() / f"vega-bundle-{version}.js"
    if cached.is_file():
        content = cached.read_bytes()
    else:
        content = vl_convert.javascript_bundle().encode("utf-8")
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.tmp")
        partial.write_bytes(content)
        os.replace(partial, cached)  # concurrent builds never read a half-written bundle
    return hashed("vega.js", content)
