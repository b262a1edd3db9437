"""Generate the synthetic benchmark site: the same articles for site-builder, Hugo and Pelican.

    python benchmarks/synthetic.py OUT [--articles N | --small] [--languages en,nl,it] [--seed 6]

OUT/ours     a site-builder project: the shipped site.toml (restricted to the chosen languages) and data/
             (templates/ and locales/ when the project has its own), plus N articles per language in content/<lang>/
OUT/hugo     the same articles for Hugo: hugo.toml with [languages.<code>] contentDir, translationKey in
             the front matter, three layouts (baseof, single, list)
OUT/pelican  the same articles for Pelican: pelicanconf.py, content/<lang>/ with Pelican's `Lang` and a
             shared `Slug`, so translations are linked as Pelican does it

Articles are about 6.6 KB of Markdown made from filler sentences written for this script (headings, lists,
a table, footnotes, links) and a few `{{< fig ... >}}` shortcodes built from the shipped data, so the
figure path of a real build is exercised. The peers get the shortcodes as plain text. The output depends
only on the arguments and the data (seeded), so two runs give the same files.
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ARTICLES, SMALL_ARTICLES = 1000, 100
TARGET_BYTES = 6600  # size of one article file, front matter included
SHORTCODE = re.compile(r"\\?\{\{<\s*(.*?)\s*>\}\}")

# Original filler, per language: sentences are assembled from these parts, so no two paragraphs read alike.
WORDS = {
    "en": {
        "subjects": ["The training cluster", "Every submitter", "A careful reader", "The reference model",
                     "Our editorial desk", "The scaling curve", "A smaller system", "The new round",
                     "Each benchmark", "The interconnect", "The software stack", "A cloud provider",
                     "The loss curve", "The data pipeline", "A single node"],
        "verbs": ["reaches", "compares", "explains", "follows", "measures", "questions", "improves",
                  "repeats", "reports", "summarizes", "outlines", "revisits", "tracks", "separates"],
        "objects": ["the quality target", "the time to train", "the wall-clock budget", "the convergence point",
                    "its earlier attempt", "the published logs", "the batch size", "the optimizer settings",
                    "the result table", "the shared rules", "the network topology", "a noisy measurement",
                    "the olympic mean", "the accuracy threshold", "the run-to-run spread"],
        "tails": ["without any shortcut", "within the agreed rules", "on a busy afternoon", "after a long warm-up",
                  "with fewer nodes than before", "in every repeated run", "under the closed division",
                  "despite a slow start", "once the cache is warm", "for the first time this year",
                  "as the footnote explains", "at a larger scale", "with modest hardware"],
        "openers": ["In short,", "Put differently,", "Even so,", "For now,", "On balance,", "As a rule,",
                    "In practice,", "At first sight,"],
        "headings": ["What was measured", "How the runs compare", "Reading the table", "Scale and cost",
                     "Where time goes", "A closer look", "What changed", "Open questions", "Method notes",
                     "The short version"],
        "title": "Field notes on training run {n}",
        "slug": "field-notes",
        "summary": "A synthetic article about training runs, used to time a full build of the site.",
        "fig": ["The fastest scored result in {bench} took {{{{< fig score {bench}/fastest >}}}} minutes.",
                "It used {{{{< fig accelerators {bench}/fastest >}}}} accelerators.",
                "This round counts {{{{< fig organizations >}}}} organizations.",
                ("Against the previous round it is {{{{< fig speedup v{prev}:{both}/fastest {both}/fastest "
                 "decimals=2 >}}}} as fast.")],
        "table": ["Setting", "Value", "Remark"],
        "link": "the rules", "tag": "notes",
    },
    "nl": {
        "subjects": ["Het trainingscluster", "Elke inzender", "Een oplettende lezer", "Het referentiemodel",
                     "Onze redactie", "De schaalcurve", "Een kleiner systeem", "De nieuwe ronde",
                     "Elke benchmark", "Het netwerk", "De software", "Een cloudaanbieder", "De verliescurve",
                     "De datastroom", "Een enkele node"],
        "verbs": ["haalt", "vergelijkt", "verklaart", "volgt", "meet", "betwijfelt", "verbetert", "herhaalt",
                  "rapporteert", "vat samen", "schetst", "bekijkt opnieuw", "volgt op de voet", "scheidt"],
        "objects": ["het kwaliteitsdoel", "de trainingstijd", "het tijdsbudget", "het convergentiepunt",
                    "de vorige poging", "de gepubliceerde logs", "de batchgrootte", "de optimizer",
                    "de resultatentabel", "de gedeelde regels", "de netwerktopologie", "een ruizige meting",
                    "het olympisch gemiddelde", "de nauwkeurigheidsdrempel", "de spreiding tussen runs"],
        "tails": ["zonder enige kortere weg", "binnen de afgesproken regels", "op een drukke middag",
                  "na een lange opwarming", "met minder nodes dan eerst", "in elke herhaalde run",
                  "in de gesloten divisie", "ondanks een trage start", "zodra de cache warm is",
                  "voor het eerst dit jaar", "zoals de voetnoot uitlegt", "op grotere schaal",
                  "met bescheiden hardware"],
        "openers": ["Kortom,", "Anders gezegd,", "Toch,", "Voorlopig,", "Alles bij elkaar,", "Als regel,",
                    "In de praktijk,", "Op het eerste gezicht,"],
        "headings": ["Wat er gemeten is", "Hoe de runs zich verhouden", "De tabel lezen", "Schaal en kosten",
                     "Waar de tijd heen gaat", "Van dichterbij", "Wat er veranderde", "Open vragen",
                     "Over de methode", "De korte versie"],
        "title": "Veldnotities over trainingsrun {n}",
        "slug": "veldnotities",
        "summary": "Een synthetisch artikel over trainingsruns, om een volledige build van de site te timen.",
        "fig": ["Het snelste gescoorde resultaat voor {bench} duurde {{{{< fig score {bench}/fastest >}}}} minuten.",
                "Daarvoor waren {{{{< fig accelerators {bench}/fastest >}}}} accelerators nodig.",
                "Deze ronde telt {{{{< fig organizations >}}}} organisaties.",
                ("Tegenover de vorige ronde is het {{{{< fig speedup v{prev}:{both}/fastest {both}/fastest "
                 "decimals=2 >}}}} zo snel.")],
        "table": ["Instelling", "Waarde", "Opmerking"],
        "link": "de regels", "tag": "notities",
    },
    "it": {
        "subjects": ["Il cluster di addestramento", "Ogni partecipante", "Un lettore attento", "Il modello di riferimento",
                     "La nostra redazione", "La curva di scala", "Un sistema più piccolo", "Il nuovo round",
                     "Ogni benchmark", "La rete di interconnessione", "Lo stack software", "Un fornitore cloud",
                     "La curva della loss", "La pipeline dei dati", "Un singolo nodo"],
        "verbs": ["raggiunge", "confronta", "spiega", "segue", "misura", "mette in dubbio", "migliora", "ripete",
                  "riporta", "riassume", "delinea", "riesamina", "tiene d'occhio", "separa"],
        "objects": ["l'obiettivo di qualità", "il tempo di addestramento", "il budget di tempo",
                    "il punto di convergenza", "il tentativo precedente", "i log pubblicati", "la dimensione del batch",
                    "l'ottimizzatore", "la tabella dei risultati", "le regole comuni", "la topologia di rete",
                    "una misura rumorosa", "la media olimpica", "la soglia di accuratezza",
                    "la variabilità tra le esecuzioni"],
        "tails": ["senza scorciatoie", "dentro le regole concordate", "in un pomeriggio affollato",
                  "dopo un lungo riscaldamento", "con meno nodi di prima", "in ogni esecuzione ripetuta",
                  "nella divisione chiusa", "nonostante una partenza lenta", "quando la cache è calda",
                  "per la prima volta quest'anno", "come spiega la nota", "su scala più grande",
                  "con hardware modesto"],
        "openers": ["In breve,", "Detto altrimenti,", "Eppure,", "Per ora,", "Tutto sommato,", "Di regola,",
                    "In pratica,", "A prima vista,"],
        "headings": ["Che cosa è stato misurato", "Come si confrontano le esecuzioni", "Leggere la tabella",
                     "Scala e costi", "Dove va il tempo", "Uno sguardo più da vicino", "Che cosa è cambiato",
                     "Domande aperte", "Note di metodo", "La versione breve"],
        "title": "Appunti sull'esecuzione di addestramento {n}",
        "slug": "appunti",
        "summary": "Un articolo sintetico sulle esecuzioni di addestramento, per cronometrare una build completa.",
        "fig": ["Il risultato più veloce per {bench} ha richiesto {{{{< fig score {bench}/fastest >}}}} minuti.",
                "Ha usato {{{{< fig accelerators {bench}/fastest >}}}} acceleratori.",
                "Questo round conta {{{{< fig organizations >}}}} organizzazioni.",
                ("Rispetto al round precedente è {{{{< fig speedup v{prev}:{both}/fastest {both}/fastest "
                 "decimals=2 >}}}} più veloce.")],
        "table": ["Impostazione", "Valore", "Nota"],
        "link": "le regole", "tag": "appunti",
    },
}
FALLBACK = "en"  # a language without filler of its own gets the English parts


def scored_benchmarks(data_dir: Path, round_name: str) -> list[str]:
    """Benchmarks with at least one scored result in a round, so `fig ... BENCH/fastest` resolves."""
    path = data_dir / "rounds" / round_name / "results.csv"
    if not path.is_file():
        return []
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return sorted({row["benchmark"] for row in csv.DictReader(handle) if row.get("score_minutes", "").strip()})


def figure_sentences(words: dict, rng: random.Random, round_name: str, previous: str | None,
                     current: list[str], both: list[str]) -> list[str]:
    """Two or three sentences with valid figure shortcodes for this article."""
    templates = words["fig"][:3] + (words["fig"][3:] if previous and both else [])
    bench = rng.choice(current)
    picked = rng.sample(templates, k=min(len(templates), rng.choice([2, 3])))
    return [t.format(bench=bench, both=rng.choice(both) if both else bench,
                     prev=(previous or "").lstrip("v")) for t in picked]


def sentence(words: dict, rng: random.Random) -> str:
    text = f"{rng.choice(words['subjects'])} {rng.choice(words['verbs'])} {rng.choice(words['objects'])} " \
           f"{rng.choice(words['tails'])}."
    if rng.random() < 0.3:
        opener = rng.choice(words["openers"])
        text = f"{opener} {text[0].lower()}{text[1:]}"
    return text


def paragraph(words: dict, rng: random.Random, extra: list[str] = ()) -> str:
    parts = [sentence(words, rng) for _ in range(rng.randint(3, 6))]
    for item in extra:
        parts.insert(rng.randint(0, len(parts)), item)
    return " ".join(parts)


def article_body(words: dict, rng: random.Random, number: int, figures: list[str], target: int) -> str:
    """Sections of paragraphs, one bullet and one numbered list, a table, links and two footnotes, until the
    body holds about `target` bytes. Figures are spread over the first paragraphs."""
    blocks = [paragraph(words, rng, figures[:1]) + "[^1]"]
    figures = figures[1:]
    headings = rng.sample(words["headings"], k=len(words["headings"]))
    section = 0
    while sum(len(b.encode()) + 2 for b in blocks) < target - 650:
        blocks.append(f"## {headings[section % len(headings)]}")
        if section == 0:
            blocks.append("\n".join(f"- {sentence(words, rng)}" for _ in range(4)))
        elif section == 1:
            head = words["table"]
            rows = [f"| {rng.choice(words['objects'])} | {rng.randint(2, 512)} | {rng.choice(words['tails'])} |"
                    for _ in range(5)]
            blocks.append("\n".join([f"| {' | '.join(head)} |", "|---|--:|---|", *rows]))
        elif section == 2:
            blocks.append("\n".join(f"{i}. {sentence(words, rng)}" for i in range(1, 4)))
        elif section == 3:
            blocks.append(f"### {rng.choice(words['headings'])}")
        extra = [figures.pop(0)] if figures else []
        if section == 2:
            extra.append(f"[{words['link']}](https://example.org/rules/{number % 7}) "
                         f"{rng.choice(words['verbs'])} *{rng.choice(words['objects'])}*.")
        blocks.append(paragraph(words, rng, extra))
        section += 1
    blocks.append(paragraph(words, rng) + "[^2]")
    blocks.append(f"[^1]: {sentence(words, rng)}\n[^2]: {sentence(words, rng)} <https://example.org/notes/{number}>")
    return "\n\n".join(blocks) + "\n"


def plain_shortcodes(text: str) -> str:
    """Peers know no figure shortcodes: `{{< fig score x/fastest >}}` becomes the words `fig score x/fastest`."""
    return SHORTCODE.sub(lambda m: m.group(1), text)


def quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def toml_dump(table: dict) -> str:
    """A TOML writer for site.toml's value types (strings, numbers, booleans, lists, one level of tables)."""
    def value(item) -> str:
        if isinstance(item, bool):
            return "true" if item else "false"
        if isinstance(item, (int, float)):
            return repr(item)
        if isinstance(item, list):
            return "[" + ", ".join(value(x) for x in item) + "]"
        return quoted(str(item))

    lines = [f"{key} = {value(item)}" for key, item in table.items() if not isinstance(item, dict)]
    for key, item in table.items():
        if isinstance(item, dict):
            lines += ["", f"[{key}]", *(f"{quoted(k) if not re.fullmatch(r'[A-Za-z0-9_-]+', k) else k} = {value(v)}"
                                          for k, v in item.items())]
    return "\n".join(lines) + "\n"


