"""`site-builder check`: numbers typed into article prose that look like results (rules in prose.py)."""

import textwrap

import pytest
from click.testing import CliRunner

from site_builder.cli import main
from site_builder.prose import _NameMask, find_numbers, typed_numbers


def flagged(text: str, lang: str, names=()) -> list[tuple[str, str]]:
    return [(typed, rule) for _, typed, rule in find_numbers(text, lang, _NameMask(names))]


# Each rule: (language, prose, what is flagged). Numbers in each language's own format (CLDR).
POSITIVE = [
    # decimals
    ("en", "It took 2.02 on the big cluster.", [("2.02", "decimal")]),
    ("nl", "Het duurde 5,54 op het cluster.", [("5,54", "decimal")]),
    ("it", "Il fattore è 1,038889.", [("1,038889", "decimal")]),
    ("vi", "Hệ số là 1,0.", [("1,0", "decimal")]),
    # a number with a unit (space, no-break space, hyphen or a glued unit)
    ("en", "2.02 minutes, 8 GPUs, a 512-GPU system and 5min.",
     [("2.02 minutes", "unit"), ("8 GPUs", "unit"), ("512-GPU", "unit"), ("5min", "unit")]),
    ("nl", "In 7,43 minuten op 64 GPU's.", [("7,43 minuten", "unit"), ("64 GPU's", "unit")]),
    ("it", "Bastano 5,54 minuti su 2 nodi.", [("5,54 minuti", "unit"), ("2 nodi", "unit")]),
    ("vi", "Mất 86,84 phút trên 13 bộ tăng tốc.", [("86,84 phút", "unit"), ("13 bộ tăng tốc", "unit")]),
    # multipliers
    ("en", "2.74x faster, 1.65× and 1.6 times the speed.",
     [("2.74x", "multiplier"), ("1.65×", "multiplier"), ("1.6 times", "multiplier")]),
    ("nl", "1,65× sneller, of 2,74 keer.", [("1,65×", "multiplier"), ("2,74 keer", "multiplier")]),
    ("it", "2,74 volte più veloce, 4 × l'hardware.", [("2,74 volte", "multiplier"), ("4 ×", "multiplier")]),
    ("vi", "Nhanh hơn 2,74 lần.", [("2,74 lần", "multiplier")]),
    # percentages
    ("en", "An efficiency of 68.5 % and 3.6% slower, or 12 per cent.",
     [("68.5 %", "percent"), ("3.6%", "percent"), ("12 per cent", "percent")]),
    ("nl", "Een efficiëntie van 68,5 procent en 3,6%.", [("68,5 procent", "percent"), ("3,6%", "percent")]),
    ("it", "Un'efficienza del 68,5%, cioè 9 per cento in meno.", [("68,5%", "percent"), ("9 per cento", "percent")]),
    ("vi", "Hiệu suất 68,5% và 20 phần trăm.", [("68,5%", "percent"), ("20 phần trăm", "percent")]),
    # grouped thousands (the language's own grouping, the other convention, and spaces)
    ("en", "A cluster of 8,192 or 16,384, also written 8 192.", [("8,192", "thousands"), ("16,384", "thousands"),
                                                                ("8 192", "thousands")]),
    ("nl", "Een cluster van 8.192 en 1.234,5.", [("8.192", "thousands"), ("1.234,5", "thousands")]),
    ("it", "Da 2.048 a 8\u00a0192.", [("2.048", "thousands"), ("8\u00a0192", "thousands")]),
    ("vi", "Từ 2.048 đến 4.096.", [("2.048", "thousands"), ("4.096", "thousands")]),
    # plain integers of 100 and more (counts of results, GPUs ...)
    ("en", "Only 65 of the 224 rows.", [("224", "integer")]),
    ("vi", "Có 185 người.", [("185", "integer")]),
    # the round's counts with their noun
    ("en", "24 organizations sent 65 results.", [("24 organizations", "unit"), ("65 results", "unit")]),
    ("vi", "24 tổ chức, 185 kết quả.", [("24 tổ chức", "unit"), ("185 kết quả", "unit")]),
]

NEGATIVE = [
    # years, dates, versions
    ("en", "Published on 16 June 2026 (2026-06-16) for MLPerf Training v6.0 with mlperf-logging 4.1.68."),
    ("nl", "Gepubliceerd op 16.06.2026 in ronde v5.1, in de jaren 1990 en 2099."),
    ("it", "Pubblicato il 16/06/2026."),
    ("vi", "Công bố ngày 16 tháng 6 năm 2026."),
    # small integers without a unit; small counts with a multiplier word ("the other 8 runs")
    ("en", "Five questions, 3 runs, chapter 2, items 1-4, 10 of them."),
    ("vi", "Bỏ lần nhanh nhất và chậm nhất, lấy trung bình 8 lần còn lại."),
    # numbers glued to letters read as names
    ("en", "Llama 405B, 8B and 671B on GB300, H200, MI355X, B200 8x8, GPT-OSS-20B, FLUX.1 and DeepSeek-V3."),
    ("it", "Il modello da 671B su GB300."),
]


@pytest.mark.parametrize("lang,text,expected", POSITIVE)
def test_each_rule_flags_result_numbers(lang, text, expected):
    assert flagged(text, lang) == expected


@pytest.mark.parametrize("lang,text", NEGATIVE)
def test_years_dates_versions_small_integers_and_names_are_not_flagged(lang, text):
    assert flagged(text, lang) == []


