"""Tests at the exact edges of the documented rules and limits, each one a step either side, so that a changed
comparison (`<=` for `<`), a swapped tie-break key or an off-by-one limit fails a test: the verdict rules of
`claims.py`'s docstring, the tie-break of the fastest result, and the limits on names, slugs, sizes and depths."""

from __future__ import annotations

import math
import textwrap
from itertools import combinations

import pandas as pd
import pytest

from conftest import csv_text, mini_site_files, write_files
from site_builder import claims, content, data, figures, ingest, markup, metrics, output, safe_yaml
from site_builder.claims import check_outcome, combine, parse_bound
from site_builder.errors import Collector, SiteError

HAIR = 1e-9  # claims.check_outcome's slack for binary floating point, relative to the number (at least 1e-9)


def up(x: float) -> float:
    return math.nextafter(x, math.inf)


def down(x: float) -> float:
    return math.nextafter(x, -math.inf)


# --- claims: the verdict rules -----------------------------------------------------------------------------

@pytest.mark.parametrize(("asserts", "tolerance"), [
    ("= 2.02 minutes", 0.005), ("= 60 %", 0.005), ("= 8192", 0.5), ("<= 1.5 ×", 0.05), (">= 90.25 %", 0.00005),
    ("= 0.125 factor", 0.0005)])
def test_default_tolerance_is_half_a_unit_of_the_last_written_digit(asserts, tolerance):
    assert claims._default_tolerance(parse_bound(asserts)) == pytest.approx(tolerance, rel=1e-12)


@pytest.mark.parametrize("number", [2.02, 120.0, 0.685])
def test_an_exact_check_confirms_at_the_tolerance_and_contradicts_just_beyond(number):
    stated = claims.Bound("=", number, "minutes", 2)
    for sign in (1, -1):
        assert check_outcome(number + sign * 0.005, stated, 0.005) == "confirmed"
        assert check_outcome(number + sign * 0.00501, stated, 0.005) == "contradicted"
    assert check_outcome(number, stated, 0.0) == "confirmed"
    assert check_outcome(number + 1e-6, stated, 0.0) == "contradicted"


def test_the_exact_edge_including_the_float_hair_is_in_and_the_next_float_out():
    """|computed - number| <= tolerance (plus a hair for floats), at the last float either side: `<` instead of
    `<=` in the rule, or a hair that is larger or missing, fails here."""
    stated, edge = parse_bound("= 0 minutes"), 0.5 + HAIR
    assert check_outcome(edge, stated, 0.5) == check_outcome(-edge, stated, 0.5) == "confirmed"
    assert check_outcome(up(edge), stated, 0.5) == check_outcome(down(-edge), stated, 0.5) == "contradicted"


@pytest.mark.parametrize(("asserts", "inside", "outside"), [
    # a bound widened by the tolerance: met exactly at the widened edge, missed one float beyond it
    ("<= 0 minutes", 0.5 + HAIR, up(0.5 + HAIR)),
    (">= 0 minutes", -(0.5 + HAIR), down(-(0.5 + HAIR))),
    ("< 0 minutes", down(0.5 + HAIR), 0.5 + HAIR),
    ("> 0 minutes", up(-(0.5 + HAIR)), -(0.5 + HAIR)),
])
def test_a_bound_widened_by_the_tolerance_at_its_edge(asserts, inside, outside):
    bound = parse_bound(asserts)
    assert check_outcome(inside, bound, 0.5) == "consistent"
    assert check_outcome(outside, bound, 0.5) == "overstated"


def test_a_bound_with_the_claims_own_rounding():
    within, near_linear = parse_bound("<= 5 %"), parse_bound(">= 90 %")
    assert check_outcome(0.055, within, 0.005) == "consistent"
    assert check_outcome(0.05501, within, 0.005) == "overstated"
    assert check_outcome(0.895, near_linear, 0.005) == "consistent"
    assert check_outcome(0.89499, near_linear, 0.005) == "overstated"


@pytest.mark.parametrize(("asserts", "opposite", "met", "missed"), [
    # `opposite` is met exactly at its number (it is not widened): contradicted there, overstated one float off
    (">= 90 %", "<= 25 %", 0.25, up(0.25)),
    (">= 90 %", "< 25 %", down(0.25), 0.25),
    ("<= 5 %", ">= 50 %", 0.5, down(0.5)),
    ("<= 5 %", "> 50 %", up(0.5), 0.5),
])
def test_the_opposite_edge(asserts, opposite, met, missed):
    bound, other = parse_bound(asserts), parse_bound(opposite)
    assert check_outcome(met, bound, 0.005, other) == "contradicted"
    assert check_outcome(missed, bound, 0.005, other) == "overstated"


