"""Stable identifiers and paths that pages, articles and claims share, so a link never drifts from its target."""

from __future__ import annotations

from slugify import slugify


def result_anchor(round_name: str, submitter: str, system_id: str) -> str:
    """The fragment id of one result's row on its benchmark page: stable across builds and languages,
    unique per round (the same system may appear in two rounds on one page)."""
    return "r-" + slugify(f"{round_name} {submitter} {system_id}")


def benchmark_path(lang: str, benchmark: str) -> str:
    """Output path of a benchmark's page in one language."""
    return f"{lang}/benchmarks/{slugify(benchmark)}/index.html"
