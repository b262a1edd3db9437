"""The package's own charts, declared with the public `@chart` API like a project's: definition order is
display order (the round's charts, then one per benchmark). What a round's charts feature (its scaling
showcase, its head-to-head pair) comes from `charts.features`, never from here."""

from __future__ import annotations

from site_builder.charts import compare, history, overview
from site_builder.charts.benchmark import benchmark_chart_id, benchmark_results
from site_builder.charts.registry import chart
from site_builder.charts.scaling import scaling, scaling_chart_id


def _scaling_benchmarks(inputs) -> list[str]:
    return [inputs.features.scaling_benchmark] if inputs.features.scaling_benchmark else []


@chart(scaling_chart_id, each=_scaling_benchmarks)
def scaling_showcase(inputs, lang, benchmark):
    return scaling(benchmark)(inputs, lang)


@chart("fastest-per-benchmark")
def fastest_per_benchmark(inputs, lang):
    return overview.fastest_per_benchmark(inputs, lang)


@chart("accelerator-comparison", when=lambda inputs: bool(inputs.features.single_node_benchmarks))
def accelerator_comparison(inputs, lang):
    return compare.accelerator_comparison(inputs, lang)


@chart(compare.head_to_head_chart_id,
       each=lambda inputs: [tuple(inputs.features.head_to_head)] if inputs.features.head_to_head else [])
def head_to_head(inputs, lang, pair):
    return compare.head_to_head(*pair)(inputs, lang)


@chart("round-over-round", when=lambda inputs: bool(inputs.previous_round))
def round_over_round(inputs, lang):
    return compare.round_over_round(inputs, lang)


@chart("participation")
def participation(inputs, lang):
    return overview.participation(inputs, lang)


@chart("scale-distribution")
def scale_distribution(inputs, lang):
    return overview.scale_distribution(inputs, lang)


@chart("gpu-minutes")
def gpu_minutes(inputs, lang):
    return overview.gpu_minutes(inputs, lang)


@chart(benchmark_chart_id, each=lambda inputs: inputs.round_benchmarks())
def benchmark(inputs, lang, benchmark_id):
    return benchmark_results(benchmark_id)(inputs, lang)


def _across_rounds(inputs) -> bool:
    """Charts across rounds are built once, with the main round's charts."""
    return inputs.main and len(inputs.rounds) > 1


@chart("participation-over-rounds", when=_across_rounds)
def participation_over_rounds(inputs, lang):
    return history.participation_over_rounds(inputs, lang)


@chart(history.history_chart_id, each=lambda inputs: history.family_of(inputs) if _across_rounds(inputs) else [])
def family_history(inputs, lang, family):
    return history.family_history(family)(inputs, lang)
