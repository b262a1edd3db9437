"""`site-builder check`: translation status (missing and stale translations) and typed result numbers."""

from __future__ import annotations

from dataclasses import dataclass

from site_builder.content import Article
from site_builder.prose import TypedNumber, typed_numbers


@dataclass(frozen=True)
class Finding:
    lang: str
    kind: str  # "missing" or "stale" (problems); "original" or "parallel" (information)
    key: str
    detail: str

    @property
    def is_problem(self) -> bool:
        return self.kind in ("missing", "stale")


def translation_status(articles: list[Article], languages: tuple[str, ...]) -> list[Finding]:
    """Per language: translations that are missing or stale, and articles that are not meant as translations.

    A key becomes a translation group once one of its articles declares `translation_of`: every language
    without it is then missing a translation. A key without any `translation_of` is an original written for
    one language, or parallel originals written separately in several (such as a methodology page each
    desk wrote for its readers); those are listed for information, not as problems.
    """
    by_lang_key = {(a.lang, a.key): a for a in articles}
    keys = sorted({a.key for a in articles})
    translated = {a.key for a in articles if a.translation_of}
    findings = []
    for lang in languages:
        for key in keys:
            present = [other for other in languages if (other, key) in by_lang_key]
            article = by_lang_key.get((lang, key))
            if key not in translated:
                if article is None:
                    findings.append(Finding(lang, "original", key, "written for " + ", ".join(present) +
                                            " only (no article declares translation_of)"))
                elif len(present) > 1:
                    findings.append(Finding(lang, "parallel", key, "parallel originals in " + ", ".join(present)))
                continue
            if article is None:
                findings.append(Finding(lang, "missing", key, "published in " + ", ".join(present)))
                continue
            source = by_lang_key.get((article.translation_of, key)) if article.translation_of else None
            if source is None:
                continue
            if article.source_hash != source.content_hash:
                recorded = article.source_hash or "none recorded"
                findings.append(Finding(lang, "stale", key,
                                        f"{article.source} translates {source.source}, which changed "
                                        f"(source_hash {recorded}, now {source.content_hash})"))
    return findings


NAME_COLUMNS = {"benchmarks": ("name", "model"),
                "results": ("system_name", "accelerator", "accelerator_model", "host_processor", "framework")}


def data_names(dataset) -> set[str]:
    """Names in the data that contain numbers (a model "Llama 3.1 405B", a system "X100 8x8"): not typed results in prose."""
    names = set()
    for table, columns in NAME_COLUMNS.items():
        frame = getattr(dataset, table)
        for column in columns:
            if column in frame:
                names.update(str(v) for v in frame[column].dropna().unique() if any(c.isdigit() for c in str(v)))
    return names


def typed_numbers_in(articles: list[Article], names: set[str]) -> list[TypedNumber]:
    """Numbers typed into the articles' prose that look like results (see site_builder/prose.py)."""
    found = []
    for article in articles:
        found += typed_numbers(article.body, article.body_line, article.lang, article.source, names)
    return found
