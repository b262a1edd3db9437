"""The theme: templates, CSS/JS assets and interface catalogs, looked up in the project first, then in the
default theme shipped inside this package (MkDocs' `custom_dir`, Hugo's theme lookup order).

A project overrides the theme file by file: its own `templates/base.html` replaces the packaged one, its own
`templates/assets/site.css` the packaged stylesheet, and every other file still comes from the package. A
project's catalog (`locales/<lang>/LC_MESSAGES/messages.po`) is read before the packaged one, message by
message, so it needs to hold only the strings it adds or changes (a project chart's titles, say).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from site_builder.errors import Problem, SiteError

PACKAGED = Path(__file__).resolve().parent
"""The default theme inside the installed package: templates/ (with assets/), locales/, livereload.js."""

REQUIRED_TEMPLATES = ("base.html", "home.html", "article.html", "chart.html", "embed.html")


@dataclass(frozen=True)
class Theme:
    template_dirs: tuple[Path, ...]
    """Where templates are looked up, in order: the project's folder (when it has one), then the package's."""
    locale_dirs: tuple[Path, ...]
    """Where catalogs are looked up, in order: the project's folder (when it has one), then the package's."""

    def assets(self) -> dict[str, Path]:
        """Asset file name -> the file used: the project's `templates/assets/NAME` over the packaged one."""
        found: dict[str, Path] = {}
        for folder in reversed(self.template_dirs):
            assets = folder / "assets"
            if assets.is_dir():
                found.update({path.name: path for path in assets.iterdir() if path.is_file()})
        return dict(sorted(found.items()))


def packaged_problem() -> Problem | None:
    """One clear problem when the installed package lacks its default theme (a broken install), instead of
    a "template not found" per page."""
    missing = [name for name in REQUIRED_TEMPLATES if not (PACKAGED / "templates" / name).is_file()]
    if not missing:
        return None
    return Problem(f"the default theme is missing from the installed package ({PACKAGED / 'templates'} lacks "
                   f"{', '.join(missing)})", hint="reinstall site-builder (pip install --force-reinstall "
                   "site-builder), or give the project a complete templates/ folder of its own")


def theme_for(templates_dir: Path, locales_dir: Path) -> Theme:
    """The theme of a project whose own folders are `templates_dir` and `locales_dir` (either may be absent).
    A project with a complete templates/ folder of its own needs nothing from the package."""
    templates = tuple(dict.fromkeys(p for p in (templates_dir, PACKAGED / "templates") if p.is_dir()))
    locales = tuple(dict.fromkeys(p for p in (locales_dir, PACKAGED / "locales") if p.is_dir()))
    own_complete = all((templates_dir / name).is_file() for name in REQUIRED_TEMPLATES)
    if not own_complete and (problem := packaged_problem()) is not None:
        raise SiteError(problem)
    return Theme(templates, locales)
