"""Accelerators and vendors as data: data/accelerators.csv and data/vendors.csv, validated on load.

Which accelerator a submitter's model name means, who makes it, which family it belongs to and which
colour and shape it has in every chart are facts about the world, not about the code: a new chip is a
new row, not a release. Colours come from one colour-blind-safe palette (Okabe & Ito), one per family
and one per vendor, so an accelerator looks the same in every chart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from site_builder.errors import Collector, display_path
from site_builder.sources import read_small_csv

ACCELERATORS_FILE = "accelerators.csv"
VENDORS_FILE = "vendors.csv"
# Okabe & Ito (2008), "Color Universal Design": distinguishable with every common colour vision deficiency.
PALETTE = ("#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")
# The colours drawn for them: the same hues at a luminance between 0.145 and 0.27, so that every mark reaches
# 3:1 (WCAG's minimum for graphics) on the light (#ffffff) and the dark (#121418) chart background alike, with
# no swap between themes (the static SVG too). Black becomes grey; the pairs that colour vision deficiencies
# bring close (orange and vermilion) keep apart by luminance, and every accelerator has a shape of its own.
CHART_COLOURS = {"#000000": "#767676", "#E69F00": "#C37E00", "#56B4E9": "#3496C9", "#009E73": "#009E73",
                 "#F0E442": "#8D7F00", "#0072B2": "#0072B2", "#D55E00": "#BB4600", "#CC79A7": "#C573A1"}
# Point shapes, the most distinct first; the paths (a star, an x, a hexagon, an hourglass, a pentagon) are in Vega's -1..1 box.
SHAPES = ("circle", "square", "triangle-up", "diamond", "cross", "triangle-down",
          "M0,-1L0.235,-0.324L0.951,-0.309L0.38,0.124L0.588,0.809L0,0.4L-0.588,0.809L-0.38,0.124L-0.951,-0.309"
          "L-0.235,-0.324Z",
          "M-1,-0.6L-0.6,-1L0,-0.4L0.6,-1L1,-0.6L0.4,0L1,0.6L0.6,1L0,0.4L-0.6,1L-1,0.6L-0.4,0Z",
          "triangle-right", "M0,-1L0.866,-0.5L0.866,0.5L0,1L-0.866,0.5L-0.866,-0.5Z", "triangle-left",
          "M-0.8,-1L0.8,-1L0.1,0L0.8,1L-0.8,1L-0.1,0Z",
          "M0,-1L0.951,-0.309L0.588,0.809L-0.588,0.809L-0.951,-0.309Z")
# The order a chart deals colours in to series that would otherwise share one: the most distinct first.
DEAL_ORDER = tuple(CHART_COLOURS[c] for c in ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
                                              "#000000", "#F0E442"))
_ACCELERATOR_COLUMNS = ("accelerator", "vendor", "family", "pattern", "colour")
_VENDOR_COLUMNS = ("vendor", "colour")


@dataclass(frozen=True)
class Accelerator:
    name: str
    vendor: str
    family: str
    pattern: re.Pattern
    colour: str
    shape: str


@dataclass(frozen=True)
class Hardware:
    """The accelerator table (file order is the match order for derivation) and the vendor colours."""

    accelerators: dict[str, Accelerator]
    vendors: dict[str, str]  # vendor -> colour
    accelerators_file: str = ACCELERATORS_FILE

    def accelerator_type(self, model: str) -> str | None:
        """The accelerator a submitter's model name means: the first row whose pattern matches."""
        for accelerator in self.accelerators.values():
            if accelerator.pattern.search(model):
                return accelerator.name
        return None

    def vendor_of(self, accelerator: str) -> str:
        return self.accelerators[accelerator].vendor

    def colours(self, accelerators) -> list[str]:
        """The colours of a chart's accelerators, in order: each its family's unless a sibling drawn before it
        has that colour already (see `distinct_colours`)."""
        return distinct_colours([self.accelerators[a].colour for a in accelerators])

    def vendor_colours(self, vendors) -> list[str]:
        return distinct_colours([self.vendors[v] for v in vendors])

    def shapes(self, accelerators) -> list[str]:
        return [self.accelerators[a].shape for a in accelerators]

    def in_order(self, accelerators) -> list[str]:
        """The given accelerators in table order (newest families first, as the table lists them)."""
        present = set(accelerators)
        return [name for name in self.accelerators if name in present]

    def shaped_for(self, accelerators) -> "Hardware":
        """This table with shapes dealt again, in table order, to the accelerators a site shows: a table of every
        round since the first lists more accelerators than there are distinct shapes, a site's rounds fewer."""
        present = self.in_order(accelerators)
        shapes = {name: SHAPES[position % len(SHAPES)] for position, name in enumerate(present)}
        return replace(self, accelerators={name: replace(accelerator, shape=shapes.get(name, accelerator.shape))
                                           for name, accelerator in self.accelerators.items()})

    def vendors_in_order(self, vendors) -> list[str]:
        present = set(vendors)
        return [name for name in self.vendors if name in present]

    def check_results(self, results: pd.DataFrame, problems: Collector) -> None:
        """Every results row names a known accelerator, with the vendor the table gives it."""
        for _, row in results.iterrows():
            where = (row.get("file"), row.get("line"))
            accelerator = self.accelerators.get(row["accelerator"])
            if accelerator is None:
                problems.error(f"accelerator {row['accelerator']!r} has no row in data/{self.accelerators_file}",
                               *where, hint="add a row: accelerator, vendor, family, pattern, colour")
            elif row["accelerator_vendor"] != accelerator.vendor:
                problems.error(f"accelerator {row['accelerator']!r} is made by {accelerator.vendor!r} according to "
                               f"data/{self.accelerators_file}, not {row['accelerator_vendor']!r}", *where)