HUGO_LAYOUTS = {
    "baseof.html": """<!doctype html>
<html lang="{{ .Site.Language.Lang }}">
<head><meta charset="utf-8"><title>{{ .Title }} | {{ .Site.Title }}</title>
{{ range .AllTranslations }}<link rel="alternate" hreflang="{{ .Language.Lang }}" href="{{ .RelPermalink }}">{{ end }}
</head>
<body><header><a href="{{ .Site.Home.RelPermalink }}">{{ .Site.Title }}</a></header>
<main>{{ block "main" . }}{{ end }}</main></body>
</html>
""",
    "single.html": """{{ define "main" }}<article><h1>{{ .Title }}</h1>
<p><time datetime="{{ .Date.Format "2006-01-02" }}">{{ .Date.Format "2006-01-02" }}</time></p>
{{ with .Translations }}<ul class="translations">{{ range . }}<li><a href="{{ .RelPermalink }}">{{ .Language.Lang }}</a></li>{{ end }}</ul>{{ end }}
{{ .Content }}</article>{{ end }}
""",
    "list.html": """{{ define "main" }}<h1>{{ .Title }}</h1>
<ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a> {{ .Summary }}</li>{{ end }}</ul>{{ end }}
""",
}

PELICAN_CONF = """# Pelican settings for the synthetic benchmark site (the default theme, no plugins).
AUTHOR = "Synthetic desk"
SITENAME = "Synthetic benchmark site"
SITEURL = ""
PATH = "content"
TIMEZONE = "UTC"
DEFAULT_LANG = {default!r}
DEFAULT_PAGINATION = 10
RELATIVE_URLS = True
LOAD_CONTENT_CACHE = False
CACHE_CONTENT = False
FEED_ALL_ATOM = None
CATEGORY_FEED_ATOM = None
TRANSLATION_FEED_ATOM = None
AUTHOR_FEED_ATOM = None
AUTHOR_FEED_RSS = None
"""


