import csv
import datetime as dt
from pathlib import Path

import pytest

from site_builder.errors import SiteError
from site_builder.rounds import BenchmarkName, load_round_info, result_folder_url


def test_round_info_is_read_and_links_a_result_folder(tmp_path):
    folder = tmp_path / "rounds" / "v9.9"
    folder.mkdir(parents=True)
    (folder / "round.toml").write_text('label = "Round 9.9"\npublished = 2030-01-02\n'
                                       'results_repository = "https://example.com/results/"\n')
    info = load_round_info(tmp_path, "v9.9")
    assert (info.label, info.published) == ("Round 9.9", dt.date(2030, 1, 2))
    assert result_folder_url(info, "Acme", "sys1", "bench") == "https://example.com/results/tree/main/Acme/results/sys1/bench"


def test_round_without_file_is_named_by_its_folder(tmp_path):
    info = load_round_info(tmp_path, "v1.0")
    assert info.label == "v1.0" and result_folder_url(info, "Acme", "s", "b") is None


def _round_file(root: Path, text: str) -> None:
    folder = root / "rounds" / "v1.0"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "round.toml").write_text(text)


def _refusal(root: Path, text: str) -> str:
    """What loading a v1.0 round.toml of `text` reports."""
    _round_file(root, text)
    with pytest.raises(SiteError) as error:
        load_round_info(root, "v1.0", root)
    return str(error.value)


def test_bad_round_file_reports_every_problem_with_lines(tmp_path):
    text = _refusal(tmp_path, 'label = 3\ncolour = "red"\nresults_repository = "ftp://x"\n')
    assert "rounds/v1.0/round.toml:1: error: 'label'" in text
    assert "round.toml:2: error: unknown key 'colour'" in text
    assert "round.toml:3: error: 'results_repository' must be an absolute" in text


def test_benchmark_names_are_read_with_what_they_are_the_same_as_and_bad_ones_located(tmp_path):
    folder = tmp_path / "rounds" / "v1.0"
    folder.mkdir(parents=True)
    (folder / "round.toml").write_text('[benchmarks]\nold = { name = "New model", same_as = "new" }\n'
                                       'plain = "Plain"\n')
    info = load_round_info(tmp_path, "v1.0")
    assert info.benchmarks["old"] == BenchmarkName("New model", "new")
    assert info.benchmarks["plain"] == BenchmarkName("Plain", None)
    (folder / "round.toml").write_text('[benchmarks]\nfine = "Fine"\nempty = ""\nodd = { name = "X", colour = 1 }\n')
    with pytest.raises(SiteError) as error:
        load_round_info(tmp_path, "v1.0", tmp_path)
    text = str(error.value)
    assert "rounds/v1.0/round.toml:3: error: benchmark 'empty' must be a display name" in text
    assert "rounds/v1.0/round.toml:4: error: benchmark 'odd'" in text


ROUNDS = Path(__file__).resolve().parent.parent / "data" / "rounds"


@pytest.mark.parametrize("round_name", sorted(folder.name for folder in ROUNDS.iterdir() if folder.is_dir()))
def test_every_benchmark_of_a_committed_round_has_a_name_and_its_successor_exists(round_name):
    """A round's results name each benchmark as its repository did; round.toml or benchmarks.csv names it."""
    catalog = {row["id"] for row in csv.DictReader((ROUNDS.parent / "benchmarks.csv").open(encoding="utf-8"))}
    info = load_round_info(ROUNDS.parent, round_name)
    results = {row["benchmark"] for row in csv.DictReader((ROUNDS / round_name / "results.csv").open(encoding="utf-8"))}
    assert sorted(b for b in results if b not in catalog and b not in info.benchmarks) == []
    assert sorted(n.same_as for n in info.benchmarks.values() if n.same_as and n.same_as not in catalog) == []
    assert sorted(b for b in info.benchmarks if b not in results) == []  # no name for a benchmark it lacks


def test_a_bad_round_file_is_left_to_the_round_loader_by_the_data_loader(tmp_path):
    """The results table reads round.toml only for its benchmark names: round.toml's own problems are reported
    once, by load_round_info, not a second time with the table's."""
    import shutil

    from site_builder.data import load_dataset

    data = tmp_path / "data"
    shutil.copytree(ROUNDS.parent / "rounds" / "v5.1", data / "rounds" / "v5.1")
    for name in ("benchmarks.csv", "benchmarks_translated.csv", "accelerators.csv", "vendors.csv"):
        shutil.copy(ROUNDS.parent / name, data / name)
    (data / "rounds" / "v5.1" / "round.toml").write_text('colour = "red"\n')
    assert len(load_dataset(data, ["v5.1"], tmp_path).results) == 185
    with pytest.raises(SiteError, match="unknown key 'colour'"):
        load_round_info(data, "v5.1", tmp_path)


def test_the_checker_a_round_was_reviewed_with_is_read_and_bad_tables_located(tmp_path):
    _round_file(tmp_path, '[checker]\nrelease = "logging 1.0.0"\nwarnings = ["Required X"]\nnote = "X was optional then"\n')
    checker = load_round_info(tmp_path, "v1.0").checker
    assert (checker.release, checker.warnings, checker.note) == ("logging 1.0.0", ("Required X",), "X was optional then")
    text = _refusal(tmp_path, '[checker]\nrelease = "logging 1.0.0"\nwarnings = []\nsince = "2.0"\n')
    assert "round.toml:4: error: unknown key 'since' in [checker]" in text
    assert "round.toml:3: error: [checker] needs 'warnings' as a list of texts" in text
    assert "round.toml:1: error: [checker] needs 'note' as text" in text


def test_the_rounds_reviewed_with_another_checker_say_so():
    """The shipped rounds whose release differs from today's mlperf-logging name the release and the rule."""
    data = Path(__file__).resolve().parent.parent / "data"
    for name, rule in (("v1.1", "weights_initialization"), ("v2.1", "opt_lamb_epsilon")):
        checker = load_round_info(data, name).checker
        assert checker is not None and rule in " ".join(checker.warnings) and "mlcommons/logging" in checker.release