def test_names_from_the_data_are_not_flagged_but_numbers_after_them_are():
    names = {"Llama 3.1 405B", "DeepSeek-V3 671B", "PyTorch NVIDIA Release 26.04", "Llama 2 70B LoRA"}
    assert flagged("Llama 3.1 405B took 7.07 minutes; Llama 3.1 models; Llama 2 70B LoRA; PyTorch NVIDIA "
                   "Release 26.04.", "en", names) == [("7.07 minutes", "unit")]
    assert flagged("Llama 3.1 took 7.07", "en") == [("3.1", "decimal"), ("7.07", "decimal")]  # without the data


BODY = textwrap.dedent("""\
    ## Scaling to 8,192 GPUs

    It took 2.02 minutes (`2.02 minutes` in code), {{< lit 405B took 11.59 >}} and {{< fig score x/y >}}.
    See https://example.org/2026/1.5/ and [the 2.74x result](https://example.org/3.5x).

    | System | Score |
    |---|--:|
    | a \\| b | 86,8446 |

        12.5 minutes in an indented code block

    ```
    3.6 % in a fence
    ```

    Note.[^1]

    <p title="8,192">Raw HTML at <b>3.09&#160;min</b>.</p>

    [^1]: Source, 16 June 2026, 68.5 %.
    """)


def test_only_prose_text_is_read_with_file_line_and_column():
    found = typed_numbers(BODY, 10, "en", "content/en/a.md")
    lines = BODY.split("\n")
    assert all(lines[n.line - 10][n.col - 1:].startswith(n.text) for n in found)
    assert [(n.line, n.col, n.text, n.rule) for n in found] == [
        (10, 15, "8,192 GPUs", "unit"),  # headings are prose too
        (12, 9, "2.02 minutes", "unit"),
        (13, 44, "2.74x", "multiplier"),  # link text is prose, its target is not
        (17, 12, "86,8446", "decimal"),
        (27, 33, "3.09", "decimal"),  # raw HTML text is prose, its attributes are not
        (29, 29, "68.5 %", "percent"),
    ]


def _site(mini_site, article: str):
    (mini_site / "content/en/hello.md").write_text(textwrap.dedent(article).lstrip(), encoding="utf-8")
    return mini_site


ARTICLE = """
    ---
    title: "Hello, round"
    date: 2026-06-20
    summary: "A short test article."
    authors: ["Test desk"]
    tags: ["mlperf"]
    key: hello
    ---
    The cluster trained in 20.5 minutes on 512 GPUs, {{< lit 3.5x >}} in a quote.
    """


def test_check_warns_and_strict_fails(mini_site):
    site = _site(mini_site, ARTICLE)
    lenient = CliRunner().invoke(main, ["check", "--root", str(site)])
    assert lenient.exit_code == 0, lenient.output
    lines = lenient.output.splitlines()
    assert lines[0] == "en: 1 article, 0 missing, 0 stale, 1 written for other languages only"  # the report stays
    assert "content/en/hello.md:9:24: warning: typed number '20.5 minutes' looks like a result (unit)" in lines
    assert "content/en/hello.md:9:40: warning: typed number '512 GPUs' looks like a result (unit)" in lines
    assert not any("3.5x" in line for line in lines)
    assert lines[-1].startswith("2 typed numbers in 1 articles: bind each with {{< fig ... >}}")
    strict = CliRunner().invoke(main, ["check", "--root", str(site), "--strict"])
    assert strict.exit_code == 1
    assert "content/en/hello.md:9:24: error: typed number '20.5 minutes' looks like a result (unit)" in strict.output


def test_check_strict_passes_when_numbers_are_marked(mini_site):
    site = _site(mini_site, ARTICLE.replace("20.5 minutes on 512 GPUs", "{{< lit 20.5 minutes >}} on one cluster"))
    (site / "content/nl/alleen.md").unlink()
    result = CliRunner().invoke(main, ["check", "--root", str(site), "--strict"])
    assert result.exit_code == 0, result.output
    assert "typed number" not in result.output


def test_a_translation_group_reports_the_languages_that_miss_it(arabic_site):
    """Once one article declares translation_of, its key is meant for every language: a missing one fails --strict."""
    from site_builder.content import load_articles

    [english] = [a for a in load_articles(arabic_site / "content", ("en",), arabic_site) if a.key == "hello"]
    dutch = arabic_site / "content/nl/hallo.md"
    dutch.write_text(dutch.read_text().replace("key: hello", f"key: hello\ntranslation_of: en\n"
                                                             f"source_hash: {english.content_hash}"))
    result = CliRunner().invoke(main, ["check", "--root", str(arabic_site), "--strict"])
    assert result.exit_code == 1
    assert "  missing: hello: published in en, nl" in result.output.splitlines()
    assert "parallel: hello" not in result.output


def test_a_5000_digit_number_in_prose_is_a_large_integer_not_a_crash():
    # int() refuses more than 4,300 digits; the prose check only needs to know the number is large
    assert [kind for _, _, kind in find_numbers("we ran " + "7" * 5000 + " jobs", "en")] == ["integer"]


@pytest.mark.slow
def test_the_shipped_articles_pass_the_strict_check():
    """Every number the report's own articles type is bound to the data or marked as quoted."""
    from tests.conftest import ROOT

    result = CliRunner().invoke(main, ["check", "--strict", "--root", str(ROOT)])
    assert result.exit_code == 0, result.output
