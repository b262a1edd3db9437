"""Translation status: which articles are missing in a language, and which translations are stale."""

from __future__ import annotations

from dataclasses import dataclass

from site_builder.content import Article


@dataclass(frozen=True)
class Finding:
    lang: str
    kind: str  # "missing" or "stale"
    key: str
    detail: str


def translation_status(articles: list[Article], languages: tuple[str, ...]) -> list[Finding]:
    """Per language: keys published elsewhere but not here, and translations whose source changed since."""
    by_lang_key = {(a.lang, a.key): a for a in articles}
    keys = sorted({a.key for a in articles})
    findings = []
    for lang in languages:
        for key in keys:
            article = by_lang_key.get((lang, key))
            if article is None:
                present = [other for other in languages if (other, key) in by_lang_key]
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
