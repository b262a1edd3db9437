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

import dataclasses
import hashlib
import os
import shutil
import sys
from pathlib import Path

from site_builder import cache, freshness, output

LIBRARIES = ("jinja2", "markdown-it-py", "mdit-py-plugins", "linkify-it-py", "nh3", "pyyaml", "pandas", "numpy",
             "altair", "jsonschema", "jsonschema-rs", "vl-convert-python", "babel", "python-slugify", "pillow")
ENVIRONMENT = ("SOURCE_DATE_EPOCH", "SITE_BUILDER_LOCK_TIMEOUT", "SITE_BUILDER_CACHE_MAX_MB")


class Snapshot:
    """The inputs of one build, hashed once before anything is read, and the last build's record.

    `site`: every input but content/ and the templates (what any page may be made from); `inputs`: everything,
    with the options: a build with the same `inputs` into an intact output folder has nothing to do."""

    def __init__(self, out_dir: Path, site: str, inputs: str, charts: str | None = None) -> None:
        self.out_dir, self.site, self.inputs = out_dir, site, inputs
        self.charts = charts or site
        self._record = cache.load("built", _record_key(out_dir))
        if not isinstance(self._record, dict):
            self._record = {}
        self._state: dict | None = None

    @classmethod
    def take(cls, config, out_dir: Path, strict: bool) -> Snapshot:
        from site_builder.theme import PACKAGED

        folders = _chart_folders_fingerprint(config)
        site = site_fingerprint(config, folders)
        templates = [cache.files_fingerprint(folder) for folder in (config.templates_dir, PACKAGED / "templates")]
        inputs = cache.key("inputs", site, templates, cache.files_fingerprint(config.content_dir), strict)
        return cls(out_dir, site, inputs, charts_fingerprint(config, folders))

    def _output(self) -> dict | None:
        """The output folder's files as they are now: walked once per build."""
        if self._state is None:
            self._state = _output_state(self.out_dir) or {}
        return self._state

    def previous_report(self) -> dict | None:
        """The last build's report fields when it had these inputs and its output is intact, else None."""
        if self._record.get("inputs") != self.inputs:
            return None
        output.remove_leftovers(self.out_dir)  # what a killed build left there goes, as with every build
        try:
            if self._output() != (self._record.get("output") or {}):
                return None
        except OSError:
            return None
        return dict(self._record["report"], written=0)

    def reusable_outputs(self) -> tuple[dict[str, tuple[str, tuple[int, ...], tuple[int, int, int]]], list,
                                        dict[str, str]]:
        """(output path -> (its key, its reads, its size, mtime and inode), for every output of the last build
        into this folder that is still as that build left it; the reads they name; the digests of such outputs'
        bytes that the last build took), see `freshness.Outputs`."""
        records, reads = self._record.get("records"), self._record.get("reads")
        recorded = self._record.get("output") or {}
        digests = self._record.get("digests")
        if not isinstance(records, dict) or not isinstance(reads, list):
            return {}, [], {}
        try:
            state = self._output()
        except OSError:
            return {}, [], {}
        reusable = {path: (key, numbers, state[path]) for path, (key, numbers) in records.items()
                    if path in state and state[path] == recorded.get(path)}
        digests = digests if isinstance(digests, dict) else {}
        return reusable, reads, {path: value for path, value in digests.items() if path in reusable}

    def record(self, report: dict, records: dict[str, tuple[str, list]],
               written: dict[str, tuple[int, int, int]] | None, digests: dict[str, str] | None = None) -> None:
        """Remember a successful build: its inputs, its output's state (`written`, as the write left it; else the
        folder was left untouched, as walked at the start), its report (without timing), each output's key
        and reads, and the digests of the outputs' bytes it took (`Outputs.content_digest`), for the next build."""
        try:
            state = written if written is not None else self._output()
        except OSError:
            return
        by_path, reads = freshness.packed(records)
        cache.save("built", _record_key(self.out_dir), {"inputs": self.inputs, "output": state, "report": report,
                                                        "records": by_path, "reads": reads,
                                                        "digests": digests or {}})


