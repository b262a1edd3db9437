"""Bad inputs through the command line: each gets `path:line[:col]: error: message`, exit 1, every
problem at once, no traceback, the previous site untouched. Rows of the README table "What a bad
input gets" point here."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder.cli import main
from tests.conftest import PATIENCE, ROOT, csv_text, MINI_V60, beside

HELLO = "content/en/hello.md"
V60 = "data/rounds/v6.0/results.csv"


def build(site: Path, out: Path, *options: str):
    result = CliRunner().invoke(main, ["build", "--root", str(site), "--out", str(out), *options])
    # A traceback would show as an exception other than the SystemExit of a clean exit.
    assert result.exception is None or isinstance(result.exception, SystemExit), result.stderr
    assert "Traceback" not in result.output
    return result


def fails(site: Path, out: Path, *options: str) -> list[str]:
    """Build, expect exit 1 with no output folder written; return the diagnostic lines."""
    result = build(site, out, *options)
    assert result.exit_code == 1, result.stderr
    assert not out.exists()
    assert not list(out.parent.glob(f".{out.name}.*")), "a temporary folder was left behind"
    return result.stderr.splitlines()


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def write(site: Path, relative: str, text: str) -> Path:
    path = site / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


# Front matter ---------------------------------------------------------------------------------

@pytest.mark.slow
def test_impossible_date_names_file_and_line(mini_site, tmp_path):
    edit(mini_site / HELLO, "date: 2026-06-20", "date: 2026-02-30")
    lines = fails(mini_site, tmp_path / "out")
    assert (f"{HELLO}:3: error: invalid YAML front matter: '2026-02-30' is not a valid date: "
            "day is out of range for month") in lines


def test_duplicate_front_matter_keys_name_the_key_and_both_lines(mini_site, tmp_path):
    edit(mini_site / HELLO, "key: hello\n", "key: hello\ntitle: \"Again\"\ntags: [\"x\"]\n")
    lines = fails(mini_site, tmp_path / "out")
    assert f"{HELLO}:8: error: duplicate front matter key 'title', first on line 2" in lines
    assert f"{HELLO}:9: error: duplicate front matter key 'tags', first on line 6" in lines


def test_every_problem_of_a_run_is_reported_at_once(mini_site, tmp_path):
    edit(mini_site / HELLO, "date: 2026-06-20", "date: 2026-13-01")
    edit(mini_site / "content/nl/hallo.md", "key: hello", "key: hello\nkey: again")
    edit(mini_site / V60, "PyTorch,deepseekv3_671b,20.5", "PyTorch,deepseekv3_671b,fast")
    lines = fails(mini_site, tmp_path / "out")
    assert any(line.startswith(f"{HELLO}:3: error:") for line in lines)
    assert any(line.startswith("content/nl/hallo.md:8: error: duplicate front matter key 'key'") for line in lines)
    assert f"{V60}:2: error: column 'score_minutes' has 'fast', which is not a number" in lines
    assert lines[-1] == "build failed: 3 problems; the previous site is unchanged"


@pytest.mark.slow
def test_a_failed_build_leaves_the_previous_site_byte_identical(mini_site, tmp_path):
    out = tmp_path / "out"
    assert build(mini_site, out).exit_code == 0
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    edit(mini_site / HELLO, "date: 2026-06-20", "date: 2026-02-30")
    result = build(mini_site, out)
    assert result.exit_code == 1
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert beside(tmp_path) == ["out", "site"]


# Encodings and line endings -------------------------------------------------------------------

@pytest.mark.slow
def test_bom_and_crlf_are_accepted_in_markdown_and_csv(mini_site, tmp_path):
    for relative in (HELLO, V60, "data/benchmarks.csv"):
        path = mini_site / relative
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    result = build(mini_site, tmp_path / "out")
    assert result.exit_code == 0, result.stderr
    page = (tmp_path / "out/en/articles/hello/index.html").read_text(encoding="utf-8")
    assert "Hello, round" in page and "\r" not in page
    assert "DeepSeek-V3 671B" in (tmp_path / "out/en/index.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_curated_tables_follow_the_same_encoding_rules(mini_site, tmp_path):
    """accelerators.csv, vendors.csv and display_names.csv: a byte order mark and CRLF are accepted, Latin-1
    is a located error (not a traceback), an unknown column is named."""
    (mini_site / "data/display_names.csv").write_text("kind,id,display_name,note\nsubmitter,Acme,Acme Corp,\n")
    for name in ("accelerators.csv", "vendors.csv", "display_names.csv"):
        path = mini_site / "data" / name
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    result = build(mini_site, tmp_path / "out")
    assert result.exit_code == 0, result.stderr
    assert "Acme Corp" in (tmp_path / "out/en/index.html").read_text(encoding="utf-8")
    vendors = mini_site / "data/vendors.csv"
    vendors.write_bytes(vendors.read_bytes() + b"M\xe9ta,#000000\r\n")
    names = mini_site / "data/display_names.csv"
    names.write_bytes(names.read_bytes().replace(b"note", b"notes"))
    lines = fails(mini_site, tmp_path / "failed")
    assert any(line.startswith("data/vendors.csv:") and "error: not UTF-8: byte 0xe9" in line for line in lines), lines
    assert "data/display_names.csv:1: error: unknown column 'notes'" in lines, lines


def test_latin1_csv_names_file_line_and_byte(mini_site, tmp_path):
    path = mini_site / V60
    path.write_bytes(path.read_bytes().replace(b"Grace,PyTorch,deepseekv3_671b,6.25", b"Gr\xe2ce,PyTorch,deepseekv3_671b,6.25"))
    lines = fails(mini_site, tmp_path / "out")
    offset = path.read_bytes().index(b"\xe2")
    assert any(line.startswith(f"{V60}:3:") and f"error: not UTF-8: byte 0xe2 at offset {offset}" in line
               for line in lines), lines


def test_latin1_markdown_names_file_line_and_column(mini_site, tmp_path):
    path = mini_site / HELLO
    path.write_bytes(path.read_bytes().replace(b"Some text", b"Caf\xe9 text"))
    lines = fails(mini_site, tmp_path / "out")
    assert any(line.startswith(f"{HELLO}:11:4: error: not UTF-8: byte 0xe9") for line in lines), lines


# CSV columns --------------------------------------------------------------------------------------

def test_unknown_csv_column_is_refused_by_name(mini_site, tmp_path):
    rows = csv_text(MINI_V60).splitlines()
    rows = [rows[0] + ",colour"] + [row + ",blue" for row in rows[1:]]
    (mini_site / V60).write_text("\n".join(rows) + "\n", encoding="utf-8")
    lines = fails(mini_site, tmp_path / "out")
    assert f"{V60}:1: error: unknown column 'colour'" in lines


# Slugs --------------------------------------------------------------------------------------------

def test_overlong_slug_from_file_name_or_front_matter_is_refused_before_writing(mini_site, tmp_path):
    long_name = "a" * 240
    shutil.move(mini_site / HELLO, mini_site / f"content/en/{long_name}.md")
    edit(mini_site / "content/nl/hallo.md", "key: hello", "key: hello\nslug: " + "b" * 300)
    lines = fails(mini_site, tmp_path / "out")
    assert (f"content/en/{long_name}.md:1: error: the slug from the file name is 240 characters; "
            "the limit is 80") in lines
    assert "content/nl/hallo.md:8: error: the slug from front matter 'slug' is 300 characters; the limit is 80" in lines
    assert "  hint: set a shorter 'slug:' in the front matter" in lines


def test_slug_collisions_name_the_slug_lines_of_both_files(mini_site, tmp_path):
    edit(mini_site / "content/nl/alleen.md", "key: only-dutch", "key: only-dutch\nslug: hallo")
    lines = fails(mini_site, tmp_path / "out")
    assert ("content/nl/hallo.md:1: error: slug 'hallo' is also the slug of content/nl/alleen.md:8") in lines


# Files in content/ --------------------------------------------------------------------------------

@pytest.mark.slow
def test_editor_and_hidden_files_are_ignored_with_a_note_even_with_strict(mini_site, tmp_path):
    folder = mini_site / "content/en"
    (folder / ".#draft.md").symlink_to("user@host.1234:1700000000")  # Emacs lock: a dangling symlink
    for name in (".draft.md.swp", "#x.md#", "x.md~", ".DS_Store"):
        (folder / name).write_bytes(b"\x00\xff not markdown")
    (folder / "folder.md").mkdir()
    for options in ((), ("--strict", "--base-url", "https://reports.example.co.uk/mini/")):
        result = build(mini_site, tmp_path / f"out{len(options)}", *options)
        assert result.exit_code == 0, result.stderr
        for name in (".#draft.md", ".draft.md.swp", "#x.md#", "x.md~", ".DS_Store"):
            assert f"content/en/{name}: note: editor or hidden file; ignored" in result.stderr
        assert "content/en/folder.md: note: not a regular file, though named *.md; ignored" in result.stderr


def test_symlinks_leaving_the_project_are_errors_and_dangling_ones_are_ignored(mini_site, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(mini_site / HELLO, outside / "secret.md")
    shutil.copy(mini_site / V60, outside / "results.csv")
    (mini_site / "content/en/linked.md").symlink_to(outside / "secret.md")
    (mini_site / "content/en/gone.md").symlink_to(mini_site / "content/en/nothing-here.md")
    (mini_site / V60).unlink()
    (mini_site / V60).symlink_to(outside / "results.csv")
    result = build(mini_site, tmp_path / "out")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert f"content/en/linked.md: error: symlink to {outside / 'secret.md'}, outside the project; refusing to read it" in lines
    assert f"{V60}: error: symlink to {outside / 'results.csv'}, outside the project; refusing to read it" in lines
    assert not any("gone.md" in line for line in lines if "error" in line)
    assert len([line for line in lines if ": error: " in line]) == 2


def test_a_symlink_inside_the_project_is_read(mini_site, tmp_path):
    (mini_site / "drafts").mkdir()
    shutil.move(mini_site / HELLO, mini_site / "drafts/hello.md")
    (mini_site / HELLO).symlink_to(mini_site / "drafts/hello.md")
    assert build(mini_site, tmp_path / "out").exit_code == 0


def test_unknown_language_folder_is_a_warning_and_an_error_with_strict(mini_site, tmp_path):
    shutil.copytree(mini_site / "content/nl", mini_site / "content/fr")
    lenient = build(mini_site, tmp_path / "a")
    assert lenient.exit_code == 0
    assert ("content/fr: warning: folder of language 'fr', which is not in 'languages' of site.toml; "
            "its articles are not built") in lenient.stderr
    lines = fails(mini_site, tmp_path / "b", "--strict")
    assert ("content/fr: error: folder of language 'fr', which is not in 'languages' of site.toml; "
            "its articles are not built") in lines


# site.toml ----------------------------------------------------------------------------------------

def test_site_toml_reports_every_problem_with_lines(mini_site, tmp_path):
    config = mini_site / "site.toml"
    text = config.read_text()
    text = text.replace('languages = ["en", "nl"]', 'languages = ["en", "nl", "xx", "zz-QQ"]')
    text = text.replace('previous_round = "v5.1"', 'previous_round = "v6.0"\ncolour = "blue"')
    text = text.replace('base_url = "https://example.org/mini/"', "base_url = 42")
    config.write_text(text)
    lines = fails(mini_site, tmp_path / "out")
    errors = [line for line in lines if ": error: " in line]
    assert "site.toml:1: error: 'languages' holds 'xx', a language Babel has no locale data for (unknown locale 'xx')" in errors
    assert any(line.startswith("site.toml:1: error: 'languages' holds 'zz-QQ', a language Babel") for line in errors)
    assert "site.toml:3: error: 'base_url' must be a str, not int" in errors
    assert ("site.toml:5: error: 'previous_round' is the same round as 'round' (v6.0); "
            "a round cannot be compared with itself") in errors
    assert "site.toml:6: error: unknown key 'colour'" in errors
    assert any(line.startswith("site.toml:") and "no title for language 'xx'" in line for line in errors)
    assert lines[-1].startswith(f"build failed: {len(errors)} problems")


def test_invalid_toml_names_line_and_column(mini_site, tmp_path):
    edit(mini_site / "site.toml", 'round = "v6.0"', 'round = "v6.0')
    lines = fails(mini_site, tmp_path / "out")
    assert lines[0].startswith("site.toml:4:") and "error: invalid TOML" in lines[0]


# Catalogs (.po) -----------------------------------------------------------------------------------

@pytest.fixture
def own_locales(mini_site):
    """The mini site with its own copy of the catalogs, to break them."""
    shutil.copytree(ROOT / "site_builder/theme/locales", mini_site / "locales")
    edit(mini_site / "site.toml", f'locales_dir = "{ROOT / "site_builder/theme/locales"}"', 'locales_dir = "locales"')
    return mini_site / "locales/nl/LC_MESSAGES/messages.po"


def _line_of(path: Path, text: str) -> int:
    return path.read_text(encoding="utf-8").split("\n").index(text) + 1


def test_po_string_missing_its_opening_quote_is_an_error(mini_site, own_locales, tmp_path):
    edit(own_locales, 'msgstr "Benchmarks"', 'msgstr Benchmarks"')
    line = _line_of(own_locales, 'msgstr Benchmarks"')
    lines = fails(mini_site, tmp_path / "out")
    assert (f"locales/nl/LC_MESSAGES/messages.po:{line}:8: error: invalid .po line: after 'msgstr' a string "
            "in double quotes is expected, not 'Benchmarks\"'") in lines


def test_po_placeholder_mismatch_is_an_error_not_a_render_crash(mini_site, own_locales, tmp_path):
    text = own_locales.read_text(encoding="utf-8")
    msgid = next(line for line in text.split("\n") if line.startswith('msgid "%(multi)s'))
    edit(own_locales, 'msgstr "%(multi)s', 'msgstr "%(several)s')
    line = _line_of(own_locales, msgid)
    lines = fails(mini_site, tmp_path / "out")
    assert any(entry.startswith(f"locales/nl/LC_MESSAGES/messages.po:{line}: error: message '%(multi)s")
               and "'several'" in entry for entry in lines), lines


def test_po_translation_adding_a_placeholder_is_an_error(mini_site, own_locales, tmp_path):
    edit(own_locales, 'msgstr "Benchmarks"', 'msgstr "Benchmarks %(count)s"')
    lines = fails(mini_site, tmp_path / "out")
    assert any(entry.endswith("error: message 'Benchmarks': the translation uses placeholder 'count', "
                              "which the source string does not have") for entry in lines), lines


def test_po_translation_with_markup_is_an_error_at_its_line(mini_site, own_locales, tmp_path):
    edit(own_locales, 'msgstr "Grafieken"', 'msgstr "<img src=x onerror=alert(1)>Grafieken"')
    line = _line_of(own_locales, 'msgid "Charts"')
    lines = fails(mini_site, tmp_path / "out")
    assert (f"locales/nl/LC_MESSAGES/messages.po:{line}: error: message 'Charts': the translation holds markup "
            "'<img', which the source string does not have") in lines


@pytest.mark.slow
def test_po_translations_are_text_in_pages(mini_site, own_locales, tmp_path):
    """A "<" or "&" that is not markup passes the catalog check and is escaped in every page."""
    edit(own_locales, 'msgstr "Grafieken"', 'msgstr "Grafieken <3 & meer"')
    assert build(mini_site, tmp_path / "out").exit_code == 0
    pages = [p.read_text(encoding="utf-8") for p in (tmp_path / "out/nl").rglob("*.html")]
    assert any("Grafieken &lt;3 &amp; meer" in page for page in pages)
    assert not any("Grafieken <3" in page for page in pages)


# CSV downloads ------------------------------------------------------------------------------------

@pytest.mark.slow
def test_csv_downloads_neutralize_formulas_in_text_cells_only(mini_site, tmp_path):
    """A submitter or system name that a spreadsheet would run as a formula is written with a leading single
    quote, in a quoted cell (OWASP); numbers, negative ones too, stay numbers."""
    import csv

    results = mini_site / V60
    edit(results, "Acme,a512,a512", '"=HYPERLINK(""http://x"",""y"")",a512,a512')
    edit(results, "Beta,b16,b16", "@SUM(1),b16,b16")
    assert build(mini_site, tmp_path / "out").exit_code == 0
    cells, raw = set(), ""
    for path in (tmp_path / "out/data").glob("*.csv"):
        raw += path.read_text(encoding="utf-8")
        with path.open(newline="", encoding="utf-8") as handle:
            cells |= {cell for row in csv.reader(handle) for cell in row}
    assert '\'=HYPERLINK("http://x","y")' in cells and "'@SUM(1)" in cells
    assert not any(cell.startswith(("=", "+", "@", "\t", "\r")) for cell in cells)
    assert '"\'=HYPERLINK(""http://x""' in raw  # the neutralized cell is quoted
    assert not any(cell.startswith("-") and not _is_number(cell) for cell in cells)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_csv_download_keeps_negative_numbers_numbers():
    import pandas as pd

    from site_builder.csv_out import frame_csv

    frame = pd.DataFrame({"system": ["-x", "+1", "ok"], "change": [-1.5, 2.0, -3.0]})
    assert frame_csv(frame) == 'system,change\n"\'-x",-1.5\n"\'+1",2.0\nok,-3.0\n'


# Templates ----------------------------------------------------------------------------------------

@pytest.fixture
def own_templates(mini_site):
    shutil.copytree(ROOT / "site_builder/theme/templates", mini_site / "templates")
    edit(mini_site / "site.toml", f'templates_dir = "{ROOT / "site_builder/theme/templates"}"', 'templates_dir = "templates"')
    return mini_site / "templates"


def test_undefined_value_in_base_html_names_base_html_and_its_line(mini_site, own_templates, tmp_path):
    edit(own_templates / "base.html", '<meta name="color-scheme" content="light dark">',
         '<meta name="color-scheme" content="{{ page.colour_scheme }}">')
    line = _line_of(own_templates / "base.html", '<meta name="color-scheme" content="{{ page.colour_scheme }}">')
    lines = fails(mini_site, tmp_path / "out")
    assert any(entry.startswith(f"templates/base.html:{line}: error: undefined value:") and "colour_scheme" in entry
               for entry in lines), lines
    assert any(entry.startswith("  hint: while building ") and "other pages" in entry for entry in lines)
    assert len([entry for entry in lines if ": error: " in entry]) == 1  # one problem per template line


def test_filter_error_in_a_template_names_the_template_line_and_page(mini_site, own_templates, tmp_path):
    edit(own_templates / "home.html", "{{ headline.organizations|number }}", "{{ 'many'|number }}")
    line = _line_of(own_templates / "home.html", next(
        entry for entry in (own_templates / "home.html").read_text().split("\n") if "'many'|number" in entry))
    lines = fails(mini_site, tmp_path / "out")
    assert any(entry.startswith(f"templates/home.html:{line}: error: ") and "in template" in entry for entry in lines), lines
    assert "  hint: while building en/rounds/v5-1/index.html and 3 other pages" in lines  # every round's overview


def test_template_syntax_error_names_file_and_line(mini_site, own_templates, tmp_path):
    edit(own_templates / "home.html", "{{ headline.organizations|number }}", "{{ headline.organizations|number }")
    lines = fails(mini_site, tmp_path / "out")
    line = next(n for n, text in enumerate((own_templates / "home.html").read_text().splitlines(), 1)
                if "headline.organizations|number }" in text)
    assert any(entry.startswith(f"templates/home.html:{line}: error: template syntax error:") for entry in lines), lines


# derive-data --------------------------------------------------------------------------------------

def test_derive_data_names_a_missing_source_column(tmp_path):
    source = tmp_path / "source"
    for round_name in ("v6.0", "v5.1"):
        write(source, f"{round_name}/results.csv", "round,submitter,system_id,benchmark\nv6.0,A,a,b\n")
    result = CliRunner().invoke(main, ["derive-data", "--source", str(source), "--data", str(tmp_path / "data")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"{source}/v6.0/results.csv:1: error: missing column 'accelerator_model'" in result.stderr
    assert f"{source}/v5.1/results.csv:1: error: missing column 'availability_raw'" in result.stderr
    assert not (tmp_path / "data").exists()


# Round two: inputs that used to hang or crash ----------------------------------------------------

def fails_in_a_process(site: Path, out: Path) -> list[str]:
    """Like `fails`, in a child process with a generous timeout: an input that hangs fails the test
    (subprocess.TimeoutExpired) instead of hanging the suite."""
    result = subprocess.run([sys.executable, "-m", "site_builder", "build", "--root", str(site), "--out", str(out)],
                            capture_output=True, text=True, timeout=PATIENCE, cwd=site)
    assert "Traceback" not in result.stderr and "panicked" not in result.stderr, result.stderr
    assert result.returncode == 1, result.stderr
    assert not out.exists()
    return result.stderr.splitlines()


@pytest.mark.slow
@pytest.mark.parametrize("score", ["1e308", "1e-300", "5e9"])
def test_a_huge_or_tiny_score_is_refused_at_its_row(mini_site, tmp_path, score):
    edit(mini_site / V60, "PyTorch,deepseekv3_671b,20.5", f"PyTorch,deepseekv3_671b,{score}")
    lines = fails_in_a_process(mini_site, tmp_path / "out")
    assert (f"{V60}:2: error: column 'score_minutes' has '{score}', outside the range 1e-06 to 1e+09 "
            "of a number in this data") in lines, lines


def test_a_zero_rcp_scaling_factor_is_refused_at_its_row(mini_site, tmp_path):
    edit(mini_site / V60, "deepseekv3_671b,20.5,3,1.0,", "deepseekv3_671b,20.5,3,0,")
    edit(mini_site / HELLO, "\n## ", "\n{{< fig unscaled deepseekv3_671b/a512 >}} minutes.\n\n## ")
    lines = fails(mini_site, tmp_path / "out")
    assert (f"{V60}:2: error: column 'rcp_scaling_factor' is zero; it must be greater than 0 (empty means 1)"
            in lines), lines


@pytest.mark.slow
@pytest.mark.parametrize("number", ["²", "٣"])
def test_a_run_number_in_other_digits_is_located_in_the_article(mini_site, tmp_path, number):
    csv = mini_site / V60
    rows = csv.read_text(encoding="utf-8").splitlines()
    csv.write_text("\n".join([rows[0] + ",run_minutes"] + [row + ",20.1;20.5;20.9" for row in rows[1:]]) + "\n",
                   encoding="utf-8")
    edit(mini_site / HELLO, "Some text", f"Run {{{{< fig run deepseekv3_671b/a512 n={number} >}}}} took. Some text")
    lines = fails(mini_site, tmp_path / "out")
    assert any(line.startswith(f"{HELLO}:11:5: error: 'run' needs n=K with K from 1 to 3") for line in lines), lines


CLAIMS = "data/rounds/v6.0/claims.yaml"
_LAUGHS = "".join(f"  {b}: &{b} [{', '.join([f'*{a}'] * 10)}]\n" for a, b in zip("abcdefgh", "bcdefghi"))
BILLION_LAUGHS = "- lol:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + _LAUGHS
CLAIM = ("- id: {id}\n  statement: {{en: a, nl: b}}\n  source: {{outlet: o, date: {date}}}\n  checks:\n"
         "    - figure: results\n      asserts: {asserts}\n      tolerance: {tolerance}\n")
GOOD = {"id": "x", "date": "2026-06-16", "asserts": "'= 5'", "tolerance": "'0.5'"}


@pytest.mark.slow
@pytest.mark.parametrize("registry, expected", [
    (BILLION_LAUGHS + CLAIM.format(**{**GOOD, "tolerance": "*i"}), "expand to more than 100,000 values"),
    (BILLION_LAUGHS + CLAIM.format(**{**GOOD, "id": "*i"}), "expand to more than 100,000 values"),
    ("- id: " + "[" * 100_000 + "]" * 100_000 + "\n", "nested more than 64 levels deep"),
    (CLAIM.format(**{**GOOD, "date": "2026-02-30"}), "'2026-02-30' is not a valid date: day is out of range"),
    (CLAIM.format(**{**GOOD, "asserts": "1" * 5000}), "an integer of 5000 characters is too long"),
    ("- [a, b]: 1\n" + CLAIM.format(**GOOD), "a list cannot be a mapping key"),
], ids=["laughs-tolerance", "laughs-id", "deep", "date", "huge-int", "list-key"])
def test_hostile_yaml_in_claims_is_a_located_error(mini_site, tmp_path, registry, expected):
    write(mini_site, CLAIMS, registry)
    lines = fails_in_a_process(mini_site, tmp_path / "out")
    assert any(line.startswith(f"{CLAIMS}:") and ": error: invalid YAML: " in line and expected in line
               for line in lines), lines


@pytest.mark.slow
def test_a_template_that_includes_itself_is_a_located_error(mini_site, own_templates, tmp_path):
    write(mini_site, "templates/_menu.html", '{% include "_menu.html" %}\n')
    lines = fails_in_a_process(mini_site, tmp_path / "out")
    assert any(line.startswith("templates/_menu.html:1: error: templates include one another more than")
               for line in lines), lines


@pytest.mark.slow
def test_a_template_that_extends_itself_is_a_located_error(mini_site, own_templates, tmp_path):
    edit(own_templates / "base.html", "<!doctype html>", "{% extends 'base.html' %}<!doctype html>")
    lines = fails_in_a_process(mini_site, tmp_path / "out")
    assert any(line.startswith("templates/base.html:") and "recursion limit" in line for line in lines), lines


@pytest.mark.parametrize("character", ["\\uFFFE", "\\uFDD0", "\\u0007", "\\U0010FFFF"])
def test_a_noncharacter_or_control_character_in_site_toml_is_refused_at_its_line(mini_site, tmp_path, character):
    edit(mini_site / "site.toml", 'en = "Mini report"', f'en = "Mini{character} report"')
    lines = fails_in_a_process(mini_site, tmp_path / "out")
    shown = character.replace("\\u", "U+").replace("\\U0010", "U+10")
    assert (f"site.toml:10: error: 'title.en' holds the character {shown}, a control character or a Unicode "
            "noncharacter") in lines, lines


def _spec(title: str) -> dict:
    return {"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "title": title, "mark": "point",
            "data": {"values": [{"a": 1}]}, "encoding": {"x": {"field": "a", "type": "quantitative"}}}


@pytest.mark.slow
def test_a_renderer_that_panics_is_a_failure_of_that_chart_alone(tmp_path, monkeypatch):
    from site_builder import images
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "cache"))
    # vl-convert aborts its process on U+FFFE in a text (a Rust panic that does not unwind)
    results = images.in_fresh_worker(images.stored_task, [("svg", _spec("one")), ("svg", _spec("bad\ufffe")),
                                                          ("svg", _spec("three"))])
    assert [isinstance(result, images.RenderFailure) for result in results] == [False, True, False]
    assert results[1] == "the renderer crashed (its process was aborted)"


@pytest.mark.parametrize("epoch", ["١٧٨١٢٢٢٤٠٠", "²", "1" * 5000])
def test_source_date_epoch_takes_ascii_digits_only(mini_site, tmp_path, monkeypatch, epoch):
    from site_builder import catalogs
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    assert catalogs._now().year >= 2026  # the clock, not a traceback
    lines = fails(mini_site, tmp_path / "out")
    assert f"error: SOURCE_DATE_EPOCH={epoch!r} is not a Unix timestamp" in lines, lines


# Shortcodes where they cannot work, and images -----------------------------------------------------

@pytest.mark.parametrize("link", ["[see {{< claim some-id >}}](https://x)",
                                  '<a href="https://x">see {{< claim some-id >}}</a>'])
def test_a_shortcode_in_link_text_is_an_error_not_a_link_in_a_link(mini_site, tmp_path, link):
    edit(mini_site / HELLO, "Some text", f"I {link} text")
    lines = fails(mini_site, tmp_path / "out")
    col = len("I ") + link.index("{{<") + 1
    assert any(line.startswith(f"{HELLO}:11:{col}: error: shortcode 'claim' inside link text is not allowed")
               for line in lines), lines


@pytest.mark.parametrize("key, old", [("title", '"Hello, round"'), ("summary", '"A short test article."'),
                                      ("tags", '["mlperf"]')])
def test_a_shortcode_in_front_matter_is_an_error_not_published_as_typed(mini_site, tmp_path, key, old):
    written = f'{key}: ["x {{{{< lit y >}}}}"]' if key == "tags" else f'{key}: "x {{{{< lit y >}}}}"'
    edit(mini_site / HELLO, f"{key}: {old}", written)
    lines = fails(mini_site, tmp_path / "out")
    line, col = {"title": 2, "summary": 4, "tags": 6}[key], written.index("{{<") + 1
    assert (f"{HELLO}:{line}:{col}: error: a shortcode in front matter '{key}' is not run; shortcodes go in the "
            "article body only") in lines, lines


@pytest.mark.parametrize("image", ["![a chart](img/x.png)", "![a chart](https://example.org/x.png)",
                                   '<img src="img/x.png" alt="a chart">'])
def test_an_image_is_refused_with_an_error_never_dropped_silently(mini_site, tmp_path, image):
    (mini_site / "content/en/img").mkdir()
    (mini_site / "content/en/img/x.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    edit(mini_site / HELLO, "Some text", f"See {image} text")
    lines = fails(mini_site, tmp_path / "out")
    assert any(line.startswith(f"{HELLO}:11:5: error: an ") and "in an article is not published" in line
               for line in lines), lines
    assert any("img-src 'self'" in line for line in lines), lines


def test_a_shortcode_in_alt_text_is_named(mini_site, tmp_path):
    edit(mini_site / HELLO, "Some text", "![{{< claim some-id >}}](x.png) text")
    lines = fails(mini_site, tmp_path / "out")
    assert (f"{HELLO}:11:1: error: shortcode 'claim' in an image's alt text is not run; no shortcode may stand "
            "in alt text") in lines, lines
