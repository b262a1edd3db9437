"""Static renderings (no browser, no network): chart SVG and PNG with vl-convert, Open Graph cards with Pillow
(or vl-convert, for a script Pillow cannot lay out).

vl-convert's renderings are cached on disk by the hash of their spec, so a rebuild only renders what changed.
Each is sealed (`cache.seal`) and checked before use: one that does not check out is rendered again. A build
draws its Pillow cards straight into its spool (1-2 ms each, where reading one back from the cache and copying
it costs about as much): written once, then kept by the site from one build to the next.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import importlib.util
import io
import json
import os
import struct
import textwrap
import zlib
from pathlib import Path

from site_builder.cache import MAC_SIZE, entry as cache_entry, key as cache_key, package_version, store, unseal
from site_builder.errors import Problem, SiteError
from site_builder.output import FromFile

STATIC_WIDTH = 640  # "container" width has no meaning outside a page
NARROW_STATIC_WIDTH = 300  # the rendering for phones: legible at 320 px without scaling down much
# Characters per line of the chart's title and subtitle at STATIC_WIDTH (bold 15 px, 12 px; see charts.base).
TITLE_CHARACTERS, SUBTITLE_CHARACTERS = 58, 84
# The chart themes of site.js (THEMES), for the static renderings: drawn in the light one, with a style sheet
# that turns them to the dark one when the reader's colour scheme is dark (an <img> follows the page's).
LIGHT_THEME = {"background": "#ffffff", "ink": "#1b1d21", "soft": "#454b58", "grid": "#e3e5ea", "domain": "#8a909c"}
DARK_THEME = {"background": "#121418", "ink": "#e6e8ec", "soft": "#c3c8d2", "grid": "#2c313b", "domain": "#7d8494"}
CARD_WIDTH, CARD_HEIGHT = 1200, 630
RENDERER = "vl-convert-python"  # the package that renders (and makes the Vega bundle), for its version
RENDERINGS_PER_WORKER = 200  # a vl-convert worker more for each (its start costs about a second)
# A chart page's Open Graph image: its wide static SVG rasterized (resvg, 20 ms) at this scale, 1,120 px wide,
# rather than drawn again by Vega at that width (55 ms): text large enough to read in a link preview.
OPEN_GRAPH_SCALE = 1.75


def _cache_path(kind: str, spec: dict) -> Path:
    spec_text = json.dumps(spec, sort_keys=True, ensure_ascii=False)
    return cache_entry("renders", cache_key("rendering", kind, package_version(RENDERER), spec_text), kind)


def _lookup(kind: str, spec: dict) -> bytes | None:
    return _lookup_at(_cache_path(kind, spec))


def _lookup_at(path: Path) -> bytes | None:
    try:
        content = unseal(path.read_bytes())
    except OSError:  # not cached yet, or evicted by a concurrent build a moment ago
        return None
    if content is None:  # damaged, or not written by site-builder: rendered again
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # recently used renderings are evicted last
    return content


def _cached(kind: str, spec: dict, render) -> bytes:
    content = _lookup(kind, spec)
    if content is not None:
        return content
    path = _cache_path(kind, spec)
    content = render(spec)
    store(path, content)
    return content


# A rendering to make: ("svg", chart spec), ("narrow-svg", chart spec), ("png", chart spec: its Open Graph image)
# or ("card", (title, kicker, footer, direction)); a chart spec as a dict or as its JSON text (as a build holds it:
# compact).
Task = tuple[str, object]


def _entry(task: Task) -> tuple[str, dict]:
    """The kind and the full spec a task's rendering is cached under."""
    kind, value = task
    if kind != "card" and isinstance(value, str):
        value = json.loads(value)
    if kind == "svg":
        return "svg", _svg_spec(value)
    if kind == "narrow-svg":
        return "svg", _svg_spec(narrow_spec(value), NARROW_STATIC_WIDTH)
    if kind == "png":
        return "png", {"raster": _svg_spec(value), "scale": OPEN_GRAPH_SCALE}
    title, kicker, footer, direction = value
    fonts = _pillow_fonts(title, kicker, footer, direction)
    if fonts is not None:
        return "png", _card_fast_spec(title, kicker, footer, fonts)
    return "png", _card_vega_spec(title, kicker, footer, direction)


def rendering_key(task: Task) -> str:
    """A hash of everything the rendering is made from (its spec, the renderer's and fonts' versions)."""
    return _cache_path(*_entry(task)).name


