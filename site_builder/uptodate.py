"""Is the site already built? A build whose inputs are byte for byte those of the last build into the same
folder, and whose output is still exactly as that build left it, has nothing to do.

The inputs' fingerprint covers every file of site.toml, content/, data/, templates/, locales/ and charts/ (their
bytes) and of the packaged theme,
the configuration and options, SOURCE_DATE_EPOCH, this package's source, the versions of the libraries that
shape the output and the card fonts. The output is checked by the size, mtime and inode of every file (a file
edited, added or removed by hand makes the next build a real one). The record lives in the build cache, so
deleting the cache only makes the next build a full one. This module imports nothing heavy: a no-op build
from the command line never loads pandas or Altair.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from site_builder import cache, output

LIBRARIES = ("jinja2", "markdown-it-py", "mdit-py-plugins", "linkify-it-py", "nh3", "pyyaml", "pandas", "numpy",
             "altair", "jsonschema", "vl-convert-python", "babel", "python-slugify", "pillow")
ENVIRONMENT = ("SOURCE_DATE_EPOCH", "SITE_BUILDER_LOCK_TIMEOUT", "SITE_BUILDER_CACHE_MAX_MB")


def inputs_fingerprint(config, out_dir: Path, strict: bool, site: str | None = None) -> str:
    """Everything a build is made from; `site` is `site_fingerprint`'s answer when the caller has it already."""
    site = site if site is not None else site_fingerprint(config, out_dir)
    return cache.key("inputs", site, cache.files_fingerprint(config.content_dir), strict)


def site_fingerprint(config, out_dir: Path, data: str | None = None) -> str:
    """Everything the site is made from except content/: a page made from the same articles with the same
    fingerprint is the same page. `data` is the data folder's `cache.files_fingerprint`, when already made."""
    from site_builder import images

    digest = hashlib.sha256()
    digest.update((data if data is not None else cache.files_fingerprint(config.data_dir)).encode())
    from site_builder.theme import PACKAGED

    for folder in (config.templates_dir, config.locales_dir, config.charts_dir, PACKAGED / "templates",
                   PACKAGED / "locales"):
        digest.update(cache.files_fingerprint(folder).encode())
    site_toml = config.root / "site.toml"
    digest.update(site_toml.read_bytes() if site_toml.is_file() else b"")
    fonts = images.card_fonts()
    return cache.key("site", digest.hexdigest(), repr(config), os.path.realpath(out_dir), sys.version,
                     cache.versions(*LIBRARIES), tuple(os.environ.get(name, "") for name in ENVIRONMENT),
                     tuple(hashlib.sha256(font).hexdigest() for font in fonts) if fonts else ())


def _output_state(out_dir: Path) -> dict[str, tuple[int, int, int]] | None:
    """Relative path -> (size, mtime, inode) of every file of the output folder; None when there is none."""
    target = Path(os.path.realpath(out_dir))
    if not target.is_dir():
        return None
    state = {}
    for folder, _, names in os.walk(target):
        for name in names:
            path = os.path.join(folder, name)
            status = os.lstat(path)
            state[os.path.relpath(path, target)] = (status.st_size, status.st_mtime_ns, status.st_ino)
    return state


def _record_key(out_dir: Path) -> str:
    return cache.key("last build", os.path.realpath(out_dir))


def previous_report(inputs: str, out_dir: Path) -> dict | None:
    """The last build's report fields when it had these inputs and its output is intact, else None."""
    record = cache.load("built", _record_key(out_dir))
    if not isinstance(record, dict) or record.get("inputs") != inputs:
        return None
    output.remove_leftovers(out_dir)  # what a killed build left there goes, as with every build
    try:
        if _output_state(out_dir) != record.get("output"):
            return None
    except OSError:
        return None
    return dict(record["report"], written=0)


def reusable_outputs(out_dir: Path) -> dict[str, tuple[str, tuple[int, int, int]]]:
    """Output path -> (the key it was made from, its size, mtime and inode), for every file of the last build
    into `out_dir` that is still as that build left it; empty when there is no record."""
    record = cache.load("built", _record_key(out_dir))
    if not isinstance(record, dict) or not isinstance(record.get("keys"), dict):
        return {}
    try:
        state = _output_state(out_dir) or {}
    except OSError:
        return {}
    recorded = record.get("output") or {}
    return {path: (key, state[path]) for path, key in record["keys"].items()
            if path in state and state[path] == recorded.get(path)}


def record(inputs: str, out_dir: Path, report: dict, keys: dict[str, str] | None = None) -> None:
    """Remember a successful build: its inputs, its output's state, its report (without timing) and the key of
    each file made from keyed inputs (pages, renderings), for the next build to reuse."""
    try:
        state = _output_state(out_dir)
    except OSError:
        return
    cache.save("built", _record_key(out_dir), {"inputs": inputs, "output": state, "report": report,
                                               "keys": keys or {}})
