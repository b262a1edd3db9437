from site_builder.paths import result_anchor


def test_result_anchor_is_a_stable_fragment_per_round():
    assert result_anchor("v6.0", "CoreWeave", "CoreWeave_GB300_2048x4") == "r-v6-0-coreweave-coreweave-gb300-2048x4"
    assert result_anchor("v5.1", "CoreWeave", "CoreWeave_GB300_2048x4") != result_anchor(
        "v6.0", "CoreWeave", "CoreWeave_GB300_2048x4")
