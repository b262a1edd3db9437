import datetime as dt
import re

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from site_builder.i18n import catalog_path, load_language
from tests.conftest import ROOT

SHIPPED = ("en", "nl", "it", "vi")


@pytest.fixture(scope="module")
def languages():
    return {code: load_language(code, ROOT / "site_builder/theme/locales")[0] for code in SHIPPED}


@pytest.mark.parametrize("code, number, thousands, date", [
    ("en", "2.02", "8,192", "June 16, 2026"),
    ("nl", "2,02", "8.192", "16 juni 2026"),
    ("it", "2,02", "8.192", "16 giugno 2026"),
    ("vi", "2,02", "8.192", "16 tháng 6, 2026"),
])
def test_locale_formats(languages, code, number, thousands, date):
    lang = languages[code]
    assert lang.number(2.02, 2) == number
    assert lang.number(8192) == thousands
    assert lang.date(dt.date(2026, 6, 16)) == date


def test_vietnamese_d3_locale_has_decimal_comma(languages):
    locale = languages["vi"].d3_format_locale()
    assert (locale["decimal"], locale["thousands"], locale["grouping"]) == (",", ".", [3])
    assert languages["nl"].d3_time_locale()["months"][5] == "juni"


def test_missing_catalog_falls_back_to_english_with_a_warning(tmp_path):
    lang, warnings = load_language("de", tmp_path)
    assert lang.gettext("Benchmarks") == "Benchmarks"
    assert [w.severity for w in warnings] == ["warning"]
    assert "no catalog for language 'de'" in warnings[0].message


def _catalog(code):
    with catalog_path(ROOT / "site_builder/theme/locales", code).open("rb") as handle:
        return read_po(handle)


@pytest.mark.parametrize("code", SHIPPED)
def test_catalog_is_complete(code):
    untranslated = []
    for message in _catalog(code):
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            untranslated.append(message.id)
    assert untranslated == []
    assert load_language(code, ROOT / "site_builder/theme/locales")[1] == []


def _used_msgids():
    # The scaffold's example chart is a project's code, with catalogs of its own (site_builder/scaffold/locales).
    method_map = [("site_builder/scaffold/**", "ignore"), ("site_builder/**.py", "python"), ("site_builder/theme/templates/**.html", "jinja2"),
                  ("site_builder/theme/templates/**.xml", "jinja2")]
    options = {"site_builder/theme/templates/**.html": {"extensions": "jinja2.ext.i18n"},
               "site_builder/theme/templates/**.xml": {"extensions": "jinja2.ext.i18n"}}
    keywords = {"_": None, "gettext": None, "ngettext": (1, 2)}
    found = set()
    for _, _, message, _, _ in extract_from_dir(str(ROOT), method_map, options, keywords=keywords):
        found.add(message[0] if isinstance(message, tuple) else message)
    return found


@pytest.mark.slow
@pytest.mark.parametrize("code", SHIPPED)
def test_every_msgid_in_code_is_in_the_catalog(code):
    catalog_ids = {m.id[0] if isinstance(m.id, tuple) else m.id for m in _catalog(code) if m.id}
    assert sorted(_used_msgids() - catalog_ids) == []


@pytest.mark.parametrize("code", ("nl", "it", "vi"))
def test_placeholders_survive_translation(code):
    for message in _catalog(code):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        wanted = set(re.findall(r"%\((\w+)\)s", " ".join(ids))) - {"num"}
        for string in message.string if isinstance(message.string, tuple) else (message.string,):
            assert set(re.findall(r"%\((\w+)\)s", string)) >= wanted, (message.id, string)


def test_plural_forms(languages):
    nl = languages["nl"]
    one = nl.ngettext("%(num)s result", "%(num)s results", 1) % {"num": 1}
    many = nl.ngettext("%(num)s result", "%(num)s results", 224) % {"num": 224}
    assert one != many and one.startswith("1 ") and many.startswith("224 ")


PO_HEADER = ('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
             '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n')


def _write_catalog(tmp_path, body: str, code: str = "nl"):
    path = catalog_path(tmp_path, code)
    path.parent.mkdir(parents=True)
    path.write_bytes(PO_HEADER.encode() + body.encode("utf-8"))
    return load_language(code, tmp_path, tmp_path)


def test_catalog_syntax_errors_are_located(tmp_path):
    _lang, problems = _write_catalog(tmp_path, 'msgid "Benchmarks"\nmsgstr Benchmarks"\n\n'
                                               'msgid "Results"\nmsgstr "Resultaten\n')
    assert [str(p).split("\n")[0] for p in problems] == [
        "nl/LC_MESSAGES/messages.po:7:8: error: invalid .po line: after 'msgstr' a string in double quotes is "
        "expected, not 'Benchmarks\"'",
        "nl/LC_MESSAGES/messages.po:10:8: error: invalid .po line: after 'msgstr' a string in double quotes is "
        "expected, not '\"Resultaten'",
    ]