def generate(out: Path, articles: int, languages: list[str], seed: int = 6, source: Path = ROOT) -> dict:
    """Write the three sites under `out` (replacing them); returns counts for the caller."""
    config = tomllib.loads((source / "site.toml").read_text(encoding="utf-8"))
    unknown = [code for code in languages if code not in config["languages"]]
    if unknown:
        raise SystemExit(f"error: languages {unknown} are not in {source / 'site.toml'}")
    data_dir = source / config.get("data_dir", "data")
    round_name, previous = config["round"], config.get("previous_round")
    current = scored_benchmarks(data_dir, round_name)
    if not current:
        raise SystemExit(f"error: {data_dir}: no scored results in round {round_name} to cite")
    both = [b for b in current if previous and b in scored_benchmarks(data_dir, previous)]

    ours, hugo, pelican = out / "ours", out / "hugo", out / "pelican"
    for site in (ours, hugo, pelican):
        shutil.rmtree(site, ignore_errors=True)
    for key in ("data_dir", "templates_dir", "locales_dir"):
        name = config.get(key, key.removesuffix("_dir"))
        if (source / name).is_dir():  # the project's own; the packaged theme serves the rest
            shutil.copytree(source / name, ours / name)
    config["languages"] = languages
    config["default_language"] = config["default_language"] if config["default_language"] in languages \
        else languages[0]
    config["title"] = {code: text for code, text in config["title"].items() if code in languages}
    config["content_dir"] = "content"
    (ours / "site.toml").write_text(toml_dump(config), encoding="utf-8")

    hugo_languages = "\n".join(f'[languages.{code}]\ncontentDir = "content/{code}"\nweight = {i + 1}\n'
                               f"title = {quoted(config['title'][code])}\n" for i, code in enumerate(languages))
    hugo.mkdir(parents=True)
    (hugo / "hugo.toml").write_text(
        f'baseURL = "https://example.org/"\ndefaultContentLanguage = "{config["default_language"]}"\n'
        'defaultContentLanguageInSubdir = true\nrelativeURLs = true\n\n' + hugo_languages, encoding="utf-8")
    for name, text in HUGO_LAYOUTS.items():
        (hugo / "layouts" / "_default").mkdir(parents=True, exist_ok=True)
        (hugo / "layouts" / "_default" / name).write_text(text, encoding="utf-8")
    pelican.mkdir(parents=True)
    (pelican / "pelicanconf.py").write_text(PELICAN_CONF.format(default=config["default_language"]),
                                            encoding="utf-8")

    total = 0
    for code in languages:
        words = WORDS.get(code, WORDS[FALLBACK])
        for site in (ours, hugo, pelican):
            (site / "content" / code).mkdir(parents=True)
        for number in range(1, articles + 1):
            rng = random.Random(f"{seed}:{code}:{number}")
            key = f"synthetic-{number:04d}"
            slug = f"{words['slug']}-{number:04d}"
            title = words["title"].format(n=number)
            date = f"2026-{(number % 6) + 1:02d}-{(number % 28) + 1:02d}"
            tags = [words["tag"], f"set-{number % 12}"]
            head = (f"---\ntitle: {quoted(title)}\ndate: {date}\nsummary: {quoted(words['summary'])}\n"
                    f'authors: ["Synthetic desk"]\ntags: [{", ".join(quoted(t) for t in tags)}]\nkey: {key}\n---\n\n')
            figures = figure_sentences(words, rng, round_name, previous, current, both)
            body = article_body(words, rng, number, figures, TARGET_BYTES - len(head.encode()))
            (ours / "content" / code / f"{slug}.md").write_text(head + body, encoding="utf-8")
            plain = plain_shortcodes(body)
            (hugo / "content" / code / f"{slug}.md").write_text(
                f"---\ntitle: {quoted(title)}\ndate: {date}\nsummary: {quoted(words['summary'])}\n"
                f"tags: [{', '.join(quoted(t) for t in tags)}]\ntranslationKey: {key}\n---\n\n{plain}",
                encoding="utf-8")
            (pelican / "content" / code / f"{slug}.md").write_text(
                f"Title: {title}\nDate: {date}\nSummary: {words['summary']}\nAuthors: Synthetic desk\n"
                f"Tags: {', '.join(tags)}\nLang: {code}\nSlug: {key}\n\n{plain}", encoding="utf-8")
            total += 1
    return {"articles": total, "languages": languages, "ours": ours, "hugo": hugo, "pelican": pelican}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write ours/, hugo/ and pelican/ into")
    parser.add_argument("--articles", type=int, default=DEFAULT_ARTICLES, help="articles per language")
    parser.add_argument("--small", action="store_true", help=f"{SMALL_ARTICLES} articles per language")
    parser.add_argument("--languages", default="en,nl,it", help="comma-separated codes from site.toml")
    parser.add_argument("--seed", type=int, default=6)
    args = parser.parse_args(argv)
    count = SMALL_ARTICLES if args.small else args.articles
    if count < 1:
        parser.error("--articles must be at least 1")
    made = generate(args.out, count, [c.strip() for c in args.languages.split(",") if c.strip()], args.seed)
    print(f"wrote {made['articles']} articles ({count} x {', '.join(made['languages'])}) to "
          f"{made['ours']}, {made['hugo']} and {made['pelican']}", file=sys.stderr)


if __name__ == "__main__":
    main()
