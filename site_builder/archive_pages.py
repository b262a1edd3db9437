"""The pages across rounds: the rounds index (every round, its participation, a link to its section, the charts
across rounds) and the records page (each benchmark's fastest result ever). Functions of what they show, so that
`pages.plan_pages` calls them with what it has:

    site += archive_pages.archive_pages(config, languages, dataset, rounds, main, charts_by, names, updated)
"""

from __future__ import annotations

import datetime as dt

import pandas as pd

from site_builder import history, paths
from site_builder.charts.history import history_chart_id
from site_builder.config import SiteConfig
from site_builder.data import Dataset
from site_builder.display_names import DisplayNames
from site_builder.i18n import Language
from site_builder.labels import availability_mark
from site_builder.rounds import load_round_info, round_order
from site_builder.views import RecordsView, RoundsView, SiteView


def _common(config: SiteConfig, languages: list[Language], names: DisplayNames, updated: dt.date) -> dict:
    return {"config": config, "updated": updated, "names": names, "round_nav": None, "round_name": config.round,
            "previous_round": config.compared_round, "lang_names": {lang.code: lang.native_name for lang in languages}}


def _section(config: SiteConfig, round_name: str, main: str) -> str | None:
    """The folder of a round's pages, or None where the site has no pages for the round (a round outside
    `config.site_rounds`: without the archive, only the main round and the one it is compared with have pages)."""
    if round_name not in config.site_rounds:
        return None
    return paths.round_section(round_name, round_name == main)


def _family_charts(charts_by: dict, code: str, dataset: Dataset, rounds: list[str]) -> list:
    families = history.families(dataset.results, list(dataset.benchmarks.index), rounds, dataset.successors)
    return [charts_by[(code, history_chart_id(*family))] for family in families
            if (code, history_chart_id(*family)) in charts_by]


def record_rows(dataset: Dataset, rounds: list[str], main: str, config: SiteConfig, lang: Language,
                names: DisplayNames) -> list[dict]:
    """The records table: one row per benchmark of the site's rounds, newest benchmarks first (catalog order)."""
    ordered = sorted(rounds, key=round_order)
    table = history.records(dataset.results, list(dataset.benchmarks.index), ordered)
    changes = history.rule_changes(dataset.results, ordered, dataset.rules)
    rows = []
    for _i, record in table.iterrows():
        benchmark, held = record["benchmark"], record["round"]
        scored = held is not None and pd.notna(record["score_minutes"])
        section = _section(config, held, main) if scored else None
        later = changes[(changes["benchmark"] == benchmark) & changes["kind"].isin(["target", "rcp"])]
        later = [r for r in later["round"] if scored and round_order(r) > round_order(held)]
        rows.append({
            "benchmark": benchmark, "name": str(dataset.benchmarks.loc[benchmark, "name"]),
            "minutes": float(record["score_minutes"]) if scored else None, "round": held if scored else None,
            "submitter": names.submitter(record["submitter"]) if scored else "",
            "system": record["system"] if scored else "", "accelerator": record["accelerator"] if scored else "",
            "accelerators": int(record["total_accelerators"]) if scored else None,
            "path": (paths.benchmark(lang.code, benchmark, section) + "#"
                     + paths.result_anchor(held, record["submitter"], record["system_id"]))
            if section is not None else None,
            "first_round": record["first_round"], "last_round": record["last_round"],
            "current": record["last_round"] == ordered[-1], "results": int(record["results"]),
            "unscored": int(record["unscored"]), "rules_changed_in": list(dict.fromkeys(later)),
            "source": record["score_source"] if scored else "",
            "availability": availability_mark(record["availability"], lang) if scored else "",
        })
    return rows


def round_rows(dataset: Dataset, rounds: list[str], main: str, config: SiteConfig, lang: Language) -> list[dict]:
    """The rounds index: one row per round, newest first."""
    counts = history.participation(dataset.results, rounds).set_index("round")
    rows = []
    for round_name in sorted(rounds, key=round_order, reverse=True):
        if round_name not in counts.index:
            continue
        info = load_round_info(config.data_dir, round_name)
        section = _section(config, round_name, main)
        row = counts.loc[round_name]
        rows.append({
            "round": round_name, "label": info.label, "main": round_name == main,
            "published": lang.date(info.published) if info.published else None,
            "published_iso": info.published.isoformat() if info.published else None,
            "path": paths.round_home(lang.code, section) if section is not None else None,
            "benchmarks": len(dataset.benchmarks_in(round_name)),
            **{key: int(row[key]) for key in ("organizations", "systems", "accelerator_types", "results", "scored",
                                              "unscored")},
        })
    return rows


def records_page(config: SiteConfig, languages: list[Language], lang: Language, dataset: Dataset, rounds: list[str],
                 main: str, charts_by: dict, names: DisplayNames, updated: dt.date):
    from site_builder.pages import Page

    code, common = lang.code, _common(config, languages, names, updated)
    scope = dataset.results[dataset.results["round"].isin(rounds)]

    def view() -> RecordsView:
        return RecordsView(**common, section="records",
                           records=record_rows(dataset, rounds, main, config, lang, names),
                           unscored=int(scope["score_minutes"].isna().sum()), results=len(scope),
                           charts=_family_charts(charts_by, code, dataset, rounds),
                           rounds_path=paths.rounds_index(code))

    return Page(paths.records(code), code, "records.html", lang.gettext("Records"),
                {other.code: paths.records(other.code) for other in languages}, SiteView(**common, section="records"),
                x_default=paths.records(config.default_language), late=view)


def rounds_page(config: SiteConfig, languages: list[Language], lang: Language, dataset: Dataset, rounds: list[str],
                main: str, charts_by: dict, names: DisplayNames, updated: dt.date):
    from site_builder.pages import Page

    code, common = lang.code, _common(config, languages, names, updated)

    def view() -> RoundsView:
        return RoundsView(**common, section="rounds", rounds=round_rows(dataset, rounds, main, config, lang),
                          participation=charts_by.get((code, "participation-over-rounds")),
                          charts=_family_charts(charts_by, code, dataset, rounds),
                          records_path=paths.records(code))

    return Page(paths.rounds_index(code), code, "rounds.html", lang.gettext("Rounds"),
                {other.code: paths.rounds_index(other.code) for other in languages},
                SiteView(**common, section="rounds"), x_default=paths.rounds_index(config.default_language), late=view)


def archive_pages(config: SiteConfig, languages: list[Language], dataset: Dataset, rounds: list[str], main: str,
                  charts_by: dict, names: DisplayNames, updated: dt.date) -> list:
    """The rounds index and the records page of every language. They go with the charts across rounds: none for
    a site of one round, or one whose main charts were built without its other rounds."""
    if len(rounds) < 2 or not any(chart_id == "participation-over-rounds" for _lang, chart_id in charts_by):
        return []
    pages = []
    for lang in languages:
        pages.append(rounds_page(config, languages, lang, dataset, rounds, main, charts_by, names, updated))
        pages.append(records_page(config, languages, lang, dataset, rounds, main, charts_by, names, updated))
    return pages