def distinct_colours(preferred: list[str]) -> list[str]:
    """Colours for a chart's series, in the order given: each keeps its preferred colour (its accelerator family's,
    its vendor's) unless an earlier series of the chart claimed it; those get the palette's colours that no
    series of the chart prefers, in DEAL_ORDER. So no two series of a chart share a colour while the palette
    lasts (eight series); past that a series keeps its preferred colour and its shape tells it apart."""
    colours: list[str | None] = []
    for colour in preferred:
        colours.append(None if colour in colours else colour)
    spare = [c for c in DEAL_ORDER if c not in colours]
    return [colour or (spare.pop(0) if spare else wanted) for colour, wanted in zip(colours, preferred)]


def ink_on(colour: str) -> str:
    """Black or white, whichever reads better on `colour` (WCAG relative luminance)."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return "#000000" if (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) else "#FFFFFF"


def _rows(path: Path, columns: tuple[str, ...], shown: str, problems: Collector) -> list[tuple[int, dict]]:
    """(line, row) pairs of one of the two tables; a missing file names what it should hold."""
    if not path.is_file():
        problems.error(f"missing {path.name}", shown, hint="one row per " + columns[0])
        return []
    return read_small_csv(path, shown, columns, problems)


def _colour(value: str, shown: str, line: int, problems: Collector) -> bool:
    if value.upper() not in PALETTE:
        problems.error(f"colour {value!r} is not in the colour-blind-safe palette", shown, line,
                       hint="use one of " + ", ".join(PALETTE))
        return False
    return True


def load_hardware(data_dir: Path, root: Path | None = None) -> Hardware:
    """Read and validate both tables; every problem is reported together."""
    problems = Collector()
    vendors_shown = display_path(data_dir / VENDORS_FILE, root)
    vendors: dict[str, str] = {}
    for line, row in _rows(data_dir / VENDORS_FILE, _VENDOR_COLUMNS, vendors_shown, problems):
        if row["vendor"] in vendors:
            problems.error(f"vendor {row['vendor']!r} is listed twice", vendors_shown, line)
        elif _colour(row["colour"], vendors_shown, line, problems):
            vendors[row["vendor"]] = CHART_COLOURS[row["colour"].upper()]

    shown = display_path(data_dir / ACCELERATORS_FILE, root)
    accelerators: dict[str, Accelerator] = {}
    family_colour: dict[str, tuple[str, int]] = {}
    for line, row in _rows(data_dir / ACCELERATORS_FILE, _ACCELERATOR_COLUMNS, shown, problems):
        name, family, colour = row["accelerator"], row["family"], row["colour"].upper()
        if name in accelerators:
            problems.error(f"accelerator {name!r} is listed twice", shown, line)
            continue
        if row["vendor"] not in vendors:
            problems.error(f"vendor {row['vendor']!r} has no row in {vendors_shown}", shown, line)
        if not _colour(colour, shown, line, problems):
            continue
        if family in family_colour and family_colour[family][0] != colour:
            problems.error(f"family {family!r} has colour {family_colour[family][0]} on line "
                           f"{family_colour[family][1]}, not {colour}", shown, line,
                           hint="one colour per family; shapes tell its accelerators apart")
            continue
        family_colour.setdefault(family, (colour, line))
        try:
            pattern = re.compile(row["pattern"], flags=re.IGNORECASE)
        except re.error as exc:
            problems.error(f"pattern {row['pattern']!r} is not a regular expression: {exc}", shown, line)
            continue
        # Each accelerator its own shape, by its place in the table: colour is never all that tells two apart.
        accelerators[name] = Accelerator(name, row["vendor"], family, pattern, CHART_COLOURS[colour],
                                         SHAPES[len(accelerators) % len(SHAPES)])
    problems.raise_if_any()
    return Hardware(accelerators, vendors)