def test_the_opposite_is_read_only_when_the_claim_is_not_met():
    # the two overlap here: the claim's own bound decides first
    assert check_outcome(0.22, parse_bound(">= 20 %"), 0.0, parse_bound("<= 25 %")) == "consistent"
    # and the tolerance widens the claim, not its opposite: 25.4 % is not 'at most 25 %'
    assert check_outcome(0.254, parse_bound(">= 90 %"), 0.005, parse_bound("<= 25 %")) == "overstated"


ORDER = ["confirmed", "consistent", "overstated", "contradicted"]  # rule 4, best to worst


@pytest.mark.parametrize(("better", "worse"), list(combinations(ORDER, 2)))
def test_a_claim_takes_the_worst_of_any_two_checks_in_either_order(better, worse):
    assert combine([better, worse]) == combine([worse, better]) == combine([worse]) == worse
    assert combine([better, better]) == better


@pytest.mark.parametrize("outcome", ORDER)
def test_a_caveat_caps_at_consistent_and_nothing_else(outcome):
    assert combine([outcome], has_caveat=True) == ("consistent" if outcome == "confirmed" else outcome)
    assert combine([outcome, "confirmed"], has_caveat=True) == combine([outcome], has_caveat=True)
    assert combine([outcome]) == outcome


@pytest.mark.parametrize("outcome", ORDER)
def test_a_cited_contradiction_outranks_every_check_a_caveat_and_not_checkable(outcome):
    """Rule 6: `contradicted_by` makes a claim contradicted whatever else it has; without it, nothing changes."""
    assert claims.claim_verdict([outcome], False, False, True) == "contradicted"
    assert claims.claim_verdict([outcome], True, False, True) == "contradicted"
    assert claims.claim_verdict([], False, True, True) == "contradicted"
    assert claims.claim_verdict([outcome], False, False, False) == combine([outcome])
    assert claims.claim_verdict([outcome], True, False, False) == combine([outcome], has_caveat=True)
    assert claims.claim_verdict([], False, True, False) == "not-checkable"


# Rule 7, written out here so that a metric added to or dropped from figures.READS_SCORES fails a test.
READS_SCORES = {"score", "acc-minutes", "unscaled", "efficiency", "speedup", "time-saved", "gap", "ratio",
                "benchmarks-led"}
METHODS = ("official-summarizer", "computed-from-logs", "submitter-summary", "published-by-submitter", "not-computed")


def _ref(method: str, system: str = "s") -> figures.ResultRef:
    return figures.ResultRef("v6.0", "b", "Acme", f"{system}-{method}", pd.Series({"score_method": method}))


@pytest.mark.parametrize("metric", sorted(figures.METRICS))
@pytest.mark.parametrize("method", METHODS)
def test_only_a_score_its_submitter_published_read_by_a_score_figure_is_the_submitters_own(metric, method):
    ref = _ref(method)
    quantity = figures.Quantity(metric, 1.0, figures.METRICS[metric].unit, 0, (ref,))
    check = claims.Check(metric, parse_bound("= 1"), 0.5, quantity, "confirmed")
    own = method == "published-by-submitter" and metric in READS_SCORES
    assert check.own_figures == ((ref,) if own else ())


def test_a_claim_names_each_own_figure_once_and_only_those():
    published, computed = _ref("published-by-submitter"), _ref("computed-from-logs")
    pair = figures.Quantity("gap", 0.1, "percent", 1, (computed, published))
    score = figures.Quantity("score", 9.0, "minutes", 2, (published,))
    checks = tuple(claims.Check(q.metric, parse_bound("= 1"), 0.5, q, "confirmed") for q in (pair, score))
    verdict = claims.Verdict("c", {}, claims.Source({}), "confirmed", checks, None, None, None, None, "f", 1)
    assert checks[0].own_figures == (published,) and verdict.own_figures == (published,)


def test_an_assertion_has_at_most_fifteen_digits_either_side_of_the_point():
    fifteen = "9" * 15
    assert parse_bound(f"= {fifteen}.{fifteen}").decimals == 15
    assert parse_bound(f"= {fifteen}9") is None and parse_bound(f"= 1.{fifteen}9") is None


# --- the fastest result: lowest score, then submitter, then system id (alphabetically) --------------------

