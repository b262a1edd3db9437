"""Site search: a Pagefind index of the pages' main content, made with the site and swapped in with it.

Each language has its own index, which its search page loads: in shards of about SHARD_PAGES pages (Pagefind's time
and memory grow faster than the pages it indexes), each in `paths.search_index(lang, n)`; the first lists the
others in SHARDS and search.js merges them into it (Pagefind's `mergeIndex`). What is indexed is the `<main>` of the
pages whose template marks it `data-pagefind-body` (home, articles, benchmarks with their result rows, charts,
claims), not menus or footers.

A shard is one output: made again, whole, when a page it indexes changed (or the site's other inputs, this code
among them), and kept as it is otherwise. Pagefind's binary comes from the `pagefind_bin_extended` or
`pagefind_bin` package (never from PATH, which may hold another version); site.toml's `search = false` builds
the site without search.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.metadata
import json
import os
import posixpath
import subprocess
from pathlib import Path

from site_builder import freshness, output, paths
from site_builder.errors import Problem, SiteError

INDEXED = frozenset({"home.html", "article.html", "benchmark.html", "chart.html", "claims.html"})
ENTRY = "pagefind-entry.json"  # in each language's index: lists its files' hashes, the index's record of itself
SHARDS = "shards.json"  # in a language's first shard: the folders of the others, relative to it
# Pages per shard: Pagefind's time and memory grow faster than the pages it indexes (on this machine, 300 pages:
# 0.6 s and 79 MB; 600: 1.3 s and 148 MB; 1,128: 4.3 s and 421 MB), and an edit makes only its shard again.
SHARD_PAGES = 300
# Pagefind's own UIs are not used (the theme's search.js is): their files are left out of the site.
_UNUSED = ("pagefind-ui.", "pagefind-modular-ui.", "pagefind-component-ui.", "pagefind-highlight.")
INSTALL_HINT = 'install it with pip install "pagefind[extended]", or set search = false in site.toml'


def indexed(page) -> bool:
    """Whether a page's content is searchable: the pages of a language that readers land on, not lists of
    them, redirects or embeds."""
    return bool(page.lang) and page.in_sitemap and page.template in INDEXED


def binary() -> Path:
    """Pagefind's executable from its Python package (the extended one, which also splits Chinese and Japanese
    words, first)."""
    for module in ("pagefind_bin_extended", "pagefind_bin"):
        try:
            return Path(importlib.import_module(module).get_executable())
        except ImportError:
            continue
    raise SiteError(Problem("site search needs Pagefind, which is not installed", "site.toml", hint=INSTALL_HINT))


def version() -> str:
    for name in ("pagefind_bin_extended", "pagefind_bin"):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            return f"{name} {importlib.metadata.version(name)}"
    return "none"


def add_index(outputs: freshness.Outputs, site_pages: list, out_dir: Path, work: Path, jobs: int = 1) -> None:
    """Each language's index of its searchable pages, in shards (`shards`): a shard is kept when the pages it
    indexes are byte for byte what it was made from, else made in `work` (a folder of the build's spool) by
    Pagefind, `jobs` runs side by side, and added to `outputs`. Keyed on the digests of the pages' bytes
    (`Outputs.content_digest`: a kept page's is the last build's), not on their records: a page made again the
    same indexes the same. The language's first shard lists the others (SHARDS), which
    search.js merges into it."""
    site = Path(os.path.realpath(out_dir))
    by_language: dict[str, list[str]] = {}
    for page in site_pages:
        if indexed(page):
            by_language.setdefault(page.lang, []).append(page.path)
    stale = []
    for lang, pages in sorted(by_language.items()):
        parts = shards(pages)
        folders = [paths.search_index(lang, number) for number in range(len(parts))]
        outputs.put(folders[0] + SHARDS, json.dumps([posixpath.relpath(folder, folders[0]) + "/"
                                                     for folder in folders[1:]]) + "\n")
        for folder, part in zip(folders, parts):
            name = folder.rstrip("/").rsplit("/", 1)[1]
            pages_dir, index_dir = work / name / "pages", work / name / "index"
            key = hashlib.blake2b(f"{version()}\0{outputs.answers.site}".encode(), digest_size=16)
            for path in part:  # a kept page is not read: its digest is the last build's
                key.update(f"\0{path}\0{outputs.content_digest(path, site)}".encode())
            key = key.hexdigest()
            previous = sorted(path for path in outputs.previous if path.startswith(folder) and
                              path != folders[0] + SHARDS)
            # The entry's key also names every file of the shard, so that one removed by hand makes it again.
            if folder + ENTRY in previous and outputs.previous[folder + ENTRY][0] == freshness.digest((key, previous)):
                for path in previous:
                    outputs.current(path, outputs.previous[path][0])
            else:
                for path in part:
                    outputs.files.link(path, site, pages_dir / path)  # a hard link where it can be: nothing read
                stale.append((folder, key, pages_dir, index_dir))
    for (folder, key, _, index_dir), made in zip(stale, _run_pagefind([(p, i) for _, _, p, i in stale], jobs)):
        made = _pagefind_files(made, index_dir, folder)
        listed = sorted(made)
        for path, content in made.items():
            outputs.add(path, freshness.digest((key, listed)) if path == folder + ENTRY else key, content, {})


def shards(pages: list[str]) -> list[list[str]]:
    """A language's indexed pages in shards of about SHARD_PAGES, each page in the shard its path's hash names:
    an edit makes one shard again, and a page added moves no other page unless the number of shards changes."""
    count = max(1, -(-len(pages) // SHARD_PAGES))
    parts: list[list[str]] = [[] for _ in range(count)]
    for path in sorted(pages):
        parts[int.from_bytes(hashlib.blake2b(path.encode(), digest_size=8).digest(), "big") % count].append(path)
    return [part for part in parts if part] or [[]]


def _run_pagefind(runs: list[tuple[Path, Path]], jobs: int) -> list[tuple[int, list[str]]]:
    """Pagefind on each (pages, index) folder pair, at most `jobs` at a time: (exit status, its last lines) of each,
    in order."""
    finished: dict[int, tuple[int, list[str]]] = {}
    running: list[tuple[int, subprocess.Popen]] = []

    def finish() -> None:
        number, process = running.pop(0)
        said = process.communicate()[0].strip().splitlines()[-3:]
        finished[number] = (process.returncode, said)

    for number, (pages_dir, index_dir) in enumerate(runs):
        if len(running) >= max(1, jobs):
            finish()
        running.append((number, _start_pagefind(pages_dir, index_dir)))
    while running:
        finish()
    return [finished[number] for number in range(len(runs))]


def _start_pagefind(pages_dir: Path, index_dir: Path) -> subprocess.Popen:
    command = [str(binary()), "--site", str(pages_dir), "--output-path", str(index_dir), "--keep-index-url",
               "--silent"]
    # Its own folder and no PAGEFIND_* variables: a pagefind.yml or a setting of the user's changes nothing.
    env = {name: value for name, value in os.environ.items() if not name.startswith("PAGEFIND_")}
    try:
        return subprocess.Popen(command, cwd=index_dir.parent, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
    except OSError as error:
        raise SiteError(Problem(f"site search: cannot run Pagefind ({command[0]}): {error.strerror or error}",
                                "site.toml", hint=INSTALL_HINT)) from None


def _pagefind_files(outcome: tuple[int, list[str]], index_dir: Path, folder: str) -> dict:
    """Output path -> content of the index a Pagefind run made ((exit status, its last lines))."""
    returncode, said = outcome
    if returncode != 0 or not (index_dir / ENTRY).is_file():
        raise SiteError(Problem(f"site search: Pagefind failed (exit status {returncode})"
                                + (": " + " / ".join(said) if said else ""), "site.toml", hint=INSTALL_HINT))
    made: dict[str, bytes | output.FromFile] = {}
    for file in sorted(index_dir.rglob("*")):
        name = file.relative_to(index_dir).as_posix()
        if file.is_file() and not name.startswith(_UNUSED):
            made[folder + name] = output.FromFile(str(file), owned=True)
    made[folder + ENTRY] = _sorted_entry((index_dir / ENTRY).read_bytes())
    return made


def _sorted_entry(raw: bytes) -> bytes:
    """Pagefind lists the languages in a different order from one run to the next: sorted, the same bytes."""
    entry = json.loads(raw)
    entry["languages"] = dict(sorted(entry["languages"].items()))
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