def stored_task(_shared, task: Task):
    """The rendering of a task that is not cached (see `Renderings`), made and stored, answering with its file
    in the cache rather than its bytes (a task of `FreshWorkers`)."""
    kind, spec = _entry(task)
    content = _vega_svg(spec) if kind == "svg" else _raster_png(spec) if "raster" in spec else _vega_png(spec)
    path = _cache_path(kind, spec)
    return FromFile(str(path), skip=MAC_SIZE) if store(path, content) else content  # no cache: the bytes


def stored_rendering(task: Task, key: str | None = None):
    """The cached rendering as a FromFile, or None when it is not cached or does not check out (its use is
    noted, for the LRU trimming). `key`: the task's `rendering_key` when known (a cached chart keeps its own),
    which spares making its full spec again."""
    path = cache_entry("renders", *key.rsplit(".", 1)) if key else _cache_path(*_entry(task))
    return None if _lookup_at(path) is None else FromFile(str(path), skip=MAC_SIZE)


class RenderFailure(str):
    """In place of a rendering: why vl-convert could not make it (see `in_fresh_worker`)."""


def in_fresh_worker(task, items: list) -> list:
    """[task(None, item) for item in items] in one spawned worker, in order, behind an error boundary (see
    `FreshWorkers`)."""
    return FreshWorkers(task, items).results()


class _Begins(int):
    """A worker's word that it starts the unit of this index (see `FreshWorkers`)."""


class FreshWorkers:
    """[task(None, item) for item in items], made in `workers` spawned processes that start at once, while this one
    goes on; `results()` waits for them. The items come in `units` (lists of their indexes; by default one each),
    each made in order by one process; a process takes the next unit from a shared counter when it is done with
    one, so that the process that happens to draw the heavy charts does not leave the other idle (dealt in turn
    beforehand, two processes finished 19 s apart in a cold build of 1,683 renderings).

    An item that makes vl-convert fail gets a RenderFailure in its place. A Rust panic there either aborts the
    process (its pipe closes early) or raises pyo3's PanicException, a BaseException. A process says which unit
    it starts and sends each result as it is made, so the first item of its unit without a result is the
    culprit; the rest of that unit goes to a new process, and so do the units left when every process that took
    them is gone.

    Spawned, not forked: vl-convert's runtime (threads, about 120 MB) then never lives in this process, which
    may fork workers later; `task` travels by pickle, so it is a module-level function of a light module. No
    thread waits here on the processes (plain processes, pipes and a counter in shared memory), so this process
    may fork while they run.

    The work goes to a process in a file, not in its arguments: `multiprocessing` writes those into a pipe whose
    reading end it also holds, so a process that died while starting (a script that calls the build without
    `if __name__ == "__main__":` runs again in it, and fails) left this one blocked forever on a full pipe. A
    process that fails before it takes any unit is the build's error, not a crash to start again."""

    def __init__(self, task, items: list, units: list[list[int]] | None = None, workers: int = 1) -> None:
        import multiprocessing

        self._context = multiprocessing.get_context("spawn")
        self.task, self.items = task, list(items)
        self.units = units if units is not None else [[index] for index in range(len(self.items))]
        self._made: dict[int, object] = {}
        self._next = self._context.Value("q", 0)  # the next unit of `units` to take; its lock: one taker each
        self._running: dict = {}  # pipe -> [process, its units, its counter, the unit it is on, results of it]
        for _ in range(min(workers, len(self.units))):
            self._start(self.units, self._next)

    def _start(self, units: list[list[int]], counter) -> None:
        import pickle
        import tempfile

        receiving, sending = self._context.Pipe(duplex=False)
        descriptor, work = tempfile.mkstemp(prefix="site-builder-work-", suffix=".pickle")
        with os.fdopen(descriptor, "wb") as stream:
            pickle.dump((self.task, [[self.items[i] for i in unit] for unit in units]), stream,
                        protocol=pickle.HIGHEST_PROTOCOL)
        process = self._context.Process(target=_work_in_units, daemon=True, args=(work, counter, sending))
        try:
            process.start()
        except BaseException:
            os.unlink(work)
            raise
        sending.close()  # held by the worker alone now: its end, or its death, closes the pipe
        self._running[receiving] = [process, units, counter, None, 0, work]  # the unit it is on: None until one

    def results(self) -> list:
        from multiprocessing.connection import wait

        while self._running:
            for pipe in wait(list(self._running)):
                state = self._running[pipe]
                try:
                    message = pipe.recv()
                except EOFError:  # the worker is done, or gone before the last result of its unit
                    self._ended(pipe)
                    continue
                if isinstance(message, _Begins):
                    state[3:5] = [state[1][message], 0]
                else:
                    self._made[state[3][state[4]]] = message
                    state[4] += 1
        # Only a process killed from outside between taking a unit and saying so leaves an item unmade.
        lost = RenderFailure("the renderer's process ended before making it")
        return [self._made.get(index, lost) for index in range(len(self.items))]

    def _ended(self, pipe) -> None:
        process, units, counter, unit, done, work = self._running.pop(pipe)
        process.join()
        pipe.close()
        with contextlib.suppress(OSError):
            os.unlink(work)
        if unit is None and process.exitcode:  # before it took any unit
            self.cancel()
            raise SiteError(Problem(f"the renderer's process failed as it started (exit status {process.exitcode})",
                                    hint="a Python script that builds the site must do it under "
                                         '`if __name__ == "__main__":` (its renderers are new Python processes, '
                                         "which import the script); else see the lines above"))
        if unit is not None and done < len(unit):  # it died on this item
            self._made[unit[done]] = RenderFailure("the renderer crashed (its process was aborted)")
            if unit[done + 1:]:
                self._start([unit[done + 1:]], self._context.Value("q", 0))
        if counter.value < len(units) and not any(other[2] is counter for other in self._running.values()):
            self._start(units, counter)  # units nobody took yet, and nobody left to take them

    def cancel(self) -> None:
        """Stop the workers (a build that failed before it needed the results)."""
        for pipe, (process, *_rest, work) in list(self._running.items()):
            if process.exitcode is None:
                process.terminate()
            process.join()
            pipe.close()
            with contextlib.suppress(OSError):
                os.unlink(work)
        self._running.clear()


