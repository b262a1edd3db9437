import pytest

from site_builder.config import load_config
from site_builder.data import RESULT_OPTIONAL_COLUMNS, RESULT_SCHEMA
from site_builder.derive import COLUMNS, OPTIONAL_SOURCE_COLUMNS, derive_all, derived_rounds
from site_builder.errors import SiteError
from site_builder.hardware import load_hardware
from tests.conftest import ROOT, SHARED_DATA

HARDWARE = load_hardware(ROOT / "data", ROOT)
ROUNDS = derived_rounds(load_config(ROOT))  # the rounds come from site.toml, not from a list in the code


@pytest.mark.parametrize("model, expected", [
    ("NVIDIA Blackwell Ultra GPU (GB300)", "GB300"),
    ("NVIDIA Blackwell Ultra GPU (B300-SXM-270GB)", "B300"),
    ("NVIDIA B300 Blackwell Ultra GPU", "B300"),
    ("NVIDIA Blackwell GPU (B200-SXM-180GB)", "B200"),
    ("NVIDIA H200-NVL-141GB", "H200-NVL"),
    ("NVIDIA H200-SXM5-141GB", "H200-SXM"),
    ("NVIDIA Hopper GPU (GH200)", "GH200"),
    ("NVIDIA RTX Pro 6000 SE PCIe 96GB", "RTX PRO 6000 Blackwell"),
    ("AMD Instinct MI325X 256GB HBM3E DLC", "MI325X"),
    ("Some future chip", None),
])
def test_accelerator_types(model, expected):
    assert HARDWARE.accelerator_type(model) == expected


@pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="../shared/data/mlperf-training is not present "
                    "(it is beside the project checkout only, not in a user's clone)")
def test_shipped_data_regenerates_without_difference():
    derived = derive_all(SHARED_DATA, ROUNDS, HARDWARE, ROOT / "data")
    assert sorted(derived) == sorted(f"rounds/{name}/results.csv" for name in ROUNDS)
    for relative, text in derived.items():
        assert text.splitlines()[0] == ",".join(COLUMNS)  # the provenance columns are part of the files
        assert (ROOT / "data" / relative).read_text(encoding="utf-8") == text, relative


def test_every_derived_column_is_in_the_schema_and_documented():
    readme = (ROOT / "data" / "README.md").read_text(encoding="utf-8")
    for column in COLUMNS + OPTIONAL_SOURCE_COLUMNS:
        assert column in RESULT_SCHEMA or column in RESULT_OPTIONAL_COLUMNS, column
        assert f"\n| {column} |" in readme, column


@pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="../shared/data/mlperf-training is not present")
def test_derived_counts_match_the_published_round():
    v60 = derive_all(SHARED_DATA, ["v6.0"], HARDWARE)["rounds/v6.0/results.csv"]
    import csv
    import io
    rows = list(csv.DictReader(io.StringIO(v60)))
    assert len({r["accelerator"] for r in rows}) == 13  # claims.md: 13 accelerator types
    assert {r["accelerator"] for r in rows} == {"GB300", "B300", "GB200", "B200", "H200-SXM", "H200-NVL",
                                                "H100-SXM", "GH200", "RTX PRO 6000 Blackwell", "MI355X",
                                                "MI350X", "MI325X", "MI300X"}


def test_unknown_model_names_its_row_and_the_accelerator_table(tmp_path):
    source = tmp_path / "v9.0"
    source.mkdir()
    (source / "results.csv").write_text("accelerator_model,availability_raw,benchmark,submitter,system_id,score_source\n"
                                        "NVIDIA B200,,b,s,x,not computed\nSome future chip,,b,s,y,not computed\n")
    with pytest.raises(SiteError) as error:
        derive_all(tmp_path, ["v9.0"], HARDWARE)
    assert "results.csv:3: error: unknown accelerator model 'Some future chip'" in str(error.value)
    assert "data/accelerators.csv" in str(error.value)


def test_a_value_the_source_did_not_read_becomes_a_missing_value(tmp_path):
    """The source's "(not read)" is not a framework's name: it is derived as an empty cell, which every language
    shows as missing ("not in our sources")."""
    source = tmp_path / "v9.0"
    source.mkdir()
    (source / "results.csv").write_text("accelerator_model,availability_raw,benchmark,submitter,system_id,framework,"
                                        "score_source\nNVIDIA B200,Available cloud,b,s,x,(not read),not computed\n")
    derived = derive_all(tmp_path, ["v9.0"], HARDWARE)["rounds/v9.0/results.csv"]
    header, row = derived.splitlines()
    assert dict(zip(header.split(","), row.split(",")))["framework"] == ""


@pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="../shared/data/mlperf-training is not present")
def test_every_system_has_the_name_its_description_gives():
    """A derived row's system_name is the system description's own `system_name` (the extracted table of a round,
    or its verbatim system JSONs), never another: pages show it in place of the folder id. Where the description's
    name is the id, or missing, the id is what readers see."""
    import csv
    import io
    import json

    for round_name in ROUNDS:
        folder = SHARED_DATA / round_name
        described = {}
        for path in sorted((folder / "systems").glob("*__*.json")):
            submitter_dir, system_id = path.stem.split("__", 1)
            described[submitter_dir, system_id] = json.loads(path.read_text(encoding="utf-8"))["system_name"].strip()
        if (folder / "systems_extracted.csv").is_file():
            with (folder / "systems_extracted.csv").open(encoding="utf-8", newline="") as handle:
                for row in csv.DictReader(handle):
                    name = "" if row["system_name"] == "(not read)" else row["system_name"]
                    described.setdefault((row["submitter_dir"], row["system_id"]), name)
        derived = derive_all(SHARED_DATA, [round_name], HARDWARE)[f"rounds/{round_name}/results.csv"]
        rows = list(csv.DictReader(io.StringIO(derived)))
        known = [r for r in rows if (r["submitter_dir"], r["system_id"]) in described]
        assert len(known) > 0.9 * len(rows), round_name
        wrong = {(r["system_id"], r["system_name"]) for r in known
                 if r["system_name"] != described[r["submitter_dir"], r["system_id"]]}
        assert wrong == set(), round_name
