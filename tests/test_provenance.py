"""Where each score comes from, said in the reader's language: source labels with a legend, a detail view per
result, stable row anchors (this round's and the previous round's), source precision, unscored counts."""

from __future__ import annotations

import collections
import csv
import html
import io
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from site_builder.build import build_site
from site_builder.data import load_dataset
from site_builder.derive import derive_all, derive_round
from site_builder.errors import Collector, SiteError
from site_builder.hardware import load_hardware
from site_builder.paths import result_anchor
from tests.conftest import HEADER, MINI_V60, ROOT, SHARED_DATA, csv_text, mini_site_files, write_files
HARDWARE = load_hardware(ROOT / "data")

OTHER_LANGUAGES = ("nl", "it", "vi")


class _Text(HTMLParser):
    """What a reader can see or hear: text outside <script>, plus title/aria-label/alt attributes; and every id.
    Text marked lang="en" (the data set's own English notes, declared as such) is left out."""

    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self.ids: list[str] = []
        self._script = 0
        self._english: list[str] = []  # open tags of an element marked lang="en", innermost last

    def handle_starttag(self, tag, attrs):
        self._script += tag == "script"
        if self._english and tag == self._english[0]:
            self._english.append(tag)
        elif ("lang", "en") in attrs and not self._english:
            self._english.append(tag)
            return
        if self._english:
            return
        for name, value in attrs:
            if name in ("title", "aria-label", "alt") and value:
                self.parts.append(value)
            if name == "id":
                self.ids.append(value)

    def handle_endtag(self, tag):
        self._script -= tag == "script"
        if self._english and tag == self._english[-1]:
            self._english.pop()

    def handle_data(self, data):
        if not self._script and not self._english:
            self.parts.append(data)


def _read(path: Path) -> _Text:
    parser = _Text()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def _results(round_name: str) -> list[dict]:
    with (ROOT / "data" / "rounds" / round_name / "results.csv").open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _row(page: str, anchor: str) -> str:
    """The HTML of one results row, found by its anchor."""
    match = re.search(rf'<tr id="{re.escape(anchor)}"[^>]*>(.*?)\n  </tr>', page, flags=re.S)
    assert match, anchor
    return match.group(1)


def _minutes_cell(row_html: str) -> str:
    cells = re.findall(r'<td class="num"(?: id="[^"]*")? data-sort="[^"]*">(.*?)</td>', row_html, flags=re.S)
    return cells[0]  # the minutes come right after the system


# --- Derivation -------------------------------------------------------------------------------------------

SOURCE_HEADER = ("round,division,availability,availability_raw,submitter,submitter_dir,system_name,system_id,"
                 "accelerator_model,accelerators_per_node,number_of_nodes,total_accelerators,host_processor,"
                 "framework,benchmark,score_minutes,number_of_runs,rcp_scaling_factor,score_source,"
                 "metadata_source,notes")


def _source_round(folder: Path, rows: str, runs: str | None = None) -> Path:
    files = {"v9.0/results.csv": SOURCE_HEADER + "\n" + rows}
    if runs is not None:
        files["v9.0/runs_extracted.csv"] = ("round,submitter_dir,system_id,benchmark,result_file,run_start_ms,"
                                            "run_stop_ms,run_minutes,samples_count_at_run_stop,global_batch_size,"
                                            "run_stop_status,notes\n" + runs)
    write_files(folder, files)
    return folder / "v9.0" / "results.csv"