def test_catalog_placeholder_checks_use_babel_and_a_trial_format(tmp_path):
    _lang, problems = _write_catalog(tmp_path, (
        '#, python-format\nmsgid "%(n)d results"\nmsgstr "%(count)d resultaten"\n\n'
        '#, python-format\nmsgid "%(n)d of %(total)d"\nmsgstr "%(n)d van 100% %(total)d"\n\n'
        'msgid "Systems"\nmsgstr "Systemen %(x)s"\n\n'
        '#, python-format\nmsgid "%(num)s result"\nmsgid_plural "%(num)s results"\n'
        'msgstr[0] "één resultaat"\nmsgstr[1] "%(num)s resultaten"\n'))
    messages = [(p.line, p.message) for p in problems]
    assert messages[0] == (7, "message '%(n)d results': unknown named placeholder 'count'")
    assert messages[1][0] == 11 and "cannot be formatted" in messages[1][1]
    assert messages[2] == (14, "message 'Systems': the translation uses placeholder 'x', which the source "
                               "string does not have")
    assert len(messages) == 3  # a plural form may leave the number out
    assert all(p.severity == "error" for p in problems)


def test_catalog_not_in_utf8_is_located(tmp_path):
    path = catalog_path(tmp_path, "it")
    path.parent.mkdir(parents=True)
    path.write_bytes(PO_HEADER.encode() + 'msgid "City"\nmsgstr "Città"\n'.encode("latin-1"))
    _lang, problems = load_language("it", tmp_path, tmp_path)
    assert str(problems[0]).startswith("it/LC_MESSAGES/messages.po:7:13: error: not UTF-8: byte 0xe0")


def test_unknown_locale_is_a_problem_not_an_exception(tmp_path):
    lang, problems = load_language("zz-QQ", tmp_path)
    assert lang.gettext("Benchmarks") == "Benchmarks"
    assert problems[0].severity == "error" and "is not a locale Babel knows" in problems[0].message


@pytest.mark.parametrize("code", ["ar", "he", "fa", "en", "nl"])
def test_rtl_numbers_use_the_same_cldr_symbols_as_the_charts(tmp_path, code):
    """Pages (Babel) and charts (the d3 locale) write a number alike: Latin digits (Babel's default numbering
    system, also for Persian), and CLDR's minus and percent signs, which for ar, he and fa carry a
    left-to-right mark that keeps the minus on the left of the digits in right-to-left text."""
    lang, _ = load_language(code, tmp_path)
    d3 = lang.d3_format_locale()
    negative, share = lang.number(-1234.5, 1), lang.percent(-0.125)
    assert negative == d3["minus"] + f"1{d3['thousands']}234{d3['decimal']}5"
    assert share.startswith(d3["minus"]) and d3["percent"] in share
    assert re.fullmatch(r"[0-9.,%\u200e\u2212-]+", negative + share)  # Latin digits only
    if code in {"ar", "he", "fa"}:
        assert d3["minus"].startswith("\u200e")
    else:
        assert (negative, d3["minus"], d3["percent"]) == ({"en": "-1,234.5", "nl": "-1.234,5"}[code], "-", "%")


def test_markup_in_a_translation_is_an_error_unless_the_source_has_it(tmp_path):
    _lang, problems = _write_catalog(tmp_path, (
        'msgid "Charts"\nmsgstr "<img src=x onerror=alert(1)>Grafieken"\n\n'
        'msgid "Systems"\nmsgstr "Systemen</title><!--"\n\n'
        'msgid "Fast <b>runs</b>"\nmsgstr "Snelle <b>runs</b>"\n\n'
        'msgid "Results"\nmsgstr "Resultaten < 5 & meer"\n'))
    assert [(p.line, p.message) for p in problems] == [
        (6, "message 'Charts': the translation holds markup '<img', which the source string does not have"),
        (9, "message 'Systems': the translation holds markup '</title', which the source string does not have"),
    ]


@pytest.mark.parametrize("code", ["nl", "ar"])  # ar: the right-to-left page's isolated fallbacks
def test_interface_strings_are_escaped_in_pages(tmp_path, code):
    """A catalog string is text: Jinja's newstyle gettext would mark it safe markup."""
    from babel import Locale
    from babel.support import NullTranslations

    from site_builder.i18n import Language
    from site_builder.render import environment

    class Hostile(NullTranslations):  # as a catalog that escaped the load-time check would translate
        def gettext(self, message):
            return "<i>G</i> & co" if message == "Charts" else message

        def ngettext(self, singular, plural, count):
            return "<b>%(num)s</b>"

    lang = Language(code, Locale.parse(code), Hostile(), frozenset({"Charts", "%(num)s result"}))
    env = environment([tmp_path], lang, {})
    html = env.from_string('{{ _("Charts") }}|{{ ngettext("%(num)s result", "%(num)s results", 2) }}|'
                           '{{ _("Benchmarks") }}').render()
    assert "<i>" not in html and "<b>" not in html
    assert html.startswith("&lt;i&gt;G&lt;/i&gt; &amp; co|&lt;b&gt;2&lt;/b&gt;|")
    assert html.endswith("\u2068Benchmarks\u2069" if code == "ar" else "Benchmarks")
    assert env.from_string('{% autoescape false %}{{ _("Charts") }}{% endautoescape %}').render() == "<i>G</i> & co"


def test_a_catalog_gettext_cannot_read_back_is_a_located_error(tmp_path):
    """Found by hypothesis: a plural msgid on the header entry compiles to a .mo that gettext refuses."""
    path = catalog_path(tmp_path, "nl")
    path.parent.mkdir(parents=True)
    path.write_text('msgid ""\nmsgstr ""\nmsgid_plural "%(n)s results"\nmsgid_plural "%(n)s results"\n')
    _lang, problems = load_language("nl", tmp_path, tmp_path)
    assert [(p.path, p.severity) for p in problems] == [("nl/LC_MESSAGES/messages.po", "error")]
    assert "invalid .po file" in problems[0].message