def _work_in_units(work: str, counter, sending) -> None:
    """In a spawned worker: the task and its units from the file `work`; take the next unit until none is left;
    each item's result sent as it is made, an exception being that item's failure."""
    import pickle

    with open(work, "rb") as stream:
        task, units = pickle.load(stream)
    with contextlib.suppress(OSError):  # read: gone at once, also should this build be killed later
        os.unlink(work)
    while True:
        with counter.get_lock():
            taken = counter.value
            counter.value += 1
        if taken >= len(units):
            break
        sending.send(_Begins(taken))
        for item in units[taken]:
            try:
                result = task(None, item)
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # noqa: BLE001 - the boundary: whatever the renderer raised (a panic too)
                result = RenderFailure(f"{type(exc).__name__}: {str(exc)[:200]}")
            sending.send(result)
    sending.close()


class Renderings:
    """Every rendering of `tasks` (charts; cards Pillow cannot draw), in order, as FromFile (or bytes when the
    cache cannot be written; a RenderFailure when vl-convert could not make it): cached ones found at once, the
    others started at once in vl-convert's workers, fresh processes (never this one), and made while the build
    goes on; `results()` waits for them."""

    def __init__(self, tasks: list[Task], keys: list[str | None] | None = None, jobs: int = 1) -> None:
        self.found = [stored_rendering(task, key) for task, key in zip(tasks, keys or [None] * len(tasks))]
        missing = [task for task, content in zip(tasks, self.found) if content is None]
        # A vl-convert worker per job when there are hundreds to make (a site with every round: thousands), else
        # one: its runtime costs 120 MB a process, and a few dozen renderings are made before the pages are.
        workers = max(1, min(jobs, len(missing) // RENDERINGS_PER_WORKER))
        # A chart's tasks are one unit, made in order by one worker: its Open Graph image is its wide SVG (made
        # first) rasterized.
        units: dict[object, list[int]] = {}
        for index, task in enumerate(missing):
            units.setdefault(_made_from(task), []).append(index)
        self.vega = FreshWorkers(stored_task, missing, list(units.values()), workers)

    def results(self) -> list:
        made = iter(self.vega.results())
        return [next(made) if content is None else content for content in self.found]

    def cancel(self) -> None:
        self.vega.cancel()


def _made_from(task: Task) -> object:
    """What a task is made from, as a dictionary key: a chart's spec text (or its dict, by identity), a card's texts."""
    return id(task[1]) if isinstance(task[1], dict) else task[1]


def pillow_draws(task: Task) -> bool:
    """Whether a card is drawn here with Pillow (else vl-convert makes it, as a rendering)."""
    return task[0] == "card" and _entry(task)[1].get("card") == PILLOW_CARD


def card_file(path: str, key: str) -> str:
    """The name of an output's card in the build's spool: one per output path and card (two pages may share a
    card's text, never a file, since each file is moved into its place)."""
    return hashlib.sha256(f"{path}\n{key}".encode()).hexdigest()[:32] + ".png"


def draw_card(task: Task, file: Path) -> None:
    """A Pillow card drawn into `file` (the build's spool; the site keeps it, so it is not cached: written once)."""
    _kind, spec = _entry(task)
    file.write_bytes(_draw_card(spec, card_fonts()))


def _draw_card_task(_shared, item: tuple[Task, str]) -> str | None:
    try:
        draw_card(item[0], Path(item[1]))
    except OSError as error:  # a full disk: reported once, at the output folder
        return error.strerror or str(error)
    return None


def draw_cards(cards: list[tuple[Task, Path]], jobs: int) -> list[str]:
    """Each (Pillow card, spool file) drawn, in `jobs` processes; why any could not be written."""
    from site_builder import parallel

    return [error for error in parallel.run(_draw_card_task, [(task, str(file)) for task, file in cards], jobs)
            if error is not None]


STATIC_FONT = "sans-serif"
DRAWN_FONT = "Liberation Sans, Arial, Helvetica, sans-serif"
STATIC_SLACK = 18  # px


def static_spec(spec: dict, width: int = STATIC_WIDTH) -> dict:
    """The spec at a fixed width, with the generic sans-serif face: vl-convert resolves it at once, where
    the browser's list of named faces costs it a font search per text (2 to 4 times the rendering time)."""
    return {**spec, "width": width, "config": {**spec.get("config", {}), "font": STATIC_FONT}}


def theme_config(theme: dict) -> dict:
    """Vega-Lite config of a chart theme (site.js's themeConfig)."""
    return {"background": theme["background"], "view": {"stroke": theme["grid"]},
            "title": {"color": theme["ink"], "subtitleColor": theme["soft"]},
            "axis": {"labelColor": theme["soft"], "titleColor": theme["ink"], "gridColor": theme["grid"],
                     "domainColor": theme["domain"], "tickColor": theme["domain"]},
            "legend": {"labelColor": theme["soft"], "titleColor": theme["ink"], "symbolBaseFillColor": theme["soft"],
                       "symbolBaseStrokeColor": theme["soft"]},
            "text": {"color": theme["ink"]}, "rule": {"color": theme["domain"]}}


def _svg_spec(spec: dict, width: int = STATIC_WIDTH) -> dict:
    """The static SVG's spec: in the light theme (under the spec's own config)."""
    themed = static_spec(spec, width)
    # Room on the left for y labels drawn in a face wider than the one vl-convert measured (DejaVu Sans, where
    # Arial is missing, is up to a tenth wider): right-aligned, they grow leftwards.
    padding = spec.get("padding", 5)
    padding = padding if isinstance(padding, dict) else {side: padding for side in ("top", "right", "bottom", "left")}
    themed["padding"] = {**padding, "left": padding.get("left", 0) + STATIC_SLACK}
    # What `_vega_svg` adds to the drawing (style sheet, font) is part of what it is made from (its cache key).
    themed["usermeta"] = {**(spec.get("usermeta") or {}), "static": [dark_style(), DRAWN_FONT]}
    config = themed["config"]
    for key, value in theme_config(LIGHT_THEME).items():
        config[key] = {**value, **config.get(key, {})} if isinstance(value, dict) else config.get(key, value)
    return themed


def dark_style() -> str:
    """A style sheet for the static SVG: the light theme's colours turned to the dark theme's when the reader's
    colour scheme is dark (the marks' colours reach 3:1 on both backgrounds: they stay)."""
    rules = ["svg>rect:first-of-type{fill:%s}" % DARK_THEME["background"]]
    for key in ("ink", "soft", "grid", "domain"):
        light, dark = LIGHT_THEME[key], DARK_THEME[key]
        rules.append(f'[fill="{light}" i]{{fill:{dark}}}[stroke="{light}" i]{{stroke:{dark}}}')
    return "<style>@media (prefers-color-scheme:dark){" + "".join(rules) + "}</style>"


def _visit(node, fn) -> None:
    """Every object of a spec but its inline data and usermeta (as site.js's visit)."""
    if isinstance(node, list):
        for item in node:
            _visit(item, fn)
    elif isinstance(node, dict):
        fn(node)
        for key, value in node.items():
            if key not in ("data", "datasets", "usermeta"):
                _visit(value, fn)


def narrow_spec(spec: dict, width: int = NARROW_STATIC_WIDTH) -> dict:
    """The spec's narrow variant (usermeta "narrow", as site.js draws it on a phone) for a static rendering
    `width` px wide: short axis titles, optional layers dropped, shorter fields, wider domains, the narrow
    subtitle, the title wrapped again; legends in one column (the plot's left edge, after the y labels, is
    not known before drawing) and text of at least 11 px, so that it stays legible scaled down to a phone."""
    spec = copy.deepcopy(spec)
    meta = spec.get("usermeta") or {}
    variants = meta.get("narrow") or {}
    room = max(120, width - 24)
    titles, drop = variants.get("titles", {}), variants.get("drop", [])
    fields, domains = variants.get("fields", {}), variants.get("domains", {})

    def narrow(node: dict) -> None:
        if isinstance(node.get("title"), str) and node["title"] in titles:
            node["title"] = titles[node["title"]]
        if isinstance(node.get("layer"), list):
            node["layer"] = [layer for layer in node["layer"] if layer.get("name") not in drop]
        if isinstance(node.get("legend"), dict):
            node["legend"].update(columns=1, labelLimit=room - 40, titleLimit=room)
        if isinstance(node.get("field"), str) and node["field"] in fields:
            node["field"] = fields[node["field"]]
        if node.get("field") in domains and isinstance(node.get("scale"), dict) and "domain" in node["scale"]:
            node["scale"]["domain"] = domains[node["field"]]
        mark = node.get("mark")
        if isinstance(mark, dict) and mark.get("type") == "text" and mark.get("fontSize", 11) < 11:
            mark["fontSize"] = 11

    _visit(spec, narrow)
    title = meta.get("title")
    if title and isinstance(spec.get("title"), dict):
        subtitle = list(title["subtitle"])
        if variants.get("subtitle"):
            subtitle[:1] = [variants["subtitle"]]
        heading_chars = TITLE_CHARACTERS * room // (STATIC_WIDTH - 24)
        subtitle_chars = SUBTITLE_CHARACTERS * room // (STATIC_WIDTH - 24)
        spec["title"] = {**spec["title"], "text": textwrap.wrap(title["heading"], heading_chars),
                         "subtitle": [line for p in subtitle for line in textwrap.wrap(p, subtitle_chars)]}
    config = spec.setdefault("config", {})
    config["axis"] = {**config.get("axis", {}), "labelFontSize": 11, "titleFontSize": 11}
    config["axisY"] = {**config.get("axisY", {}), "labelLimit": round(room * 0.4)}
    config["axisX"] = {**config.get("axisX", {}), "labelOverlap": "greedy", "labelSeparation": 6}
    config["legend"] = {**config.get("legend", {}), "labelFontSize": 11, "titleFontSize": 11}
    return spec


def _png_spec(spec: dict, width: int = CARD_WIDTH - 100) -> dict:
    return {**static_spec(spec, width), "background": "white"}


def _vega_svg(spec: dict) -> bytes:
    import vl_convert

    svg = vl_convert.vegalite_to_svg(spec, allowed_base_urls=[])
    start = svg.index(">") + 1  # after the opening <svg ...> tag
    # vl-convert measures "sans-serif" text in its own Liberation Sans: a reader's browser should draw it in
    # that face or in Arial (same metrics), not in a wider sans-serif face that would reach past the labels' room.
    svg = svg[:start] + dark_style() + svg[start:].replace(f'font-family="{STATIC_FONT}"', f'font-family="{DRAWN_FONT}"')
    return svg.encode("utf-8")


def _vega_png(spec: dict) -> bytes:
    import vl_convert

    return vl_convert.vegalite_to_png(spec, scale=1, allowed_base_urls=[])


def _raster_png(spec: dict) -> bytes:
    """A static SVG as PNG: taken from the cache, where the worker that renders the chart's tasks in order has just
    put it (see `Renderings`), or rendered first."""
    import vl_convert

    svg = _cached("svg", spec["raster"], _vega_svg)
    return vl_convert.svg_to_png(svg.decode("utf-8"), scale=spec["scale"])


def chart_svg(spec: dict, width: int = STATIC_WIDTH) -> bytes:
    return _cached("svg", _svg_spec(spec, width), _vega_svg)


def chart_narrow_svg(spec: dict, width: int = NARROW_STATIC_WIDTH) -> bytes:
    """The static SVG for phones: the narrow variant of the chart (`narrow_spec`)."""
    return _cached("svg", _svg_spec(narrow_spec(spec, width), width), _vega_svg)


def chart_png(spec: dict, width: int = CARD_WIDTH - 100) -> bytes:
    return _cached("png", _png_spec(spec, width), _vega_png)


def card_png(title: str, kicker: str, footer: str, direction: str = "ltr") -> bytes:
    """A 1200 x 630 Open Graph card: kicker, title (wrapped, at most four lines) and footer. Drawn with Pillow
    in a few milliseconds when a DejaVu Sans face is installed, the page reads left to right and the text needs
    no shaping (Latin, Greek, Cyrillic, Vietnamese); otherwise rendered by vl-convert (about 0.2 s, cached)."""
    fonts = _pillow_fonts(title, kicker, footer, direction)
    if fonts is not None:
        return card_fast(title, kicker, footer, fonts)
    return card_vega(title, kicker, footer, direction)


def _pillow_fonts(title: str, kicker: str, footer: str, direction: str) -> tuple[bytes, bytes] | None:
    """The fonts Pillow draws a card with, or None when vl-convert must: no DejaVu Sans, a page that reads right
    to left (Pillow lays out left to right only), or text that needs shaping or bidi."""
    fonts = card_fonts()
    ok = fonts is not None and direction == "ltr" and all(_drawable(text) for text in (title, kicker, footer))
    return fonts if ok else None


CARD_BACKGROUND, CARD_INK, CARD_MUTED = "#0b3d91", "#ffffff", "#c9dbff"
PILLOW_CARD = "pillow-palette-bands"  # the design of the cards drawn with Pillow (part of their cache key)
CARD_COMPRESSION = 1  # zlib level: 2.6 ms a card instead of 6.4 at level 6, for files 25 % larger
CARD_MUTED_LEVEL = 204  # the Pillow card's muted text: 80 % of the way from the background to the ink
CARD_MARGIN, CARD_TITLE_LINES = 72, 4
# Looked up in this order, so the same machine always draws with the same face (Debian, Fedora, Arch, Homebrew).
FONT_FOLDERS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu-sans-fonts", "/usr/share/fonts/dejavu",
                "/usr/share/fonts/TTF", "/usr/local/share/fonts", "/opt/homebrew/share/fonts")


@functools.cache
def card_fonts() -> tuple[bytes, bytes] | None:
    """(regular, bold) DejaVu Sans font files, or None when there is none (or no Pillow)."""
    if importlib.util.find_spec("PIL") is None:
        return None
    for folder in FONT_FOLDERS:
        regular, bold = Path(folder, "DejaVuSans.ttf"), Path(folder, "DejaVuSans-Bold.ttf")
        with contextlib.suppress(OSError):
            return _font_files(*((path, path.stat().st_mtime_ns, path.stat().st_size) for path in (regular, bold)))
    return None


@functools.lru_cache(maxsize=4)
def _font_files(*files: tuple[Path, int, int]) -> tuple[bytes, ...]:
    """The fonts' bytes, read once per version of the files (1.4 MB, asked for on every card): the same bytes
    objects each time, whose hash Python keeps, so the caches keyed by them cost nothing either."""
    return tuple(path.read_bytes() for path, _mtime, _size in files)


# Unicode's marks and isolates of direction: invisible in text laid out by the bidi algorithm, a box in Pillow's.
BIDI_CONTROLS = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _drawable(text: str) -> bool:
    """Text that a font draws letter by letter, left to right: no script that needs shaping or bidi."""
    return all((ord(c) < 0x0530 or 0x1E00 <= ord(c) <= 0x1EFF or 0x2000 <= ord(c) <= 0x215F)
               and c not in BIDI_CONTROLS for c in text)


def _wrap(draw, text: str, font, width: int, max_lines: int) -> list[str]:
    """Greedy wrap by measured width; a title longer than `max_lines` ends with an ellipsis."""
    lines: list[str] = []
    for word in text.split():
        if lines and draw.textlength(f"{lines[-1]} {word}", font=font) <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1].rstrip(" ,.;:") + "…"
    return [_fit(draw, line, font, width) for line in lines] or [""]