def test_derive_sets_method_precision_runs_and_submitter_dir(tmp_path):
    source = _source_round(tmp_path, csv_text("""
        v9.0,closed,available,Available cloud,Acme Inc,Acme,A,a1,NVIDIA B200,8,1,8,Xeon,PyTorch,llama31_8b,3.092,3,1.0,computed here from the result logs: olympic mean,systems json,
        v9.0,closed,available,Available cloud,Acme Inc,Acme,A,a2,NVIDIA B200,8,1,8,Xeon,PyTorch,llama31_8b,18.35,10,,published by the submitter (blog),systems json,
        v9.0,closed,available,Available cloud,Acme Inc,Acme,A,a3,NVIDIA B200,8,1,8,Xeon,PyTorch,llama31_8b,,10,,not computed,systems json,
        v9.0,closed,available,Available cloud,Acme Inc,Acme,A,a4,NVIDIA B200,8,1,8,Xeon,PyTorch,llama31_8b,7.5,10,1.0,mlperf_logging.result_summarizer 4.1.68 (official tool),systems json,
        """), runs=csv_text("""
        v9.0,Acme,a1,llama31_8b,result_10.txt,1,2,3.1000,1,1,success,
        v9.0,Acme,a1,llama31_8b,result_2.txt,1,,,,1,,no run_stop
        v9.0,Acme,a1,llama31_8b,result_0.txt,1,2,3.0253,1,1,success,
        """))
    rows = {r["system_id"]: r for r in csv.DictReader(io.StringIO(derive_round(source, HARDWARE, Collector())))}
    assert [rows[s]["score_method"] for s in ("a1", "a2", "a3", "a4")] == [
        "computed-from-logs", "published-by-submitter", "not-computed", "official-summarizer"]
    # Published figures keep the decimals their publisher wrote; computed ones have the summarizer's 4.
    assert [rows[s]["score_decimals"] for s in ("a1", "a2", "a3", "a4")] == ["4", "2", "", "4"]
    assert rows["a1"]["score_minutes"] == "3.092"  # the figure itself is kept as written
    # In result-file order (0, 2, 10, not text order), the unfinished run as an empty item.
    assert rows["a1"]["run_minutes"] == "3.0253;;3.1000"
    assert rows["a2"]["run_minutes"] == ""
    assert rows["a1"]["submitter_dir"] == "Acme" and rows["a1"]["submitter"] == "Acme Inc"
    assert "result_id" not in rows["a1"]


def test_derive_carries_result_ids_and_rejects_an_unknown_source_kind(tmp_path):
    header = SOURCE_HEADER + ",result_id"
    write_files(tmp_path, {"v9.0/results.csv": header + "\n" + csv_text("""
        v9.0,closed,available,Available cloud,Acme,Acme,A,a1,NVIDIA B200,8,1,8,Xeon,PyTorch,llama31_8b,3.5,3,1.0,computed here from the result logs,systems json,,9.0-0001
        """)})
    text = derive_round(tmp_path / "v9.0/results.csv", HARDWARE, Collector())
    assert next(csv.DictReader(io.StringIO(text)))["result_id"] == "9.0-0001"

    source = _source_round(tmp_path / "bad", csv_text("""
        v9.0,closed,available,Available cloud,Acme,Acme,A,a1,NVIDIA B200,8,1,8,Xeon,PyTorch,llama31_8b,3.5,3,1.0,guessed by a reader,systems json,
        """))
    problems = Collector()
    derive_round(source, HARDWARE, problems)
    assert [(p.line, p.message) for p in problems.problems] == [(2, "unknown score_source 'guessed by a reader'")]


@pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="../shared/data/mlperf-training is not present")
def test_shipped_rows_carry_the_source_precision_and_runs():
    rows = list(csv.DictReader(io.StringIO(derive_all(SHARED_DATA, ["v6.0"], HARDWARE)["rounds/v6.0/results.csv"])))
    by = {(r["submitter"], r["system_id"], r["benchmark"]): r for r in rows}
    lambda_ = by[("Lambda", "gb300_n18_ngc25.09_nemo", "gpt_oss_20b")]
    assert (lambda_["score_minutes"], lambda_["score_decimals"]) == ("18.35", "2")
    coreweave = by[("CoreWeave", "CoreWeave_GB300_1024x4", "deepseekv3_671b")]
    assert (coreweave["score_minutes"], coreweave["score_decimals"]) == ("3.092", "4")
    assert coreweave["run_minutes"] == "3.0253;2.9762;2.9468"
    # Every computed row has one item per run; nothing else has runs.
    for row in rows:
        runs = row["run_minutes"].split(";") if row["run_minutes"] else []
        assert (len(runs) == int(row["number_of_runs"])) == (row["score_method"] == "computed-from-logs"), row
    assert {r["score_method"] for r in rows if not r["score_minutes"]} == {"not-computed"}


# --- Loading ------------------------------------------------------------------------------------------------

