"""Claims stage: the public claims about a round, each checked against the round's data at build time.

The registry is `data/rounds/<round>/claims.yaml`, a list of claims. YAML rather than TOML because its
parser keeps a mark (line and column) on every node, so any key or value, however deep in a list of
checks, is reported at its own line; tomllib keeps no positions, and a text search for a key cannot tell
one `[[claims.checks]]` table from the next.

A claim has
- `id`: a slug, unique; the claims page anchors it as `claim-<id>`, articles cite it as `{{< claim ID >}}`;
- `statement`: what was claimed, in the writer's own words, one text per site language;
- `source`: `outlet` (who made or published the claim: a name, or a text per language when it is a
  description) and, where known, `url` and `date` (YYYY-MM-DD);
  a missing url or date is shown as missing, never guessed;
- either `checks`, a list of computations, or `not_checkable`, one text per language saying why the data
  cannot check it;
- optional `interpretation` (per language; required when a check is a bound): how a loose or
  qualitative claim ("near-linear scaling") was turned into a threshold;
- optional `caveat` (per language): why the data cannot pin the claim down even where it agrees;
- optional `context`: a figure shown as "in our data" beside a claim that cannot be checked;
- optional `contradicted_by`: a source other than the results data that says otherwise (a model's technical
  report, the claimant's own page): `outlet`, `url` and `date` as in `source`, and `says`, one text per
  language: what that source states instead;
- optional `scope`: `inference` (the claim is an MLPerf Inference figure) or `outside-round` (it is about
  something other than this round's Training results: several rounds, a product, a full training run); shown
  beside the claim as not being a Training result of the round. Such a claim has no `checks`.
- optional `reviewed`: the verdict the site's texts about the claim were written against. When the data gives
  another (a result newly scored, say), the build warns at this line and names the articles that cite the claim:
  their words may no longer hold. Once they are reviewed in every language, `reviewed` takes the new verdict.

A check is
- `figure`: a figure expression of `site_builder.figures` (`efficiency SMALL_REF LARGE_REF`, `score REF`,
  `organizations benchmark=...`); never free code;
- `asserts`: what the claim says that figure is: an operator (`=`, `<=`, `>=`, `<`, `>`), a number
  and a unit (`minutes`/`min`, `%`, `×`/`x`, `factor`, or nothing for a count), e.g. `"<= 5 %"`;
- `tolerance` (same unit): how far the data may be from the number and still agree; by default half a
  unit of the number's last written digit, the rounding the claim was stated with (2.02 -> 0.005);
- `opposite` (bounds only, same syntax as `asserts`): what the data would have to show for the claim
  to be contradicted rather than overstated.

Verdict rules (also in the README):
1. A claim with `not_checkable` is **not checkable** (unless rule 6 applies); it has no computation, only
   its reason.
2. An exact check (`=`) **confirms** the claim when |computed - number| <= tolerance; otherwise the data
   **contradicts** it.
3. A bound (`<`, `<=`, `>`, `>=`) widened by the tolerance is **consistent** with the data when the
   computed value meets it. When it does not, the claim is **contradicted** if the value meets the
   check's `opposite`, else **overstated** (right direction, larger than the data shows).
4. A claim's verdict is the worst of its checks (confirmed < consistent < overstated < contradicted).
5. A claim with a `caveat` is at most **consistent**: the data agrees but cannot confirm it.
6. A claim with `contradicted_by` is **contradicted**, whatever its checks give or whether the data can check
   it at all; the page names that source and what it says.
7. A check whose figure is computed from a score that its submitter published and that was not recomputed
   from the result logs (`score_method` `published-by-submitter`; the figures that read scores are
   `figures.READS_SCORES`) rests **on the submitter's own figure only**: the claim keeps its verdict, but the
   verdict is shown with that qualifier wherever it appears, and the page names each such row and its source.
   The data derives this; the registry cannot set or clear it.
A check whose figure names a missing row, or whose unit differs from its figure's, fails the build at
the registry's file:line, with the candidates the figures module suggests.
"""

from __future__ import annotations

import datetime as dt
import difflib
import html
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from site_builder import paths, safe_yaml
from site_builder.config import SiteConfig
from site_builder.errors import Collector, Problem, SiteError, display_path
from site_builder.figures import READS_SCORES, FigureContext, FigureError, Quantity, ResultRef, evaluate_expression
from site_builder.i18n import Language
from site_builder.labels import format_value, qualified_verdict_label
from site_builder.render import relative_url