def _fit(draw, line: str, font, width: int) -> str:
    """A single word wider than the card is cut with an ellipsis."""
    if draw.textlength(line, font=font) <= width:
        return line
    while line and draw.textlength(line + "…", font=font) > width:
        line = line[:-1]
    return line + "…"


@functools.cache
def _card_palette() -> tuple[int, ...]:
    """Grey level -> colour from the background (0) to the ink (255): cards are drawn in one 8-bit channel
    (antialiased text blends along this ramp) and saved as a palette PNG, a third of the bytes to compress."""
    background = [int(CARD_BACKGROUND[i:i + 2], 16) for i in (1, 3, 5)]
    ink = [int(CARD_INK[i:i + 2], 16) for i in (1, 3, 5)]
    return tuple(round(b + (k - b) * level / 255) for level in range(256) for b, k in zip(background, ink))


@functools.cache
def _face(font: bytes, size: int):
    from PIL import ImageFont

    return ImageFont.truetype(io.BytesIO(font), size, layout_engine=ImageFont.Layout.BASIC)


CARD_TEXT_WIDTH = CARD_WIDTH - 2 * CARD_MARGIN


def _draw_line(font: bytes, size: int, text: str):
    """A line of text, fitted to the card, drawn in full ink on black, with its offset from where it goes.
    Pasting a grey level through this mask blends exactly as `ImageDraw.text` does (the same operation on
    the same bitmap), so a card made of such stamps has the pixels of a card drawn line by line."""
    from PIL import Image, ImageDraw

    face = _face(font, size)
    left, top, right, bottom = _measure().textbbox((0, 0), text, font=face)
    left, top = left - 2, top - 2  # a margin: the bitmap may spill a pixel past the measured box
    mask = Image.new("L", (right - left + 2, bottom - top + 2), 0)
    draw = ImageDraw.Draw(mask)
    draw.text((-left, -top), _fit(draw, text, face, CARD_TEXT_WIDTH), font=face, fill=255)
    return mask, (left, top)


