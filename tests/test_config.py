from pathlib import Path

import pytest

from site_builder.config import load_config
from site_builder.errors import SiteError
from tests.conftest import ROOT, write_files

VALID = """
    languages = ["en", "nl"]
    default_language = "en"
    base_url = "https://example.org/sub"
    round = "v6.0"
    previous_round = "v5.1"

    [title]
    en = "Report"
    nl = "Rapport"
    """


def test_shipped_config_loads():
    config = load_config(ROOT)
    assert config.languages == ("en", "nl", "it", "vi")
    assert config.default_language == "en"
    # the round compared with is the one before the main round, unless site.toml names it
    assert (config.round, config.compared_round) == ("v6.0", "v5.1") and config.site_rounds[-1] == "v6.0"
    assert config.base_url.endswith("/")


def test_base_url_gets_a_trailing_slash_and_can_be_overridden(tmp_path):
    write_files(tmp_path, {"site.toml": VALID})
    assert load_config(tmp_path).base_url == "https://example.org/sub/"
    assert load_config(tmp_path, "https://other.example/x/").base_url == "https://other.example/x/"
    assert load_config(tmp_path).content_dir == tmp_path / "content"


def test_unknown_keys_and_wrong_types_are_all_reported_with_lines(tmp_path):
    write_files(tmp_path, {"site.toml": VALID.replace('round = "v6.0"', 'round = 6\n    colour = "blue"')})
    with pytest.raises(SiteError) as caught:
        load_config(tmp_path)
    messages = [str(p) for p in caught.value.problems]
    assert "site.toml:4: error: 'round' must be a str, not int" in messages
    assert any(m.startswith("site.toml:5: error: unknown key 'colour'") for m in messages)


def test_title_for_unknown_language_and_missing_title(tmp_path):
    write_files(tmp_path, {"site.toml": VALID.replace('nl = "Rapport"', 'de = "Bericht"')})
    with pytest.raises(SiteError) as caught:
        load_config(tmp_path)
    messages = [str(p) for p in caught.value.problems]
    assert any("site.toml:9: error: unknown key 'de' in [title]" in m for m in messages)
    assert any("no title for language 'nl'" in m for m in messages)


def test_bad_values(tmp_path):
    text = VALID.replace('default_language = "en"', 'default_language = "fr"').replace(
        'base_url = "https://example.org/sub"', 'base_url = "example.org"').replace('"v5.1"', '"5.1"')
    write_files(tmp_path, {"site.toml": text})
    with pytest.raises(SiteError) as caught:
        load_config(tmp_path)
    text = str(caught.value)
    assert "site.toml:2: error: 'default_language' 'fr' is not in 'languages'" in text
    assert "site.toml:3: error: base URL 'example.org' must be an absolute http(s) URL" in text
    assert "site.toml:5: error: 'previous_round' must be 'v' and two numbers (like v2.3)" in text


def test_invalid_toml_names_line(tmp_path):
    write_files(tmp_path, {"site.toml": 'languages = ["en"\nround = "v6.0"\n'})
    with pytest.raises(SiteError) as caught:
        load_config(tmp_path)
    assert str(caught.value).startswith("site.toml:2:")


def test_missing_config(tmp_path: Path):
    with pytest.raises(SiteError, match="no site.toml"):
        load_config(tmp_path)


def test_every_problem_at_once_with_array_items_and_subtable_lines(tmp_path):
    text = VALID.replace('languages = ["en", "nl"]', 'languages = [\n    "en",\n    "nl",\n    "xx",\n    ]')
    text = text.replace('nl = "Rapport"', 'nl = "Rapport"\n    [title.xx]\n    name = "X"').replace(
        'round = "v6.0"', 'round = "v5.1"')
    write_files(tmp_path, {"site.toml": text})
    with pytest.raises(SiteError) as caught:
        load_config(tmp_path)
    messages = [str(p).split("\n")[0] for p in caught.value.problems]
    assert messages == [
        "site.toml:4: error: 'languages' holds 'xx', a language Babel has no locale data for (unknown locale 'xx')",
        "site.toml:9: error: 'previous_round' is the same round as 'round' (v5.1); a round cannot be compared "
        "with itself",
        "site.toml:14: error: title.xx must be a str, not dict",
    ]


def test_site_toml_with_a_byte_order_mark_or_not_in_utf8(tmp_path):
    import textwrap

    (tmp_path / "site.toml").write_bytes(b"\xef\xbb\xbf" + textwrap.dedent(VALID).encode())
    assert load_config(tmp_path).languages == ("en", "nl")
    (tmp_path / "site.toml").write_bytes(textwrap.dedent(VALID).replace("Rapport", "Rapp\xf6rt").encode("latin-1"))
    with pytest.raises(SiteError, match=r"site.toml:10:11: error: not UTF-8: byte 0xf6"):
        load_config(tmp_path)
