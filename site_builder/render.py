"""Jinja2 rendering: one strict, autoescaping environment per language with its gettext catalog."""

from __future__ import annotations

import functools
import hashlib
import io
import posixpath
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

import jinja2
import jinja2.meta
from markupsafe import escape

from site_builder import cache, freshness, paths
from site_builder.errors import Problem, SiteError
from site_builder.i18n import Language
from site_builder.labels import score_source_label
from site_builder.theme import PACKAGED


def relative_url(from_path: str, to_path: str) -> str:
    """Link from one output file to another, relative, so the site works from any sub-path and file://.

    Directory targets ("nl/") link to their index.html explicitly, since file:// shows no index.
    """
    if to_path.endswith("/") or to_path == "":
        to_path += "index.html"
    return _relative(posixpath.dirname(from_path), to_path)


def _relative(start: str, to_path: str) -> str:
    """posixpath.relpath for the site's clean relative paths, without its abspath calls (a page makes dozens)."""
    folders = start.split("/") if start else []
    target = to_path.split("/")
    common = 0
    while common < len(folders) and common < len(target) - 1 and folders[common] == target[common]:
        common += 1
    return "/".join([".."] * (len(folders) - common) + target[common:])


def served_path(path: str) -> str:
    """Path as a web host serves it: directory URLs without index.html (for absolute URLs)."""
    return path[: -len("index.html")] if path.endswith("index.html") else path


@jinja2.pass_context
def _url(context, target: str) -> str:
    page = context["page"]
    if page.path == paths.NOT_FOUND:  # served at any missing address, at any depth
        root = site_path(context["config"])
        if root is not None:  # from the site's own path: no <base>, so "#main" stays on the page
            return root + relative_url("", target)
    return relative_url(page.path, target)


def site_path(config) -> str | None:
    """The path the site is served at ("/mini/"), when its address is known: a documentation name (example.org)
    says nothing about it (then the 404 page's links stay relative, which works at the site's root level only,
    and the build's warning says so). Only a path, never another origin: the page's policy allows none."""
    if not config.base_path_is_known:
        return None
    path = urlsplit(config.base_url).path or "/"
    return path if path.endswith("/") else path + "/"


class TemplateCache(jinja2.BytecodeCache):
    """Compiled templates kept between builds in `folder` (Jinja checks each against its source's hash).
    Compiled code is code: each entry is sealed with the cache's key (`cache.seal`) and one that does not
    check out is compiled again, never loaded. Best effort: a cache that cannot be written only costs time."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def load_bytecode(self, bucket) -> None:
        try:
            content = cache.unseal((self.folder / f"{bucket.key}.jinja").read_bytes())
            if content is not None:
                bucket.load_bytecode(io.BytesIO(content))
        except Exception:  # noqa: BLE001 - missing or damaged: compile the template again
            bucket.reset()

    def dump_bytecode(self, bucket) -> None:
        stream = io.BytesIO()
        bucket.write_bytecode(stream)
        cache.store(self.folder / f"{bucket.key}.jinja", stream.getvalue())


def environment(template_dirs: Sequence[Path], lang: Language, globals_: dict, filters: dict | None = None,
                bytecode_cache: jinja2.BytecodeCache | None = None) -> jinja2.Environment:
    """`template_dirs` are looked up in order, file by file: the project's templates, then the theme's."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(list(template_dirs)),
        bytecode_cache=bytecode_cache,
        autoescape=jinja2.select_autoescape(["html", "xml"], default_for_string=True),
        undefined=jinja2.StrictUndefined,
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # one environment a build: no stat of each template (and its includes) a page
    )
    lang = lang.for_pages()  # on a right-to-left page, English fallbacks isolated
    env.install_gettext_callables(*escaped_callables(lang.gettext, lang.ngettext), newstyle=True)
    env.globals["gettext"] = _remembered(env.globals["gettext"])
    env.globals.update(globals_, url=_url, served=served_path, lang=lang, paths=paths)
    env.filters.update(
        number=lambda value, decimals=None: lang.number(value, decimals),
        percent=lambda value, decimals=1: lang.percent(value, decimals),
        date=lambda value, form="long": lang.date(value, form),
        source_label=lambda source: score_source_label(source, lang),
        **(filters or {}),
    )
    return env


