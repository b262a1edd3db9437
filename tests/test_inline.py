"""Bound figures rendered in a page's language, linked to their rows, with their provenance."""

from dataclasses import dataclass
import html
from html.parser import HTMLParser

import pytest

from conftest import ROOT
from site_builder.data import load_dataset
from site_builder.errors import Collector
from site_builder.figures import FigureContext
from site_builder.i18n import load_language
from site_builder.inline import format_quantity, resolve_figures
from site_builder.labels import score_source_label
from site_builder.shortcodes import BoundArticles


@dataclass(frozen=True)
class Code:
    index: int
    name: str
    args: tuple
    options: tuple = ()
    line: int = 1
    col: int = 1


@dataclass(frozen=True)
class Doc:
    source: str
    shortcodes: tuple
    html: str = ""
    packed: bytes = b""  # as a compact Article's: the HTML compressed


@pytest.fixture(scope="module")
def context():
    return FigureContext(load_dataset(ROOT / "data", ["v6.0", "v5.1"], ROOT), "v6.0", "v5.1")


def language(code):
    return load_language(code, ROOT / "site_builder/theme/locales", ROOT)[0]


def test_figures_render_in_each_locale_with_link_and_provenance(context):
    doc = Doc("content/nl/x.md", (Code(0, "fig", ("score", "deepseekv3_671b/CoreWeave_GB300_2048x4")),
                                  Code(1, "fig", ("efficiency", "deepseekv3_671b/CoreWeave_GB300_512x4",
                                                  "deepseekv3_671b/CoreWeave_GB300_2048x4")),
                                  Code(2, "fig", ("organizations",))))
    problems = Collector()
    figures = resolve_figures([doc], context, problems)
    assert not problems.problems
    nl = language("nl")
    assert format_quantity(figures[(doc.source, 0)], nl) == "2,0206\u00a0min"
    assert format_quantity(figures[(doc.source, 1)], nl) == "68,5%"
    assert format_quantity(figures[(doc.source, 1)], language("en")) == "68.5%"
    names = {"deepseekv3_671b": "DeepSeek-V3 671B"}
    page = "nl/articles/x/index.html"
    doc = Doc(doc.source, doc.shortcodes, "<p><!--sc:0--> en <!--sc:1--> van <!--sc:2--></p>")
    out = BoundArticles({"fig": figures}, names).html(doc, nl, page)
    assert "<!--sc:" not in out
    assert 'href="../../benchmarks/deepseekv3-671b/index.html#r-v6-0-coreweave-coreweave-gb300-2048x4--minutes"' in out
    assert 'aria-describedby="fig-0"' in out and 'id="fig-0"' in out and 'role="tooltip"' in out
    source = score_source_label(str(figures[(doc.source, 0)].refs[0].row["score_source"]), nl)
    assert html.escape(source) in out and "DeepSeek-V3 671B" in out

    class Ids(HTMLParser):  # the output is well-formed and ids are unique
        ids: list = []

        def handle_starttag(self, tag, attrs):
            self.ids += [v for k, v in attrs if k == "id"]
    parser = Ids()
    parser.feed(out)
    assert len(parser.ids) == len(set(parser.ids)) == 3


def test_every_unknown_row_is_reported_at_its_line_and_column(context):
    doc = Doc("content/en/y.md", (Code(0, "fig", ("score", "deepseekv3_671b/Nope"), (), 7, 12),
                                  Code(1, "fig", ("speedup", "llama31_8b/fastest"), (), 9, 3)))
    problems = Collector()
    resolve_figures([doc], context, problems)
    shown = [str(p) for p in problems.problems]
    assert shown[0].startswith("content/en/y.md:7:12: error: no result 'deepseekv3_671b/Nope'")
    assert "hint: results of this benchmark:" in shown[0] or "did you mean" in shown[0]
    assert shown[1].startswith("content/en/y.md:9:3: error: 'speedup' takes 2")


def test_every_metric_has_a_description_in_every_language():
    from site_builder.figures import METRICS, Quantity
    from site_builder.inline import describe

    for code in ("en", "nl", "it", "vi"):
        lang = language(code)
        for metric, spec in METRICS.items():
            quantity = Quantity(metric, 1.0, spec.unit, 0, (), "v6.0")
            assert describe(quantity, lang, {}).strip(), (code, metric)


def test_a_figure_never_wraps_between_number_and_unit():
    from site_builder.labels import format_value

    assert format_value(2.0206, "minutes", 4, language("vi")) == "2,0206\u00a0phút"


