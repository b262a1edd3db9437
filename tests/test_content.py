import datetime as dt
import re
import textwrap
import zlib

import pytest

from site_builder.content import load_articles
from site_builder.errors import SiteError
from site_builder.markup import render_markdown
from tests.conftest import ROOT, write_files

GOOD = """
    ---
    title: "Đà Nẵng"
    date: 2026-06-20
    summary: "Test"
    authors: ["Desk"]
    tags: ["a"]
    key: k
    ---
    ## Kết quả

    Text.[^1]

    | a | b |
    |---|---|
    | 1 | 2 |

    [^1]: Note.
    """


def _load(root, languages=("en",)):
    return load_articles(root / "content", languages, root)


def test_article_fields_slug_and_markdown_features(tmp_path):
    write_files(tmp_path, {"content/en/Đà Nẵng.md": GOOD})
    [article] = _load(tmp_path)
    assert article.slug == "da-nang"  # python-slugify transliteration
    assert article.date == dt.date(2026, 6, 20)
    assert article.path == "en/articles/da-nang/index.html"
    assert '<h2 id="ket-qua">' in article.html  # heading anchors
    assert "<table>" in article.html and 'class="footnote"' in article.html


def test_front_matter_problems_name_file_and_line_all_at_once(tmp_path):
    bad_type = GOOD.replace("date: 2026-06-20", "date: soon")
    unknown = GOOD.replace('tags: ["a"]', 'tags: ["a"]\n    colour: red')
    missing = GOOD.replace('    summary: "Test"\n', "")
    write_files(tmp_path, {"content/en/a.md": bad_type, "content/en/b.md": unknown,
                           "content/en/c.md": missing, "content/en/d.md": "no front matter\n",
                           "content/en/e.md": GOOD.replace('title: "Đà Nẵng"', "title: [unclosed")})
    with pytest.raises(SiteError) as caught:
        _load(tmp_path)
    text = str(caught.value)
    assert "content/en/a.md:3: error: front matter 'date' must be a date (YYYY-MM-DD)" in text
    assert "content/en/b.md:7: error: unknown front matter key 'colour'" in text
    assert "content/en/c.md:1: error: missing front matter key 'summary'" in text
    assert "content/en/d.md:1: error: no front matter" in text
    assert "content/en/e.md:3: error: invalid YAML front matter" in text
    assert len(caught.value.problems) == 5


def test_slug_collision_after_transliteration_names_both_files(tmp_path):
    write_files(tmp_path, {"content/en/da-nang.md": GOOD.replace("key: k", "key: k1"),
                           "content/en/Đà Nẵng.md": GOOD.replace("key: k", "key: k2")})
    with pytest.raises(SiteError, match=r"content/en/Đà Nẵng.md:1: error: slug 'da-nang' is also the slug of "
                                        r"content/en/da-nang.md:1"):
        _load(tmp_path)


def test_slug_from_front_matter_and_file_names_without_letters(tmp_path):
    write_files(tmp_path, {"content/en/🚀.md": GOOD.replace("key: k", "key: k1"),
                           "content/en/b.md": GOOD.replace("key: k", "key: k2\n    slug: Hello World")})
    slugs = sorted(a.slug for a in _load(tmp_path))
    assert slugs[1] == "hello-world"
    assert re.fullmatch(r"article-[0-9a-f]{8}", slugs[0])  # stable, from the file name's hash
    write_files(tmp_path, {"content/en/b.md": GOOD.replace("key: k", "key: k2\n    slug: '!!!'")})
    with pytest.raises(SiteError, match=r"content/en/b.md:8: error: front matter 'slug' '!!!' has no letters"):
        _load(tmp_path)


def test_front_matter_that_is_not_a_mapping_or_too_deep(tmp_path):
    write_files(tmp_path, {"content/en/a.md": "---\n- a list\n---\nText\n",
                           "content/en/b.md": "---\ntitle: " + "[" * 5000 + "\n---\n",
                           "content/en/c.md": GOOD.replace("key: k", "key: k\n    title: again")})
    with pytest.raises(SiteError) as caught:
        _load(tmp_path)
    text = str(caught.value)
    assert "content/en/a.md:2: error: front matter must be a mapping of keys to values" in text
    assert "content/en/b.md:2: error: " in text
    assert "content/en/c.md:8: error: duplicate front matter key 'title', first on line 2" in text


def test_drafts_are_left_out(tmp_path):
    write_files(tmp_path, {"content/en/a.md": GOOD, "content/nl/b.md": GOOD,
                           "content/nl/c.md": GOOD.replace("key: k", "key: other\n    draft: true")})
    articles = _load(tmp_path, ("en", "nl"))
    assert [(a.lang, a.slug) for a in articles] == [("en", "a"), ("nl", "b")]


