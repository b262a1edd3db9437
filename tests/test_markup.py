"""Markdown rendering (markdown-it-py), shortcodes found by the parser, and the sanitizer's policy."""

import textwrap

import pytest

from site_builder.content import load_articles
from site_builder.errors import Collector, SiteError
from site_builder.markup import Shortcode, render, render_markdown
from tests.conftest import write_files


def _problems(body: str, first_line: int = 1) -> list[str]:
    problems = Collector()
    render(textwrap.dedent(body), first_line, "a.md", problems)
    return [str(p) for p in problems.problems]


# --- Markdown: CommonMark plus tables, footnotes, heading anchors, links ---------------------------------

def test_footnotes_keep_the_sites_ids_and_classes():
    html = render_markdown("Text.[^src] Again.[^src]\n\n[^src]: Source, https://example.org/a.\n")
    assert '<sup id="fnref:src"><a class="footnote-ref" href="#fn:src">1</a></sup>' in html
    assert '<sup id="fnref2:src">' in html
    assert '<div class="footnote">\n<hr>\n<ol>\n<li id="fn:src">' in html
    assert 'href="#fnref:src">' in html and 'href="#fnref2:src">' in html
    # source URLs in footnote text become links, without the trailing full stop
    assert '<a href="https://example.org/a" class="url">https://example.org/a</a>.' in html


def test_only_written_schemes_are_linked():
    html = render_markdown("See README.md, site.toml, www.example.org and http://example.org/x.")
    assert html.count("<a ") == 1 and 'href="http://example.org/x"' in html


def test_heading_ids_transliterate_and_stay_unique_with_a_permalink():
    html = render_markdown("## Kết quả\n\n## Kết quả\n\n### Đà Nẵng `code`\n")
    assert '<h2 id="ket-qua">Kết quả<a class="headerlink" href="#ket-qua">#</a></h2>' in html
    assert '<h2 id="ket-qua-1">' in html
    assert '<h3 id="da-nang-code">' in html


def test_table_alignment_is_a_class_never_a_style():
    html = render_markdown("| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n")
    assert '<th class="align-left">a</th>' in html and '<td class="align-center">2</td>' in html
    assert '<td class="align-right">3</td>' in html and "style" not in html


def test_a_list_right_after_a_line_of_text_is_a_list():
    html = render_markdown("Pasted from a press release:\n- first point\n- second point\n")
    assert "<ul>\n<li>first point</li>\n<li>second point</li>\n</ul>" in html


@pytest.mark.slow
def test_pathological_inputs_complete():
    # Python-Markdown needed minutes for these; the plugins' own rules were quadratic on the next three.
    assert render_markdown("[" * 20_000).count("[") == 20_000
    assert render_markdown("[^" * 10_000 + "\n\n[^x]: note\n").count("[^") == 10_000
    assert render_markdown("http://a" * 8_000).count("<a ") > 0
    assert render_markdown("## Same\n" * 5_000).count('id="same-4999"') == 1


# --- Sanitizer ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("link", ["javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,x", "vbscript:x",
                                  "//evil.example/x", "/\\evil.example/x", "ftp://example.org/"])
def test_links_other_than_http_mailto_and_relative_lose_their_target(link):
    assert render_markdown(f'<a href="{link}">x</a>') == "<p><a>x</a></p>"
    # markdown-it percent-encodes the backslash, which leaves a harmless path on this site
    assert render_markdown(f"[x]({link})") in ("<p><a>x</a></p>", '<p><a href="/%5Cevil.example/x">x</a></p>')


def test_good_links_stay():
    html = render_markdown("[a](https://example.org/) [b](mailto:desk@example.org) [c](../methodology/#rcp) "
                           '<a href="other/">d</a>')
    for href in ("https://example.org/", "mailto:desk@example.org", "../methodology/#rcp", "other/"):
        assert f'href="{href}"' in html
    assert "rel=" not in html  # no target=_blank is possible, so no opener to cut (see markup.py)


def test_raw_html_is_sanitized_no_style_no_foreign_class_no_script():
    html = render_markdown('<p style="position:fixed">a</p>\n\n<table><tr><td style="position:fixed" '
                           'class="skip align-right">b</td></tr></table>\n\n<script>alert(1)</script>'
                           '<svg onload=alert(1)></svg><sub onerror=alert(1)>1</sub> '
                           '<abbr title="Reference convergence points">RCP</abbr>')
    assert "style" not in html and "skip" not in html and "<script" not in html and "onerror" not in html
    assert "<svg" not in html and "onload" not in html  # an <img> is an error of its own (test_hostile_inputs)
    assert '<td class="align-right">b</td>' in html
    assert '<abbr title="Reference convergence points">RCP</abbr>' in html  # raw HTML is on, then sanitized



def test_an_image_in_any_form_is_an_error_at_its_place_never_dropped():
    found = _problems("Text\n\n<div>\n  <img src=a.png alt=a>\n</div>\n\n> ![b](b.png) and <IMG src=c>\n")
    assert [line.split("\n")[0] for line in found] == [
        "a.md:4:3: error: an <img> in an article is not published",
        "a.md:7:3: error: an image ('b.png') in an article is not published",
        "a.md:7:19: error: an <img> in an article is not published"]
    assert _problems("`![b](b.png)`") == []

def test_writers_cannot_forge_markers():
    assert "<!--" not in render_markdown("<!--sc:0--> <!--chart:x-->")
    assert _problems("Text \ue000sc:0\ue001\n") == [
        "a.md:1: error: the article contains a reserved private-use character (U+E000 or U+E001); remove it"]