_line_mask = functools.lru_cache(maxsize=512)(_draw_line)  # the kicker and footer: the same on many cards


@functools.cache
def _measure():
    from PIL import Image, ImageDraw

    return ImageDraw.Draw(Image.new("L", (1, 1)))


def card_fast(title: str, kicker: str, footer: str, fonts: tuple[bytes, bytes]) -> bytes:
    return _cached("png", _card_fast_spec(title, kicker, footer, fonts), lambda spec: _draw_card(spec, fonts))


def _draw_card(spec: dict, fonts: tuple[bytes, bytes]) -> bytes:
    lines = _wrap(_measure(), spec["title"], _face(fonts[1], 62), CARD_TEXT_WIDTH, CARD_TITLE_LINES)
    return _card_png([(80, _line_mask(fonts[0], 30, spec["kicker"]), CARD_MUTED_LEVEL),
                      *((150 + number * 76, _draw_line(fonts[1], 62, line), 255) for number, line in enumerate(lines)),
                      (CARD_HEIGHT - 110, _line_mask(fonts[0], 28, spec["footer"]), CARD_MUTED_LEVEL)])


def _card_png(stamps: list) -> bytes:
    """The card as an 8-bit palette PNG (`_card_palette`): `stamps` are (y, (mask, offset), grey level), pasted
    in order at x = CARD_MARGIN on the background (0). Only the bands of rows that stamps cover are drawn and
    compressed; each run of blank rows between them is compressed once per length and spliced into the zlib
    stream (a card is mostly background: drawing and encoding take half the time of a whole card's)."""
    import numpy
    from PIL import Image

    placed = [(y + top, y + top + mask.height, mask, left, fill) for y, (mask, (left, top)), fill in stamps]
    bands: list[list[int]] = []  # the rows that stamps cover, overlapping ones merged
    for first, last in sorted((max(first, 0), min(last, CARD_HEIGHT)) for first, last, *_ in placed):
        if bands and first <= bands[-1][1]:
            bands[-1][1] = max(bands[-1][1], last)
        elif first < last:
            bands.append([first, last])
    stream, adler, row = [b"\x78\x01"], 1, 0  # zlib header: deflate, 32 KB window
    compressor = zlib.compressobj(CARD_COMPRESSION, zlib.DEFLATED, -15)
    for first, last in [*bands, [CARD_HEIGHT, CARD_HEIGHT]]:
        if first > row:  # blank rows: filter byte and pixels all 0
            size = (first - row) * (CARD_WIDTH + 1)
            stream.append(_blank_deflate(size))
            adler = ((adler >> 16) + size * (adler & 0xFFFF)) % 65521 << 16 | adler & 0xFFFF  # Adler-32 of zeros
        if first < last:
            strip = Image.new("L", (CARD_WIDTH, last - first), 0)
            for top, bottom, mask, left, fill in placed:  # in order: where stamps overlap, the later blends last
                if top < last and bottom > first:
                    strip.paste(fill, (CARD_MARGIN + left, top - first), mask)
            rows = numpy.zeros((last - first, CARD_WIDTH + 1), numpy.uint8)  # each row: filter 0, its pixels
            rows[:, 1:] = numpy.asarray(strip)
            data = rows.tobytes()
            # A full flush: what follows refers to nothing before it (blank rows are spliced in between).
            stream.append(compressor.compress(data) + compressor.flush(zlib.Z_FULL_FLUSH))
            adler = zlib.adler32(data, adler)
        row = last
    stream.append(b"\x03\x00" + struct.pack(">I", adler))  # an empty final block, then the checksum

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", CARD_WIDTH, CARD_HEIGHT, 8, 3, 0, 0, 0)  # 8-bit palette, not interlaced
    return b"".join([b"\x89PNG\r\n\x1a\n", chunk(b"IHDR", header), chunk(b"PLTE", bytes(_card_palette())),
                     chunk(b"IDAT", b"".join(stream)), chunk(b"IEND", b"")])


