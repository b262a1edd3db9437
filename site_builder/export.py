"""One chart, outside a build: for `site-builder chart ID --lang LANG --format json|svg|png`."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from site_builder import charts, i18n, images
from site_builder.config import load_config
from site_builder.errors import Problem, SiteError


def export_chart(root: Path, chart_id: str, language: str, form: str, width: int = images.STATIC_WIDTH) -> bytes:
    config = load_config(root)
    if language not in config.languages:
        raise SiteError(Problem(f"unknown language '{language}'", hint="site languages: " + ", ".join(config.languages)))
    lang, found = i18n.load_language(language, config.theme.locale_dirs, root, config.locales_dir)
    if any(problem.severity == "error" for problem in found):
        raise SiteError([problem for problem in found if problem.severity == "error"])
    inputs = charts.load_inputs(config.data_dir, config.round, config.compared_round, root, config.site_rounds)
    project, _ = charts.load_project_charts(config.charts_dir, root)
    catalog = charts.catalog(inputs, project)
    chart_id = inputs.features.aliases.get(chart_id, chart_id)  # an old id exports its current chart
    if chart_id not in catalog:
        close = difflib.get_close_matches(chart_id, [*catalog, *inputs.features.aliases], n=1)
        raise SiteError(Problem(f"unknown chart '{chart_id}'",
                                hint=f"did you mean '{close[0]}'?" if close else "known: " + ", ".join(catalog)))
    try:
        chart = charts.build_chart(chart_id, catalog[chart_id], inputs, lang)
    except charts.NoData as reason:
        raise SiteError(Problem(f"chart '{chart_id}' is left out: {reason}")) from None
    if form == "json":
        return (json.dumps(chart.spec, ensure_ascii=False, indent=1, allow_nan=False) + "\n").encode()
    if form == "svg":
        return images.chart_svg(chart.spec, width)
    return images.chart_png(chart.spec, width)
