"""What a round's charts feature: declared in round.toml's [charts] table, or derived from the results.

Declared names are checked against the data here (unknown benchmark or accelerator: an error with the
line of round.toml). A feature that is neither declared nor found in the data leaves its chart out,
with a note saying why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from site_builder import metrics
from site_builder.data import Dataset
from site_builder.errors import Collector, Problem
from site_builder.hardware import Hardware
from site_builder.rounds import ChartsDeclaration, RoundInfo

DEFAULT_COMPARISON_SCALE = 8  # one node of eight accelerators, the usual single-node size in MLPerf


@dataclass(frozen=True)
class Features:
    scaling_benchmark: str | None = None
    head_to_head: tuple[str, str] | None = None
    head_to_head_benchmarks: tuple[str, ...] = ()
    single_node_benchmarks: tuple[str, ...] = ()
    comparison_scale: int = DEFAULT_COMPARISON_SCALE
    aliases: dict[str, str] = field(default_factory=dict)
    declared: frozenset[str] = frozenset()
    """Keys that round.toml declares: an empty scope for them is a warning, not a note."""
    source: str | None = None
    """round.toml as shown in messages, when the round has one."""
    lines: dict[str, int] = field(default_factory=dict)


def resolve_features(info: RoundInfo, dataset: Dataset, round_name: str, hardware: Hardware,
                     problems: Collector) -> Features:
    """The round's features; errors (unknown names in [charts]) go to `problems` with file:line."""
    declared = info.charts or ChartsDeclaration(path="")

    def where(key: str) -> tuple[str, int | None]:
        return declared.path, declared.lines.get(key)

    current = dataset.round(round_name)
    order = dataset.benchmarks_in(round_name)
    known_benchmarks = set(dataset.benchmarks.index)

    def check_benchmark(benchmark: str, key: str) -> bool:
        if benchmark not in known_benchmarks:
            problems.error(f"[charts] {key}: unknown benchmark '{benchmark}'", *where(key),
                           hint="known: " + ", ".join(sorted(known_benchmarks)) + " (data/benchmarks.csv)")
            return False
        return True

    def check_accelerator(accelerator: str, key: str) -> bool:
        if accelerator not in hardware.accelerators:
            problems.error(f"[charts] {key}: unknown accelerator '{accelerator}'", *where(key),
                           hint="known: " + ", ".join(hardware.accelerators) + " (data/accelerators.csv)")
            return False
        return True

    scale = declared.comparison_scale or DEFAULT_COMPARISON_SCALE
    scaling = declared.scaling_benchmark
    if scaling is not None:
        check_benchmark(scaling, "scaling_benchmark")
    else:
        scaling = metrics.widest_scaling_benchmark(current, order)

    if declared.single_node_benchmarks is not None:
        single = tuple(b for b in declared.single_node_benchmarks if check_benchmark(b, "single_node_benchmarks"))
    else:
        single = tuple(metrics.single_node_benchmarks(current, scale, order))

    pair = declared.head_to_head
    if pair is not None:
        known = [check_accelerator(a, "head_to_head") for a in pair]  # both checked, both reported
        if not all(known):
            pair = None
    else:
        pair = metrics.head_to_head_pair(current, hardware.vendor_of, scale, order)
    pair_benchmarks = tuple(metrics.shared_benchmarks(current, *pair, scale, order)) if pair else ()

    return Features(scaling_benchmark=scaling, head_to_head=pair, head_to_head_benchmarks=pair_benchmarks,
                    single_node_benchmarks=single, comparison_scale=scale, aliases=dict(declared.aliases),
                    declared=frozenset(k for k in declared.lines if not k.startswith("aliases.")),
                    source=declared.path or None, lines=dict(declared.lines))


def check_aliases(features: Features, chart_ids: list[str], left_out: dict[str, Problem],
                  problems: Collector) -> dict[str, str]:
    """Aliases that lead somewhere: an alias must not shadow a chart id and must name a chart of the
    catalog (an alias of a left-out chart is dropped: its chart's note already says why)."""
    usable = {}
    for old, new in features.aliases.items():
        where = (features.source, features.lines.get(f"aliases.{old}"))
        if old in chart_ids:
            problems.error(f"[charts.aliases] '{old}' is the id of a chart of this round", *where)
        elif new in left_out:
            continue
        elif new not in chart_ids:
            problems.error(f"[charts.aliases] '{old}' leads to unknown chart '{new}'", *where,
                           hint="chart ids: " + ", ".join(chart_ids))
        else:
            usable[old] = new
    return usable