def _results(rows: list[tuple[str, str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame([{"round": "v6.0", "benchmark": b, "submitter": s, "system_id": i, "score_minutes": m,
                          "accelerator": "A", "total_accelerators": 8} for b, s, i, m in rows])


# each benchmark separates one level of the tie-break; the rows are in the order a wrong key would pick
TIES = [
    ("by-score", "Aaa", "a", 10.5), ("by-score", "Zed", "z", 10.0),       # a slower result of the first submitter
    ("by-submitter", "Beta", "a", 10.0), ("by-submitter", "Acme", "z", 10.0),  # the later system id wins on name
    ("by-system", "Acme", "b", 10.0), ("by-system", "Acme", "a", 10.0),   # same submitter: the system id decides
]
WINNERS = {"by-score": ("Zed", "z"), "by-submitter": ("Acme", "z"), "by-system": ("Acme", "a")}


def test_fastest_per_benchmark_breaks_ties_by_submitter_then_system_id():
    fastest = metrics.fastest_per_benchmark(_results(TIES)).set_index("benchmark")
    assert {b: (row["submitter"], row["system_id"]) for b, row in fastest.iterrows()} == WINNERS


def test_best_per_accelerator_breaks_ties_the_same_way():
    best = metrics.best_per_accelerator(_results(TIES), sorted(WINNERS)).set_index("benchmark")
    assert {b: (row["submitter"], row["system_id"]) for b, row in best.iterrows()} == WINNERS


def test_fastest_ties_are_named_by_scale_then_submitter_then_system_id():
    frame = _results([("b", "Beta", "b", 10.0), ("b", "Acme", "z", 10.0), ("b", "Acme", "a", 10.0),
                      ("b", "Abc", "b", 10.0), ("b", "Aaa", "a", 11.0)])
    frame.loc[0, "total_accelerators"] = 4  # the smallest system of a tie comes first
    from site_builder.findings import fastest_ties
    assert [(r.submitter, r.system_id) for r in fastest_ties(frame).itertuples()] == [
        ("Beta", "b"), ("Abc", "b"), ("Acme", "a"), ("Acme", "z")]


def _row(submitter: str, system_id: str, benchmark: str, score: float) -> str:
    return (f"v6.0,closed,available,cloud,{submitter},{system_id},{system_id},GB300,NVIDIA,GB300,4,2,8,Grace,"
            f"PyTorch,{benchmark},{score},3,1.0,computed here from the result logs,systems json,")


def test_the_fastest_reference_of_a_figure_breaks_ties_the_same_way(tmp_path):
    from conftest import HEADER
    files = mini_site_files()
    rows = [_row("Aaa", "a", "deepseekv3_671b", 10.5), _row("Zed", "z", "deepseekv3_671b", 10.0),
            _row("Beta", "a", "llama31_8b", 9.0), _row("Acme", "z", "llama31_8b", 9.0),
            _row("Acme", "b", "llama31_8b", 9.5), _row("Acme", "a", "llama31_8b", 9.5)]
    files["data/rounds/v6.0/results.csv"] = csv_text(HEADER + "\n" + "\n".join(rows))
    site = write_files(tmp_path, files)
    context = figures.FigureContext(data.load_dataset(site / "data", ["v6.0", "v5.1"], site), "v6.0", "v5.1")
    picked = {b: figures.resolve(f"{b}/fastest", context) for b in ("deepseekv3_671b", "llama31_8b")}
    assert {b: (ref.submitter, ref.system_id) for b, ref in picked.items()} == {
        "deepseekv3_671b": ("Zed", "z"), "llama31_8b": ("Acme", "z")}
    # the system id decides between two results of one submitter
    without_tie = files["data/rounds/v6.0/results.csv"].replace(_row("Beta", "a", "llama31_8b", 9.0) + "\n", "")
    without_tie = without_tie.replace(_row("Acme", "z", "llama31_8b", 9.0) + "\n", "")
    (site / "data/rounds/v6.0/results.csv").write_text(without_tie, encoding="utf-8")
    context = figures.FigureContext(data.load_dataset(site / "data", ["v6.0", "v5.1"], site), "v6.0", "v5.1")
    assert figures.resolve("llama31_8b/fastest", context).system_id == "a"


# --- limits ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "fits"), [
    ("x" * 255, True), ("x" * 256, False),
    ("é" * 127 + "x", True), ("é" * 128, False),  # counted in UTF-8 bytes, not characters: 255 and 256 bytes
    ("€" * 85, True), ("€" * 85 + "x", False),     # three bytes each
])
def test_a_file_name_may_have_255_bytes(name, fits):
    files = output.SiteFiles()
    if fits:
        assert files.add(f"en/{name}/index.html", b"") == f"en/{name}/index.html"
    else:
        with pytest.raises(SiteError, match="longer than 255 bytes"):
            files.add(f"en/{name}/index.html", b"")


ARTICLE = """
    ---
    title: "Hello"
    date: 2026-06-20
    summary: "A short test article."
    authors: ["Test desk"]
    tags: ["mlperf"]
    key: hello{slug}
    ---
    Some text.
    """


def _load(tmp_path, stem: str, text: str):
    path = tmp_path / "content" / "en" / f"{stem}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    problems = Collector()
    return content.load_article(path, "en", problems, tmp_path), [str(p) for p in problems.problems]


def _article(slug: str = "") -> str:
    return textwrap.dedent(ARTICLE.format(slug=f"\n    slug: {slug}" if slug else "")).lstrip()


HINT = "\n  hint: set a shorter 'slug:' in the front matter"


def test_a_slug_may_have_80_characters(tmp_path):
    for stem, text in (("a" * 80, _article()), ("short", _article("b" * 80))):
        article, problems = _load(tmp_path, stem, text)
        assert problems == [] and len(article.slug) == 80
    article, problems = _load(tmp_path, "a" * 81, _article())
    assert article is None and problems == [
        f"content/en/{'a' * 81}.md:1: error: the slug from the file name is 81 characters; the limit is 80" + HINT]
    article, problems = _load(tmp_path, "short", _article("b" * 81))
    assert article is None and problems == [
        "content/en/short.md:8: error: the slug from front matter 'slug' is 81 characters; the limit is 80" + HINT]


@pytest.mark.parametrize("extra", [0, 1])
def test_an_article_may_have_512_kib(tmp_path, extra):
    head = _article()
    line = "word " * 15 + "\n\n"
    body = line * ((512 * 1024 - len(head)) // len(line))
    text = head + body + "x" * (512 * 1024 - len(head) - len(body) - 1) + "\n" + "y" * extra
    assert len(text.encode("utf-8")) == 512 * 1024 + extra
    article, problems = _load(tmp_path, "big", text)
    if extra:
        assert article is None and problems == [f"content/en/big.md: error: article is {512 * 1024 + 1} bytes; "
                                                f"the limit is {512 * 1024}"]
    else:
        assert problems == [] and article is not None


def _yaml_nested(levels: int) -> str:
    return "[" * (levels - 1) + "1" + "]" * (levels - 1)  # a scalar inside levels-1 lists: `levels` nodes deep


@pytest.mark.parametrize("loader", ["pure", "libyaml"])
def test_yaml_may_nest_64_levels(loader):
    import yaml
    base = yaml.SafeLoader if loader == "pure" else getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    cls = safe_yaml.loader_class(base)
    for levels, fits in ((64, True), (65, False)):
        stream = cls(_yaml_nested(levels))
        try:
            if fits:
                assert safe_yaml.single_node(stream) is not None
            else:
                with pytest.raises(yaml.YAMLError, match="nested more than 64 levels deep"):
                    safe_yaml.single_node(stream)
        finally:
            stream.dispose()


def test_a_shortcode_may_be_1000_characters_long():
    def shortcode(length: int) -> str:
        return "{{< lit " + "a" * (length - len("{{< lit  >}}")) + " >}}"
    assert len(shortcode(1000)) == 1000
    [found] = markup.render("Text " + shortcode(1000) + " end.").shortcodes
    assert found.name == "lit"
    with pytest.raises(SiteError) as too_long:
        markup.render("Text " + shortcode(1001) + " end.")
    assert "shortcode '{{<' is not closed with '>}}' on the same line" in str(too_long.value)


def test_integers_up_to_int64_and_no_further():
    def convert(raw: str):
        problems = Collector()
        return data._convert(raw, "number_of_runs", "int", set(), set(), problems, "r.csv", 2), problems.problems
    assert convert(str(2**63 - 1)) == (2**63 - 1, [])
    value, problems = convert(str(2**63))
    assert value is None and [str(p) for p in problems] == ["r.csv:2: error: column 'number_of_runs' has "
                                                            f"'{2**63}', which is too large"]


def test_a_plain_value_keeps_at_most_six_decimals():
    assert figures._source_decimals(0.123456) == 6
    assert figures._source_decimals(0.1234567) == 6
    assert figures._source_decimals(0.12345) == 5


@pytest.mark.parametrize(("limit", "name"), [(ingest.SMALL_LIMIT, "system.json"), (ingest.LOG_LIMIT, "result_0.txt")])
def test_ingest_reads_files_up_to_their_limit(tmp_path, limit, name):
    assert (ingest.SMALL_LIMIT, ingest.LOG_LIMIT) == (1024 * 1024, 64 * 1024 * 1024)
    path = tmp_path / name
    with open(path, "wb") as handle:  # sparse: no data is written
        handle.truncate(limit)
    assert ingest._refusal(path, tmp_path, limit) is None
    with open(path, "r+b") as handle:
        handle.truncate(limit + 1)
    assert ingest._refusal(path, tmp_path, limit) == f"{name} is {limit + 1} bytes; the limit is {limit}"
