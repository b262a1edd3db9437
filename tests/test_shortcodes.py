"""The shortcode registry and the page view models: the contracts the other modules dispatch through."""

import datetime as dt

import pytest

from site_builder.markup import render
from site_builder.shortcodes import SHORTCODES, Shortcode
from site_builder.views import ChartsView, SiteView


def test_every_shortcode_left_for_a_later_stage_is_bound_and_rendered_there():
    for name, kind in SHORTCODES.items():
        left, text = kind.leave(Shortcode(0, name, ("x",), (), 1, 1))
        assert left in ("html", "marker"), name
        if left == "marker" and text.startswith("sc:"):  # replaced in the page by BoundArticles.html
            assert kind.bind and kind.render, name
        if left == "marker" and text.startswith("chart:"):  # the page splits the HTML there
            assert kind.bind, name


def test_the_markdown_stage_dispatches_through_the_registry():
    rendered = render("{{< lit a <b> >}} and {{< fig score x/y >}}\n\n{{< chart some-chart >}}\n")
    assert "a &lt;b&gt;" in rendered.html and "<!--sc:1-->" in rendered.html
    assert "<!--chart:some-chart-->" in rendered.html
    with pytest.raises(Exception) as error:
        render("{{< nope >}}")
    assert "known shortcodes: " + ", ".join(kind.syntax for kind in SHORTCODES.values()) in str(error.value)


def test_a_view_reads_as_the_mapping_of_its_fields():
    view = ChartsView(config=None, updated=dt.date(2026, 1, 1), names=None, section="charts", lang_names={},
                      round_nav=None, round_name="v6.0", previous_round=None, charts=[])
    assert {**view} == {"config": None, "updated": dt.date(2026, 1, 1), "names": None, "section": "charts",
                        "lang_names": {}, "round_nav": None, "round_name": "v6.0", "previous_round": None,
                        "charts": []}
    assert view["charts"] == []
    with pytest.raises(KeyError):
        SiteView(None, dt.date(2026, 1, 1), None, None, {}, None, "v6.0", None)["charts"]