@functools.lru_cache(maxsize=64)
def _blank_deflate(size: int) -> bytes:
    """`size` zero bytes as raw deflate blocks ending on a byte boundary, to be spliced into a stream."""
    compressor = zlib.compressobj(CARD_COMPRESSION, zlib.DEFLATED, -15)
    return compressor.compress(bytes(size)) + compressor.flush(zlib.Z_FULL_FLUSH)


def _card_fast_spec(title: str, kicker: str, footer: str, fonts: tuple[bytes, bytes]) -> dict:
    """What a Pillow card is made from: its text, the fonts and Pillow's version (the cache key)."""
    import PIL

    return {"card": PILLOW_CARD, "compression": CARD_COMPRESSION, "pillow": PIL.__version__,
            "fonts": _font_hashes(fonts), "title": title,
            "kicker": kicker, "footer": footer}


@functools.cache
def _font_hashes(fonts: tuple[bytes, bytes]) -> list[str]:
    return [hashlib.sha256(font).hexdigest() for font in fonts]


def card_vega(title: str, kicker: str, footer: str, direction: str = "ltr") -> bytes:
    """The card rendered by vl-convert: for text Pillow's basic layout cannot draw (Arabic, CJK, Indic), and for
    every page that reads right to left."""
    return _cached("png", _card_vega_spec(title, kicker, footer, direction), _vega_png)


