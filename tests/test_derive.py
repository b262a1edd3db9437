import pytest

from site_builder.data import RESULT_OPTIONAL_COLUMNS, RESULT_SCHEMA
from site_builder.derive import COLUMNS, OPTIONAL_SOURCE_COLUMNS, accelerator_type, derive_all
from tests.conftest import ROOT, SHARED_DATA


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
    assert accelerator_type(model) == expected


@pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="../shared/data/mlperf-training is not present "
                    "(it is beside the project checkout only, not in a user's clone)")
def test_shipped_data_regenerates_without_difference():
    for relative, text in derive_all(SHARED_DATA).items():
        assert text.splitlines()[0] == ",".join(COLUMNS)  # the provenance columns are part of the files
        assert (ROOT / "data" / relative).read_text(encoding="utf-8") == text, relative


def test_every_derived_column_is_in_the_schema_and_documented():
    readme = (ROOT / "data" / "README.md").read_text(encoding="utf-8")
    for column in COLUMNS + OPTIONAL_SOURCE_COLUMNS:
        assert column in RESULT_SCHEMA or column in RESULT_OPTIONAL_COLUMNS, column
        assert f"\n| {column} |" in readme, column


@pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="../shared/data/mlperf-training is not present")
def test_derived_counts_match_the_published_round():
    v60 = derive_all(SHARED_DATA)["rounds/v6.0/results.csv"]
    import csv
    import io
    rows = list(csv.DictReader(io.StringIO(v60)))
    assert len({r["accelerator"] for r in rows}) == 13  # claims.md: 13 accelerator types
    assert {r["accelerator"] for r in rows} == {"GB300", "B300", "GB200", "B200", "H200-SXM", "H200-NVL",
                                                "H100-SXM", "GH200", "RTX PRO 6000 Blackwell", "MI355X",
                                                "MI350X", "MI325X", "MI300X"}