REGISTRY_FILE = "claims.yaml"
VERDICTS = ("confirmed", "consistent", "overstated", "contradicted", "not-checkable")
VERDICT_MARKS = {"confirmed": "✓", "consistent": "≈", "overstated": "↑", "contradicted": "✗", "not-checkable": "?"}
_WORST_FIRST = ("contradicted", "overstated", "consistent", "confirmed")
_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
# ASCII digits, at most 15 before and after the point: float() would make a 5,000-digit number infinite
_ASSERTION = re.compile(r"^\s*(=|<=|>=|<|>|≤|≥)?\s*(-?[0-9]{1,15}(?:\.[0-9]{1,15})?)\s*([^\s0-9].*?)?\s*$")
_OPERATORS = {"≤": "<=", "≥": ">="}
_UNITS = {"": "count", "count": "count", "minutes": "minutes", "min": "minutes", "%": "percent",
          "percent": "percent", "×": "times", "x": "times", "times": "times", "factor": "factor"}

_CLAIM_KEYS = {"id", "statement", "source", "checks", "not_checkable", "interpretation", "caveat", "context",
               "contradicted_by", "scope", "reviewed"}
_SOURCE_KEYS = {"outlet", "url", "date"}
_CONTRADICTION_KEYS = _SOURCE_KEYS | {"says"}
SCOPES = ("inference", "outside-round")
OWN_FIGURE = "published-by-submitter"  # the score_method of a score its submitter published, not recomputed
_CHECK_KEYS = {"figure", "asserts", "tolerance", "opposite"}


def claim_anchor(claim_id: str) -> str:
    return f"claim-{claim_id}"


@dataclass(frozen=True)
class Source:
    outlet: dict[str, str]  # per language: a name is the same in every language, a description is not
    date: dt.date | None = None
    url: str | None = None


@dataclass(frozen=True)
class Contradiction:
    """A source other than the results data that says otherwise, and what it says (per language)."""

    source: Source
    says: dict[str, str]


@dataclass(frozen=True)
class Bound:
    """`<= 5 %` as data: operator, value in the figure's unit (5 % -> 0.05), unit, decimals as written (5 % -> 0)."""

    operator: str
    value: float
    unit: str
    decimals: int


@dataclass(frozen=True)
class Check:
    figure: str
    asserts: Bound
    tolerance: float
    quantity: Quantity
    outcome: str  # confirmed, consistent, overstated or contradicted
    opposite: Bound | None = None

    @property
    def own_figures(self) -> tuple[ResultRef, ...]:
        """Rule 7: the rows whose score, published by their submitter and not recomputed, this check rests on."""
        if self.quantity.metric not in READS_SCORES:
            return ()
        return tuple(ref for ref in self.quantity.refs if ref.row.get("score_method") == OWN_FIGURE)


@dataclass(frozen=True)
class Verdict:
    """One claim with what the data says about it, ready for pages and for inline citation."""

    id: str
    statement: dict[str, str]
    source: Source
    verdict: str  # one of VERDICTS
    checks: tuple[Check, ...]
    interpretation: dict[str, str] | None
    caveat: dict[str, str] | None
    not_checkable: dict[str, str] | None
    context: Quantity | None
    path: str
    line: int
    default_language: str = "en"
    """The language whose text is shown where a text lacks the page's language."""
    contradicted_by: Contradiction | None = None
    scope: str | None = None  # one of SCOPES
    section: str = ""  # the folder of its round's pages, where its round's claims page is

    @property
    def anchor(self) -> str:
        return claim_anchor(self.id)

    @property
    def own_figures(self) -> tuple[ResultRef, ...]:
        """Rule 7: the rows resting on their submitter's own figure, once each, in check order."""
        return tuple(dict.fromkeys(ref for check in self.checks for ref in check.own_figures))

    def text(self, texts: dict[str, str] | None, code: str) -> tuple[str, str] | None:
        """One of the claim's texts (its statement, interpretation, ...) for a page in `code`, with the language
        it is written in: the default language's when the registry has no text in `code`."""
        if not texts:
            return None
        if code in texts:
            return texts[code], code
        return texts[self.default_language], self.default_language


