"""Article Markdown to safe HTML: markdown-it-py (CommonMark, linear time), shortcodes found by the parser, nh3.

Shortcodes `{{< NAME ARG ... key=value >}}` are tokens of the parser, so they are never run inside code
spans or code blocks. Each one becomes a `Shortcode` with its line and column in the article file, checked
and left in the HTML as its entry in `shortcodes.SHORTCODES` says: `lit` renders at once as plain text,
`chart` (on a line of its own) leaves `<!--chart:ID-->` and the others (`fig`, `claim`) leave `<!--sc:N-->`
for a later stage to replace. The markers are written after sanitizing (nh3 drops comments), through
private-use placeholders that articles may not contain.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

import nh3
from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline, html_inline, image
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.footnote.index import footnote_ref
from slugify import slugify

from site_builder.errors import Collector
from site_builder.shortcodes import SHORTCODES, Shortcode

_OPEN, _CLOSE = "\ue000", "\ue001"  # private-use placeholders, swapped for comment markers after nh3
_PLACEHOLDER = re.compile(f"{_OPEN}(sc:\\d+|chart:[a-z0-9-]+){_CLOSE}")
_MAX_SHORTCODE = 1000  # characters searched for '>}}', so a stray '{{<' costs bounded time
_NAME = re.compile(r"[A-Za-z][\w-]*")
_ARG = re.compile(r'([a-z][\w-]*)="([^"]*)"|"([^"]*)"|(\S+)')  # key="a value", "a quoted word", word
_OPTION = re.compile(r"([a-z][\w-]*)=(.*)", re.S)

# What the parser produces and articles may use; anything else is dropped by nh3.
ALLOWED_TAGS = {"a", "abbr", "blockquote", "br", "code", "del", "div", "em", "h2", "h3", "h4", "h5", "h6",
                "hr", "li", "ol", "p", "pre", "s", "strong", "sub", "sup", "table", "tbody", "td", "th",
                "thead", "tr", "ul"}
ALLOWED_ATTRIBUTES = {"*": {"id", "title"}, "a": {"href"}, "ol": {"start"}}  # never `style`
ALIGN_CLASSES = {"align-left", "align-center", "align-right"}
ALLOWED_CLASSES = {"a": {"headerlink", "footnote-ref", "footnote-backref", "url"}, "div": {"footnote"},
                   "th": ALIGN_CLASSES, "td": ALIGN_CLASSES}


@dataclass(frozen=True)
class Rendered:
    html: str
    shortcodes: tuple[Shortcode, ...]

    @property
    def charts(self) -> tuple[tuple[str, int], ...]:
        """(chart id, line) of each chart shortcode, in order."""
        return tuple((sc.args[0], sc.line) for sc in self.shortcodes if sc.name == "chart")


def _split_arguments(text: str) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]] | None:
    """Positional arguments and key=value options; "double quotes" group words. None if a quote is open."""
    if text.count('"') % 2:
        return None
    args, options = [], []
    for match in _ARG.finditer(text):
        key, quoted_value, quoted, word = match.groups()
        if key is not None:  # key="value with spaces"
            options.append((key, quoted_value))
            continue
        option = _OPTION.fullmatch(word) if word is not None else None
        if option:
            value = option.group(2)
            options.append((option.group(1), value[1:-1] if len(value) > 1 and value[0] == value[-1] == '"'
                            else value))
        else:
            args.append(quoted if quoted is not None else word)
    return tuple(args), tuple(options)


def _match_shortcode(src: str, pos: int, end: int) -> tuple[int, str, str] | None:
    """At src[pos:] '{{< NAME ... >}}' on one line: (end position, name, argument text); None otherwise."""
    if not src.startswith("{{<", pos):
        return None
    limit = min(end, pos + _MAX_SHORTCODE)
    newline = src.find("\n", pos, limit)
    close = src.find(">}}", pos + 3, newline if newline >= 0 else limit)
    if close < 0:
        return None
    inner = src[pos + 3:close].strip()
    name = _NAME.match(inner)
    return (close + 3, name.group(0), inner[name.end():].strip()) if name else (close + 3, "", inner)


def _shortcode_inline(state: StateInline, silent: bool) -> bool:
    if not state.src.startswith("{{<", state.pos):  # tried at every position the text rule stops at
        return False
    found = _match_shortcode(state.src, state.pos, state.posMax)
    if found is None:
        if not silent:  # shown as typed, and reported: a figure the writer meant would be missing
            token = state.push("shortcode_unclosed", "", 0)
            token.content = "{{<"
            token.meta = {"pos": state.pos}
        state.pos += 3
        return True
    end, name, arguments = found
    if not silent:
        token = state.push("shortcode", "", 0)
        token.meta = {"name": name, "arguments": arguments, "pos": state.pos,
                      "raw": state.src[state.pos:end]}
    state.pos = end
    return True


def _chart_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """`{{< chart ID >}}` alone on a top-level line: a block of its own (it may end a paragraph)."""
    if state.level or state.blkIndent or state.is_code_block(start_line):  # not in a quote, list or footnote
        return False
    begin = state.bMarks[start_line] + state.tShift[start_line]
    line_end = state.eMarks[start_line]
    found = _match_shortcode(state.src, begin, line_end)
    if found is None or found[1] != "chart" or state.src[found[0]:line_end].strip():
        return False
    if not silent:
        token = state.push("shortcode_block", "", 0)
        token.map = [start_line, start_line + 1]
        token.block = True
        token.meta = {"name": "chart", "arguments": found[2], "pos": 0, "raw": state.src[begin:found[0]]}
    state.line = start_line + 1
    return True


def _classes(state: StateCore) -> None:
    """Table cell alignment as a class (articles never carry a `style` attribute), and class 'url' on a link
    whose text is its URL (so the print style does not print the address twice). One pass over the tokens."""
    for token in state.tokens:
        kind = token.type
        if kind == "inline":
            for child in token.children or ():
                if child.type == "link_open" and child.markup in ("linkify", "autolink"):
                    child.attrSet("class", "url")
        elif kind in ("th_open", "td_open"):
            style = token.attrs.get("style")
            if style:
                del token.attrs["style"]
                token.attrSet("class", "align-" + str(style).split(":", 1)[1].strip())


# Footnotes written like the site's earlier output (ids 'fn:LABEL' and 'fnref:LABEL', styled by site.css).
def _note_id(token: Token) -> str:
    return html.escape(str(token.meta.get("label") or token.meta["id"] + 1), quote=True)


def _ref_id(token: Token) -> str:
    sub = token.meta.get("subId", 0)
    return f"fnref{sub + 1 if sub else ''}:{_note_id(token)}"


def _render_footnote_ref(self, tokens: Sequence[Token], idx: int, options, env) -> str:
    token = tokens[idx]
    return (f'<sup id="{_ref_id(token)}"><a class="footnote-ref" href="#fn:{_note_id(token)}">'
            f'{token.meta["id"] + 1}</a></sup>')


def _render_footnote_anchor(self, tokens: Sequence[Token], idx: int, options, env) -> str:
    lead = "&nbsp;" if tokens[idx].meta.get("subId", 0) == 0 else ""
    return f'{lead}<a class="footnote-backref" href="#{_ref_id(tokens[idx])}">\u21a9\ufe0e</a>'


_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s]{1,999}\]")


def _bounded_footnote_ref(state: StateInline, silent: bool) -> bool:
    """The plugin scans to the end of the text from every '[^' (quadratic on '[^[^[^...'); labels are short."""
    return bool(_FOOTNOTE_REF.match(state.src, state.pos, state.posMax)) and footnote_ref(state, silent)


_SCHEME_BEFORE = re.compile(r"(?:^|[^a-z0-9.+-])([a-z][a-z0-9.+-]*)$", re.IGNORECASE)
_MAX_URL = 4096


def _bounded_linkify(state: StateInline, silent: bool) -> bool:
    """markdown-it's linkify rule, reading a bounded window: the library's copies the rest of the text at
    every '://' (quadratic: 64 KB of 'http://a' took 8 s)."""
    pos = state.pos
    if state.linkLevel > 0 or not state.src.startswith("://", pos) or pos + 3 > state.posMax:
        return False
    scheme = _SCHEME_BEFORE.search(state.pending[-64:])
    if not scheme:
        return False
    proto = scheme.group(1)
    link = state.md.linkify.match_at_start(state.src[pos - len(proto):min(state.posMax, pos + _MAX_URL)])
    if not link:
        return False
    url = link.url.rstrip("*")  # a trailing '*' closes emphasis
    if not silent:
        state.pending = state.pending[:-len(proto)]
        token = state.push("link_open", "a", 1)
        token.attrs = {"href": state.md.normalizeLink(url)}
        token.markup, token.info = "linkify", "auto"
        state.push("text", "", 0).content = state.md.normalizeLinkText(url)
        token = state.push("link_close", "a", -1)
        token.markup, token.info = "linkify", "auto"
    state.pos += len(url) - len(proto)
    return True


def _located(rule):
    """An inline rule whose token remembers where it starts (for a problem's column)."""
    def located(state: StateInline, silent: bool) -> bool:
        start = state.pos
        found = rule(state, silent)
        if found and not silent:  # its one token, after any pending text the rule flushed
            state.tokens[-1].meta = {**(state.tokens[-1].meta or {}), "pos": start}
        return found
    return located


@functools.lru_cache(maxsize=4096)
def _slug(title: str) -> str:
    return slugify(title) or "section"  # python-slugify: Vietnamese transliterates


def _heading_anchors(state: StateCore) -> None:
    """An id on each h2-h6 and a '#' permalink (class 'headerlink', as the site's CSS styles it) after its
    text: what mdit-py-plugins' anchors plugin made, with python-slugify ids. Repeated headings are numbered
    with a counter (the plugin's own de-duplication tries -1, -2, ... one by one: quadratic over many equal
    headings), then checked against every id given so far."""
    seen: dict[str, int] = {}
    given: set[str] = set()
    tokens = state.tokens
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.tag == "h1":
            continue
        inline = tokens[index + 1]
        slug = _slug("".join(child.content for child in inline.children if child.type in ("text", "code_inline")))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        while count and f"{slug}-{count}" in seen:  # a heading literally titled "x 1"
            count += 1
        base = unique = f"{slug}-{count}" if count else slug
        number = 1
        while unique in given:
            unique, number = f"{base}-{number}", number + 1
        given.add(unique)
        token.attrSet("id", unique)
        link = Token("link_open", "a", 1, attrs={"class": "headerlink", "href": f"#{unique}"})
        inline.children.extend((link, Token("html_block", "", 0, content="#"), Token("link_close", "a", -1)))


def _make_parser() -> MarkdownIt:
    # Raw HTML stays on, as before: writers use <abbr>, <sub>, <sup>, which Markdown has no syntax for, and nh3
    # below is the single guard (tags, attributes, classes and link schemes on an allow-list).
    md = MarkdownIt("commonmark", {"html": True, "linkify": True}).enable(["table", "strikethrough", "linkify"])
    md.validateLink = lambda url: True  # one link policy, in the sanitizer (markdown-it's would show the source)
    # Only links written with their scheme: no guessing at 'README.md' or 'site.toml'.
    md.linkify.set({"fuzzy_link": False, "fuzzy_email": False, "fuzzy_ip": False})
    md.inline.ruler.at("linkify", _bounded_linkify)
    md.core.ruler.disable("linkify")  # its pass tries linkify-it's large regex on every text: 60 % of the time
    md.use(footnote_plugin, inline=False)
    md.inline.ruler.at("footnote_ref", _bounded_footnote_ref)
    md.core.ruler.push("heading_anchors", _heading_anchors)
    md.inline.ruler.before("text", "shortcode", _shortcode_inline)
    md.inline.ruler.at("image", _located(image))
    md.inline.ruler.at("html_inline", _located(html_inline))
    md.block.ruler.before("paragraph", "shortcode_block", _chart_block,
                          {"alt": ["paragraph", "reference", "blockquote", "list"]})
    md.core.ruler.push("classes", _classes)
    md.add_render_rule("footnote_ref", _render_footnote_ref)
    md.add_render_rule("footnote_anchor", _render_footnote_anchor)
    md.add_render_rule("footnote_block_open", lambda *a: '<div class="footnote">\n<hr>\n<ol>\n')
    md.add_render_rule("footnote_block_close", lambda *a: "</ol>\n</div>\n")
    md.add_render_rule("footnote_open", lambda self, tokens, idx, *a: f'<li id="fn:{_note_id(tokens[idx])}">\n')
    md.add_render_rule("footnote_close", lambda *a: "</li>\n")
    md.add_render_rule("shortcode", _render_shortcode)
    md.add_render_rule("shortcode_block", _render_shortcode)
    md.add_render_rule("shortcode_unclosed", lambda self, tokens, idx, *a: html.escape(tokens[idx].content))
    return md


def _render_shortcode(self, tokens: Sequence[Token], idx: int, options, env) -> str:
    shortcode = tokens[idx].meta.get("shortcode")
    if shortcode is None:  # reported as a problem; the page is not built
        return ""
    kind, text = SHORTCODES[shortcode.name].leave(shortcode)
    if kind == "html":
        return text
    return f"{_OPEN}{text}{_CLOSE}" + ("\n" if tokens[idx].type == "shortcode_block" else "")


def _safe_relative(url: str) -> str | None:
    """Relative links stay; a protocol-relative '//host' (or '/\\host', which browsers read alike) goes."""
    start = url.lstrip()[:2]
    return None if len(start) == 2 and start[0] in "/\\" and start[1] in "/\\" else url


_PARSER = _make_parser()
# No rel="noopener noreferrer": `target` is not allowed, so a link never opens a new browsing context that
# could reach back (what noopener prevents); whether to send a referrer is a site-wide policy for base.html.
_CLEANER = nh3.Cleaner(tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES, allowed_classes=ALLOWED_CLASSES,
                       link_rel=None, url_schemes={"http", "https", "mailto"}, url_relative=_safe_relative)


class Locator:
    """Line and column in the article file of a position inside an inline token's text.

    markdown-it maps blocks to lines, not inline text to columns: find each row of the token's text in its
    source line (after the indentation and '>' markers the parser removed). Call in document order.
    """

    def __init__(self, body: str, first_line: int):
        self.lines = body.split("\n")
        self.first_line = first_line
        self.cursor: dict[int, int] = {}  # source line -> column matched so far (table cells share a line)
        self.bases: dict[tuple[int, int], int] = {}  # (token, row) -> column of the row's text, -1 if rewritten

    def place(self, token: Token, pos: int, raw: str) -> tuple[int, int]:
        """(line, column) from 1 of `raw`, found at `pos` in `token.content`."""
        content = token.content
        row = content.count("\n", 0, pos)
        start_of_row = content.rfind("\n", 0, pos) + 1
        end_of_row = content.find("\n", pos)
        line = (token.map[0] if token.map else 0) + row
        source = self.lines[line] if line < len(self.lines) else ""
        key = (id(token), row)
        if key not in self.bases:
            text = content[start_of_row:end_of_row if end_of_row >= 0 else len(content)]
            self.bases[key] = source.find(text, self.cursor.get(line, 0))
            if self.bases[key] >= 0:
                self.cursor[line] = self.bases[key] + len(text)
        if self.bases[key] >= 0:
            col = self.bases[key] + pos - start_of_row
        else:  # the parser rewrote the text (an escaped pipe in a table cell): find `raw` itself
            col = max(source.find(raw, self.cursor.get(line, 0)), 0)
            self.cursor[line] = col + len(raw)
        return self.first_line + line, col + 1


_IMAGE_HINT = ("the site keeps no images of articles: write the point in words, or ask for a chart; a remote "
               "image would be blocked by the page's Content-Security-Policy (img-src 'self') and the site "
               "works offline")
_RAW_IMG = re.compile(r"<img[\s/>]", re.IGNORECASE)
_RAW_A_OPEN, _RAW_A_CLOSE = re.compile(r"<a[\s>]", re.IGNORECASE), re.compile(r"</a\s*>", re.IGNORECASE)


def _inside(tokens: list[Token]):
    """Every token of an image's alt text, nested images included."""
    for token in tokens:
        yield token
        yield from _inside(token.children or [])


def _collect(tokens: list[Token], body: str, first_line: int, shown: str, problems: Collector) -> list[Shortcode]:
    """Give each shortcode token its Shortcode (index, arguments, place); report bad ones.

    A shortcode where it cannot work is an error: in link text (a figure and a claim are links themselves,
    and a link in a link is invalid HTML) or in an image's alt text. Images are refused (nh3 would drop
    them silently)."""
    locator, found = Locator(body, first_line), []
    known = "known shortcodes: " + ", ".join(kind.syntax for kind in SHORTCODES.values())
    source = body.split("\n")
    for block in tokens:
        if block.type == "shortcode_block":
            line, col = first_line + block.map[0], source[block.map[0]].find("{{<") + 1
            _add(block, line, col, True, found, shown, problems, known)
        elif block.type == "html_block" and _RAW_IMG.search(block.content):
            row = next((i for i in range(block.map[0], block.map[1]) if _RAW_IMG.search(source[i])), block.map[0])
            problems.error("an <img> in an article is not published", shown, first_line + row,
                           _RAW_IMG.search(source[row]).start() + 1 if _RAW_IMG.search(source[row]) else None,
                           hint=_IMAGE_HINT)
        in_link = 0
        for child in (block.children or []) if block.type == "inline" else []:
            if child.type == "link_open" or (child.type == "html_inline" and _RAW_A_OPEN.match(child.content)):
                in_link += 1
            elif child.type == "link_close" or (child.type == "html_inline" and _RAW_A_CLOSE.match(child.content)):
                in_link = max(in_link - 1, 0)
            elif child.type == "image":
                line, col = locator.place(block, child.meta["pos"], "![")
                problems.error(f"an image ('{child.attrGet('src')}') in an article is not published", shown,
                               line, col, hint=_IMAGE_HINT)
                for name in {t.meta["name"] for t in _inside(child.children or []) if t.type == "shortcode"}:
                    problems.error(f"shortcode '{name}' in an image's alt text is not run; no shortcode may "
                                   "stand in alt text", shown, line, col)
            elif child.type == "html_inline" and _RAW_IMG.match(child.content):
                problems.error("an <img> in an article is not published", shown,
                               *locator.place(block, child.meta["pos"], child.content), hint=_IMAGE_HINT)
            elif child.type == "shortcode" and in_link:
                problems.error(f"shortcode '{child.meta['name'] or '?'}' inside link text is not allowed: a figure "
                               "or claim is a link itself and links cannot nest; put it outside the link", shown,
                               *locator.place(block, child.meta["pos"], child.meta["raw"]))
            elif child.type == "shortcode":
                line, col = locator.place(block, child.meta["pos"], child.meta["raw"])
                _add(child, line, col, False, found, shown, problems, known)
            elif child.type == "shortcode_unclosed":
                problems.error("shortcode '{{<' is not closed with '>}}' on the same line", shown,
                               *locator.place(block, child.meta["pos"], "{{<"))
    return found


def _add(token: Token, line: int, col: int, own_line: bool, found: list[Shortcode], shown: str,
         problems: Collector, known: str) -> None:
    name, arguments = token.meta["name"], token.meta["arguments"]
    split = _split_arguments(arguments)
    if not name:
        problems.error("a shortcode starts with its name: {{< NAME ARGS >}}", shown, line, col, hint=known)
        return
    if name not in SHORTCODES:
        problems.error(f"unknown shortcode '{name}'", shown, line, col, hint=known)
        return
    if split is None:
        problems.error(f"shortcode '{name}' has an unclosed quote", shown, line, col)
        return
    args, options = split
    wrong = SHORTCODES[name].check(name, args, options, own_line, arguments)
    if wrong:
        problems.error(wrong, shown, line, col)
        return
    shortcode = Shortcode(len(found), name, args, options, line, col)
    token.meta["shortcode"] = shortcode
    found.append(shortcode)


def parse(body: str) -> tuple[list[Token], dict]:
    """The token stream of an article body (also used by `check` to read its prose)."""
    env: dict = {}
    tokens = _PARSER.parse(body, env)
    return tokens, env


def render(body: str, first_line: int = 1, shown: str = "<article>", problems: Collector | None = None) -> Rendered:
    """Render an article body (its first line is line `first_line` of the file) to sanitized HTML.

    Problems (unknown or misplaced shortcodes) go to `problems`; without a collector they raise SiteError.
    """
    own = problems if problems is not None else Collector()
    if _OPEN in body or _CLOSE in body:
        line = body.count("\n", 0, min(i for i in (body.find(_OPEN), body.find(_CLOSE)) if i >= 0))
        own.error("the article contains a reserved private-use character (U+E000 or U+E001); remove it",
                  shown, first_line + line)
        own.raise_if_any() if problems is None else None
        return Rendered("", ())
    env: dict = {}
    tokens = _PARSER.parse(body, env)
    shortcodes = _collect(tokens, body, first_line, shown, own)
    if problems is None:
        own.raise_if_any()
    cleaned = _CLEANER.clean(_PARSER.renderer.render(tokens, _PARSER.options, env)).rstrip("\n")
    # Wide tables scroll in their own box (focusable, so a keyboard can scroll it), after sanitizing: the
    # wrapper is ours, not the writer's.
    cleaned = cleaned.replace("<table>", '<div class="table-scroll" tabindex="0"><table>').replace(
        "</table>", "</table></div>")
    return Rendered(_PLACEHOLDER.sub(lambda m: f"<!--{m.group(1)}-->", cleaned), tuple(shortcodes))


def render_markdown(body: str) -> str:
    """Sanitized HTML of a Markdown text (shortcode problems raise SiteError)."""
    return render(body).html
