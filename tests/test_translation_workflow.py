"""Adding a language before everything is translated: the build falls back (interface strings to English,
claims to the default language's text, marked with `lang`) with a few summarizing warnings; `check --catalogs`
lists what is left; `extract` and `update` make a project's catalogs."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po
from click.testing import CliRunner

from site_builder.cli import main
from site_builder.i18n import catalog_path
from tests.conftest import write_files

CLAIMS = """
- id: acme-scaling
  statement:
    en: "Acme says it trained in 6.25 minutes."
    nl: "Acme zegt dat het in 6,25 minuten trainde."
  source: {outlet: "Acme", url: "https://example.org/acme", date: 2026-06-16}
  checks:
    - figure: "score deepseekv3_671b/a2048"
      asserts: "= 6.25 minutes"
- id: acme-why
  statement: {en: "Acme says its network made the difference.", nl: "Acme zegt dat zijn netwerk het verschil maakte."}
  source: {outlet: {en: "Acme's blog", nl: "Acmes blog"}}
  not_checkable: {en: "The data has no network details.", nl: "De data heeft geen netwerkgegevens."}
"""


def _own_project(site: Path, languages: str = '["en", "nl", "de"]') -> Path:
    """The mini site as a project of its own: no templates_dir/locales_dir pointing into the package, `de`
    added (an article, a title), and a claims registry in en and nl only."""
    config = site / "site.toml"
    lines = [line for line in config.read_text().splitlines()
             if not line.strip().startswith(("templates_dir", "locales_dir"))]
    text = "\n".join(lines).replace('["en", "nl"]', languages) + '\nde = "Minibericht"\n'
    config.write_text(text)
    write_files(site, {"data/rounds/v6.0/claims.yaml": CLAIMS})
    (site / "content/de").mkdir(exist_ok=True)
    (site / "content/de/hallo.md").write_text((site / "content/nl/hallo.md").read_text())
    return site


def _build(site: Path, out: Path, *options: str):
    result = CliRunner().invoke(main, ["build", "--root", str(site), "--out", str(out), *options])
    lines = [line for line in result.stderr.splitlines() if not line.startswith("  hint:")]
    return result, lines


def _empty_catalog(site: Path, code: str) -> Path:
    """What `pybabel init -l de` makes: every msgid of the packaged template, no translation."""
    from site_builder.theme import PACKAGED

    template = read_po((PACKAGED / "locales/messages.pot").open("rb"))
    catalog = Catalog(locale=code, fuzzy=False)
    catalog.update(template, no_fuzzy_matching=True)
    path = catalog_path(site / "locales", code)
    path.parent.mkdir(parents=True)
    buffer = io.BytesIO()
    write_po(buffer, catalog)
    path.write_bytes(buffer.getvalue())
    return path


@pytest.mark.slow
@pytest.mark.parametrize("catalog", ["none", "empty", "update"])
def test_a_new_language_builds_with_a_few_summarizing_warnings(mini_site, tmp_path, catalog):
    site = _own_project(mini_site)
    if catalog == "empty":
        _empty_catalog(site, "de")
    elif catalog == "update":
        made = CliRunner().invoke(main, ["update", "--root", str(site), "--language", "de"])
        assert made.exit_code == 0, made.output
        assert "locales/de/LC_MESSAGES/messages.po: created" in made.stderr
    result, lines = _build(site, tmp_path / "out")
    assert result.exit_code == 0, result.output
    about_catalog = [line for line in lines if "language 'de'" in line]
    about_claims = [line for line in lines if "claims.yaml" in line]
    assert 1 <= len(about_catalog) <= 2, lines
    assert all("warning:" in line for line in about_catalog)
    if catalog == "none":
        assert about_catalog == ["locales/de/LC_MESSAGES/messages.po: warning: no catalog for language 'de': "
                                 "interface strings fall back to English"]
    else:
        assert about_catalog[0].startswith("locales/de/LC_MESSAGES/messages.po: warning: ")
        assert "interface strings of language 'de' are not translated" in about_catalog[0]
    assert about_claims == ["data/rounds/v6.0/claims.yaml: warning: 2 claims have no 'de' text; the en text is shown"]
    page = (tmp_path / "out/de/claims/index.html").read_text()
    assert '<span lang="en" dir="auto">Acme says it trained in 6.25 minutes.</span>' in page
    assert '<span lang="en" dir="auto">Acme&#39;s blog</span>' in page
    assert "Benchmarks" in (tmp_path / "out/de/index.html").read_text()  # the interface in English
    # --strict: the catalog and every missing claim text are errors
    strict, strict_lines = _build(site, tmp_path / "strict", "--strict")
    assert strict.exit_code == 1
    assert any("error:" in line and "language 'de'" in line for line in strict_lines)


@pytest.mark.slow
def test_strict_lists_each_missing_claim_text_at_its_line(mini_site, tmp_path):
    site = _own_project(mini_site)
    _empty_catalog(site, "de")
    de = catalog_path(site / "locales", "de")
    catalog = read_po(de.open("rb"), locale="de")
    for message in catalog:  # a complete catalog: only the claims are left
        if message.id:
            message.string = message.id if isinstance(message.id, str) else (message.id[0], message.id[1])
    buffer = io.BytesIO()
    write_po(buffer, catalog)
    de.write_bytes(buffer.getvalue())
    result, lines = _build(site, tmp_path / "out", "--strict", "--base-url", "https://reports.acme.org/")
    assert result.exit_code == 1
    assert [line for line in lines if "claims.yaml" in line] == [
        "data/rounds/v6.0/claims.yaml:2: error: 'statement' has no text for language 'de'",
        "data/rounds/v6.0/claims.yaml:10: error: 'statement' has no text for language 'de'",
        "data/rounds/v6.0/claims.yaml:11: error: 'outlet' has no text for language 'de'",
        "data/rounds/v6.0/claims.yaml:12: error: 'not_checkable' has no text for language 'de'",
    ]


def test_check_catalogs_lists_every_message_shown_in_english(mini_site):
    site = _own_project(mini_site)
    path = _empty_catalog(site, "de")
    catalog = read_po(path.open("rb"), locale="de")
    catalog["Benchmarks"].string = "Benchmarks"
    catalog["Charts"].string = "Diagramme"
    catalog["Charts"].flags.add("fuzzy")
    buffer = io.BytesIO()
    write_po(buffer, catalog)
    path.write_bytes(buffer.getvalue())
    result = CliRunner().invoke(main, ["check", "--root", str(site), "--catalogs", "--language", "de"])
    assert result.exit_code == 0, result.output
    listed = result.stdout.splitlines()
    assert all(line.startswith("locales/de/LC_MESSAGES/messages.po:") for line in listed)
    assert not any(line.endswith(": Benchmarks") for line in listed)
    [charts] = [line for line in listed if line.endswith(": Charts")]
    assert charts.split(": ")[1] == "fuzzy"
    assert any(line.split(": ", 2)[1:] == ["untranslated", "Articles"] for line in listed)
    assert "de: " in result.stderr and "1 fuzzy" in result.stderr
    everything = CliRunner().invoke(main, ["check", "--root", str(site), "--catalogs"])
    assert everything.exit_code == 0
    assert "en: 0 interface strings shown in English" in everything.stderr
    assert "nl: 0 interface strings shown in English" in everything.stderr
    # a language with no catalog at all: the packaged template's msgids, as missing
    (path).unlink()
    missing = CliRunner().invoke(main, ["check", "--root", str(site), "--catalogs", "--language", "de", "--strict"])
    assert missing.exit_code == 1
    assert all(": missing: " in line and "messages.pot:" in line for line in missing.stdout.splitlines())
    unknown = CliRunner().invoke(main, ["check", "--root", str(site), "--catalogs", "--language", "fr"])
    assert unknown.exit_code == 1 and "site.toml: error: language 'fr' is not one of" in unknown.stderr


@pytest.mark.slow
def test_extract_and_update_make_a_projects_catalogs(mini_site, tmp_path):
    site = _own_project(mini_site)
    write_files(site, {
        "templates/_note.html": '<p>{{ _("A note of this project") }}</p>\n'
                                '<p>{{ ngettext("%(num)s project result", "%(num)s project results", 3) }}</p>\n',
        "charts/extra.py": 'def title(lang):\n    _ = lang.gettext\n    return _("Project chart title")\n',
        "templates/assets/ignored.js": 'console.log(_("not a message"));\n',
    })
    extracted = CliRunner().invoke(main, ["extract", "--root", str(site)])
    assert extracted.exit_code == 0, extracted.output
    assert extracted.stderr.strip() == "locales/messages.pot: created, 3 messages"
    pot = read_po((site / "locales/messages.pot").open("rb"))
    assert sorted(m.id if isinstance(m.id, str) else m.id[0] for m in pot if m.id) == [
        "%(num)s project result", "A note of this project", "Project chart title"]
    assert ("charts/extra.py", 3) in pot["Project chart title"].locations
    again = CliRunner().invoke(main, ["extract", "--root", str(site)])
    assert again.stderr.strip() == "locales/messages.pot: unchanged, 3 messages"

    updated = CliRunner().invoke(main, ["update", "--root", str(site)])
    assert updated.exit_code == 0, updated.output
    lines = updated.stderr.splitlines()
    assert lines[0] == "locales/en/LC_MESSAGES/messages.po: created, 3 messages, 0 to translate"
    assert lines[1] == "locales/nl/LC_MESSAGES/messages.po: created, 3 messages, 3 to translate"
    assert lines[2].startswith("locales/de/LC_MESSAGES/messages.po: created, ")
    nl = read_po(catalog_path(site / "locales", "nl").open("rb"), locale="nl")
    assert len([m for m in nl if m.id]) == 3  # the packaged nl translations are not copied in, empty
    de = read_po(catalog_path(site / "locales", "de").open("rb"), locale="de")
    assert "Benchmarks" in de and "Project chart title" in de  # the packaged msgids, for a language the package lacks
    en = read_po(catalog_path(site / "locales", "en").open("rb"), locale="en")
    assert en["Project chart title"].string == "Project chart title"

    # A translation is kept, a new msgid is added, a removed one goes; no fuzzy matching.
    nl["Project chart title"].string = "Diagramtitel van het project"
    nl.add("Benchmarks", "Bench-marks")  # the project's own wording of a packaged string: kept
    buffer = io.BytesIO()
    write_po(buffer, nl)
    catalog_path(site / "locales", "nl").write_bytes(buffer.getvalue())
    (site / "templates/_note.html").write_text('<p>{{ _("A note of this project, reworded") }}</p>\n')
    CliRunner().invoke(main, ["extract", "--root", str(site)])
    again = CliRunner().invoke(main, ["update", "--root", str(site), "--language", "nl"])
    assert again.stderr.strip() == "locales/nl/LC_MESSAGES/messages.po: updated, 3 messages, 1 to translate"
    nl = read_po(catalog_path(site / "locales", "nl").open("rb"), locale="nl")
    assert nl["Project chart title"].string == "Diagramtitel van het project"
    assert nl["Benchmarks"].string == "Bench-marks"
    assert nl["A note of this project, reworded"].string == "" and not nl["A note of this project, reworded"].fuzzy
    assert "A note of this project" not in nl

    result, lines = _build(site, tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "Bench-marks" in (tmp_path / "out/nl/index.html").read_text()


def test_update_without_own_templates_starts_from_the_packaged_strings(mini_site):
    site = _own_project(mini_site)
    extracted = CliRunner().invoke(main, ["extract", "--root", str(site)])
    assert extracted.exit_code == 0 and "nothing to extract" in extracted.stderr
    assert not (site / "locales/messages.pot").exists()
    made = CliRunner().invoke(main, ["update", "--root", str(site), "--language", "de"])
    assert made.exit_code == 0, made.output
    de = read_po(catalog_path(site / "locales", "de").open("rb"), locale="de")
    assert "Benchmarks" in de and de["Benchmarks"].string == ""
    assert not (site / "locales/nl").exists()


def test_a_project_needs_its_template_before_update(mini_site):
    site = _own_project(mini_site)
    write_files(site, {"templates/_note.html": '<p>{{ _("A note") }}</p>\n'})
    result = CliRunner().invoke(main, ["update", "--root", str(site)])
    assert result.exit_code == 1
    assert "locales/messages.pot: error: no catalog template" in result.stderr
    assert "site-builder extract" in result.stderr


def test_extract_refuses_the_packaged_catalogs(mini_site):
    result = CliRunner().invoke(main, ["extract", "--root", str(mini_site)])
    assert result.exit_code == 1 and "locales_dir is the packaged theme's folder" in result.stderr