def _remembered(newstyle_gettext):
    """Jinja's newstyle gettext, remembering what a message without variables gives (in text or in markup):
    a page asks for dozens of the same strings, each through four calls."""
    remembered: dict = {}

    @jinja2.pass_context
    def gettext(context, message: str, **variables):
        if variables:
            return newstyle_gettext(context, message, **variables)
        key = (message, context.eval_ctx.autoescape)
        if key not in remembered:
            remembered[key] = newstyle_gettext(context, message)
        return remembered[key]

    return gettext


def escaped_callables(gettext, ngettext):
    """gettext and ngettext whose strings are text: Jinja's newstyle gettext marks a catalog string as safe
    markup when autoescaping, so a translation could put elements into every page; escaped here instead
    (only in autoescaped templates: robots.txt takes plain text)."""
    @jinja2.pass_eval_context
    def escaped_gettext(eval_ctx, message: str) -> str:
        text = gettext(message)
        return escape(text) if eval_ctx.autoescape else text

    @jinja2.pass_eval_context
    def escaped_ngettext(eval_ctx, singular: str, plural: str, count: int) -> str:
        text = ngettext(singular, plural, count)
        return escape(text) if eval_ctx.autoescape else text

    return escaped_gettext, escaped_ngettext


def template_location(exc: BaseException, template_dirs: Sequence[Path] = ()) -> tuple[str | None, int | None]:
    """File and line of the innermost template frame of an exception raised while rendering.

    Jinja rewrites the traceback so that template frames carry the template's file name and line
    (`__jinja_exception__` marks them); the innermost one is where the template went wrong, which is
    base.html for an undefined value in base.html even when a child template was rendered.
    """
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return _shown(exc.filename or exc.name, template_dirs), exc.lineno
    found = (None, None)
    tb = exc.__traceback__
    while tb is not None:
        frame_globals = tb.tb_frame.f_globals
        if "__jinja_exception__" in frame_globals:
            found = (tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        elif "__jinja_template__" in frame_globals:  # a frame Jinja did not rewrite
            template = frame_globals["__jinja_template__"]
            found = (template.filename, template.get_corresponding_lineno(tb.tb_lineno))
        tb = tb.tb_next
    return _shown(found[0], template_dirs), found[1]


def _shown(filename: str | None, template_dirs: Sequence[Path]) -> str | None:
    """A template path as the user knows it: templates/base.html for the project's own, and
    site_builder/theme/templates/base.html for the packaged theme's."""
    if filename is None:
        return filename
    resolved = Path(filename).resolve()
    for folder in template_dirs:
        folder = folder.resolve()
        base = folder.parent.parent.parent if folder == PACKAGED / "templates" else folder.parent
        if resolved.is_relative_to(folder):
            return resolved.relative_to(base).as_posix()
    return filename


def template_source(env: jinja2.Environment, name: str) -> bytes | None:
    """A template's bytes as the environment finds it (the project's own before the theme's); None when none."""
    try:
        return env.loader.get_source(env, name)[0].encode("utf-8")
    except jinja2.TemplateNotFound:
        return None


def template_digest(env: jinja2.Environment, name: str) -> str | None:
    """The digest of a template's bytes, read once per environment (a build makes its environments anew), not
    once per page that uses it."""
    known = env.__dict__.setdefault("template_digests", {})
    if name not in known:
        source = template_source(env, name)
        known[name] = None if source is None else hashlib.sha256(source).hexdigest()
    return known[name]


def templates_used(env: jinja2.Environment, name: str) -> frozenset[str]:
    """`name` and every template it extends, includes or imports, however deep; every template there is when
    one of them names another by an expression (which one is known only while rendering)."""
    known = env.__dict__.setdefault("templates_used", {})  # per environment: its loader decides what a name is
    if name not in known:
        found, todo = set(), [name]
        while todo:
            current = todo.pop()
            if current in found:
                continue
            found.add(current)
            source = template_source(env, current)
            if source is None:
                continue
            for referenced in _referenced(env, source.decode("utf-8")):
                if referenced is None:
                    found |= set(env.loader.list_templates())
                else:
                    todo.append(referenced)
        known[name] = frozenset(found)
    return known[name]


def _referenced(env: jinja2.Environment, source: str) -> tuple[str | None, ...]:
    """The templates a template's source names (None for a name given by an expression)."""
    return _referenced_in(source, env.block_start_string, env.variable_start_string, env.comment_start_string,
                          tuple(sorted(env.extensions)))


@functools.lru_cache(maxsize=256)
def _referenced_in(source: str, block_start: str, variable_start: str, comment_start: str,
                   extensions: tuple[str, ...]) -> tuple[str | None, ...]:
    """Parsing is the costly part of finding what a template uses (7 ms a template): each source is parsed once per
    process, however many builds and environments ask, since the answer depends on the text and syntax alone."""
    parser = jinja2.Environment(block_start_string=block_start, variable_start_string=variable_start,
                                comment_start_string=comment_start, extensions=list(extensions))
    return tuple(jinja2.meta.find_referenced_templates(parser.parse(source)))


def render(env: jinja2.Environment, template: str, context: dict) -> str:
    """Render one output file; any error inside a template becomes a problem naming the template's
    own file and line and the page being built."""
    page = context.get("page")
    building = f"while building {page.path}" if page is not None else None
    template_dirs = [Path(p) for p in env.loader.searchpath] if isinstance(env.loader, jinja2.FileSystemLoader) else []
    try:
        rendered = env.get_template(template).render(context)
        if freshness.recording():
            for name in templates_used(env, template):
                freshness.read(("template", name), lambda name=name: template_digest(env, name))
        return rendered
    except jinja2.TemplateNotFound as exc:
        path, line = template_location(exc, template_dirs)  # the template that includes the missing one
        if path is None and template_dirs:
            path = _shown(str(template_dirs[0] / exc.name), template_dirs)
        searched = ", ".join(str(folder) for folder in template_dirs)
        raise SiteError(Problem(f"template not found: {exc.name} (looked in {searched})", path, line,
                                hint=building)) from None
    except jinja2.TemplateSyntaxError as exc:
        path, line = template_location(exc, template_dirs)
        raise SiteError(Problem(f"template syntax error: {exc.message}", path, line, hint=building)) from None
    except jinja2.UndefinedError as exc:
        path, line = template_location(exc, template_dirs)
        raise SiteError(Problem(f"undefined value: {exc.message}", path or f"templates/{template}", line,
                                hint=building)) from None
    except SiteError:
        raise
    except RecursionError as exc:  # Jinja has no include depth of its own; its innermost frame names the loop
        path, line = template_location(exc, template_dirs)
        raise SiteError(Problem("templates include one another more than Python's recursion limit allows: a "
                                "template that includes, extends or calls itself, directly or through others",
                                path or f"templates/{template}", line, hint=building)) from None
    except Exception as exc:  # a filter or a method called by the template failed (TypeError, ValueError, ...)
        path, line = template_location(exc, template_dirs)
        message = exc.message if isinstance(exc, jinja2.TemplateError) and exc.message else str(exc)
        raise SiteError(Problem(f"{type(exc).__name__} in template: {message}", path or f"templates/{template}",
                                line, hint=building)) from None


def merge_page_problems(problems: list[Problem]) -> list[Problem]:
    """One problem per template location and message, naming the first page and how many others."""
    groups: dict[tuple, list[Problem]] = {}
    for problem in problems:
        groups.setdefault((problem.path, problem.line, problem.col, problem.message), []).append(problem)
    merged = []
    for (path, line, col, message), group in groups.items():
        hint = group[0].hint
        if hint and len(group) > 1:
            hint += f" and {len(group) - 1} other page{'s' if len(group) > 2 else ''}"
        merged.append(Problem(message, path, line, col, hint, group[0].severity))
    return merged
