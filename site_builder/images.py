"""Static renderings with vl-convert (no browser, no network): chart SVG and PNG, Open Graph cards.

Renderings are cached on disk by the hash of their spec, so a rebuild only renders what changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import textwrap

from site_builder.assets import cache_dir, store

STATIC_WIDTH = 640  # "container" width has no meaning outside a page
CARD_WIDTH, CARD_HEIGHT = 1200, 630


def _cached(kind: str, spec: dict, render) -> bytes:
    import vl_convert

    key = hashlib.sha256(json.dumps([kind, getattr(vl_convert, "__version__", ""), spec], sort_keys=True,
                                    ensure_ascii=False).encode()).hexdigest()
    path = cache_dir() / "renders" / f"{key}.{kind}"
    try:
        content = path.read_bytes()
    except OSError:  # not cached yet, or evicted by a concurrent build a moment ago
        content = None
    if content is not None:
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used renderings are evicted last
        return content
    content = render(spec)
    content = content.encode("utf-8") if isinstance(content, str) else content
    store(path, content)
    return content


def trim_render_cache(limit: int) -> int:
    """Evict the least recently used renderings until the cache holds at most `limit` bytes (run after a
    build, so a build never loses what it is using); returns the bytes removed."""
    folder = cache_dir() / "renders"
    files = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):  # evicted by a concurrent build meanwhile
                    stat = entry.stat(follow_symlinks=False)
                    files.append((stat.st_mtime_ns, entry.name, stat.st_size))
    except OSError:
        return 0
    total, removed = sum(size for _, _, size in files), 0
    for _, name, size in sorted(files):
        if total - removed <= limit:
            break
        with contextlib.suppress(OSError):  # best effort: a file that stays is only a few bytes too many
            (folder / name).unlink()
            removed += size
    return removed


def static_spec(spec: dict, width: int = STATIC_WIDTH) -> dict:
    return {**spec, "width": width}


def chart_svg(spec: dict, width: int = STATIC_WIDTH) -> bytes:
    import vl_convert

    return _cached("svg", static_spec(spec, width),
                   lambda s: vl_convert.vegalite_to_svg(s, allowed_base_urls=[]))


def chart_png(spec: dict, width: int = CARD_WIDTH - 100) -> bytes:
    import vl_convert

    return _cached("png", {**static_spec(spec, width), "background": "white"},
                   lambda s: vl_convert.vegalite_to_png(s, scale=1, allowed_base_urls=[]))


def card_png(title: str, kicker: str, footer: str) -> bytes:
    """A 1200 x 630 Open Graph card: kicker, title (wrapped, at most four lines) and footer."""
    import vl_convert

    lines = textwrap.wrap(title, 30) or [""]
    if len(lines) > 4:
        lines = lines[:4]
        lines[-1] = lines[-1].rstrip(" ,.;:") + "…"

    def text(y: int, size: int, color: str, value, weight: str = "normal") -> dict:
        return {"mark": {"type": "text", "x": 72, "y": y, "align": "left", "baseline": "top", "fontSize": size,
                         "fontWeight": weight, "color": color, "lineHeight": round(size * 1.2), "text": value,
                         "font": "DejaVu Sans, Liberation Sans, Arial, sans-serif", "limit": CARD_WIDTH - 144}}

    spec = {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "width": CARD_WIDTH, "height": CARD_HEIGHT, "autosize": "none", "padding": 0,
        "background": "#0b3d91", "config": {"view": {"stroke": None}},
        "data": {"values": [{}]},
        "layer": [text(80, 30, "#c9dbff", kicker), text(150, 62, "#ffffff", lines, "bold"),
                  text(CARD_HEIGHT - 110, 28, "#c9dbff", footer)],
    }
    return _cached("png", spec, lambda s: vl_convert.vegalite_to_png(s, scale=1, allowed_base_urls=[]))