def test_hostile_markdown_is_sanitized():
    html = render_markdown('<script>alert(1)</script>\n\n[x](javascript:alert(1)) <sub onerror=alert(1)>1</sub>')
    assert "<script" not in html and "javascript:" not in html and "onerror" not in html


def test_oversized_article_is_refused(tmp_path):
    write_files(tmp_path, {"content/en/big.md": GOOD + "x" * 600_000})
    with pytest.raises(SiteError, match=r"content/en/big.md: error: article is \d+ bytes; the limit is"):
        _load(tmp_path)


def test_shipped_articles_cover_every_language_with_methodology():
    articles = load_articles(ROOT / "content", ("en", "nl", "it", "vi"), ROOT)
    keys = {(a.lang, a.key) for a in articles}
    for lang in ("en", "nl", "it", "vi"):
        assert (lang, "methodology") in keys
    assert {("nl", "round-overview"), ("it", "deepseek-scaling"), ("vi", "participants"),
            ("en", "readers-guide")} <= keys


def test_chart_shortcodes(tmp_path):
    body = textwrap.dedent(GOOD) + "\n{{< chart deepseek-scaling >}}\n\n```\n{{< chart shown-not-run >}}\n```\n"
    write_files(tmp_path, {"content/en/a.md": body})
    [article] = _load(tmp_path)
    assert article.charts == (("deepseek-scaling", 19),)
    assert "<!--chart:deepseek-scaling-->" in article.html
    assert "{{&lt; chart shown-not-run &gt;}}" in article.html


def test_bad_shortcodes_are_errors(tmp_path):
    write_files(tmp_path, {"content/en/a.md": textwrap.dedent(GOOD) + "\n{{< table x >}}\n\ntext {{< chart a >}}\n"})
    with pytest.raises(SiteError) as caught:
        _load(tmp_path)
    text = str(caught.value)
    assert "content/en/a.md:19:1: error: unknown shortcode 'table'" in text
    assert "content/en/a.md:21:6: error: a chart shortcode must stand on a line of its own" in text


def test_shipped_articles_are_long_enough():
    import re

    for path in sorted((ROOT / "content").glob("*/*.md")):
        body = path.read_text(encoding="utf-8").split("---", 2)[2]
        assert len(re.findall(r"\w+", body)) >= 700, path.name


_LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{b}: &{b} [{', '.join([f'*{a}'] * 10)}]\n" for a, b in zip("abcdefgh", "bcdefghi"))


@pytest.mark.parametrize("text, line, message", [
    (_LAUGHS + "tags: *i\n", 11, "the aliases in this value expand to more than 100,000 values"),
    ("title: " + "[" * 100_000 + "]" * 100_000 + "\n", 2, "nested more than 64 levels deep"),
    ("title: x\nweight: " + "1" * 5000 + "\n", 3, "an integer of 5000 characters is too long"),
    ("title: x\n[a, b]: 1\n", 3, "found unhashable key"),
    ("title: &a [*a]\n", 2, "nested more than 64 levels deep"),  # a list holding itself, endlessly
])
def test_front_matter_goes_through_the_bounded_yaml_loader(text, line, message):
    from site_builder.content import parse_front_matter
    from site_builder.errors import Collector
    problems = Collector()
    assert parse_front_matter(text, 2, "x.md", problems) is None
    assert [str(p) for p in problems.problems] == [f"x.md:{line}: error: invalid YAML front matter: {message}"]


def test_front_matter_with_an_alias_within_the_limit_still_loads():
    from site_builder.content import parse_front_matter
    from site_builder.errors import Collector
    meta, _ = parse_front_matter("a: &a [x, y]\ntags: *a\n", 2, "x.md", Collector())
    assert meta["tags"] == ["x", "y"]


def test_articles_read_back_from_the_cache_have_their_markdown_only_when_asked(tmp_path, monkeypatch):
    """The articles' cache entry keeps each article's Markdown compressed beside it: a build (compact) reads the
    articles without it, `check` (not compact) gets it back exactly, and an article read from its file equals the
    same article read back from the cache."""
    from site_builder import content

    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "cache"))
    write_files(tmp_path, {"content/en/Đà Nẵng.md": GOOD})
    made = load_articles(tmp_path / "content", ("en",), tmp_path)
    read = []
    monkeypatch.setattr(content, "load_article", lambda *args: read.append(args) or pytest.fail("read again"))
    [again] = load_articles(tmp_path / "content", ("en",), tmp_path)
    [compact] = load_articles(tmp_path / "content", ("en",), tmp_path, compact=True)
    assert again == made[0] and again.body == made[0].body and "## Kết quả" in again.body
    assert compact.body == "" and content.html_of(compact) == made[0].html
    # In the entry, the Markdown is compressed apart from the article, which a build reads without unpacking it.
    [(kept, body)] = content._ArticleBook(tmp_path / "content").known.values()
    assert kept.body == "" and zlib.decompress(body).decode() == made[0].body
