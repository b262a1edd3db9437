"""What every chart shares: the values a chart is built from and returns, axes, colours, notes."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from site_builder.charts.features import Features
from site_builder.charts.lazy_altair import alt
from site_builder.data import Dataset
from site_builder.display_names import DisplayNames
from site_builder.hardware import Hardware
from site_builder.i18n import Language
from site_builder.images import SUBTITLE_CHARACTERS, TITLE_CHARACTERS

CHART_HEIGHT = 300
SCALE_PADDING = 12  # px between a log axis' end and the first or last mark
WIDE_PLOT_PX = 480  # the least plot width of a wide chart (site.js draws narrow below 600 px of chart)


class NoData(Exception):
    """Raised by a chart whose scope holds nothing to draw; the chart is left out with this reason."""


@dataclass(frozen=True)
class Column:
    """A column of a chart's data table: `kind` picks the format (text, source, int, minutes, percent, ratio)."""

    field: str
    label: str
    kind: str = "text"


@dataclass(frozen=True)
class ChartDraft:
    chart: alt.TopLevelMixin  # without title: build_chart adds heading, subtitle and the scope note
    title: str  # short title, for lists and pages
    heading: str  # the title drawn on the chart
    subtitle: str
    description: str
    rows: pd.DataFrame  # the plotted rows, with their sources
    unscored: int = 0  # results of the chart's scope that have no score and are left out of the marks
    in_scope: int = 0  # all results of the chart's scope, scored or not
    summary: list[str] = field(default_factory=list)  # text alternative, sentence by sentence
    columns: list[Column] = field(default_factory=list)
    narrow: dict = field(default_factory=lambda: narrow_variant())  # see `narrow_variant`
    dark_fields: dict = field(default_factory=dict)  # field -> field to draw instead on a dark background


@dataclass(frozen=True)
class ChartInputs:
    dataset: Dataset
    round: str
    previous_round: str | None
    hardware: Hardware
    features: Features
    names: DisplayNames = DisplayNames()  # readers see submitters by their curated names
    rounds: tuple[str, ...] = ()  # every round of the site, oldest first (charts across rounds read them all)
    main: bool = True  # the site's main round: charts across rounds are built with its charts, once

    @property
    def current(self) -> pd.DataFrame:
        return self.dataset.round(self.round)

    @property
    def previous(self) -> pd.DataFrame:
        return self.dataset.round(self.previous_round) if self.previous_round else self.current.iloc[0:0]

    def benchmark_name(self, benchmark_id: str) -> str:
        return str(self.dataset.benchmarks.loc[benchmark_id, "name"])

    def round_benchmarks(self) -> list[str]:
        return self.dataset.benchmarks_in(self.round)


ChartFactory = Callable[[ChartInputs, Language], ChartDraft]


# Vega does not wrap text. The spec's title is wrapped for the static renderings (images.STATIC_WIDTH, 640 px,
# at the title and subtitle sizes of `localize`; `images.narrow_spec` wraps it again for the narrow one); in a
# page, site.js rewraps the paragraphs of the usermeta to the chart's measured width.


def title_params(heading: str, subtitle: str, note: str = "") -> alt.TitleParams:
    lines = textwrap.wrap(subtitle, SUBTITLE_CHARACTERS) + (textwrap.wrap(note, SUBTITLE_CHARACTERS) if note else [])
    return alt.TitleParams(textwrap.wrap(heading, TITLE_CHARACTERS), subtitle=lines, anchor="start")


def title_paragraphs(heading: str, subtitle: str, note: str = "") -> dict:
    """The title unwrapped, for site.js to wrap by measured width."""
    return {"heading": heading, "subtitle": [p for p in (subtitle, note) if p]}


def narrow_variant(titles: dict[str, str] | None = None, drop: tuple[str, ...] = (),
                   fields: dict[str, str] | None = None, domains: dict[str, list] | None = None,
                   subtitle: str = "") -> dict:
    """What changes when a chart is narrower than site.js's NARROW width, in order of importance: axis titles
    give way to short ones, optional layers (named in the spec) are dropped, text fields swap for shorter ones,
    a scale may widen its domain (field -> domain) to leave room for the labels that remain, and a subtitle
    that describes what the narrow chart shows replaces the wide one's. site.js (and `images.narrow_spec`, for
    the static rendering) also fit legends and long axis labels to the width."""
    narrow = {"titles": dict(titles or {}), "drop": list(drop), "fields": dict(fields or {}),
              "domains": dict(domains or {})}
    return {**narrow, "subtitle": subtitle} if subtitle else narrow


def short_minutes(lang: Language) -> dict[str, str]:
    """Short titles of the minutes axis (always a log scale) for narrow charts."""
    _ = lang.gettext
    short = _("Minutes (log)")
    return {_("Time to train (minutes)") + " " + _("(log scale)"): short, _("Time to train (minutes)"): short}


def unscored_note(lang: Language, unscored: int, in_scope: int) -> str:
    """Said on every chart whose scope has unscored results: how many, and that the rest is no sample."""
    if unscored <= 0:
        return ""
    return lang.ngettext(
        "%(unscored)s of %(total)s results has no score in our data and is not drawn; the scored results "
        "are not a random sample.",
        "%(unscored)s of %(total)s results have no score in our data and are not drawn; the scored results "
        "are not a random sample.", unscored) % {"unscored": lang.number(unscored), "total": lang.number(in_scope)}


