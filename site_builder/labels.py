"""Labels and formats in the reader's language: the names of score methods, tasks, verdicts and result
choices, and numbers with their units. Low in the import graph, so that every layer that shows one (pages,
findings, bound figures, claims, the templates' filters) imports it instead of being handed it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from site_builder import derive
from site_builder.i18n import Language

if TYPE_CHECKING:
    from site_builder.figures import Quantity


# Score methods in legend order (ids of the derived `score_method` column, see data/README.md).
SCORE_METHODS = ("official-summarizer", "computed-from-logs", "submitter-summary", "published-by-submitter",
                 "not-computed")


def score_method_label(method: str, lang: Language) -> str:
    """Short, translated name of how a score was obtained, for a table cell."""
    _ = lang.gettext
    return {
        "official-summarizer": _("official result summarizer"),
        "computed-from-logs": _("computed from the result logs"),
        "submitter-summary": _("submitter's summary.json"),
        "published-by-submitter": _("published by the submitter"),
        "not-computed": _("not computed"),
    }.get(method, _("not stated"))


def score_method_explanation(method: str, lang: Language) -> str:
    """What a score method means, said once in the legend under a table."""
    _ = lang.gettext
    return {
        "official-summarizer": _("MLCommons' own result summarizer (mlperf-logging) was run on the complete "
                                 "result logs."),
        "computed-from-logs": _("Computed for this site from the start and stop times in each run's log, with the "
                                "official rules: mean of the runs without the fastest and slowest, then the RCP "
                                "factor."),
        "submitter-summary": _("Copied from the summary.json the submitter committed to the results repository "
                               "(the official summarizer's output, run by the submitter); not recomputed."),
        "published-by-submitter": _("Taken from the submitter's own publication, with the decimals it gives; not "
                                    "recomputed, and it may differ slightly from the final MLCommons table."),
        "not-computed": _("No score: the result's logs have not been scored yet. The result exists and is listed, "
                          "but it cannot be compared."),
    }.get(method, _("The data does not say how this score was obtained."))


def score_detail(method: str, source: str, lang: Language) -> str:
    """How one computed score was obtained, in a sentence of the reader's language (the result's detail view);
    "" where the method's legend says it all. The kinds are those of derive.py's `score_source` texts."""
    _ = lang.gettext
    if method != "computed-from-logs":
        return ""
    if "scaling.json applied" in source:
        return _("The olympic mean of the runs' times (run_start to run_stop in each log, by the summarizer's "
                 "rules), multiplied by the factor of the result's scaling.json. Computed for this site; the "
                 "compliance checker was not run.")
    if "no scaling.json" in source:
        return _("The olympic mean of the runs' times (run_start to run_stop in each log, by the summarizer's "
                 "rules); the result has no scaling.json, so no factor is applied. Computed for this site; the "
                 "compliance checker was not run.")
    return _("The olympic mean of the runs' times (run_start to run_stop in each log, by the summarizer's rules), "
             "multiplied by the RCP factor of MLCommons' rcp_checker. Computed for this site; the compliance "
             "checker was not run.")


def score_source_label(source: str, lang: Language) -> str:
    """Short label for a full `score_source` text, where only that text is at hand (chart data tables)."""
    return score_method_label(derive.score_method(source) or "", lang)


def legend(methods, lang: Language) -> list[tuple[str, str]]:
    """(label, explanation) for each score method present, in legend order."""
    present = set(methods)
    order = [m for m in SCORE_METHODS if m in present] + sorted(present - set(SCORE_METHODS))
    return [(score_method_label(m, lang), score_method_explanation(m, lang)) for m in order]


def task_label(task: str, lang: Language) -> str:
    _ = lang.gettext
    return {
        "llm-pretraining": _("Large language model pretraining"),
        "llm-finetuning": _("Large language model fine-tuning"),
        "text-to-image": _("Text-to-image generation"),
        "recommendation": _("Recommendation"),
        "object-detection": _("Object detection"),
        "graph-node-classification": _("Graph node classification"),
    }.get(task, task)


def availability_mark(availability, lang: Language) -> str:
    """The mark a ranked result carries when its system was not available for purchase or rent: "preview" or
    "research, development or internal"; "" for an available system (or an unknown status)."""
    value = availability if isinstance(availability, str) else ""
    return choice_label("availability", value, lang) if value in ("preview", "rdi") else ""


def choice_label(column: str, value: str, lang: Language) -> str:
    """Translated name of a result's `availability` or `hosting` value."""
    _ = lang.gettext
    labels = {
        "availability": {"available": _("available"), "preview": _("preview"),
                         "rdi": _("research, development or internal")},
        "hosting": {"cloud": _("cloud"), "on-premise": _("on-premise")},
    }
    return labels[column].get(value, value)


def format_value(value: float, unit: str, decimals: int, lang: Language) -> str:
    """A number with its unit in the reader's locale: "2,0206 min", "68,5%", "1,65×", "8.192"."""
    _ = lang.gettext
    if unit == "percent":
        return lang.percent(value, decimals)
    number = lang.number(value, decimals)
    if unit == "minutes":  # a no-break space: the unit never wraps away from its number
        return (_("%(value)s min") % {"value": number}).replace(" ", "\u00a0")
    if unit == "times":
        return _("%(value)s×") % {"value": number}
    return number


def format_quantity(quantity: Quantity, lang: Language) -> str:
    return format_value(quantity.value, quantity.unit, quantity.decimals, lang)


def verdict_label(verdict: str, lang: Language) -> str:
    _ = lang.gettext
    return {"confirmed": _("Confirmed"), "consistent": _("Consistent with the data"),
            "overstated": _("Overstated"), "contradicted": _("Contradicted"),
            "not-checkable": _("Not checkable")}[verdict]


def scope_label(scope: str, lang: Language) -> str:
    """Why a claim is not a Training result of the round (a claim's `scope`)."""
    _ = lang.gettext
    return {"inference": _("Not a Training result: an MLPerf Inference figure."),
            "outside-round": _("Not a result of this round: the claim is about something else than its Training "
                               "results.")}[scope]


def qualified_verdict_label(verdict: str, own_figure: bool, lang: Language) -> str:
    """The verdict's label, qualified when it rests on a score its submitter published and nobody recomputed."""
    label = verdict_label(verdict, lang)
    return lang.gettext("%(verdict)s, by the submitter's own figure only") % {"verdict": label} if own_figure else label