def test_provenance_columns_are_optional_and_checked(tmp_path):
    root = write_files(tmp_path, {k: v for k, v in mini_site_files().items() if k.startswith("data/")})
    dataset = load_dataset(root / "data", ["v6.0", "v5.1"], root)  # the fixture has none of the new columns
    assert set(dataset.results["score_method"]) == {""} and dataset.results["score_decimals"].isna().all()

    header = HEADER + ",score_method,score_decimals,run_minutes,result_id"
    bad = header + "\n" + csv_text("""
        v6.0,closed,available,cloud,Acme,a512,a512,GB300,NVIDIA,GB300,4,128,512,Grace,PyTorch,deepseekv3_671b,20.5,3,1.0,computed,json,,not-computed,4,1;2;3,6.0-0001
        v6.0,closed,available,cloud,Acme,a2048,a2048,GB300,NVIDIA,GB300,4,512,2048,Grace,PyTorch,deepseekv3_671b,6.25,3,1.0,computed,json,,computed-from-logs,4,1.5;x;3,6.0-0002
        v6.0,closed,available,cloud,Beta,b8,b8,MI355X,AMD,MI355X,8,1,8,EPYC,PyTorch,llama31_8b,,10,,none,json,,guessed,,,6.0/3
        """)
    (root / "data/rounds/v6.0/results.csv").write_text(bad)
    with pytest.raises(SiteError) as error:
        load_dataset(root / "data", ["v6.0", "v5.1"], root)
    found = [(p.line, p.message) for p in error.value.problems]

    def reported(line: int, start: str) -> bool:
        return any(at == line and message.startswith(start) for at, message in found)

    assert reported(2, "column 'score_method' is 'not-computed' but the row has a score")
    assert reported(3, "column 'run_minutes' has '1.5;x;3'")
    assert reported(4, "column 'score_method' has 'guessed'")
    assert reported(4, "column 'result_id' has '6.0/3'")
    assert not reported(2, "column 'run_minutes'") and not reported(3, "column 'score_method'")


# --- The built site -----------------------------------------------------------------------------------------

def test_no_english_source_text_reaches_other_languages(shipped_site: Path):
    sources = {r["score_source"] for rnd in ("v6.0", "v5.1") for r in _results(rnd)}
    english = sources | {"official result summarizer", "computed from the result logs", "submitter's summary.json",
                         "published by the submitter", "not computed", "not stated", "Where the scores come from"}
    fragments = {text[:40] for text in english}  # also catches a shortened or wrapped copy
    checked = 0
    for lang in OTHER_LANGUAGES:
        for page in sorted((shipped_site / lang / "benchmarks").glob("*/index.html")) + [shipped_site / lang / "index.html"]:
            text = " ".join(html.unescape(part) for part in _read(page).parts)
            leaked = [fragment for fragment in fragments if fragment in text]
            assert leaked == [], (page, leaked)
            checked += 1
    assert checked == 3 * 8
    # English pages do show the labels and, in the detail view, the full recorded source.
    en = (shipped_site / "en/benchmarks/llama31-8b/index.html").read_text()
    assert "computed from the result logs</td>" in en and "Where the scores come from:" in en
    assert "published by the submitter (Lambda blog \"MLPerf Training v6.0" in html.unescape(en)


def test_legend_explains_each_label_of_the_table_once(shipped_site: Path):
    page = (shipped_site / "nl/benchmarks/llama31-8b/index.html").read_text()
    legend = page.split('<dl class="source-legend">')[1].split("</dl>")[0]
    labels = re.findall(r"<dt>(.*?)</dt>", legend)
    table = page.split('<table class="sortable data-table results" id="table-results">')[1].split("</table>")[0]
    shown = set(re.findall(r'<td class="col-more cell-wrap">([^<]*)</td>', table))
    assert set(labels) == shown and len(labels) == len(shown) == 4
    assert "berekend uit de logbestanden" in labels and "gepubliceerd door de indiener" in labels


