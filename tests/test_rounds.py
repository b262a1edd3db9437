import datetime as dt

import pytest

from site_builder.errors import SiteError
from site_builder.rounds import load_round_info, result_folder_url


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


def test_bad_round_file_reports_every_problem_with_lines(tmp_path):
    folder = tmp_path / "rounds" / "v1.0"
    folder.mkdir(parents=True)
    (folder / "round.toml").write_text('label = 3\ncolour = "red"\nresults_repository = "ftp://x"\n')
    with pytest.raises(SiteError) as error:
        load_round_info(tmp_path, "v1.0", tmp_path)
    text = str(error.value)
    assert "rounds/v1.0/round.toml:1: error: 'label'" in text
    assert "round.toml:2: error: unknown key 'colour'" in text
    assert "round.toml:3: error: 'results_repository' must be an absolute" in text
