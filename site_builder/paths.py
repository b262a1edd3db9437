"""Every output path of the site, and the fragment ids that links share, in one place: a link is made with
the same function as its target's path, so it never drifts from it. Paths are relative to the output folder,
always files (a page is `.../index.html`), '/'-separated."""

from __future__ import annotations

from slugify import slugify

CHOOSER = "index.html"  # the language chooser, the site's root
NOT_FOUND = "404.html"
SITEMAP = "sitemap.xml"
ROBOTS = "robots.txt"


def home(lang: str) -> str:
    return f"{lang}/index.html"


def articles(lang: str) -> str:
    return f"{lang}/articles/index.html"


def article(lang: str, slug: str) -> str:
    return f"{lang}/articles/{slug}/index.html"


def article_card(lang: str, slug: str) -> str:
    """An article's Open Graph image (a text card)."""
    return f"og/{lang}/articles/{slug}.png"


def home_card(lang: str, section: str = "") -> str:
    return f"og/{lang}/{section}home.png"


def round_section(round_name: str, main: bool) -> str:
    """The folder of a round's pages, below the language's: the main round's pages are at the language's root
    (the URLs the site had before it had an archive); every other round's under rounds/<round>/, for good."""
    return "" if main else f"rounds/{slugify(round_name)}/"


def round_home(lang: str, section: str = "") -> str:
    """A round's overview: the language's home page for the main round."""
    return f"{lang}/{section}index.html"


def rounds_index(lang: str) -> str:
    """Every round of the site, and how they compare."""
    return f"{lang}/rounds/index.html"


def records(lang: str) -> str:
    """Each benchmark's fastest result ever, and the round that set it."""
    return f"{lang}/records/index.html"


def charts(lang: str, section: str = "") -> str:
    return f"{lang}/{section}charts/index.html"


def chart(lang: str, chart_id: str, section: str = "") -> str:
    """A chart's permalink page (also the redirect page left at a renamed chart's old id)."""
    return f"{lang}/{section}charts/{chart_id}/index.html"


def embed(lang: str, chart_id: str, section: str = "") -> str:
    return f"embed/{lang}/{section}{chart_id}.html"


def chart_spec(lang: str, chart_id: str, section: str = "") -> str:
    return f"charts/{lang}/{section}{chart_id}.vl.json"


def chart_svg(lang: str, chart_id: str, section: str = "") -> str:
    return f"charts/{lang}/{section}{chart_id}.svg"


def chart_narrow_svg(lang: str, chart_id: str, section: str = "") -> str:
    """The static SVG for phones (the chart's narrow variant)."""
    return f"charts/{lang}/{section}{chart_id}.narrow.svg"


def chart_png(lang: str, chart_id: str, section: str = "") -> str:
    """A chart's PNG, also its page's Open Graph image."""
    return f"charts/{lang}/{section}{chart_id}.png"


def chart_csv(chart_id: str, section: str = "") -> str:
    """The rows a chart plots: one file for every language."""
    return f"data/{section}{chart_id}.csv"


def benchmarks(lang: str, section: str = "") -> str:
    return f"{lang}/{section}benchmarks/index.html"


def benchmark(lang: str, benchmark_id: str, section: str = "") -> str:
    return f"{lang}/{section}benchmarks/{slugify(benchmark_id)}/index.html"


def claims(lang: str, section: str = "") -> str:
    return f"{lang}/{section}claims/index.html"


def search(lang: str) -> str:
    return f"{lang}/search/index.html"


def search_index(lang: str, shard: int = 0) -> str:
    """The folder of a shard of a language's search index (Pagefind's files): the first, which the search page
    loads, then the others (`search.shards`), so that an edit makes only its language's shard again."""
    return f"pagefind/{lang}/" if shard == 0 else f"pagefind/{lang}.{shard + 1}/"  # "." is in no language code


def feed(lang: str) -> str:
    return f"{lang}/feed.xml"


def asset(stem: str, digest: str, suffix: str) -> str:
    """A theme asset, named by its content's hash so that it can be cached forever."""
    return f"assets/{stem}.{digest}.{suffix}"


def result_anchor(round_name: str, submitter: str, system_id: str) -> str:
    """The fragment id of one result's row on its benchmark page: stable across builds and languages,
    unique per round (the same system may appear in two rounds on one page)."""
    return "r-" + slugify(f"{round_name} {submitter} {system_id}")


def cell_anchor(row_anchor: str, column: str) -> str:
    """The fragment id of one cell of a result's row ("minutes", "accelerators" or "nodes"), for a figure that
    links to its value: a row anchor never holds "--" (slugs collapse dashes), so the two never clash."""
    return f"{row_anchor}--{column}"