def test_every_row_has_its_anchor_and_the_previous_round_is_there(shipped_site: Path):
    for lang in ("en", "vi"):
        page_path = shipped_site / lang / "benchmarks/llama31-8b/index.html"
        page = page_path.read_text()
        ids = _read(page_path).ids
        assert len(ids) == len(set(ids))
        for round_name, count in (("v6.0", 66), ("v5.1", 39)):
            rows = [r for r in _results(round_name) if r["benchmark"] == "llama31_8b"]
            assert len(rows) == count
            for row in rows:
                assert f'<tr id="{result_anchor(round_name, row["submitter"], row["system_id"])}"' in page
        # The earlier round's table is collapsed, and not part of this round's table.
        previous = page.split('<details class="previous-results">')[1]
        assert previous.count('<tr id="r-v5-1-') == 39 and '<tr id="r-v6-0-' not in previous
    # A benchmark new in this round has no earlier table.
    assert "previous-results" not in (shipped_site / "en/benchmarks/deepseekv3-671b/index.html").read_text()


def test_home_fastest_table_links_to_rows_and_counts_unscored(shipped_site: Path):
    home = (shipped_site / "en/index.html").read_text()
    links = re.findall(r'href="(benchmarks/[^"#]+)#([^"]+)"', home.split('<section aria-labelledby="fastest">')[1])
    assert len(links) == 7
    for target, anchor in links:
        assert f'<tr id="{anchor}"' in (shipped_site / "en" / target).read_text(), (target, anchor)
    current = _results("v6.0")
    unscored = sum(1 for r in current if not r["score_minutes"])
    assert f"{unscored} of these {len(current)} results have no score in our data." in home
    assert "not a random sample" in home
    llama = [r for r in current if r["benchmark"] == "llama31_8b"]
    assert f'{sum(not r["score_minutes"] for r in llama)} of {len(llama)}</td>' in home
    nl = (shipped_site / "nl/index.html").read_text()
    assert f"{unscored} van deze {len(current)} resultaten hebben geen score in onze gegevens." in nl
    assert "geen willekeurige steekproef" in nl


def test_scores_keep_their_source_precision(shipped_site: Path):
    anchor = result_anchor("v6.0", "Lambda", "gb300_n18_ngc25.09_nemo")
    for lang, published in (("en", "18.35"), ("nl", "18,35"), ("vi", "18,35")):
        page = (shipped_site / lang / "benchmarks/gpt-oss-20b/index.html").read_text()
        row = _row(page, anchor)
        assert _minutes_cell(row) == published
        assert "18.3500" not in page and "18,3500" not in page
    page = (shipped_site / "en/benchmarks/deepseekv3-671b/index.html").read_text()
    assert _minutes_cell(_row(page, result_anchor("v6.0", "CoreWeave", "CoreWeave_GB300_1024x4"))) == "3.0920"
    assert 'class="note precision-note"' not in page  # every score of the table has 4 decimals


def test_a_minutes_column_shows_one_precision_and_the_detail_view_the_recorded_one(shipped_site: Path):
    """A computed 4-decimal score beside a published 2-decimal one is shown to 2 decimals in the table (rounded,
    never padded), whole in its detail view and its sort key, and the table says so."""
    rows = [r for r in _results("v6.0") if r["benchmark"] == "gpt_oss_20b" and r["score_minutes"]]
    computed = next(r for r in rows if r["score_decimals"] == "4")
    anchor = result_anchor("v6.0", computed["submitter"], computed["system_id"])
    score = float(computed["score_minutes"])
    for lang, note in (("en", "Minutes are shown to 2 decimals"), ("nl", "Minuten staan in 2 decimalen")):
        page = (shipped_site / lang / "benchmarks/gpt-oss-20b/index.html").read_text()
        row = _row(page, anchor)
        shown = _minutes_cell(row)
        assert re.fullmatch(r"\d+[.,]\d\d", shown) and float(shown.replace(",", ".")) == round(score, 2), shown
        assert f'data-sort="{computed["score_minutes"]}"' in row or f'data-sort="{score}"' in row
        assert f'{score:.4f}'.replace(".", "," if lang == "nl" else ".") in row.split("<dl>")[1]  # the detail
        assert note in page