def tick_values(values: pd.Series) -> list[int]:
    return sorted({int(v) for v in values})


def log_ticks(values: pd.Series) -> list[float]:
    """1-2-5 ticks spanning the values: readable labels on a log axis of minutes (from 0.01).

    The decades are counted, not looped over until a product passes the top, so any value (1e308, whose
    product with 10 is infinite) gives a short list; the data loader keeps such values out anyway."""
    low, high = float(values.min()), float(values.max())
    if not (math.isfinite(low) and math.isfinite(high) and 0 < low <= high):
        return []
    first = max(-2, math.floor(math.log10(low / 1.5)))
    last = min(math.ceil(math.log10(high) + 1), first + 30, 300)  # at most 30 decades, 10.0**last finite
    ticks = [m * 10.0 ** e for e in range(first, last + 1) for m in (1, 2, 5)]
    return [round(t, 2) for t in ticks if low / 1.5 <= t <= high * 1.5]


def minutes_axis(lang: Language, values: pd.Series, title: str | None = None, field_name: str = "score_minutes",
                 channel=None) -> alt.X | alt.Y:
    """The time-to-train axis: y (`channel` None) or x (alt.X)."""
    _ = lang.gettext
    return (channel or alt.Y)(f"{field_name}:Q", title=title or _("Time to train (minutes)"),
                   scale=alt.Scale(type="log", nice=False, padding=SCALE_PADDING),
                   axis=alt.Axis(values=log_ticks(values) if len(values) else alt.Undefined, format=",.1~f",
                                 labelOverlap="greedy"))


def accelerators_axis(values: pd.Series, title: str, padding: int = SCALE_PADDING) -> alt.X:
    return alt.X("total_accelerators:Q", title=title,
                 scale=alt.Scale(type="log", base=2, nice=False, padding=padding),
                 axis=alt.Axis(values=tick_values(values), format=",d", labelAngle=0, labelOverlap="greedy"))


def vendor_color(inputs: ChartInputs, lang: Language, vendors) -> alt.Color:
    """Vendor colours from data/vendors.csv, for the vendors drawn only (no legend entry without a mark)."""
    domain = inputs.hardware.vendors_in_order(vendors)
    return alt.Color("accelerator_vendor:N", title=lang.gettext("Accelerator vendor"),
                     scale=alt.Scale(domain=domain, range=inputs.hardware.vendor_colours(domain)),
                     legend=alt.Legend(orient="bottom"))


def accelerator_encodings(inputs: ChartInputs, lang: Language, accelerators, shape: bool = True) -> dict:
    """Colour (the family's) and shape (its place in the family) per accelerator, one merged legend
    listing only the accelerators drawn; the same accelerator looks the same in every chart."""
    domain = inputs.hardware.in_order(accelerators)
    title = lang.gettext("Accelerator")
    legend = alt.Legend(orient="bottom", columns=3)
    encodings = {"color": alt.Color("accelerator:N", title=title, legend=legend,
                                    scale=alt.Scale(domain=domain, range=inputs.hardware.colours(domain)))}
    if shape:
        encodings["shape"] = alt.Shape("accelerator:N", title=title, legend=legend,
                                       scale=alt.Scale(domain=domain, range=inputs.hardware.shapes(domain)))
    return encodings


def result_tooltip(lang: Language, extra: list | None = None) -> list[alt.Tooltip]:
    _ = lang.gettext
    return [alt.Tooltip("submitter:N", title=_("Submitter")),
            alt.Tooltip("system:N", title=_("System")),
            alt.Tooltip("accelerator:N", title=_("Accelerator")),
            alt.Tooltip("total_accelerators:Q", title=_("Accelerators"), format=",d"),
            alt.Tooltip("score_minutes:Q", title=_("Time to train (minutes)"), format=",.4f"),
            *(extra or [])]


def result_columns(lang: Language, *extra: Column) -> list[Column]:
    _ = lang.gettext
    return [Column("submitter", _("Submitter")), Column("system", _("System")),
            Column("accelerator", _("Accelerator")), Column("total_accelerators", _("Accelerators"), "int"),
            Column("score_minutes", _("Minutes"), "minutes"), *extra, Column("score_source", _("Source"), "source")]


def counted_from(round_name: str) -> str:
    """Source of a row that counts results rather than quoting one."""
    return f"count of all {round_name} results in data/rounds/{round_name}/results.csv"


def who(lang: Language, row) -> str:
    return lang.gettext("%(submitter)s, %(count)s × %(accelerator)s") % {
        "submitter": row["submitter"], "count": lang.number(int(row["total_accelerators"])),
        "accelerator": row["accelerator"]}


def extremes(lang: Language, rows: pd.DataFrame) -> str:
    fastest = rows.sort_values(["score_minutes", "submitter"]).iloc[0]
    slowest = rows.sort_values(["score_minutes", "submitter"]).iloc[-1]
    return lang.gettext("Fastest: %(fast)s minutes (%(fast_who)s); slowest: %(slow)s minutes (%(slow_who)s).") % {
        "fast": lang.number(fastest["score_minutes"], 2), "fast_who": who(lang, fastest),
        "slow": lang.number(slowest["score_minutes"], 2), "slow_who": who(lang, slowest)}
