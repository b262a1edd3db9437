import math

import pytest

from site_builder.data import load_dataset
from site_builder.errors import SiteError
from tests.conftest import HEADER, MINI_BENCHMARKS, MINI_V51, MINI_V60, ROOT, csv_text, write_files


def _site(tmp_path, v60=MINI_V60, benchmarks=MINI_BENCHMARKS):
    return write_files(tmp_path, {"data/benchmarks.csv": csv_text(benchmarks),
                                  "data/rounds/v6.0/results.csv": csv_text(v60),
                                  "data/rounds/v5.1/results.csv": csv_text(MINI_V51)})


def _load(root):
    return load_dataset(root / "data", ["v6.0", "v5.1"], root)


def test_valid_data_loads_with_types_and_keeps_missing_scores(tmp_path):
    dataset = _load(_site(tmp_path))
    current = dataset.round("v6.0")
    assert len(current) == 4
    assert current["total_accelerators"].tolist() == [512, 2048, 8, 16]
    missing = current[current["system_id"] == "b16"].iloc[0]
    assert math.isnan(missing["score_minutes"])  # kept, not dropped, not guessed
    assert missing["score_source"].startswith("not computed")
    assert dataset.benchmark("deepseekv3_671b")["active_parameters_b"] == 37


def test_every_problem_is_reported_with_file_line_and_column(tmp_path):
    rows = csv_text(MINI_V60).splitlines()
    rows[1] = rows[1].replace(",20.5,", ",-3,")                   # negative score, line 2
    rows[2] = rows[2].replace(",6.25,", ",inf,")                  # non-finite, line 3
    rows[3] = rows[3].replace(",llama31_8b,", ",resnet,")         # unknown benchmark, line 4
    rows[4] = rows[4].replace(",8,2,16,", ",8,two,16,")           # wrong type, line 5
    rows.append(rows[1].replace(",-3,", ",7,"))                   # duplicate of line 2, line 6
    with pytest.raises(SiteError) as caught:
        _load(_site(tmp_path, "\n".join(rows)))
    text = str(caught.value)
    shown = "data/rounds/v6.0/results.csv"
    assert f"{shown}:2: error: column 'score_minutes' has the negative value '-3'" in text
    assert f"{shown}:3: error: column 'score_minutes' has the non-finite value 'inf'" in text
    assert f"{shown}:4: error: column 'benchmark' has unknown benchmark 'resnet'" in text
    assert f"{shown}:5: error: column 'number_of_nodes' has 'two', which is not an integer" in text
    assert f"{shown}:6: error: duplicate result (v6.0, Acme, a512, deepseekv3_671b), first on line 2" in text
    assert len(caught.value.problems) == 5


def test_missing_column_and_missing_file(tmp_path):
    header = HEADER.replace("framework,", "")
    body = "\n".join(line.replace(",PyTorch,", ",") for line in csv_text(MINI_V60).splitlines()[1:])
    root = _site(tmp_path, header + "\n" + body)
    (root / "data/rounds/v5.1/results.csv").unlink()
    with pytest.raises(SiteError) as caught:
        _load(root)
    text = str(caught.value)
    assert "data/rounds/v6.0/results.csv:1: error: missing column 'framework'" in text
    assert "data/rounds/v5.1/results.csv: error: missing results for round v5.1" in text


def test_inconsistent_totals_and_zero_score(tmp_path):
    rows = csv_text(MINI_V60).splitlines()
    rows[1] = rows[1].replace(",4,128,512,", ",4,128,500,")
    rows[2] = rows[2].replace(",6.25,", ",0,")
    with pytest.raises(SiteError) as caught:
        _load(_site(tmp_path, "\n".join(rows)))
    text = str(caught.value)
    assert ":2: error: column 'total_accelerators' is not number_of_nodes x accelerators_per_node" in text
    assert ":3: error: column 'score_minutes' is zero" in text


def test_duplicate_benchmark_id(tmp_path):
    benchmarks = csv_text(MINI_BENCHMARKS)
    benchmarks += benchmarks.splitlines()[1] + "\n"
    with pytest.raises(SiteError, match=r"benchmarks.csv:4: error: duplicate benchmark id 'deepseekv3_671b'"):
        _load(_site(tmp_path, benchmarks=benchmarks))


def test_shipped_data_is_valid_and_complete():
    dataset = load_dataset(ROOT / "data", ["v6.0", "v5.1"], ROOT)
    assert len(dataset.round("v6.0")) == 224
    assert len(dataset.round("v5.1")) == 185
    assert dataset.round("v6.0")["score_minutes"].notna().sum() >= 96  # 65 before the runs read in data/rounds/v6.0
    assert (dataset.results["score_source"] != "").all()
    assert set(dataset.results["benchmark"]) <= set(dataset.benchmarks.index)