def test_detail_view_has_system_runs_rcp_notes_and_folder_in_the_page_language(shipped_site: Path):
    page = (shipped_site / "nl/benchmarks/deepseekv3-671b/index.html").read_text()
    row = _row(page, result_anchor("v6.0", "CoreWeave", "CoreWeave_GB300_1024x4"))
    detail = row.split('<details class="result-detail">')[1].split("</details>")[0]
    assert "<summary>CoreWeave_<wbr>GB300_<wbr>1024x4" in detail  # its name (its id: the data has no other)
    assert "<dt>Systeem-ID</dt> <dd><code>CoreWeave_GB300_1024x4</code></dd>" in detail
    for label in ("Systeemnaam", "Schaal", "Acceleratormodel", "Hostprocessor", "Beschikbaarheid", "Runs",
                  "RCP-factor", "Opmerkingen (uit de dataset, in het Engels)"):
        assert f"<dt>{label}</dt>" in detail, label
    assert "1.024 nodes × 4 accelerators = 4.096" in detail
    assert re.findall(r"<li>(.*?)</li>", detail) == ["3,0253 min", "2,9762 min", "2,9468 min"]
    assert "1,038889" in detail and "beschikbaar, cloud" in detail and '<dd lang="en">' in detail
    assert ('href="https://github.com/mlcommons/training_results_v6.0/tree/main/CoreWeave/results/'
            'CoreWeave_GB300_1024x4/deepseekv3_671b"') in detail
    # A run without run_stop is shown as not finished, in the page's language.
    page = (shipped_site / "it/benchmarks/llama31-8b/index.html").read_text()
    detail = _row(page, result_anchor("v6.0", "MiTAC", "MI325X_1node"))
    runs = re.findall(r"<li>(.*?)</li>", detail)
    assert len(runs) == 10 and "non completata" in runs[-1]


MINI_WITH_IDS = (HEADER + ",result_id,submitter_dir,score_method,score_decimals" + "\n" + "\n".join(
    line.strip() + suffix for line, suffix in zip(csv_text(MINI_V60).splitlines()[1:], (
        ",6.0-0101,Acme,computed-from-logs,4", ",6.0-0102,Acme,computed-from-logs,4",
        ",6.0-0103,Beta,computed-from-logs,4", ",,Beta,not-computed,")))) + "\n"


@pytest.mark.slow
def test_mlcommons_result_ids_are_shown_when_the_data_has_them(tmp_path):
    files = mini_site_files()
    files["data/rounds/v6.0/results.csv"] = MINI_WITH_IDS
    root = write_files(tmp_path / "site", files)
    build_site(root, tmp_path / "out")
    page = (tmp_path / "out/en/benchmarks/deepseekv3-671b/index.html").read_text()
    assert "<th scope=\"col\" class=\"col-more\">Result ID</th>" in page
    row = _row(page, result_anchor("v6.0", "Acme", "a2048"))
    assert '<td class="col-more">6.0-0102</td>' in row and "<dt>MLCommons result ID</dt> <dd>6.0-0102</dd>" in row
    # Without the column, no empty column is added.
    build_site(write_files(tmp_path / "plain", mini_site_files()), tmp_path / "plain-out")
    plain = (tmp_path / "plain-out/en/benchmarks/deepseekv3-671b/index.html").read_text()
    assert "Result ID" not in plain
    # A file without `score_method` is labelled from its score_source, like a derived file.
    assert _row(plain, result_anchor("v6.0", "Acme", "a2048")).rstrip().endswith(
        '<td class="col-more cell-wrap">computed from the result logs</td>')


def test_variants_of_one_system_are_told_apart_by_their_ids(shipped_site: Path):
    """Rows of one table with the same name, submitter and scale (a system's variants) show their id after the
    name: nothing else on the row tells them apart."""
    def alike(r):
        return r["benchmark"], r["system_name"] or r["system_id"], r["submitter"], r["total_accelerators"], \
            r["number_of_nodes"]

    rows = _results("v6.0")
    counts = collections.Counter(map(alike, rows))
    variants = [r for r in rows if counts[alike(r)] > 1]
    assert variants
    for row in variants:
        name = alike(row)[1]
        page = (shipped_site / "en/benchmarks" / row["benchmark"].replace("_", "-") / "index.html").read_text()
        summary = _row(page, result_anchor("v6.0", row["submitter"], row["system_id"])).split("<summary>")[1]
        assert summary.replace("<wbr>", "").startswith(f"{name} ({row['system_id']})"), summary