def _chart_folders_fingerprint(config) -> str:
    """data/, locales/, charts/ and the packaged catalogs: every file a chart is made from."""
    from site_builder.theme import PACKAGED

    digest = hashlib.sha256()
    for folder in (config.data_dir, config.locales_dir, config.charts_dir, PACKAGED / "locales"):
        digest.update(cache.files_fingerprint(folder).encode())
    return digest.hexdigest()


def charts_fingerprint(config, folders: str | None = None) -> str:
    """What the charts are made from: the files of data/, locales/ and charts/, the rounds the configuration
    names, this package's code, Python and the libraries. Not the rest of site.toml (title, base URL, search) or
    the environment, which no chart shows: changing them builds no chart again."""
    folders = folders or _chart_folders_fingerprint(config)
    return cache.key("charts", folders, config.round, config.previous_round, config.archive, sys.version,
                     cache.versions(*LIBRARIES))


def site_fingerprint(config, folders: str | None = None) -> str:
    """Every input but content/ and the templates: site.toml and the configuration, data/, locales/, charts/,
    the packaged catalogs, this package's code (in every `cache.key`), Python, the libraries, the environment
    and the card fonts."""
    from site_builder import images

    digest = hashlib.sha256((folders or _chart_folders_fingerprint(config)).encode())
    site_toml = config.root / "site.toml"
    digest.update(site_toml.read_bytes() if site_toml.is_file() else b"")
    fonts = images.card_fonts()
    return cache.key("site", digest.hexdigest(), portable_settings(config), sys.version, cache.versions(*LIBRARIES),
                     tuple(os.environ.get(name, "") for name in ENVIRONMENT),
                     tuple(hashlib.sha256(font).hexdigest() for font in fonts) if fonts else ())


def portable_settings(config) -> str:
    """The configuration with the project's folders named relative to it, and not where the project lies: what
    the cache holds for a project (charts, pages) serves it again once moved, or checked out elsewhere by CI.
    Nothing made depends on that place: every path a page or chart shows is relative to the project."""
    settings = {}
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if isinstance(value, Path) and value.is_relative_to(config.root):
            value = value.relative_to(config.root).as_posix()
        settings[field.name] = value
    del settings["root"]
    return repr(settings)


def _output_state(out_dir: Path) -> dict[str, tuple[int, int, int]] | None:
    """Relative path -> (size, mtime, inode) of every file of the output folder; None when there is none."""
    target = Path(os.path.realpath(out_dir))
    if not target.is_dir():
        return None
    state: dict[str, tuple[int, int, int]] = {}
    _add_folder_state(str(target), "", state)
    return state


def _add_folder_state(folder: str, prefix: str, state: dict) -> None:
    """What os.walk gives, without its path arithmetic (a third of a no-op build of 13,000 files): folders are
    entered, symlinks to folders are not, and every other entry is a file whose lstat is recorded."""
    try:
        entries = list(os.scandir(folder))
    except OSError:  # as os.walk: a folder that cannot be listed is left out
        return
    for entry in entries:
        if entry.is_dir():
            if not entry.is_symlink():
                _add_folder_state(entry.path, f"{prefix}{entry.name}/", state)
            continue
        status = entry.stat(follow_symlinks=False)
        state[prefix + entry.name] = (status.st_size, status.st_mtime_ns, status.st_ino)


def copy_build(source: Path, target: Path) -> None:
    """Make `target` the last build into `source`: its files hard-linked (the same inodes, so the same recorded
    state) and `source`'s record kept under `target`'s name, so that the next build into `target` makes only what
    changed (`serve` builds into two folders in turn). Nothing is done when `source` has no record."""
    if target.exists():
        return
    record = cache.load("built", _record_key(source))
    if not isinstance(record, dict):
        return
    shutil.copytree(source, target, copy_function=os.link, symlinks=True)
    cache.save("built", _record_key(target), record)


def _record_key(out_dir: Path) -> str:
    return cache.key("last build", os.path.realpath(out_dir))