# --- loading: YAML with a line on every mapping key ------------------------------------------------------

class _Map(dict):
    """A YAML mapping that remembers the line of itself and of each key."""

    line: int = 0
    lines: dict

    def line_of(self, key: str) -> int:
        return self.lines.get(key, self.line)


class _Seq(list):
    line: int = 0
    lines: list


_Loader = safe_yaml.loader_class(yaml.SafeLoader)  # bounded as front matter is (site_builder/safe_yaml.py)


def _construct_mapping(loader, node: yaml.MappingNode) -> _Map:
    loader.flatten_mapping(node)
    result = _Map()
    result.line, result.lines = node.start_mark.line + 1, {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        safe_yaml.hashable_key(key, key_node)
        if key in result:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        result[key] = loader.construct_object(value_node, deep=True)
        result.lines[key] = key_node.start_mark.line + 1
    return result


def _construct_sequence(loader, node: yaml.SequenceNode) -> _Seq:
    result = _Seq(loader.construct_object(child, deep=True) for child in node.value)
    result.line, result.lines = node.start_mark.line + 1, [child.start_mark.line + 1 for child in node.value]
    return result


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def _load_yaml(path: Path, shown: str):
    loader = None
    try:
        loader = _Loader(path.read_text(encoding="utf-8-sig"))
        node = safe_yaml.single_node(loader)
        return loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise SiteError(Problem(f"invalid YAML: {getattr(exc, 'problem', None) or exc}", shown,
                                mark.line + 1 if mark else None, mark.column + 1 if mark else None)) from None
    except UnicodeDecodeError as exc:
        raise SiteError(Problem(f"not UTF-8: {exc.reason} at byte {exc.start}", shown)) from None
    finally:
        if loader is not None:
            loader.dispose()


# --- validation -------------------------------------------------------------------------------------------

def parse_bound(text: str) -> Bound | None:
    """`"<= 5 %"` -> Bound("<=", 0.05, "percent", 0); None when the text is not an assertion."""
    match = _ASSERTION.match(str(text))
    if not match or (match.group(3) or "") not in _UNITS:
        return None
    operator = _OPERATORS.get(match.group(1) or "=", match.group(1) or "=")
    number, unit = match.group(2), _UNITS[match.group(3) or ""]
    decimals = len(number.split(".")[1]) if "." in number else 0
    value = float(number) / 100 if unit == "percent" else float(number)
    return Bound(operator, value, unit, decimals)


@dataclass
class _Languages:
    """The site's languages as the registry is read: a language a claim has no text for is shown in the default
    language's text (and counted per claim for the one warning of the file), or is an error with --strict."""

    codes: tuple[str, ...]
    default: str
    strict: bool = False
    missing: set[str] = field(default_factory=set)  # languages the claim being read lacks a text in
    claims_missing: dict[str, int] = field(default_factory=dict)  # language -> claims that lack a text in it

    def claim_done(self) -> None:
        for lang in self.missing:
            self.claims_missing[lang] = self.claims_missing.get(lang, 0) + 1
        self.missing = set()


def _texts(value, key: str, owner: _Map, languages: _Languages, shown: str, problems: Collector) -> dict | None:
    """A text per site language; a missing language falls back to the default language's text (its language is
    marked where it is shown), an error with --strict; an empty text is an error at its line. Returns the texts
    the file has, of the site's languages."""
    line = owner.line_of(key)
    if not isinstance(value, dict):
        problems.error(f"'{key}' must map each language ({', '.join(languages.codes)}) to a text", shown, line)
        return None
    for lang in languages.codes:
        if lang not in value:
            if languages.strict or lang == languages.default or languages.default not in value:
                problems.error(f"'{key}' has no text for language '{lang}'", shown, line)
            else:
                languages.missing.add(lang)
        elif not isinstance(value[lang], str) or not value[lang].strip():
            problems.error(f"'{key}.{lang}' must be a non-empty text", shown, value.line_of(lang))
    for lang, text in value.items():
        if not isinstance(lang, str) or not re.fullmatch(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*", lang):
            problems.error(f"'{key}' has {lang!r}, which is not a language code", shown, value.line_of(lang))
    return {lang: " ".join(str(value[lang]).split()) for lang in languages.codes if isinstance(value.get(lang), str)}


def _unknown_keys(item: _Map, known: set[str], where: str, shown: str, problems: Collector) -> None:
    for key in item:
        if key not in known:
            close = difflib.get_close_matches(str(key), sorted(known), n=1)
            problems.error(f"unknown key '{key}' in {where}", shown, item.line_of(key),
                           hint=f"did you mean '{close[0]}'?" if close else "known keys: " + ", ".join(sorted(known)))


def _default_tolerance(bound: Bound) -> float:
    """Half a unit of the last digit written: 2.02 min -> 0.005, 60 % -> 0.005 (half a percentage point)."""
    return 0.5 * 10 ** -bound.decimals / (100 if bound.unit == "percent" else 1)


@dataclass(frozen=True)
class _CheckSpec:
    figure: str
    asserts: Bound
    tolerance: float
    opposite: Bound | None
    line: int  # of the figure, where a failed lookup is reported


@dataclass(frozen=True)
class _ClaimSpec:
    id: str
    statement: dict
    source: Source
    checks: tuple[_CheckSpec, ...]
    not_checkable: dict | None
    interpretation: dict | None
    caveat: dict | None
    context: tuple[str, int] | None
    line: int
    contradicted_by: Contradiction | None = None
    scope: str | None = None
    reviewed: tuple[str, int] | None = None  # the verdict the texts were written against, and its line


def _check_spec(item, line: int, shown: str, problems: Collector) -> _CheckSpec | None:
    if not isinstance(item, _Map):
        problems.error("a check must be a mapping with 'figure' and 'asserts'", shown, line)
        return None
    _unknown_keys(item, _CHECK_KEYS, "a check", shown, problems)
    count = len(problems.problems)
    for key in ("tolerance", "asserts", "opposite"):  # a bare number is an exact count: `asserts: 13`
        if isinstance(item.get(key), (int, float)) and not isinstance(item[key], bool):
            item[key] = str(item[key])
    for key in ("figure", "asserts"):
        if not isinstance(item.get(key), str) or not item[key].strip():
            problems.error(f"a check needs '{key}' (text)", shown, item.line_of(key))
    if len(problems.problems) > count:
        return None
    asserts = parse_bound(item["asserts"])
    if asserts is None:
        problems.error(f"'asserts' {item['asserts']!r} is not an operator, a number and a unit", shown,
                       item.line_of("asserts"), hint="write for example '= 2.02 minutes', '<= 5 %', '>= 1.6 ×', "
                       "'= 13'; operators: = <= >= < >; units: " + ", ".join(sorted(set(_UNITS) - {""})))
        return None
    tolerance = _default_tolerance(asserts)
    if "tolerance" in item:
        bound = parse_bound(str(item["tolerance"]))
        if bound is None or bound.operator != "=" or bound.value < 0:
            problems.error(f"'tolerance' {item['tolerance']!r} must be a number and a unit, such as '0.005 minutes'",
                           shown, item.line_of("tolerance"))
        elif bound.unit != asserts.unit:
            problems.error(f"'tolerance' is in {bound.unit}, the claim in {asserts.unit}", shown,
                           item.line_of("tolerance"))
        else:
            tolerance = bound.value
    opposite = None
    if "opposite" in item:
        opposite = parse_bound(str(item["opposite"]))
        if asserts.operator == "=":
            problems.error("'opposite' applies to bounds only; an exact claim is contradicted when it misses",
                           shown, item.line_of("opposite"))
        elif opposite is None or opposite.operator == "=":
            problems.error(f"'opposite' {item['opposite']!r} must be a bound such as '<= 25 %'", shown,
                           item.line_of("opposite"))
        elif opposite.unit != asserts.unit:
            problems.error(f"'opposite' is in {opposite.unit}, the claim in {asserts.unit}", shown,
                           item.line_of("opposite"))
    return _CheckSpec(" ".join(item["figure"].split()), asserts, tolerance, opposite, item.line_of("figure"))


def _claim_spec(item, line: int, languages: _Languages, shown: str, problems: Collector) -> _ClaimSpec | None:
    if not isinstance(item, _Map):
        problems.error("a claim must be a mapping with 'id', 'statement', 'source' and 'checks'", shown, line)
        return None
    count = len(problems.problems)
    _unknown_keys(item, _CLAIM_KEYS, "a claim", shown, problems)
    for key in ("id", "statement", "source"):
        if key not in item:
            problems.error(f"claim without '{key}'", shown, item.line)
    claim_id = item.get("id")
    if "id" in item and (not isinstance(claim_id, str) or not _ID.match(claim_id)):
        problems.error(f"claim id {claim_id!r} must be a slug (lower-case letters, digits, single hyphens)",
                       shown, item.line_of("id"))
    statement = _texts(item["statement"], "statement", item, languages, shown, problems) \
        if "statement" in item else None
    source = _source(item.get("source"), item, languages, shown, problems) if "source" in item else None
    optional = {key: _texts(item[key], key, item, languages, shown, problems) if key in item else None
                for key in ("not_checkable", "interpretation", "caveat")}
    checks = []
    if ("checks" in item) == ("not_checkable" in item):
        problems.error("a claim has either 'checks' (how the data checks it) or 'not_checkable' (why it cannot)",
                       shown, item.line)
    elif "checks" in item:
        raw = item["checks"]
        if not isinstance(raw, _Seq) or not raw:
            problems.error("'checks' must be a non-empty list", shown, item.line_of("checks"))
        else:
            checks = [_check_spec(check, check_line, shown, problems) for check, check_line in zip(raw, raw.lines)]
        if any(c and c.asserts.operator != "=" for c in checks) and "interpretation" not in item:
            problems.error("a claim checked against a bound needs an 'interpretation': how its words became "
                           "the threshold", shown, item.line)
    contradicted_by = _contradiction(item["contradicted_by"], item, languages, shown, problems) \
        if "contradicted_by" in item else None
    scope = item.get("scope")
    if "scope" in item and scope not in SCOPES:
        problems.error(f"'scope' {scope!r} is not one of: {', '.join(SCOPES)}", shown, item.line_of("scope"))
    elif "scope" in item and "checks" in item:
        problems.error(f"a claim with scope '{scope}' is not a Training result of the round, so its data cannot "
                       "check it: give 'not_checkable' instead of 'checks'", shown, item.line_of("scope"))
    reviewed = item.get("reviewed")
    if "reviewed" in item and reviewed not in VERDICTS:
        problems.error(f"'reviewed' {reviewed!r} is not a verdict: {', '.join(VERDICTS)}", shown,
                       item.line_of("reviewed"))
    context = None
    if "context" in item:
        if not isinstance(item["context"], str) or not item["context"].strip():
            problems.error("'context' must be a figure expression", shown, item.line_of("context"))
        else:
            context = (" ".join(item["context"].split()), item.line_of("context"))
    if len(problems.problems) > count:
        return None
    return _ClaimSpec(claim_id, statement, source, tuple(checks), optional["not_checkable"],
                      optional["interpretation"], optional["caveat"], context, item.line, contradicted_by, scope,
                      (reviewed, item.line_of("reviewed")) if "reviewed" in item else None)


def _contradiction(value, owner: _Map, languages: _Languages, shown: str,
                   problems: Collector) -> Contradiction | None:
    """`contradicted_by`: a source as in `source`, and what it says instead, per language."""
    count = len(problems.problems)
    source = _source(value, owner, languages, shown, problems, key="contradicted_by", known=_CONTRADICTION_KEYS)
    says = None
    if isinstance(value, _Map):
        if "says" not in value:
            problems.error("'contradicted_by' needs 'says': what that source states, one text per language",
                           shown, value.line)
        else:
            says = _texts(value["says"], "says", value, languages, shown, problems)
    if len(problems.problems) > count or source is None or says is None:
        return None
    return Contradiction(source, says)


def _source(value, owner: _Map, languages: _Languages, shown: str, problems: Collector, key: str = "source",
            known: set[str] = _SOURCE_KEYS) -> Source | None:
    line = owner.line_of(key)
    if not isinstance(value, _Map):
        problems.error(f"'{key}' must be a mapping with 'outlet' and, where known, 'url' and 'date'", shown, line)
        return None
    _unknown_keys(value, known, f"'{key}'", shown, problems)
    count = len(problems.problems)
    outlet = value.get("outlet")
    if isinstance(outlet, dict):  # a description rather than a name ("Dutch tech press") is written per language
        outlet = _texts(outlet, "outlet", value, languages, shown, problems)
    elif isinstance(outlet, str) and outlet.strip():
        outlet = {lang: outlet.strip() for lang in languages.codes}
    else:
        problems.error(f"'{key}' needs 'outlet': who made or published it, as a name or a text per language",
                       shown, value.line_of("outlet"))
    date = value.get("date")
    if date is not None and (not isinstance(date, dt.date) or isinstance(date, dt.datetime)):
        problems.error(f"'{key}.date' must be a date (YYYY-MM-DD)", shown, value.line_of("date"))
    url = value.get("url")
    if url is not None and (not isinstance(url, str) or not re.match(r"^https?://\S+$", url)):
        problems.error(f"'{key}.url' must be an absolute http(s) URL", shown, value.line_of("url"))
    if len(problems.problems) > count:
        return None
    return Source(outlet, date, url)


def _load_registry(path: Path, languages: _Languages, shown: str, problems: Collector) -> list[_ClaimSpec]:
    """The valid claims of the registry; the problems of the others go to `problems`."""
    raw = _load_yaml(path, shown)
    if raw is None:
        return []
    if not isinstance(raw, _Seq):
        raise SiteError(Problem("the claims registry must be a list of claims", shown, getattr(raw, "line", 1)))
    specs, seen = [], {}
    for item, line in zip(raw, raw.lines):
        languages.missing = set()
        spec = _claim_spec(item, line, languages, shown, problems)
        if spec is None:
            continue
        if spec.id in seen:
            problems.error(f"claim id '{spec.id}' is also used on line {seen[spec.id]}", shown,
                           item.line_of("id"))
            continue
        seen[spec.id] = item.line_of("id")
        specs.append(spec)
        languages.claim_done()
    return specs


# --- evaluation -------------------------------------------------------------------------------------------

def _meets(value: float, bound: Bound, tolerance: float) -> bool:
    operator, limit = bound.operator, bound.value
    return {"<=": value <= limit + tolerance, "<": value < limit + tolerance,
            ">=": value >= limit - tolerance, ">": value > limit - tolerance,
            "=": abs(value - limit) <= tolerance}[operator]


def check_outcome(value: float, asserts: Bound, tolerance: float, opposite: Bound | None = None) -> str:
    """Rules 2 and 3 of the module docstring, for one computed value."""
    # A hair of slack for binary floating point: 0.685 stored as 0.68499999... still meets ">= 68.5 %".
    slack = tolerance + 1e-9 * max(1.0, abs(asserts.value))
    if asserts.operator == "=":
        return "confirmed" if _meets(value, asserts, slack) else "contradicted"
    if _meets(value, asserts, slack):
        return "consistent"
    if opposite is not None and _meets(value, opposite, 0.0):
        return "contradicted"
    return "overstated"


def combine(outcomes: list[str], has_caveat: bool = False) -> str:
    """Rules 4 and 5: the worst outcome, capped at consistent when the claim has a caveat."""
    worst = next(v for v in _WORST_FIRST if v in outcomes)
    return "consistent" if has_caveat and worst == "confirmed" else worst


def claim_verdict(outcomes: list[str], has_caveat: bool, not_checkable: bool, contradicted_by: bool) -> str:
    """Rules 1, 4, 5 and 6: a cited contradiction first, then no computation, then the checks."""
    if contradicted_by:
        return "contradicted"
    if not_checkable:
        return "not-checkable"
    return combine(outcomes, has_caveat)


def evaluate_claims(config: SiteConfig, context: FigureContext, strict: bool = False,
                    warnings: list[Problem] | None = None) -> tuple[Verdict, ...]:
    """Load `data/rounds/<round>/claims.yaml` of the context's round and check every claim against the data; a
    round without a registry has no claims. Every problem (bad key, unknown row) is reported at once. A text missing in a
    language is shown in the default language's: one warning for the file, added to `warnings`, counts the
    claims per language; with `strict` each missing text is an error at its line."""
    path = config.data_dir / "rounds" / context.round / REGISTRY_FILE
    if not path.is_file():
        return ()
    shown = display_path(path, config.root)
    problems = Collector()
    verdicts = []
    languages = _Languages(config.languages, config.default_language, strict)
    specs = _load_registry(path, languages, shown, problems)
    if languages.claims_missing and warnings is not None:
        counts = {lang: languages.claims_missing[lang] for lang in config.languages if lang in languages.claims_missing}
        warnings.append(missing_texts_warning(counts, config.default_language, shown))
    for spec in specs:
        checks = []
        for check in spec.checks:
            try:
                quantity = evaluate_expression(check.figure, context)
            except FigureError as error:
                problems.error(f"claim '{spec.id}': {error.message}", shown, check.line, hint=error.hint)
                continue
            if quantity.unit != check.asserts.unit:
                problems.error(f"claim '{spec.id}': '{check.figure}' gives {quantity.unit}, the claim asserts "
                               f"{check.asserts.unit}", shown, check.line)
                continue
            checks.append(Check(check.figure, check.asserts, check.tolerance, quantity,
                                check_outcome(quantity.value, check.asserts, check.tolerance, check.opposite),
                                check.opposite))
        shown_context = None
        if spec.context is not None:
            try:
                shown_context = evaluate_expression(spec.context[0], context)
            except FigureError as error:
                problems.error(f"claim '{spec.id}': {error.message}", shown, spec.context[1], hint=error.hint)
        if len(checks) < len(spec.checks):
            continue
        verdict = claim_verdict([c.outcome for c in checks], spec.caveat is not None,
                                spec.not_checkable is not None, spec.contradicted_by is not None)
        if spec.reviewed is not None and spec.reviewed[0] != verdict and warnings is not None:
            warnings.append(Problem(
                f"claim '{spec.id}' is now {verdict}; its texts were written when it was {spec.reviewed[0]}",
                shown, spec.reviewed[1], severity="warning",
                hint="review what the articles citing it ({{< claim " + spec.id + " >}}) say, in every language, "
                     "then set 'reviewed' to the new verdict"))
        verdicts.append(Verdict(spec.id, spec.statement, spec.source, verdict, tuple(checks), spec.interpretation,
                                spec.caveat, spec.not_checkable, shown_context, shown, spec.line,
                                config.default_language, spec.contradicted_by, spec.scope,
                                context.section(context.round)))
    problems.problems.sort(key=lambda problem: problem.line or 0)  # in file order, as the writer reads them
    problems.raise_if_any()
    return tuple(verdicts)


def missing_texts_warning(claims_missing: dict[str, int], default: str, shown: str) -> Problem:
    """One warning for a registry: how many claims lack a text in each language (the default's is shown)."""
    parts = [f"{count} claim{'s' if count != 1 else ''} {'have' if count != 1 else 'has'} no '{lang}' text"
             for lang, count in claims_missing.items()]
    return Problem(", ".join(parts) + f"; the {default} text is shown", shown,
                   hint="translate them, or build with --strict to list every missing text at its line",
                   severity="warning")


# --- lookup and inline rendering --------------------------------------------------------------------------

def format_bound(bound: Bound, lang: Language) -> str:
    """What a claim asserts, as a reader reads it: "= 2,02 min", "≤ 5 %", "≥ 1,6×"."""
    symbol = {"=": "=", "<=": "≤", ">=": "≥", "<": "<", ">": ">"}[bound.operator]
    return f"{symbol} {format_value(bound.value, bound.unit, bound.decimals, lang)}"


def format_tolerance(check: Check, lang: Language) -> str:
    """The tolerance in the check's unit, with one digit more than the claim was written with."""
    if check.asserts.unit == "count" and check.tolerance < 1:
        return lang.gettext("exact count")
    if check.tolerance == 0:
        return lang.gettext("none")
    digits = check.asserts.decimals + 1
    return "± " + format_value(check.tolerance, check.asserts.unit, digits, lang)


def render_claim_inline(verdict: Verdict, lang: Language, from_path: str) -> str:
    """The claim's verdict as a link to its entry on the claims page, relative to the citing page."""
    href = relative_url(from_path, paths.claims(lang.code, verdict.section)) + "#" + verdict.anchor
    label = qualified_verdict_label(verdict.verdict, bool(verdict.own_figures), lang)
    title = lang.gettext("Claim: %(statement)s — what the data says") % {
        "statement": verdict.text(verdict.statement, lang.code)[0]}
    hidden = html.escape(lang.gettext("Verdict:"))  # for screen readers, which hear the link out of context
    return (f'<a class="claim-verdict verdict-{verdict.verdict}" href="{html.escape(href)}" '
            f'title="{html.escape(title)}"><span class="visually-hidden">{hidden} </span>'
            f'<span aria-hidden="true">{VERDICT_MARKS[verdict.verdict]}</span> {html.escape(label)}</a>')
