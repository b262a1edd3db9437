"""The cache is data, not code: entries are sealed with a per-cache secret key, checked before use, and the
cache touches only what it made."""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from jinja2.bccache import bc_magic

from site_builder import assets, cache
from site_builder.build import build_site
from site_builder.cli import main
from tests.test_incremental import snapshot



class Planted:
    """A pickle that creates a file when it is loaded."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return open, (str(self.marker), "w")


def test_the_key_file_and_folder_are_private(tmp_path, monkeypatch):
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "cache"))
    assert len(cache.secret()) == 32
    assert stat.S_IMODE((tmp_path / "cache").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "cache" / "cache.key").stat().st_mode) == 0o600
    assert (tmp_path / "cache" / "CACHEDIR.TAG").read_bytes().startswith(b"Signature: 8a477f597d28d172789f06886806bc55")


@pytest.mark.parametrize("exposure", ["readable by others", "owned by another user"])
def test_a_key_file_others_can_read_is_replaced_and_said_so(tmp_path, monkeypatch, capsys, exposure):
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "cache"))
    old = cache.secret()
    sealed = cache.seal(b"entry") + b"entry"
    if exposure == "readable by others":
        os.chmod(tmp_path / "cache" / "cache.key", 0o644)
    elif os.getuid() == 0:
        os.chown(tmp_path / "cache" / "cache.key", 4242, 4242)
    else:
        pytest.skip("giving a file to another user takes root")
    assert cache.secret() not in (None, old)
    assert "not trusted, a new cache key is made" in capsys.readouterr().err
    assert cache.unseal(sealed) is None  # what was sealed with the exposed key is made again
    assert stat.S_IMODE((tmp_path / "cache" / "cache.key").stat().st_mode) == 0o600


@pytest.mark.slow
def test_a_malicious_pickle_with_a_valid_checksum_is_never_run(mini_site, warm_cache, tmp_path):
    build_site(mini_site, tmp_path / "good", jobs=1)
    marker = tmp_path / "pwned"
    payload = pickle.dumps(Planted(marker))
    entries = [p for p in [*(warm_cache / "values").iterdir(), *(warm_cache / "builds").iterdir()]
               if p.suffix in (".articles", ".chart", ".built")]
    assert {p.suffix for p in entries} == {".articles", ".chart", ".built"}
    for entry in entries:  # the layout of an entry before it was sealed: sha256(payload) + payload
        entry.write_bytes(hashlib.sha256(payload).digest() + payload)
    for entry in (warm_cache / "templates").glob("*.jinja"):  # Jinja's bytecode header, then a pickle
        entry.write_bytes(bc_magic + payload)
    build_site(mini_site, tmp_path / "again", jobs=1)
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "good")])
    assert result.exit_code == 0, result.output
    assert not marker.exists()
    assert snapshot(tmp_path / "again") == snapshot(tmp_path / "good")


@pytest.mark.slow
def test_garbled_renderings_and_vega_bundle_are_made_again(mini_site, warm_cache, tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # a kept bundle of this test's own (the worker reads TMPDIR)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    build_site(mini_site, tmp_path / "good", jobs=1)
    garbled = [*(warm_cache / "renders").glob("*.svg"), *(warm_cache / "renders").glob("*.png"),
               *warm_cache.glob("vega-bundle-*.js"), *assets.kept_dir().glob("vega-bundle-*.js")]
    assert {p.suffix for p in garbled} == {".svg", ".png", ".js"}
    for path in garbled:
        raw = path.read_bytes()
        path.write_bytes(raw[: len(raw) // 2] + b"<garbled>" * 3)
    build_site(mini_site, tmp_path / "again", jobs=1)
    assert snapshot(tmp_path / "again") == snapshot(tmp_path / "good")


@pytest.mark.slow
def test_files_the_cache_did_not_make_survive_a_build_and_a_clear(mini_site, warm_cache, tmp_path, monkeypatch):
    build_site(mini_site, tmp_path / "out", jobs=1)
    renders = warm_cache / "renders"
    (renders / "notes.txt").write_text("mine")
    (renders / "photos").mkdir()
    (renders / "photos" / "a.png").write_text("mine too")
    monkeypatch.setenv("SITE_BUILDER_CACHE_MAX_MB", "0")  # trim everything the cache may trim
    build_site(mini_site, tmp_path / "again", jobs=1)
    result = CliRunner().invoke(main, ["cache", "clear"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in renders.iterdir()) == ["notes.txt", "photos"]
    assert (renders / "photos" / "a.png").read_text() == "mine too"


def test_a_folder_that_is_not_a_cache_is_refused_and_left_alone(mini_site, tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "renders").mkdir(parents=True)
    (home / "renders" / ("a" * 64 + ".svg")).write_text("someone's file with a cache-like name")
    (home / "vega-bundle-1.js").write_text("someone's script")
    (home / "notes.txt").write_text("a file site-builder never writes: this is not a cache")
    before = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(home))
    for command in (["build", "--root", str(mini_site), "--out", str(tmp_path / "out")], ["cache", "clear"]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 1
        assert result.stderr.startswith(f"error: the cache folder {home} is not empty and was not made by site-builder")
        assert "Traceback" not in result.output
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == before
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_cache_an_earlier_version_made_is_taken_over_without_trusting_it(mini_site, tmp_path, monkeypatch):
    """Before the tag, a cache held only renders/ entries and the bundle: it is tagged and used, and its unsigned
    entries are made again (a garbled bundle from then does not reach the site)."""
    old = tmp_path / "old-cache"
    (old / "renders").mkdir(parents=True)
    (old / "renders" / ("b" * 64 + ".svg")).write_text("<svg>an unsigned rendering</svg>")
    (old / f"vega-bundle-{assets.bundle_version()}.js").write_text("garbled();")
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(old))
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert (old / "CACHEDIR.TAG").is_file()
    bundles = [p.read_text() for p in (tmp_path / "out/assets").glob("vega.*.js")]
    assert len(bundles) == 1 and "garbled();" not in bundles[0] and "vegaEmbed" in bundles[0]
