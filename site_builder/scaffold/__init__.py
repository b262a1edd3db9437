"""`site-builder new`: a project that builds at once, and new articles in every language of a project.

The new project holds `site.toml`, one article per language citing bound figures and a chart, an excerpt
of real results with its README (`data/`), the project's own chart (`charts/`) and its translations
(`locales/`). The texts and data are files beside this module, not code: the rounds offered are the ones
the excerpt has (`data/rounds/`), and a language without a starter text gets the English one, said so.
"""

from __future__ import annotations

import csv
import datetime as dt
import os
import re
import shutil
import string
import tomllib
from dataclasses import dataclass
from pathlib import Path

from babel import Locale, UnknownLocaleError
from slugify import slugify

from site_builder.errors import Collector, Problem, SiteError, display_path

HERE = Path(__file__).resolve().parent
TEXT_LANGUAGE = "en"  # the starter text used for a language the scaffold has none in


def available_rounds() -> list[str]:
    """The rounds the scaffold has an excerpt of, newest first."""
    rounds = [p.name for p in (HERE / "data" / "rounds").iterdir() if p.is_dir()]
    return sorted(rounds, key=lambda name: tuple(int(n) for n in name[1:].split(".")), reverse=True)


@dataclass(frozen=True)
class Created:
    files: list[Path]
    notes: list[str]  # what the user should know (an article left in English)


def new_project(dest: Path, languages: list[str], round_name: str | None = None) -> Created:
    """Write a new project into `dest`, which must not exist or be empty; every problem is reported at once."""
    problems = Collector()
    rounds = available_rounds()
    round_name = round_name or rounds[0]
    if round_name not in rounds:
        problems.error(f"no starter data for round '{round_name}'", hint="rounds with starter data: "
                       + ", ".join(rounds) + "; start from one and replace data/rounds/ with your round's results "
                       "(site-builder ingest)")
    languages = list(dict.fromkeys(languages or [TEXT_LANGUAGE]))
    for code in languages:
        try:
            Locale.parse(code.replace("-", "_"))
        except (UnknownLocaleError, ValueError) as error:
            problems.error(f"'{code}' is not a language Babel knows ({error})",
                           hint="use a CLDR language code such as 'nl', 'pt-BR' or 'ar'")
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        problems.error("the folder exists and is not empty; refusing to write into it" if dest.is_dir()
                       else "exists and is not a folder", str(dest), hint="choose a new folder name")
    problems.raise_if_any()

    label = _round_label(round_name)
    benchmark = _starter_benchmark()
    values = {"label": label, "round": round_name, "date": dt.date.today().isoformat(),
              "benchmark": benchmark["id"], "benchmark_name": benchmark["name"],
              "languages": ", ".join(Locale.parse(c.replace("-", "_")).get_display_name("en") for c in languages)}
    titles = tomllib.loads((HERE / "titles.toml").read_text(encoding="utf-8"))
    staging = dest.with_name(f".{dest.name}.new-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    notes, written = [], []
    try:
        out = staging
        _write(out / "site.toml", _site_toml(languages, round_name, titles, values))
        _write(out / "README.md", _filled((HERE / "README.md.in").read_text(encoding="utf-8"), values))
        shutil.copytree(HERE / "data", out / "data", ignore=lambda folder, names: [
            n for n in names if Path(folder, n).parent.name == "rounds" and n != round_name])
        shutil.copytree(HERE / "charts", out / "charts", ignore=shutil.ignore_patterns("__pycache__"))
        _write(out / "locales" / "messages.pot", (HERE / "locales" / "messages.pot").read_text(encoding="utf-8"))
        for code in languages:
            text_language = code if (HERE / "articles" / f"{code}.md").is_file() else TEXT_LANGUAGE
            if text_language != code:
                notes.append(f"content/{code}/first-look.md is the English starter article: translate it")
            article = _filled((HERE / "articles" / f"{text_language}.md").read_text(encoding="utf-8"), values)
            _write(out / "content" / code / "first-look.md", article)
            catalog = HERE / "locales" / code / "LC_MESSAGES" / "messages.po"
            if catalog.is_file():
                _write(out / "locales" / code / "LC_MESSAGES" / "messages.po", catalog.read_text(encoding="utf-8"))
            elif code != TEXT_LANGUAGE:
                notes.append(f"no translation of the chart's strings in '{code}': run site-builder update "
                             f"--language {code} and translate locales/{code}/LC_MESSAGES/messages.po")
        if dest.is_dir():
            dest.rmdir()  # empty, checked above
        os.replace(staging, dest)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise SiteError(Problem(f"cannot write the project: {error.strerror or error}", str(dest))) from None
    written = sorted(p for p in dest.rglob("*") if p.is_file())
    return Created(written, notes)


def new_article(root: Path, title: str, languages: list[str], content_dir: Path, key: str | None = None,
                date: dt.date | None = None) -> Created:
    """A draft article with valid front matter in each of `languages`, grouped by one key; refuses to
    overwrite an existing file."""
    title = " ".join(title.split())
    key = key or slugify(title, max_length=60, word_boundary=True)
    problems = Collector()
    if not title:
        problems.error("the article needs a title")
    if not key:
        problems.error(f"the title {title!r} has no letters or digits to make a key from", hint="pass --key")
    elif not re.fullmatch(r"[\w-]+", key):  # the key names the files: no path of its own
        problems.error(f"the key {key!r} may hold only letters, digits, '-' and '_'", hint="e.g. --key scaling-2")
    problems.raise_if_any()
    paths = [content_dir / code / f"{key}.md" for code in languages]
    for path in paths:
        if path.exists():
            problems.error("exists already; refusing to overwrite it", display_path(path, root),
                           hint="pass another --key")
    problems.raise_if_any()
    day = (date or dt.date.today()).isoformat()
    quoted = title.replace("\\", "\\\\").replace('"', '\\"')
    for code, path in zip(languages, paths):
        _write(path, f'---\ntitle: "{quoted}"\ndate: {day}\nsummary: ""\nauthors: []\ntags: []\nkey: {key}\n'
                     f"draft: true  # not published until this is false\n---\n")
    return Created(paths, ["each file is a draft: write its summary and text, then set draft: false"])


def _round_label(round_name: str) -> str:
    path = HERE / "data" / "rounds" / round_name / "round.toml"
    return str(tomllib.loads(path.read_text(encoding="utf-8")).get("label", round_name))


def _starter_benchmark() -> dict[str, str]:
    """The benchmark of the starter results (the articles cite its fastest result)."""
    with (HERE / "data" / "benchmarks.csv").open(newline="", encoding="utf-8") as handle:
        return next(csv.DictReader(handle))


def _site_toml(languages: list[str], round_name: str, titles: dict, values: dict) -> str:
    lines = ["# site-builder configuration: every key is documented in site_builder/config.py (SiteConfig).",
             "languages = [" + ", ".join(f'"{code}"' for code in languages) + "]",
             f'default_language = "{languages[0]}"',
             "# Where the site will be served from; pass --base-url to build for another address.",
             'base_url = "https://example.org/report/"',
             f'round = "{round_name}"', "", "[title]"]
    for code in languages:
        title = _filled(titles.get(code, titles[TEXT_LANGUAGE]), values)
        lines.append(f'{code} = "{title}"' if "-" not in code else f'"{code}" = "{title}"')
    return "\n".join(lines) + "\n"


def _filled(template: str, values: dict) -> str:
    return string.Template(template).safe_substitute(values)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