@pytest.mark.parametrize("value, unit, decimals, machine, en", [
    (0.685, "percent", 1, "0.685", "68.5%"),  # the fraction, not the fraction rounded to one decimal (0.7)
    (0.036, "percent", 1, "0.036", "3.6%"),
    (0.7, "percent", 1, "0.700", "70.0%"),
    (0.60194, "percent", 0, "0.60", "60%"),
    (2.675, "minutes", 2, "2.68", "2.68\u00a0min"),  # rounded as the text is (the float is 2.67499...)
    (3.2153, "minutes", 4, "3.2153", "3.2153\u00a0min"),
    (1.0388889, "factor", 6, "1.038889", "1.038889"),
    (1.5, "times", 2, "1.50", "1.50×"),
    (8192.0, "count", 0, "8192", "8,192"),
    (11336.5, "count", 0, "11336", "11,336"),
])
def test_the_machine_readable_value_is_the_number_shown(value, unit, decimals, machine, en):
    from site_builder.figures import Quantity
    from site_builder.inline import machine_value

    quantity = Quantity("x", value, unit, decimals)
    assert machine_value(quantity) == machine and format_quantity(quantity, language("en")) == en


def test_the_unscaled_figure_says_whether_it_comes_from_the_runs_or_the_rounded_score(context):
    from dataclasses import replace

    from site_builder.figures import evaluate_expression
    from site_builder.inline import describe

    quantity = evaluate_expression("unscaled deepseekv3_671b/tyche-hsg_ngpu8192_ngc26.04_nemo", context)
    assert describe(quantity, language("en"), {}).startswith(
        "Time to train before RCP normalization: the olympic mean of the logged runs")
    ref = quantity.refs[0]
    bare = replace(quantity, refs=(replace(ref, row=ref.row.drop("run_minutes")),))
    assert describe(bare, language("en"), {}).startswith(
        "Time to train before RCP normalization: score / RCP factor (the per-run times are not in the data)")


def test_a_round_figure_names_its_filters_in_the_readers_words():
    from site_builder.figures import Quantity
    from site_builder.inline import describe

    quantity = Quantity("organizations", 3.0, "count", 0, (), "v6.0",
                        (("benchmark", "deepseekv3_671b"), ("hosting", "cloud"), ("submitter_dir", "Acme_Labs")))
    names = {"deepseekv3_671b": "DeepSeek-V3 671B"}
    assert describe(quantity, language("en"), names) == (
        "Organizations, counted in the v6.0 results (Benchmark: DeepSeek-V3 671B, Hosting: cloud, Submitter: Acme Labs).")
    italian = describe(quantity, language("it"), names)
    assert italian.startswith("Organizzazioni: conteggio sui risultati di v6.0 (Benchmark: DeepSeek-V3 671B")
    assert "=" not in describe(quantity, language("nl"), names) + describe(quantity, language("vi"), names)


def test_a_figure_names_its_system_as_readers_see_it_and_links_to_the_cell_of_its_value(context):
    """The note names the system by its description's name (the id only where the data has none); the link goes
    to the cell that shows the value, or to the row when only the detail view does."""
    system = "deepseekv3_671b/tyche-hsg_ngpu8192_ngc26.04_nemo"
    doc = Doc("content/en/x.md", (Code(0, "fig", ("nodes", system)), Code(1, "fig", ("rcp", system)),
                                  Code(2, "fig", ("score", "v5.1:llama31_8b/1xXE9680Lx8B200-SXM-180GB"))))
    problems = Collector()
    figures = resolve_figures([doc], context, problems)
    assert not problems.problems
    doc = Doc(doc.source, doc.shortcodes, "<p><!--sc:0--> <!--sc:1--> <!--sc:2--></p>")
    out = BoundArticles({"fig": figures}, {}).html(doc, language("en"), "en/articles/x/index.html")
    text = html.unescape(out)
    assert "Tyche-hsg (128x NVIDIA GB200 NVL72)" in text and "tyche-hsg_ngpu8192" not in text
    assert "1xXE9680Lx8B200-SXM-180GB" in text  # its description names it by its id
    assert 'index.html#r-v6-0-nvidia-tyche-hsg-ngpu8192-ngc26-04-nemo--nodes"' in out
    assert 'index.html#r-v6-0-nvidia-tyche-hsg-ngpu8192-ngc26-04-nemo"' in out  # the RCP factor: the row
