"""Golden test: build tests/golden/site and compare with tests/golden/expected, file by file.

Regenerate after an intended change with `python -m pytest tests/test_golden.py --update-golden`
and review the diff in git. Some files are compared by name only: the vega bundle (a vendored
0.9 MB script whose name already carries its content hash), and the static SVG and PNG renderings
(their text metrics depend on the fonts installed on the machine).
"""

import difflib
import re
import shutil
from pathlib import Path

from site_builder.build import build_site

GOLDEN = Path(__file__).parent / "golden"
NAME_ONLY = re.compile(r"(^assets/vega\.[0-9a-f]+\.js$|\.svg$|\.png$)")


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_golden_site(tmp_path, monkeypatch, update_golden):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1781222400")
    out = tmp_path / "out"
    build_site(GOLDEN / "site", out)
    built = _files(out)
    expected_dir = GOLDEN / "expected"
    if update_golden:
        shutil.rmtree(expected_dir, ignore_errors=True)
        for name, content in built.items():
            target = expected_dir / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(b"" if NAME_ONLY.search(name) else content)
    expected = _files(expected_dir)
    assert sorted(built) == sorted(expected), "the set of output files changed"
    diffs = []
    for name in sorted(built):
        if NAME_ONLY.search(name) or built[name] == expected[name]:
            continue
        diffs.append("".join(difflib.unified_diff(
            expected[name].decode("utf-8", "replace").splitlines(True),
            built[name].decode("utf-8", "replace").splitlines(True),
            f"expected/{name}", f"built/{name}", n=2))[:3000])
    assert not diffs, "\n".join(diffs) + "\n(run pytest --update-golden if the change is intended)"
