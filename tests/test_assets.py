from site_builder import assets


def test_hashed_names_change_with_content():
    a, b = assets.hashed("site.css", b"a"), assets.hashed("site.css", b"b")
    assert a.path.startswith("assets/site.") and a.path.endswith(".css") and a.path != b.path


def test_vega_bundle_is_cached_and_defines_vega_embed(tmp_path, monkeypatch):
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path))
    first = assets.vega_bundle()
    cached = list(tmp_path.glob("vega-bundle-*.js"))
    assert len(cached) == 1 and cached[0].read_bytes() == first.content
    assert b"window.vegaEmbed=" in first.content
    assert assets.vega_bundle() == first
