"""Write out a bare git repository's HEAD tree, skipping the files its snapshot lacks.

    python benchmarks/snapshot.py GIT_DIR OUT_FOLDER      # prints the paths of the missing files

A results repository is read by `site-builder ingest` from a folder. `git archive` and `git checkout` stop at
the first blob a partial snapshot lacks (the v5.1 snapshot lacks one Dell result's ten run logs); this
writes every blob there is, keeps the folder of each one that is missing (so ingest sees the result and
reports it unscored, with the reason), and names what was missing, for data/README.md.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def write_tree(git_dir: Path, out: Path) -> list[str]:
    """Write HEAD's files under `out`; return the paths whose blobs the repository lacks."""
    listing = subprocess.run(["git", f"--git-dir={git_dir}", "ls-tree", "-r", "-z", "HEAD"],
                             capture_output=True, check=True).stdout
    entries = []
    for item in filter(None, listing.split(b"\0")):
        meta, path = item.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob":
            entries.append((mode, sha, path.decode()))
    missing = []
    with subprocess.Popen(["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE) as batch:
        for mode, sha, path in entries:
            batch.stdin.write(sha + b"\n")
            batch.stdin.flush()
            header = batch.stdout.readline().split()
            target = out / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if header[-1] == b"missing":
                missing.append(path)
                continue
            data = batch.stdout.read(int(header[2]))
            batch.stdout.read(1)  # the newline after each object
            if mode == b"120000":
                os.symlink(data.decode(), target)
            else:
                target.write_bytes(data)
        batch.stdin.close()
    return missing


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    for path in write_tree(Path(sys.argv[1]), Path(sys.argv[2])):
        print(path)