# --- Shortcodes ---------------------------------------------------------------------------------------

BODY = """\
Intro {{< fig score a/b >}} and {{< lit 405B >}}.
  Second line {{< claim c1 >}} x {{< fig speedup x y decimals=2 >}}

| h | {{< fig nodes x >}} |
|---|---|
| {{< fig runs q >}} | a \\| b {{< fig runs r >}} |

> quote {{< fig score z >}}

{{< chart top-level >}}
Paragraph
{{< chart after-paragraph >}}

- item {{< fig score li >}}

## Heading {{< fig score h >}}

Note.[^1]

[^1]: Foot {{< claim fn >}}
"""


def test_shortcodes_are_tokens_with_file_line_and_column():
    rendered = render(BODY, 10, "a.md")
    where = [(s.name, s.args[-1], s.line, s.col) for s in rendered.shortcodes]
    assert where == [
        ("fig", "a/b", 10, 7), ("lit", "405B", 10, 33), ("claim", "c1", 11, 15), ("fig", "y", 11, 34),
        ("fig", "x", 13, 7), ("fig", "q", 15, 3), ("fig", "r", 15, 31), ("fig", "z", 17, 9),
        ("chart", "top-level", 19, 1), ("chart", "after-paragraph", 21, 1), ("fig", "li", 23, 8),
        ("fig", "h", 25, 12), ("claim", "fn", 29, 12)]
    assert rendered.shortcodes[3] == Shortcode(3, "fig", ("speedup", "x", "y"), (("decimals", "2"),), 11, 34)
    assert rendered.shortcodes[3].option("decimals") == "2"
    assert rendered.charts == (("top-level", 19), ("after-paragraph", 21))


def test_markers_mark_where_figures_and_charts_go_and_lit_is_plain_text():
    html = render(BODY).html
    assert "<p>Intro <!--sc:0--> and 405B." in html
    for index in (2, 3, 4, 5, 6, 7, 10, 11, 12):
        assert html.count(f"<!--sc:{index}-->") == 1
    assert "<!--sc:1-->" not in html  # lit is rendered at once
    assert "<!--chart:top-level-->\n<p>Paragraph</p>\n<!--chart:after-paragraph-->" in html
    assert render_markdown("{{< lit <b>8,192</b> GPUs >}}") == "<p>&lt;b&gt;8,192&lt;/b&gt; GPUs</p>"


def test_shortcodes_in_code_are_shown_not_run():
    body = textwrap.dedent("""\
        Quote it: `{{< chart x >}}`, or escape it: \\{{< chart y >}}.

            {{< chart indented >}}

        ~~~
        ```
        {{< chart in-tilde-fence >}}
        ~~~

        {{< chart after-the-fences >}}
        """)
    rendered = render(body)
    assert [s.args for s in rendered.shortcodes] == [("after-the-fences",)]
    html = rendered.html
    assert "<code>{{&lt; chart x &gt;}}</code>" in html and "{{&lt; chart y &gt;}}" in html
    assert "{{&lt; chart indented &gt;}}" in html and "{{&lt; chart in-tilde-fence &gt;}}" in html


def test_bad_shortcodes_name_file_line_and_column():
    problems = _problems("""\
        Text {{< table x >}} and {{< chart inline >}}.

        > {{< chart in-a-quote >}}

        {{< fig >}} {{< lit "unclosed >}} {{< chart Not_An_Id >}} {{< fig score
        """, 5)
    assert problems[0] == ("a.md:5:6: error: unknown shortcode 'table'\n  hint: known shortcodes: "
                           "{{< chart ID >}} (on a line of its own), {{< fig METRIC REF... >}}, {{< claim ID >}}, "
                           "{{< lit TEXT >}}")
    assert problems[1].startswith("a.md:5:26: error: a chart shortcode must stand on a line of its own")
    assert problems[2].startswith("a.md:7:3: error: a chart shortcode must stand on a line of its own")
    assert problems[3:] == [
        "a.md:9:1: error: shortcode 'fig' needs arguments: {{< fig METRIC REF... >}}",
        "a.md:9:13: error: shortcode 'lit' has an unclosed quote",
        "a.md:9:35: error: shortcode 'chart' needs one chart id, not 'Not_An_Id'",
        "a.md:9:59: error: shortcode '{{<' is not closed with '>}}' on the same line"]


def test_a_shortcode_without_a_name_is_an_error():
    assert _problems("x {{< >}} and {{< 12 >}}")[1].startswith(
        "a.md:1:15: error: a shortcode starts with its name: {{< NAME ARGS >}}")


def test_render_without_a_collector_raises():
    with pytest.raises(SiteError, match="unknown shortcode 'nope'"):
        render("{{< nope >}}")


def test_article_shortcodes_count_lines_from_the_top_of_the_file(tmp_path):
    write_files(tmp_path, {"content/en/a.md": """
        ---
        title: "T"
        date: 2026-06-20
        summary: "S"
        authors: ["Desk"]
        tags: ["a"]
        key: k
        ---
        Before.

        It took {{< fig score deepseekv3_671b/fastest >}} minutes, with `{{< fig not run >}}` quoted.

        {{< chart deepseek-scaling >}}
        """})
    [article] = load_articles(tmp_path / "content", ("en",), tmp_path)
    assert [(s.name, s.line, s.col) for s in article.shortcodes] == [("fig", 11, 9), ("chart", 13, 1)]
    assert article.charts == (("deepseek-scaling", 13),)
    assert "It took <!--sc:0--> minutes" in article.html and "<!--chart:deepseek-scaling-->" in article.html
