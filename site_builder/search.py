"""Site search: a Pagefind index of the pages' main content, made with the site and swapped in with it.

Pagefind reads each page's `<html lang>` and writes one index per language; the search page of a language
loads `pagefind/pagefind.js` and searches only its own language. What is indexed is the `<main>` of the pages
whose template marks it `data-pagefind-body` (home, articles, benchmarks with their result rows, charts,
claims), not menus or footers.

The index is one output: it is made again, whole, when a page it indexes changed (or the site's other inputs,
this code among them), and kept as it is otherwise. Pagefind's binary comes from the `pagefind_bin_extended` or
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
import subprocess
from pathlib import Path

from site_builder import freshness, output, paths
from site_builder.errors import Problem, SiteError

INDEXED = frozenset({"home.html", "article.html", "benchmark.html", "chart.html", "claims.html"})
ENTRY = paths.SEARCH_INDEX + "pagefind-entry.json"  # lists the languages: the index's record of itself
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


def add_index(outputs: freshness.Outputs, site_pages: list, out_dir: Path, work: Path) -> None:
    """The index of `site_pages`' searchable pages, under paths.SEARCH_INDEX: kept when the pages it indexes
    are byte for byte what it was made from, else made in `work` (a folder of the build's spool) and added to
    `outputs`. Keyed on the pages' bytes, not on their records: a page made again the same indexes the same."""
    pages_dir = work / "pages"
    key = hashlib.blake2b(f"{version()}\0{outputs.answers.site}".encode(), digest_size=16)
    site = Path(os.path.realpath(out_dir))
    for path in sorted(page.path for page in site_pages if indexed(page)):
        outputs.files.link(path, site, pages_dir / path)  # a hard link: the bytes are read once, here
        key.update(f"\0{path}\0".encode() + hashlib.blake2b((pages_dir / path).read_bytes()).digest())
    key = key.hexdigest()
    previous = sorted(path for path in outputs.previous if path.startswith(paths.SEARCH_INDEX))
    # The entry's key also names every file of the index, so that one removed by hand makes it again.
    if ENTRY in previous and outputs.previous[ENTRY][0] == freshness.digest((key, previous)):
        for path in previous:
            outputs.current(path, outputs.previous[path][0])
        return
    made = _run_pagefind(pages_dir, work / "index")
    listed = sorted(made)
    for path, content in made.items():
        outputs.add(path, freshness.digest((key, listed)) if path == ENTRY else key, content, {})


def _run_pagefind(pages_dir: Path, index_dir: Path) -> dict:
    """Output path -> content of the index Pagefind makes of the pages in `pages_dir`."""
    command = [str(binary()), "--site", str(pages_dir), "--output-path", str(index_dir), "--keep-index-url",
               "--silent"]
    # Its own folder and no PAGEFIND_* variables: a pagefind.yml or a setting of the user's changes nothing.
    env = {name: value for name, value in os.environ.items() if not name.startswith("PAGEFIND_")}
    try:
        done = subprocess.run(command, cwd=index_dir.parent, env=env, capture_output=True, text=True, check=False)
    except OSError as error:
        raise SiteError(Problem(f"site search: cannot run Pagefind ({command[0]}): {error.strerror or error}",
                                "site.toml", hint=INSTALL_HINT)) from None
    if done.returncode != 0 or not (index_dir / "pagefind-entry.json").is_file():
        said = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise SiteError(Problem(f"site search: Pagefind failed (exit status {done.returncode})"
                                + (": " + " / ".join(said) if said else ""), "site.toml", hint=INSTALL_HINT))
    made: dict[str, bytes | output.FromFile] = {}
    for file in sorted(index_dir.rglob("*")):
        name = file.relative_to(index_dir).as_posix()
        if file.is_file() and not name.startswith(_UNUSED):
            made[paths.SEARCH_INDEX + name] = output.FromFile(str(file), owned=True)
    made[ENTRY] = _sorted_entry((index_dir / "pagefind-entry.json").read_bytes())
    return made


def _sorted_entry(raw: bytes) -> bytes:
    """Pagefind lists the languages in a different order from one run to the next: sorted, the same bytes."""
    entry = json.loads(raw)
    entry["languages"] = dict(sorted(entry["languages"].items()))
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
