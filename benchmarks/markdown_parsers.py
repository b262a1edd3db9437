"""Time the site's Markdown rendering (markdown-it-py) against Python-Markdown on hostile and normal input.

    python benchmarks/markdown_parsers.py [--sizes 2500,5000,10000,20000]

Python-Markdown is no longer a dependency; it is timed only when it is importable. Its inline processor
is quadratic on runs of '[' (doubling the input about quadruples the time), markdown-it-py is linear.
The article is timed as the best of 30 runs, each '[' input once (the slow ones take minutes); pass smaller
--sizes for a quick look. markdown-it-py's figure includes sanitizing (nh3), Python-Markdown's does not.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from site_builder.markup import render_markdown

ROOT = Path(__file__).resolve().parent.parent


def _seconds(function, text: str, repeat: int = 1) -> float:
    """Best of `repeat` runs: on a shared machine the minimum is the least noisy figure."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function(text)
        best = min(best, time.perf_counter() - start)
    return best


def _python_markdown():
    try:
        import markdown
    except ImportError:
        return None
    extensions = ["tables", "footnotes", "toc", "fenced_code", "sane_lists"]  # what the site used before
    return lambda text: markdown.markdown(text, extensions=extensions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2500,5000,10000,20000", help="numbers of '[' to try")
    sizes = [int(size) for size in parser.parse_args().sizes.split(",")]
    other = _python_markdown()
    article = next(iter(sorted((ROOT / "content").glob("en/*.md")))).read_text(encoding="utf-8").split("---", 2)[2]
    cases = [(f"shipped article ({len(article.encode()) / 1024:.1f} KB)", article, 30)]
    cases += [(f"{size:,} '['", "[" * size, 1) for size in sizes]
    render_markdown("warm *up*")  # first-call setup (regex compilation) is not what is measured
    if other is not None:
        other("warm *up*")
    print(f"{'input':<28} {'markdown-it-py':>15} {'Python-Markdown':>16} {'ratio':>8}")
    for name, text, repeat in cases:
        ours = _seconds(render_markdown, text, repeat)
        if other is None:
            print(f"{name:<28} {ours:>14.3f}s {'not installed':>16}")
            continue
        theirs = _seconds(other, text, repeat)
        print(f"{name:<28} {ours:>14.3f}s {theirs:>15.3f}s {theirs / ours:>7.1f}x")


if __name__ == "__main__":
    main()