def test_benchmark_catalog_agrees_with_mlperf_logging():
    """Quality targets and runs per result in data/benchmarks.csv, checked against MLCommons' own rules."""
    pytest.importorskip("mlperf_logging")
    import re
    from importlib import resources

    from mlperf_logging.benchmark_meta import _ALL_RESULT_FILE_COUNTS

    dataset = load_dataset(ROOT / "data", ["v6.0", "v5.1"], ROOT)
    checker = resources.files("mlperf_logging") / "compliance_checker"
    for benchmark, row in dataset.benchmarks.iterrows():
        assert row["runs_per_result"] == _ALL_RESULT_FILE_COUNTS["training"][benchmark], benchmark
        version = "training_6.0.0" if benchmark in set(dataset.round("v6.0")["benchmark"]) else "training_5.1.0"
        rules = (checker / version / f"closed_{benchmark}.yaml").read_text()
        target = re.search(r"ATLEAST_ONE_CHECK: \"(.*)\"", rules).group(1)
        operator, value = row["quality_target"].removeprefix("eval_accuracy ").split(" ")
        assert re.search(rf"v\['value'\] {re.escape(operator)} {re.escape(value)}\b", target), (benchmark, target)


def test_optional_columns_may_be_present_or_absent(tmp_path, monkeypatch):
    from site_builder import data

    monkeypatch.setattr(data, "RESULT_OPTIONAL_COLUMNS", {"result_id": "str", "score_decimals": "int"})
    rows = csv_text(MINI_V60).splitlines()
    with_column = [rows[0] + ",score_decimals"] + [row + ",2" for row in rows[1:]]
    with_column[2] = rows[2] + ","  # an empty optional cell is a missing value
    dataset = _load(_site(tmp_path, "\n".join(with_column)))
    current = dataset.round("v6.0")
    assert current["score_decimals"].iloc[0] == 2 and current["score_decimals"].isna().tolist()[1]
    assert (dataset.round("v5.1")["result_id"] == "").all()  # absent column: missing values
    assert dataset.round("v5.1")["score_decimals"].isna().all()


def test_header_problems_are_all_reported(tmp_path):
    rows = csv_text(MINI_V60).splitlines()
    header = rows[0].replace("notes", "note") + ",framework"
    body = [row + ",PyTorch" for row in rows[1:]]
    with pytest.raises(SiteError) as caught:
        _load(_site(tmp_path, "\n".join([header, *body])))
    text = str(caught.value)
    shown = "data/rounds/v6.0/results.csv"
    assert f"{shown}:1: error: unknown column 'note'\n  hint: did you mean 'notes'?" in text
    assert f"{shown}:1: error: column 'framework' appears twice in the header" in text
    assert f"{shown}:1: error: missing column 'notes'" in text


def test_unreadable_csv_and_huge_numbers_are_problems(tmp_path):
    rows = csv_text(MINI_V60).splitlines()
    rows[1] = rows[1].replace(",4,128,512,", ",4,128,99999999999999999999999,")
    rows[3] = rows[3].replace("EPYC", "EP\x00YC")
    with pytest.raises(SiteError) as caught:
        _load(_site(tmp_path, "\n".join(rows)))
    text = str(caught.value)
    assert "data/rounds/v6.0/results.csv:4: error: column 'host_processor' has the control character U+0000" in text
    rows[4] = rows[4].replace("EPYC", "x" * 200_000)
    (tmp_path / "data/rounds/v6.0/results.csv").write_text("\n".join(rows) + "\n")
    with pytest.raises(SiteError, match=r"results.csv:5: error: unreadable CSV: field larger than field limit"):
        _load(tmp_path)
    (tmp_path / "data/rounds/v6.0/results.csv").write_text("\n".join(rows[:3]) + "\n")
    with pytest.raises(SiteError, match=r"results.csv:2: error: column 'total_accelerators' has "
                                        r"'99999999999999999999999', which is too large"):
        _load(tmp_path)


def test_files_with_a_header_but_no_rows(tmp_path):
    root = _site(tmp_path, HEADER, benchmarks=MINI_BENCHMARKS.strip().splitlines()[0])
    with pytest.raises(SiteError) as caught:
        _load(root)
    text = str(caught.value)
    assert "data/benchmarks.csv:1: error: the benchmark catalog has a header but no benchmarks" in text
    assert "data/rounds/v6.0/results.csv:1: error: no results: the file of round v6.0 has a header but no rows" in text


def test_benchmark_texts_per_language_are_read_and_checked(tmp_path):
    root = _site(tmp_path)
    (root / "data/benchmarks_translated.csv").write_text(
        "id,lang,model,dataset,source\n"
        "deepseekv3_671b,nl,,C4-corpus,bron\n", encoding="utf-8")
    dataset = _load(root)
    assert dataset.translated("deepseekv3_671b", "nl") == {"dataset": "C4-corpus", "source": "bron"}  # empty: English
    assert dataset.translated("deepseekv3_671b", "it") == {}
    (root / "data/benchmarks_translated.csv").write_text(
        "id,lang,model,dataset,source\n"
        "resnet,nl,,,bron\n"
        "deepseekv3_671b,nl,,,bron\n"
        "deepseekv3_671b,nl,,,bron\n", encoding="utf-8")
    with pytest.raises(SiteError) as caught:
        _load(root)
    text = str(caught.value)
    assert "benchmarks_translated.csv:2: error: unknown benchmark id 'resnet'" in text
    assert "benchmarks_translated.csv:4: error: benchmark 'deepseekv3_671b' has a second row for language 'nl'" in text
