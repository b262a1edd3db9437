import os
import re
from pathlib import Path

import pytest
import vl_convert

from site_builder import assets, cache


def test_hashed_names_change_with_content():
    a, b = assets.hashed("site.css", b"a"), assets.hashed("site.css", b"b")
    assert a.path.startswith("assets/site.") and a.path.endswith(".css") and a.path != b.path


@pytest.mark.slow
def test_vega_bundle_is_cached_and_defines_vega_embed(tmp_path, monkeypatch):
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path))
    monkeypatch.setattr(assets, "kept_dir", lambda: None)  # no private folder outside the cache
    first = assets.vega_bundle()
    cached = list(tmp_path.glob("vega-bundle-*.js"))
    assert len(cached) == 1 and cache.unseal(cached[0].read_bytes()) == first.content  # sealed (see seal)
    assert b"window.vegaEmbed=" in first.content
    assert assets.vega_bundle() == first


def test_vega_bundle_is_kept_per_version_outside_the_cache(tmp_path, monkeypatch):
    """A new cache (a fresh SITE_BUILDER_CACHE) does not make the bundle again; a garbled one is made again."""
    kept = tmp_path / "kept"
    kept.mkdir(mode=0o700)
    (kept / "vega-bundle-0.1.js").write_bytes(b"an earlier version's")
    monkeypatch.setattr(assets, "kept_dir", lambda: kept)
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "one"))
    first = assets.vega_bundle()
    first_name = f"vega-bundle-{assets.bundle_version()}.js"
    assert sorted(p.name for p in kept.iterdir()) == sorted(["vega-bundle-0.1.js", first_name])
    assert not (tmp_path / "one").exists()  # nothing in the cache
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "two"))
    monkeypatch.setattr(vl_convert, "javascript_bundle", lambda: pytest.fail("made again"))
    assert assets.vega_bundle(cached_only=True) == first
    raw = (kept / first_name).read_bytes()
    (kept / first_name).write_bytes(raw[:-100])
    assert assets.vega_bundle(cached_only=True) is None


def test_the_kept_folder_is_private(tmp_path, monkeypatch):
    monkeypatch.setattr(assets.tempfile, "gettempdir", lambda: str(tmp_path))
    assert assets.kept_dir() == tmp_path / f"site-builder-{os.getuid()}"
    assert assets.kept_dir().stat().st_mode & 0o777 == 0o700
    assets.kept_dir().chmod(0o770)  # others could write in it
    assert assets.kept_dir() is None


# --- site.css is written in logical directions (right-to-left pages mirror as a whole) ---------------------------

SITE_CSS = Path(assets.__file__).parent / "theme/templates/assets/site.css"
PHYSICAL = re.compile(r"(?<![-\w])(?:(?:left|right)|(?:margin|padding|border|inset|scroll-margin|scroll-padding)"
                      r"-(?:left|right)(?:-[a-z]+)?)\s*:"
                      r"|(?<![-\w])(?:text-align|float|clear)\s*:\s*(?:left|right)\b", re.I)


def physical_declarations(css: str) -> list[str]:
    """Declarations that name a physical side (left/right) of the page, on a line with no comment saying why.
    Comments are blanked before searching (keeping lines), so prose about "left and right" is not a finding."""
    blanked = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), css, flags=re.S)
    lines, found = css.splitlines(), []
    for number, line in enumerate(blanked.splitlines()):
        for match in PHYSICAL.finditer(line):
            if "/*" not in lines[number]:
                found.append(f"line {number + 1}: {lines[number].strip()}")
    return found


def test_rtl_site_css_uses_logical_sides_only():
    assert physical_declarations(SITE_CSS.read_text(encoding="utf-8")) == []


def test_rtl_physical_declaration_check_finds_them():
    css = """.skip { position: absolute; left: -999px; }
/* a comment about left: and right: */
.a { margin-left: 1rem; padding-right: 0; border-left: 4px solid; text-align: right; float: left; }
.b { border-right-width: 1px; inset-left: 0; }
.c { right: 0; }  /* justified: the overlay covers the whole width */
.d { margin-inline-start: 1rem; text-align: end; inset-inline-start: 0; border-inline-start: 1px solid; }
.e { background: linear-gradient(to right, red, blue) left center; }"""
    found = physical_declarations(css)
    assert [f.split(":")[0] for f in found] == ["line 1", "line 3", "line 3", "line 3", "line 3", "line 3",
                                               "line 4", "line 4"]