def _card_vega_spec(title: str, kicker: str, footer: str, direction: str = "ltr") -> dict:
    """A line is a mark of its own: in a text of several lines (an SVG <tspan> each), resvg moves only the first
    letter of a right-to-left line down to its place. Vega writes no `direction` into SVG, so a right-to-left
    card starts each line with a RIGHT-TO-LEFT ISOLATE (and ends it with a POP DIRECTIONAL ISOLATE): the bidi
    algorithm then lays out "Site-builder: نظرة" from the right, as the page does, and the lines align right."""
    lines = textwrap.wrap(title, 30) or [""]
    if len(lines) > 4:
        lines = lines[:4]
        lines[-1] = lines[-1].rstrip(" ,.;:") + "…"
    rtl = direction == "rtl"

    def text(y: int, size: int, color: str, value: str, weight: str = "normal") -> dict:
        return {"mark": {"type": "text", "x": CARD_WIDTH - CARD_MARGIN if rtl else CARD_MARGIN, "y": y,
                         "align": "right" if rtl else "left", "baseline": "top", "fontSize": size,
                         "fontWeight": weight, "color": color, "text": f"\u2067{value}\u2069" if rtl else value,
                         "font": "DejaVu Sans, Liberation Sans, Arial, sans-serif", "limit": CARD_WIDTH - 144}}

    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "width": CARD_WIDTH, "height": CARD_HEIGHT, "autosize": "none", "padding": 0,
        "background": "#0b3d91", "config": {"view": {"stroke": None}},
        "data": {"values": [{}]},
        "layer": [text(80, 30, "#c9dbff", kicker),
                  *(text(150 + 74 * number, 62, "#ffffff", line, "bold") for number, line in enumerate(lines)),
                  text(CARD_HEIGHT - 110, 28, "#c9dbff", footer)],
    }
