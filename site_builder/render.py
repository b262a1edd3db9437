"""Jinja2 rendering: one strict, autoescaping environment per language with its gettext catalog."""

from __future__ import annotations

import posixpath
from pathlib import Path

import jinja2

from site_builder.errors import Problem, SiteError
from site_builder.i18n import Language


def relative_url(from_path: str, to_path: str) -> str:
    """Link from one output file to another, relative, so the site works from any sub-path and file://.

    Directory targets ("nl/") link to their index.html explicitly, since file:// shows no index.
    """
    if to_path.endswith("/") or to_path == "":
        to_path += "index.html"
    start = posixpath.dirname(from_path) or "."
    return posixpath.relpath(to_path, start)


def served_path(path: str) -> str:
    """Path as a web host serves it: directory URLs without index.html (for absolute URLs)."""
    return path[: -len("index.html")] if path.endswith("index.html") else path


@jinja2.pass_context
def _url(context, target: str) -> str:
    return relative_url(context["page"].path, target)


def environment(templates_dir: Path, lang: Language, globals_: dict, filters: dict | None = None) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir),
        autoescape=jinja2.select_autoescape(["html", "xml"], default_for_string=True),
        undefined=jinja2.StrictUndefined,
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.install_gettext_translations(lang.translations, newstyle=True)
    env.globals.update(globals_, url=_url, served=served_path, lang=lang)
    env.filters.update(
        number=lambda value, decimals=None: lang.number(value, decimals),
        percent=lambda value, decimals=1: lang.percent(value, decimals),
        date=lambda value, form="long": lang.date(value, form),
        **(filters or {}),
    )
    return env


def render(env: jinja2.Environment, template: str, context: dict) -> str:
    try:
        return env.get_template(template).render(context)
    except jinja2.TemplateSyntaxError as exc:
        raise SiteError(Problem(f"template syntax error: {exc.message}", exc.filename or exc.name, exc.lineno)) from None
    except jinja2.TemplateNotFound as exc:
        raise SiteError(Problem(f"template not found: {exc.name}")) from None
    except jinja2.UndefinedError as exc:
        raise SiteError(Problem(f"template {template} uses an undefined value: {exc.message}",
                                f"templates/{template}")) from None
